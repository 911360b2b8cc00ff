// OsdService: what ec-osd does with each request from the network. It implements the messenger's
// RequestHandler: the shard operations go to this OSD's ShardService (shard_service.h: strands,
// workers, the interval fence, the store), object operations to the PG primary
// (OsdServiceOptions::objects), SubPull to the pull service (OsdServiceOptions::recovery),
// SubRepairChain to the chain service (OsdServiceOptions::chain), and it
// answers Ping itself.
//
//   msg::Server --Handle--> OsdService --typed call--> ShardService --done--> Responder::Send
//
// It accounts every request it answers in the per-operation metrics (op_accounting.h:
// ecstore_osd_ops_total and the rest); in-process calls of the ShardService are counted apart
// (ecstore_osd_local_subops_total). A PG sub-operation from this OSD itself (a Hello named
// "osd.<osd_id>") is counted in ecstore_osd_self_messages_total: the primary reaches its own
// shard in process, so that counter stays 0 (tests check it).
//
// Small reads may run on the calling thread (ShardServiceOptions::inline_read_max_bytes) when
// OsdServiceOptions::single_io_thread says the messenger has one io thread.
//
// Errors travel back as the ShardService's Status in the reply of the request's type.
//
// Thread safety: Handle may be called from any thread.
#pragma once

#include <memory>

#include "common/metrics.h"
#include "msg/server.h"
#include "osd/shard/shard_service.h"

namespace spdlog {
class logger;
}

namespace ec::osd::shard {

struct OsdServiceOptions {
  int osd_id = 0;
  // Handle is called from one thread only (a messenger with one io thread): small reads may run
  // inline on it (shard_service.h InlineHint).
  bool single_io_thread = false;
  // Where object requests (ObjWrite ... ObjGetXattrs: this OSD as a PG primary, osd/pg/primary.h),
  // direct reads of this OSD's shards and other OSDs' read-lease requests go;
  // borrowed, must outlive the service. Null: they are answered ENOTSUP.
  msg::RequestHandler* objects = nullptr;
  // SubPull requests (osd/pg/pull_service.h); without it they get ENOTSUP. Borrowed, must outlive
  // the service. OsdService counts them (op "sub_pull") when the handler answers, through the
  // responder it hands over: the handler must answer or drop every pull before the service is
  // destroyed.
  msg::RequestHandler* recovery = nullptr;
  // SubRepairChain requests (a hop of a pipelined repair, osd/pg/repair_chain.h); without it they
  // get ENOTSUP. Fenced here like SubPull (a chain from an older interval is refused ESTALE),
  // counted as op "sub_repair_chain"; the same lifetime rules as `recovery`.
  msg::RequestHandler* chain = nullptr;
};

class OsdService : public msg::RequestHandler {
 public:
  // `shards` and `metrics` are borrowed and must outlive the service and the requests it handed to
  // `shards` (destroying the ShardService completes them).
  OsdService(ShardService* shards, MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> logger,
             OsdServiceOptions options);
  ~OsdService() override;
  OsdService(const OsdService&) = delete;
  OsdService& operator=(const OsdService&) = delete;

  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override;

  // PG sub-operations received from this OSD itself (see above).
  std::uint64_t self_messages() const;

 private:
  struct Impl;
  // Shared with the completions of the requests in flight, which may end after the service.
  std::shared_ptr<Impl> impl_;
};

}  // namespace ec::osd::shard
