// The cluster's status and health as `ceph -s` / `ceph health detail` show them, computed by a
// PURE function of the map and the PG primaries' reports: no I/O.
//
// PG states: pg_view.h (each PG's state: its primary's for the PG's current interval, "peering"
// while the primary has not reported peering it in this interval, "down" below k shards up, or
// the map's rule when the primary has not reported at all). The PG counts by state
// (`pgs_by_state`) and the PG lines of `health detail` print the same strings.
//
// Objects, degraded and misplaced objects and recovery come from the PG primaries' reports
// (cluster/map/pg_stats.h). A PG counts the report of the OSD that is its primary in the map:
// its objects whatever the report's interval, and its primary's own view (missing shards, bytes
// to recover) only when the report is of the PG's current interval (pg_view.h).
//
// Degraded and misplaced object copies (Ceph's "12/360 objects degraded", out of objects x size
// copies): per counted PG, objects x (size - u) copies have no up OSD; of the (object, position)
// pairs its primary still has to rebuild or copy (missing), `misplaced` (objects whose missing
// shards a previous OSD holds) are misplaced copies and the rest degraded ones. (One copy per
// misplaced object: exact when each has one moved position, the case of one OSD in or out.)
//
// Recovery (RecoveryStatus): the byte and object totals are summed over every report, whatever
// its epoch and whether its OSD is up (a dead OSD's last report keeps what it pulled; a restarted
// OSD starts from 0); the rates only over reports of OSDs up in the map, whatever their epoch (a
// rate is the OSD's pull work over its last interval, not a PG's view, so a report made just
// before a map change still says how fast it works; a down OSD works no more). Missing and
// recovered bytes are of the PGs whose primary's report is of their current interval, as states.
//
// Health checks (Ceph's codes and texts, all HEALTH_WARN; the status is the worst of them,
// HEALTH_OK when none), each PG by the flags of its state (cluster/map/pg_state.h):
//   OSD_DOWN          OSDs that are in and down: "N osds down", detail "osd.3
//                     (root=default,host=h1) is down"
//   PG_AVAILABILITY   PGs that are not active (peering, down, incomplete, peered, unknown):
//                     "Reduced data availability: N pgs inactive, M pgs down, P pgs peering,
//                     Q pgs incomplete" (the parts that are not 0, in Ceph's order; "1 pg")
//   PG_DEGRADED       PGs degraded or undersized (a reported state this version cannot read
//                     counts as degraded): "Degraded data redundancy: X/Y objects degraded
//                     (z%), N pgs degraded, M pgs undersized" (the objects part when X > 0)
//   OBJECT_MISPLACED  "N/T objects misplaced (x%)"
//   OSDMAP_FLAGS      the map's OSD flags set: "noout,norecover flag(s) set" (count 0, as Ceph)
// The PG checks' count is their PGs; their detail lists each PG once, as Ceph prints it ("pg 1.3
// is active+undersized+degraded, acting [2,NONE,1]", ", 2 unfound" added when its primary counts
// unfound objects), at most kMaxDetail lines. Ceph reports peering, inactive and undersized only
// once a PG is stuck so for mon_pg_stuck_threshold (60 s); these reports hold no stuck times,
// so they count at once. The scrub checks (OSD_SCRUB_ERRORS, PG_DAMAGED, HEALTH_ERR) come from the
// scrub records, scrub_health.h, added with AddHealthChecks.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster/admin/capacity.h"
#include "cluster/admin/pg_view.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/pg_stats.h"
#include "common/status.h"

namespace ec::cluster::admin {

inline constexpr std::size_t kMaxDetail = 50;  // Ceph's mon_health_max_detail

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

// A pool's share of the recovery, from its PGs counted at the map's epoch.
struct PoolRecovery {
  std::string name;
  std::uint64_t missing = 0;          // (object, position) pairs to rebuild or copy
  std::uint64_t missing_bytes = 0;    // their estimated shard bytes
  std::uint64_t recovered_bytes = 0;  // shard bytes recovered since the PGs peered
  std::int64_t since_ms = 0;          // earliest since_ms of the primaries with work here; 0: none
};

struct RecoveryStatus {
  // Totals over every report (see the header): bytes from helpers, helper device bytes, shard
  // bytes rebuilt or copied, objects pulled.
  std::uint64_t network_bytes = 0;
  std::uint64_t helper_device_bytes = 0;
  std::uint64_t rebuilt_bytes = 0;
  std::uint64_t objects = 0;
  // Rates over the reports of up OSDs.
  std::uint64_t bytes_per_sec = 0;
  std::uint64_t objects_per_sec = 0;
  // Over the PGs counted at the map's epoch (the sums of `pools`).
  std::uint64_t missing = 0;
  std::uint64_t missing_bytes = 0;
  std::uint64_t recovered_bytes = 0;
  std::int64_t since_ms = 0;
  std::map<std::int64_t, PoolRecovery> pools;  // by pool id: pools with missing > 0 only
  // The recovery that ended last, over every report (pg_stats.h RecoveryTotals::last_*): the
  // latest last_done_ms, and the earliest last_since_ms of the reports with one; 0: none ended.
  std::int64_t last_since_ms = 0;
  std::int64_t last_done_ms = 0;

  // Network bytes per rebuilt byte over the totals; nullopt when nothing was rebuilt.
  std::optional<double> NetworkPerRebuilt() const;
  // Seconds until missing_bytes are recovered at bytes_per_sec; nullopt at rate 0.
  std::optional<std::int64_t> RemainingSeconds(std::uint64_t bytes) const;
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
  std::string osd_flags;          // the map's flags set, "noout,noscrub" ("" when none)
  std::uint64_t num_pgs = 0;
  std::size_t num_pools = 0;
  std::vector<PgStateCount> pgs_by_state;  // most PGs first, then by name
  // From the primaries' reports (pg_stats.h), for PGs whose current primary reported: objects,
  // and degraded object copies = objects x shards of the PG not up (Ceph's degraded objects,
  // out of num_objects x size copies).
  std::uint64_t num_objects = 0;
  std::uint64_t degraded_objects = 0;
  std::uint64_t degraded_total = 0;  // also Ceph's misplaced_total
  std::uint64_t misplaced_objects = 0;
  RecoveryStatus recovery;
  // Capacity and client I/O (capacity.h): not from BuildStatusReport; the caller fills it in with
  // BuildUsage (empty: no OSD reported, shown as 0).
  ClusterUsage usage;
  // The up OSDs by the auth_cluster_required they run with ("cephx", "none"), from their running
  // config reports (cluster/config/running_config.h); an up OSD without a report is not counted.
  // Not from BuildStatusReport: the caller fills it in (empty: shown as "unknown").
  std::map<std::string, int> auth_modes;
};

// "cephx" or "none" when every counted OSD runs with that, "mixed (5 cephx, 2 none)" when they
// differ, "unknown" when none is counted: the `auth:` line of `status` (issue 32 item 5, so that a
// benchmark run without authentication says so).
std::string AuthSummary(const std::map<std::string, int>& auth_modes);

// Errors: only Placement::Create's for a map it would refuse (a map from MapStore never is).
// `stats`: the primaries' PG reports by OSD id (pg_stats.h); a PG counts the report of the OSD
// that is its primary in `map`, and nothing when that OSD has not reported it.
Result<StatusReport> BuildStatusReport(const ClusterMap& map, std::string cluster_id,
                                       const std::map<int, PgStatsReport>& stats = {});

// Ceph's `status -f json` shape: {"fsid", "health":{"status","checks":{CODE:{"severity",
// "summary":{"message","count"},"detail":[{"message"}], "muted":false}},"mutes":[]},
// "osdmap":{"epoch","num_osds","num_up_osds","osd_up_since","num_in_osds","osd_in_since",
// "num_remapped_pgs"}, "pgmap":{"pgs_by_state":[{"state_name","count"}],"num_pgs","num_pools",
// "num_objects","data_bytes","bytes_used","bytes_avail","bytes_total" (usage),
// "read_bytes_sec","write_bytes_sec","read_op_per_sec","write_op_per_sec" (the up OSDs' client
// rates over their last report interval; always present, 0 when idle, where Ceph leaves them
// out), "num_objects_recovered","num_bytes_recovered" (recovery totals of every report: objects
// pulled, shard bytes rebuilt or copied, cumulative since each OSD started), and when some are
// degraded "degraded_objects","degraded_total","degraded_ratio"}}.
nlohmann::json StatusJson(const StatusReport& report);
// `health [detail] -f json`: the "health" object above (detail lines only with `detail`).
nlohmann::json HealthJson(const StatusReport& report, bool detail);
// `status` in plain text, ages relative to now_ms; the osd line followed by "flags noout,..."
// when flags are set (as Ceph); under "data:", Ceph's "objects: N objects, X" (stored bytes) and
// "usage:   X used, Y / Z avail" lines; with client I/O, "io:" has Ceph's "client:   X/s rd, Y/s
// wr, N op/s rd, M op/s wr" (a direction's bytes only when it has ops); with recovery, Ceph's
// "io:" section
// ("recovery: 12 MiB/s, 3 objects/s" while it runs, and our network-per-rebuilt ratio once
// anything was rebuilt) and "progress:" section (progress_report.h) after "data:".
std::string RenderStatusPlain(const StatusReport& report, std::int64_t now_ms);
// `health`: "HEALTH_WARN 1 osds down; ..." ; with detail, then "[WRN] OSD_DOWN: 1 osds down" and
// each detail line indented by 4 spaces.
std::string RenderHealthPlain(const StatusReport& report, bool detail);
// Ceph's short age: "45s", "12m", "5h", "3d" (from a count of seconds, >= 0).
std::string ShortAge(std::int64_t seconds);

}  // namespace ec::cluster::admin
