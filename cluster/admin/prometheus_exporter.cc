// Names, help texts and types follow ceph-mgr's prometheus module (module.py:
// _setup_static_metrics, get_health, get_df, get_pg_status, get_osd_stats,
// get_metadata_and_osd_status, get_num_objects) and the OSD perf counters it exports
// (src/osd/osd_perf_counters.cc).
#include "cluster/admin/prometheus_exporter.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cluster/admin/capacity.h"
#include "cluster/admin/pg_view.h"
#include "common/metrics.h"

namespace ec::cluster::admin {
namespace {

using Type = PrometheusText::Type;

std::int64_t Int(std::uint64_t v) {
  return v > static_cast<std::uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<std::int64_t>(v);
}

std::uint64_t Count(std::int64_t v) {
  return v < 0 ? 0 : static_cast<std::uint64_t>(v);
}

std::string Name(std::string_view prefix, std::string_view what) {
  std::string out = "ceph_" + std::string(prefix) + std::string(what);
  for (char& c : out) {
    if (c == '-') c = '_';  // module.py's promethize: nodeep-scrub -> nodeep_scrub
  }
  return out;
}

std::string Daemon(int osd) {
  return "osd." + std::to_string(osd);
}

// "127.0.0.1:6800" -> "127.0.0.1" (module.py: rsplit(':', 1)[0]).
std::string AddrHost(const std::string& addr) {
  const auto colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}

int HealthNumber(const std::string& status) {
  if (status == "HEALTH_ERR") return 2;
  return status == "HEALTH_WARN" ? 1 : 0;
}

void Health(const StatusReport& status, PrometheusText* t) {
  t->Family("ceph_health_status", "Cluster health status", Type::kUntyped);
  t->IntSample({}, HealthNumber(status.health_status));
  t->Family("ceph_health_detail", "healthcheck status by type (0=inactive, 1=active)",
            Type::kGauge);
  for (const HealthCheck& c : status.checks) {
    t->IntSample({{"name", c.code}, {"severity", c.severity}}, 1);
  }
}

void OsdFlags(const ClusterMap& map, PrometheusText* t) {
  for (std::string_view flag : kOsdFlags) {
    t->Family(Name("osd_flag_", flag), "OSD Flag " + std::string(flag), Type::kUntyped);
    t->IntSample({}, map.HasFlag(flag) ? 1 : 0);
  }
}

void OsdMetadataAndStatus(const ClusterMap& map, PrometheusText* t) {
  t->Family("ceph_osd_metadata", "OSD Metadata", Type::kUntyped);
  for (const auto& [id, o] : map.osds) {
    if (o.addr.empty()) continue;  // never booted: no address (Ceph skips these too)
    const std::string ip = AddrHost(o.addr);
    t->IntSample({{"back_iface", ""},
                  {"ceph_daemon", Daemon(id)},
                  {"cluster_addr", ip},
                  {"device_class", "ssd"},
                  {"front_iface", ""},
                  {"hostname", o.host},
                  {"objectstore", "ecstore"},
                  {"public_addr", ip},
                  {"ceph_version", ""}},
                 1);
  }
  const std::pair<const char*, bool OsdEntry::*> states[] = {{"up", &OsdEntry::up},
                                                             {"in", &OsdEntry::in}};
  t->Family("ceph_osd_weight", "OSD status weight", Type::kUntyped);
  for (const auto& [id, o] : map.osds) t->IntSample({{"ceph_daemon", Daemon(id)}}, o.in ? 1 : 0);
  for (const auto& [state, field] : states) {
    t->Family(Name("osd_", state), std::string("OSD status ") + state, Type::kUntyped);
    for (const auto& [id, o] : map.osds) {
      t->IntSample({{"ceph_daemon", Daemon(id)}}, o.*field ? 1 : 0);
    }
  }
}

void PoolMetadata(const ClusterMap& map, PrometheusText* t) {
  t->Family("ceph_pool_metadata", "POOL Metadata", Type::kUntyped);
  for (const auto& [id, pool] : map.pools) {
    // Ceph's mgr module: "replica:3" for a replicated pool, "ec:4+2" for an erasure pool.
    std::string description = "ec:unknown";
    auto profile = map.profiles.find(pool.profile);
    if (pool.type == PoolType::kReplicated) {
      description = "replica:" + std::to_string(pool.size);
    } else if (profile != map.profiles.end()) {
      const ec::Profile& p = profile->second.profile;
      auto k = p.find("k");
      auto m = p.find("m");
      if (k != p.end() && m != p.end()) description = "ec:" + k->second + "+" + m->second;
    }
    t->IntSample({{"pool_id", std::to_string(id)},
                  {"name", pool.name},
                  {"type", std::string(PoolTypeName(pool.type))},
                  {"description", description},
                  {"compression_mode", "none"}},
                 1);
  }
}

void Df(const ClusterUsage& u, PrometheusText* t) {
  const std::pair<const char*, std::uint64_t> cluster[] = {
      {"total_bytes", u.total}, {"total_used_bytes", u.used}, {"total_used_raw_bytes", u.used}};
  for (const auto& [stat, value] : cluster) {
    t->Family(Name("cluster_", stat), std::string("DF ") + stat, Type::kGauge);
    t->IntSample({}, Int(value));
  }
  // module.py's DF_POOL, in its order (percent_used, a ratio, last); ecstore keeps no dirty
  // objects, quotas or compression.
  struct PoolStat {
    const char* name;
    std::uint64_t (*value)(const PoolUsage&);
  };
  static constexpr PoolStat kPoolStats[] = {
      {"max_avail", [](const PoolUsage& p) { return p.max_avail; }},
      {"avail_raw", [](const PoolUsage& p) { return p.avail_raw; }},
      {"stored", [](const PoolUsage& p) { return p.stored; }},
      {"stored_raw", [](const PoolUsage& p) { return p.used; }},
      {"objects", [](const PoolUsage& p) { return p.objects; }},
      {"dirty", [](const PoolUsage&) { return std::uint64_t{0}; }},
      {"quota_bytes", [](const PoolUsage&) { return std::uint64_t{0}; }},
      {"quota_objects", [](const PoolUsage&) { return std::uint64_t{0}; }},
      {"rd", [](const PoolUsage& p) { return Count(p.io.rd); }},
      {"rd_bytes", [](const PoolUsage& p) { return Count(p.io.rd_bytes); }},
      {"wr", [](const PoolUsage& p) { return Count(p.io.wr); }},
      {"wr_bytes", [](const PoolUsage& p) { return Count(p.io.wr_bytes); }},
      {"compress_bytes_used", [](const PoolUsage&) { return std::uint64_t{0}; }},
      {"compress_under_bytes", [](const PoolUsage&) { return std::uint64_t{0}; }},
      {"bytes_used", [](const PoolUsage& p) { return p.used; }},
  };
  for (const PoolStat& s : kPoolStats) {
    const std::string_view name = s.name;
    const bool counter = name == "rd" || name == "rd_bytes" || name == "wr" || name == "wr_bytes";
    t->Family(Name("pool_", name), "DF pool " + std::string(name),
              counter ? Type::kCounter : Type::kGauge);
    for (const PoolUsage& p : u.pools) {
      t->IntSample({{"pool_id", std::to_string(p.id)}}, Int(s.value(p)));
    }
  }
  t->Family("ceph_pool_percent_used", "DF pool percent_used", Type::kGauge);
  for (const PoolUsage& p : u.pools) t->Sample({{"pool_id", std::to_string(p.id)}}, p.percent_used);
}

void NumObjects(const StatusReport& status, PrometheusText* t) {
  std::uint64_t unfound = 0;
  for (const PoolUsage& p : status.usage.pools) unfound += p.unfound;
  const std::pair<const char*, std::uint64_t> counts[] = {{"degraded", status.degraded_objects},
                                                          {"misplaced", status.misplaced_objects},
                                                          {"unfound", unfound}};
  for (const auto& [what, n] : counts) {
    t->Family(Name("num_objects_", what), std::string("Number of ") + what + " objects",
              Type::kGauge);
    t->IntSample({}, Int(n));
  }
}

// module.py's get_pg_status: per pool, each state word of each PG counted, and the PGs.
void PgStatus(const ClusterMap& map, const std::vector<PgView>& views, PrometheusText* t) {
  std::map<std::int64_t, std::map<std::string, std::int64_t, std::less<>>> by_pool;
  for (const auto& [id, pool] : map.pools) by_pool[id];
  for (const PgView& v : views) {
    auto& counts = by_pool[v.pool_id];
    ++counts["total"];
    std::string_view rest = v.state;
    while (!rest.empty()) {
      const auto plus = rest.find('+');
      ++counts[std::string(rest.substr(0, plus))];
      rest = plus == std::string_view::npos ? std::string_view() : rest.substr(plus + 1);
    }
  }
  const auto family = [&](std::string_view state, const std::string& help) {
    t->Family(Name("pg_", state), help, Type::kGauge);
    for (const auto& [pool, counts] : by_pool) {
      auto n = counts.find(state);
      t->IntSample({{"pool_id", std::to_string(pool)}}, n == counts.end() ? 0 : n->second);
    }
  };
  family("total", "PG Total Count per Pool");
  for (std::string_view state : CephPgStates()) {
    family(state, "PG " + std::string(state) + " per pool");
  }
}

// The OSDs whose counters are exported: up in the map, with a report.
std::vector<const OsdStatsReport*> LiveReports(const ClusterReports& r) {
  std::vector<const OsdStatsReport*> out;
  for (const auto& [id, report] : r.osds) {
    auto o = r.map.osds.find(id);
    if (o != r.map.osds.end() && o->second.up) out.push_back(&report);
  }
  return out;
}

void OsdStats(const std::vector<const OsdStatsReport*>& live, PrometheusText* t) {
  const std::pair<const char*, double OsdPerfStat::*> stats[] = {
      {"apply_latency_ms", &OsdPerfStat::apply_latency_ms},
      {"commit_latency_ms", &OsdPerfStat::commit_latency_ms}};
  for (const auto& [stat, field] : stats) {
    t->Family(Name("osd_", stat), std::string("OSD stat ") + stat, Type::kGauge);
    for (const OsdStatsReport* r : live)
      t->Sample({{"ceph_daemon", Daemon(r->osd)}}, r->perf.*field);
  }
}

// The OSD perf counters ceph-mgr exports for each OSD daemon (osd_perf_counters.cc's names and
// descriptions), from each live OSD's report.
void OsdPerfCounters(const std::vector<const OsdStatsReport*>& live, const ClusterUsage& usage,
                     PrometheusText* t) {
  const auto per_osd = [&](const char* name, const std::string& help, Type type, auto value) {
    t->Family(Name("osd_", name), help, type);
    for (const OsdStatsReport* r : live) {
      const auto v = value(*r);
      if constexpr (std::is_floating_point_v<decltype(v)>) {
        t->Sample({{"ceph_daemon", Daemon(r->osd)}}, v);
      } else {
        t->IntSample({{"ceph_daemon", Daemon(r->osd)}}, Int(static_cast<std::uint64_t>(v)));
      }
    }
  };
  per_osd("op_r", "Client read operations", Type::kCounter,
          [](const OsdStatsReport& r) { return r.io.rd; });
  per_osd("op_r_out_bytes", "Client data read", Type::kCounter,
          [](const OsdStatsReport& r) { return r.io.rd_bytes; });
  per_osd("op_w", "Client write operations", Type::kCounter,
          [](const OsdStatsReport& r) { return r.io.wr; });
  per_osd("op_w_in_bytes", "Client data written", Type::kCounter,
          [](const OsdStatsReport& r) { return r.io.wr_bytes; });
  // Long-running averages as module.py renders them: _sum in seconds, _count operations.
  const std::string read_latency = "Latency of read operation (including queue time)";
  const std::string write_latency = "Latency of write operation (including queue time)";
  per_osd("op_r_latency_sum", read_latency + " Total", Type::kCounter,
          [](const OsdStatsReport& r) { return static_cast<double>(r.op_latency.rd_ns) / 1e9; });
  per_osd("op_r_latency_count", read_latency + " Count", Type::kCounter,
          [](const OsdStatsReport& r) { return r.io.rd; });
  per_osd("op_w_latency_sum", write_latency + " Total", Type::kCounter,
          [](const OsdStatsReport& r) { return static_cast<double>(r.op_latency.wr_ns) / 1e9; });
  per_osd("op_w_latency_count", write_latency + " Count", Type::kCounter,
          [](const OsdStatsReport& r) { return r.io.wr; });
  std::map<int, std::uint64_t> pgs;
  for (const OsdUsage& o : usage.osds) pgs[o.id] = o.pgs;
  per_osd("numpg", "Placement groups", Type::kGauge,
          [&pgs](const OsdStatsReport& r) { return pgs[r.osd]; });
  per_osd("stat_bytes", "OSD size", Type::kGauge,
          [](const OsdStatsReport& r) { return r.statfs.total; });
  per_osd("stat_bytes_used", "Used space", Type::kGauge,
          [](const OsdStatsReport& r) { return r.statfs.used(); });
  per_osd("stat_bytes_avail", "Available space", Type::kGauge,
          [](const OsdStatsReport& r) { return r.statfs.available; });
}

}  // namespace

const std::array<std::string_view, 34>& CephPgStates() {
  static constexpr std::array<std::string_view, 34> kStates = {"active",
                                                               "clean",
                                                               "down",
                                                               "recovery_unfound",
                                                               "backfill_unfound",
                                                               "scrubbing",
                                                               "degraded",
                                                               "inconsistent",
                                                               "peering",
                                                               "repair",
                                                               "recovering",
                                                               "forced_recovery",
                                                               "backfill_wait",
                                                               "incomplete",
                                                               "stale",
                                                               "remapped",
                                                               "deep",
                                                               "backfilling",
                                                               "forced_backfill",
                                                               "backfill_toofull",
                                                               "recovery_wait",
                                                               "recovery_toofull",
                                                               "undersized",
                                                               "activating",
                                                               "peered",
                                                               "snaptrim",
                                                               "snaptrim_wait",
                                                               "snaptrim_error",
                                                               "creating",
                                                               "unknown",
                                                               "premerge",
                                                               "failed_repair",
                                                               "laggy",
                                                               "wait"};
  return kStates;
}

Result<std::string> RenderClusterMetrics(const ClusterReports& reports) {
  Result<StatusReport> status = BuildClusterStatus(reports, reports.map.fsid);
  if (!status.ok()) return status.status();
  Result<std::vector<PgView>> views = ViewPgs(reports.map, reports.pgs);
  if (!views.ok()) return views.status();
  PrometheusText t;
  Health(*status, &t);
  OsdFlags(reports.map, &t);
  OsdMetadataAndStatus(reports.map, &t);
  PoolMetadata(reports.map, &t);
  Df(status->usage, &t);
  NumObjects(*status, &t);
  PgStatus(reports.map, *views, &t);
  const std::vector<const OsdStatsReport*> live = LiveReports(reports);
  OsdStats(live, &t);
  OsdPerfCounters(live, status->usage, &t);
  return t.text();
}

Result<std::string> ScrapeClusterMetrics(const AdminContext& ctx) {
  Result<ClusterReports> reports = LoadClusterReports(ctx, true);
  if (!reports.ok()) return reports.status();
  return RenderClusterMetrics(*reports);
}

}  // namespace ec::cluster::admin
