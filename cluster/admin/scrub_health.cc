#include "cluster/admin/scrub_health.h"

#include <algorithm>
#include <charconv>

#include "cluster/map/object_locator.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

constexpr const char* kErr = "HEALTH_ERR";

bool HasFlag(std::string_view state, std::string_view flag) {
  std::size_t start = 0;
  while (start <= state.size()) {
    const std::size_t end = std::min(state.find('+', start), state.size());
    if (state.substr(start, end - start) == flag) return true;
    start = end + 1;
  }
  return false;
}

// The PG's state and up set as status_report.h gives them, "+inconsistent" added.
struct DamagedPg {
  PgId id;
  std::string line;
};

DamagedPg Describe(const ClusterMap& map, const std::map<int, PgStatsReport>& stats,
                   const Placement& placement, const PgId& id, const std::string& pgid) {
  const Pool& pool = map.pools.at(id.pool);
  std::string state = PgStateName(PgState::kUnknown);
  std::string acting;
  Result<PoolPlacement> pp = PlacementOf(map, pool);
  Result<PoolGeometry> geometry =
      pp.ok() ? GeometryOf(map.profiles.at(pool.profile).profile) : pp.status();
  Result<std::vector<int>> placed =
      geometry.ok() ? placement.Place(*pp, id.pg) : Result<std::vector<int>>(geometry.status());
  if (placed.ok()) {
    const std::vector<int> up = placement.UpSet(*placed);
    const int u = static_cast<int>(
        std::count_if(up.begin(), up.end(), [](int osd) { return osd != kItemNone; }));
    state = PgStateName(ComputePgState(u, pp->size, pool.min_size, geometry->k));
    acting = ", acting " + OsdList(up);
    auto report = stats.find(FirstUp(up));
    if (report != stats.end() && report->second.epoch == map.epoch) {
      auto pg = report->second.pgs.find(pgid);
      if (pg != report->second.pgs.end() && !pg->second.state.empty()) state = pg->second.state;
    }
  }
  if (!HasFlag(state, "inconsistent")) state += "+inconsistent";
  return DamagedPg{id, "pg " + pgid + " is " + state + acting};
}

}  // namespace

Result<std::vector<HealthCheck>> ScrubHealthChecks(
    const ClusterMap& map, const std::map<int, PgStatsReport>& stats,
    const std::map<std::string, ScrubResult>& results) {
  Result<Placement> placement = PlacementFor(map);
  if (!placement.ok()) return placement.status();
  std::uint64_t errors = 0;
  std::vector<DamagedPg> damaged;
  for (const auto& [pgid, result] : results) {
    if (result.inconsistents.empty() && !result.truncated) continue;
    const std::optional<PgId> id = ParsePgId(pgid);
    if (!id || PgName(id->pool, id->pg) != pgid) continue;
    auto pool = map.pools.find(id->pool);
    if (pool == map.pools.end() || id->pg >= pool->second.pg_num) continue;
    // errors counts every error found (fixed ones too), repaired those a repair fixed.
    const std::int64_t left = result.errors - result.repaired;
    errors += left > 1 ? static_cast<std::uint64_t>(left) : 1;
    damaged.push_back(Describe(map, stats, *placement, *id, pgid));
  }
  if (damaged.empty()) return std::vector<HealthCheck>{};
  std::sort(damaged.begin(), damaged.end(), [](const DamagedPg& a, const DamagedPg& b) {
    return a.id.pool != b.id.pool ? a.id.pool < b.id.pool : a.id.pg < b.id.pg;
  });
  HealthCheck scrub_errors{
      "OSD_SCRUB_ERRORS", kErr, std::to_string(errors) + " scrub errors", errors, {}};
  HealthCheck pg_damaged{"PG_DAMAGED",
                         kErr,
                         "Possible data damage: " + std::to_string(damaged.size()) +
                             (damaged.size() == 1 ? " pg" : " pgs") + " inconsistent",
                         damaged.size(),
                         {}};
  for (const DamagedPg& d : damaged) {
    if (pg_damaged.detail.size() == kMaxDetail) break;
    pg_damaged.detail.push_back(d.line);
  }
  return std::vector<HealthCheck>{std::move(scrub_errors), std::move(pg_damaged)};
}

void AddHealthChecks(std::vector<HealthCheck> checks, StatusReport* report) {
  for (HealthCheck& c : checks) report->checks.push_back(std::move(c));
  std::stable_sort(report->checks.begin(), report->checks.end(),
                   [](const HealthCheck& a, const HealthCheck& b) { return a.code < b.code; });
  report->health_status = "HEALTH_OK";
  for (const HealthCheck& c : report->checks) {
    if (c.severity == kErr || report->health_status == "HEALTH_OK") {
      report->health_status = c.severity;
    }
  }
}

}  // namespace ec::cluster::admin
