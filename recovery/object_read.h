// ReadObjectRange: object bytes [offset, offset + length) read through a ShardSource, built on the
// repair engine (issue 14 items 3 and 4: reads of any byte range, degraded reads at the least
// cost).
//
//   object range -> StripeLayout::data_extents: one shard extent per data chunk it covers
//     (only the covering chunk bytes, never padded to whole stripes)
//   every data shard available: ONE round, one request per shard with exactly its extent
//   otherwise (degraded): ONE repair-engine call rebuilds the lost data shards' extents (their
//     union: they lie in the same stripes) with the least-cost plan under the model
//     (RepairRequest::cost), reading only the stripes, and for CLAY only the sub-chunks, that
//     the range needs; the available shards' extents ride along as RepairRequest::also_read, so
//     that each shard, helper or not, gets ONE request, and the plan is priced with them
//   a shard whose read fails (a checksum error, a dead OSD) is just another lost shard: the
//     bytes still missing are read in another round without it
//   the shard bytes are interleaved back into object order.
//
// Threads and buffers as RepairEngine::Run (the call works on the calling thread; the result owns
// its bytes).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "recovery/read_cost.h"
#include "recovery/repair_engine.h"
#include "recovery/shard_source.h"

namespace ec::recovery {

struct ObjectReadRequest {
  std::uint64_t object_size = 0;  // the object's size: its shards are stripes_of(size) chunks
  std::uint64_t offset = 0;       // object bytes [offset, offset + length)
  std::uint64_t length = 0;
  std::map<int, int> available;  // readable shards: chunk id -> cost (as RepairRequest)
  std::optional<ReadCostModel> cost = std::nullopt;  // least-cost choice for degraded parts
};

struct ObjectRead {
  Buffer bytes;                       // length bytes of the object
  std::map<int, ShardExtent> direct;  // data shards read directly -> the extent read
  std::map<int, RepairPlan> rebuilt;  // lost data shards -> the plan that rebuilt their extent
  RepairStats stats;                  // every request of the call (direct and repairs)
  // With a model: the price of what was read (each round's plan, direct reads included): the
  // counters' network and device bytes of a degraded read.
  ReadCost cost;
  bool degraded() const { return !rebuilt.empty(); }
};

// Errors: EINVAL for a range past the object's end ("read of N+M past the end of an object of S
// bytes") or a bad model; the engine's errors for a lost shard that cannot be rebuilt (EIO naming
// the shard and every failed helper, including a data shard whose direct read failed).
Result<ObjectRead> ReadObjectRange(const RepairEngine& engine, ShardSource& source,
                                   const ObjectReadRequest& request);

}  // namespace ec::recovery
