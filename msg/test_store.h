// MemoryShardStore: an in-memory RequestHandler for tests and for `ec-osd-bench --self-server`.
// It serves every shard operation from a map (collection -> (object, shard) -> data, version,
// attributes) and answers Ping with the asked number of bytes. Optionally it answers from its own
// worker thread after a delay (to exercise asynchronous replies and backpressure), and it records
// the largest number of requests it held at once per connection.
//
// Thread safety: Handle may be called from any number of io threads; all state is guarded.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "msg/server.h"

namespace ec::msg {

class MemoryShardStore : public RequestHandler {
 public:
  struct Options {
    // Answer from the worker thread after this delay (0 and !async: answer inline in Handle).
    bool async = false;
    std::chrono::microseconds delay{0};
  };
  MemoryShardStore() : MemoryShardStore(Options{}) {}
  explicit MemoryShardStore(Options options);
  ~MemoryShardStore() override;

  void Handle(Request request, std::shared_ptr<Responder> responder) override;

  // Largest number of requests held (received, not yet answered) at once on one connection.
  std::uint32_t max_outstanding_per_connection() const;
  // Requests handed to Handle so far.
  std::uint64_t requests_seen() const;
  // Shards stored (for "nothing was stored" checks).
  std::size_t shard_count() const;

 private:
  struct Shard {
    std::string data;
    std::uint64_t version = 0;
    std::map<std::string, std::string> attrs;
  };
  using Key = std::pair<std::string, std::uint32_t>;  // object, shard

  void Execute(Request& request, Responder& responder);
  void Answered(std::uint64_t connection_id);

  Options options_;
  mutable std::mutex mu_;
  std::map<std::string, std::map<Key, Shard>> colls_;
  std::unordered_map<std::uint64_t, std::uint32_t> outstanding_;
  std::uint32_t max_outstanding_ = 0;
  std::uint64_t requests_seen_ = 0;

  // Worker (async mode).
  struct Job {
    std::chrono::steady_clock::time_point due;
    Request request;
    std::shared_ptr<Responder> responder;
  };
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace ec::msg
