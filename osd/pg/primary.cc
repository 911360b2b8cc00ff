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
      DirectRead(*d, *responder);
      served = true;
    });
    if (served) return;
    const std::size_t key = KeyOf(request.body);
    dispatcher_.Post(key, [this, req = std::move(request), r = std::move(responder)]() mutable {
      DirectRead(std::get<msg::ObjDirectReadRequest>(req.body), *r);
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
  if (table_.BeginPeering(*io.loc) == PgTable::Peer::kReady) return Status::OK();
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
  table_.FinishPeering(*io.loc, std::move(out->objects), std::move(out->unfound),
                       std::move(out->copies));
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
    map_->WaitForEpoch(now_epoch + 1, std::chrono::duration_cast<std::chrono::milliseconds>(left));
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
  EC_RETURN_IF_ERROR(EnsurePeered(*p.locator, p.io));
  auto known = table_.Lookup(p.loc.pgid, object);
  if (known) {
    p.state = *known;
  } else {
    auto st = ResolveObject(p.io);
    if (!st.ok()) return st.status();
    p.state = *st;
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
          (void)responder.Send(Remove(b));
        } else if constexpr (std::is_same_v<T, msg::ObjListRequest>) {
          (void)responder.Send(List(b));
        } else if constexpr (std::is_same_v<T, msg::ObjSetXattrsRequest>) {
          (void)responder.Send(SetXattrs(b));
        } else if constexpr (std::is_same_v<T, msg::ObjGetXattrsRequest>) {
          (void)responder.Send(GetXattrs(b));
        } else {
          (void)responder.SendError(Status::Invalid("not an object request"));
        }
      },
      req.body);
}

msg::ObjectForm Primary::Impl::FormOfWrite(const Prepared& p, bool whole, const WritePlan& plan) {
  if (!p.codec->replicas) return p.state.form;  // a replicated pool: one form
  const cluster::Pool& pool = p.locator->map().pools.at(p.loc.pool_id);
  return FormAfter(p.state.form, p.state.exists, whole || plan.full, plan.new_size,
                   pool.ec_min_object_size);
}

Result<ObjectState> Primary::Impl::VersionedWrite(
    Prepared& p, const std::function<Result<ObjectState>(std::uint64_t)>& apply) {
  const std::uint64_t version = granter_.Assign(p.loc.pgid, NextVersion(p.locator->map().epoch));
  if (version <= p.state.version) {
    Forget(p);
    granter_.Settle(p.loc.pgid, version, true);  // nothing sent
    return Status::Retryable(
        ESTALE, fmt::format("object {} is at version {}, newer than this OSD's map", p.io.object,
                            p.state.version));
  }
  auto next = apply(version);
  if (next.ok()) {
    Remember(p, *next);
    if (p.state.exists && next->form != p.state.form) {
      const bool copies = next->form == msg::ObjectForm::kReplicas;
      metrics_
          ->GetCounter("ecstore_pool_form_conversions_total",
                       "Objects turned from shards into copies (to=\"replicas\") or back "
                       "(to=\"erasure\") by a write: an erasure pool's small objects (issue 30)",
                       {{"pool", p.pool_name}, {"to", copies ? "replicas" : "erasure"}})
          .Inc();
    }
  } else {
    Forget(p);
  }
  SettleWrite(p, version, next);
  return next;
}

msg::ObjWriteReply Primary::Impl::Write(const msg::ObjWriteRequest& r, const Buffer& data,
                                        Clock::time_point received) {
  if (r.mode == msg::ObjWriteMode::kTruncate) return Truncate(r, received);
  msg::ObjWriteReply reply;
  Prepared p;
  if (Status s = Open(p, r.pool, r.epoch, r.object, true, "write"); !s.ok()) {
    reply.status = s;
    return reply;
  }
  auto plan = PlanWrite(p.io.codec->layout, p.state.exists, p.state.size, r.mode, r.offset,
                        data.size(), MaxObjectSize());
  if (!plan.ok()) {
    reply.status = plan.status();
    return reply;
  }
  MetaUpdate meta;
  meta.mtime = NowMicros();
  const msg::ObjectForm form = FormOfWrite(p, r.mode == msg::ObjWriteMode::kWriteFull, *plan);
  auto next = VersionedWrite(p, [&](std::uint64_t version) {
    return WriteObjectInForm(p.io, *p.codec, form, p.state, *plan, data, version, p.loc.min_size,
                             meta);
  });
  if (!next.ok()) {
    reply.status = next.status();
    return reply;
  }
  io_stats_.Write(p.loc.pool_id, data.size(), Clock::now() - received);
  if (next->delta) {
    metrics_
        ->GetCounter("ecstore_pool_delta_writes_total",
                     "Small overwrites that updated parity by delta", {{"pool", p.pool_name}})
        .Inc();
  }
  reply.version = next->version;
  reply.object_size = next->size;
  return reply;
}

void Primary::Impl::Read(const msg::ObjReadRequest& r, msg::Responder& responder,
                         Clock::time_point received) {
  auto p = Prepare(r.pool, r.epoch, r.object, false);
  if (!p.ok()) {
    (void)responder.SendError(p.status());
    return;
  }
  Fix(*p);
  CountOp(p->pool_name, "read");
  const std::uint64_t length = r.length == 0 ? UINT64_MAX : r.length;
  auto got = ReadObject(p->io, p->state, r.offset, length);
  if (!got.ok() && !(got.status().code() == ENOENT && !p->state.exists)) {
    // A shard that failed may have changed under the cached state (shards at a newer version than
    // the table's, after a pull or a change of primary): ask the shards and, if the object is at
    // another version than the one read, read once more at that one. (An object the table knows
    // to be absent read as absent: nothing to ask; forgetting it would list it as unknown.)
    Forget(*p);
    const int code = got.status().code();
    auto again = code == EIO || code == ESTALE ? Prepare(r.pool, r.epoch, r.object, false)
                                               : Result<Prepared>(got.status());
    if (again.ok() && again->state.version != p->state.version) {
      p = std::move(again);
      Fix(*p);
      got = ReadObject(p->io, p->state, r.offset, length);
      if (!got.ok()) Forget(*p);
    }
  }
  if (!got.ok()) {
    (void)responder.SendError(got.status());
    return;
  }
  SendRead(*p, r.object, std::move(got).value(), responder, received);
}

// Everything here is cheap and local: on any doubt it returns false having sent nothing, and the
// worker's Read does the whole thing (its errors, retries and degraded reads included).
bool Primary::Impl::TryLocalRead(const msg::ObjReadRequest& r, msg::Responder& responder,
                                 Clock::time_point received) {
  if (local_ == nullptr) return false;
  if (options_.may_serve && !options_.may_serve()) return false;
  if (r.object.size() > cluster::kMaxObjectNameLen) return false;
  if (static_cast<std::int64_t>(r.epoch) > map_->Get()->epoch) return false;  // would wait
  auto locator = Locator(0);
  if (!locator.ok()) return false;
  Prepared p;
  p.locator = *locator;
  auto loc = CheckPrimary(*p.locator, r.pool, &r.object, 0);
  if (!loc.ok()) return false;
  p.loc = std::move(loc).value();
  // Peered for this interval (Observe resets the PG's table when the map moved it).
  table_.Observe(*p.locator);
  auto known = table_.Lookup(p.loc, r.object);
  if (!known || !known->exists || r.offset >= known->size) return false;
  p.state = std::move(known).value();
  const std::uint64_t length =
      std::min<std::uint64_t>(r.length == 0 ? UINT64_MAX : r.length, p.state.size - r.offset);
  if (length > options_.inline_read_max_bytes) return false;
  if (!FillLocal(p).ok()) return false;
  const int self = p.io.self_position;
  if (self < 0 ||
      std::find(p.state.current.begin(), p.state.current.end(), self) == p.state.current.end()) {
    return false;
  }
  p.io.codec = &p.codec->ForForm(p.state.form);  // a small object's copy 0 is the whole object
  auto extents = p.io.codec->layout.data_extents(r.offset, length);
  if (!extents.ok()) return false;
  for (const ShardExtent& e : *extents) {
    if (e.shard != self) return false;  // another OSD's shard: never wait for it here
  }
  p.io.object = r.object;
  // Only this OSD's own shard is offered: the read is served by its store or not at all (no
  // client of another OSD is given, so nothing here can wait on the network).
  p.io.clients[self] = local_;
  p.state.current = {self};
  auto got = ReadObject(p.io, p.state, r.offset, length);
  if (!got.ok() || got->degraded || !got->corrupt.empty()) return false;
  CountOp(p.pool_name, "read");
  metrics_
      ->GetCounter("ecstore_pool_inline_reads_total",
                   "Reads served from this OSD's own shard on the messenger's thread",
                   {{"pool", p.pool_name}})
      .Inc();
  SendRead(p, r.object, std::move(got).value(), responder, received);
  return true;
}

void Primary::Impl::SendRead(const Prepared& p, const std::string& object, ReadOutcome got,
                             msg::Responder& responder, Clock::time_point received) {
  if (got.degraded) {
    const Labels labels{{"pool", p.pool_name}};
    metrics_->GetCounter("ecstore_pool_degraded_reads_total", "Reads that rebuilt data", labels)
        .Inc();
    metrics_
        ->GetCounter("ecstore_pool_degraded_read_network_bytes_total",
                     "Bytes degraded reads fetched from other OSDs", labels)
        .Inc(got.network_bytes);
    metrics_
        ->GetCounter("ecstore_pool_degraded_read_device_bytes_total",
                     "Device bytes (4 KiB blocks) degraded reads made the OSDs read", labels)
        .Inc(got.device_bytes);
  }
  if (!got.corrupt.empty()) {
    log_->warn(
        "pg {} object {}: shard(s) {} failed a checksum; served by reconstruction, "
        "repairing",
        p.loc.pgid, object, fmt::join(got.corrupt, ","));
    HealAfterRead(static_cast<std::uint64_t>(p.loc.pool_id), p.pool_name, object, got.corrupt);
  }
  io_stats_.Read(p.loc.pool_id, got.bytes.size(), Clock::now() - received);
  msg::ObjReadReply reply;
  reply.version = p.state.version;
  reply.object_size = p.state.size;
  reply.degraded = got.degraded;
  reply.network_bytes = got.network_bytes;
  reply.device_bytes = got.device_bytes;
  std::vector<Buffer> payload;
  payload.push_back(std::move(got.bytes));
  (void)responder.Send(std::move(reply), std::move(payload));
}

msg::ObjStatReply Primary::Impl::Stat(const msg::ObjStatRequest& r) {
  msg::ObjStatReply reply;
  auto d = Describe(r.pool, r.epoch, r.object, "stat");
  if (!d.ok()) {
    reply.status = d.status();
    return reply;
  }
  reply.version = d->state.version;
  reply.size = d->state.size;
  reply.mtime = d->meta.mtime;
  reply.form = d->state.form;
  return reply;
}

msg::ObjRemoveReply Primary::Impl::Remove(const msg::ObjRemoveRequest& r) {
  msg::ObjRemoveReply reply;
  Prepared p;
  if (Status s = Open(p, r.pool, r.epoch, r.object, true, "remove"); !s.ok()) {
    reply.status = s;
    return reply;
  }
  const std::uint64_t version = granter_.Assign(p.loc.pgid, NextVersion(p.locator->map().epoch));
  if (p.state.exists && version <= p.state.version) {
    Forget(p);
    granter_.Settle(p.loc.pgid, version, true);  // nothing sent
    reply.status = Status::Retryable(ESTALE, "object version newer than this OSD's map");
    return reply;
  }
  auto next = RemoveObject(p.io, p.state, version, p.loc.min_size);
  if (!next.ok() && next.status().code() != ENOENT) Forget(p);
  if (next.ok()) Remember(p, *next);
  if (!next.ok() && next.status().code() == ENOENT) {
    granter_.Settle(p.loc.pgid, version, true);  // no such object: nothing sent
  } else {
    SettleWrite(p, version, next);
  }
  if (!next.ok()) {
    reply.status = next.status();
    return reply;
  }
  reply.version = next->version;
  return reply;
}

msg::ObjListReply Primary::Impl::List(const msg::ObjListRequest& r) {
  msg::ObjListReply reply;
  if (options_.may_serve && !options_.may_serve()) {
    reply.status = Status::Retryable(
        EAGAIN, fmt::format("osd.{} has not renewed its liveness lease in time: not acting as a "
                            "primary until it has",
                            options_.osd_id));
    return reply;
  }
  auto locator = Locator(r.epoch);
  if (!locator.ok()) {
    reply.status = locator.status();
    return reply;
  }
  auto loc = CheckPrimary(**locator, r.pool, nullptr, r.pg);
  if (!loc.ok()) {
    reply.status = loc.status();
    return reply;
  }
  // A page of the peered PG's objects, as reads see them (pg_table.h): the objects that exist,
  // and those whose state an operation left unknown. Paging through the table costs the page,
  // where merging every shard's whole listing for each page cost the PG's size per page (a
  // listing of 10^5 objects per OSD took 12 s, bench/scale.sh). A stray shard of a position that
  // moved away (an OSD out and in, a replicated pool's size change) is not listed unless
  // peering settled its object as existing.
  Prepared p;
  p.locator = *locator;
  p.loc = std::move(loc).value();
  Status filled = FillPg(p);
  if (!filled.ok()) {
    reply.status = filled;
    return reply;
  }
  Fix(p);
  Status peered = EnsurePeered(*p.locator, p.io);
  if (!peered.ok()) {
    reply.status = peered;
    return reply;
  }
  const std::size_t max = r.max_entries;
  auto names = table_.List(p.loc.pgid, r.cursor, max + 1);  // one more: is this the last page?
  if (!names) {
    reply.status = Status::Retryable(
        EAGAIN, fmt::format("pg {} changed interval during the listing", p.loc.pgid));
    return reply;
  }
  reply.end = names->size() <= max;
  if (!reply.end) names->resize(max);
  // Objects an operation left unknown are settled first, as recovery would (on their strand), so
  // that the page lists what reads see; one that cannot be settled now is listed (it may exist).
  const auto pool = static_cast<std::uint64_t>(p.loc.pool_id);
  for (const std::string& name : *names) {
    bool exists = true;
    if (!table_.Lookup(p.loc.pgid, name)) {
      OnStrand(pool, name, [&] {
        if (auto known = table_.Lookup(p.loc.pgid, name)) {
          exists = known->exists;
          return;
        }
        ObjectIo one = p.io;
        one.object = name;
        auto st = ResolveObject(one);
        if (st.ok()) {
          table_.Update(p.loc, name, *st);
          exists = st->exists;
        }
      });
    }
    if (exists) reply.objects.push_back(name);
  }
  // The cursor is the last name looked at, listed or not.
  reply.next_cursor = reply.end ? std::string() : names->back();
  return reply;
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
