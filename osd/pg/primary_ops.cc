// The object operations of Primary: ObjWrite (but kTruncate, primary_meta.cc), ObjRead (the
// primary's own fast path included), ObjStat and ObjRemove, each a versioned write or a read of
// the PG's peered state (primary_impl.h).
#include <fmt/format.h>

#include <functional>

#include "osd/pg/primary_impl.h"
#include "osd/pg/write_plan.h"

namespace ec::osd::pg {

msg::ObjectForm Primary::Impl::FormOfWrite(const Prepared& p, bool whole, const WritePlan& plan) {
  if (!p.codec->replicas) return p.state.form;  // a replicated pool: one form
  const cluster::Pool& pool = p.locator->map().pools.at(p.loc.pool_id);
  return FormAfter(p.state.form, p.state.exists, whole || plan.full, plan.new_size,
                   pool.ec_min_object_size);
}

Result<ObjectState> Primary::Impl::VersionedWrite(
    Prepared& p, const std::function<Result<ObjectState>(std::uint64_t)>& apply) {
  p.io.suspect_out = &p.suspect;  // a failed write says which positions it leaves suspect
  EC_RETURN_IF_ERROR(CheckStartBy(p));
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
  p.start_by = StartBy(received, r.start_within_ms);
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
  p.io.chain = nullptr;  // never a chain on the io thread (nothing here is degraded anyway)
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
  if (got.chained) {
    metrics_
        ->GetCounter("ecstore_pool_chain_degraded_reads_total",
                     "Degraded reads whose lost shard's bytes came through a repair chain",
                     {{"pool", p.pool_name}})
        .Inc();
  }
  if (!got.chain_failure.ok()) {
    metrics_
        ->GetCounter("ecstore_pool_chain_degraded_read_fallbacks_total",
                     "Degraded reads served directly after their repair chain failed",
                     {{"pool", p.pool_name}})
        .Inc();
    log_->warn("pg {} object {}: repair chain failed, read directly: {}", p.loc.pgid, object,
               got.chain_failure.message());
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

msg::ObjRemoveReply Primary::Impl::Remove(const msg::ObjRemoveRequest& r,
                                          Clock::time_point received) {
  msg::ObjRemoveReply reply;
  Prepared p;
  if (Status s = Open(p, r.pool, r.epoch, r.object, true, "remove"); !s.ok()) {
    reply.status = s;
    return reply;
  }
  p.start_by = StartBy(received, r.start_within_ms);
  if (Status s = CheckStartBy(p); !s.ok()) {
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
  p.io.suspect_out = &p.suspect;
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

}  // namespace ec::osd::pg
