#include "cluster/admin/scrub_health.h"

#include <algorithm>
#include <charconv>

#include "cluster/map/pg_state.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

constexpr const char* kErr = "HEALTH_ERR";

// The PG's detail line with its state as status_report.h shows it, "inconsistent" added.
struct DamagedPg {
  PgId id;
  std::string line;
};

DamagedPg Describe(const PgView& pg) {
  const bool said = pg.flags && (*pg.flags & pg_state::kInconsistent) != 0;
  std::string state = pg.state;
  if (pg.flags && !said) {
    state = PgStateString(*pg.flags | pg_state::kInconsistent);
  } else if (!said) {
    state += "+inconsistent";  // a state this version cannot read: as reported, and inconsistent
  }
  return DamagedPg{PgId{pg.pool_id, pg.pg}, PgDetailLine(pg, state)};
}

}  // namespace

Result<std::vector<HealthCheck>> ScrubHealthChecks(
    const ClusterMap& map, const std::map<int, PgStatsReport>& stats,
    const std::map<std::string, ScrubResult>& results) {
  Result<std::vector<PgView>> pgs = ViewPgs(map, stats);
  if (!pgs.ok()) return pgs.status();
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
    const auto view = std::find_if(pgs->begin(), pgs->end(), [&](const PgView& v) {
      return v.pool_id == id->pool && v.pg == id->pg;
    });
    if (view != pgs->end()) damaged.push_back(Describe(*view));
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
