// Fan-out and gather: start N asynchronous calls together and wait for all their results. The one
// way ecstore waits for "every shard answered" (object_io's sub-operations, the recovery driver's
// SubPulls, the pull's batched helper reads, a ShardSource's requests, peering's scans).
//
//   GatherAll<T>(n, start)        start(i, done) for i = 0..n-1, then wait: the n results in order
//   Gather<T> g(n); ... g.Wait()  the same in two steps, for calls started in another shape (one
//                                 call that completes many indices, e.g. ShardSource::ReadAsync)
//
// Contract of the completions (Gather::Done(i), Gather::Indexed(), GatherAll's `done`):
//   - thread: any thread (an io thread of a client, a worker of a service), concurrently for
//     different indices. A completion only stores its result and wakes the waiter: it never
//     blocks for long and never runs the caller's code, so it may be called from an io thread.
//   - synchronously: a call may complete before the function that started it returns (a closed
//     client, an inline read, an error found before sending); the result is stored like any
//     other and Wait() does not block for it.
//   - exactly once per index is what callers promise; a second completion of an index, or an
//     index >= n, is ignored (it cannot corrupt the results or wake the waiter early).
//   - ownership: the completions share the gathered state, so one that runs after Wait() has
//     returned (impossible for a well-behaved call, but harmless) touches nothing freed. A result
//     moved into a completion is owned by the Gather until Wait() moves it out.
//   - a completion may itself start another asynchronous call and hand its own `done` to it (a
//     paged scan continued from the completion of each page): the index completes when the last
//     call of its chain calls `done`.
// Wait() blocks the calling thread until every index completed, so it must not run on a thread
// that one of the calls needs to complete (an io thread of the client it waits on, a worker of a
// service with a single worker). Call it once.
//
// Thread safety: a Gather may be completed from any threads; Wait() from one thread, once.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace ec {

template <typename T>
class Gather {
 public:
  // The completion of call i.
  using Done = std::function<void(T)>;
  // The completion that names its call: done(i, result).
  using IndexedDone = std::function<void(std::size_t, T)>;

  explicit Gather(std::size_t n) : state_(std::make_shared<State>()) {
    state_->left = n;
    state_->results.resize(n);
  }

  Done For(std::size_t i) const {
    return [state = state_, i](T result) { state->Complete(i, std::move(result)); };
  }

  IndexedDone Indexed() const {
    return [state = state_](std::size_t i, T result) { state->Complete(i, std::move(result)); };
  }

  // Every result, in index order, once all n completed (at once for n == 0).
  std::vector<T> Wait() {
    std::unique_lock lock(state_->mu);
    state_->all_done.wait(lock, [&] { return state_->left == 0; });
    std::vector<T> out;
    out.reserve(state_->results.size());
    for (std::optional<T>& r : state_->results) out.push_back(std::move(*r));
    return out;
  }

 private:
  struct State {
    std::mutex mu;
    std::condition_variable all_done;
    std::size_t left = 0;
    std::vector<std::optional<T>> results;

    void Complete(std::size_t i, T result) {
      std::lock_guard lock(mu);
      if (i >= results.size() || results[i].has_value()) return;  // a caller's bug: ignored
      results[i].emplace(std::move(result));
      if (--left == 0) all_done.notify_all();
    }
  };

  std::shared_ptr<State> state_;
};

// Calls start(i, done_i) for every i < n (in order, on the calling thread), then waits for every
// done_i: the results in index order. `start` must arrange for done_i to be called exactly once
// (see the completions' contract above); it may call it before returning.
template <typename T, typename Start>
std::vector<T> GatherAll(std::size_t n, Start&& start) {
  Gather<T> gather(n);
  for (std::size_t i = 0; i < n; ++i) start(i, gather.For(i));
  return gather.Wait();
}

}  // namespace ec
