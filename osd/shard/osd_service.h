// OsdService: what ec-osd does with each request. It implements the messenger's RequestHandler
// on top of one ObjectStore, running the store work on a pool of worker threads so that the
// messenger's io threads never wait for the disk.
//
//   msg::Server --Handle()--> strand(hash of collection/object/shard) --> worker thread
//                                   store.Apply / Read / Stat / List  --> Responder::Send
//
// Small reads may skip the workers (OsdServiceOptions::inline_read_max_bytes).
//
// Ordering: every request naming the same shard runs on the same strand, in arrival order, one at
// a time, so a read sent after a write of the same shard sees it, and a shard's metadata
// (version, attributes) is read-modified-written without a race. Different shards run in parallel
// (up to the number of workers), which is what lets the store group their commits.
//
// Storage layout (shard_meta.h): shard S of object O in collection C is the store object "O#S" of
// collection C. The shard's object version and its user attributes live in one store attribute,
// "_meta", so that a write updates data, version and attributes in one transaction. A collection
// is created by the first write into it, in that write's transaction: a write that fails (a bad
// offset, ENOSPC, too many attributes) leaves nothing behind, not even its collection.
//
// Files: shard_meta.* (naming, the "_meta" record), op_dispatch.* (strands, workers, in-flight
// count), read_policy.* (which reads run inline), op_accounting.* (metrics), this file (the shard
// operations).
//
// Errors travel back as the store's Status: ENOENT for a missing shard or collection, DataLoss for
// a checksum failure or a corrupt "_meta" (also counted in ecstore_osd_checksum_errors_total),
// EINVAL for a bad name or offset, E2BIG for a shard that would have more attributes than a Stat
// reply carries, ENOSPC, EIO. A WriteShard is answered only after its transaction is durable.
//
// Thread safety: Handle may be called from any thread; Drain and StatusJson too.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/metrics.h"
#include "msg/server.h"
#include "osd/shard/shard_meta.h"
#include "osd/store/object_store.h"

namespace spdlog {
class logger;
}

namespace ec::osd::shard {

struct OsdServiceOptions {
  int osd_id = 0;
  int worker_threads = 4;  // threads running store operations (1..256)
  // Threads serving other OSDs' recovery reads (SubReadBatch), apart from the workers, and their
  // nice value (0..20, common/thread_nice.h): recovery yields to client operations (op_dispatch.h).
  int recovery_threads = 2;
  int recovery_nice = 10;
  // A ReadShard of at most this many bytes that arrives while the service has nothing else in
  // flight runs on the thread calling Handle instead of on a worker (0: never), saving the
  // hand-off to a worker and back. It blocks that thread for the read, so it is skipped while
  // requests overlap (then the workers run them in parallel). Only for a caller that is the sole
  // thread calling Handle (a messenger with one io thread): then nothing else runs on the store
  // while an inline read does, which keeps the per-shard order below.
  std::uint64_t inline_read_max_bytes = 0;
  // Where object requests (ObjWrite ... ObjList: this OSD as a PG primary, osd/pg/primary.h) go;
  // borrowed, must outlive the service. Null: they are answered ENOTSUP.
  msg::RequestHandler* objects = nullptr;
  // SubPull requests (osd/pg/pull_service.h); without it they get ENOTSUP. Borrowed, must outlive
  // the service. OsdService counts them (op "sub_pull") when the handler answers, through the
  // responder it hands over: the handler must answer or drop every pull before the service is
  // destroyed.
  msg::RequestHandler* recovery = nullptr;
};

class OsdService : public msg::RequestHandler {
 public:
  // `store` and `metrics` are borrowed and must outlive the service. Starts the worker threads.
  OsdService(store::ObjectStore* store, MetricsRegistry* metrics,
             std::shared_ptr<spdlog::logger> logger, OsdServiceOptions options);
  // Drain(), then joins the workers.
  ~OsdService() override;
  OsdService(const OsdService&) = delete;
  OsdService& operator=(const OsdService&) = delete;

  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override;

  // Waits until every request handed to the service so far has been answered.
  void Drain();

  // The service part of /status: osd id, uptime, store space, operations in flight, collections.
  nlohmann::json StatusJson() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::osd::shard
