// PullService: the pulling side of recovery and backfill (issue 15 items 2 and 3). The OSD that is
// to hold a rebuilt shard pulls it: the PG primary sends it a SubPull naming the objects, their
// versions and the helper OSDs, and this OSD reads from the helpers and writes the shard into its
// own store, so the network carries only what the code needs (CLAY d*C/q per stripe for one lost
// chunk, RS k*C) and no primary pushes anything.
//
//   SubPull (messenger thread) --Handle--> worker pool (PullOptions::threads)
//     -> map at request.epoch (waits up to map_wait for a newer epoch; else Retryable ESTALE),
//        the pool's codec (ENOENT: no such pool), a client per helper (a helper whose OSD is not in
//        the map, is down in it or has no usable address is left out)
//     -> the objects a window at a time (pull_prefetch.h): objects in request order while the
//        helper bytes to fetch stay within PullOptions::batch_bytes (at least one object);
//        every object of the window planned first (RepairEngine::Plan, the same request as
//        below), then per helper ONE SubReadBatch carrying every object's extents from it (more
//        only past msg::Limits), all helpers at once: a window of N small objects costs one
//        round trip per helper, not N; the next window is fetched while one runs
//     -> per object of the window, up to max_active at once:
//          kRebuild  RepairEngine::Run(want = {shard}, available = the helpers' positions, the
//                    least-cost plan under PullOptions::cost, no local shard) over the fetched
//                    bytes (recovery/prefetched_shard_source.h), whatever else it asks going to
//                    msg::OsdShardSource, both with expect_version = object.version: a helper at
//                    another version, or one that failed in the batch, fails its request and the
//                    engine re-plans without it, reading the others directly (one ReadShard
//                    per helper, as without batching); an object too large for one engine
//                    batch is not fetched ahead and streams as before
//          kCopy     the whole shard of the same position, from the first helper holding that
//                    position that answers (expect_version too; the first source's bytes come
//                    from the window's batch), no decode; when every such source fails and the
//                    request also names helpers of other positions, the shard is rebuilt from
//                    those as kRebuild would
//          kRebuild with PullOptions::repair_pipeline (below): the shard's bytes from chains
//                    of helpers (repair_chain.h), slice by slice; a failed chain falls back on
//                    the engine's direct reads; nothing is fetched ahead for such an object
//                    (with kOn for the whole request, with kAuto for the shards it chains)
//        -> the shard written locally as ONE SubWrite kFull at object.version, prev_version =
//           object.prev_version (osd/shard/sub_ops.h: one store transaction with an undo record)
//     -> one SubPullReply: a result per object, in request order
//
// Per object result (SubPullResult): OK; ESTALE when this OSD's shard is not at prev_version
// (checked before reading and again, authoritatively, by the write: a client write got there
// first) or when every helper that failed was at another version and too few were left; EIO when
// the helpers left cannot rebuild it (the engine's message, naming every failed helper; Retryable
// when all failures were); EINVAL for a version of 0 or not above prev_version; ECANCELED when the
// service is shutting down; the store's errors. An object whose shard is already at object.version
// here is OK at once, reading nothing (a retried pull). Request errors (SubPullReply::status, no
// results): Retryable ESTALE (map too old), ENOENT (pool), ECANCELED (shutting down), EINVAL (shard
// or helper position out of the code's range, two helpers of one position other than the pulled
// one, a kRebuild helper at the pulled position, a request that is not a SubPull).
//
// network_bytes counts the bytes of helper replies that were used: every successful direct read
// (re-plans included) and every batch item the engine took, once however often it served it
// (a failed item, or one never asked for, counts nothing); device_bytes what those reads cost the
// helpers' stores (extents merged per request, rounded out to PullOptions::cost.device_block);
// rebuilt_bytes the shard bytes written (a copy counts its shard too). Without failures the
// figures equal those of reading each object on its own. The same sums, by pool, go to the
// registry:
//   ecstore_recovery_network_bytes_total{pool}, ecstore_recovery_helper_device_bytes_total{pool},
//   ecstore_recovery_rebuilt_bytes_total{pool},
//   ecstore_recovery_objects_total{pool,result=ok|failed},
//   ecstore_recovery_pull_seconds{pool,result} (a histogram of each object's pull time),
//   ecstore_recovery_read_batches_total{pool} (SubReadBatch requests sent).
//
// Ordering with client writes: the primary's SubWrite of an object and this service's write of
// the same shard must not interleave inside shard::ApplySubWrite (it reads the shard's version,
// checks prev_version, then applies: two writers that both pass the check before either applies
// would leave the later one's shard, silently dropping the other). The local write is this OSD's
// ShardService's SubWrite (osd/shard/shard_service.h), so it runs on the same per-shard strand as
// the primary's SubWrites, one at a time, and the prev_version check then decides: whichever comes
// second fails ESTALE, never a mix.
//
// Two ways in: Handle, for SubPull requests from the network (OsdService routes them here), and
// Pull, the same typed, for this OSD's own PG primary when the position to rebuild is its own (no
// message to itself).
//
// Thread safety: Handle and Pull may be called from any thread (they never block: the work runs
// on the service's own workers, so recovery never delays the messenger). The destructor stops
// starting objects (the rest are ECANCELED), waits for the running ones and for every reply.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "cluster/map/map_holder.h"
#include "common/metrics.h"
#include "msg/client.h"
#include "msg/server.h"
#include "osd/pg/repair_chain.h"
#include "osd/shard/shard_service.h"
#include "recovery/read_cost.h"

namespace spdlog {
class logger;
}

namespace ec::osd::pg {

// PullOptions::repair_pipeline: whether a kRebuild pull of an erasure-coded object's shard, or a
// kCopy's rebuild after its copy failed, goes through a chain of helpers first
// (osd/pg/repair_chain.h RepairPipeline: kOn whenever the code is pipelinable, kAuto where
// ChainPaysOff says so for the whole shard, with the OSDs' bandwidths from the map:
// pull_object.h ChainChosen). A chain that fails or
// stalls (a helper down, at another version, too slow) is planned again without that helper,
// then the object is pulled directly: the result is the same bytes.

struct PullOptions {
  int osd_id = 0;          // this OSD (names in logs and in the handshake to helpers)
  std::string plugin_dir;  // "" : the default plugin directory
  int threads = 4;         // workers running pulls (1..256); objects in flight on this OSD
  int max_active = 3;      // objects in flight per request (>= 1)
  // Helper bytes fetched ahead for one window of a request's objects (osd_recovery_max_chunk in
  // ec-osd); one object above it is a window of its own; two windows are held at once (one
  // running, the next being fetched). 0: no batching (every object reads its
  // helpers itself, one ReadShard per helper).
  std::uint64_t batch_bytes = std::uint64_t{8} << 20;
  // Nice value of the workers (0..20, common/thread_nice.h; 0: as the process): pulls and their
  // decoding yield the CPU to client operations (osd_recovery_nice). A value the kernel refuses is
  // logged and ignored.
  int nice = 0;
  std::chrono::milliseconds helper_timeout{10000};  // per read request (or batch) to a helper
  std::chrono::milliseconds map_wait{2000};         // waiting for a request's newer epoch
  // Weights of the least-cost plan, as the primary's degraded reads use them (PrimaryOptions
  // read_weight_net / read_weight_dev). `local` is ignored: the rebuilt shard is not here yet,
  // and every helper is remote.
  recovery::ReadCostModel cost;
  // How this OSD authenticates to its helpers (issue 32; mode none: not).
  msg::ClientAuth auth;
  RepairPipeline repair_pipeline = RepairPipeline::kOff;
  // The chains' options; a timeout of 0 (the default here) is helper_timeout.
  ChainRepairOptions chain{256 * 1024, 0, std::chrono::milliseconds(0), 2};  // window: per link
  // The chains' plans, shared with the OSD's other chain users (borrowed, must outlive the
  // service; null: the service keeps its own). One per process makes the check of a code at its
  // chunk size (ChainPlans) run once per OSD rather than once per user.
  ChainPlans* plans = nullptr;
};

// The sums of the counters above over every pool, since the service started (objects: those
// pulled with success). For the PG stats reports (pg_stats_publisher.h).
struct PullTotals {
  std::uint64_t network_bytes = 0;
  std::uint64_t helper_device_bytes = 0;
  std::uint64_t rebuilt_bytes = 0;
  std::uint64_t objects_ok = 0;
};

class PullService : public msg::RequestHandler {
 public:
  // `shards` (this OSD's shards: the pulled ones are checked and written through it), `map` and
  // `metrics` are borrowed and must outlive the service. Starts the workers.
  PullService(shard::ShardService* shards, const cluster::MapHolder* map, MetricsRegistry* metrics,
              std::shared_ptr<spdlog::logger> log, PullOptions options);
  ~PullService() override;
  PullService(const PullService&) = delete;
  PullService& operator=(const PullService&) = delete;

  // Serves `request`; `done` gets the reply (per-object results; a request error in its status),
  // once, on a worker. Never blocks.
  void Pull(msg::SubPullRequest request, msg::Callback<msg::SubPullReply> done);

  // SubPull requests only (others are answered EINVAL). Never blocks.
  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override;

  // Any thread; each field is read on its own (a pull finishing meanwhile may show in some).
  PullTotals Totals() const;

  // New PullOptions::max_active (at least 1) and batch_bytes, for the windows started from now
  // on (osd_recovery_max_active and osd_recovery_max_chunk changed at runtime). Any thread.
  void Tune(int max_active, std::uint64_t batch_bytes);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::osd::pg
