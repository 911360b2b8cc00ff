// PrefetchWindow: the batched helper reads of a recovery pull (issue 15 item 2: one vectored
// request per helper per batch of objects). PullService runs a SubPull's objects a window at a
// time; before a window's objects run, this plans each of them and fetches, for all of them at
// once, the reads their pulls will make first:
//
//   per object (in request order, while the window's bytes stay within PullOptions::batch_bytes,
//   at least one object):
//     needs reading (NeedsPull: this OSD's shard at prev_version)?   else nothing fetched
//     kRebuild: RepairEngine::Plan(RebuildRequest) -> PlanFirstBatch(HelperLimits()): per helper
//               the extents of its one request; only when that batch is the object's whole read
//               (a large object streams batch by batch as without prefetching). The request and
//               its plan go to the object's pull either way (PrefetchedObject): the engine runs
//               from that plan instead of planning the object again
//     kCopy:    the whole shard from the first copy source, when it fits one request
//   -> per helper, every object's extents as items of ONE SubReadBatch (expect_version = the
//      object's version), cut into more only where one would pass msg::Limits (max_batch_items
//      items, max_payload_len reply bytes, max_header_len of request header: msg::EncodedSize)
//   -> all helpers' batches in flight at once (common/fan_out.h); wait for every reply
//      (PullOptions::helper_timeout)
//   -> (*window)[i].reads: the object's reads, each with its bytes (slices of the reply, no copy)
//      or the error its helper gave, prefixed with the helper's name: a failed item (ESTALE at
//      another version, ENOENT, DataLoss, ...) or a failed batch (ECONNREFUSED, ETIMEDOUT, ...)
//      for each of its items. ObjectPuller then runs the engine over them (pull_object.h): a
//      failed helper is dropped and the engine re-plans that object with the others, reading
//      those directly, exactly as without prefetching.
//
// Memory: what a window holds is at most batch_bytes of helper bytes (one object over that is
// a window alone); PullService holds two windows at once (the one running, the next one being
// fetched), on top of the engine's own buffers per object in flight.
//
// Thread safety: call for one job from one thread at a time; blocks until the replies arrived.
#pragma once

#include <cstddef>
#include <cstdint>

#include "osd/pg/pull_job.h"
#include "osd/pg/pull_service.h"
#include "osd/shard/shard_service.h"

namespace ec::osd::pg {

// What PrefetchWindow did, for the caller's counters and tests.
struct PrefetchCounts {
  std::size_t end = 0;             // the window is objects [first, end)
  std::size_t objects = 0;         // objects with something fetched
  std::size_t requests = 0;        // SubReadBatch requests sent
  std::uint64_t bytes = 0;         // bytes asked
  std::uint64_t failed_items = 0;  // items that came back as errors
};

// Chooses the window of `job`'s objects from `first` on, plans and fetches it and sets *window
// (one entry per object of the window, in order: its request and plan when planned, its reads,
// empty for an object with nothing fetched). Never fails: what could not be planned or fetched
// the object's pull does itself. Reads only the job's immutable fields (request, codec, helpers),
// so it may run while the job's other objects are being pulled. `batch_bytes` is the window's
// limit (PullOptions::batch_bytes as tuned now: PullService::Tune).
PrefetchCounts PrefetchWindow(const PullJob& job, std::size_t first, shard::ShardService& shards,
                              const PullOptions& options, std::uint64_t batch_bytes,
                              std::vector<PrefetchedObject>* window);

}  // namespace ec::osd::pg
