// ObjectPuller: one object of a SubPull, as PullService runs it (pull_service.h has the contract):
// the local shard's version check, the rebuild (repair engine) or copy of its shard from the
// helpers, and the local write at the object's version. Reads that were fetched ahead for it
// (pull_prefetch.h: one batched request per helper for a window of objects) answer the engine's
// first requests; anything else (re-plans after a failed helper, objects not prefetched) goes to
// the helpers one request per helper, as without prefetching.
//
// Counting (SubPullResult): network_bytes = the bytes of helper replies used, each once: the
// prefetched entries the engine took (PrefetchedShardSource::Used) plus its successful direct
// reads; device_bytes = the same requests' extents priced as the helpers' stores read them
// (4 KiB blocks); a failed read or batch item counts nothing.
//
// The object's metadata (user xattrs and mtime, osd/pg/object_io.h "Metadata") comes with the
// rebuilt or copied bytes: read (a shard Stat) from a helper at the object's version, else from
// the copy source or any helper at its own version (they all hold the object's xattrs), and
// written with the shard (SubWriteMeta::kReplace).
//
// The local shard is read and written through this OSD's ShardService (osd/shard/): its state
// checked in process (StateNow), the rebuilt shard written as a SubWrite on the shard's strand, so
// that it never interleaves with the primary's SubWrites of the same shard.
//
// Thread safety: Pull may run on several threads at once (for different objects).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "msg/messages.h"
#include "msg/server.h"
#include "osd/pg/pull_job.h"
#include "osd/pg/pull_service.h"
#include "osd/shard/shard_service.h"
#include "recovery/repair_engine.h"

namespace ec::osd::pg {

// What one request to a helper may carry: the limits OsdShardSource announces to the engine.
// The prefetch plans with these so that its requests are exactly the engine's.
recovery::ShardSourceLimits HelperLimits();

// The engine request that rebuilds `o`'s shard from the job's helpers (kRebuild, and kCopy's
// fallback): want = {shard}, every helper remote, the least-cost plan under options.cost.
recovery::RepairRequest RebuildRequest(const PullJob& job, const msg::SubPullObject& o,
                                       const PullOptions& options);

// Whether `o` needs reading: OK(true) when this OSD's shard is at o.prev_version; OK(false) when it
// is at o.version already (a retried pull: nothing to read); EINVAL for a version of 0 or not
// above prev_version; ESTALE when the shard is at another version; the store's errors.
Result<bool> NeedsPull(shard::ShardService& shards, const PullJob& job,
                       const msg::SubPullObject& o);

// Whether `o`'s shard is rebuilt through a chain of the job's helpers first (repair_chain.h
// RepairPipeline), for a kRebuild pull and for a kCopy pull whose copy failed: OK(false) with
// options.repair_pipeline off, without `plans`, or for an object stored as copies; OK(true) with
// on; with auto, repair_chain.h ChainPaysOff for the whole padded shard, with the bandwidths of
// job.bandwidth (this OSD's as the requester's), each helper sending its plan stage's inputs
// over the object's stripes (at most its stored bytes). Errors: the chain's plan's
// (ChainPlans::Get: EOPNOTSUPP for a code that is not pipelinable, EIO for too few helpers).
// Thread safe.
Result<bool> ChainChosen(const PullJob& job, const msg::SubPullObject& o,
                         const PullOptions& options, ChainPlans* plans);

class ObjectPuller {
 public:
  // `shards`, `options` and `stopping` are borrowed and must outlive the puller.
  // `plans` (the chains' plans) and `metrics` likewise.
  ObjectPuller(shard::ShardService* shards, const PullOptions* options,
               const std::atomic<bool>* stopping, ChainPlans* plans = nullptr,
               MetricsRegistry* metrics = nullptr);

  // Pulls `o` (the job's request names the shard, mode and helpers) and writes it; `prefetched`
  // holds what the window's prefetch prepared for it (may be empty): the bytes fetched ahead
  // and, for kRebuild, the engine request and plan to run (else built here). Returns the object's
  // result (pull_service.h lists them) and fills result's byte counts.
  Status Pull(const PullJob& job, const msg::SubPullObject& o, PrefetchedObject prefetched,
              msg::SubPullResult* result);

 private:
  Status Rebuild(const PullJob& job, const msg::SubPullObject& o, PrefetchedObject prefetched,
                 Buffer& data, msg::SubPullResult* result) const;
  // The chain's attempt (repair_chain.h): OK with `data` filled; NotSupported-like errors and
  // chain failures alike send the caller to the direct rebuild.
  Status RebuildByChain(const PullJob& job, const msg::SubPullObject& o, Buffer& data,
                        msg::SubPullResult* result) const;
  Status Copy(const PullJob& job, const msg::SubPullObject& o,
              std::vector<PrefetchedRead> prefetched, Buffer& data,
              msg::SubPullResult* result) const;
  // The object's xattrs and mtime as a helper's shard records them (see the header). Errors: EIO
  // naming each helper that failed (or was at another version).
  Result<msg::StatResult> ReadMeta(const PullJob& job, const msg::SubPullObject& o) const;
  Status Write(const PullJob& job, const msg::SubPullObject& o, std::uint64_t shard_size,
               Buffer data, const msg::StatResult& meta);

  shard::ShardService* shards_;
  const PullOptions* options_;
  const std::atomic<bool>* stopping_;
  ChainPlans* plans_;
  MetricsRegistry* metrics_;
};

}  // namespace ec::osd::pg
