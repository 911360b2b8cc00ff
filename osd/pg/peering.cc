#include "osd/pg/peering.h"

#include <fmt/format.h>

#include <algorithm>
#include <thread>

#include "osd/pg/resolve.h"

namespace ec::osd::pg {
namespace {

constexpr std::uint32_t kScanPage = 1024;

// Every entry of one shard's scan, or its error. `Link`: a ShardLink (an acting position) or an
// OsdClient (a prior OSD); both scan with SubScan(request, options).
template <typename Link>
Result<std::vector<msg::SubScanEntry>> ScanShard(const ObjectIo& io, int position, Link& client) {
  std::vector<msg::SubScanEntry> out;
  std::string cursor;
  msg::CallOptions call;
  call.timeout = io.timeout;
  for (;;) {
    msg::SubScanRequest r;
    r.collection = io.loc->collection;
    r.shard = static_cast<std::uint32_t>(position);
    r.cursor = cursor;
    r.max_entries = kScanPage;
    r.epoch = io.epoch;  // raises the shard's fence (osd/shard/interval_fence.h)
    auto page = client.SubScan(std::move(r), call);
    if (!page.ok()) return page.status();
    if (!page->status.ok()) return page->status;
    for (auto& e : page->entries) out.push_back(std::move(e));
    if (page->end || page->entries.empty()) return out;
    cursor = page->next_cursor;
  }
}

}  // namespace

Result<PeeringOutcome> PeerPg(const ObjectIo& io, const PriorClients& priors) {
  const int size = static_cast<int>(io.loc->acting.size());
  // The shards (and the priors) are scanned in parallel, one thread each (each writes only its
  // own slot).
  using Scan = Result<std::vector<msg::SubScanEntry>>;
  std::map<int, Scan> scans;
  for (const auto& [pos, client] : io.clients) scans.emplace(pos, Status::Error(EIO, "not run"));
  std::map<std::pair<int, int>, Scan> prior_scans;  // (position, osd)
  for (const auto& [pos, osds] : priors) {
    for (const auto& [osd, client] : osds) {
      if (pos >= 0 && pos < size) prior_scans.emplace(std::pair{pos, osd}, Status::OK());
    }
  }
  std::vector<std::thread> threads;
  for (auto& [pos, result] : scans) {
    threads.emplace_back(
        [&io, pos = pos, result = &result] { *result = ScanShard(io, pos, *io.clients.at(pos)); });
  }
  for (auto& [key, result] : prior_scans) {
    threads.emplace_back([&io, &priors, key = key, result = &result] {
      *result = ScanShard(io, key.first, *priors.at(key.first).at(key.second));
    });
  }
  for (std::thread& t : threads) t.join();

  // object -> position -> its state on that shard
  std::map<std::string, std::map<int, msg::SubStateReply>> seen;
  std::set<int> scanned;
  PeeringOutcome out;
  for (auto& [pos, result] : scans) {
    if (!result.ok()) continue;
    scanned.insert(pos);
    for (msg::SubScanEntry& e : *result) {
      ++out.scanned_entries;
      msg::SubStateReply st;
      st.state = e.state;
      st.version = e.version;
      st.object_size = e.object_size;
      st.shard_size = e.shard_size;
      st.undo_version = e.undo_version;
      seen[std::move(e.object)][pos] = st;
    }
  }
  if (static_cast<int>(scanned.size()) < io.loc->k) {
    // Name every shard that could not be scanned, as a single object's error does.
    std::vector<std::string> missing;
    for (int p = 0; p < size; ++p) {
      if (scanned.count(p) != 0) continue;
      const int osd = io.loc->acting[p];
      std::string what = osd == cluster::kItemNone ? fmt::format("shard {} (no OSD)", p)
                                                   : fmt::format("osd.{} (shard {})", osd, p);
      auto failed = scans.find(p);
      if (failed != scans.end()) what += ": " + failed->second.status().message();
      missing.push_back(std::move(what));
    }
    return Status::Error(
        EIO, fmt::format("pg {} cannot be read or written: only {} shards "
                         "could be scanned, fewer than k {}; shards missing: {}",
                         io.loc->pgid, scanned.size(), io.loc->k, fmt::join(missing, ", ")));
  }
  // object -> position -> what prior OSDs hold of it: they take part in settling (an acknowledged
  // write may sit on the OSDs of an earlier acting set, resolve.h).
  std::map<std::string, std::vector<std::vector<OtherHolder>>> prior_states;
  for (auto& [key, result] : prior_scans) {
    if (!result.ok()) continue;
    const auto [pos, osd] = key;
    for (const msg::SubScanEntry& e : *result) {
      if (e.version == 0) continue;
      auto& per = prior_states[e.object];
      per.resize(static_cast<std::size_t>(size));
      msg::SubStateReply st;
      st.state = e.state;
      st.version = e.version;
      st.object_size = e.object_size;
      st.shard_size = e.shard_size;
      st.undo_version = e.undo_version;
      per[static_cast<std::size_t>(pos)].push_back({osd, st});
      seen[e.object];  // an object only priors hold is settled too
    }
  }
  for (auto& [name, states] : seen) {
    std::vector<ShardView> views(size);
    for (int p = 0; p < size; ++p) {
      views[p].position = p;
      views[p].reachable = scanned.count(p) != 0;
      auto s = states.find(p);
      if (s != states.end()) views[p].state = s->second;  // else: absent on a scanned shard
    }
    auto prior = prior_states.find(name);
    Resolution r = prior == prior_states.end()
                       ? Resolve(views, io.loc->k, io.loc->min_size, {}, io.down_others)
                       : Resolve(views, io.loc->k, io.loc->min_size, prior->second, io.down_others);
    if (r.action == Resolution::Action::kSettled) {
      out.objects.emplace(name, SettledState(r, views));
      continue;
    }
    // Rare: a write cut short (roll it back) or too few shards. The single-object path asks the
    // shards again and does the rollback.
    ObjectIo one = io;
    one.object = name;
    auto st = ResolveObject(one);
    if (st.ok()) {
      out.objects.emplace(name, std::move(st).value());
    } else {
      out.unfound.insert(name);
    }
  }
  // Copy sources: a prior's shard at the settled version of an object whose acting OSD lacks it.
  for (auto& [key, result] : prior_scans) {
    if (!result.ok()) continue;
    const auto [pos, osd] = key;
    for (const msg::SubScanEntry& e : *result) {
      if (e.state != msg::ShardState::kPresent) continue;
      auto o = out.objects.find(e.object);
      if (o == out.objects.end() || !o->second.exists || o->second.version != e.version) continue;
      const std::vector<int>& cur = o->second.current;
      if (std::find(cur.begin(), cur.end(), pos) != cur.end()) continue;
      out.copies[e.object].emplace(pos, osd);
    }
  }
  return out;
}

}  // namespace ec::osd::pg
