// Primary: the erasure-code backend of the PGs this OSD is primary of (issue 14 items 1-4). It
// serves the object requests of clients (ObjWrite, ObjRead, ObjStat, ObjRemove, ObjList, and the
// object metadata's ObjSetXattrs and ObjGetXattrs: object_io.h "Metadata"):
//
//   request --(is this OSD the first up OSD of the object's PG at my map's epoch?)-- no: ESTALE
//     | yes                                    (a client with a newer map makes it wait for that
//     v                                         epoch first, up to map_wait)
//   strand of (pool, object): one operation of an object at a time, on a pool of workers
//     -> the object's state from the PG's table (pg_table.h: the PG is peered first, once per
//        interval), or asked of its shards when unknown (object_io.h)
//     -> read / write / remove through object_io.h, each write with a new version:
//        (epoch << 32) + a counter of this process, above the object's version (unique across
//        primaries: a new primary, or a restarted one, has a newer epoch)
//
// Every write (setxattr, rmxattr, touch and truncate too) sets the object's mtime to this OSD's
// wall clock (touch may give it) and keeps its xattrs (msg/xattrs.h has their limits: E2BIG for
// an object's set over them).
//
// Writes wait while fewer than min_size shards of the PG are up (for a map with more, up to
// min_size_wait), then fail with EAGAIN naming the PG. Errors reach the client as the reply's
// status: ENOENT (no pool, no object), EINVAL (read past the end, bad range), ENAMETOOLONG (a
// name over kMaxObjectNameLen), EFBIG (over osd_max_object_size), Retryable ESTALE (not the
// primary: the client refreshes its map and retries), Retryable EAGAIN (too few shards took a
// write: rolled back), Retryable EINPROGRESS (a write that could not be undone on k shards: it
// may yet be applied, object_io.h), EIO naming the PG and the missing shards when fewer than k
// shards can settle or read the object.
//
// A background thread peers every PG this OSD is primary of and has the OSD of each missing or
// stale shard pull it (SubPull, osd/pg/pull_service.h) within RecoveryOptions' throttles; a removed
// object's stale shards are removed by the primary (object_io.h HealStale). A position that moved
// to another OSD is copied from any up OSD outside the acting set that still has it (backfill,
// SubPull kCopy; see peering.h). The map's flags pause them: norecover the rebuilds, nobackfill
// the copies (pulls already sent finish; the rest starts once the flag is unset). Health() gives
// each PG's state for the pg stats.
//
// A client read that finds a shard failing its checksum is served by reconstruction (the read is
// degraded) and the shard is rebuilt in the background, on the object's strand, by its OSD
// (SubPull kRepair from the good shards): self-healing reads.
//
// Degraded reads through repair chains (issue 33, PrimaryOptions::repair_pipeline; object_io.h
// "Reads"): a read that needs a large range of one lost data shard gets that shard's bytes from a
// chain of the other shards' OSDs (one chunk's worth on this OSD's link instead of k), falling
// back to the direct degraded read when the chain fails. Counted in
// ecstore_pool_chain_degraded_reads_total{pool} and
// ecstore_pool_chain_degraded_read_fallbacks_total{pool}, and in the chains' own
// ecstore_repair_chain_bytes_total{role="requester"} (repair_chain.h).
//
// Direct reads (issue 28 item 3, read_lease.h): a client's ObjDirectRead of bytes inside one data
// chunk goes to the OSD holding that shard, which answers from its own store when it holds a live
// read lease for the PG from the PG's primary (asked for by a background thread while the PG has
// direct reads) and its shard's version is settled, and refuses otherwise (the client reads
// through the primary). As primary, this OSD grants such leases (ReadLease) while a PG is clean,
// and waits out the leases it granted before it acknowledges a write that an up position did not
// take. Counters: ecstore_osd_direct_reads_total{result="served"|reason refused},
// ecstore_osd_read_leases_total{result="granted"|"refused"} (PGs, as primary),
// ecstore_osd_read_lease_requests_total (messages, as primary),
// ecstore_osd_read_lease_waits_total (writes that waited for leases to run out).
//
// Counters (MetricsRegistry), by pool: ecstore_pool_ops_total{pool,op},
// ecstore_pool_degraded_reads_total{pool}, ecstore_pool_degraded_read_network_bytes_total{pool},
// ecstore_pool_degraded_read_device_bytes_total{pool}, ecstore_pool_self_heal_reads_total{pool},
// ecstore_pool_inline_reads_total{pool} (reads served on the messenger's thread),
// ecstore_pool_shards_repaired_total{pool,reason="read"|"scrub"},
// ecstore_pool_scrubs_total{pool,kind}, ecstore_pool_scrub_errors_total{pool} (inconsistent
// objects found).
//
// Thread safety: Handle may be called from any thread; the destructor waits for every operation.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "cluster/map/map_holder.h"
#include "cluster/map/scrub_record.h"
#include "common/metrics.h"
#include "msg/client.h"
#include "msg/server.h"
#include "osd/pg/pg_table.h"
#include "osd/pg/pool_io_stats.h"
#include "osd/pg/repair_chain.h"
#include "osd/shard/shard_service.h"

namespace spdlog {
class logger;
}

namespace ec::osd::pg {

class PullService;

// Background recovery's throttles, with Ceph's names (ec-osd options).
struct RecoveryOptions {
  int max_backfills = 1;                     // osd_max_backfills: PGs recovering at once
  int max_active = 3;                        // osd_recovery_max_active: objects per pull batch
  std::chrono::milliseconds sleep{0};        // osd_recovery_sleep: between batches
  std::uint64_t max_chunk = 8ull << 20;      // osd_recovery_max_chunk: object bytes per batch
  std::uint64_t bytes_per_sec = 0;           // osd_recovery_max_bytes_per_sec: 0 = no cap
  std::uint64_t network_bytes_per_sec = 0;   // osd_recovery_max_network_bytes_per_sec: 0 = none
  std::chrono::milliseconds idle_poll{500};  // looking for work when there was none
};

// What a running primary may change at once (Primary::Tune; `ec-admin config set` through
// osd/daemon/runtime_config.h): the write limits, from the next operation, and the recovery
// throttles, from the next recovery round (a round under way ends with the ones it began with).
struct PrimaryTunables {
  std::chrono::milliseconds min_size_wait{30000};  // a write waiting for min_size shards up
  std::uint64_t max_object_size = 128ull << 20;    // Ceph's osd_max_object_size
  RecoveryOptions recovery;
};

struct PrimaryOptions {
  int osd_id = 0;
  int threads = 16;                                // workers running object operations
  std::chrono::milliseconds subop_timeout{10000};  // per sub-operation to a shard's OSD
  std::chrono::milliseconds map_wait{3000};        // waiting for the epoch a client has
  double read_weight_net = 1.0;                    // degraded-read plan weights (read_cost.h)
  double read_weight_dev = 1.0;
  PrimaryTunables tunables;  // the values to start with (Tune changes them later)
  std::string plugin_dir;    // "" : the default plugin directory
  // How this OSD authenticates to the OSDs it sends sub-operations to (issue 32; mode none: not).
  msg::ClientAuth auth;
  // This OSD's shards (borrowed): the position it holds itself is read, written, resolved and
  // scanned in process through it, never by a message to itself (shard_link.h). Required in
  // ec-osd; null only in tests that have no shard here (then every position is remote).
  shard::ShardService* shards = nullptr;
  // This OSD's pull service (borrowed): the pulls of its own position go to it in process. Null:
  // such pulls fail ENOTSUP.
  PullService* pulls = nullptr;
  // A read of at most this many bytes that this OSD's own shard serves whole (the object's state
  // known, the PG peered for the current interval) runs on the messenger's io thread, without the
  // two thread hand-offs to a worker and back, while nothing else is in flight
  // (osd/shard/read_policy.h; osd_inline_read_max_size). It never waits for another OSD: a read
  // that needs one goes to a worker. 0: never; only with a messenger of one io thread, which
  // keeps the order of a connection's requests.
  std::uint64_t inline_read_max_bytes = 0;
  // Whether this OSD may act on its map now (ClusterMembership::MayServe): false after it could
  // have been marked down without knowing it (SIGSTOP past the grace), until it has booted again
  // and has that map. Object operations then fail Retryable EAGAIN (the client retries). Null:
  // always.
  std::function<bool()> may_serve;
  // Direct reads (issue 28 item 3, read_lease.h): how long a read lease lasts
  // (osd_read_lease_ms): this OSD grants the OSDs of its PGs leases of at most this, waits as
  // long for an earlier primary's after it peers a PG, and asks for leases of this length to
  // serve direct reads of its own shards. 0: none granted, asked or served (every read goes
  // through the primary; writes never wait for a lease).
  std::chrono::milliseconds read_lease{2000};
  // Degraded reads through repair chains (osd_repair_pipeline; object_io.h "Reads"): the mode and
  // the chains' options (a timeout of 0: subop_timeout). This OSD's own shard is a hop of them
  // through its ChainService (ec-osd runs one on every OSD).
  RepairPipeline repair_pipeline = RepairPipeline::kOff;
  ChainRepairOptions chain{256 * 1024, 0, std::chrono::milliseconds(0), 2};  // window: per link
  // The chains' plans, shared with the OSD's pulls and hops (borrowed, must outlive the primary;
  // null: the primary keeps its own), as PullOptions::plans.
  ChainPlans* plans = nullptr;
};

// One scrub of a PG (Ceph's osd_scrub_* meanings).
struct ScrubRun {
  cluster::ScrubKind kind = cluster::ScrubKind::kScrub;
  bool auto_repair = false;                   // osd_scrub_auto_repair: repair what a scrub finds
  std::chrono::milliseconds sleep{0};         // osd_scrub_sleep: between objects
  const std::atomic<bool>* cancel = nullptr;  // when it becomes true the scrub ends (ECANCELED)
};

class Primary : public msg::RequestHandler {
 public:
  // `map` and `metrics` are borrowed and must outlive the Primary.
  Primary(const cluster::MapHolder* map, MetricsRegistry* metrics,
          std::shared_ptr<spdlog::logger> log, PrimaryOptions options);
  ~Primary() override;
  Primary(const Primary&) = delete;
  Primary& operator=(const Primary&) = delete;

  // Object requests (ObjWrite ... ObjList, ObjSetXattrs, ObjGetXattrs), direct reads
  // (ObjDirectRead) and read leases (ReadLease); others are answered EINVAL.
  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override;

  // The health of every PG this OSD is primary of at its newest map, by pgid (pg_table.h), with
  // Ceph's "+scrubbing", "+scrubbing+deep" while a scrub runs and "+inconsistent" while the last
  // scrub left objects inconsistent.
  std::map<std::string, PgHealth> Health();
  // A counter that moves whenever a state Health() gives may have changed other than by objects'
  // counts: a map, a peering begun, finished or aborted, the PGs under recovery, a scrub begun or
  // ended, its result (pg_stats_publisher.h reports a change at once). Thread-safe, cheap.
  std::uint64_t HealthChanges() const;
  // The client reads and writes this OSD served as primary, by pool id, with their bytes and
  // summed latency, cumulative since it started (pool_io_stats.h). Thread-safe.
  std::map<std::int64_t, PoolIo> PoolIoTotals() const;

  // Scrubs PG `pgid` ("1.1f") of which this OSD is primary, object after object, each on the
  // strand of its client operations (so it never sees half a write): see primary_scrub.cc for what
  // scrub, deep-scrub and repair compare. Blocks until done (call it from a thread that may);
  // client operations keep going and go first. Returns the result to publish (its inconsistents:
  // the objects left bad; errors and repaired count everything found and fixed). Errors: EINVAL
  // for a malformed pgid, ENOENT for a pool or pg that does not exist, Retryable ESTALE when this
  // OSD is not its primary, Retryable EAGAIN when the PG is not active+clean (recovery first) or
  // changed interval during the scrub, Retryable EBUSY while it is being scrubbed, ECANCELED on
  // shutdown. Thread safety: any thread; one scrub per PG at a time.
  Result<cluster::ScrubResult> Scrub(const std::string& pgid, const ScrubRun& run);

  // The last published scrub result of a PG (from etcd, made by this or an earlier primary), so
  // that "+inconsistent" survives a change of primary until the next scrub.
  void NoteScrubResult(const cluster::ScrubResult& result);

  // New write limits and recovery throttles (PrimaryTunables says from when). Thread safety: any
  // thread, beside operations and recovery.
  void Tune(const PrimaryTunables& tunables);

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::osd::pg
