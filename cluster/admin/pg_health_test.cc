// Issue 29 item 2: PG states and the PG health checks as Ceph computes them, as pure functions
// (pg_view.h, status_report.h): a PG is peering only while its primary has not reported peering
// it in its current interval; an unchanged interval keeps a reported state across epochs; peering,
// down, peered and unknown PGs are PG_AVAILABILITY's, degraded and undersized ones PG_DEGRADED's,
// with Ceph's summaries; every detail line names the state `pgs_by_state` counts the PG under.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cluster/admin/pg_view.h"
#include "cluster/admin/placement_test_util.h"
#include "cluster/admin/status_report.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pg_state.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;

constexpr std::uint32_t kPgs = 8;

// Epoch 20: osd.0-5 up, one per host; pool 1 "p": k=2 m=2 (size 4), min_size 3, failure domain
// osd, 8 PGs.
ClusterMap SixOsdMap() {
  ClusterMap map;
  map.epoch = 20;
  map.profiles["rs"] = EcProfile{
      "rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "2"}, {"crush-failure-domain", "osd"}}};
  map.pools[1] = Pool{1, "p", "rs", kPgs, 4096, 3};
  for (int i = 0; i < 6; ++i) {
    OsdEntry o;
    o.id = i;
    o.host = "h" + std::to_string(i);
    o.up = true;
    map.osds[i] = o;
  }
  return map;
}

using testing::Located;

// PG `pg` of pool 1.
Located Locate(const ClusterMap& map, std::uint32_t pg) {
  return testing::Locate(map, 1, pg);
}

// What a primary reports of PG `pg` of pool 1 in the interval `at` locates, at `epoch`.
void Report(std::map<int, PgStatsReport>* stats, const Located& at, std::int64_t epoch,
            std::uint32_t pg, const std::string& state, std::int64_t objects = 10) {
  PgStatsReport& r = (*stats)[at.primary];
  r.osd = at.primary;
  r.epoch = epoch;
  PgStat& st = r.pgs[PgName(1, pg)];
  st.objects = objects;
  st.state = state;
  st.up = at.up;
  st.acting = at.acting;
}

std::map<std::string, std::uint64_t> ByState(const StatusReport& r) {
  std::map<std::string, std::uint64_t> out;
  for (const PgStateCount& s : r.pgs_by_state) out[s.state_name] = s.count;
  return out;
}

const HealthCheck* Check(const StatusReport& r, const std::string& code) {
  for (const HealthCheck& c : r.checks) {
    if (c.code == code) return &c;
  }
  return nullptr;
}

// Every PG line of a PG check names a state counted in pgs_by_state, and the PG is listed under
// the state it is counted under (the property the user missed).
void ExpectDetailMatchesStates(const StatusReport& r, const std::vector<PgView>& views) {
  std::map<std::string, std::string> state_of;
  for (const PgView& v : views) state_of[v.pgid] = v.state;
  const auto by_state = ByState(r);
  for (const HealthCheck& c : r.checks) {
    if (c.code != "PG_AVAILABILITY" && c.code != "PG_DEGRADED") continue;
    EXPECT_EQ(c.detail.size(), std::min<std::size_t>(c.count, kMaxDetail));
    for (const std::string& line : c.detail) {
      // "pg 1.3 is STATE, acting [..]"
      ASSERT_EQ(line.rfind("pg ", 0), 0u) << line;
      const std::size_t is = line.find(" is ");
      const std::size_t comma = line.find(", acting ");
      ASSERT_NE(is, std::string::npos) << line;
      ASSERT_NE(comma, std::string::npos) << line;
      const std::string pgid = line.substr(3, is - 3);
      const std::string state = line.substr(is + 4, comma - is - 4);
      EXPECT_EQ(state_of[pgid], state) << line;
      EXPECT_EQ(by_state.count(state), 1u) << line;
    }
  }
}

TEST(PgHealth, PeeringOnlyUntilThePrimaryReportsItPeeredThisInterval) {
  ClusterMap map = SixOsdMap();
  std::map<int, PgStatsReport> stats;
  for (std::uint32_t pg = 0; pg < kPgs; ++pg)
    Report(&stats, Locate(map, pg), 20, pg, "active+clean");
  Result<StatusReport> r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ByState(*r), (std::map<std::string, std::uint64_t>{{"active+clean", kPgs}}));
  EXPECT_TRUE(r->checks.empty());

  // osd.2 goes down (epoch 21). A PG whose interval did not change keeps its state; one whose
  // did is peering while its primary has not reported this interval (its report: the old one).
  map.osds.at(2).up = false;
  map.epoch = 21;
  std::set<std::uint32_t> moved;
  for (std::uint32_t pg = 0; pg < kPgs; ++pg) {
    if (Locate(map, pg).up != Locate(SixOsdMap(), pg).up) moved.insert(pg);
  }
  ASSERT_FALSE(moved.empty());
  ASSERT_LT(moved.size(), kPgs) << "some PG must not hold osd.2";
  r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  const auto n = static_cast<std::uint64_t>(moved.size());
  EXPECT_EQ(ByState(*r),
            (std::map<std::string, std::uint64_t>{{"peering", n}, {"active+clean", kPgs - n}}));
  const HealthCheck* avail = Check(*r, "PG_AVAILABILITY");
  ASSERT_NE(avail, nullptr);
  EXPECT_EQ(avail->summary, "Reduced data availability: " + std::to_string(n) + " pg" +
                                (n == 1 ? "" : "s") + " inactive, " + std::to_string(n) + " pg" +
                                (n == 1 ? "" : "s") + " peering");
  EXPECT_EQ(avail->count, n);
  EXPECT_EQ(Check(*r, "PG_DEGRADED"), nullptr) << "peering is not degraded";
  ASSERT_NE(Check(*r, "OSD_DOWN"), nullptr);
  const std::uint32_t first = *moved.begin();
  EXPECT_EQ(avail->detail.front(),
            "pg " + PgName(1, first) + " is peering, acting " + OsdList(Locate(map, first).up));
  ExpectDetailMatchesStates(*r, ViewPgs(map, stats).value());

  // The primaries peer and report at epoch 21: active+undersized+degraded, PG_DEGRADED only.
  for (std::uint32_t pg : moved) {
    Report(&stats, Locate(map, pg), 21, pg, "active+undersized+degraded");
  }
  r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ByState(*r), (std::map<std::string, std::uint64_t>{{"active+undersized+degraded", n},
                                                               {"active+clean", kPgs - n}}));
  EXPECT_EQ(Check(*r, "PG_AVAILABILITY"), nullptr);
  const HealthCheck* degraded = Check(*r, "PG_DEGRADED");
  ASSERT_NE(degraded, nullptr);
  // Each of the n PGs' 10 objects lacks one of its 4 copies (n x 40 copies in all, 10 x 8 x 4).
  EXPECT_EQ(degraded->summary, "Degraded data redundancy: " + std::to_string(10 * n) +
                                   "/320 objects degraded (" +
                                   fmt::format("{:.3f}", 100.0 * 10.0 * n / 320.0) + "%), " +
                                   std::to_string(n) + " pg" + (n == 1 ? "" : "s") + " degraded, " +
                                   std::to_string(n) + " pg" + (n == 1 ? "" : "s") + " undersized");
  EXPECT_EQ(degraded->detail.front(), "pg " + PgName(1, first) +
                                          " is active+undersized+degraded, acting " +
                                          OsdList(Locate(map, first).up));
  ExpectDetailMatchesStates(*r, ViewPgs(map, stats).value());

  // An epoch that does not touch the PGs (a profile added): the states stand, though every
  // report is now older than the map.
  map.profiles["other"] = EcProfile{"other", {{"plugin", "jerasure"}, {"k", "4"}, {"m", "2"}}};
  map.epoch = 22;
  Result<StatusReport> later = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(ByState(*later), ByState(*r));
}

TEST(PgHealth, AReportWithoutIntervalsCountsOnlyAtTheMapsEpoch) {
  ClusterMap map = SixOsdMap();
  map.osds.at(2).up = false;
  std::map<int, PgStatsReport> stats;
  for (std::uint32_t pg = 0; pg < kPgs; ++pg) {
    const Located at = Locate(map, pg);
    PgStatsReport& r = stats[at.primary];
    r.osd = at.primary;
    r.epoch = 19;  // a v3 report (no up/acting) of an earlier epoch
    r.pgs[PgName(1, pg)] = PgStat{10, "active+clean", 0, 0, 0, 0, 0, 0, 0, {}, {}};
  }
  Result<std::vector<PgView>> views = ViewPgs(map, stats);
  ASSERT_TRUE(views.ok());
  for (const PgView& v : *views) {
    EXPECT_FALSE(v.current);
    ASSERT_NE(v.stat, nullptr);
    // The map's rule: 3 of 4 up is min_size.
    EXPECT_EQ(v.state, v.up_count == 4 ? "active+clean" : "active+undersized+degraded");
  }
  for (auto& [osd, r] : stats) r.epoch = 20;
  views = ViewPgs(map, stats);
  ASSERT_TRUE(views.ok());
  for (const PgView& v : *views) {
    EXPECT_TRUE(v.current);
    EXPECT_EQ(v.state, "active+clean");
  }
}

TEST(PgHealth, ANewPoolIsPeeringUntilItsPrimariesReportIt) {
  ClusterMap map = SixOsdMap();
  std::map<int, PgStatsReport> stats;
  for (int osd = 0; osd < 6; ++osd) {
    stats[osd].osd = osd;
    stats[osd].epoch = 19;  // before the pool: no PG of it
  }
  Result<StatusReport> r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ByState(*r), (std::map<std::string, std::uint64_t>{{"peering", kPgs}}));
  ASSERT_EQ(r->checks.size(), 1u);
  EXPECT_EQ(r->checks[0].code, "PG_AVAILABILITY");
  EXPECT_EQ(r->checks[0].summary, "Reduced data availability: 8 pgs inactive, 8 pgs peering");
  // Reports at the pool's epoch that do not name a PG (this OSD is not its primary there): the
  // map's rule, as without any report.
  for (auto& [osd, rep] : stats) rep.epoch = 20;
  r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ByState(*r), (std::map<std::string, std::uint64_t>{{"active+clean", kPgs}}));
  // No report at all: the map's rule.
  r = BuildStatusReport(map, "id", {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(ByState(*r), (std::map<std::string, std::uint64_t>{{"active+clean", kPgs}}));
}

TEST(PgHealth, EachStateInItsChecksWithCephsSummaries) {
  ClusterMap map = SixOsdMap();
  std::map<int, PgStatsReport> stats;
  const char* states[kPgs] = {"active+clean",
                              "undersized+degraded+peered",
                              "active+recovering+undersized+degraded",
                              "active+recovery_wait+degraded",
                              "active+remapped+backfill_wait",
                              "incomplete",
                              "active+undersized",
                              "active+clean+scrubbing+deep"};
  for (std::uint32_t pg = 0; pg < kPgs; ++pg) Report(&stats, Locate(map, pg), 20, pg, states[pg]);
  stats[Locate(map, 5).primary].pgs.at(PgName(1, 5)).unfound = 2;
  Result<StatusReport> r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  const HealthCheck* avail = Check(*r, "PG_AVAILABILITY");
  ASSERT_NE(avail, nullptr);
  EXPECT_EQ(avail->summary, "Reduced data availability: 2 pgs inactive, 1 pg incomplete");
  EXPECT_EQ(avail->count, 2u);
  EXPECT_EQ(avail->detail,
            (std::vector<std::string>{
                "pg 1.1 is undersized+degraded+peered, acting " + OsdList(Locate(map, 1).up),
                "pg 1.5 is incomplete, acting " + OsdList(Locate(map, 5).up) + ", 2 unfound"}));
  const HealthCheck* degraded = Check(*r, "PG_DEGRADED");
  ASSERT_NE(degraded, nullptr);
  EXPECT_EQ(
      degraded->summary,
      "Degraded data redundancy: 3 pgs degraded, 3 pgs undersized");  // 1.1 1.2 1.3; 1.1 1.2 1.6
  EXPECT_EQ(degraded->count, 4u);
  ASSERT_EQ(degraded->detail.size(), 4u);
  EXPECT_EQ(degraded->detail[0].substr(0, 40), "pg 1.1 is undersized+degraded+peered, ac");
  EXPECT_EQ(degraded->detail[3].substr(0, 27), "pg 1.6 is active+undersized");
  EXPECT_EQ(r->health_status, "HEALTH_WARN");
  ExpectDetailMatchesStates(*r, ViewPgs(map, stats).value());
  // The same names in -s --format json, and in health's json.
  const json j = StatusJson(*r);
  std::map<std::string, std::uint64_t> json_states;
  for (const json& s : j["pgmap"]["pgs_by_state"]) json_states[s["state_name"]] = s["count"];
  EXPECT_EQ(json_states, ByState(*r));
  EXPECT_EQ(json_states.size(), 8u);
  EXPECT_EQ(j["health"]["checks"]["PG_AVAILABILITY"]["summary"]["count"], 2);
  EXPECT_EQ(j["health"]["checks"]["PG_DEGRADED"]["detail"][0]["message"], degraded->detail[0]);
  // Plain `health detail`: Ceph's layout.
  const std::string plain = RenderHealthPlain(*r, true);
  EXPECT_NE(plain.find("[WRN] PG_AVAILABILITY: Reduced data availability: 2 pgs inactive, 1 pg "
                       "incomplete\n    pg 1.1 is undersized+degraded+peered, acting "),
            std::string::npos)
      << plain;
}

TEST(PgHealth, DownBelowKWhateverTheReports) {
  ClusterMap map = SixOsdMap();
  std::map<int, PgStatsReport> stats;
  for (std::uint32_t pg = 0; pg < kPgs; ++pg)
    Report(&stats, Locate(map, pg), 20, pg, "active+clean");
  for (int osd : {0, 1, 2, 3}) map.osds.at(osd).up = false;  // at most 2 of 4 up: k is 2
  map.epoch = 21;
  Result<std::vector<PgView>> views = ViewPgs(map, stats);
  ASSERT_TRUE(views.ok());
  Result<StatusReport> r = BuildStatusReport(map, "id", stats);
  ASSERT_TRUE(r.ok());
  std::uint64_t down = 0, peering = 0;
  for (const PgView& v : *views) {
    if (v.up_count < 2) {
      EXPECT_EQ(v.state, "down") << v.pgid;
      ++down;
    } else {
      EXPECT_EQ(v.state, "peering") << v.pgid;  // 2 up: its primary must peer it again
      ++peering;
    }
  }
  ASSERT_GT(down, 0u);
  const HealthCheck* avail = Check(*r, "PG_AVAILABILITY");
  ASSERT_NE(avail, nullptr);
  std::string want = "Reduced data availability: 8 pgs inactive, " + std::to_string(down) +
                     (down == 1 ? " pg down" : " pgs down");
  if (peering > 0) {
    want += ", " + std::to_string(peering) + (peering == 1 ? " pg peering" : " pgs peering");
  }
  EXPECT_EQ(avail->summary, want);
  ExpectDetailMatchesStates(*r, *views);
}

// Random reports of random intervals and states: the detail lines always name the PGs' counted
// states, each PG check counts exactly the PGs its flags put there, and the counts add up.
TEST(PgHealth, DetailAndCountsAgreeOnRandomReports) {
  const char* states[] = {"active+clean",
                          "peering",
                          "down",
                          "incomplete",
                          "undersized+degraded+peered",
                          "active+undersized+degraded",
                          "active+recovering+degraded",
                          "active+undersized",
                          "active+remapped+backfilling",
                          "active+clean+scrubbing",
                          "active+cleaning"};  // a word this version does not know
  std::mt19937 rng(29);
  for (int round = 0; round < 200; ++round) {
    ClusterMap map = SixOsdMap();
    map.pools.at(1).pg_num = 64;
    std::map<int, PgStatsReport> stats;
    for (std::uint32_t pg = 0; pg < 64; ++pg) {
      if (rng() % 4 == 0) continue;
      Report(&stats, Locate(map, pg), 20, pg, states[rng() % std::size(states)],
             static_cast<std::int64_t>(rng() % 5));
    }
    for (int osd = 0; osd < 6; ++osd) map.osds.at(osd).up = rng() % 3 != 0;
    map.epoch = 20 + static_cast<std::int64_t>(rng() % 2);
    Result<StatusReport> r = BuildStatusReport(map, "id", stats);
    ASSERT_TRUE(r.ok());
    Result<std::vector<PgView>> views = ViewPgs(map, stats);
    ASSERT_TRUE(views.ok());
    std::uint64_t inactive = 0, degraded_or_undersized = 0, total = 0;
    for (const PgView& v : *views) {
      const std::uint64_t f = v.flags.value_or(pg_state::kActive | pg_state::kDegraded);
      inactive += (f & pg_state::kActive) == 0 ? 1 : 0;
      degraded_or_undersized += (f & (pg_state::kDegraded | pg_state::kUndersized)) != 0 ? 1 : 0;
    }
    for (const PgStateCount& s : r->pgs_by_state) total += s.count;
    EXPECT_EQ(total, 64u);
    const HealthCheck* avail = Check(*r, "PG_AVAILABILITY");
    const HealthCheck* degraded = Check(*r, "PG_DEGRADED");
    EXPECT_EQ(avail ? avail->count : 0, inactive);
    EXPECT_EQ(degraded ? degraded->count : 0, degraded_or_undersized);
    if (avail) {
      EXPECT_EQ(avail->summary.rfind("Reduced data availability: " + std::to_string(inactive) +
                                         (inactive == 1 ? " pg inactive" : " pgs inactive"),
                                     0),
                0u)
          << avail->summary;
    }
    ExpectDetailMatchesStates(*r, *views);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace ec::cluster::admin
