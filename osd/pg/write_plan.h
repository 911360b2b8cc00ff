// What an object write changes, shard by shard (issue 14 item 1), a pure function of the object's
// size, the write and the layout.
//
//   write_full(data)     every stripe of the new object; every shard rewritten whole (kFull)
//   write(off, data)     the stripes [off, off + len) touches, and only those: the bytes of
//   append(data)         those stripes outside the write are read first (at most two object
//                        ranges: the head of the first stripe and the tail of the last, cut at
//                        the old size; nothing past it), the stripes re-encoded, and each shard
//                        gets ONE extent: its chunks of those stripes (kRange)
//
// A zero-length write or append creates an empty object when there is none and changes nothing
// else (as rados does). Offsets past the end grow the object; the gap reads as zeros.
//
// Thread safety: pure.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "ec/stripe_layout.h"
#include "msg/messages.h"

namespace ec::osd::pg {

struct ObjectRange {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool operator==(const ObjectRange&) const = default;
};

struct WritePlan {
  bool full = false;                   // every shard rewritten whole
  std::uint64_t new_size = 0;          // the object's size afterwards
  std::uint64_t write_offset = 0;      // object offset where the new bytes go
  std::uint64_t first_stripe = 0;      // stripes [first_stripe, first_stripe + stripes) re-encoded
  std::uint64_t stripes = 0;           // 0: nothing to encode (an empty object, a no-op write)
  std::vector<ObjectRange> old_reads;  // old object bytes to read into those stripes
};

// Errors: EINVAL for an offset with write_full/append (the request carries none) or an end past
// 2^64; EFBIG "object would be N bytes, above osd_max_object_size M".
Result<WritePlan> PlanWrite(const StripeLayout& layout, bool exists, std::uint64_t old_size,
                            msg::ObjWriteMode mode, std::uint64_t offset, std::uint64_t length,
                            std::uint64_t max_object_size);

// The form an erasure pool's object is to have after a write (issue 30 item 2; its pool keeps
// objects smaller than `min_object_size` bytes as copies, 0: none), given its form now (`exists`
// false: a new object) and its size after the write:
//   new object                      copies when new_size < min_object_size, else shards
//   copies                          stay copies while new_size < min_object_size, else shards
//                                   (the write that takes it there converts it)
//   shards                          stay shards, except a whole rewrite (write_full, truncate,
//                                   `whole`) to below min_object_size turns it back into copies:
//                                   it rewrites every position anyway, so the change costs
//                                   nothing more; a write of part of it never does (that would
//                                   turn a cheap partial write into a whole rewrite)
// So min_object_size 0 keeps every object as shards, and a change of it applies to objects as
// they are next written.
msg::ObjectForm FormAfter(msg::ObjectForm form, bool exists, bool whole, std::uint64_t new_size,
                          std::uint64_t min_object_size);

}  // namespace ec::osd::pg
