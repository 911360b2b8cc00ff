// The object-metadata operations of Primary (issue 29; object_io.h "Metadata"): ObjSetXattrs
// (rados setxattr, rmxattr, touch), ObjGetXattrs (getxattr, listxattr), ObjWrite kTruncate, and
// the metadata ObjStat reports. Each write has a version, min_size and rollback as any write.
#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "msg/xattrs.h"
#include "osd/pg/primary_impl.h"
#include "osd/pg/write_plan.h"

namespace ec::osd::pg {

std::uint64_t Primary::Impl::NowMicros() {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count());
}

Result<ObjectMeta> Primary::Impl::MetaOf(Prepared& p) {
  if (p.state.meta) return *p.state.meta;
  auto meta = ReadObjectMeta(p.io, p.state);
  if (!meta.ok()) {
    // The shards may be at another version than the table says: the client's retry asks them.
    Forget(p);
    return meta.status();
  }
  p.state.meta = std::make_shared<const ObjectMeta>(*meta);
  table_.NoteMeta(p.loc.pgid, p.io.object, p.state.version, p.state.meta);
  return meta;
}

msg::ObjSetXattrsReply Primary::Impl::SetXattrs(const msg::ObjSetXattrsRequest& r,
                                                Clock::time_point received) {
  msg::ObjSetXattrsReply reply;
  const bool change = !r.set.empty() || !r.remove.empty();
  Prepared p;
  if (Status s = Open(p, r.pool, r.epoch, r.object, true, change ? "setxattrs" : "touch");
      !s.ok()) {
    reply.status = s;
    return reply;
  }
  p.start_by = StartBy(received, r.start_within_ms);
  MetaUpdate meta;
  meta.mtime = (r.flags & msg::kXattrsMtime) != 0 ? r.mtime : NowMicros();
  Result<ObjectState> next = Status::OK();
  if (!p.state.exists) {
    if ((r.flags & msg::kXattrsCreate) == 0) {
      reply.status =
          Status::NotFound(fmt::format("object {} does not exist in pg {}", r.object, p.loc.pgid));
      return reply;
    }
    // Created empty, with the xattrs set (a removal of what it does not have changes nothing).
    meta.xattrs = msg::XattrsAfter({}, r.set, r.remove);
    meta.changed = true;
    Status fits = msg::CheckXattrSet(*meta.xattrs);
    auto plan = PlanWrite(p.io.codec->layout, false, 0, msg::ObjWriteMode::kWriteFull, 0, 0,
                          MaxObjectSize());
    if (!fits.ok() || !plan.ok()) {
      reply.status = fits.ok() ? plan.status() : fits;
      return reply;
    }
    const msg::ObjectForm form = FormOfWrite(p, true, *plan);
    next = VersionedWrite(p, [&](std::uint64_t version) {
      return WriteObjectInForm(p.io, *p.codec, form, p.state, *plan, Buffer(), version,
                               p.loc.min_size, meta);
    });
  } else {
    if (change) {
      auto now = MetaOf(p);
      if (!now.ok()) {
        reply.status = now.status();
        return reply;
      }
      meta.xattrs = msg::XattrsAfter(std::move(now->xattrs), r.set, r.remove);
      meta.changed = true;
      if (Status fits = msg::CheckXattrSet(*meta.xattrs); !fits.ok()) {
        reply.status = fits;
        return reply;
      }
    }
    next = VersionedWrite(p, [&](std::uint64_t version) {
      return WriteMeta(p.io, p.state, version, p.loc.min_size, meta);
    });
  }
  if (!next.ok()) {
    reply.status = next.status();
    return reply;
  }
  reply.version = next->version;
  return reply;
}

Result<Primary::Impl::Described> Primary::Impl::Describe(std::uint64_t pool, std::uint64_t epoch,
                                                         const std::string& object,
                                                         const char* op) {
  Prepared p;
  EC_RETURN_IF_ERROR(Open(p, pool, epoch, object, false, op));
  if (!p.state.exists) {
    return Status::NotFound(fmt::format("object {} does not exist in pg {}", object, p.loc.pgid));
  }
  auto meta = MetaOf(p);
  if (!meta.ok()) return meta.status();
  return Described{p.state, std::move(meta).value()};
}

msg::ObjGetXattrsReply Primary::Impl::GetXattrs(const msg::ObjGetXattrsRequest& r) {
  msg::ObjGetXattrsReply reply;
  auto d = Describe(r.pool, r.epoch, r.object, "getxattrs");
  if (!d.ok()) {
    reply.status = d.status();
    return reply;
  }
  reply.version = d->state.version;
  reply.mtime = d->meta.mtime;
  reply.xattrs = std::move(d->meta.xattrs);
  return reply;
}

msg::ObjWriteReply Primary::Impl::Truncate(const msg::ObjWriteRequest& r,
                                           Clock::time_point received) {
  msg::ObjWriteReply reply;
  Prepared p;
  if (Status s = Open(p, r.pool, r.epoch, r.object, true, "truncate"); !s.ok()) {
    reply.status = s;
    return reply;
  }
  p.start_by = StartBy(received, r.start_within_ms);
  const ObjectState& st = p.state;
  if (!st.exists) return reply;  // as Ceph's truncate of an absent object: nothing happens
  const std::uint64_t size = r.offset;
  MetaUpdate meta;
  meta.mtime = NowMicros();
  Result<ObjectState> next = Status::OK();
  if (size == st.size) {
    next = VersionedWrite(p, [&](std::uint64_t version) {
      return WriteMeta(p.io, st, version, p.loc.min_size, meta);
    });
  } else {
    auto plan = PlanWrite(p.io.codec->layout, true, st.size, msg::ObjWriteMode::kWriteFull, 0, size,
                          MaxObjectSize());
    if (!plan.ok()) {
      reply.status = plan.status();
      return reply;
    }
    // What the object becomes: the bytes it keeps, then zeros.
    Buffer data = Buffer::Allocate(size, true);
    const std::uint64_t keep = std::min(size, st.size);
    if (keep > 0) {
      auto got = ReadObject(p.io, st, 0, keep);
      if (!got.ok() || got->bytes.size() != keep) {
        Forget(p);
        const Status s = got.ok() ? Status::Error(EIO, "short read of the bytes a truncate keeps")
                                  : got.status();
        // A shard at another version than the table says: the client's retry asks the shards.
        reply.status = s.code() == ESTALE ? Status::Retryable(EAGAIN, s.message()) : s;
        return reply;
      }
      std::memcpy(data.data(), got->bytes.data(), keep);
    }
    const msg::ObjectForm form = FormOfWrite(p, true, *plan);
    next = VersionedWrite(p, [&](std::uint64_t version) {
      return WriteObjectInForm(p.io, *p.codec, form, st, *plan, data, version, p.loc.min_size,
                               meta);
    });
  }
  if (!next.ok()) {
    reply.status = next.status();
    return reply;
  }
  io_stats_.Write(p.loc.pool_id, 0, Clock::now() - received);
  reply.version = next->version;
  reply.object_size = next->size;
  return reply;
}

}  // namespace ec::osd::pg
