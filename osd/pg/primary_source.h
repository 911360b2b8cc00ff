// PrimaryShardSource: the shards a PG primary reads for a client read. The shard this OSD holds
// itself is read in process from its ShardService (ReadNow: no loopback round trip, no network:
// what the cost model assumes of a local shard); every other shard goes to its OSD through
// msg::OsdShardSource. Both check the shard's object version: a reply at another version fails that
// request (ESTALE).
//
// Completions: the local request's on the calling thread, before ReadAsync returns; the others on
// the clients' io threads. Ownership: the shard service and the remote source are borrowed.
#pragma once

#include <map>
#include <string>

#include "osd/pg/osd_shard_source.h"
#include "osd/shard/shard_service.h"
#include "recovery/shard_source.h"

namespace ec::osd::pg {

class PrimaryShardSource final : public recovery::ShardSource {
 public:
  // `shards` null or `local_shard` < 0: everything goes to `remote`.
  PrimaryShardSource(msg::OsdShardSource* remote, shard::ShardService* shards,
                     std::string collection, std::string object, int local_shard,
                     std::uint64_t version)
      : remote_(remote),
        shards_(shards),
        collection_(std::move(collection)),
        object_(std::move(object)),
        local_shard_(local_shard),
        version_(version) {}

  // The bytes each shard must hold (as msg::OsdShardSource::Options::shard_sizes, which the
  // remote source is given by the caller): the local shard of another length fails its request
  // with msg::WrongShardLength.
  void ExpectSizes(std::map<int, std::uint64_t> sizes) { sizes_ = std::move(sizes); }
  // Shard id -> the version that shard must be at instead of `version` (as
  // msg::OsdShardSource::Options::expect_versions).
  void ExpectVersions(std::map<int, std::uint64_t> versions) { versions_ = std::move(versions); }

  recovery::ShardSourceLimits limits() const override { return remote_->limits(); }
  void ReadAsync(std::span<const recovery::ShardReadRequest> requests, Completion done) override;

 private:
  Status ReadLocal(const recovery::ShardReadRequest& r);

  msg::OsdShardSource* remote_;
  shard::ShardService* shards_;
  std::string collection_;
  std::string object_;
  int local_shard_;
  std::uint64_t version_;
  std::map<int, std::uint64_t> sizes_;
  std::map<int, std::uint64_t> versions_;
};

}  // namespace ec::osd::pg
