#include "recovery/shard_source.h"

#include <condition_variable>
#include <memory>
#include <mutex>

namespace ec::recovery {

namespace {

// Waits for every completion of one ReadAsync call. Shared with the callbacks, so that a source
// calling back late still finds it alive.
struct Completions {
  std::mutex mutex;
  std::condition_variable all_done;
  std::size_t left = 0;
  std::vector<Status> results;
  std::vector<bool> seen;
};

}  // namespace

std::vector<Status> ReadAll(ShardSource& source, std::span<const ShardReadRequest> requests) {
  auto state = std::make_shared<Completions>();
  state->left = requests.size();
  state->results.resize(requests.size());
  state->seen.assign(requests.size(), false);
  if (requests.empty()) return {};
  source.ReadAsync(requests, [state](std::size_t i, Status status) {
    std::lock_guard lock(state->mutex);
    if (i >= state->seen.size() || state->seen[i]) return;  // a source bug: ignore
    state->seen[i] = true;
    state->results[i] = std::move(status);
    if (--state->left == 0) state->all_done.notify_all();
  });
  std::unique_lock lock(state->mutex);
  state->all_done.wait(lock, [&] { return state->left == 0; });
  return state->results;
}

}  // namespace ec::recovery
