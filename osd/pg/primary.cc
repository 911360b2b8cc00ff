// The request handler of Primary: which map and PG a request is for, peering the PG first,
// preparing an operation (the object's state, its shards' links) and dispatching it to the files
// that run each kind (primary_ops.cc, primary_list.cc, primary_meta.cc, primary_scrub.cc).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "osd/pg/primary_impl.h"
#include "osd/pg/write_plan.h"

namespace ec::osd::pg {

std::map<std::string, PgHealth> Primary::Impl::Health() {
  std::map<std::string, PgHealth> out;
  auto locator = Locator(0);
  if (!locator.ok()) return out;
  std::set<std::string> recovering;
  {
    std::lock_guard lock(rec_mu_);
    recovering = recovering_;
  }
  const cluster::ClusterMap& map = (*locator)->map();
  for (const auto& [pool_id, pool] : map.pools) {
    for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
      auto loc = (*locator)->LocatePg(pool_id, pg);
      if (!loc.ok() || loc->primary != options_.osd_id) continue;
      out[loc->pgid] = table_.Health(*loc, recovering.count(loc->pgid) != 0);
    }
  }
  std::lock_guard lock(scrub_mu_);
  for (auto& [pgid, h] : out) {
    auto s = scrubbing_.find(pgid);
    if (s != scrubbing_.end()) {
      h.flags |= cluster::pg_state::kScrubbing | (s->second ? cluster::pg_state::kDeepScrub : 0);
    }
    if (inconsistent_.count(pgid) != 0) h.flags |= cluster::pg_state::kInconsistent;
    h.state = cluster::PgStateString(h.flags);
  }
  return out;
}

std::uint64_t Primary::Impl::HealthChanges() const {
  return table_.Changes() + health_changes_.load(std::memory_order_relaxed);
}

void Primary::Impl::Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
  const Clock::time_point received = Clock::now();
  // A direct read is local (this OSD's store) and never waits on the network: on the messenger's
  // thread when the read policy lets it, else on the object's strand.
  if (const auto* d = std::get_if<msg::ObjDirectReadRequest>(&request.body)) {
    bool served = false;
    dispatcher_.RunInline(KeyOf(request.body), d->length, request.more_queued, Clock::now(), [&] {
      DirectRead(*d, responder, true);
      served = true;
    });
    if (served) return;
    const std::size_t key = KeyOf(request.body);
    dispatcher_.Post(key, [this, req = std::move(request), r = std::move(responder)]() mutable {
      DirectRead(std::get<msg::ObjDirectReadRequest>(req.body), r, true);
    });
    return;
  }
  // A lease request only reads tables: answered on the messenger's thread.
  if (const auto* l = std::get_if<msg::ReadLeaseRequest>(&request.body)) {
    (void)responder->Send(GrantLeases(*l));
    return;
  }
  if (const auto* r = std::get_if<msg::ObjReadRequest>(&request.body);
      r != nullptr && options_.inline_read_max_bytes != 0) {
    // A whole-object read (length 0) is priced at the limit: TryLocalRead checks its real size.
    const std::uint64_t bytes = r->length == 0 ? options_.inline_read_max_bytes : r->length;
    bool served = false;
    dispatcher_.RunInline(KeyOf(request.body), bytes, request.more_queued, Clock::now(),
                          [&] { served = TryLocalRead(*r, *responder, received); });
    if (served) return;
  }
  const std::size_t key = KeyOf(request.body);
  client_ops_.fetch_add(1);
  dispatcher_.Post(key,
                   [this, req = std::move(request), r = std::move(responder), received]() mutable {
                     Run(req, *r, received);
                     client_ops_.fetch_sub(1);
                   });
}

// The map to serve a request of a client at `epoch` with, and the locator for it.
Result<std::shared_ptr<const cluster::ObjectLocator>> Primary::Impl::Locator(
    std::uint64_t client_epoch) {
  auto map = map_->Get();
  if (static_cast<std::int64_t>(client_epoch) > map->epoch) {
    map = map_->WaitForEpoch(static_cast<std::int64_t>(client_epoch), options_.map_wait);
  }
  std::lock_guard lock(locator_mu_);
  if (!locator_ || locator_->map().epoch != map->epoch) {
    // The PG table must see every epoch to keep a PG's table across an interval change (a jump
    // over epochs makes every PG peer in full, pg_table.h): the maps that came between the last
    // one used and this one, as far as the holder still has them, are observed first, in order.
    if (locator_ && map->epoch > locator_->map().epoch + 1) {
      for (const auto& between : map_->Recent()) {
        if (between->epoch <= locator_->map().epoch || between->epoch >= map->epoch) continue;
        auto made = cluster::ObjectLocator::Make(between);
        if (made.ok()) table_.Observe(**made);
      }
    }
    auto made = cluster::ObjectLocator::Make(map);
    if (!made.ok()) return made.status();
    locator_ = std::move(made).value();
  }
  return locator_;
}

// The PG's location when this OSD is its primary; Retryable ESTALE otherwise.
Result<cluster::PgLocation> Primary::Impl::CheckPrimary(const cluster::ObjectLocator& locator,
                                                        std::uint64_t pool,
                                                        const std::string* object,
                                                        std::uint32_t pg) {
  auto loc = object ? locator.LocateObject(static_cast<std::int64_t>(pool), *object)
                    : locator.LocatePg(static_cast<std::int64_t>(pool), pg);
  if (!loc.ok()) return loc.status();
  if (loc->primary != options_.osd_id) {
    return Status::Retryable(
        ESTALE,
        fmt::format("osd.{} is not the primary of pg {} at epoch {} (the primary is {})",
                    options_.osd_id, loc->pgid, locator.map().epoch,
                    loc->primary == cluster::kItemNone ? std::string("none: no OSD of the PG is up")
                                                       : "osd." + std::to_string(loc->primary)));
  }
  return loc;
}

// Clients of the up positions of `loc` in `map`.
Result<std::map<int, std::shared_ptr<ShardLink>>> Primary::Impl::Clients(
    const cluster::ClusterMap& map, const cluster::PgLocation& loc) {
  std::map<int, std::shared_ptr<ShardLink>> out;
  for (std::size_t p = 0; p < loc.up.size(); ++p) {
    const int osd = loc.up[p];
    if (osd == cluster::kItemNone) continue;
    if (osd == options_.osd_id && local_ != nullptr) {
      out[static_cast<int>(p)] = local_;  // this OSD's own shard: in process, no message
      continue;
    }
    auto it = map.osds.find(osd);
    if (it == map.osds.end()) continue;
    auto client = peers_.Get(osd, it->second.addr);
    if (!client.ok()) {
      log_->warn("pg {}: {}", loc.pgid, client.status().message());
      continue;
    }
    out[static_cast<int>(p)] = ShardLink::Remote(std::move(client).value());
  }
  return out;
}

// Peers the PG of `io` for its current interval unless it is (pg_table.h); other operations on
// the PG wait meanwhile.
Status Primary::Impl::EnsurePeered(const cluster::ObjectLocator& locator, const ObjectIo& io) {
  table_.Observe(locator);
  const std::int64_t epoch = locator.map().epoch;
  switch (table_.BeginPeering(*io.loc, epoch)) {
    case PgTable::Peer::kReady:
      return Status::OK();
    case PgTable::Peer::kStale:
      return Status::Retryable(
          ESTALE, fmt::format("pg {}: the map moved on past epoch {} while this operation was "
                              "prepared: try again",
                              io.loc->pgid, epoch));
    case PgTable::Peer::kMustPeer:
      break;
    case PgTable::Peer::kCatchUp: {
      // Only OSDs went down or came back (pg_table.h): fence the shards, keep the table.
      granter_.NotePeered(io.loc->pgid, LeaseClock::now());
      Status fenced = FenceShards(io);
      if (!fenced.ok()) {
        // Unreachable shards are what a full peering knows how to count.
        log_->info("pg {}: no catch-up at epoch {} ({}): peering in full", io.loc->pgid, epoch,
                   fenced.message());
        table_.AbortPeering(*io.loc);
        return EnsurePeered(locator, io);
      }
      const std::size_t marked = table_.FinishCatchUp(*io.loc);
      metrics_
          ->GetCounter("ecstore_osd_peerings_total",
                       "PGs peered as primary: in full (every shard scanned) or caught up (the "
                       "table kept, only OSDs that came back asked again)",
                       {{"kind", "catch_up"}})
          .Inc();
      log_->info("pg {}: caught up at epoch {}: {} objects to ask their shards again", io.loc->pgid,
                 epoch, marked);
      return Status::OK();
    }
  }
  // A new interval (or this process's first): an earlier primary's read leases may still run.
  granter_.NotePeered(io.loc->pgid, LeaseClock::now());
  auto out = PeerPg(io, Priors(locator, *io.loc));
  if (!out.ok()) {
    table_.AbortPeering(*io.loc);
    return out.status();
  }
  log_->info("pg {}: peered at epoch {}: {} objects from {} shard entries{}{}", io.loc->pgid,
             locator.map().epoch, out->objects.size(), out->scanned_entries,
             out->unfound.empty() ? "" : fmt::format(", {} unfound", out->unfound.size()),
             out->copies.empty()
                 ? ""
                 : fmt::format(", {} objects to copy from prior OSDs", out->copies.size()));
  metrics_
      ->GetCounter("ecstore_osd_peerings_total",
                   "PGs peered as primary: in full (every shard scanned) or caught up (the "
                   "table kept, only OSDs that came back asked again)",
                   {{"kind", "full"}})
      .Inc();
  metrics_
      ->GetCounter("ecstore_osd_peering_scanned_entries_total",
                   "Shard entries the full peerings of this OSD's PGs scanned")
      .Inc(out->scanned_entries);
  table_.FinishPeering(*io.loc, std::move(out->objects), std::move(out->unfound),
                       std::move(out->copies), out->scanned);
  return Status::OK();
}

// For every position, every up OSD but the position's acting one and this one (PeerPg scans
// this OSD's own shards in process): peering scans them all, since any of them may hold a shard of
// a position that moved (an OSD marked out or in, a backfill not finished), even one this process
// never saw in an earlier map (it restarted since). That includes the acting set's other OSDs:
// when the positions of a PG are permuted among the OSDs that keep it (an OSD added to or removed
// from the map changes the draws), each holds the shard of its former position, and counting only
// the acting OSD of each position would find fewer than k and roll back acknowledged writes (the
// deployment guide's test lost objects so). What they hold at an object's newest version counts
// when settling it (resolve.h), and is copied back.
PriorClients Primary::Impl::Priors(const cluster::ObjectLocator& locator,
                                   const cluster::PgLocation& loc) {
  PriorClients out;
  const cluster::ClusterMap& now = locator.map();
  for (const auto& [osd, entry] : now.osds) {
    // This OSD's own shards: PeerPg scans them in process.
    if (!entry.up || entry.addr.empty() || osd == options_.osd_id) continue;
    auto client = peers_.Get(osd, entry.addr);
    if (!client.ok()) continue;
    for (std::size_t p = 0; p < loc.acting.size(); ++p) {
      if (loc.acting[p] != osd) out[static_cast<int>(p)][osd] = *client;
    }
  }
  return out;
}

// Fills in the PG-wide parts of `p` (codec, clients, own position) from p.locator and p.loc.
Status Primary::Impl::FillLocal(Prepared& p) {
  const cluster::ClusterMap& map = p.locator->map();
  const cluster::Pool& pool_entry = map.pools.at(p.loc.pool_id);
  p.pool_name = pool_entry.name;
  auto codec = codecs_.Get(map, pool_entry);
  if (!codec.ok()) return codec.status();
  p.codec = *codec;
  p.io.loc = &p.loc;
  p.io.codec = p.codec.get();
  p.io.self_position = -1;
  for (std::size_t i = 0; i < p.loc.acting.size(); ++i) {
    if (p.loc.acting[i] == options_.osd_id) p.io.self_position = static_cast<int>(i);
  }
  p.io.epoch = static_cast<std::uint64_t>(map.epoch);
  p.io.timeout = options_.subop_timeout;
  p.io.shards = options_.shards;
  p.io.cost.weight_net = options_.read_weight_net;
  p.io.cost.weight_dev = options_.read_weight_dev;
  p.io.chain = options_.repair_pipeline != RepairPipeline::kOff ? &chain_reads_ : nullptr;
  return Status::OK();
}

Status Primary::Impl::FillPg(Prepared& p) {
  EC_RETURN_IF_ERROR(FillLocal(p));
  const cluster::ClusterMap& map = p.locator->map();
  auto clients = Clients(map, p.loc);
  if (!clients.ok()) return clients.status();
  p.io.clients = std::move(clients).value();
  // Every up OSD but this one: where ResolveObject looks for shards of positions that moved
  // (object_io.h), the acting set's own OSDs included (for the positions they do not hold now;
  // see Priors).
  p.io.others.clear();
  p.io.down_others = 0;
  for (const auto& [id, osd] : map.osds) {
    if (id == options_.osd_id) continue;
    const bool acting =
        std::find(p.loc.acting.begin(), p.loc.acting.end(), id) != p.loc.acting.end();
    if (!osd.up) {
      if (acting) continue;
      // Down but in: back soon, perhaps with shards of writes the others do not show. Down and
      // out: gone; what it held was recovered elsewhere.
      if (osd.in) ++p.io.down_others;
      continue;
    }
    if (osd.addr.empty()) continue;
    auto client = peers_.Get(id, osd.addr);
    if (client.ok()) p.io.others[id] = std::move(client).value();
  }
  return Status::OK();
}

Result<Primary::Impl::Prepared> Primary::Impl::Prepare(std::uint64_t pool, std::uint64_t epoch,
                                                       const std::string& object, bool write) {
  Prepared p;
  if (options_.may_serve && !options_.may_serve()) {
    return Status::Retryable(
        EAGAIN, fmt::format("osd.{} has not renewed its liveness lease in time (it may have been "
                            "marked down meanwhile): not acting as a primary until it has",
                            options_.osd_id));
  }
  if (object.size() > cluster::kMaxObjectNameLen) {
    return Status::Error(ENAMETOOLONG, fmt::format("object name of {} bytes, above the limit of {}",
                                                   object.size(), cluster::kMaxObjectNameLen));
  }
  for (int attempt = 0;; ++attempt) {
    auto locator = Locator(epoch);
    if (!locator.ok()) return locator.status();
    p.locator = *locator;
    auto loc = CheckPrimary(*p.locator, pool, &object, 0);
    if (!loc.ok()) return loc.status();
    // A write waits for min_size shards up (the map changing), as Ceph's PG does.
    const std::chrono::milliseconds min_size_wait = MinSizeWait();
    const auto deadline = Clock::now() + min_size_wait;
    while (write && loc->up_count() < loc->min_size) {
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) {
        return Status::Error(EAGAIN, fmt::format("pg {} has {} shard(s) up, fewer than min_size "
                                                 "{}; gave up after {} s",
                                                 loc->pgid, loc->up_count(), loc->min_size,
                                                 min_size_wait.count() / 1000.0));
      }
      const std::int64_t now_epoch = p.locator->map().epoch;
      map_->WaitForEpoch(now_epoch + 1,
                         std::chrono::duration_cast<std::chrono::milliseconds>(left));
      locator = Locator(0);
      if (!locator.ok()) return locator.status();
      p.locator = *locator;
      loc = CheckPrimary(*p.locator, pool, &object, 0);
      if (!loc.ok()) return loc.status();
    }
    p.loc = std::move(loc).value();
    EC_RETURN_IF_ERROR(FillPg(p));
    p.io.object = object;
    p.key = CacheKey(pool, object);
    Fix(p);
    // A map that arrived since the locator was taken makes the peering stale (pg_table.h):
    // locate again with it, a few times at most (maps rarely come that fast).
    Status peered = EnsurePeered(*p.locator, p.io);
    if (peered.code() == ESTALE && attempt < 3) continue;
    EC_RETURN_IF_ERROR(peered);
    break;
  }
  // Only what the table knows for this operation's interval (another thread may have peered the
  // PG for a newer one meanwhile): else the shards are asked.
  auto known = table_.Lookup(p.loc, object);
  if (known) {
    p.state = *known;
  } else {
    auto st = ResolveObject(p.io);
    if (!st.ok()) return st.status();
    p.state = *st;
    // What the shards show says nothing of the sub-operations a failed write may still land.
    p.state.suspect = table_.Suspect(p.loc.pgid, object);
  }
  if (!known) Remember(p, p.state);
  p.io.codec = &p.codec->ForForm(p.state.form);
  return p;
}

Status Primary::Impl::Open(Prepared& out, std::uint64_t pool, std::uint64_t epoch,
                           const std::string& object, bool write, const char* op) {
  auto p = Prepare(pool, epoch, object, write);
  if (!p.ok()) return p.status();
  out = std::move(p).value();
  Fix(out);
  CountOp(out.pool_name, op);
  return Status::OK();
}

Status Primary::Impl::CheckStartBy(const Prepared& p) {
  if (Clock::now() <= p.start_by) return Status::OK();
  metrics_
      ->GetCounter("ecstore_pool_ops_too_late_total",
                   "Writes not begun: the client's start_within_ms ran out first (its try had "
                   "timed out; nothing was applied)",
                   {{"pool", p.pool_name}})
      .Inc();
  return Status::Retryable(
      ECANCELED, fmt::format("object {}: not applied: the client's time to begin it ran out first",
                             p.io.object));
}

void Primary::Impl::CountOp(const std::string& pool, const char* op) {
  metrics_
      ->GetCounter("ecstore_pool_ops_total", "Object operations served as primary",
                   {{"pool", pool}, {"op", op}})
      .Inc();
}

void Primary::Impl::Run(const msg::Request& req, msg::Responder& responder,
                        Clock::time_point received) {
  std::visit(
      [&](const auto& b) {
        using T = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<T, msg::ObjWriteRequest>) {
          (void)responder.Send(Write(b, req.payload, received));
        } else if constexpr (std::is_same_v<T, msg::ObjReadRequest>) {
          Read(b, responder, received);
        } else if constexpr (std::is_same_v<T, msg::ObjStatRequest>) {
          (void)responder.Send(Stat(b));
        } else if constexpr (std::is_same_v<T, msg::ObjRemoveRequest>) {
          (void)responder.Send(Remove(b, received));
        } else if constexpr (std::is_same_v<T, msg::ObjListRequest>) {
          (void)responder.Send(List(b));
        } else if constexpr (std::is_same_v<T, msg::ObjSetXattrsRequest>) {
          (void)responder.Send(SetXattrs(b, received));
        } else if constexpr (std::is_same_v<T, msg::ObjGetXattrsRequest>) {
          (void)responder.Send(GetXattrs(b));
        } else {
          (void)responder.SendError(Status::Invalid("not an object request"));
        }
      },
      req.body);
}

Primary::Primary(const cluster::MapHolder* map, MetricsRegistry* metrics,
                 std::shared_ptr<spdlog::logger> log, PrimaryOptions options)
    : impl_(std::make_unique<Impl>(map, metrics, std::move(log), std::move(options))) {
  impl_->StartRecovery();
  impl_->StartLeases();
}

std::map<std::string, PgHealth> Primary::Health() {
  return impl_->Health();
}

std::uint64_t Primary::HealthChanges() const {
  return impl_->HealthChanges();
}

std::map<std::int64_t, PoolIo> Primary::PoolIoTotals() const {
  return impl_->PoolIoTotals();
}

Result<cluster::ScrubResult> Primary::Scrub(const std::string& pgid, const ScrubRun& run) {
  return impl_->Scrub(pgid, run);
}

void Primary::NoteScrubResult(const cluster::ScrubResult& result) {
  impl_->NoteScrubResult(result);
}

void Primary::Tune(const PrimaryTunables& tunables) {
  impl_->Tune(tunables);
}

Primary::~Primary() = default;

void Primary::Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
  impl_->Handle(std::move(request), std::move(responder));
}

}  // namespace ec::osd::pg
