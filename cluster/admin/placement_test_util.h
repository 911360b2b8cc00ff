// Tests only: where placement puts a PG of a made-up map, for tests that write the PG primaries'
// reports by hand (a report counts only from the PG's primary, for its current up and acting
// sets).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cluster/map/cluster_map.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin::testing {

struct Located {
  std::vector<int> acting, up;
  int primary = kItemNone;
};

// PG `pg` of pool `pool` in `map`: its acting set, up set and primary (a gtest failure, and
// empty sets, for a map placement refuses).
inline Located Locate(const ClusterMap& map, std::int64_t pool, std::uint32_t pg) {
  Located l;
  Result<Placement> placement = PlacementFor(map);
  EXPECT_TRUE(placement.ok());
  Result<PoolPlacement> pp = PlacementOf(map, map.pools.at(pool));
  EXPECT_TRUE(pp.ok());
  if (!placement.ok() || !pp.ok()) return l;
  l.acting = placement->Place(*pp, pg).value();
  l.up = placement->UpSet(l.acting);
  l.primary = FirstUp(l.up);
  return l;
}

}  // namespace ec::cluster::admin::testing
