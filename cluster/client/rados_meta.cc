// rados.h "Object metadata": the IoCtx calls of user xattrs, truncate and touch, each one request
// to the object's primary (ObjSetXattrs, ObjGetXattrs, ObjWrite kTruncate) run with the retries of
// Rados::Impl.
#include <cerrno>

#include "cluster/client/rados.h"
#include "cluster/client/rados_impl.h"
#include "msg/xattrs.h"

namespace ec::cluster::client {
namespace {

// One ObjSetXattrs (setxattr, rmxattr, touch), retried as a write_full is.
Status SetXattrsOf(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                   msg::ObjSetXattrsRequest r) {
  EC_RETURN_IF_ERROR(detail::CheckName(object));
  r.pool = static_cast<std::uint64_t>(pool);
  r.object = object;
  return impl.Run(pool, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    msg::ObjSetXattrsRequest request = r;
    request.epoch = epoch;
    request.start_within_ms = impl.StartWithinMs();
    return osd.ObjSetXattrs(std::move(request), impl.Call()).status();
  });
}

Result<msg::ObjXattrsResult> GetXattrsOf(Rados::Impl& impl, std::int64_t pool,
                                         const std::string& object) {
  EC_RETURN_IF_ERROR(detail::CheckName(object));
  msg::ObjXattrsResult out;
  Status s = impl.Run(pool, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjGetXattrs(
        msg::ObjGetXattrsRequest{static_cast<std::uint64_t>(pool), epoch, object}, impl.Call());
    if (!got.ok()) return got.status();
    out = std::move(got).value();
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace

Status IoCtx::SetXattr(const std::string& object, const std::string& name, std::string_view value) {
  EC_RETURN_IF_ERROR(msg::CheckXattr(name, value.size()));
  msg::ObjSetXattrsRequest r;
  r.flags = msg::kXattrsCreate;
  r.set.push_back(msg::Attr{name, std::string(value)});
  return SetXattrsOf(*rados_->impl_, pool_id_, object, std::move(r));
}

Result<std::string> IoCtx::GetXattr(const std::string& object, const std::string& name) {
  EC_RETURN_IF_ERROR(msg::CheckXattr(name, 0));
  auto got = GetXattrsOf(*rados_->impl_, pool_id_, object);
  if (!got.ok()) return got.status();
  for (msg::Attr& a : got->xattrs) {
    if (a.key == name) return std::move(a.value);
  }
  return Status::Error(ENODATA, "object " + object + " has no xattr " + name);
}

Result<std::map<std::string, std::string>> IoCtx::GetXattrs(const std::string& object) {
  auto got = GetXattrsOf(*rados_->impl_, pool_id_, object);
  if (!got.ok()) return got.status();
  std::map<std::string, std::string> out;
  for (msg::Attr& a : got->xattrs) out.emplace(std::move(a.key), std::move(a.value));
  return out;
}

Status IoCtx::RmXattr(const std::string& object, const std::string& name) {
  EC_RETURN_IF_ERROR(msg::CheckXattr(name, 0));
  msg::ObjSetXattrsRequest r;
  r.remove.push_back(name);
  return SetXattrsOf(*rados_->impl_, pool_id_, object, std::move(r));
}

Status IoCtx::Touch(const std::string& object, std::optional<std::uint64_t> mtime) {
  msg::ObjSetXattrsRequest r;
  r.flags = msg::kXattrsCreate;
  if (mtime) {
    r.flags |= msg::kXattrsMtime;
    r.mtime = *mtime;
  }
  return SetXattrsOf(*rados_->impl_, pool_id_, object, std::move(r));
}

Status IoCtx::Truncate(const std::string& object, std::uint64_t size) {
  EC_RETURN_IF_ERROR(detail::CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  return impl.Run(pool_id_, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    msg::ObjWriteRequest r;
    r.pool = static_cast<std::uint64_t>(pool_id_);
    r.epoch = epoch;
    r.object = object;
    r.mode = msg::ObjWriteMode::kTruncate;
    r.offset = size;
    r.start_within_ms = impl.StartWithinMs();
    return osd.ObjWrite(std::move(r), {}, impl.Call()).status();
  });
}

}  // namespace ec::cluster::client
