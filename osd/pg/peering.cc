#include "osd/pg/peering.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <utility>

#include "common/fan_out.h"
#include "osd/pg/resolve.h"

namespace ec::osd::pg {
namespace {

constexpr std::uint32_t kScanPage = 1024;

// What SubState would say of the shard a scan entry lists.
msg::SubStateReply StateOf(const msg::SubScanEntry& e) {
  msg::SubStateReply st;
  st.state = e.state;
  st.version = e.version;
  st.object_size = e.object_size;
  st.shard_size = e.shard_size;
  st.undo_version = e.undo_version;
  st.versions = e.versions;
  st.form = e.form;
  return st;
}

using Scan = Result<std::vector<msg::SubScanEntry>>;

// One shard's paged scan: every entry, or its error. Each page is asked for from the completion
// of the one before (on the client's io thread, or a ShardService worker for this OSD's own
// shard), so that no thread waits on a scan. A page that completes before its call returns (an
// error: a closed client, a service shutting down) ends the scan, so the chain never nests
// deeper than one page.
struct PagedScan {
  // Sends one page's request (SubScanAsync of a ShardLink or a prior OSD's client).
  std::function<void(msg::SubScanRequest, msg::Callback<msg::SubScanReply>)> send;
  msg::SubScanRequest request;  // the next page's
  std::vector<msg::SubScanEntry> entries;
  Gather<Scan>::Done done;

  static void Next(std::shared_ptr<PagedScan> scan) {
    msg::SubScanRequest r = scan->request;
    scan->send(std::move(r), [scan](Result<msg::SubScanReply> page) {
      if (!page.ok()) return scan->done(page.status());
      if (!page->status.ok()) return scan->done(page->status);
      for (auto& e : page->entries) scan->entries.push_back(std::move(e));
      if (page->end || page->entries.empty()) return scan->done(std::move(scan->entries));
      scan->request.cursor = page->next_cursor;
      Next(std::move(scan));
    });
  }
};

// Starts the scan of `position`'s shards through `link` (a ShardLink or an OsdClient: both have
// SubScanAsync(request, done, options)); `done` gets the result.
template <typename Link>
void StartScan(const ObjectIo& io, int position, std::shared_ptr<Link> link,
               Gather<Scan>::Done done) {
  auto scan = std::make_shared<PagedScan>();
  msg::CallOptions call;
  call.timeout = io.timeout;
  scan->send = [link = std::move(link), call](msg::SubScanRequest r,
                                              msg::Callback<msg::SubScanReply> page) {
    link->SubScanAsync(std::move(r), std::move(page), call);
  };
  scan->request.collection = io.loc->collection;
  scan->request.shard = static_cast<std::uint32_t>(position);
  scan->request.max_entries = kScanPage;
  scan->request.epoch = io.epoch;  // raises the shard's fence (osd/shard/interval_fence.h)
  scan->done = std::move(done);
  PagedScan::Next(std::move(scan));
}

}  // namespace

Result<PeeringOutcome> PeerPg(const ObjectIo& io, const PriorClients& priors) {
  const int size = static_cast<int>(io.loc->acting.size());
  // Every shard (and every prior's) is scanned at once, each scan paging from its completions.
  std::vector<int> positions;
  for (const auto& [pos, client] : io.clients) positions.push_back(pos);
  std::vector<std::pair<int, int>> prior_keys;  // (position, osd)
  for (const auto& [pos, osds] : priors) {
    for (const auto& [osd, client] : osds) {
      if (pos >= 0 && pos < size) prior_keys.emplace_back(pos, osd);
    }
  }
  // This OSD's own shards of the other positions, in process: a permutation of the positions
  // among the OSDs that keep the PG leaves each one (this one too) with its former position's.
  const std::shared_ptr<ShardLink> self = SelfLink(io);
  const int self_osd = self != nullptr ? io.loc->acting[io.self_position] : cluster::kItemNone;
  if (self != nullptr) {
    for (int p = 0; p < size; ++p) {
      if (p != io.self_position) prior_keys.emplace_back(p, self_osd);
    }
  }
  std::vector<Scan> results =
      GatherAll<Scan>(positions.size() + prior_keys.size(), [&](std::size_t i, auto done) {
        if (i < positions.size()) {
          return StartScan(io, positions[i], io.clients.at(positions[i]), std::move(done));
        }
        const auto [pos, osd] = prior_keys[i - positions.size()];
        if (osd == self_osd) return StartScan(io, pos, self, std::move(done));
        StartScan(io, pos, priors.at(pos).at(osd), std::move(done));
      });
  std::map<int, Scan> scans;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    scans.emplace(positions[i], std::move(results[i]));
  }
  std::map<std::pair<int, int>, Scan> prior_scans;  // (position, osd)
  for (std::size_t i = 0; i < prior_keys.size(); ++i) {
    prior_scans.emplace(prior_keys[i], std::move(results[positions.size() + i]));
  }

  // object -> position -> its state on that shard
  std::map<std::string, std::map<int, msg::SubStateReply>> seen;
  PeeringOutcome out;
  std::set<int>& scanned = out.scanned;
  for (auto& [pos, result] : scans) {
    if (!result.ok()) continue;
    scanned.insert(pos);
    for (msg::SubScanEntry& e : *result) {
      ++out.scanned_entries;
      seen[e.object][pos] = StateOf(e);
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
      per[static_cast<std::size_t>(pos)].push_back({osd, StateOf(e)});
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
                       ? Resolve(views, io.loc->k, io.loc->min_size, {}, io.down_others,
                                 io.codec->small_copies)
                       : Resolve(views, io.loc->k, io.loc->min_size, prior->second, io.down_others,
                                 io.codec->small_copies);
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
      if (o == out.objects.end() || !o->second.exists || o->second.VersionOf(pos) != e.version) {
        continue;
      }
      const std::vector<int>& cur = o->second.current;
      if (std::find(cur.begin(), cur.end(), pos) != cur.end()) continue;
      out.copies[e.object].emplace(pos, osd);
    }
  }
  return out;
}

Status FenceShards(const ObjectIo& io) {
  std::vector<int> positions;
  for (const auto& [pos, client] : io.clients) positions.push_back(pos);
  std::vector<Result<msg::SubScanReply>> replies =
      GatherAll<Result<msg::SubScanReply>>(positions.size(), [&](std::size_t i, auto done) {
        msg::SubScanRequest r;
        r.collection = io.loc->collection;
        r.shard = static_cast<std::uint32_t>(positions[i]);
        r.max_entries = 1;
        r.epoch = io.epoch;
        msg::CallOptions call;
        call.timeout = io.timeout;
        io.clients.at(positions[i])->SubScanAsync(std::move(r), std::move(done), call);
      });
  for (std::size_t i = 0; i < positions.size(); ++i) {
    Status st = replies[i].ok() ? replies[i]->status : replies[i].status();
    if (st.ok()) continue;
    const int osd = io.loc->acting[static_cast<std::size_t>(positions[i])];
    return Status::Error(st.code(), fmt::format("pg {}: the fence of osd.{} (shard {}): {}",
                                                io.loc->pgid, osd, positions[i], st.message()));
  }
  return Status::OK();
}

}  // namespace ec::osd::pg
