#include "cluster/map/object_locator.h"

#include "cluster/map/pool_geometry.h"

namespace ec::cluster {

int PgLocation::up_count() const {
  int n = 0;
  for (int o : up) n += o != kItemNone ? 1 : 0;
  return n;
}

int FirstUp(const std::vector<int>& up) {
  for (int o : up) {
    if (o != kItemNone) return o;
  }
  return kItemNone;
}

Result<std::shared_ptr<const ObjectLocator>> ObjectLocator::Make(
    std::shared_ptr<const ClusterMap> map) {
  auto placement = PlacementFor(*map);
  if (!placement.ok()) return placement.status();
  return std::shared_ptr<const ObjectLocator>(
      new ObjectLocator(std::move(map), std::move(placement).value()));
}

Result<PgLocation> ObjectLocator::LocatePg(std::int64_t pool_id, std::uint32_t pg) const {
  {
    std::lock_guard lock(mu_);
    auto hit = located_.find({pool_id, pg});
    if (hit != located_.end()) return hit->second;
  }
  auto loc = Compute(pool_id, pg);
  if (!loc.ok()) return loc;  // errors are not remembered: they are rare and cheap to repeat
  std::lock_guard lock(mu_);
  located_.emplace(std::make_pair(pool_id, pg), *loc);
  return loc;
}

Result<PgLocation> ObjectLocator::Compute(std::int64_t pool_id, std::uint32_t pg) const {
  auto it = map_->pools.find(pool_id);
  if (it == map_->pools.end()) {
    return Status::NotFound("pool " + std::to_string(pool_id) + " does not exist");
  }
  const Pool& pool = it->second;
  auto pp = PlacementOf(*map_, pool);
  if (!pp.ok()) return pp.status();
  auto geometry = GeometryOfPool(*map_, pool);
  if (!geometry.ok()) return geometry.status();
  auto acting = placement_.Place(*pp, pg);
  if (!acting.ok()) return acting.status();
  PgLocation loc;
  loc.pool_id = pool_id;
  loc.pg = pg;
  loc.pgid = PgName(pool_id, pg);
  loc.collection = "pg." + loc.pgid;
  loc.acting = std::move(acting).value();
  loc.up = placement_.UpSet(loc.acting);
  loc.primary = FirstUp(loc.up);
  loc.k = geometry->k;
  loc.min_size = pool.min_size;
  return loc;
}

Result<PoolPlacement> ObjectLocator::PlacementOfPool(std::int64_t pool_id) const {
  {
    std::lock_guard lock(mu_);
    auto hit = placements_.find(pool_id);
    if (hit != placements_.end()) return hit->second;
  }
  auto it = map_->pools.find(pool_id);
  if (it == map_->pools.end()) {
    return Status::NotFound("pool " + std::to_string(pool_id) + " does not exist");
  }
  auto pp = PlacementOf(*map_, it->second);
  if (!pp.ok()) return pp.status();  // not remembered, as LocatePg's errors
  std::lock_guard lock(mu_);
  placements_.emplace(pool_id, *pp);
  return pp;
}

Result<PgLocation> ObjectLocator::LocateObject(std::int64_t pool_id,
                                               std::string_view object) const {
  // Every object operation locates its object: the profile is parsed once per pool and map.
  auto pp = PlacementOfPool(pool_id);
  if (!pp.ok()) return pp.status();
  auto pg = ObjectToPg(*pp, object);
  if (!pg.ok()) return pg.status();
  return LocatePg(pool_id, *pg);
}

}  // namespace ec::cluster
