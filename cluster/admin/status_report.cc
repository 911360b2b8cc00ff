#include "cluster/admin/status_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>
#include <vector>

#include "cluster/admin/progress_report.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pg_state.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {

namespace {

const char* kWarn = "HEALTH_WARN";

// Ceph's "8/72 objects degraded (11.111%)" (what: degraded, misplaced).
std::string ObjectsLine(std::uint64_t count, std::uint64_t total, const char* what) {
  const double pct =
      total == 0 ? 0.0 : 100.0 * static_cast<double>(count) / static_cast<double>(total);
  return fmt::format("{}/{} objects {} ({:.3f}%)", count, total, what, pct);
}

std::uint64_t Clamped(std::int64_t v) {
  return v < 0 ? 0 : static_cast<std::uint64_t>(v);
}

std::string DegradedObjects(const StatusReport& r) {
  return ObjectsLine(r.degraded_objects, r.degraded_total, "degraded");
}

// A PG health check as Ceph's PGMap builds it: the PGs in it (each listed once in the detail)
// and, per state flag that put PGs there, how many; the summary names them in the flags' order
// ("3 pgs inactive, 1 pg down, 2 pgs peering"; kActive stands for the PGs without it).
struct PgCheck {
  HealthCheck check;
  std::map<std::uint64_t, std::uint64_t> by_flag;

  // One PG, counted under each of `flags` (none: not in this check).
  void Add(const std::vector<std::uint64_t>& flags, const std::string& line) {
    if (flags.empty()) return;
    for (std::uint64_t f : flags) ++by_flag[f];
    ++check.count;
    if (check.detail.size() < kMaxDetail) check.detail.push_back(line);
  }
  std::string Parts() const {
    std::string out;
    for (const auto& [flag, n] : by_flag) {
      if (!out.empty()) out += ", ";
      const std::string name =
          flag == pg_state::kActive ? std::string("inactive") : PgStateString(flag);
      out += std::to_string(n) + (n == 1 ? " pg " : " pgs ") + name;
    }
    return out;
  }
};

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
  r.osd_flags = map.FlagsText();
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

  Result<std::vector<PgView>> pgs = ViewPgs(map, stats);
  if (!pgs.ok()) return pgs.status();
  std::map<std::string, std::uint64_t> by_state;
  PgCheck availability{{"PG_AVAILABILITY", kWarn, "", 0, {}}, {}};
  PgCheck degraded{{"PG_DEGRADED", kWarn, "", 0, {}}, {}};
  r.num_pools = map.pools.size();
  for (const auto& [pool_id, pool] : map.pools) r.num_pgs += pool.pg_num;
  for (const PgView& v : *pgs) {
    ++by_state[v.state];
    if (v.stat != nullptr) {
      const PgStat& st = *v.stat;
      const auto objects = static_cast<std::uint64_t>(st.objects);
      const auto size = static_cast<std::uint64_t>(v.size);
      r.num_objects += objects;
      r.degraded_total += objects * size;
      r.degraded_objects += objects * (size - static_cast<std::uint64_t>(v.up_count));
      // The primary's own view of this interval: the shards it still has to rebuild or copy on
      // up OSDs are degraded or misplaced copies.
      if (v.current) {
        const std::uint64_t missing = Clamped(st.missing);
        const std::uint64_t misplaced = std::min(Clamped(st.misplaced), missing);
        r.misplaced_objects += misplaced;
        r.degraded_objects += missing - misplaced;
        if (missing > 0) {
          PoolRecovery& pr = r.recovery.pools[v.pool_id];
          pr.name = map.pools.at(v.pool_id).name;
          pr.missing += missing;
          pr.missing_bytes += Clamped(st.missing_bytes);
          pr.recovered_bytes += Clamped(st.recovered_bytes);
          const std::int64_t since = stats.at(FirstUp(v.up)).recovery.since_ms;
          if (since > 0 && (pr.since_ms == 0 || since < pr.since_ms)) pr.since_ms = since;
        }
      }
    }
    std::string line = PgDetailLine(v, v.state);
    if (v.current && v.stat->unfound > 0) {
      line += ", " + std::to_string(v.stat->unfound) + " unfound";
    }
    // A state this version cannot read is not known to be well: degraded.
    const std::uint64_t flags = v.flags.value_or(pg_state::kActive | pg_state::kDegraded);
    std::vector<std::uint64_t> unavailable, redundancy;
    if ((flags & pg_state::kActive) == 0) unavailable.push_back(pg_state::kActive);  // inactive
    for (std::uint64_t f : {pg_state::kDown, pg_state::kPeering, pg_state::kIncomplete}) {
      if ((flags & f) != 0) unavailable.push_back(f);
    }
    for (std::uint64_t f : {pg_state::kDegraded, pg_state::kUndersized}) {
      if ((flags & f) != 0) redundancy.push_back(f);
    }
    availability.Add(unavailable, line);
    degraded.Add(redundancy, line);
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
    rec.network_bytes += Clamped(t.network_bytes);
    rec.helper_device_bytes += Clamped(t.helper_device_bytes);
    rec.rebuilt_bytes += Clamped(t.rebuilt_bytes);
    rec.objects += Clamped(t.objects);
    // The last run that ended anywhere: the latest end, and the earliest start of the runs that
    // ended (a run of one OSD may begin before another's and end after it).
    if (t.last_done_ms > 0) {
      rec.last_done_ms = std::max(rec.last_done_ms, t.last_done_ms);
      if (t.last_since_ms > 0 && (rec.last_since_ms == 0 || t.last_since_ms < rec.last_since_ms)) {
        rec.last_since_ms = t.last_since_ms;
      }
    }
    auto entry = map.osds.find(osd);
    if (entry != map.osds.end() && entry->second.up) {
      rec.bytes_per_sec += Clamped(t.rebuilt_bytes_per_sec);
      rec.objects_per_sec += Clamped(t.objects_per_sec);
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
  if (!r.osd_flags.empty()) {
    r.checks.push_back(HealthCheck{"OSDMAP_FLAGS", kWarn, r.osd_flags + " flag(s) set", 0, {}});
  }
  if (osd_down.count > 0) {
    osd_down.summary = std::to_string(osd_down.count) + " osds down";
    r.checks.push_back(std::move(osd_down));
  }
  if (availability.check.count > 0) {
    availability.check.summary = "Reduced data availability: " + availability.Parts();
    r.checks.push_back(std::move(availability.check));
  }
  if (degraded.check.count > 0) {
    degraded.check.summary = "Degraded data redundancy: ";
    if (r.degraded_objects > 0) degraded.check.summary += DegradedObjects(r) + ", ";
    degraded.check.summary += degraded.Parts();
    r.checks.push_back(std::move(degraded.check));
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
                          {"num_objects", report.num_objects},
                          {"data_bytes", report.usage.stored},
                          {"bytes_used", report.usage.used},
                          {"bytes_avail", report.usage.avail},
                          {"bytes_total", report.usage.total},
                          {"read_bytes_sec", report.usage.rates.rd_bytes},
                          {"write_bytes_sec", report.usage.rates.wr_bytes},
                          {"read_op_per_sec", report.usage.rates.rd},
                          {"write_op_per_sec", report.usage.rates.wr},
                          {"num_objects_recovered", report.recovery.objects},
                          {"num_bytes_recovered", report.recovery.rebuilt_bytes}};
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
          {"auth", {{"mode", AuthSummary(report.auth_modes)}, {"osds", report.auth_modes}}},
          {"progress_events", std::move(progress)}};
}

std::string AuthSummary(const std::map<std::string, int>& auth_modes) {
  if (auth_modes.empty()) return "unknown";
  if (auth_modes.size() == 1) return auth_modes.begin()->first;
  std::string out = "mixed (";
  // Most OSDs first.
  std::vector<std::pair<std::string, int>> by_count(auth_modes.begin(), auth_modes.end());
  std::stable_sort(by_count.begin(), by_count.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  for (std::size_t i = 0; i < by_count.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(by_count[i].second) + " " + by_count[i].first;
  }
  return out + ")";
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
  if (!report.osd_flags.empty()) out += "\n         flags " + report.osd_flags;
  out += "\n    auth: " + AuthSummary(report.auth_modes);
  out += "\n\n  data:\n    pools:   " + std::to_string(report.num_pools) + " pools, " +
         std::to_string(report.num_pgs) +
         " pgs\n    objects: " + std::to_string(report.num_objects) + " objects, " +
         HumanBytes(report.usage.stored) + "\n    usage:   " + HumanBytes(report.usage.used) +
         " used, " + HumanBytes(report.usage.avail) + " / " + HumanBytes(report.usage.total) +
         " avail\n    pgs:     ";
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
