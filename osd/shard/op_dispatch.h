// OpDispatcher: where ShardService runs each operation, and the count of operations in flight.
//
//   caller (io thread, PG worker) --RunInline--> here, now (a small read or write the policy
//   allows)
//                                --Post(key)--> strand[key % kStrands] --> worker thread
//                                --PostBackground--> background thread (nicer: recovery work)
//
// Ordering: operations posted with the same key run one at a time, in posting order (one strand).
// ShardService keys an operation by the shard it names (ShardKeyOf), so a read sent after a write
// of the same shard sees it. Different keys run in parallel, up to the number of workers; there are
// more strands than workers so that two busy shards rarely share one.
//
// Background operations (other OSDs' recovery reads, SubReadBatch) run on their own threads, with
// a higher nice value: they never wait in the client operations' queues nor hold their workers,
// and when the CPU is short the kernel runs the client operations first. They keep no per-key
// order (a read needs none: the store never shows a half-applied transaction, and the reader
// checks versions).
//
// An inline operation runs on the caller's thread while nothing else is in flight; whatever is
// posted to its strand while it runs is held back and posted when it ends, so the per-key order
// holds whichever threads hand operations over (a messenger's io threads, the PG workers).
//
// Thread safety: every method may be called from any thread, except Join (from the owner, once).
#pragma once

#include <array>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/metrics.h"
#include "common/status.h"
#include "msg/messages.h"
#include "osd/shard/read_policy.h"

namespace ec::osd::shard {

// The key of the shard a request names (collection, object, shard; a List, SubScan or SubPull:
// its collection; a SubReadBatch: its first item's collection; an object operation: its object).
template <typename M>
std::size_t ShardKeyOf(const M& m) {
  if constexpr (std::is_same_v<M, msg::PingRequest>) {
    return 0;
  } else if constexpr (std::is_same_v<M, msg::ListRequest> ||
                       std::is_same_v<M, msg::SubScanRequest> ||
                       std::is_same_v<M, msg::SubPullRequest>) {
    return std::hash<std::string>()(m.collection);
  } else if constexpr (std::is_same_v<M, msg::SubReadBatchRequest>) {
    // Items of one PG, usually: the first one's collection.
    return m.items.empty() ? 0 : std::hash<std::string>()(m.items.front().collection);
  } else if constexpr (requires { m.shard; }) {
    return std::hash<std::string>()(m.collection) * 31 + std::hash<std::string>()(m.object) * 7 +
           m.shard;
  } else if constexpr (requires { m.object; }) {
    return std::hash<std::string>()(m.object);  // object operations (ObjWrite, ...)
  } else {
    return 0;  // ObjList
  }
}

class OpDispatcher {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t kStrands = 256;

  // `workers` threads (clamped to 1..256) for keyed operations, `background_workers` (clamped to
  // 1..64) at nice `background_nice` (0..20, common/thread_nice.h; 0: as the process) for
  // PostBackground. `inflight` (may be null) mirrors the in-flight count; `inline_reads` (may be
  // null) counts inline runs under the read limit. Both borrowed. A nice value the kernel refuses
  // leaves those threads as they are (logged by the caller through background_nice_status()). The
  // workers are named `name` (thread_name.h), the background threads `name`-bg.
  OpDispatcher(int workers, std::uint64_t inline_read_max_bytes, Gauge* inflight,
               Counter* inline_reads, int background_workers = 1, int background_nice = 0,
               const char* name = "worker");
  // Join().
  ~OpDispatcher();
  OpDispatcher(const OpDispatcher&) = delete;
  OpDispatcher& operator=(const OpDispatcher&) = delete;

  // Runs `fn()` on a worker after every operation posted before with the same key (and after the
  // operation holding its strand, if one does: Hold); it counts as in flight from now until fn
  // returns.
  template <typename Fn>
  void Post(std::size_t key, Fn&& fn) {
    const std::size_t strand = key % kStrands;
    auto task = [this, strand, fn = std::forward<Fn>(fn)]() mutable {
      fn();
      End(strand);
    };
    {
      std::lock_guard lock(mu_);
      BeginLocked(Clock::now());
      ++strand_inflight_[strand];
      if (held_[strand]) {
        // An operation holds this strand (it runs inline, or waits for its commit): this one
        // follows it (Release posts it), as it would on the strand. Shared: std::function copies.
        deferred_[strand].push_back(
            [t = std::make_shared<decltype(task)>(std::move(task))] { (*t)(); });
        return;
      }
    }
    // Nothing can hold this strand now (this operation is in flight on it), so the order holds.
    boost::asio::post(strands_[strand], std::move(task));
  }

  // Runs `fn()` on a background thread; no order with other operations. In flight until it returns.
  template <typename Fn>
  void PostBackground(Fn&& fn) {
    {
      std::lock_guard lock(mu_);
      BeginLocked(Clock::now());
    }
    boost::asio::post(background_, [this, fn = std::forward<Fn>(fn)]() mutable {
      fn();
      End(kNoStrand);
    });
  }
  // Whether the background threads took their nice value.
  const Status& background_nice_status() const { return background_nice_status_; }

  // Runs `fn()` now on the calling thread as the operation of `key`, counted in flight, if
  // InlineReadPolicy allows an operation of `bytes` (at most `max_bytes`; by default the read
  // limit the dispatcher was made with) arriving at `now` (`more_queued`: Request::more_queued);
  // returns whether it ran. It runs only while nothing else is in flight, and what is posted with
  // the same strand meanwhile waits for it: the per-key order holds whichever threads call.
  template <typename Fn>
  bool RunInline(std::size_t key, std::uint64_t bytes, bool more_queued, Clock::time_point now,
                 Fn&& fn, std::uint64_t max_bytes = kReadLimit) {
    if (!TryBeginInline(key % kStrands, bytes, max_bytes, more_queued, now)) return false;
    fn();
    Release(key, true);
    return true;
  }
  static constexpr std::uint64_t kReadLimit = ~std::uint64_t{0};

  // Takes `key`'s strand for an operation that the caller runs itself, possibly finishing later on
  // another thread (a write that completes when its group commits), if nothing of that strand is in
  // flight or held: then it counts as in flight, whatever posted to the strand waits for it, and
  // the caller must call Release(key) exactly once when it is done. Returns whether it took it.
  bool Hold(std::size_t key);
  // Ends a Hold (or RunInline's run): posts, in order, what waited for the strand. `inline_done`:
  // an inline run that the policy times (RunInline).
  void Release(std::size_t key, bool inline_done = false);

  // Waits until nothing is in flight.
  void Drain();
  std::uint64_t inflight() const;
  // Drain, then stops the workers (nothing may be posted afterwards). Idempotent.
  void Join();

 private:
  void BeginLocked(Clock::time_point now);  // under mu_
  void End(std::size_t strand);
  bool TryBeginInline(std::size_t strand, std::uint64_t bytes, std::uint64_t max_bytes,
                      bool more_queued, Clock::time_point now);
  static constexpr std::size_t kNoStrand = ~std::size_t{0};

  Gauge* inflight_gauge_;
  Counter* inline_reads_;
  boost::asio::thread_pool pool_;
  boost::asio::thread_pool background_;
  Status background_nice_status_;
  std::vector<boost::asio::strand<boost::asio::thread_pool::executor_type>> strands_;

  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable idle_;
  std::uint64_t inflight_ = 0;
  InlineReadPolicy policy_;
  bool joined_ = false;
  std::array<std::uint32_t, kStrands> strand_inflight_{};  // posted, not yet finished
  std::array<bool, kStrands> held_{};                      // Hold (or an inline run) has it
  // Posted to a held strand, in order, until its Release.
  std::array<std::vector<std::function<void()>>, kStrands> deferred_;
};

}  // namespace ec::osd::shard
