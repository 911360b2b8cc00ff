#include "osd/pg/resolve.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace ec::osd::pg {

Resolution Resolve(const std::vector<ShardView>& shards, int k, int min_size,
                   const std::vector<std::vector<OtherHolder>>& elsewhere, int unknown) {
  Resolution r;
  const auto others_of = [&](std::size_t p) -> const std::vector<OtherHolder>* {
    return p < elsewhere.size() ? &elsewhere[p] : nullptr;
  };
  int reachable = 0;
  std::set<std::uint64_t, std::greater<>> versions;  // every version seen, newest first
  for (const ShardView& s : shards) {
    if (!s.reachable) continue;
    ++reachable;
    versions.insert(s.state.version);
  }
  for (const auto& holders : elsewhere) {
    for (const OtherHolder& h : holders) versions.insert(h.state.version);
  }
  const int unreachable = static_cast<int>(shards.size()) - reachable;
  if (reachable == 0) {
    r.action = Resolution::Action::kUndecided;
    r.why = "no shard answered";
    return r;
  }
  // From the newest version down: the first that k positions hold (on their acting OSD or on
  // another) is the object. A newer one that cannot have been acknowledged (held, with every
  // shard that does not answer, by fewer than min_size positions) is rolled back where the acting
  // set holds it, and skipped where only other OSDs do (a shard left there by a write that was
  // rolled back); one that may have been is waited for.
  for (std::uint64_t v : versions) {
    std::vector<int> acting_at;
    int held = 0;
    bool held_elsewhere = false;
    for (std::size_t p = 0; p < shards.size(); ++p) {
      const ShardView& s = shards[p];
      const bool acting = s.reachable && s.state.version == v;
      if (acting) acting_at.push_back(s.position);
      bool other = false;
      if (const auto* holders = others_of(p)) {
        for (const OtherHolder& h : *holders) other = other || h.state.version == v;
      }
      held_elsewhere = held_elsewhere || (other && !acting);
      if (acting || other) ++held;
    }
    if (held >= k) {
      r.action = Resolution::Action::kSettled;
      r.version = v;
      r.current = acting_at;
      for (std::size_t p = 0; p < shards.size(); ++p) {
        const ShardView& s = shards[p];
        if (s.reachable && s.state.version == v) continue;
        if (s.reachable) r.stale.push_back(s.position);
        if (const auto* holders = others_of(p); holders != nullptr && v > 0) {
          for (const OtherHolder& h : *holders) {
            if (h.state.version != v) continue;
            r.copy_from[s.position] = h.osd;
            break;
          }
        }
      }
      auto present = [&](const msg::SubStateReply& st) {
        if (st.version != v || st.state != msg::ShardState::kPresent) return false;
        r.exists = true;
        r.object_size = st.object_size;
        return true;
      };
      bool found = false;
      for (const ShardView& s : shards) {
        if (s.reachable && (found = present(s.state))) break;
      }
      for (std::size_t p = 0; p < elsewhere.size() && !found; ++p) {
        for (const OtherHolder& h : elsewhere[p]) {
          if ((found = present(h.state))) break;
        }
      }
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
    if (!acting_at.empty()) {
      r.action = Resolution::Action::kRollback;
      r.version = v;
      r.rollback = acting_at;
      return r;
    }
    // Only other OSDs hold it, and it was never acknowledged: not the object.
  }
  r.action = Resolution::Action::kUndecided;
  r.why = fmt::format("only {} shard(s) answer, fewer than k={}", reachable, k);
  return r;
}

}  // namespace ec::osd::pg
