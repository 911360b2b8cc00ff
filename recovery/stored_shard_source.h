// StoredShardSource: shards kept without their zero tail (StripeLayout Padding::kNone, Ceph's Fast
// EC) read as whole padded shards. The repair engine and ReadObjectRange address padded shards
// (stripes * C bytes); a stored shard ends earlier, and its missing bytes are known zeros. This
// source cuts every request at the shard's stored length, sends only the stored part to `inner`,
// and fills the rest of the destination with zeros itself: the absent bytes are never read and
// never sent. A request that lies wholly past the stored length sends nothing and completes OK at
// once, on the calling thread.
//
// What it does not do: check that the shard really holds `stored` bytes; the inner source does
// that (a reply of another length is an error there, e.g. msg::OsdShardSource's shard sizes).
//
// Ownership: `inner` is borrowed and must outlive the source and every read in flight. Thread
// safety: immutable after construction; ReadAsync may be called from several threads at once.
// Completions: the inner source's, on its threads, or the calling thread's for requests that send
// nothing.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "recovery/shard_source.h"

namespace ec::recovery {

// StoredParts (read_plan.h) of a request's extents is exactly what StoredShardSource asks its
// inner source for: callers that fetch those bytes ahead (the pull's prefetch) ask for the same.

class StoredShardSource final : public ShardSource {
 public:
  // `stored`: chunk id -> the bytes its shard stores. A shard not in the map is read as is.
  StoredShardSource(ShardSource* inner, std::map<int, std::uint64_t> stored)
      : inner_(inner), stored_(std::move(stored)) {}

  ShardSourceLimits limits() const override { return inner_->limits(); }
  void ReadAsync(std::span<const ShardReadRequest> requests, Completion done) override;

 private:
  ShardSource* inner_;
  std::map<int, std::uint64_t> stored_;
};

}  // namespace ec::recovery
