// What the PGs' last scrubs left, as health checks (Ceph's OSD_SCRUB_ERRORS and PG_DAMAGED): a
// PURE function of the map, the primaries' PG reports (cluster/map/pg_stats.h) and the scrub
// results (cluster/map/scrub_record.h), for `health [detail]` and `status`.
//
// A result counts when it left errors (its `inconsistents` is not empty, or it is `truncated`)
// and its PG exists in the map: its pgid is Ceph's canonical "POOL.PGHEX" (PgName's), the pool
// id is in the map and the PG number is below that pool's pg_num. A result of a removed pool or
// of a PG beyond a shrunk pg_num is ignored. For the results that count:
//
//   OSD_SCRUB_ERRORS  HEALTH_ERR  "N scrub errors", N = the sum over them of errors - repaired
//                                 (each at least 1); count N; no detail lines (as Ceph).
//   PG_DAMAGED        HEALTH_ERR  "Possible data damage: 1 pg inconsistent" ("N pgs
//                                 inconsistent"); count = those PGs; one detail line per PG in
//                                 (pool, pg) order, at most kMaxDetail:
//                                 "pg 1.3 is active+clean+inconsistent, acting [2,0,5,1,3,4]".
//
// The state in a detail line is the PG's as status_report.h shows it (pg_view.h), with
// "inconsistent" added in Ceph's place when it does not say so; "acting" lists the up set as the
// other PG detail lines do (NONE for a down OSD). A pool whose profile gives no geometry has
// "unknown" PGs ("inconsistent" then) and no acting list.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/admin/status_report.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"
#include "common/status.h"

namespace ec::cluster::admin {

// The checks above, OSD_SCRUB_ERRORS then PG_DAMAGED; empty when no result counts. `results`:
// LoadScrubResults's map (by pgid). Errors: only PlacementFor's, for a map it would refuse (a
// map from MapStore never is).
Result<std::vector<HealthCheck>> ScrubHealthChecks(
    const ClusterMap& map, const std::map<int, PgStatsReport>& stats,
    const std::map<std::string, ScrubResult>& results);

// Adds `checks` to the report's, keeping them in code order, and makes its health_status the
// worst severity (HEALTH_ERR over HEALTH_WARN over HEALTH_OK).
void AddHealthChecks(std::vector<HealthCheck> checks, StatusReport* report);

}  // namespace ec::cluster::admin
