// object_io.h: resolving an object's version from its shards' states (SubState, resolve.h),
// asking the OSDs outside the acting set when the acting set alone cannot settle it, and rolling
// back a write that cannot have been acknowledged.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "common/fan_out.h"
#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"
#include "osd/pg/resolve.h"

namespace ec::osd::pg {

using object_io_detail::Call;
using object_io_detail::OsdName;
using object_io_detail::RollBack;

namespace object_io_detail {

Status RollBack(const ObjectIo& io, const std::vector<int>& positions,
                const std::vector<std::uint64_t>& versions, std::size_t* undone,
                std::vector<int>* failed) {
  auto results = GatherAll<Result<std::uint64_t>>(positions.size(), [&](std::size_t i, auto done) {
    msg::SubResolveRequest r;
    r.collection = io.loc->collection;
    r.object = io.object;
    r.shard = static_cast<std::uint32_t>(positions[i]);
    r.version = versions[i];
    r.action = msg::SubResolveAction::kRollback;
    r.epoch = io.epoch;
    io.clients.at(positions[i])->SubResolveAsync(std::move(r), std::move(done), Call(io));
  });
  Status first;
  std::size_t ok = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) {
      ++ok;
      continue;
    }
    if (failed != nullptr) failed->push_back(positions[i]);
    if (first.ok()) first = results[i].status().WithPrefix(OsdName(io, positions[i]));
  }
  if (undone != nullptr) *undone = ok;
  return first;
}

}  // namespace object_io_detail

ObjectState SettledState(const Resolution& r, const std::vector<ShardView>& views) {
  ObjectState st;
  st.exists = r.exists;
  st.version = r.version;
  st.size = r.object_size;
  st.versions = r.versions;
  st.current = r.current;
  for (int p : r.stale) st.stale[p] = views[p].state.version;
  st.copy_from = r.copy_from;
  st.form = r.form;
  return st;
}

namespace {

// What the OSDs of io.others, and this one in process, hold of each position of the object but
// the one each is acting for (the acting view has that): their SubStates, those that fail or hold
// nothing left out, by position.
std::vector<std::vector<OtherHolder>> AskOthers(const ObjectIo& io) {
  const int size = static_cast<int>(io.loc->acting.size());
  std::vector<std::pair<int, int>> asked;  // (osd, position)
  for (const auto& [osd, client] : io.others) {
    for (int p = 0; p < size; ++p) {
      if (io.loc->acting[static_cast<std::size_t>(p)] != osd) asked.emplace_back(osd, p);
    }
  }
  const std::shared_ptr<ShardLink> self = SelfLink(io);
  const int self_osd = self != nullptr ? io.loc->acting[io.self_position] : cluster::kItemNone;
  if (self != nullptr) {
    for (int p = 0; p < size; ++p) {
      if (p != io.self_position) asked.emplace_back(self_osd, p);
    }
  }
  auto replies = GatherAll<Result<msg::SubStateReply>>(asked.size(), [&](std::size_t i, auto done) {
    msg::SubStateRequest r;
    r.collection = io.loc->collection;
    r.object = io.object;
    r.shard = static_cast<std::uint32_t>(asked[i].second);
    if (asked[i].first == self_osd) return self->SubStateAsync(std::move(r), std::move(done));
    io.others.at(asked[i].first)->SubStateAsync(std::move(r), std::move(done), Call(io));
  });
  std::vector<std::vector<OtherHolder>> out(static_cast<std::size_t>(size));
  for (std::size_t i = 0; i < asked.size(); ++i) {
    if (!replies[i].ok() || replies[i]->version == 0) continue;
    out[static_cast<std::size_t>(asked[i].second)].push_back({asked[i].first, *replies[i]});
  }
  return out;
}

}  // namespace

std::shared_ptr<ShardLink> SelfLink(const ObjectIo& io) {
  if (io.self_position < 0) return nullptr;
  auto it = io.clients.find(io.self_position);
  return it == io.clients.end() ? nullptr : it->second;
}

std::map<int, Result<msg::SubStateReply>> AskStates(const ObjectIo& io) {
  std::vector<int> asked;
  for (const auto& [pos, client] : io.clients) asked.push_back(pos);
  auto replies = GatherAll<Result<msg::SubStateReply>>(asked.size(), [&](std::size_t i, auto done) {
    msg::SubStateRequest r;
    r.collection = io.loc->collection;
    r.object = io.object;
    r.shard = static_cast<std::uint32_t>(asked[i]);
    io.clients.at(asked[i])->SubStateAsync(std::move(r), std::move(done), Call(io));
  });
  std::map<int, Result<msg::SubStateReply>> out;
  for (std::size_t i = 0; i < asked.size(); ++i) out.emplace(asked[i], std::move(replies[i]));
  return out;
}

Result<ObjectState> ResolveObject(const ObjectIo& io) {
  const int size = static_cast<int>(io.loc->acting.size());
  for (int round = 0; round < 4; ++round) {
    std::vector<ShardView> views(size);
    for (int p = 0; p < size; ++p) views[p].position = p;
    for (auto& [pos, reply] : AskStates(io)) {
      if (!reply.ok()) continue;
      views[pos].reachable = true;
      views[pos].state = *reply;
    }
    const int copies = io.codec->small_copies;
    Resolution r = Resolve(views, io.loc->k, io.loc->min_size, {}, io.down_others, copies);
    if (r.action != Resolution::Action::kSettled && (!io.others.empty() || SelfLink(io))) {
      r = Resolve(views, io.loc->k, io.loc->min_size, AskOthers(io), io.down_others, copies);
    }
    if (r.action == Resolution::Action::kSettled) {
      spdlog::debug("pg {} object {}: settled at version {} (current [{}], {} stale) at epoch {}",
                    io.loc->pgid, io.object, r.version, fmt::join(r.current, ","), r.stale.size(),
                    io.epoch);
      return SettledState(r, views);
    }
    if (r.action == Resolution::Action::kUndecided) {
      // Fewer than k shards can say what the object is: a clear error now, not a hang.
      std::vector<std::string> missing;
      for (int p = 0; p < size; ++p) {
        if (views[p].reachable) continue;
        missing.push_back(io.loc->acting[p] == cluster::kItemNone
                              ? fmt::format("shard {} (no OSD)", p)
                              : OsdName(io, p));
      }
      return Status::Error(EIO,
                           fmt::format("pg {} object {} cannot be read or written: {}; "
                                       "shards missing: {}",
                                       io.loc->pgid, io.object, r.why, fmt::join(missing, ", ")));
    }
    // Rare, and what loses an acknowledged write if ever decided wrongly: always in the log.
    spdlog::warn(
        "pg {} object {}: rolling back version {} on shard(s) {}: it cannot have been "
        "acknowledged",
        io.loc->pgid, io.object, r.version, fmt::join(r.rollback, ","));
    Status s = RollBack(io, r.rollback, std::vector<std::uint64_t>(r.rollback.size(), r.version));
    if (!s.ok()) {
      return Status::Retryable(
          EAGAIN, fmt::format("pg {} object {}: rolling back version {}: {}", io.loc->pgid,
                              io.object, r.version, s.message()));
    }
  }
  return Status::Retryable(
      EAGAIN, fmt::format("pg {} object {}: shards keep changing", io.loc->pgid, io.object));
}

}  // namespace ec::osd::pg
