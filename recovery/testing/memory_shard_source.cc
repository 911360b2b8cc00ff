#include "recovery/testing/memory_shard_source.h"

#include <cstring>
#include <string>

namespace ec::recovery::testing {

MemoryShardSource::~MemoryShardSource() {
  for (std::thread& t : threads_) t.join();
}

void MemoryShardSource::Fail(int id, Status status, unsigned after) {
  failures_[id] = {std::move(status), after};
}

Status MemoryShardSource::ReadOne(const ShardReadRequest& request) {
  unsigned nth = 0;
  {
    std::lock_guard lock(mutex_);
    nth = seen_[request.shard]++;
    log_.push_back({request.shard, request.extents});
  }
  auto failure = failures_.find(request.shard);
  if (failure != failures_.end() && nth >= failure->second.after) return failure->second.status;
  auto shard = shards_.find(request.shard);
  if (shard == shards_.end()) {
    return Status::NotFound("shard " + std::to_string(request.shard) + " does not exist");
  }
  std::uint64_t total = 0;
  for (const Extent& e : request.extents) total += e.length;
  if (total != request.destination.size()) {
    return Status::Invalid("destination of " + std::to_string(request.destination.size()) +
                           " bytes for " + std::to_string(total) + " bytes of extents");
  }
  std::byte* dest = request.destination.data();
  for (const Extent& e : request.extents) {
    if (e.offset > shard->second.size() || e.length > shard->second.size() - e.offset) {
      return Status::Error(ENODATA, "shard " + std::to_string(request.shard) +
                                        " ends before byte " + std::to_string(e.offset + e.length));
    }
    std::memcpy(dest, shard->second.data() + e.offset, e.length);
    dest += e.length;
  }
  return Status::OK();
}

void MemoryShardSource::ReadAsync(std::span<const ShardReadRequest> requests, Completion done) {
  if (!threaded_) {
    for (std::size_t i = 0; i < requests.size(); ++i) done(i, ReadOne(requests[i]));
    return;
  }
  std::lock_guard lock(mutex_);
  threads_.emplace_back([this, requests, done = std::move(done)] {
    // Last request first, to prove the engine does not rely on completion order.
    for (std::size_t i = requests.size(); i-- > 0;) done(i, ReadOne(requests[i]));
  });
}

std::vector<MemoryShardSource::Logged> MemoryShardSource::log() const {
  std::lock_guard lock(mutex_);
  return log_;
}

std::map<int, unsigned> MemoryShardSource::requests_per_shard() const {
  std::lock_guard lock(mutex_);
  return seen_;
}

std::map<int, std::uint64_t> MemoryShardSource::bytes_per_shard() const {
  std::lock_guard lock(mutex_);
  std::map<int, std::uint64_t> bytes;
  for (const Logged& l : log_)
    for (const Extent& e : l.extents) bytes[l.shard] += e.length;
  return bytes;
}

}  // namespace ec::recovery::testing
