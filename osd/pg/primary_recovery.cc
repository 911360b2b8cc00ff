// Background peering and recovery of the PGs this OSD is primary of (issue 15 items 1-4): the
// loop, one round over every PG, and one PG's batch of pulls. See primary.h.
#include <spdlog/spdlog.h>

#include <cstdint>
#include <tuple>

#include "common/fan_out.h"
#include "common/thread_name.h"
#include "osd/pg/primary_impl.h"
#include "osd/pg/recovery_pace.h"

namespace ec::osd::pg {

void Primary::Impl::StartRecovery() {
  recovery_thread_ = std::thread([this] {
    NameCurrentThread("recovery");
    RecoveryLoop();
  });
}

void Primary::Impl::RecoveryLoop() {
  for (;;) {
    RecoveryRound round;
    const auto t0 = Clock::now();
    if (!Stopping()) round.worked = RecoverRound(&round.rebuilt_bytes, &round.network_bytes);
    round.spent = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0);
    // The throttles as tuned now (Tune), for the pause after this round.
    const RecoveryOptions throttles = Recovery();
    RecoveryPacing pacing;
    pacing.sleep = throttles.sleep;
    pacing.idle = throttles.idle_poll;
    pacing.bytes_per_sec = throttles.bytes_per_sec;
    pacing.network_bytes_per_sec = throttles.network_bytes_per_sec;
    std::unique_lock lock(rec_mu_);
    if (stop_) return;
    // The pause, watching the map every kMapPoll: a new map ends an idle pause (the next round
    // peers and pulls); after a round that worked the pulls keep their pace, but the PGs are
    // peered for the new map at once (a PG is peering, not serving, until its primary peers it).
    const auto until = Clock::now() + RecoveryPause(round, pacing);
    std::int64_t epoch = map_->epoch();
    while (!stop_ && Clock::now() < until) {
      rec_cv_.wait_until(lock, std::min(until, Clock::now() + kMapPoll), [&] { return stop_; });
      if (stop_ || map_->epoch() == epoch) continue;
      if (!round.worked) break;
      epoch = map_->epoch();
      lock.unlock();
      std::uint64_t rebuilt = 0, network = 0;
      RecoverRound(&rebuilt, &network, /*peer_only=*/true);
      lock.lock();
    }
    if (stop_) return;
  }
}

bool Primary::Impl::Stopping() {
  std::lock_guard lock(rec_mu_);
  return stop_;
}

// One round: every PG this OSD is primary of is peered; up to max_backfills PGs with missing
// shards get one batch of pulls each (all sent at once), unless `peer_only`. Returns whether any
// work was done.
bool Primary::Impl::RecoverRound(std::uint64_t* rebuilt, std::uint64_t* network, bool peer_only) {
  auto locator = Locator(0);
  if (!locator.ok()) return false;
  table_.Observe(**locator);
  const cluster::ClusterMap& map = (*locator)->map();
  const int max_backfills = Recovery().max_backfills;
  std::vector<Prepared> work;
  bool stale = false;  // a newer map arrived during the round: the next round takes it
  for (const auto& [pool_id, pool] : map.pools) {
    for (std::uint32_t pg = 0; pg < pool.pg_num && !stale && !Stopping(); ++pg) {
      auto loc = (*locator)->LocatePg(pool_id, pg);
      if (!loc.ok() || loc->primary != options_.osd_id) continue;
      Prepared p;
      p.locator = *locator;
      p.loc = std::move(loc).value();
      if (!FillPg(p).ok()) continue;
      Fix(p);
      Status peered = EnsurePeered(*p.locator, p.io);
      if (peered.code() == ESTALE) {
        stale = true;
        continue;
      }
      if (!peered.ok()) {
        log_->warn("pg {}: peering: {}", p.loc.pgid, peered.message());
        continue;
      }
      if (!peer_only && static_cast<int>(work.size()) < max_backfills && HasRecoveryWork(p)) {
        work.push_back(std::move(p));
        Fix(work.back());
      }
    }
  }
  if (peer_only) return false;
  {
    // The PGs recovering from now until a round picks others (Ceph's "recovering" while a PG
    // holds its reservation, rather than a flicker to recovery_wait between rounds).
    std::set<std::string> now;
    for (const Prepared& p : work) now.insert(p.loc.pgid);
    std::lock_guard lock(rec_mu_);
    if (now != recovering_) {
      recovering_ = std::move(now);
      health_changes_.fetch_add(1, std::memory_order_relaxed);
    }
  }
  if (work.empty()) return false;
  std::vector<std::thread> threads;
  std::atomic<std::uint64_t> bytes{0}, received{0};
  for (Prepared& p : work) {
    threads.emplace_back([this, &p, &bytes, &received] {
      const PgRecovered done = RecoverPg(p);
      bytes += done.rebuilt_bytes;
      received += done.network_bytes;
    });
  }
  for (std::thread& t : threads) t.join();
  *rebuilt = bytes.load();
  *network = received.load();
  return true;
}

namespace {

// The map's flags norecover and nobackfill (`ec-admin osd set`) pause what they name: a missing
// shard another OSD still holds is backfill (a copy), any other is recovery (a rebuild). Pulls
// already sent finish; nothing paused is started until the flag is unset (the next round sees the
// map without it).
bool Paused(const cluster::ClusterMap& map, const MissingShard& m) {
  return map.HasFlag(m.copy_from == cluster::kItemNone ? "norecover" : "nobackfill");
}

}  // namespace

bool Primary::Impl::HasRecoveryWork(const Prepared& p) {
  if (!table_.Unknown(p.loc, 1).empty()) return true;
  const cluster::ClusterMap& map = p.locator->map();
  if (!map.HasFlag("norecover") && !map.HasFlag("nobackfill")) {
    return !table_.Missing(p.loc, 1, Backoff(p.loc.pgid)).empty();
  }
  for (const MissingShard& m : table_.Missing(p.loc, SIZE_MAX, Backoff(p.loc.pgid))) {
    if (!Paused(map, m)) return true;
  }
  return false;
}

// Objects of the PG whose last recovery failed, not to be tried again yet.
std::set<std::string> Primary::Impl::Backoff(const std::string& pgid) {
  std::lock_guard lock(rec_mu_);
  const auto now = Clock::now();
  std::erase_if(retry_after_, [&](const auto& e) { return e.second <= now; });
  std::set<std::string> out;
  for (const auto& [key, when] : retry_after_) {
    if (key.first == pgid) out.insert(key.second);
  }
  return out;
}

void Primary::Impl::BackOff(const std::string& pgid, const std::string& object) {
  std::lock_guard lock(rec_mu_);
  retry_after_[{pgid, object}] = Clock::now() + std::chrono::seconds(1);
}

// One batch of the PG's recovery: unknown objects are settled; removed objects' stale shards
// are removed by the primary (nothing to pull); every other missing shard is pulled by its
// OSD, max_active objects per position, in one SubPull per position and helper set. Returns
// the bytes rebuilt and received from helpers.
Primary::Impl::PgRecovered Primary::Impl::RecoverPg(Prepared& p) {
  const auto pool = static_cast<std::uint64_t>(p.loc.pool_id);
  const RecoveryOptions throttles = Recovery();
  // Resolves and removals run on each object's strand (Impl::OnStrand): never beside a client
  // write of the object in flight, which a resolve could take for an unfinished write and roll
  // back on the shards it has reached while the write is still acknowledged (the thrasher lost
  // such writes).
  for (const std::string& name : table_.Unknown(p.loc, throttles.max_active)) {
    OnStrand(pool, name, [&] {
      if (table_.Lookup(p.loc, name)) return;  // a client operation settled it meanwhile
      ObjectIo one = p.io;
      one.object = name;
      auto st = ResolveObject(one);
      if (st.ok()) {
        table_.Update(p.loc, name, *st);
      } else {
        BackOff(p.loc.pgid, name);
      }
    });
  }
  const std::size_t max = static_cast<std::size_t>(throttles.max_active);
  const cluster::ClusterMap& map = p.locator->map();
  // With a pause set, the batch is chosen among every missing shard of the kinds not paused.
  const bool pause = map.HasFlag("norecover") || map.HasFlag("nobackfill");
  auto missing =
      table_.Missing(p.loc, pause ? SIZE_MAX : max * p.loc.acting.size(), Backoff(p.loc.pgid));
  std::erase_if(missing, [&](const MissingShard& m) { return Paused(map, m); });
  // (position, copy source, the object's current positions) -> its objects
  std::map<std::tuple<int, int, std::vector<int>>, std::vector<MissingShard>> groups;
  for (MissingShard& m : missing) {
    if (!m.state.exists) {
      OnStrand(pool, m.object, [&] {
        // Still removed at that version, with that position behind (else a write came first).
        auto now = table_.Lookup(p.loc, m.object);
        if (!now || now->exists || now->version != m.state.version ||
            now->stale.count(m.position) == 0) {
          return;
        }
        ObjectIo one = p.io;
        one.object = m.object;
        ObjectState healed = HealStale(one, *now, MaxObjectSize());
        if (healed.stale.count(m.position) == 0) {
          table_.MarkRecovered(p.loc, m.object, m.position, m.state.version);
        } else {
          // Its shards may not be what the table says: ask them again before the next try.
          BackOff(p.loc.pgid, m.object);
          table_.Forget(p.loc.pgid, m.object);
        }
      });
      continue;
    }
    auto& g = groups[{m.position, m.copy_from, m.state.current}];
    std::uint64_t bytes = 0;
    for (const MissingShard& o : g) bytes += o.state.size;
    if (g.size() < max && (g.empty() || bytes + m.state.size <= throttles.max_chunk)) {
      g.push_back(std::move(m));
    }
  }
  struct Sent {
    int position;
    std::vector<MissingShard> objects;
  };
  std::vector<Sent> sent;
  for (auto& [key, objects] : groups) {
    const int position = std::get<0>(key);
    if (p.io.clients.count(position) == 0) continue;
    sent.push_back(Sent{position, std::move(objects)});
  }
  // One SubPull per group, all in flight at once.
  auto replies = GatherAll<Result<msg::SubPullReply>>(sent.size(), [&](std::size_t i, auto done) {
    const Sent& s = sent[i];
    msg::SubPullRequest r;
    r.pool = static_cast<std::uint64_t>(p.loc.pool_id);
    r.epoch = static_cast<std::uint64_t>(map.epoch);
    r.collection = p.loc.collection;
    r.shard = static_cast<std::uint32_t>(s.position);
    r.mode = msg::SubPullMode::kRebuild;
    const int copy_from = s.objects.front().copy_from;
    if (copy_from != cluster::kItemNone) {
      // Backfill: the shard still exists on a prior OSD; copy it (the other helpers are the
      // pull's fallback should that OSD fail).
      r.mode = msg::SubPullMode::kCopy;
      r.helpers.push_back(msg::SubPullHelper{static_cast<std::uint32_t>(s.position), copy_from});
    }
    for (int h : s.objects.front().state.current) {
      if (h == s.position || p.loc.up[h] == cluster::kItemNone) continue;
      r.helpers.push_back(msg::SubPullHelper{static_cast<std::uint32_t>(h), p.loc.up[h]});
    }
    for (const MissingShard& m : s.objects) {
      auto stale = m.state.stale.find(s.position);
      r.objects.push_back(msg::SubPullObject{m.object, m.state.version, m.state.size,
                                             stale == m.state.stale.end() ? 0 : stale->second,
                                             m.state.versions, m.state.form});
    }
    msg::CallOptions call;
    call.timeout = options_.subop_timeout * static_cast<int>(s.objects.size() + 1);
    p.io.clients.at(s.position)->SubPullAsync(std::move(r), std::move(done), call);
  });
  PgRecovered out;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const Sent& s = sent[i];
    const Result<msg::SubPullReply>& reply = replies[i];
    Status whole = reply.ok() ? reply->status : reply.status();
    if (whole.ok() && reply->results.size() != s.objects.size()) {
      whole = Status::Error(EBADMSG, "pull reply with a wrong number of results");
    }
    if (!whole.ok()) {
      log_->warn("pg {}: pull of {} objects to osd.{} (shard {}): {}", p.loc.pgid, s.objects.size(),
                 p.loc.up[s.position], s.position, whole.message());
      for (const MissingShard& m : s.objects) BackOff(p.loc.pgid, m.object);
      continue;
    }
    for (std::size_t j = 0; j < s.objects.size(); ++j) {
      const MissingShard& m = s.objects[j];
      const msg::SubPullResult& res = reply->results[j];
      if (res.status.ok()) {
        log_->debug(
            "pg {}: object {} shard {} recovered on osd.{} at version {}{}: {} bytes "
            "written, {} read from helpers",
            p.loc.pgid, m.object, s.position, p.loc.up[s.position], m.state.version,
            m.copy_from != cluster::kItemNone ? " (copied)" : "", res.rebuilt_bytes,
            res.network_bytes);
        table_.MarkRecovered(p.loc, m.object, s.position, m.state.version, res.rebuilt_bytes);
        out.rebuilt_bytes += res.rebuilt_bytes;
        out.network_bytes += res.network_bytes;
        continue;
      }
      log_->info("pg {}: object {} shard {}: pull failed: {}", p.loc.pgid, m.object, s.position,
                 res.status.message());
      BackOff(p.loc.pgid, m.object);
      // The table's idea of the object may be wrong (a write got to the target first, ESTALE; or
      // a helper is not at the version the table gives it, EIO): the next round asks the shards
      // again (ResolveObject) instead of repeating a pull that cannot work. A PG that kept
      // retrying the same pull stayed recovery_wait for good (thrasher bug 4).
      table_.Forget(p.loc.pgid, m.object);
    }
  }
  return out;
}

}  // namespace ec::osd::pg
