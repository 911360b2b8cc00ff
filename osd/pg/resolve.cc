#include "osd/pg/resolve.h"

#include <fmt/format.h>

#include <algorithm>

namespace ec::osd::pg {

Resolution Resolve(const std::vector<ShardView>& shards, int k, int min_size) {
  Resolution r;
  std::uint64_t vmax = 0;
  int reachable = 0;
  for (const ShardView& s : shards) {
    if (!s.reachable) continue;
    ++reachable;
    vmax = std::max(vmax, s.state.version);
  }
  const int unreachable = static_cast<int>(shards.size()) - reachable;
  std::vector<int> at_max;
  for (const ShardView& s : shards) {
    if (s.reachable && s.state.version == vmax) at_max.push_back(s.position);
  }
  const int n = static_cast<int>(at_max.size());
  if (reachable > 0 && n >= k) {
    r.action = Resolution::Action::kSettled;
    r.version = vmax;
    r.current = at_max;
    for (const ShardView& s : shards) {
      if (!s.reachable || s.state.version == vmax) continue;
      r.stale.push_back(s.position);
    }
    for (const ShardView& s : shards) {
      if (s.reachable && s.state.version == vmax && s.state.state == net::ShardState::kPresent) {
        r.exists = true;
        r.object_size = s.state.object_size;
        break;
      }
    }
    return r;
  }
  if (reachable > 0 && vmax > 0 && n + unreachable < min_size) {
    r.action = Resolution::Action::kRollback;
    r.version = vmax;
    r.rollback = at_max;
    return r;
  }
  r.action = Resolution::Action::kUndecided;
  r.version = vmax;
  r.why = reachable == 0 ? std::string("no shard answered")
          : vmax == 0    ? fmt::format("only {} shard(s) answer, fewer than k={}", n, k)
                         : fmt::format(
                               "version {} is on {} shard(s), fewer than k={}, and {} shard(s) that "
                                  "could hold it do not answer",
                               vmax, n, k, unreachable);
  return r;
}

}  // namespace ec::osd::pg
