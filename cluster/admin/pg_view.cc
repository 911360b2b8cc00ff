#include "cluster/admin/pg_view.h"

#include <algorithm>

#include "cluster/map/object_locator.h"
#include "cluster/map/pg_state.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {

const char* PgStateName(PgState state) {
  switch (state) {
    case PgState::kActiveClean:
      return "active+clean";
    case PgState::kActiveDegraded:
      return "active+undersized+degraded";
    case PgState::kPeeredDegraded:
      return "undersized+degraded+peered";
    case PgState::kDown:
      return "down";
    case PgState::kUnknown:
      break;
  }
  return "unknown";
}

PgState ComputePgState(int up_count, int size, int min_size, int k) {
  if (up_count >= size) return PgState::kActiveClean;
  if (up_count >= min_size) return PgState::kActiveDegraded;
  if (up_count >= k) return PgState::kPeeredDegraded;
  return PgState::kDown;
}

namespace {

// The state of one PG of a pool with geometry (the table in the header).
void Decide(const ClusterMap& map, const std::map<int, PgStatsReport>& stats, const Pool& pool,
            int k, const std::vector<int>& acting, PgView* v) {
  const int primary = FirstUp(v->up);
  auto report = stats.find(primary);
  bool earlier_interval = false;
  if (report != stats.end()) {
    auto entry = report->second.pgs.find(v->pgid);
    if (entry != report->second.pgs.end()) {
      const PgStat& st = entry->second;
      v->stat = &st;
      const bool has_interval = !st.up.empty() || !st.acting.empty();
      v->current =
          has_interval ? st.up == v->up && st.acting == acting : report->second.epoch == map.epoch;
      earlier_interval = has_interval && !v->current;
      if (v->current && !st.state.empty()) {
        v->state = st.state;
        return;
      }
    } else {
      earlier_interval = report->second.epoch < map.epoch;
    }
  }
  if (v->up_count < k) {
    v->state = PgStateName(PgState::kDown);
  } else if (earlier_interval) {
    v->state = PgStateString(pg_state::kPeering);
  } else {
    v->state = PgStateName(ComputePgState(v->up_count, v->size, pool.min_size, k));
  }
}

}  // namespace

Result<std::vector<PgView>> ViewPgs(const ClusterMap& map,
                                    const std::map<int, PgStatsReport>& stats) {
  Result<Placement> placement = PlacementFor(map);
  if (!placement.ok()) return placement.status();
  std::vector<PgView> out;
  for (const auto& [pool_id, pool] : map.pools) {
    Result<PoolPlacement> pp = PlacementOf(map, pool);
    Result<PoolGeometry> geometry = pp.ok() ? GeometryOfPool(map, pool) : pp.status();
    for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
      PgView v;
      v.pool_id = pool_id;
      v.pg = pg;
      v.pgid = PgName(pool_id, pg);
      if (geometry.ok()) {
        Result<std::vector<int>> acting = placement->Place(*pp, pg);
        if (!acting.ok()) return acting.status();
        v.size = pp->size;
        v.up = placement->UpSet(*acting);
        v.acting = *acting;
        v.up_count = static_cast<int>(
            std::count_if(v.up.begin(), v.up.end(), [](int osd) { return osd != kItemNone; }));
        Decide(map, stats, pool, geometry->k, *acting, &v);
      } else {
        v.state = PgStateName(PgState::kUnknown);
      }
      v.flags = ParsePgState(v.state);
      out.push_back(std::move(v));
    }
  }
  return out;
}

std::string PgDetailLine(const PgView& pg, const std::string& state) {
  std::string line = "pg " + pg.pgid + " is " + state;
  if (pg.size > 0) line += ", acting " + OsdList(pg.up);
  return line;
}

}  // namespace ec::cluster::admin
