// ShardService: this OSD's shards as a typed, in-process API, the one way anything touches them.
// The messenger's requests come in through OsdService (osd_service.h), which calls it; the PG
// primary calls it directly for the position it holds itself (no message to itself); the pull
// service writes the shards it rebuilds through it.
//
//   OsdService (network)    --+
//   PG primary (own shard)  --+--> ShardService --strand(shard)--> worker --> sub_ops, store
//   PullService (rebuilt)   --+                 --background-->  other OSDs' recovery reads
//
// Ordering: every asynchronous operation naming the same shard (collection, object, position)
// runs on the same strand, in call order, one at a time: a read called after a write of the same
// shard sees it, and a shard's metadata (version, attributes) is read-modified-written without a
// race; so a client write's SubWrite and a pull's SubWrite of one shard never interleave, and the
// second fails the prev_version check (ESTALE) instead of mixing. Different shards run in
// parallel, up to the number of workers, which is what lets the store group their commits.
//
// Fencing: SubWrite and SubResolve sent at a map epoch older than the newest SubScan of their
// collection are refused (Retryable ESTALE; interval_fence.h), whoever calls. SubScan raises the
// fence before it reads. Admit() is the same check for work that ends in a SubWrite (SubPull).
//
// Storage layout (shard_meta.h, sub_ops.h): shard S of object O in collection C is the store
// object "O#S" of C, its version and user attributes in one "_meta" attribute. A collection is
// created by the first write into it, in that write's transaction: a write that fails leaves
// nothing behind, not even its collection.
//
// Where a small write runs (InlineHint, inline_write_max_bytes): alone in the service, on the
// calling thread, which waits for the device (no hand-off); with other operations in flight but
// none on its shard, started on the calling thread and completed by the store when its commit
// group is durable (ObjectStore::ApplyAsync), its shard held meanwhile; otherwise on a worker.
//
// Completions: `done` is called exactly once, on a worker thread of the service, on the store's
// commit thread (a write started on the calling thread), or on the calling thread before the call
// returns (an inline read or write), and must not block for long: it holds a worker or delays
// the other completions of a commit group. Errors come back as the store's Status: ENOENT for a
// missing shard or collection, DataLoss for a checksum failure or a corrupt "_meta", EINVAL for a
// bad name or offset, E2BIG for a shard that would have more attributes than a Stat reply carries,
// ENOSPC, EIO; a write completes only once its transaction is durable.
//
// In-process calls (Caller::kLocal) are counted in ecstore_osd_local_subops_total{op}; the
// network's (Caller::kNetwork, from OsdService) by OsdService in ecstore_osd_ops_total.
//
// Thread safety: every method may be called from any thread, concurrently, until the destructor
// begins (it completes what was handed over, then stops the workers: no call may follow).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/metrics.h"
#include "common/status.h"
#include "ec/buffer.h"
#include "msg/client.h"
#include "msg/messages.h"
#include "osd/shard/interval_fence.h"
#include "osd/shard/op_accounting.h"
#include "osd/store/object_store.h"

namespace spdlog {
class logger;
}

namespace ec::osd::shard {

struct ShardServiceOptions {
  int osd_id = 0;
  int worker_threads = 4;  // threads running store operations (1..256)
  // Threads serving other OSDs' recovery reads (ReadBatch), apart from the workers, and their
  // nice value (0..20, common/thread_nice.h): recovery yields to client operations.
  int recovery_threads = 2;
  int recovery_nice = 10;
  // A Read of at most this many bytes that arrives while the service has nothing else in flight
  // may run on the calling thread (ReadHint), saving the hand-off to a worker and back (0: never).
  std::uint64_t inline_read_max_bytes = 0;
  // A SubWrite of at most this many bytes that arrives while the service has nothing else in
  // flight may run on the calling thread (InlineHint): the messenger's io thread or the PG worker
  // of the primary's own shard waits for the device itself instead of handing the write to a
  // worker and being woken for the reply (0: never).
  std::uint64_t inline_write_max_bytes = 0;
};

// One shard read: the bytes of each extent asked (shorter, or empty, past the shard's end), the
// shard's size in the store, its version ("_meta"; 0 for a shard without one) and the object's
// size it recorded (0 without).
struct ShardRead {
  std::uint64_t size = 0;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  std::vector<Buffer> extents;
};

// How a Read or SubWrite may run. `may_inline`: the caller's thread may run it (for a Read: the
// caller is the only thread handing reads over, a messenger with one io thread, whose read must
// not wait for anything; for a SubWrite: the caller may block for the device); the per-shard
// order holds either way (op_dispatch.h). `more_queued`: the caller has more requests waiting
// (then the operation goes to a worker, so that they run in parallel).
struct InlineHint {
  bool may_inline = false;
  bool more_queued = false;
};

// Who calls: the network (OsdService, which accounts its requests itself) or a caller in this
// process (the PG primary for its own shard, the pull service), counted in
// ecstore_osd_local_subops_total{op}.
enum class Caller { kLocal, kNetwork };

class ShardService {
 public:
  using StatusDone = std::function<void(Status)>;
  template <typename T>
  using Done = std::function<void(Result<T>)>;

  // `store` and `metrics` are borrowed and must outlive the service. Starts the worker threads.
  ShardService(store::ObjectStore* store, MetricsRegistry* metrics,
               std::shared_ptr<spdlog::logger> logger, ShardServiceOptions options);
  // Drain(), then joins the workers.
  ~ShardService();
  ShardService(const ShardService&) = delete;
  ShardService& operator=(const ShardService&) = delete;

  // --- The PG sub-operations (sub_ops.h has their exact semantics). ---
  // Applies the shard's part of an object write (with its undo record) from `data`. Refused by
  // the fence (ESTALE) when sent at an older epoch than the PG's last scan.
  // With `hint` (and inline_write_max_bytes), a small write may run on the calling thread, `done`
  // called before the call returns.
  void SubWrite(msg::SubWriteRequest request, Buffer data, StatusDone done,
                Caller caller = Caller::kLocal, InlineHint hint = {});
  // Rolls a version back or trims its undo record; the shard's version afterwards. Fenced.
  void SubResolve(msg::SubResolveRequest request, Done<std::uint64_t> done,
                  Caller caller = Caller::kLocal);
  // What the shard is: present at a version, removed, or absent.
  void SubState(msg::SubStateRequest request, Done<msg::SubStateReply> done,
                Caller caller = Caller::kLocal);
  // One page of a collection's shards at one position. Raises the collection's fence to
  // request.epoch first (older sub-operations finish, later ones from older epochs are refused).
  // Runs on the collection's strand, not on each object's (see sub_ops.h ScanShards).
  void SubScan(msg::SubScanRequest request, Done<msg::SubScanReply> done,
               Caller caller = Caller::kLocal);
  // Many shards' extents, each item answered on its own (ESTALE at another version than the
  // item's expect_version when that is not 0). On the background threads, behind client
  // operations, in no order with them (a read needs none: the store never shows half a
  // transaction).
  void ReadBatch(msg::SubReadBatchRequest request, Done<std::vector<msg::ReadBatchItem>> done,
                 Caller caller = Caller::kLocal);

  // --- Whole-shard operations of the protocol (ec-osd-client, tests, benchmarks). ---
  // WriteShard: data at offset (or the whole shard with kWriteReplace), attributes merged. May
  // run inline as SubWrite may.
  void Write(msg::WriteShardRequest request, Buffer data, StatusDone done,
             Caller caller = Caller::kLocal, InlineHint hint = {});
  void Read(msg::ReadShardRequest request, InlineHint hint, Done<ShardRead> done,
            Caller caller = Caller::kLocal);
  void Stat(msg::StatRequest request, Done<msg::StatReply> done, Caller caller = Caller::kLocal);
  void List(msg::ListRequest request, Done<msg::ListReply> done, Caller caller = Caller::kLocal);
  void Remove(msg::RemoveRequest request, StatusDone done, Caller caller = Caller::kLocal);

  // --- Synchronous reads on the calling thread (no strand, no hand-off): for a caller that
  // orders its own operations on the object (the PG primary, which serialises each object's
  // operations, and the pull service before its fenced write). The store never shows half a
  // transaction, so each answer is one consistent state of the shard. ---
  Result<ShardRead> ReadNow(const std::string& collection, const std::string& object,
                            std::uint32_t shard, std::span<const store::Extent> extents);
  Result<msg::SubStateReply> StateNow(const msg::SubStateRequest& request);

  // The epoch of the newest peering scan of `collection` (interval_fence.h; 0: none since this
  // process started).
  std::uint64_t FenceOf(const std::string& collection) const;

  // Admits work of `collection` sent at `epoch` that will end in a fenced write (a SubPull): a
  // refusal (Retryable ESTALE) is counted in ecstore_osd_fenced_subops_total and logged.
  Status Admit(const std::string& collection, std::uint64_t epoch, const char* what);

  // Waits until every operation handed to the service so far has completed.
  void Drain();

  // The shard part of /status: osd id, uptime, store space, operations in flight, collections.
  nlohmann::json StatusJson() const;

  // The per-operation metrics of the network's requests (OsdService accounts them here).
  OpAccounting& accounting();
  // In-process calls so far (ecstore_osd_local_subops_total summed over ops).
  std::uint64_t local_calls() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::osd::shard
