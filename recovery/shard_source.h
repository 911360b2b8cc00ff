// ShardSource: where the repair engine reads shards from. One implementation per medium: shard
// files on a local disk (recovery/file_shard_source.h), OSDs over the network
// (osd/pg/osd_shard_source.h), memory in tests (recovery/testing/memory_shard_source.h).
//
// A request names one shard and all the extents the engine wants from it in this round; a source
// sends it to the shard's holder as ONE request (one ReadShard message, one io_uring batch, ...),
// which is what makes a CLAY repair cheap: d helpers x one request each, not one per sub-chunk.
//
// Contract of ReadAsync(requests, done):
//   - every request is started; `done(i, status)` is called exactly once for each request i, from
//     any thread (an io thread of the source, or the calling thread, possibly before ReadAsync
//     returns), and possibly concurrently for different i. `done` must not block for long.
//   - OK: destination holds the extents' bytes back to back, in the order of `extents`.
//   - error: the destination's content is unspecified. A shard that ends before an extent does
//     is an error (EIO or ENODATA, naming the shard), never a short or zero-filled answer. The
//     message names the shard (path, OSD, ...) so that the engine can report it as is.
//   - ownership: the caller owns `requests` (extents and destinations) and keeps them valid, and
//     unmodified, until the last `done` call; the source keeps no reference after it.
// Thread safety: a source may be used by several engines/threads at once unless its own header
// says otherwise.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "common/status.h"
#include "recovery/read_plan.h"

namespace ec::recovery {

// One request: extents of one shard, read back to back into `destination` (whose size is the sum
// of the extents' lengths).
struct ShardReadRequest {
  int shard = 0;
  std::vector<Extent> extents;
  std::span<std::byte> destination;
};

// What one request may carry (0: no limit). The engine cuts its batches so that every request
// fits; a single stripe that does not fit is an error.
struct ShardSourceLimits {
  std::uint64_t max_extents = 0;
  std::uint64_t max_bytes = 0;
};

class ShardSource {
 public:
  using Completion = std::function<void(std::size_t index, Status status)>;

  virtual ~ShardSource() = default;

  virtual ShardSourceLimits limits() const { return {}; }

  // See the file comment.
  virtual void ReadAsync(std::span<const ShardReadRequest> requests, Completion done) = 0;
};

// ReadAsync and wait for every completion: the status of each request, in order (an empty
// vector for no request). Buffers may be touched again as soon as it returns.
std::vector<Status> ReadAll(ShardSource& source, std::span<const ShardReadRequest> requests);

// `extents` of `shard` (bytes landing back to back in `destination`, whose size is their sum) as
// requests within `limits`, in order: one request when they fit, otherwise several, a long
// extent cut where max_bytes falls. Empty extents are dropped.
std::vector<ShardReadRequest> SplitToLimits(int shard, const std::vector<Extent>& extents,
                                            std::span<std::byte> destination,
                                            const ShardSourceLimits& limits);

}  // namespace ec::recovery
