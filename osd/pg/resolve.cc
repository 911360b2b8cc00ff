#include "osd/pg/resolve.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ec::osd::pg {

namespace {

// The object's version a shard's record is of: the newest of the versions it recorded.
std::uint64_t RecordVersion(const msg::SubStateReply& st) {
  if (st.versions.empty()) return st.version;
  return *std::max_element(st.versions.begin(), st.versions.end());
}

}  // namespace

std::uint64_t VersionAt(const msg::ShardVersions& versions, std::uint64_t version, int position) {
  if (versions.empty() || position < 0 || static_cast<std::size_t>(position) >= versions.size()) {
    return version;
  }
  return versions[static_cast<std::size_t>(position)];
}

Resolution Resolve(const std::vector<ShardView>& shards, int k, int min_size,
                   const std::vector<std::vector<OtherHolder>>& elsewhere, int unknown,
                   int copies) {
  Resolution r;
  const auto others_of = [&](std::size_t p) -> const std::vector<OtherHolder>* {
    return p < elsewhere.size() ? &elsewhere[p] : nullptr;
  };
  int reachable = 0;
  // Every object version seen (a shard's record), newest first, with the record that says which
  // version each position must be at for it (the same on every shard written for it).
  std::map<std::uint64_t, const msg::SubStateReply*, std::greater<>> versions;
  for (const ShardView& s : shards) {
    if (!s.reachable) continue;
    ++reachable;
    versions.emplace(RecordVersion(s.state), &s.state);
  }
  for (const auto& holders : elsewhere) {
    for (const OtherHolder& h : holders) versions.emplace(RecordVersion(h.state), &h.state);
  }
  const int unreachable = static_cast<int>(shards.size()) - reachable;
  if (reachable == 0) {
    r.action = Resolution::Action::kUndecided;
    r.why = "no shard answered";
    return r;
  }
  // From the newest version down: the first that k positions hold (on their acting OSD or on
  // another) is the object. A position holds version v when its shard is at the version v's
  // record gives that position: the write of v itself, or an older one that v did not change
  // (a partial write leaves the shards it does not change where they are). A newer one that
  // cannot have been acknowledged (held, with every shard that does not answer, by fewer than
  // min_size positions) is rolled back on the acting shards its write changed, and skipped where
  // only other OSDs hold it (a shard left there by a write that was rolled back); one that may
  // have been is waited for.
  for (const auto& entry : versions) {
    // Plain names, not a structured binding: the lambdas below use them (clang 14 cannot).
    const auto& v = entry.first;
    const auto& record = entry.second;
    const msg::ShardVersions& want = record->versions;
    const auto at = [&](std::size_t p) { return VersionAt(want, v, static_cast<int>(p)); };
    std::vector<int> holding;  // acting positions holding v
    std::vector<int> written;  // acting positions v's write changed (what a rollback undoes)
    int held = 0;
    bool held_elsewhere = false;
    bool copy_held = false;  // a copy position (< copies) holds v
    for (std::size_t p = 0; p < shards.size(); ++p) {
      const ShardView& s = shards[p];
      const bool acting = s.reachable && s.state.version == at(p);
      if (acting) holding.push_back(s.position);
      if (s.reachable && s.state.version == v && v > 0) written.push_back(s.position);
      bool other = false;
      if (const auto* holders = others_of(p)) {
        for (const OtherHolder& h : *holders) other = other || h.state.version == at(p);
      }
      held_elsewhere = held_elsewhere || (other && !acting);
      if (acting || other) ++held;
      if ((acting || other) && static_cast<int>(p) < copies) copy_held = true;
    }
    const bool replicas = copies > 0 && record->form == msg::ObjectForm::kReplicas && v > 0 &&
                          record->state == msg::ShardState::kPresent;
    const bool settles =
        replicas ? copy_held && (held >= k || unreachable + unknown < min_size) : held >= k;
    if (settles) {
      r.action = Resolution::Action::kSettled;
      r.version = v;
      r.current = holding;
      bool uniform = true;
      for (std::size_t p = 0; p < shards.size(); ++p) uniform = uniform && at(p) == v;
      if (!uniform) {
        r.versions.resize(shards.size());
        for (std::size_t p = 0; p < shards.size(); ++p) r.versions[p] = at(p);
      }
      for (std::size_t p = 0; p < shards.size(); ++p) {
        const ShardView& s = shards[p];
        if (s.reachable && s.state.version == at(p)) continue;
        if (s.reachable) r.stale.push_back(s.position);
        if (const auto* holders = others_of(p); holders != nullptr && v > 0) {
          for (const OtherHolder& h : *holders) {
            if (h.state.version != at(p)) continue;
            r.copy_from[s.position] = h.osd;
            break;
          }
        }
      }
      // The object's size and existence are those v's record gives (a shard v did not change
      // keeps the size of its own write).
      r.exists = record->state == msg::ShardState::kPresent && v > 0;
      r.object_size = r.exists ? record->object_size : 0;
      r.form = r.exists ? record->form : msg::ObjectForm::kErasure;
      return r;
    }
    if (v == 0) break;  // "never written" on fewer than k: nothing older to try
    if (held + unreachable + unknown >= min_size) {
      r.action = Resolution::Action::kUndecided;
      r.version = v;
      r.why = fmt::format(
          "version {} is on {} shard(s){}, fewer than k={}, and {} shard(s) that could hold it "
          "do not answer{}",
          v, held, held_elsewhere ? " counting other OSDs" : "", k, unreachable,
          unknown > 0 ? fmt::format(" ({} more OSD(s) outside the acting set are down)", unknown)
                      : std::string());
      return r;
    }
    if (!written.empty()) {
      r.action = Resolution::Action::kRollback;
      r.version = v;
      r.rollback = written;
      return r;
    }
    // Only other OSDs hold it, and it was never acknowledged: not the object.
  }
  r.action = Resolution::Action::kUndecided;
  r.why = fmt::format("only {} shard(s) answer, fewer than k={}", reachable, k);
  return r;
}

}  // namespace ec::osd::pg
