// Internal to object_io (object_io_resolve.cc, object_io_read.cc, object_io_write.cc,
// object_io_heal.cc): what resolving, writing and healing share. object_io.h is the contract;
// these follow its rules (blocking, one operation per object at a time).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "msg/client.h"
#include "osd/pg/object_io.h"

namespace ec::osd::pg::object_io_detail {

// "osd.N (shard i)": how every message names a position's shard.
inline std::string OsdName(const ObjectIo& io, int position) {
  return fmt::format("osd.{} (shard {})", io.loc->acting[position], position);
}

// The call options of every sub-operation of `io`.
inline msg::CallOptions Call(const ObjectIo& io) {
  msg::CallOptions c;
  c.timeout = io.timeout;
  return c;
}

// Position -> the bytes its shard stores for an object of `object_size` bytes
// (StripeLayout::stored_size: without padding, only what the object's data reaches).
inline std::map<int, std::uint64_t> StoredSizes(const StripeLayout& layout,
                                                std::uint64_t object_size) {
  std::map<int, std::uint64_t> sizes;
  for (unsigned p = 0; p < layout.chunk_count(); ++p) {
    sizes[static_cast<int>(p)] = layout.stored_size(object_size, static_cast<int>(p));
  }
  return sizes;
}

// The SubWrite of version `version` for position `p`, starting from the version that shard is at
// (its stale version, or the object's).
msg::SubWriteRequest SubWriteFor(const ObjectIo& io, const ObjectState& state, int p,
                                 std::uint64_t version, msg::SubWriteKind kind,
                                 std::uint64_t object_size, std::uint64_t shard_size);

// Rolls version `version` back on `positions` (SubResolve, all at once); the first failure
// (naming its OSD), or OK. `undone` (if given) gets how many positions it did roll back.
Status RollBack(const ObjectIo& io, const std::vector<int>& positions, std::uint64_t version,
                std::size_t* undone = nullptr);

// Sends `requests[i]` with `payloads[i]` to position positions[i], all at once; acknowledges
// with at least `min_acks` or rolls back (object_io.h, "Writes"). Returns the positions that took
// the write.
Result<std::vector<int>> SendSubWrites(const ObjectIo& io, const std::vector<int>& positions,
                                       std::vector<msg::SubWriteRequest> requests,
                                       std::vector<std::vector<Buffer>> payloads, int min_acks);

// Encodes `plan` with `data` (reading the plan's old bytes first) and sends each of `targets` its
// part as version `version`; SendSubWrites' rules with `min_acks`.
Result<std::vector<int>> EncodeAndSend(const ObjectIo& io, const ObjectState& state,
                                       const WritePlan& plan, const Buffer& data,
                                       std::uint64_t version, std::vector<int> targets,
                                       int min_acks);

}  // namespace ec::osd::pg::object_io_detail
