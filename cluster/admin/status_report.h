// The cluster's status and health as `ceph -s` / `ceph health detail` show them, computed by a
// PURE function of the map and the time: no I/O, so the next issues can feed it real PG states
// and recovery figures through this one seam.
//
// Objects and degraded objects come from the PG primaries' reports (cluster/map/pg_stats.h:
// objects per PG; degraded copies = objects x the PG's shards that are not up). PG states are
// computed from the map for now (no OSD reports PG state yet). For every PG of
// every pool, with acting = Placement::Place, up = UpSet(acting) and u = the number of up OSDs
// in it, k = data chunks, size = chunks per stripe, min_size the pool's:
//   u == size             active+clean
//   min_size <= u < size  active+undersized+degraded
//   k <= u < min_size     undersized+degraded+peered   (readable, not writable: inactive)
//   u < k                 down                          (inactive)
// A pool whose profile gives no geometry (pool_geometry.h) has its PGs counted as "unknown".
//
// Health checks (Ceph's codes, all HEALTH_WARN; the status is the worst of them, HEALTH_OK when
// none): OSD_DOWN (OSDs that are in and down: "N osds down", detail "osd.3
// (root=default,host=h1) is down"), PG_AVAILABILITY (inactive PGs: "Reduced data availability: N
// pgs inactive, M pgs down"), PG_DEGRADED ("Degraded data redundancy: N pgs degraded, M pgs
// undersized"). PG detail lists at most kMaxDetail lines ("pg 1.1f is down, acting [NONE,2,0]").
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/map/cluster_map.h"
#include "cluster/map/pg_stats.h"
#include "common/status.h"

namespace ec::cluster::admin {

inline constexpr std::size_t kMaxDetail = 50;  // Ceph's mon_health_max_detail

enum class PgState { kActiveClean, kActiveDegraded, kPeeredDegraded, kDown, kUnknown };
// "active+clean", "active+undersized+degraded", "undersized+degraded+peered", "down", "unknown".
const char* PgStateName(PgState state);
// The rule above for one PG.
PgState ComputePgState(int up_count, int size, int min_size, int k);

struct HealthCheck {
  std::string code;      // "OSD_DOWN"
  std::string severity;  // "HEALTH_WARN" | "HEALTH_ERR"
  std::string summary;   // "1 osds down"
  std::uint64_t count = 0;
  std::vector<std::string> detail;
};

struct PgStateCount {
  std::string state_name;
  std::uint64_t count = 0;
};

struct StatusReport {
  std::string cluster_id;
  std::string health_status = "HEALTH_OK";
  std::vector<HealthCheck> checks;  // sorted by code (Ceph's order)
  std::int64_t epoch = 0;
  int num_osds = 0;
  int num_up_osds = 0;
  int num_in_osds = 0;
  std::int64_t osd_up_since = 0;  // s since 1970: newest boot among up OSDs (0: none up)
  std::int64_t osd_in_since = 0;  // the same over in OSDs (the map keeps no time of in/out)
  std::uint64_t num_pgs = 0;
  std::size_t num_pools = 0;
  std::vector<PgStateCount> pgs_by_state;  // most PGs first, then by name
  // From the primaries' reports (pg_stats.h), for PGs whose current primary reported: objects,
  // and degraded object copies = objects x shards of the PG not up (Ceph's degraded objects,
  // out of num_objects x size copies).
  std::uint64_t num_objects = 0;
  std::uint64_t degraded_objects = 0;
  std::uint64_t degraded_total = 0;
};

// Errors: only Placement::Create's for a map it would refuse (a map from MapStore never is).
// `stats`: the primaries' PG reports by OSD id (pg_stats.h); a PG counts the report of the OSD
// that is its primary in `map`, and nothing when that OSD has not reported it.
Result<StatusReport> BuildStatusReport(const ClusterMap& map, std::string cluster_id,
                                       const std::map<int, PgStatsReport>& stats = {});

// Ceph's `status -f json` shape: {"fsid", "health":{"status","checks":{CODE:{"severity",
// "summary":{"message","count"},"detail":[{"message"}], "muted":false}},"mutes":[]},
// "osdmap":{"epoch","num_osds","num_up_osds","osd_up_since","num_in_osds","osd_in_since",
// "num_remapped_pgs"}, "pgmap":{"pgs_by_state":[{"state_name","count"}],"num_pgs","num_pools",
// "num_objects", and when some are degraded "degraded_objects","degraded_total",
// "degraded_ratio"}}.
nlohmann::json StatusJson(const StatusReport& report);
// `health [detail] -f json`: the "health" object above (detail lines only with `detail`).
nlohmann::json HealthJson(const StatusReport& report, bool detail);
// `status` in plain text, ages relative to now_ms.
std::string RenderStatusPlain(const StatusReport& report, std::int64_t now_ms);
// `health`: "HEALTH_WARN 1 osds down; ..." ; with detail, then "[WRN] OSD_DOWN: 1 osds down" and
// each detail line indented by 4 spaces.
std::string RenderHealthPlain(const StatusReport& report, bool detail);
// Ceph's short age: "45s", "12m", "5h", "3d" (from a count of seconds, >= 0).
std::string ShortAge(std::int64_t seconds);

}  // namespace ec::cluster::admin
