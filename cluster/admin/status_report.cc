#include "cluster/admin/status_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "cluster/admin/progress_report.h"
#include "cluster/map/object_locator.h"
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

const char* kWarn = "HEALTH_WARN";

// Ceph's "8/72 objects degraded (11.111%)" (what: degraded, misplaced).
std::string ObjectsLine(std::uint64_t count, std::uint64_t total, const char* what) {
  const double pct =
      total == 0 ? 0.0 : 100.0 * static_cast<double>(count) / static_cast<double>(total);
  return fmt::format("{}/{} objects {} ({:.3f}%)", count, total, what, pct);
}

std::uint64_t Count(std::int64_t v) {
  return v < 0 ? 0 : static_cast<std::uint64_t>(v);
}

// "active+clean" with only scrub flags after it ("+scrubbing", "+scrubbing+deep", "+repair",
// "+inconsistent"): a PG being scrubbed, or with inconsistent objects, is not degraded (an
// inconsistent one is PG_DAMAGED's, scrub_health.h).
bool IsCleanState(std::string_view state) {
  constexpr std::string_view kClean = "active+clean";
  if (state.substr(0, kClean.size()) != kClean) return false;
  std::string_view rest = state.substr(kClean.size());
  while (!rest.empty()) {
    if (rest[0] != '+') return false;
    rest.remove_prefix(1);
    const std::string_view flag = rest.substr(0, rest.find('+'));
    if (flag != "scrubbing" && flag != "deep" && flag != "repair" && flag != "inconsistent") {
      return false;
    }
    rest.remove_prefix(flag.size());
  }
  return true;
}

std::string DegradedObjects(const StatusReport& r) {
  return ObjectsLine(r.degraded_objects, r.degraded_total, "degraded");
}

}  // namespace

std::optional<double> RecoveryStatus::NetworkPerRebuilt() const {
  if (rebuilt_bytes == 0) return std::nullopt;
  return static_cast<double>(network_bytes) / static_cast<double>(rebuilt_bytes);
}

std::optional<std::int64_t> RecoveryStatus::RemainingSeconds(std::uint64_t bytes) const {
  if (bytes_per_sec == 0) return std::nullopt;
  return static_cast<std::int64_t>((bytes + bytes_per_sec - 1) / bytes_per_sec);
}

Result<StatusReport> BuildStatusReport(const ClusterMap& map, std::string cluster_id,
                                       const std::map<int, PgStatsReport>& stats) {
  StatusReport r;
  r.cluster_id = std::move(cluster_id);
  r.epoch = map.epoch;
  HealthCheck osd_down{"OSD_DOWN", kWarn, "", 0, {}};
  for (const auto& [id, osd] : map.osds) {
    ++r.num_osds;
    if (osd.up) {
      ++r.num_up_osds;
      r.osd_up_since = std::max(r.osd_up_since, osd.up_stamp_ms / 1000);
    }
    if (osd.in) {
      ++r.num_in_osds;
      r.osd_in_since = std::max(r.osd_in_since, osd.up_stamp_ms / 1000);
    }
    if (osd.in && !osd.up) {
      ++osd_down.count;
      osd_down.detail.push_back("osd." + std::to_string(id) + " (root=default,host=" + osd.host +
                                ") is down");
    }
  }

  Result<Placement> placement = PlacementFor(map);
  if (!placement.ok()) return placement.status();
  std::map<std::string, std::uint64_t> by_state;
  HealthCheck availability{"PG_AVAILABILITY", kWarn, "", 0, {}};
  HealthCheck degraded{"PG_DEGRADED", kWarn, "", 0, {}};
  std::uint64_t down = 0, undersized = 0;
  r.num_pools = map.pools.size();
  for (const auto& [pool_id, pool] : map.pools) {
    r.num_pgs += pool.pg_num;
    Result<PoolPlacement> pp = PlacementOf(map, pool);
    Result<PoolGeometry> geometry =
        pp.ok() ? GeometryOf(map.profiles.at(pool.profile).profile) : pp.status();
    if (!geometry.ok()) {
      by_state[PgStateName(PgState::kUnknown)] += pool.pg_num;
      continue;
    }
    for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
      Result<std::vector<int>> acting = placement->Place(*pp, pg);
      if (!acting.ok()) return acting.status();
      const std::vector<int> up = placement->UpSet(*acting);
      const int u = static_cast<int>(
          std::count_if(up.begin(), up.end(), [](int osd) { return osd != kItemNone; }));
      PgState state = ComputePgState(u, pp->size, pool.min_size, geometry->k);
      std::string state_name = PgStateName(state);
      const int primary = FirstUp(up);
      auto report = stats.find(primary);
      if (report != stats.end()) {
        auto pg_stat = report->second.pgs.find(PgName(pool_id, pg));
        if (pg_stat != report->second.pgs.end()) {
          const PgStat& st = pg_stat->second;
          const auto objects = static_cast<std::uint64_t>(st.objects);
          r.num_objects += objects;
          r.degraded_total += objects * static_cast<std::uint64_t>(pp->size);
          r.degraded_objects += objects * static_cast<std::uint64_t>(pp->size - u);
          // The primary's own view, when made at this map: its state names recovery, and the
          // shards it still has to rebuild or copy on up OSDs are degraded or misplaced copies.
          if (report->second.epoch == map.epoch && !st.state.empty()) {
            state_name = st.state;
            const std::uint64_t missing = Count(st.missing);
            const std::uint64_t misplaced = std::min(Count(st.misplaced), missing);
            r.misplaced_objects += misplaced;
            r.degraded_objects += missing - misplaced;
            if (state == PgState::kActiveClean && !IsCleanState(st.state)) {
              state = PgState::kActiveDegraded;
            }
            if (missing > 0) {
              PoolRecovery& pr = r.recovery.pools[pool_id];
              pr.name = pool.name;
              pr.missing += missing;
              pr.missing_bytes += Count(st.missing_bytes);
              pr.recovered_bytes += Count(st.recovered_bytes);
              const std::int64_t since = report->second.recovery.since_ms;
              if (since > 0 && (pr.since_ms == 0 || since < pr.since_ms)) pr.since_ms = since;
            }
          }
        }
      }
      ++by_state[state_name];
      if (state == PgState::kActiveClean) continue;
      const std::string line =
          "pg " + PgName(pool_id, pg) + " is " + state_name + ", acting " + OsdList(up);
      if (state == PgState::kActiveDegraded || state == PgState::kPeeredDegraded) {
        ++degraded.count;
        if (u < pp->size) ++undersized;
        if (degraded.detail.size() < kMaxDetail) degraded.detail.push_back(line);
      }
      if (state == PgState::kPeeredDegraded || state == PgState::kDown) {
        ++availability.count;
        if (state == PgState::kDown) ++down;
        if (availability.detail.size() < kMaxDetail) availability.detail.push_back(line);
      }
    }
  }
  for (const auto& [name, count] : by_state) r.pgs_by_state.push_back({name, count});
  RecoveryStatus& rec = r.recovery;
  for (const auto& [id, pool] : rec.pools) {
    rec.missing += pool.missing;
    rec.missing_bytes += pool.missing_bytes;
    rec.recovered_bytes += pool.recovered_bytes;
    if (pool.since_ms > 0 && (rec.since_ms == 0 || pool.since_ms < rec.since_ms)) {
      rec.since_ms = pool.since_ms;
    }
  }
  for (const auto& [osd, report] : stats) {
    const RecoveryTotals& t = report.recovery;
    rec.network_bytes += Count(t.network_bytes);
    rec.helper_device_bytes += Count(t.helper_device_bytes);
    rec.rebuilt_bytes += Count(t.rebuilt_bytes);
    rec.objects += Count(t.objects);
    auto entry = map.osds.find(osd);
    if (entry != map.osds.end() && entry->second.up) {
      rec.bytes_per_sec += Count(t.rebuilt_bytes_per_sec);
      rec.objects_per_sec += Count(t.objects_per_sec);
    }
  }
  std::stable_sort(r.pgs_by_state.begin(), r.pgs_by_state.end(),
                   [](const PgStateCount& a, const PgStateCount& b) { return a.count > b.count; });

  if (r.misplaced_objects > 0) {
    r.checks.push_back(HealthCheck{"OBJECT_MISPLACED",
                                   kWarn,
                                   ObjectsLine(r.misplaced_objects, r.degraded_total, "misplaced"),
                                   r.misplaced_objects,
                                   {}});
  }
  if (osd_down.count > 0) {
    osd_down.summary = std::to_string(osd_down.count) + " osds down";
    r.checks.push_back(std::move(osd_down));
  }
  if (availability.count > 0) {
    availability.summary =
        "Reduced data availability: " + std::to_string(availability.count) + " pgs inactive";
    if (down > 0) availability.summary += ", " + std::to_string(down) + " pgs down";
    r.checks.push_back(std::move(availability));
  }
  if (degraded.count > 0) {
    degraded.summary = "Degraded data redundancy: ";
    if (r.degraded_objects > 0) degraded.summary += DegradedObjects(r) + ", ";
    degraded.summary += std::to_string(degraded.count) + " pgs degraded, " +
                        std::to_string(undersized) + " pgs undersized";
    r.checks.push_back(std::move(degraded));
  }
  for (const HealthCheck& c : r.checks) {
    if (c.severity == "HEALTH_ERR" || r.health_status == "HEALTH_OK") r.health_status = c.severity;
  }
  return r;
}

nlohmann::json HealthJson(const StatusReport& report, bool detail) {
  nlohmann::json checks = nlohmann::json::object();
  for (const HealthCheck& c : report.checks) {
    nlohmann::json check = {{"severity", c.severity},
                            {"summary", {{"message", c.summary}, {"count", c.count}}},
                            {"muted", false}};
    if (detail) {
      nlohmann::json lines = nlohmann::json::array();
      for (const std::string& d : c.detail) lines.push_back({{"message", d}});
      check["detail"] = std::move(lines);
    }
    checks[c.code] = std::move(check);
  }
  return {{"status", report.health_status},
          {"checks", std::move(checks)},
          {"mutes", nlohmann::json::array()}};
}

nlohmann::json StatusJson(const StatusReport& report) {
  nlohmann::json states = nlohmann::json::array();
  for (const PgStateCount& s : report.pgs_by_state) {
    states.push_back({{"state_name", s.state_name}, {"count", s.count}});
  }
  nlohmann::json pgmap = {{"pgs_by_state", std::move(states)},
                          {"num_pgs", report.num_pgs},
                          {"num_pools", report.num_pools},
                          {"num_objects", report.num_objects}};
  const auto ratio = [&](std::uint64_t n) {
    return report.degraded_total == 0
               ? 0.0
               : static_cast<double>(n) / static_cast<double>(report.degraded_total);
  };
  if (report.degraded_objects > 0) {
    pgmap["degraded_objects"] = report.degraded_objects;
    pgmap["degraded_total"] = report.degraded_total;
    pgmap["degraded_ratio"] = ratio(report.degraded_objects);
  }
  if (report.misplaced_objects > 0) {
    pgmap["misplaced_objects"] = report.misplaced_objects;
    pgmap["misplaced_total"] = report.degraded_total;
    pgmap["misplaced_ratio"] = ratio(report.misplaced_objects);
  }
  const RecoveryStatus& rec = report.recovery;
  if (rec.missing > 0 || rec.bytes_per_sec > 0 || rec.objects_per_sec > 0) {
    pgmap["recovering_bytes_per_sec"] = rec.bytes_per_sec;
    pgmap["recovering_objects_per_sec"] = rec.objects_per_sec;
  }
  const std::optional<double> per_rebuilt = rec.NetworkPerRebuilt();
  pgmap["recovery"] = {
      {"network_bytes", rec.network_bytes},
      {"helper_device_bytes", rec.helper_device_bytes},
      {"rebuilt_bytes", rec.rebuilt_bytes},
      {"objects_recovered", rec.objects},
      {"network_per_rebuilt", per_rebuilt ? nlohmann::json(*per_rebuilt) : nlohmann::json()},
      {"missing_bytes", rec.missing_bytes},
      {"recovered_bytes", rec.recovered_bytes}};
  nlohmann::json progress = nlohmann::json::object();
  for (const ProgressEvent& e : ProgressEvents(report)) {
    progress[e.id] = {{"message", e.message}, {"progress", e.progress}};
  }
  return {{"fsid", report.cluster_id},
          {"health", HealthJson(report, true)},
          {"osdmap",
           {{"epoch", report.epoch},
            {"num_osds", report.num_osds},
            {"num_up_osds", report.num_up_osds},
            {"osd_up_since", report.osd_up_since},
            {"num_in_osds", report.num_in_osds},
            {"osd_in_since", report.osd_in_since},
            {"num_remapped_pgs", 0}}},
          {"pgmap", std::move(pgmap)},
          {"progress_events", std::move(progress)}};
}

std::string ShortAge(std::int64_t seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 120) return std::to_string(seconds) + "s";
  if (seconds < 2 * 3600) return std::to_string(seconds / 60) + "m";
  if (seconds < 2 * 86400) return std::to_string(seconds / 3600) + "h";
  return std::to_string(seconds / 86400) + "d";
}

std::string RenderStatusPlain(const StatusReport& report, std::int64_t now_ms) {
  const std::int64_t now = now_ms / 1000;
  std::string out = "  cluster:\n    id:     " + report.cluster_id +
                    "\n    health: " + report.health_status + "\n";
  for (const HealthCheck& c : report.checks) out += "            " + c.summary + "\n";
  out += "\n  services:\n    osd: " + std::to_string(report.num_osds) +
         " osds: " + std::to_string(report.num_up_osds) + " up";
  if (report.num_up_osds > 0) out += " (since " + ShortAge(now - report.osd_up_since) + ")";
  out += ", " + std::to_string(report.num_in_osds) + " in";
  if (report.num_in_osds > 0 && report.osd_in_since > 0) {
    out += " (since " + ShortAge(now - report.osd_in_since) + ")";
  }
  out += "\n\n  data:\n    pools:   " + std::to_string(report.num_pools) + " pools, " +
         std::to_string(report.num_pgs) +
         " pgs\n    objects: " + std::to_string(report.num_objects) + " objects\n    pgs:     ";
  bool first = true;
  for (const PgStateCount& s : report.pgs_by_state) {
    if (!first) out += "             ";
    out += std::to_string(s.count) + " " + s.state_name + "\n";
    first = false;
  }
  if (first) out += "\n";
  if (report.degraded_objects > 0) out += "             " + DegradedObjects(report) + "\n";
  if (report.misplaced_objects > 0) {
    out += "             " +
           ObjectsLine(report.misplaced_objects, report.degraded_total, "misplaced") + "\n";
  }
  return out + "\n" + RenderRecoveryPlain(report, now_ms);
}

std::string RenderHealthPlain(const StatusReport& report, bool detail) {
  std::string out = report.health_status;
  for (std::size_t i = 0; i < report.checks.size(); ++i) {
    out += (i == 0 ? " " : "; ") + report.checks[i].summary;
  }
  out += "\n";
  if (!detail) return out;
  for (const HealthCheck& c : report.checks) {
    out += std::string(c.severity == "HEALTH_ERR" ? "[ERR] " : "[WRN] ") + c.code + ": " +
           c.summary + "\n";
    for (const std::string& d : c.detail) out += "    " + d + "\n";
  }
  return out;
}

}  // namespace ec::cluster::admin
