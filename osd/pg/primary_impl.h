// Primary::Impl, shared by the two files that implement it: primary.cc (object operations, the
// PG's map, peering on demand) and primary_recovery.cc (the background recovery loop). Private to
// osd/pg: include only from those two files. See primary.h for the contract.
#pragma once

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "msg/peer_clients.h"
#include "osd/pg/object_io.h"
#include "osd/pg/peering.h"
#include "osd/pg/pg_table.h"
#include "osd/pg/primary.h"
#include "osd/pg/read_lease.h"
#include "osd/shard/op_dispatch.h"

namespace ec::osd::pg {

using Clock = std::chrono::steady_clock;

// The strand key of an object's operations.
inline std::string CacheKey(std::uint64_t pool, const std::string& object) {
  return std::to_string(pool) + "/" + object;
}

class Primary::Impl {
 public:
  Impl(const cluster::MapHolder* map, MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> log,
       PrimaryOptions options)
      : map_(map),
        metrics_(metrics),
        log_(log ? std::move(log) : spdlog::default_logger()),
        options_(std::move(options)),
        recovery_(options_.tunables.recovery),
        min_size_wait_ms_(options_.tunables.min_size_wait.count()),
        max_object_size_(options_.tunables.max_object_size),
        codecs_(options_.plugin_dir),
        // One io thread for every peer: a write's sub-operations to k+m-1 OSDs and their
        // replies wake it once or twice, not once per OSD.
        peers_(msg::PeerOptions{fmt::format("osd.{}", options_.osd_id),
                                std::chrono::milliseconds(3000), options_.subop_timeout, 2, 1,
                                msg::TrafficClass::kClient, 0, true, options_.auth}),
        local_(options_.shards != nullptr ? ShardLink::Local(options_.shards, options_.pulls)
                                          : nullptr),
        chain_reads_{options_.repair_pipeline,
                     options_.chain,
                     options_.plans != nullptr ? options_.plans : &own_chain_plans_,
                     metrics_,
                     map,
                     options_.osd_id},
        granter_(options_.read_lease),
        dispatcher_(options_.threads, options_.inline_read_max_bytes, nullptr, nullptr, 1, 0,
                    "pg-worker") {}

  ~Impl() {
    {
      std::lock_guard lock(rec_mu_);
      stop_ = true;
    }
    rec_cv_.notify_all();
    if (recovery_thread_.joinable()) recovery_thread_.join();
    {
      std::lock_guard lock(lease_mu_);
      lease_stop_ = true;
    }
    lease_cv_.notify_all();
    if (lease_thread_.joinable()) lease_thread_.join();
    // The reads still waiting for a lease run now (refused if it never came), on the dispatcher.
    (void)ReleaseExpiredDirectReads(true);
    dispatcher_.Join();
    peers_.CloseAll();
  }

  void StartRecovery();
  // Starts the thread asking for the read leases of the PGs with direct reads (direct_read.cc).
  void StartLeases();

  // Primary::Tune; what it changes is read through these, never from options_.tunables.
  void Tune(const PrimaryTunables& t) {
    {
      std::lock_guard lock(tune_mu_);
      recovery_ = t.recovery;
    }
    min_size_wait_ms_.store(t.min_size_wait.count(), std::memory_order_relaxed);
    max_object_size_.store(t.max_object_size, std::memory_order_relaxed);
  }
  RecoveryOptions Recovery() const {
    std::lock_guard lock(tune_mu_);
    return recovery_;
  }
  std::chrono::milliseconds MinSizeWait() const {
    return std::chrono::milliseconds(min_size_wait_ms_.load(std::memory_order_relaxed));
  }
  std::uint64_t MaxObjectSize() const { return max_object_size_.load(std::memory_order_relaxed); }

  // --- Scrub and repair (primary_scrub.cc) ---
  Result<cluster::ScrubResult> Scrub(const std::string& pgid, const ScrubRun& run);
  void NoteScrubResult(const cluster::ScrubResult& result);

  std::map<std::string, PgHealth> Health();
  std::uint64_t HealthChanges() const;
  std::map<std::int64_t, PoolIo> PoolIoTotals() const { return io_stats_.Snapshot(); }

  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder);

 private:
  static std::size_t KeyOf(const msg::RequestBody& body) {
    return std::visit(
        [](const auto& b) -> std::size_t {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, msg::ObjWriteRequest> ||
                        std::is_same_v<T, msg::ObjReadRequest> ||
                        std::is_same_v<T, msg::ObjStatRequest> ||
                        std::is_same_v<T, msg::ObjRemoveRequest> ||
                        std::is_same_v<T, msg::ObjSetXattrsRequest> ||
                        std::is_same_v<T, msg::ObjGetXattrsRequest> ||
                        std::is_same_v<T, msg::ObjDirectReadRequest>) {
            return std::hash<std::string>()(CacheKey(b.pool, b.object));
          } else if constexpr (std::is_same_v<T, msg::ObjListRequest>) {
            return std::hash<std::string>()(std::to_string(b.pool) + "#" + std::to_string(b.pg));
          } else {
            return 0;
          }
        },
        body);
  }

  // The map to serve a request of a client at `epoch` with, and the locator for it.
  Result<std::shared_ptr<const cluster::ObjectLocator>> Locator(std::uint64_t client_epoch);

  // The PG's location when this OSD is its primary; Retryable ESTALE otherwise.
  Result<cluster::PgLocation> CheckPrimary(const cluster::ObjectLocator& locator,
                                           std::uint64_t pool, const std::string* object,
                                           std::uint32_t pg);

  // Clients of the up positions of `loc` in `map`.
  Result<std::map<int, std::shared_ptr<ShardLink>>> Clients(const cluster::ClusterMap& map,
                                                            const cluster::PgLocation& loc);

  std::uint64_t NextVersion(std::int64_t epoch) {
    return (static_cast<std::uint64_t>(epoch) << 32) | (++sequence_ & 0xffffffffu);
  }

  // Peers the PG of `io` for its current interval unless it is (pg_table.h); other operations on
  // the PG wait meanwhile.
  Status EnsurePeered(const cluster::ObjectLocator& locator, const ObjectIo& io);

  // Every up OSD outside the PG's acting set, for every position: peering scans them for shards
  // of positions that moved (see primary.cc).
  PriorClients Priors(const cluster::ObjectLocator& locator, const cluster::PgLocation& loc);

  // Everything an object operation needs, ready: location, codec, clients, state.
  struct Prepared {
    std::shared_ptr<const cluster::ObjectLocator> locator;
    cluster::PgLocation loc;
    std::shared_ptr<const PoolCodec> codec;
    ObjectIo io;
    ObjectState state;
    std::string key;
    std::string pool_name;
    // Positions a failed write of this operation left suspect (ObjectState::suspect), for Forget.
    std::set<int> suspect;
    // The latest time this operation may begin to write (its request's start_within_ms after it
    // arrived; max: no limit). VersionedWrite and Remove check it before sending anything.
    Clock::time_point start_by = Clock::time_point::max();
  };

  // Fills in the PG-wide parts of `p` that need no other OSD (codec, own position, epoch,
  // timeouts, store, cost weights) from p.locator and p.loc.
  Status FillLocal(Prepared& p);
  // FillLocal, and the clients of the PG's up positions and of every other up OSD.
  Status FillPg(Prepared& p);

  Result<Prepared> Prepare(std::uint64_t pool, std::uint64_t epoch, const std::string& object,
                           bool write);

  // Prepare into `out` (fixed, Fix) and the operation counted as `op` (CountOp): how an object
  // operation that answers with a reply begins. Errors: Prepare's.
  Status Open(Prepared& out, std::uint64_t pool, std::uint64_t epoch, const std::string& object,
              bool write, const char* op);
  // The start_by of a request that arrived at `received` with `start_within_ms`.
  static Clock::time_point StartBy(Clock::time_point received, std::uint32_t start_within_ms) {
    return start_within_ms == 0 ? Clock::time_point::max()
                                : received + std::chrono::milliseconds(start_within_ms);
  }
  // ECANCELED (retryable) when `p` may no longer begin to write (Prepared::start_by passed),
  // counted; OK otherwise.
  Status CheckStartBy(const Prepared& p);

  // The form the object of `p` is to have after a write of `plan` (`whole`: write_full or
  // truncate): write_plan.h FormAfter with its pool's ec_min_object_size (issue 30 item 2).
  msg::ObjectForm FormOfWrite(const Prepared& p, bool whole, const WritePlan& plan);

  // The Prepared's ObjectIo points into the Prepared itself: fix it after a move.
  static void Fix(Prepared& p) { p.io.loc = &p.loc; }

  void Remember(const Prepared& p, const ObjectState& st) {
    table_.Update(p.loc, p.io.object, st);
    table_.SetSuspect(p.loc, p.io.object, st.suspect);
  }
  void Forget(const Prepared& p) { table_.Forget(p.loc.pgid, p.io.object, p.suspect); }

  void CountOp(const std::string& pool, const char* op);

  void Run(const msg::Request& req, msg::Responder& responder, Clock::time_point received);

  msg::ObjWriteReply Write(const msg::ObjWriteRequest& r, const Buffer& data,
                           Clock::time_point received);

  void Read(const msg::ObjReadRequest& r, msg::Responder& responder, Clock::time_point received);
  // A read that this OSD's own shard serves whole, answered now on the calling thread (the io
  // thread); false, having sent nothing, when anything else is needed (Read does it).
  bool TryLocalRead(const msg::ObjReadRequest& r, msg::Responder& responder,
                    Clock::time_point received);
  // Counts a read's degraded bytes and its latency since `received`, starts the repair of corrupt
  // shards, and sends the reply.
  void SendRead(const Prepared& p, const std::string& object, ReadOutcome got,
                msg::Responder& responder, Clock::time_point received);

  msg::ObjStatReply Stat(const msg::ObjStatRequest& r);

  msg::ObjRemoveReply Remove(const msg::ObjRemoveRequest& r, Clock::time_point received);

  msg::ObjListReply List(const msg::ObjListRequest& r);

  // A write of `p`'s object: a version for it (above the object's; Retryable ESTALE when the
  // object is newer than this OSD's map), `apply` with it, the table told the outcome and the
  // write settled for the read leases (SettleWrite).
  Result<ObjectState> VersionedWrite(
      Prepared& p, const std::function<Result<ObjectState>(std::uint64_t)>& apply);

  // --- Object metadata (primary_meta.cc, issue 29; object_io.h "Metadata") ---
  // ObjSetXattrs: setxattr, rmxattr and touch.
  msg::ObjSetXattrsReply SetXattrs(const msg::ObjSetXattrsRequest& r, Clock::time_point received);
  msg::ObjGetXattrsReply GetXattrs(const msg::ObjGetXattrsRequest& r);
  // ObjWrite kTruncate: the object cut, or grown with zeros, by a whole rewrite (the bytes it
  // keeps read first); to its own size, its mtime alone.
  msg::ObjWriteReply Truncate(const msg::ObjWriteRequest& r, Clock::time_point received);
  // The object's metadata: the table's, else read from a shard at its version and noted in the
  // table. An error forgets the object's state (the next operation asks its shards).
  Result<ObjectMeta> MetaOf(Prepared& p);
  // A read of an object's metadata (ObjStat, ObjGetXattrs, counted as `op`): its state and
  // metadata. Errors: Prepare's, ENOENT for an absent object, MetaOf's.
  struct Described {
    ObjectState state;
    ObjectMeta meta;
  };
  Result<Described> Describe(std::uint64_t pool, std::uint64_t epoch, const std::string& object,
                             const char* op);
  // The wall clock in microseconds since the Unix epoch: the mtime of every write.
  static std::uint64_t NowMicros();

  // --- Direct reads and read leases (direct_read.cc, read_lease.h) ---
  // A client's direct read of this OSD's shard: the bytes, or a refusal (Retryable EAGAIN) the
  // client answers by reading through the primary. Cheap and local; never blocks its thread on
  // the network. `may_wait`: a read that finds no lease held for its PG is parked until the lease
  // it asks for is answered (ParkDirectRead) instead of being refused at once.
  void DirectRead(const msg::ObjDirectReadRequest& r,
                  const std::shared_ptr<msg::Responder>& responder, bool may_wait);
  // A direct read waiting for its PG's lease: DirectRead runs it again (without waiting) when the
  // lease's answer comes (ReleaseDirectReads), or at its deadline (ReleaseExpiredDirectReads).
  // False when too many wait already (it is refused then).
  bool ParkDirectRead(const std::string& pgid, const msg::ObjDirectReadRequest& r,
                      const std::shared_ptr<msg::Responder>& responder);
  void ReleaseDirectReads(const std::string& pgid);
  // Those past their deadline; every one when `all`. True when some still wait.
  bool ReleaseExpiredDirectReads(bool all);
  // As primary: the leases another OSD asks for.
  msg::ReadLeaseReply GrantLeases(const msg::ReadLeaseRequest& r);
  // The lease thread: renews the leases of the PGs with direct reads, from their primaries.
  void LeaseLoop();
  void RenewLeases();
  // A write or remove of version `version` in `p`'s PG ended with `next` (its state; an error:
  // unsettled): settles it for the leases, and waits out every lease granted to the OSD of an up
  // position that did not take it (read_lease.h point 1) before the caller acknowledges.
  void SettleWrite(const Prepared& p, std::uint64_t version, const Result<ObjectState>& next);

  // --- Background peering and recovery (issue 15 items 1-4) ---

  void RecoveryLoop();

  bool Stopping();

  // One round: every PG this OSD is primary of is peered; up to max_backfills PGs with missing
  // shards get one batch of pulls each (all sent at once), none when `peer_only`. Returns whether
  // any work was done; *rebuilt and *network get the shard bytes written and the bytes received
  // from helpers.
  bool RecoverRound(std::uint64_t* rebuilt, std::uint64_t* network, bool peer_only = false);
  // How often the recovery loop looks for a new map while it waits between rounds.
  static constexpr std::chrono::milliseconds kMapPoll{100};

  bool HasRecoveryWork(const Prepared& p);

  // Objects of the PG whose last recovery failed, not to be tried again yet.
  std::set<std::string> Backoff(const std::string& pgid);
  void BackOff(const std::string& pgid, const std::string& object);

  // One batch of the PG's recovery: unknown objects are settled; removed objects' stale shards
  // are removed by the primary (nothing to pull); every other missing shard is pulled by its
  // OSD, max_active objects per position, in one SubPull per position and helper set. Returns
  // the bytes rebuilt and received from helpers.
  struct PgRecovered {
    std::uint64_t rebuilt_bytes = 0;
    std::uint64_t network_bytes = 0;
  };
  PgRecovered RecoverPg(Prepared& p);

  // One object's scrub: what was wrong (nullopt: nothing) and which positions a repair rewrites
  // (position -> the version it is at: the object's for kRepair, older or 0 for kRebuild).
  struct ObjectScrub {
    bool scrubbed = false;  // the object existed when its turn came
    ObjectState state;
    std::map<int, cluster::ShardScrubError> shards;  // every position that answered
    std::vector<std::string> object_errors;
    std::map<int, Buffer> bytes;  // deep: the shards read whole with good checksums and sizes
    std::optional<cluster::InconsistentObject> found;
    std::map<int, std::uint64_t> bad;
    bool unlocated = false;  // the shards disagree and the code cannot tell which is wrong
    int repaired = 0;
  };
  // On the object's strand: its shards' states and (deep) bytes, and what they show alone.
  ObjectScrub ReadForScrub(const Prepared& pg, const std::string& name, bool deep);
  // On the object's strand: the metadata of the shards of `positions` against one another
  // (primary_scrub.cc).
  void CheckScrubMeta(const ObjectIo& io, const std::vector<int>& positions, ObjectScrub& out);
  // Anywhere (CPU only): the deep check of the bytes against the code, and `found`.
  void CheckScrubbed(const Prepared& pg, const std::string& name, ObjectScrub& o);
  int RepairObject(const Prepared& pg, const std::string& name,
                   const std::map<int, std::uint64_t>& bad, const char* why);
  static std::vector<int> KeysOf(const std::map<int, std::uint64_t>& m);
  // Runs fn on the strand of (pool, object), after the operations queued there, and waits for
  // it: whatever reads or changes an object's shards outside a client operation (scrub, recovery's
  // resolves and removals) goes there, so that it never interleaves with a write in flight (a
  // resolve meeting a half-applied write would roll it back, and the write still be
  // acknowledged). Not from a strand's own worker (it would wait for itself).
  template <typename Fn>
  auto OnStrand(std::uint64_t pool, const std::string& object, Fn fn) -> decltype(fn()) {
    using T = decltype(fn());
    auto task = std::make_shared<std::packaged_task<T()>>(std::move(fn));
    auto done = task->get_future();
    dispatcher_.Post(std::hash<std::string>()(CacheKey(pool, object)), [task] { (*task)(); });
    return done.get();
  }
  void HealAfterRead(std::uint64_t pool, const std::string& pool_name, const std::string& object,
                     std::vector<int> corrupt);

  const cluster::MapHolder* map_;
  MetricsRegistry* metrics_;
  std::shared_ptr<spdlog::logger> log_;
  PrimaryOptions options_;
  mutable std::mutex tune_mu_;
  RecoveryOptions recovery_;  // under tune_mu_
  std::atomic<std::int64_t> min_size_wait_ms_;
  std::atomic<std::uint64_t> max_object_size_;
  PoolCodecs codecs_;
  msg::PeerClients peers_;
  // This OSD's own shards, in process (null without PrimaryOptions::shards).
  std::shared_ptr<ShardLink> local_;
  std::atomic<std::uint64_t> sequence_{0};
  std::mutex locator_mu_;
  std::shared_ptr<const cluster::ObjectLocator> locator_;
  PgTable table_;
  ChainPlans own_chain_plans_;  // degraded reads' chain plans when options_.plans is null
  ChainReads chain_reads_;      // what FillLocal gives ObjectIo::chain when chains are on
  std::mutex rec_mu_;
  std::condition_variable rec_cv_;
  bool stop_ = false;
  // The PGs whose recovery this primary runs: the last round's (kept between rounds, Ceph's
  // "recovering" while the PG holds its reservation), emptied when a round finds no work.
  std::set<std::string> recovering_;
  // (pgid, object) whose recovery failed -> when to try again
  std::map<std::pair<std::string, std::string>, Clock::time_point> retry_after_;
  std::thread recovery_thread_;
  std::mutex scrub_mu_;
  std::map<std::string, bool> scrubbing_;            // pgid -> deep, while it is scrubbed
  std::map<std::string, std::size_t> inconsistent_;  // pgid -> objects its last scrub left bad
  // Moves when recovering_, scrubbing_ or inconsistent_ change (HealthChanges, with the table's).
  std::atomic<std::uint64_t> health_changes_{0};
  std::atomic<int> client_ops_{0};    // client operations in flight
  PoolIoStats io_stats_;              // client reads and writes served, by pool
  LeaseGranter granter_;              // as primary: versions, writes in flight, leases granted
  LeaseHolder held_;                  // as a shard's OSD: leases held, PGs with direct reads
  Counter* direct_served_ = nullptr;  // ecstore_osd_direct_reads_total{result="served"}
  std::mutex lease_mu_;
  std::condition_variable lease_cv_;
  bool lease_stop_ = false;
  bool lease_now_ = false;  // a PG newly wanted: renew at once
  std::thread lease_thread_;
  struct ParkedRead {
    msg::ObjDirectReadRequest request;
    std::shared_ptr<msg::Responder> responder;
    LeaseClock::time_point deadline;
  };
  std::mutex parked_mu_;
  std::map<std::string, std::vector<ParkedRead>> parked_;  // pgid -> reads waiting for its lease
  std::size_t parked_count_ = 0;
  shard::OpDispatcher dispatcher_;  // last: joined first, while everything it uses is alive
};

}  // namespace ec::osd::pg
