// object_io.h "Metadata": an object's user xattrs and mtime, read from a shard at its version
// (ReadObjectMeta) and written alone, without data, as a version of their own (WriteMeta).
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"
#include "osd/shard/shard_meta.h"

namespace ec::osd::pg {

using object_io_detail::After;
using object_io_detail::AllPositions;
using object_io_detail::Call;
using object_io_detail::MetaAfter;
using object_io_detail::OsdName;
using object_io_detail::PlanPartial;
using object_io_detail::SendSubWrites;
using object_io_detail::SubWriteFor;

Result<ObjectMeta> ReadObjectMeta(const ObjectIo& io, const ObjectState& state) {
  if (!state.exists) {
    return Status::NotFound(
        fmt::format("object {} does not exist in pg {}", io.object, io.loc->pgid));
  }
  if (state.meta) return *state.meta;
  // The shards at the object's version hold its mtime (and, as every current one, its xattrs):
  // this OSD's own first (no network).
  std::vector<int> from;
  for (int p : state.current) {
    if (state.VersionOf(p) == state.version && io.clients.count(p) != 0) from.push_back(p);
  }
  std::stable_partition(from.begin(), from.end(), [&](int p) { return p == io.self_position; });
  std::vector<std::string> failed;
  for (int p : from) {
    auto got = io.clients.at(p)->Stat(
        msg::StatRequest{io.loc->collection, io.object, static_cast<std::uint32_t>(p)}, Call(io));
    if (!got.ok()) {
      failed.push_back(OsdName(io, p) + ": " + got.status().message());
    } else if (got->version != state.version) {
      failed.push_back(fmt::format("{}: at version {}", OsdName(io, p), got->version));
    } else {
      return ObjectMeta{shard::DecimalAttr(got->attrs, shard::kMtimeAttr),
                        shard::XattrsOf(got->attrs)};
    }
  }
  // The primary's view is older than the shards, or they are going away: asked again, it settles.
  return Status::Retryable(
      EAGAIN, fmt::format("pg {} object {}: no shard at version {} gave its "
                          "metadata{}{}",
                          io.loc->pgid, io.object, state.version, failed.empty() ? "" : ": ",
                          fmt::join(failed, "; ")));
}

Result<ObjectState> WriteMeta(const ObjectIo& io, const ObjectState& state, std::uint64_t version,
                              int min_size, MetaUpdate meta) {
  if (!state.exists) {
    return Status::NotFound(
        fmt::format("object {} does not exist in pg {}", io.object, io.loc->pgid));
  }
  if (meta.changed && !meta.xattrs) return Status::Invalid("a change of xattrs without its set");
  if (!meta.xattrs && state.meta) meta.xattrs = state.meta->xattrs;
  const StripeLayout& layout = io.codec->layout;
  // Every position changes (to the new version); the current ones that are up are written, each
  // its metadata only: no extents, its length as it is. The others are left stale.
  auto to = PlanPartial(io, state, AllPositions(io), version, min_size);
  if (!to.ok()) return to.status();
  std::vector<msg::SubWriteRequest> requests;
  std::vector<std::vector<Buffer>> payloads(to->targets.size());
  for (int p : to->targets) {
    requests.push_back(SubWriteFor(io, state, p, version, msg::SubWriteKind::kRange, state.size,
                                   layout.stored_size(state.size, p), to->versions, meta));
  }
  auto took = SendSubWrites(io, to->targets, std::move(requests), std::move(payloads), to->min_acks,
                            to->untouched);
  if (!took.ok()) return took.status();
  ObjectState next = After(state, version, to->changed, *took);
  next.versions = to->versions;
  next.exists = true;
  next.size = state.size;
  next.form = state.form;
  next.meta = MetaAfter(meta);
  return next;
}

}  // namespace ec::osd::pg
