// PrefetchedShardSource: a ShardSource that answers the engine from bytes fetched ahead of it, and
// sends everything else on to another source. What it is for: a caller that knows the requests a
// RepairEngine::Run() will make (RepairEngine::PlanFirstBatch) fetches them for many objects at
// once, e.g. one batched request per helper OSD for a whole recovery batch
// (osd/pg/pull_prefetch.h), then runs the engine per object over this source, so the engine's first
// batch costs no round trip, while re-plans after a failure still reach the network as they would
// without it.
//
//   Add(shard, extents, status, bytes)   once per prefetched request, before the first ReadAsync
//   ReadAsync(request):
//     an entry of that shard with exactly the request's extents:
//       status OK   the bytes are copied into the destination; OK        (the entry is "used")
//       an error    that error (a helper that failed in the batch: the engine drops it and
//                   plans again without it, exactly as after a failed read of its own)
//     anything else the request goes to `inner`, as is
//
// An entry may answer several requests (the engine asks the same extents again after another
// helper failed); Used() lists each used entry once, so that a caller counts its bytes once.
//
// Ownership: `inner` is borrowed and must outlive the source and every read in flight; the
// entries' bytes are owned by the source. Thread safety: Add must not race with anything;
// ReadAsync and Used may be called from several threads at once. Completions of entries run on
// the calling thread, before ReadAsync returns; forwarded ones wherever `inner` runs them.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

#include "ec/buffer.h"
#include "recovery/shard_source.h"

namespace ec::recovery {

class PrefetchedShardSource final : public ShardSource {
 public:
  explicit PrefetchedShardSource(ShardSource* inner) : inner_(inner) {}

  // One prefetched request: `extents` of `shard`, and either OK with their bytes back to back in
  // `bytes` (one or more buffers, e.g. one slice of a reply per extent, kept without copying;
  // their sizes must sum to the extents' lengths: EINVAL otherwise, nothing added) or the error
  // it got (bytes ignored). Two entries of one shard with the same extents: the first answers.
  Status Add(int shard, std::vector<Extent> extents, Status status, std::vector<Buffer> bytes = {});

  // The inner source's: the engine cuts its requests as it would without prefetching, so that
  // they match what was fetched (PlanFirstBatch with the same limits).
  ShardSourceLimits limits() const override { return inner_->limits(); }

  void ReadAsync(std::span<const ShardReadRequest> requests, Completion done) override;

  // The OK entries that answered at least one request: shard and extents (each once).
  struct UsedEntry {
    int shard = 0;
    std::vector<Extent> extents;
    std::uint64_t bytes = 0;
  };
  std::vector<UsedEntry> Used() const;

 private:
  struct Entry {
    int shard = 0;
    std::vector<Extent> extents;
    Status status;
    std::vector<Buffer> bytes;
    std::uint64_t size = 0;  // of bytes
    bool used = false;
  };
  // The entry answering `r`, or null.
  Entry* Find(const ShardReadRequest& r);

  ShardSource* inner_;
  std::vector<Entry> entries_;
  mutable std::mutex mu_;  // guards Entry::used
};

}  // namespace ec::recovery
