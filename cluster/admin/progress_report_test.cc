// Recovery in `ec-admin -s` and `ec-admin progress` (issue 15 item 6): the status report's
// degraded and misplaced copies, rates, network/rebuilt ratio and progress events from made-up PG
// reports, their plain and JSON rendering; then the `progress` command itself against a real etcd
// holding such reports, and the help of one command.
#include "cluster/admin/progress_report.h"

#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/status_report.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/map_store.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;

constexpr std::int64_t kNow = 1'700'000'000'000;  // ms since 1970

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Epoch 7: osd.0-3 up on four hosts; osd.4 out and down (on no PG). Pool 1 "p" (k=2 m=2, 4 PGs,
// each on osd.0-3) is recovering, pool 2 "q" (2 PGs) is clean.
ClusterMap Map() {
  ClusterMap map;
  map.epoch = 7;
  map.profiles["rs"] = EcProfile{
      "rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "2"}, {"crush-failure-domain", "osd"}}};
  map.pools[1] = Pool{1, "p", "rs", 4, 4096, 3};
  map.pools[2] = Pool{2, "q", "rs", 2, 4096, 3};
  for (int i = 0; i < 5; ++i) {
    OsdEntry o;
    o.id = i;
    o.host = "h" + std::to_string(i);
    o.up = i != 4;
    o.in = i != 4;
    o.up_stamp_ms = kNow - 300'000;
    map.osds[i] = o;
  }
  return map;
}

// Every OSD reports every PG (so each PG's primary has reported it, whichever it is), at `epoch`.
// In each PG of p: 10 objects, 3 shards missing (1 object misplaced), 3 x 4 KiB to go, 4 KiB
// recovered; q's PGs are clean. Pull totals: osd.0 rebuilt 10000 bytes for 25000 from helpers at
// 2 KiB/s; osd.4's last report (it is down now) 2000 for 5000, with a stale rate.
std::map<int, PgStatsReport> Reports(std::int64_t epoch, std::int64_t p = 1, std::int64_t q = 2) {
  std::map<int, PgStatsReport> stats;
  for (int osd = 0; osd < 5; ++osd) {
    PgStatsReport& r = stats[osd];
    r.osd = osd;
    r.epoch = epoch;
    r.stamp_ms = kNow - 1000;
    for (std::uint32_t pg = 0; pg < 4; ++pg) {
      r.pgs[PgName(p, pg)] =
          PgStat{10, "active+recovering+degraded", 3, 1, 3, 0, 3 * 4096, 1, 4096, {}, {}};
    }
    for (std::uint32_t pg = 0; pg < 2; ++pg) {
      r.pgs[PgName(q, pg)] = PgStat{5, "active+clean", 0, 0, 0, 0, 0, 0, 0, {}, {}};
    }
    r.recovery.since_ms = kNow - 30'000;
  }
  stats[0].recovery = RecoveryTotals{25000, 40960, 10000, 3, 2048, 1, kNow - 30'000};
  stats[4].recovery = RecoveryTotals{5000, 8192, 2000, 1, 99999, 7, kNow - 60'000};
  return stats;
}

TEST(StatusRecovery, CountsRatesRatioAndEvents) {
  Result<StatusReport> r = BuildStatusReport(Map(), "id", Reports(7));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->num_objects, 50u);
  EXPECT_EQ(r->degraded_total, 200u);
  EXPECT_EQ(r->degraded_objects, 8u);   // 4 PGs x (3 missing - 1 misplaced)
  EXPECT_EQ(r->misplaced_objects, 4u);  // 4 PGs x 1
  const RecoveryStatus& rec = r->recovery;
  EXPECT_EQ(rec.network_bytes, 30000u);  // every report, the down OSD's too
  EXPECT_EQ(rec.helper_device_bytes, 49152u);
  EXPECT_EQ(rec.rebuilt_bytes, 12000u);
  EXPECT_EQ(rec.objects, 4u);
  EXPECT_EQ(rec.bytes_per_sec, 2048u);  // up OSDs only
  EXPECT_EQ(rec.objects_per_sec, 1u);
  EXPECT_EQ(rec.missing, 12u);
  EXPECT_EQ(rec.missing_bytes, 49152u);
  EXPECT_EQ(rec.recovered_bytes, 16384u);
  EXPECT_EQ(rec.since_ms, kNow - 30'000);
  ASSERT_TRUE(rec.NetworkPerRebuilt().has_value());
  EXPECT_DOUBLE_EQ(*rec.NetworkPerRebuilt(), 2.5);
  EXPECT_EQ(rec.RemainingSeconds(rec.missing_bytes), 24);
  ASSERT_EQ(rec.pools.size(), 1u);
  EXPECT_EQ(rec.pools.at(1).name, "p");

  ASSERT_GE(r->checks.size(), 2u);
  EXPECT_EQ(r->checks[0].code, "OBJECT_MISPLACED");
  EXPECT_EQ(r->checks[0].summary, "4/200 objects misplaced (2.000%)");
  EXPECT_EQ(r->checks[0].count, 4u);
  EXPECT_EQ(r->checks.back().code, "PG_DEGRADED");
  EXPECT_EQ(r->checks.back().summary,
            "Degraded data redundancy: 8/200 objects degraded (4.000%), 4 pgs degraded");

  const json j = StatusJson(*r);
  const json& pgmap = j["pgmap"];
  EXPECT_EQ(pgmap["degraded_objects"], 8);
  EXPECT_EQ(pgmap["degraded_total"], 200);
  EXPECT_DOUBLE_EQ(pgmap["degraded_ratio"].get<double>(), 0.04);
  EXPECT_EQ(pgmap["misplaced_objects"], 4);
  EXPECT_EQ(pgmap["misplaced_total"], 200);
  EXPECT_DOUBLE_EQ(pgmap["misplaced_ratio"].get<double>(), 0.02);
  EXPECT_EQ(pgmap["recovering_bytes_per_sec"], 2048);
  EXPECT_EQ(pgmap["recovering_objects_per_sec"], 1);
  EXPECT_EQ(pgmap["recovery"], json::parse(R"({"network_bytes":30000,"helper_device_bytes":49152,
                            "rebuilt_bytes":12000,"objects_recovered":4,
                            "network_per_rebuilt":2.5,"missing_bytes":49152,
                            "recovered_bytes":16384})"));
  EXPECT_EQ(j["progress_events"]["global-recovery"]["message"], "Global Recovery Event");
  EXPECT_DOUBLE_EQ(j["progress_events"]["global-recovery"]["progress"].get<double>(), 0.25);
  EXPECT_EQ(j["progress_events"]["pool-recovery-1"]["message"], "Recovery of pool 'p'");

  const std::string plain = RenderStatusPlain(*r, kNow);
  EXPECT_TRUE(Contains(plain,
                       "             8/200 objects degraded (4.000%)\n"
                       "             4/200 objects misplaced (2.000%)\n"
                       "\n"
                       "  io:\n"
                       "    recovery: 2.0 KiB/s, 1 objects/s\n"
                       "    recovery bytes: 2.50 network per rebuilt (29 KiB from helpers, 12 KiB "
                       "rebuilt, 48 KiB read by helpers)\n"
                       "\n"
                       "  progress:\n"
                       "    Global Recovery Event (30s)\n"
                       "      [=======.....................] (remaining: 24s)\n"
                       "\n"))
      << plain;
  EXPECT_EQ(plain.substr(plain.size() - 2), "\n\n");

  const std::vector<ProgressEvent> events = ProgressEvents(*r);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].id, "pool-recovery-1");
  EXPECT_FALSE(events[1].remaining_sec.has_value());  // no per-pool rate
  EXPECT_EQ(RenderProgressPlain(events, kNow),
            "Global Recovery Event (30s)\n"
            "    [=======.....................] (remaining: 24s)\n"
            "Recovery of pool 'p' (30s)\n"
            "    [=======.....................]\n");
  const json pj = ProgressJson(events, kNow);
  EXPECT_EQ(pj["completed"], json::array());
  ASSERT_EQ(pj["events"].size(), 2u);
  const json& g = pj["events"][0];
  EXPECT_EQ(g["id"], "global-recovery");
  EXPECT_DOUBLE_EQ(g["progress"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(g["started_at"].get<double>(), (kNow - 30'000) / 1000.0);
  EXPECT_EQ(g["elapsed_sec"], 30);
  EXPECT_EQ(g["remaining_sec"], 24);
  EXPECT_EQ(g["missing_bytes"], 49152);
  EXPECT_EQ(g["recovered_bytes"], 16384);
  EXPECT_TRUE(pj["events"][1]["remaining_sec"].is_null());
}

// Reports made at an older epoch say nothing of the PGs now (no events, states from the map), but
// the totals and the up OSDs' rates still count.
TEST(StatusRecovery, ReportsAtAnOlderEpochGiveTotalsNotPgs) {
  Result<StatusReport> r = BuildStatusReport(Map(), "id", Reports(6));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->degraded_objects, 0u);
  EXPECT_EQ(r->misplaced_objects, 0u);
  EXPECT_EQ(r->recovery.missing, 0u);
  EXPECT_EQ(r->recovery.rebuilt_bytes, 12000u);
  EXPECT_EQ(r->recovery.bytes_per_sec, 2048u);
  ASSERT_EQ(r->pgs_by_state.size(), 1u);
  EXPECT_EQ(r->pgs_by_state[0].state_name, "active+clean");
  EXPECT_TRUE(ProgressEvents(*r).empty());
  EXPECT_EQ(RenderProgressPlain({}, kNow), "No ongoing recovery\n");
  EXPECT_EQ(ProgressJson({}, kNow), json::parse(R"({"events":[],"completed":[]})"));
  const json j = StatusJson(*r);
  EXPECT_EQ(j["progress_events"], json::object());
  EXPECT_FALSE(j["pgmap"].contains("misplaced_objects"));
  EXPECT_EQ(j["pgmap"]["recovering_bytes_per_sec"], 2048);  // the rate still runs
  const std::string plain = RenderStatusPlain(*r, kNow);
  EXPECT_TRUE(Contains(plain, "  io:\n    recovery: 2.0 KiB/s, 1 objects/s\n")) << plain;
  EXPECT_FALSE(Contains(plain, "progress:")) << plain;
}

// With no report at all: a null ratio, no rates, no io or progress section.
TEST(StatusRecovery, NothingRebuiltGivesANullRatio) {
  Result<StatusReport> r = BuildStatusReport(Map(), "id");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->recovery.NetworkPerRebuilt().has_value());
  EXPECT_FALSE(r->recovery.RemainingSeconds(100).has_value());
  const json j = StatusJson(*r);
  EXPECT_TRUE(j["pgmap"]["recovery"]["network_per_rebuilt"].is_null());
  EXPECT_EQ(j["pgmap"]["recovery"]["rebuilt_bytes"], 0);
  EXPECT_FALSE(j["pgmap"].contains("recovering_bytes_per_sec"));
  const std::string plain = RenderStatusPlain(*r, kNow);
  EXPECT_FALSE(Contains(plain, "io:")) << plain;
  EXPECT_EQ(RenderRecoveryPlain(*r, kNow), "");
}

// Work remains but nothing was rebuilt yet and no rate: the bar at 0 with no remaining time, no
// age when the primaries give none.
TEST(StatusRecovery, NoRateYetMeansNoRemainingTime) {
  std::map<int, PgStatsReport> stats = Reports(7);
  for (auto& [osd, report] : stats) report.recovery = RecoveryTotals{};
  for (auto& [osd, report] : stats) {
    for (auto& [pg, st] : report.pgs) st.recovered_bytes = 0;
  }
  Result<StatusReport> r = BuildStatusReport(Map(), "id", stats);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(RenderRecoveryPlain(*r, kNow),
            "  progress:\n"
            "    Global Recovery Event\n"
            "      [............................]\n"
            "\n");
  const json g = ProgressJson(ProgressEvents(*r), kNow)["events"][0];
  EXPECT_TRUE(g["started_at"].is_null());
  EXPECT_TRUE(g["elapsed_sec"].is_null());
  EXPECT_TRUE(g["remaining_sec"].is_null());
  EXPECT_EQ(g["progress"], 0.0);
}

TEST(ProgressFormat, BytesAndBars) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(12u << 20), "12 MiB");
  EXPECT_EQ(HumanBytes((10u << 20) - 1), "10 MiB");
  EXPECT_EQ(HumanBytes(3ull << 40), "3.0 TiB");
  EXPECT_EQ(ProgressBar(0, 4), "[....]");
  EXPECT_EQ(ProgressBar(0.5, 4), "[==..]");
  EXPECT_EQ(ProgressBar(0.999, 4), "[===.]");  // full only when done
  EXPECT_EQ(ProgressBar(1, 4), "[====]");
  EXPECT_EQ(ProgressBar(-1, 4), "[....]");
  EXPECT_EQ(ProgressBar(7, 4), "[====]");
}

// The command against a real etcd holding such reports (one etcd for the file).
class ProgressCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new etcd::testing::EtcdServer;
    Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(server_ != nullptr && server_->running());
    client_ = std::make_unique<etcd::Client>(server_->client_options());
    store_ = std::make_unique<MapStore>(client_.get(), "/progress/");
    ctx_.store = store_.get();
    ctx_.etcd_endpoints = "http://" + server_->endpoint().ToString();
    ctx_.now_ms = [] { return kNow; };
  }
  CommandResult Run(const std::vector<std::string>& words, Format format = Format::kPlain) {
    AdminContext ctx = ctx_;
    ctx.format = format;
    return RunCommand(words, ctx);
  }

  static etcd::testing::EtcdServer* server_;
  std::unique_ptr<etcd::Client> client_;
  std::unique_ptr<MapStore> store_;
  AdminContext ctx_;
};
etcd::testing::EtcdServer* ProgressCommand::server_ = nullptr;

TEST_F(ProgressCommand, EventsWhileRecoveringNoneWhenClean) {
  const ClusterMap want = Map();
  std::vector<MapChange> changes = {MapChange::PutProfile(want.profiles.at("rs"))};
  for (const auto& [id, osd] : want.osds) changes.push_back(MapChange::PutOsd(osd));
  ASSERT_TRUE(store_->Apply(changes).ok());
  Result<ClusterMap> map = ClusterMap{};
  for (auto [id, pool] : want.pools) {
    pool.id = -1;  // created: the next id
    map = store_->Apply({MapChange::PutPool(pool)});
    ASSERT_TRUE(map.ok()) << map.status().ToString();
  }
  const Pool* p = map->FindPool("p");
  const Pool* q = map->FindPool("q");
  ASSERT_TRUE(p != nullptr && q != nullptr);

  // Clean: no reports yet.
  CommandResult r = Run({"progress"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "No ongoing recovery\n");
  r = Run({"progress", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"events":[],"completed":[]})"));

  for (auto [osd, report] : Reports(map->epoch, p->id, q->id)) {
    ASSERT_TRUE(PublishPgStats(*client_, "/progress/", report).ok());
  }
  r = Run({"progress"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Global Recovery Event (30s)\n    [=======", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(r.out, "\nRecovery of pool 'p' (30s)\n")) << r.out;
  for (const CommandResult& j : {Run({"progress", "json"}), Run({"progress"}, Format::kJson),
                                 Run({"progress", "json"}, Format::kJsonPretty)}) {
    EXPECT_EQ(j.exit_code, 0) << j.err;
    const json parsed = json::parse(j.out, nullptr, false);
    ASSERT_FALSE(parsed.is_discarded()) << j.out;
    ASSERT_EQ(parsed["events"].size(), 2u);
    EXPECT_EQ(parsed["events"][0]["remaining_sec"], 24);
  }
  const json status = json::parse(Run({"status"}, Format::kJson).out);
  EXPECT_DOUBLE_EQ(status["pgmap"]["recovery"]["network_per_rebuilt"].get<double>(), 2.5);
  EXPECT_TRUE(Contains(Run({"status"}).out, "  progress:\n    Global Recovery Event (30s)\n"));

  r = Run({"progress", "yaml"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Contains(r.err,
                       "Error EINVAL: invalid command: 'progress' takes only 'json'; "
                       "usage: progress [json]"))
      << r.err;
}

TEST(AdminHelp, OneCommandsHelp) {
  const std::string progress = HelpFor({"progress"});
  EXPECT_EQ(progress.rfind("usage: ec-admin progress [json]\n  running recovery events\n", 0), 0u)
      << progress;
  EXPECT_TRUE(Contains(progress, "No ongoing recovery")) << progress;
  const std::string pool = HelpFor({"osd", "pool"});
  for (const char* c : {"osd pool create", "osd pool ls", "osd pool rm"}) {
    EXPECT_TRUE(Contains(pool, std::string("usage: ec-admin ") + c)) << pool;
  }
  EXPECT_FALSE(Contains(pool, "osd tree")) << pool;
  EXPECT_EQ(HelpFor({"frobnicate"}), HelpText());
  EXPECT_EQ(HelpFor({"osd", "poo"}), HelpText());  // whole words only
  EXPECT_TRUE(Contains(HelpText(), "progress [json]"));
}

}  // namespace
}  // namespace ec::cluster::admin
