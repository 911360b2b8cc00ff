// A pool's shape as the map implies it, without loading a plugin: k, chunks per stripe (the
// pool's size) and the placement failure domain, read from its profile (a replicated pool's from
// its record: k=1, its copies). For the pure
// functions (status, osd map) that must not load plugins; pool creation checks the same numbers
// against the loaded plugin (pool_commands.cc).
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string_view>

#include "cluster/map/cluster_map.h"
#include "cluster/placement/placement.h"
#include "common/status.h"
#include "ec/profile.h"

namespace ec::cluster {

struct PoolGeometry {
  int k = 0;     // data chunks
  int size = 0;  // chunks per stripe: k + m (lrc: + one local parity per group of l)
  FailureDomain failure_domain = FailureDomain::kHost;
};

// From the profile keys: k and m (integers), lrc's l ((k+m)/l local chunks) or, when l is absent
// or -1 (what lrc's init writes into an explicit profile), its `mapping`
// (its length; k = its 'D's), crush-failure-domain (default host). Errors: EINVAL naming the
// profile key that is missing or not a number, or a size outside 1..kMaxPoolSize.
Result<PoolGeometry> GeometryOf(const ec::Profile& profile);

// The geometry of a pool of `map`: an erasure pool's is its profile's (GeometryOf); a replicated
// pool's is k=1 and size = its copies, failure domain host (Ceph's replicated_rule). Errors:
// ENOENT "erasure-code-profile NAME does not exist", GeometryOf's prefixed with
// "erasure-code-profile NAME", EINVAL for a replicated pool's size outside 1..kMaxPoolSize.
Result<PoolGeometry> GeometryOfPool(const ClusterMap& map, const Pool& pool);

// The placement input of a pool of `map` (GeometryOfPool). Errors: GeometryOfPool's.
Result<PoolPlacement> PlacementOf(const ClusterMap& map, const Pool& pool);

// Placement over every OSD of the map (ToOsdInfo).
Result<Placement> PlacementFor(const ClusterMap& map);

// "1.1f": Ceph's pg id, the pool id in decimal and the PG number in hex.
std::string PgName(std::int64_t pool_id, std::uint32_t pg);

struct PgId {
  std::int64_t pool = 0;
  std::uint32_t pg = 0;
  bool operator==(const PgId&) const = default;
};
// The inverse of PgName, lenient on case and leading zeros: "1.1f", "1.1F", "1.01f" -> {1, 0x1f}
// (decimal pool id, '.', 1 to 8 hex digits; PgName of the result is the canonical form). nullopt
// otherwise (an empty part, a sign, a suffix such as Ceph's shard "s0", a pool id above
// INT64_MAX). Whether the pool and PG exist is the caller's check.
std::optional<PgId> ParsePgId(std::string_view text);
// "[2,NONE,1]" (plain) for an OSD list with kItemNone as NONE.
std::string OsdList(const std::vector<int>& osds);

}  // namespace ec::cluster
