// object_io.h "Small objects": a write in a form (erasure shards, or an erasure pool's copies),
// converting the object when its form changes (resolve.h "Object forms").
#include <fmt/format.h>

#include <cstring>

#include "osd/pg/object_io.h"

namespace ec::osd::pg {

namespace {

// The object's whole content after the write: its old bytes (read through `io`, its present form)
// up to the new size, with `data` at plan.write_offset and zeros in any gap.
Result<Buffer> ContentAfter(const ObjectIo& io, const ObjectState& state, const WritePlan& plan,
                            const Buffer& data) {
  Buffer content = Buffer::Allocate(plan.new_size, true);
  std::byte* out = const_cast<std::byte*>(content.data());
  const std::uint64_t keep = plan.full || !state.exists ? 0 : std::min(state.size, plan.new_size);
  if (keep > 0) {
    auto old = ReadObject(io, state, 0, keep);
    if (!old.ok()) return old.status();
    if (old->bytes.size() != keep) {
      return Status::Error(
          EIO, fmt::format("pg {} object {}: short read of old bytes", io.loc->pgid, io.object));
    }
    std::memcpy(out, old->bytes.data(), keep);
  }
  if (!data.empty()) std::memcpy(out + plan.write_offset, data.data(), data.size());
  return content;
}

}  // namespace

Result<ObjectState> WriteObjectInForm(const ObjectIo& io, const PoolCodec& pool,
                                      msg::ObjectForm form, const ObjectState& state,
                                      const WritePlan& plan, const Buffer& data,
                                      std::uint64_t version, int min_size, MetaUpdate meta) {
  const PoolCodec& to = pool.ForForm(form);
  if (&to == io.codec) return WriteObject(io, state, plan, data, version, min_size, meta);
  // A conversion (or a new object of the other form): the whole new content, every position
  // rewritten in the new form by one versioned write.
  auto content = ContentAfter(io, state, plan, data);
  if (!content.ok()) return content.status();
  if (!meta.xattrs && state.exists) {
    if (state.meta) {
      meta.xattrs = state.meta->xattrs;
    } else {
      auto known = ReadObjectMeta(io, state);
      if (!known.ok()) return known.status();
      meta.xattrs = std::move(known->xattrs);
    }
  }
  auto whole = PlanWrite(to.layout, state.exists, state.size, msg::ObjWriteMode::kWriteFull, 0,
                         content->size(), UINT64_MAX);
  if (!whole.ok()) return whole.status();
  ObjectIo in_form = io;
  in_form.codec = &to;
  return WriteObject(in_form, state, *whole, *content, version, min_size, std::move(meta));
}

}  // namespace ec::osd::pg
