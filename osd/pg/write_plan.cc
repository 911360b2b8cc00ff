#include "osd/pg/write_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

namespace ec::osd::pg {

Result<WritePlan> PlanWrite(const StripeLayout& layout, bool exists, std::uint64_t old_size,
                            msg::ObjWriteMode mode, std::uint64_t offset, std::uint64_t length,
                            std::uint64_t max_object_size) {
  if (!exists) old_size = 0;
  if (mode == msg::ObjWriteMode::kTruncate) {
    return Status::Invalid("a truncate is planned as the write_full of what the object becomes");
  }
  if (mode != msg::ObjWriteMode::kWrite && offset != 0) {
    return Status::Invalid("an offset is only for a write, not for write_full or append");
  }
  if (mode == msg::ObjWriteMode::kAppend) offset = old_size;
  if (length > UINT64_MAX - offset) return Status::Invalid("write ends past 2^64");
  WritePlan p;
  p.write_offset = offset;
  const std::uint64_t end = offset + length;
  if (mode == msg::ObjWriteMode::kWriteFull) {
    p.full = true;
    p.new_size = length;
  } else {
    p.new_size = length == 0 ? old_size : std::max(old_size, end);
  }
  if (p.new_size > max_object_size) {
    return Status::Error(
        EFBIG, fmt::format("object would be {} bytes, above osd_max_object_size {}", p.new_size,
                           max_object_size));
  }
  const std::uint64_t sw = layout.stripe_width();
  if (p.full) {
    p.first_stripe = 0;
    p.stripes = layout.stripes_of(p.new_size);
    return p;
  }
  if (length == 0) return p;
  p.first_stripe = offset / sw;
  const std::uint64_t last = (end - 1) / sw;
  p.stripes = last - p.first_stripe + 1;
  const std::uint64_t stripes_begin = p.first_stripe * sw;
  const std::uint64_t stripes_end = (last + 1) * sw;
  // The old bytes of the stripes that the write does not cover, up to the old end.
  if (stripes_begin < offset && stripes_begin < old_size) {
    p.old_reads.push_back({stripes_begin, std::min(offset, old_size) - stripes_begin});
  }
  if (end < old_size && end < stripes_end) {
    p.old_reads.push_back({end, std::min(stripes_end, old_size) - end});
  }
  return p;
}

msg::ObjectForm FormAfter(msg::ObjectForm form, bool exists, bool whole, std::uint64_t new_size,
                          std::uint64_t min_object_size) {
  const bool small = new_size < min_object_size;
  if (!exists || whole || form == msg::ObjectForm::kReplicas) {
    return small ? msg::ObjectForm::kReplicas : msg::ObjectForm::kErasure;
  }
  return form;
}

}  // namespace ec::osd::pg
