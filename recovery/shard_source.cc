#include "recovery/shard_source.h"

#include <algorithm>
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

std::vector<ShardReadRequest> SplitToLimits(int shard, const std::vector<Extent>& extents,
                                            std::span<std::byte> destination,
                                            const ShardSourceLimits& limits) {
  std::vector<ShardReadRequest> requests;
  ShardReadRequest cur{shard, {}, {}};
  std::uint64_t cur_bytes = 0, at = 0;
  auto flush = [&] {
    if (cur.extents.empty()) return;
    cur.destination = destination.subspan(static_cast<std::size_t>(at - cur_bytes),
                                          static_cast<std::size_t>(cur_bytes));
    requests.push_back(std::move(cur));
    cur = {shard, {}, {}};
    cur_bytes = 0;
  };
  for (Extent e : extents) {
    while (e.length > 0) {
      if ((limits.max_extents != 0 && cur.extents.size() >= limits.max_extents) ||
          (limits.max_bytes != 0 && cur_bytes >= limits.max_bytes))
        flush();
      std::uint64_t n = e.length;
      if (limits.max_bytes != 0) n = std::min(n, limits.max_bytes - cur_bytes);
      cur.extents.push_back({e.offset, n});
      cur_bytes += n;
      at += n;
      e.offset += n;
      e.length -= n;
    }
  }
  flush();
  return requests;
}

}  // namespace ec::recovery
