#include "recovery/shard_source.h"

#include <algorithm>

#include "common/fan_out.h"

namespace ec::recovery {

std::vector<Status> ReadAll(ShardSource& source, std::span<const ShardReadRequest> requests) {
  if (requests.empty()) return {};
  // One call completes every index; a source calling back twice for one is ignored.
  Gather<Status> gather(requests.size());
  source.ReadAsync(requests, gather.Indexed());
  return gather.Wait();
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
