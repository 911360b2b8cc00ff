// ShardLink: how the PG primary reaches the shard of one position. For the position this OSD
// holds itself it is this OSD's ShardService (and, for a pull, its PullService), called in
// process: no message to itself. For any other it is the client of the OSD holding it. The same
// calls either way, with the OsdClient's signatures, so that object_io, peering, recovery and
// scrub never ask which.
//
// Completions: a remote call's on the client's io thread; a local call's on a ShardService or
// PullService worker. A local call ignores CallOptions (nothing to time out: the call is answered
// once its transaction is durable, or with the store's error).
//
// Ownership: the ShardService, PullService and client are borrowed or shared; a link outlives no
// one of them in ec-osd (the primary is destroyed before the services).
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <memory>
#include <vector>

#include "msg/client.h"
#include "osd/shard/shard_service.h"

namespace ec::osd::pg {

class PullService;

class ShardLink {
 public:
  // To another OSD.
  static std::shared_ptr<ShardLink> Remote(std::shared_ptr<msg::OsdClient> client);
  // To this OSD's own shards; `pulls` may be null (then SubPull fails ENOTSUP).
  static std::shared_ptr<ShardLink> Local(shard::ShardService* shards, PullService* pulls);

  void SubWriteAsync(msg::SubWriteRequest request, std::vector<Buffer> data,
                     msg::StatusCallback done, msg::CallOptions options = {});
  void SubResolveAsync(msg::SubResolveRequest request, msg::Callback<std::uint64_t> done,
                       msg::CallOptions options = {});
  void SubStateAsync(msg::SubStateRequest request, msg::Callback<msg::SubStateReply> done,
                     msg::CallOptions options = {});
  // One page of the position's shards (local: ShardService::SubScan, which raises the fence).
  void SubScanAsync(msg::SubScanRequest request, msg::Callback<msg::SubScanReply> done,
                    msg::CallOptions options = {});
  // The shard's size, version and "_meta" attributes (the object's metadata among them,
  // osd/shard/shard_meta.h); waits for it.
  Result<msg::StatResult> Stat(msg::StatRequest request, msg::CallOptions options = {});
  // One page of the position's shard names (waits for it).
  Result<msg::ListResult> List(msg::ListRequest request, msg::CallOptions options = {});
  void SubPullAsync(msg::SubPullRequest request, msg::Callback<msg::SubPullReply> done,
                    msg::CallOptions options = {});
  // The same, waiting for the reply (from a thread that may block).
  Result<msg::SubPullReply> SubPull(msg::SubPullRequest request, msg::CallOptions options = {});
  void ReadBatchAsync(msg::SubReadBatchRequest request,
                      msg::Callback<std::vector<msg::ReadBatchItem>> done,
                      msg::CallOptions options = {});

  // The client of a remote link (the repair engine's OsdShardSource reads through it); null for
  // the local one, whose reads go to ShardService::ReadNow (primary_source.h).
  msg::OsdClient* remote() const { return client_.get(); }

 private:
  ShardLink() = default;
  std::shared_ptr<msg::OsdClient> client_;
  shard::ShardService* shards_ = nullptr;
  PullService* pulls_ = nullptr;
};

}  // namespace ec::osd::pg
