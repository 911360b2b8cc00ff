#include "msg/io_threads.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>

#include "common/thread_name.h"
#include "common/thread_nice.h"

namespace ec::msg {

namespace {

// The joins handed to detached threads (an IoThreads destroyed from one of its own threads).
// Exit waits for them, bounded: an io thread still running when the process exits would take its
// OpenSSL per-thread state (error queue, DRBGs: freed by OpenSSL's thread-exit hook, which then
// runs after OpenSSL's cleanup or never) with it, and LeakSanitizer reports that state. (Freeing
// it at the end of each io thread with OPENSSL_thread_stop instead made OpenSSL 3.0's cleanup
// free it again at exit: a double free under ASan.) The bound is for an io_context whose work never
// ends (a connection stuck at exit): exit goes on without it rather than hang. Never destroyed (a
// joiner that outlives the wait still signals it); the exit handler is registered on the first
// hand-off, after OpenSSL registered its own (the connections it serves were set up first), so it
// runs before OpenSSL is cleaned up.
class DetachedJoins {
 public:
  static DetachedJoins& Get() {
    static DetachedJoins* joins = [] {
      auto* j = new DetachedJoins;
      std::atexit([] { DetachedJoins::Get().WaitAtExit(); });
      return j;
    }();
    return *joins;
  }
  void Add() {
    std::lock_guard lock(mu_);
    ++pending_;
  }
  void Done() {
    std::lock_guard lock(mu_);
    --pending_;
    cv_.notify_all();
  }

 private:
  void WaitAtExit() {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(5), [this] { return pending_ == 0; });
  }
  std::mutex mu_;
  std::condition_variable cv_;
  int pending_ = 0;
};

}  // namespace

Result<std::shared_ptr<IoThreads>> IoThreads::Start(int threads, const std::string& name, int nice,
                                                    std::shared_ptr<spdlog::logger> log) {
  if (threads < 1 || threads > 64) {
    return Status::Invalid(fmt::format("io threads {} out of range 1..64", threads));
  }
  auto state = std::make_unique<State>();
  State* raw = state.get();
  for (int i = 0; i < threads; ++i) {
    raw->threads.emplace_back([raw, name, nice, log] {
      if (nice != 0) {
        Status niced = NiceCurrentThread(nice);
        if (!niced.ok() && log) log->warn("{}: io thread nice: {}", name, niced.message());
      }
      NameCurrentThread(name.c_str());
      raw->io.run();
    });
  }
  return std::shared_ptr<IoThreads>(new IoThreads(std::move(state)));
}

IoThreads::State::~State() {
  work.reset();  // already, unless Start failed midway
  for (std::thread& t : threads) t.join();
}

IoThreads::~IoThreads() {
  state_->work.reset();
  for (const std::thread& t : state_->threads) {
    if (t.get_id() == std::this_thread::get_id()) {
      // The last owner let go on one of these threads: it cannot join itself. A detached thread
      // waits for the io_context to run out of work, joins them all and frees the state.
      DetachedJoins& joins = DetachedJoins::Get();
      joins.Add();
      std::thread([state = std::move(state_), &joins]() mutable {
        state.reset();
        joins.Done();
      }).detach();
      return;
    }
  }
  state_.reset();
}

}  // namespace ec::msg
