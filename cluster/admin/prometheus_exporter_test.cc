// Issue 29 item 5: the cluster exporter rendered from in-process data (a map, the PG primaries'
// reports, the OSDs' reports, a scrub result), its Prometheus text parsed back by a small line
// parser of the test's own, and every family ceph-mgr's prometheus module would export checked
// for its type, help text, labels and values.
#include "cluster/admin/prometheus_exporter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/admin/placement_test_util.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

// --- A tiny parser of the text format: "# HELP", "# TYPE" and sample lines. ---

using LabelSet = std::map<std::string, std::string>;

struct Family {
  std::string help;
  std::string type;
  std::vector<std::pair<LabelSet, double>> samples;
};

struct Page {
  std::map<std::string, Family> families;
  std::vector<std::string> order;  // family names as they appear
  std::vector<std::string> errors;

  // The sample of `name` whose labels include `match` (exactly one), or NaN (a failure).
  double Value(const std::string& name, const LabelSet& match = {}) const {
    auto f = families.find(name);
    if (f == families.end()) {
      ADD_FAILURE() << "no family " << name;
      return NAN;
    }
    const double* found = nullptr;
    for (const auto& [labels, value] : f->second.samples) {
      bool all = true;
      for (const auto& [k, v] : match) {
        auto l = labels.find(k);
        all = all && l != labels.end() && l->second == v;
      }
      if (!all) continue;
      if (found != nullptr) ADD_FAILURE() << "several samples of " << name << " match";
      found = &value;
    }
    if (found == nullptr) {
      ADD_FAILURE() << "no sample of " << name << " matches";
      return NAN;
    }
    return *found;
  }
  std::size_t Samples(const std::string& name) const {
    auto f = families.find(name);
    return f == families.end() ? 0 : f->second.samples.size();
  }
};

// name{a="x",b="y\"z"} 1.5  |  name 3
bool ParseSample(const std::string& line, std::string* name, LabelSet* labels, double* value) {
  std::size_t i = 0;
  while (i < line.size() && line[i] != '{' && line[i] != ' ') ++i;
  *name = line.substr(0, i);
  if (i < line.size() && line[i] == '{') {
    ++i;
    while (i < line.size() && line[i] != '}') {
      const std::size_t eq = line.find("=\"", i);
      if (eq == std::string::npos) return false;
      const std::string key = line.substr(i, eq - i);
      std::string v;
      std::size_t j = eq + 2;
      for (; j < line.size() && line[j] != '"'; ++j) {
        if (line[j] == '\\' && j + 1 < line.size()) {
          ++j;
          v += line[j] == 'n' ? '\n' : line[j];
        } else {
          v += line[j];
        }
      }
      if (j >= line.size() || labels->count(key) != 0) return false;
      (*labels)[key] = v;
      i = j + 1;
      if (i < line.size() && line[i] == ',') ++i;
    }
    if (i >= line.size()) return false;
    ++i;  // '}'
  }
  if (i >= line.size() || line[i] != ' ') return false;
  const std::string text = line.substr(i + 1);
  if (text == "+Inf" || text == "-Inf" || text == "NaN") return false;  // none expected here
  std::size_t used = 0;
  try {
    *value = std::stod(text, &used);
  } catch (...) {
    return false;
  }
  return used == text.size();
}

Page Parse(const std::string& text) {
  Page page;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) {
      page.errors.push_back("no newline at the end");
      break;
    }
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      const std::size_t space = line.find(' ', 7);
      const std::string name = line.substr(7, space - 7);
      const std::string rest = space == std::string::npos ? "" : line.substr(space + 1);
      Family& f = page.families[name];
      if (line[2] == 'H') {
        if (!f.help.empty() || !f.type.empty()) page.errors.push_back("HELP again: " + line);
        f.help = rest;
        page.order.push_back(name);
      } else {
        if (f.help.empty() || !f.type.empty()) page.errors.push_back("TYPE out of place: " + line);
        f.type = rest;
      }
      continue;
    }
    std::string name;
    LabelSet labels;
    double value = 0;
    if (!ParseSample(line, &name, &labels, &value)) {
      page.errors.push_back("bad sample line: " + line);
      continue;
    }
    // A sample belongs to the family announced just before.
    if (page.order.empty() || page.order.back() != name || page.families[name].type.empty()) {
      page.errors.push_back("sample outside its family: " + line);
      continue;
    }
    page.families[name].samples.emplace_back(std::move(labels), value);
  }
  return page;
}

// --- The cluster. ---

// Epoch 20, fsid "f", flags noout and noscrub. osd.0-5 up and in on hosts h0-h2, addresses
// 127.0.0.1:680N; osd.6 in but down, weight 0 (placement never picks it), never booted (no
// address). Pool 1 "p" (profile rs: k=2 m=2, failure domain osd) with 8 PGs, pool 2 "q" with 4.
ClusterMap TestMap() {
  ClusterMap map;
  map.epoch = 20;
  map.fsid = "f";
  map.flags = {"noout", "noscrub"};
  map.profiles["rs"] = EcProfile{
      "rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "2"}, {"crush-failure-domain", "osd"}}};
  map.pools[1] = Pool{1, "p", "rs", 8, 4096, 3};
  map.pools[2] = Pool{2, "q", "rs", 4, 4096, 3};
  for (int i = 0; i < 7; ++i) {
    OsdEntry o;
    o.id = i;
    o.host = "h" + std::to_string(i % 3);
    o.up = i < 6;
    o.addr = i < 6 ? "127.0.0.1:680" + std::to_string(i) : "";
    o.weight = i < 6 ? 1.0 : 0.0;
    map.osds[i] = o;
  }
  return map;
}

using testing::Locate;
using testing::Located;

// The primary's report of a PG for its current interval: its state is the one shown.
PgStat& Report(ClusterReports* r, std::int64_t pool, std::uint32_t pg, const std::string& state,
               std::int64_t objects, std::int64_t bytes) {
  const Located at = Locate(r->map, pool, pg);
  PgStatsReport& report = r->pgs[at.primary];
  report.osd = at.primary;
  report.epoch = r->map.epoch;
  PgStat& st = report.pgs[PgName(pool, pg)];
  st.state = state;
  st.objects = objects;
  st.bytes = bytes;
  st.up = at.up;
  st.acting = at.acting;
  return st;
}

constexpr std::int64_t kTotal = 1 << 30;
constexpr std::int64_t kAvailable = 600 << 20;

OsdStatsReport OsdReport(int osd) {
  OsdStatsReport r;
  r.osd = osd;
  r.stamp_ms = 1700000000000;
  r.statfs = {kTotal, kAvailable, kTotal - kAvailable - (8 << 20), 0, 8 << 20};
  r.io = {10 + osd, 4096 * (10 + osd), 5 + osd, 8192 * (5 + osd)};
  r.pools[1] = {10 + osd, 4096 * (10 + osd), 5, 8192 * 5};
  r.pools[2] = {0, 0, osd, 8192 * osd};
  r.perf = {0.5 + osd, 0.5 + osd, 7};
  r.op_latency = {1'500'000'000LL * (osd + 1), 250'000'000LL * (osd + 1)};
  return r;
}

ClusterReports TestReports() {
  ClusterReports r;
  r.map = TestMap();
  // Pool 1: one PG per state of interest, 10 objects of 4 KiB each.
  const std::vector<std::string> states = {"active+clean",
                                           "active+undersized+degraded",
                                           "active+recovering+degraded",
                                           "active+clean+scrubbing+deep",
                                           "peering",
                                           "active+clean",
                                           "active+remapped+backfilling",
                                           "active+clean"};
  for (std::uint32_t pg = 0; pg < 8; ++pg) {
    PgStat& st = Report(&r, 1, pg, states[pg], 10, 10 * 4096);
    if (pg == 1) {
      st.missing = 4;
      st.misplaced = 1;
      st.unfound = 2;
    }
  }
  for (std::uint32_t pg = 0; pg < 4; ++pg) Report(&r, 2, pg, "active+clean", 5, 5000);
  // Every OSD reported, osd.6 too (down: its I/O counts for the pools, nothing else).
  for (int osd = 0; osd < 7; ++osd) r.osds[osd] = OsdReport(osd);
  // A deep scrub of 1.2 that left errors: OSD_SCRUB_ERRORS and PG_DAMAGED, HEALTH_ERR.
  ScrubResult scrub;
  scrub.pgid = "1.2";
  scrub.osd = 0;
  scrub.epoch = 20;
  scrub.kind = ScrubKind::kDeepScrub;
  scrub.errors = 3;
  scrub.truncated = true;
  r.scrubs["1.2"] = scrub;
  return r;
}

Page Render(const ClusterReports& reports) {
  Result<std::string> text = RenderClusterMetrics(reports);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  if (!text.ok()) return {};
  Page page = Parse(*text);
  for (const std::string& e : page.errors) ADD_FAILURE() << e;
  return page;
}

// Every family the exporter promises, with ceph-mgr's type, help text and label names.
struct Expected {
  std::string name;
  std::string type;
  std::string help;
  std::set<std::string> labels;
};

std::vector<Expected> ExpectedFamilies() {
  const std::set<std::string> none, daemon = {"ceph_daemon"}, pool = {"pool_id"};
  std::vector<Expected> out = {
      {"ceph_health_status", "untyped", "Cluster health status", none},
      {"ceph_health_detail",
       "gauge",
       "healthcheck status by type (0=inactive, 1=active)",
       {"name", "severity"}},
      {"ceph_osd_metadata",
       "untyped",
       "OSD Metadata",
       {"back_iface", "ceph_daemon", "cluster_addr", "device_class", "front_iface", "hostname",
        "objectstore", "public_addr", "ceph_version"}},
      {"ceph_pool_metadata",
       "untyped",
       "POOL Metadata",
       {"pool_id", "name", "type", "description", "compression_mode"}},
      {"ceph_pg_total", "gauge", "PG Total Count per Pool", pool},
      {"ceph_osd_op_r", "counter", "Client read operations", daemon},
      {"ceph_osd_op_r_out_bytes", "counter", "Client data read", daemon},
      {"ceph_osd_op_w", "counter", "Client write operations", daemon},
      {"ceph_osd_op_w_in_bytes", "counter", "Client data written", daemon},
      {"ceph_osd_op_r_latency_sum", "counter",
       "Latency of read operation (including queue time) Total", daemon},
      {"ceph_osd_op_r_latency_count", "counter",
       "Latency of read operation (including queue time) Count", daemon},
      {"ceph_osd_op_w_latency_sum", "counter",
       "Latency of write operation (including queue time) Total", daemon},
      {"ceph_osd_op_w_latency_count", "counter",
       "Latency of write operation (including queue time) Count", daemon},
      {"ceph_osd_numpg", "gauge", "Placement groups", daemon},
      {"ceph_osd_stat_bytes", "gauge", "OSD size", daemon},
      {"ceph_osd_stat_bytes_used", "gauge", "Used space", daemon},
      {"ceph_osd_stat_bytes_avail", "gauge", "Available space", daemon},
  };
  for (const std::string state : {"weight", "up", "in"}) {
    out.push_back({"ceph_osd_" + state, "untyped", "OSD status " + state, daemon});
  }
  for (const std::string stat : {"total_bytes", "total_used_bytes", "total_used_raw_bytes"}) {
    out.push_back({"ceph_cluster_" + stat, "gauge", "DF " + stat, none});
  }
  for (const std::string what : {"degraded", "misplaced", "unfound"}) {
    out.push_back({"ceph_num_objects_" + what, "gauge", "Number of " + what + " objects", none});
  }
  for (const std::string stat : {"apply_latency_ms", "commit_latency_ms"}) {
    out.push_back({"ceph_osd_" + stat, "gauge", "OSD stat " + stat, daemon});
  }
  for (const char* flag : {"noout", "norecover", "nobackfill", "noscrub", "nodeep-scrub"}) {
    std::string name = std::string("ceph_osd_flag_") + flag;
    for (char& c : name) c = c == '-' ? '_' : c;
    out.push_back({name, "untyped", std::string("OSD Flag ") + flag, none});
  }
  for (const char* stat :
       {"max_avail", "avail_raw", "stored", "stored_raw", "objects", "dirty", "quota_bytes",
        "quota_objects", "rd", "rd_bytes", "wr", "wr_bytes", "compress_bytes_used",
        "compress_under_bytes", "bytes_used", "percent_used"}) {
    const std::string s = stat;
    const bool counter = s == "rd" || s == "rd_bytes" || s == "wr" || s == "wr_bytes";
    out.push_back({"ceph_pool_" + s, counter ? "counter" : "gauge", "DF pool " + s, pool});
  }
  for (std::string_view state : CephPgStates()) {
    const std::string st(state);
    out.push_back({"ceph_pg_" + st, "gauge", "PG " + st + " per pool", pool});
  }
  return out;
}

// Ceph's list of PG state words, as mgr_module.py has it (34, from active to wait), each once,
// every state word ecstore's PGs take among them.
TEST(PrometheusExporter, CephsPgStateWords) {
  const auto& states = CephPgStates();
  EXPECT_EQ(states.front(), "active");
  EXPECT_EQ(states[7], "inconsistent");
  EXPECT_EQ(states[27], "snaptrim_error");
  EXPECT_EQ(states.back(), "wait");
  const std::set<std::string_view> unique(states.begin(), states.end());
  EXPECT_EQ(unique.size(), states.size());
  for (const char* ours :
       {"creating", "active", "clean", "recovery_wait", "recovering", "down", "undersized",
        "degraded", "remapped", "scrubbing", "deep", "inconsistent", "peering", "repair",
        "backfill_wait", "backfilling", "incomplete", "peered", "unknown"}) {
    EXPECT_EQ(unique.count(ours), 1u) << ours;
  }
}

TEST(PrometheusExporter, EveryFamilyWithCephsTypeHelpAndLabels) {
  const Page page = Render(TestReports());
  const std::vector<Expected> expected = ExpectedFamilies();
  EXPECT_EQ(page.families.size(), expected.size());
  for (const Expected& e : expected) {
    SCOPED_TRACE(e.name);
    auto f = page.families.find(e.name);
    ASSERT_NE(f, page.families.end());
    EXPECT_EQ(f->second.type, e.type);
    EXPECT_EQ(f->second.help, e.help);
    for (const auto& [labels, value] : f->second.samples) {
      std::set<std::string> names;
      for (const auto& [k, v] : labels) names.insert(k);
      EXPECT_EQ(names, e.labels);
    }
  }
}

TEST(PrometheusExporter, HealthFlagsOsdsAndPools) {
  const ClusterReports reports = TestReports();
  const Page page = Render(reports);
  // HEALTH_ERR: the scrub errors; the down OSD and the flags warn besides.
  EXPECT_EQ(page.Value("ceph_health_status"), 2);
  for (const auto& [code, severity] :
       std::map<std::string, std::string>{{"OSD_DOWN", "HEALTH_WARN"},
                                          {"OSDMAP_FLAGS", "HEALTH_WARN"},
                                          {"OSD_SCRUB_ERRORS", "HEALTH_ERR"},
                                          {"PG_DAMAGED", "HEALTH_ERR"},
                                          {"PG_DEGRADED", "HEALTH_WARN"},
                                          {"PG_AVAILABILITY", "HEALTH_WARN"},
                                          {"OBJECT_MISPLACED", "HEALTH_WARN"}}) {
    EXPECT_EQ(page.Value("ceph_health_detail", {{"name", code}, {"severity", severity}}), 1)
        << code;
  }
  EXPECT_EQ(page.Samples("ceph_health_detail"), 7u);  // only the active checks
  EXPECT_EQ(page.Value("ceph_osd_flag_noout"), 1);
  EXPECT_EQ(page.Value("ceph_osd_flag_noscrub"), 1);
  EXPECT_EQ(page.Value("ceph_osd_flag_norecover"), 0);
  EXPECT_EQ(page.Value("ceph_osd_flag_nobackfill"), 0);
  EXPECT_EQ(page.Value("ceph_osd_flag_nodeep_scrub"), 0);

  // Up, in and weight for every OSD of the map; metadata for those with an address.
  for (int osd = 0; osd < 7; ++osd) {
    const LabelSet d = {{"ceph_daemon", "osd." + std::to_string(osd)}};
    EXPECT_EQ(page.Value("ceph_osd_up", d), osd < 6 ? 1 : 0) << osd;
    EXPECT_EQ(page.Value("ceph_osd_in", d), 1) << osd;
    EXPECT_EQ(page.Value("ceph_osd_weight", d), 1) << osd;
  }
  EXPECT_EQ(page.Samples("ceph_osd_up"), 7u);
  EXPECT_EQ(page.Samples("ceph_osd_metadata"), 6u);
  const LabelSet meta = {{"ceph_daemon", "osd.4"},     {"hostname", "h1"},
                         {"public_addr", "127.0.0.1"}, {"cluster_addr", "127.0.0.1"},
                         {"device_class", "ssd"},      {"objectstore", "ecstore"},
                         {"back_iface", ""},           {"front_iface", ""},
                         {"ceph_version", ""}};
  EXPECT_EQ(page.Value("ceph_osd_metadata", meta), 1);

  EXPECT_EQ(page.Samples("ceph_pool_metadata"), 2u);
  EXPECT_EQ(page.Value("ceph_pool_metadata", {{"pool_id", "1"},
                                              {"name", "p"},
                                              {"type", "erasure"},
                                              {"description", "ec:2+2"},
                                              {"compression_mode", "none"}}),
            1);
  EXPECT_EQ(page.Value("ceph_pool_metadata", {{"pool_id", "2"}, {"name", "q"}}), 1);
}

// A replicated pool (issue 30) is described as ceph-mgr describes one: type replicated,
// "replica:3".
TEST(PrometheusExporter, ReplicatedPoolMetadata) {
  ClusterReports reports = TestReports();
  Pool& q = reports.map.pools.at(2);
  q.profile = "";
  q.type = PoolType::kReplicated;
  q.size = 3;
  q.min_size = 2;
  const Page page = Render(reports);
  EXPECT_EQ(page.Value("ceph_pool_metadata", {{"pool_id", "2"},
                                              {"name", "q"},
                                              {"type", "replicated"},
                                              {"description", "replica:3"},
                                              {"compression_mode", "none"}}),
            1);
}

TEST(PrometheusExporter, CapacityAndObjects) {
  const Page page = Render(TestReports());
  // Six OSDs up and reported (osd.6 is down).
  const std::int64_t used = kTotal - kAvailable;
  EXPECT_EQ(page.Value("ceph_cluster_total_bytes"), 6.0 * kTotal);
  EXPECT_EQ(page.Value("ceph_cluster_total_used_bytes"), 6.0 * used);
  EXPECT_EQ(page.Value("ceph_cluster_total_used_raw_bytes"), 6.0 * used);
  // MAX AVAIL as Ceph's get_rule_avail: each OSD's headroom below 0.95 of its size over its
  // share (1/6), the smallest, x k/(k+m).
  const double raw_avail = std::floor((0.95 * kTotal - static_cast<double>(used)) * 6);
  const double max_avail = std::floor(raw_avail * 2 / 4);
  const std::map<std::string, std::pair<double, double>> stored = {{"1", {8 * 40960, 80}},
                                                                   {"2", {4 * 5000, 20}}};
  for (const auto& [pool, s] : stored) {
    SCOPED_TRACE(pool);
    const LabelSet id = {{"pool_id", pool}};
    const double bytes_used = s.first * 4 / 2;
    EXPECT_EQ(page.Value("ceph_pool_stored", id), s.first);
    EXPECT_EQ(page.Value("ceph_pool_objects", id), s.second);
    EXPECT_EQ(page.Value("ceph_pool_stored_raw", id), bytes_used);
    EXPECT_EQ(page.Value("ceph_pool_bytes_used", id), bytes_used);
    EXPECT_EQ(page.Value("ceph_pool_max_avail", id), max_avail);
    EXPECT_EQ(page.Value("ceph_pool_avail_raw", id), max_avail * 4 / 2);
    EXPECT_NEAR(page.Value("ceph_pool_percent_used", id),
                bytes_used / (bytes_used + max_avail * 4 / 2), 1e-12);
    for (const char* zero : {"ceph_pool_dirty", "ceph_pool_quota_bytes", "ceph_pool_quota_objects",
                             "ceph_pool_compress_bytes_used", "ceph_pool_compress_under_bytes"}) {
      EXPECT_EQ(page.Value(zero, id), 0) << zero;
    }
  }
  // Client I/O per pool: every OSD's report, osd.6's (down) included.
  double rd1 = 0, wr2 = 0, wr2_bytes = 0;
  for (int osd = 0; osd < 7; ++osd) {
    rd1 += 10 + osd;
    wr2 += osd;
    wr2_bytes += 8192 * osd;
  }
  EXPECT_EQ(page.Value("ceph_pool_rd", {{"pool_id", "1"}}), rd1);
  EXPECT_EQ(page.Value("ceph_pool_rd_bytes", {{"pool_id", "1"}}), 4096 * rd1);
  EXPECT_EQ(page.Value("ceph_pool_wr", {{"pool_id", "1"}}), 7 * 5);
  EXPECT_EQ(page.Value("ceph_pool_wr_bytes", {{"pool_id", "1"}}), 7 * 5 * 8192);
  EXPECT_EQ(page.Value("ceph_pool_rd", {{"pool_id", "2"}}), 0);
  EXPECT_EQ(page.Value("ceph_pool_wr", {{"pool_id", "2"}}), wr2);
  EXPECT_EQ(page.Value("ceph_pool_wr_bytes", {{"pool_id", "2"}}), wr2_bytes);
  // PG 1.1 reports 4 missing pairs, 1 of them misplaced, 2 unfound objects; every PG has all
  // of its OSDs up.
  EXPECT_EQ(page.Value("ceph_num_objects_degraded"), 3);
  EXPECT_EQ(page.Value("ceph_num_objects_misplaced"), 1);
  EXPECT_EQ(page.Value("ceph_num_objects_unfound"), 2);
}

TEST(PrometheusExporter, PgStatesPerPool) {
  const Page page = Render(TestReports());
  const std::map<std::string, double> pool1 = {
      {"total", 8},    {"active", 7},     {"clean", 4},      {"undersized", 1},
      {"degraded", 2}, {"recovering", 1}, {"scrubbing", 1},  {"deep", 1},
      {"peering", 1},  {"remapped", 1},   {"backfilling", 1}};
  const std::map<std::string, double> pool2 = {{"total", 4}, {"active", 4}, {"clean", 4}};
  for (const Expected& e : ExpectedFamilies()) {
    if (e.name.rfind("ceph_pg_", 0) != 0) continue;
    const std::string state = e.name.substr(8);
    SCOPED_TRACE(state);
    EXPECT_EQ(page.Samples(e.name), 2u);
    auto one = pool1.find(state);
    auto two = pool2.find(state);
    EXPECT_EQ(page.Value(e.name, {{"pool_id", "1"}}), one == pool1.end() ? 0 : one->second);
    EXPECT_EQ(page.Value(e.name, {{"pool_id", "2"}}), two == pool2.end() ? 0 : two->second);
  }
}

TEST(PrometheusExporter, PerOsdCountersOfLiveOsds) {
  const ClusterReports reports = TestReports();
  const Page page = Render(reports);
  // PGs whose up set holds each OSD, as placement gives them.
  std::map<int, int> pgs;
  for (const auto& [pool, pg_num] : std::map<std::int64_t, std::uint32_t>{{1, 8}, {2, 4}}) {
    for (std::uint32_t pg = 0; pg < pg_num; ++pg) {
      for (int osd : Locate(reports.map, pool, pg).up) ++pgs[osd];
    }
  }
  for (int osd = 0; osd < 6; ++osd) {
    SCOPED_TRACE(osd);
    const LabelSet d = {{"ceph_daemon", "osd." + std::to_string(osd)}};
    EXPECT_EQ(page.Value("ceph_osd_op_r", d), 10 + osd);
    EXPECT_EQ(page.Value("ceph_osd_op_r_out_bytes", d), 4096 * (10 + osd));
    EXPECT_EQ(page.Value("ceph_osd_op_w", d), 5 + osd);
    EXPECT_EQ(page.Value("ceph_osd_op_w_in_bytes", d), 8192 * (5 + osd));
    EXPECT_DOUBLE_EQ(page.Value("ceph_osd_op_r_latency_sum", d), 1.5 * (osd + 1));
    EXPECT_EQ(page.Value("ceph_osd_op_r_latency_count", d), 10 + osd);
    EXPECT_DOUBLE_EQ(page.Value("ceph_osd_op_w_latency_sum", d), 0.25 * (osd + 1));
    EXPECT_EQ(page.Value("ceph_osd_op_w_latency_count", d), 5 + osd);
    EXPECT_EQ(page.Value("ceph_osd_apply_latency_ms", d), 0.5 + osd);
    EXPECT_EQ(page.Value("ceph_osd_commit_latency_ms", d), 0.5 + osd);
    EXPECT_EQ(page.Value("ceph_osd_numpg", d), pgs[osd]);
    EXPECT_EQ(page.Value("ceph_osd_stat_bytes", d), kTotal);
    EXPECT_EQ(page.Value("ceph_osd_stat_bytes_used", d), kTotal - kAvailable);
    EXPECT_EQ(page.Value("ceph_osd_stat_bytes_avail", d), kAvailable);
  }
  // osd.6 is down: none of its counters (its report is an old one).
  for (const char* name : {"ceph_osd_op_r", "ceph_osd_op_w_latency_sum", "ceph_osd_numpg",
                           "ceph_osd_stat_bytes", "ceph_osd_apply_latency_ms"}) {
    EXPECT_EQ(page.Samples(name), 6u) << name;
  }
}

TEST(PrometheusExporter, AnEmptyClusterHasEveryFamilyAndHealthOk) {
  ClusterReports empty;
  const Page page = Render(empty);
  EXPECT_EQ(page.families.size(), ExpectedFamilies().size());
  EXPECT_EQ(page.Value("ceph_health_status"), 0);
  EXPECT_EQ(page.Samples("ceph_health_detail"), 0u);
  EXPECT_EQ(page.Samples("ceph_osd_up"), 0u);
  EXPECT_EQ(page.Samples("ceph_pg_total"), 0u);
  EXPECT_EQ(page.Value("ceph_cluster_total_bytes"), 0);
}

}  // namespace
}  // namespace ec::cluster::admin
