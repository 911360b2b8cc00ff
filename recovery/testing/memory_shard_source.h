// MemoryShardSource: a ShardSource over shards held in memory, for tests of the repair engine
// and of its callers. It records every request, can fail chosen shards (always, or from their
// Nth request on), can complete on another thread (as a network source does) and can announce
// limits. Test support only: never linked into a production library.
//
// Thread safety: ReadAsync may be called from several threads; the setters and accessors must
// not race with a ReadAsync in progress.
#pragma once

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "recovery/shard_source.h"

namespace ec::recovery::testing {

class MemoryShardSource final : public ShardSource {
 public:
  struct Logged {
    int shard = 0;
    std::vector<Extent> extents;
  };

  MemoryShardSource() = default;
  ~MemoryShardSource() override;

  void SetShard(int id, std::vector<std::byte> bytes) { shards_[id] = std::move(bytes); }
  void RemoveShard(int id) { shards_.erase(id); }
  // Requests to `id` fail with `status`, starting with its `after`-th request (0: every one).
  void Fail(int id, Status status, unsigned after = 0);
  // Completions run on a new thread per ReadAsync (after ReadAsync returned) instead of inline.
  void CompleteOnAnotherThread(bool on) { threaded_ = on; }
  void SetLimits(ShardSourceLimits limits) { limits_ = limits; }

  ShardSourceLimits limits() const override { return limits_; }
  void ReadAsync(std::span<const ShardReadRequest> requests, Completion done) override;

  // Every request seen, in order.
  std::vector<Logged> log() const;
  // Requests (and bytes asked) per shard.
  std::map<int, unsigned> requests_per_shard() const;
  std::map<int, std::uint64_t> bytes_per_shard() const;

 private:
  Status ReadOne(const ShardReadRequest& request);

  struct Failure {
    Status status;
    unsigned after = 0;
  };
  std::map<int, std::vector<std::byte>> shards_;
  std::map<int, Failure> failures_;
  bool threaded_ = false;
  ShardSourceLimits limits_;
  mutable std::mutex mutex_;
  std::map<int, unsigned> seen_;  // requests per shard so far
  std::vector<Logged> log_;
  std::vector<std::thread> threads_;
};

}  // namespace ec::recovery::testing
