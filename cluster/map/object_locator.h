// Where an object lives, from the map: its PG, the PG's store collection, acting and up sets and
// primary (issue 14: "the PG primary is the first up OSD of the PG's acting set"). The client
// library sends each request to `primary`; the primary checks with the same function that it is
// the one.
//
// Thread safety: every method may be called from any thread. An ObjectLocator answers for one map
// and never changes its answers; it remembers each PG's location once computed (placement costs
// more than the copy), under a mutex of its own.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/map/cluster_map.h"
#include "cluster/placement/placement.h"
#include "common/status.h"

namespace ec::cluster {

// The longest object name (Ceph's osd_max_object_name_len). Below the store's 4096-byte names with
// room for a shard's suffixes ("#5", "#5~undo").
inline constexpr std::size_t kMaxObjectNameLen = 2048;

struct PgLocation {
  std::int64_t pool_id = 0;
  std::uint32_t pg = 0;
  std::string pgid;         // Ceph's "1.1f"
  std::string collection;   // the PG's collection on every OSD: "pg.1.1f"
  std::vector<int> acting;  // position (shard) -> OSD id, kItemNone where none
  std::vector<int> up;      // acting with down OSDs as kItemNone
  int primary = kItemNone;  // the first up OSD of the acting set
  int k = 0;
  int min_size = 0;
  int up_count() const;
};

// The first OSD of `up` that is not kItemNone, or kItemNone.
int FirstUp(const std::vector<int>& up);

// Placement for one map, reused for every object of that map.
class ObjectLocator {
 public:
  // Errors: those of PlacementFor (a bad OSD entry).
  static Result<std::shared_ptr<const ObjectLocator>> Make(std::shared_ptr<const ClusterMap> map);
  const ClusterMap& map() const { return *map_; }
  // Errors: ENOENT "pool N does not exist", the pool's profile errors (GeometryOf), placement's.
  Result<PgLocation> LocatePg(std::int64_t pool_id, std::uint32_t pg) const;
  Result<PgLocation> LocateObject(std::int64_t pool_id, std::string_view object) const;

 private:
  ObjectLocator(std::shared_ptr<const ClusterMap> map, Placement placement)
      : map_(std::move(map)), placement_(std::move(placement)) {}
  Result<PgLocation> Compute(std::int64_t pool_id, std::uint32_t pg) const;
  // The pool's placement input (PlacementOf), made once per pool: it parses the profile.
  Result<PoolPlacement> PlacementOfPool(std::int64_t pool_id) const;

  std::shared_ptr<const ClusterMap> map_;
  Placement placement_;
  mutable std::mutex mu_;
  mutable std::map<std::pair<std::int64_t, std::uint32_t>, PgLocation> located_;
  mutable std::map<std::int64_t, PoolPlacement> placements_;  // by pool id
};

}  // namespace ec::cluster
