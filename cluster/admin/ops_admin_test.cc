// The operator's commands in-process against a real etcd (admin_test_fixture.h): osd set|unset
// and the flags in status, health, osd dump and osd stat; osd pool get|set; osd stat, down,
// ok-to-stop and perf; pg stat, dump, ls, ls-by-pool and PGID query. Ceph's output and errnos.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/admin_test_fixture.h"
#include "cluster/admin/pg_view.h"
#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/osd_stats.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;
using test_support::Contains;
using test_support::kNow;

class OpsAdminTest : public test_support::AdminFixture {
 protected:
  // n OSDs on n hosts, and pool "p" of `pg_num` PGs on a k+m profile (failure domain osd).
  std::int64_t MakePool(int n, int k, int m, int pg_num) {
    for (int i = 0; i < n; ++i) Boot(i, "h" + std::to_string(i));
    Ok("osd erasure-code-profile set rs k=" + std::to_string(k) + " m=" + std::to_string(m) +
       " crush-failure-domain=osd");
    Ok("osd pool create p " + std::to_string(pg_num) + " erasure rs");
    return Map().FindPool("p")->id;
  }
  std::vector<PgView> Views() {
    Result<std::vector<PgView>> v = ViewPgs(Map(), {});
    EXPECT_TRUE(v.ok());
    return v.ok() ? *v : std::vector<PgView>{};
  }
};

// ---- osd set | unset ---------------------------------------------------------------------

TEST_F(OpsAdminTest, FlagsAreSetInTheMapAndShownEverywhere) {
  for (int i = 0; i < 3; ++i) Boot(i, "h" + std::to_string(i));
  CommandResult r = Ok("osd set noout");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "noout is set\n");
  EXPECT_EQ(Ok("osd set norecover").err, "norecover is set\n");
  const std::int64_t epoch = Map().epoch;
  EXPECT_EQ(Ok("osd set noout").err, "noout is set\n");  // as Ceph: no error, no new epoch
  EXPECT_EQ(Map().epoch, epoch);
  EXPECT_EQ(Map().FlagsText(), "noout,norecover");

  const std::string status = Ok("status").out;
  EXPECT_TRUE(Contains(status, "health: HEALTH_WARN\n            noout,norecover flag(s) set\n"))
      << status;
  EXPECT_TRUE(Contains(status, "3 in (since 90s)\n         flags noout,norecover\n")) << status;
  EXPECT_EQ(Ok("health detail").out,
            "HEALTH_WARN noout,norecover flag(s) set\n[WRN] OSDMAP_FLAGS: noout,norecover flag(s) "
            "set\n");
  json h = Json("health");
  EXPECT_EQ(h["status"], "HEALTH_WARN");
  EXPECT_EQ(h["checks"]["OSDMAP_FLAGS"]["summary"]["message"], "noout,norecover flag(s) set");
  EXPECT_EQ(h["checks"]["OSDMAP_FLAGS"]["severity"], "HEALTH_WARN");

  EXPECT_TRUE(Contains(Ok("osd dump").out, "\nflags noout,norecover\n"));
  json dump = Json("osd dump");
  EXPECT_EQ(dump["flags"], "noout,norecover");
  EXPECT_EQ(dump["flags_set"], json::array({"noout", "norecover"}));
  EXPECT_EQ(Ok("osd stat").out, "3 osds: 3 up (since 90s), 3 in (since 90s); epoch: e" +
                                    std::to_string(epoch) + "\nflags noout,norecover\n");

  EXPECT_EQ(Ok("osd unset noout").err, "noout is unset\n");
  EXPECT_EQ(Ok("osd unset norecover").err, "norecover is unset\n");
  EXPECT_EQ(Ok("osd unset nobackfill").err, "nobackfill is unset\n");  // was not set: fine
  EXPECT_TRUE(Map().flags.empty());
  EXPECT_EQ(Ok("health").out, "HEALTH_OK\n");
  EXPECT_FALSE(Contains(Ok("status").out, "flags")) << Ok("status").out;
  json d2 = Json("osd dump");
  EXPECT_EQ(d2["flags"], "");
  for (const char* f : {"nobackfill", "noscrub", "nodeep-scrub"}) {
    Ok(std::string("osd set ") + f);
    EXPECT_TRUE(Map().HasFlag(f)) << f;
  }

  EXPECT_TRUE(Contains(Fails("osd set", "EINVAL"), "usage: osd set noout|norecover"));
  EXPECT_TRUE(Contains(Fails("osd unset noout x", "EINVAL"), "too many arguments"));
  EXPECT_EQ(Fails("osd set nodown", "EINVAL"),
            "Error EINVAL: unknown flag 'nodown'; expected one of "
            "noout|norecover|nobackfill|noscrub|nodeep-scrub\n");
}

// ---- osd pool get | set ------------------------------------------------------------------

TEST_F(OpsAdminTest, PoolGetAndSetMinSize) {
  const std::int64_t id = MakePool(6, 4, 2, 8);
  const std::string pid = std::to_string(id);
  EXPECT_EQ(Ok("osd pool get p min_size").out, "min_size: 5\n");
  EXPECT_EQ(Ok("osd pool get p size").out, "size: 6\n");
  EXPECT_EQ(Ok("osd pool get p pg_num").out, "pg_num: 8\n");
  EXPECT_EQ(Ok("osd pool get p pgp_num").out, "pgp_num: 8\n");
  EXPECT_EQ(Ok("osd pool get p erasure_code_profile").out, "erasure_code_profile: rs\n");
  EXPECT_EQ(Ok("osd pool get p allow_ec_optimizations").out, "allow_ec_optimizations: true\n");
  EXPECT_EQ(Ok("osd pool get p all").out,
            "size: 6\nmin_size: 5\npg_num: 8\npgp_num: 8\nerasure_code_profile: rs\n"
            "allow_ec_optimizations: true\nec_min_object_size: 0\n");
  EXPECT_EQ(Ok("osd pool get p min_size", Format::kJson).out,
            "{\"min_size\":5,\"pool\":\"p\",\"pool_id\":" + pid + "}\n");
  json all = Json("osd pool get p all");
  EXPECT_EQ(all["size"], 6);
  EXPECT_EQ(all["erasure_code_profile"], "rs");

  CommandResult r = Ok("osd pool set p min_size 4");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "set pool " + pid + " min_size to 4\n");
  EXPECT_EQ(Map().FindPool("p")->min_size, 4);
  const std::int64_t epoch = Map().epoch;
  Ok("osd pool set p min_size 4");
  EXPECT_EQ(Map().epoch, epoch);  // no change, no epoch
  Ok("osd pool set p min_size 6");
  EXPECT_EQ(Map().FindPool("p")->min_size, 6);

  EXPECT_EQ(Fails("osd pool set p min_size 3", "EINVAL"),
            "Error EINVAL: pool min_size must be between 4 and size, which is set to 6\n");
  Fails("osd pool set p min_size 7", "EINVAL");
  EXPECT_TRUE(Contains(Fails("osd pool set p min_size five", "EINVAL"), "'five'"));
  EXPECT_TRUE(Contains(Fails("osd pool set p size 7", "EPERM"), "erasure-coded pool"));
  EXPECT_TRUE(Contains(Fails("osd pool set p pg_num 16", "EPERM"), "can not change pg_num"));
  Fails("osd pool set p pgp_num 16", "EPERM");
  Fails("osd pool set p erasure_code_profile other", "EPERM");
  EXPECT_TRUE(Contains(Fails("osd pool set p allow_ec_optimizations false", "EINVAL"),
                       "fixed at pool creation"));
  EXPECT_TRUE(Contains(Fails("osd pool set p frob 1", "EINVAL"), "unrecognized variable 'frob'"));
  EXPECT_EQ(Fails("osd pool set q min_size 5", "ENOENT"), "Error ENOENT: unrecognized pool 'q'\n");
  EXPECT_EQ(Fails("osd pool get q size", "ENOENT"), "Error ENOENT: unrecognized pool 'q'\n");
  EXPECT_TRUE(Contains(Fails("osd pool get p frob", "EINVAL"), "invalid pool option 'frob'"));
  EXPECT_TRUE(Contains(Fails("osd pool get p", "EINVAL"), "usage: osd pool get NAME"));
  EXPECT_TRUE(Contains(Fails("osd pool set p min_size", "EINVAL"), "usage: osd pool set NAME"));
  EXPECT_EQ(Map().FindPool("p")->min_size, 6);
}

// ---- osd stat | down | ok-to-stop ----------------------------------------------------------

TEST_F(OpsAdminTest, OsdStatDownAndOkToStop) {
  MakePool(6, 4, 2, 8);  // every PG on all six OSDs, min_size 5
  CommandResult r = Ok("osd ok-to-stop 0");
  json j = json::parse(r.out);
  EXPECT_EQ(j["ok_to_stop"], true);
  EXPECT_EQ(j["osds"], json::array({0}));
  EXPECT_EQ(j["num_ok_pgs"], 8);
  EXPECT_EQ(j["num_not_ok_pgs"], 0);
  EXPECT_EQ(j["ok_become_degraded"].size(), 8u);
  EXPECT_TRUE(Contains(r.err, "OSD(s) 0 are ok to stop without reducing availability")) << r.err;
  EXPECT_TRUE(Contains(r.err, "\n8 PGs are likely to be degraded")) << r.err;
  EXPECT_EQ(Fails("osd ok-to-stop 0 osd.1", "EBUSY"),
            "Error EBUSY: unsafe to stop osd(s) at this time (8 PGs are or would become "
            "offline)\n");
  CommandResult busy = Run("osd ok-to-stop 0 1", Format::kJson);
  EXPECT_EQ(busy.exit_code, EBUSY);
  EXPECT_EQ(json::parse(busy.out)["ok_to_stop"], false);
  Ok("osd pool set p min_size 4");
  Ok("osd ok-to-stop 0 1");

  const std::int64_t before = Map().epoch;
  r = Ok("osd down 2");
  EXPECT_EQ(r.err, "marked down osd.2. \n");
  EXPECT_FALSE(Map().osds.at(2).up);
  EXPECT_EQ(Map().epoch, before + 1);
  EXPECT_EQ(Ok("osd down osd.2 3").err, "osd.2 is already down. marked down osd.3. \n");
  EXPECT_EQ(Fails("osd down 9", "ENOENT"), "Error ENOENT: osd.9 does not exist.\n");
  EXPECT_TRUE(Contains(Fails("osd down", "EINVAL"), "usage: osd down ID"));
  Fails("osd down x", "EINVAL");

  const std::string epoch = std::to_string(Map().epoch);
  EXPECT_EQ(Ok("osd stat").out,
            "6 osds: 4 up (since 90s), 6 in (since 90s); epoch: e" + epoch + "\n");
  json stat = Json("osd stat");
  EXPECT_EQ(stat["epoch"], Map().epoch);
  EXPECT_EQ(stat["num_osds"], 6);
  EXPECT_EQ(stat["num_up_osds"], 4);
  EXPECT_EQ(stat["num_in_osds"], 6);
  EXPECT_EQ(stat["osd_up_since"], (kNow - 90'000) / 1000);
  EXPECT_TRUE(Contains(Fails("osd stat x", "EINVAL"), "takes no arguments"));

  // Two down already, min_size 4: stopping them changes nothing; one more is too many.
  Ok("osd ok-to-stop 2 3");
  Fails("osd ok-to-stop 0", "EBUSY");
  Fails("osd ok-to-stop 42", "ENOENT");
  Fails("osd ok-to-stop", "EINVAL");
}

// ok-to-stop looks only at the PGs the OSDs hold: here (five OSDs, size 3, min_size 2, osd.4
// down) some PGs of osd.0 lose their second shard and the others are not counted at all.
TEST_F(OpsAdminTest, OkToStopCountsThePgsOfTheOsdsOnly) {
  MakePool(5, 2, 1, 16);
  Down(4);
  std::uint64_t touched = 0, offline = 0;
  for (const PgView& v : Views()) {
    if (std::find(v.acting.begin(), v.acting.end(), 0) == v.acting.end()) continue;
    ++touched;
    int up_after = 0;
    for (int osd : v.up) up_after += osd != kItemNone && osd != 0 ? 1 : 0;
    if (up_after < 2) ++offline;
  }
  ASSERT_GT(touched, 0u);
  ASSERT_LT(touched, 16u);
  CommandResult r = Run("osd ok-to-stop 0", Format::kJson);
  const json j = json::parse(r.out);
  EXPECT_EQ(j["num_ok_pgs"].get<std::uint64_t>() + j["num_not_ok_pgs"].get<std::uint64_t>(),
            touched);
  EXPECT_EQ(j["num_not_ok_pgs"], offline);
  EXPECT_EQ(r.exit_code, offline > 0 ? EBUSY : 0) << r.err;
}

// ---- osd perf ------------------------------------------------------------------------------

TEST_F(OpsAdminTest, OsdPerfShowsTheReportsOfUpOsds) {
  for (int i = 0; i < 3; ++i) Boot(i, "h" + std::to_string(i));
  const auto publish = [&](int osd, double latency_ms, std::int64_t ops) {
    OsdStatsReport r;
    r.osd = osd;
    r.stamp_ms = kNow;
    r.perf = {latency_ms, latency_ms, ops};
    return PublishOsdStats(*client_, prefix_, r);
  };
  ASSERT_TRUE(publish(1, 2.6, 10).ok());
  ASSERT_TRUE(publish(2, 0.4, 3).ok());
  EXPECT_EQ(Ok("osd perf").out,
            "osd  commit_latency(ms)  apply_latency(ms)\n"
            "  2                   0                  0\n"
            "  1                   3                  3\n"
            "  0                   0                  0\n");
  json j = Json("osd perf");
  const json& infos = j["osdstats"]["osd_perf_infos"];
  ASSERT_EQ(infos.size(), 3u);
  EXPECT_EQ(infos[1]["id"], 1);
  EXPECT_EQ(infos[1]["perf_stats"]["commit_latency_ms"], 3);
  EXPECT_EQ(infos[1]["perf_stats"]["apply_latency_ns"], 2'600'000);
  // A bad report is left out, not an error; a down OSD is not listed.
  ASSERT_TRUE(client_->Put(etcd::PutRequest{OsdStatsKey(prefix_, 0), "{bad", 0}).ok());
  Down(2);
  EXPECT_EQ(Ok("osd perf").out,
            "osd  commit_latency(ms)  apply_latency(ms)\n"
            "  1                   3                  3\n"
            "  0                   0                  0\n");
  Fails("osd perf x", "EINVAL");
}

// ---- pg stat | dump | ls | ls-by-pool | query ----------------------------------------------

TEST_F(OpsAdminTest, PgQueriesShowStatesCountsAndScrubStamps) {
  const std::int64_t pool = MakePool(4, 2, 2, 4);  // every PG on all four OSDs, min_size 3
  const std::string p = std::to_string(pool);
  EXPECT_EQ(Ok("pg stat").out, "4 pgs: 4 active+clean; 0 objects\n");
  std::string brief = Ok("pg dump pgs_brief").out;
  EXPECT_EQ(
      brief.rfind("PG_STAT  STATE         UP         UP_PRIMARY  ACTING     ACTING_PRIMARY\n", 0),
      0u)
      << brief;
  EXPECT_EQ(std::count(brief.begin(), brief.end(), '\n'), 5);

  Down(3);
  EXPECT_EQ(Ok("pg stat").out, "4 pgs: 4 active+undersized+degraded; 0 objects\n");
  // The primary of PG .0 reports it for its current interval, with objects; its scrub record.
  const std::vector<PgView> views = Views();
  ASSERT_EQ(views.size(), 4u);
  const PgView& v0 = views[0];
  PgStatsReport report;
  report.osd = FirstUp(v0.up);
  report.epoch = Map().epoch;
  report.stamp_ms = kNow;
  PgStat st;
  st.objects = 7;
  st.state = "active+undersized+degraded";
  st.degraded = 7;
  st.missing = 7;
  st.up = v0.up;
  st.acting = v0.acting;
  report.pgs[v0.pgid] = st;
  ASSERT_TRUE(PublishPgStats(*client_, prefix_, report).ok());
  ScrubResult scrub;
  scrub.pgid = v0.pgid;
  scrub.osd = report.osd;
  scrub.stamp_ms = scrub.last_scrub_ms = kNow;
  scrub.last_deep_scrub_ms = kNow - 1000;
  ASSERT_TRUE(
      client_->Put(etcd::PutRequest{ScrubResultKey(prefix_, v0.pgid), EncodeScrubResult(scrub), 0})
          .ok());

  EXPECT_EQ(Ok("pg stat").out,
            "4 pgs: 4 active+undersized+degraded; 7 objects; 7 objects degraded\n");
  json stat = Json("pg stat");
  EXPECT_EQ(stat["pg_summary"]["num_pgs"], 4);
  EXPECT_EQ(stat["pg_summary"]["num_objects"], 7);
  EXPECT_EQ(stat["pg_summary"]["num_pg_by_state"][0]["name"], "active+undersized+degraded");

  json dump = Json("pg dump");
  const json& pgs = dump["pg_map"]["pg_stats"];
  ASSERT_EQ(pgs.size(), 4u);
  EXPECT_EQ(pgs[0]["pgid"], v0.pgid);
  EXPECT_EQ(pgs[0]["stat_sum"]["num_objects"], 7);
  EXPECT_EQ(pgs[0]["stat_sum"]["num_objects_degraded"], 7);
  EXPECT_EQ(pgs[0]["last_scrub_stamp"], "2023-11-14T22:13:20.000000+0000");
  EXPECT_EQ(pgs[0]["last_deep_scrub_stamp"], "2023-11-14T22:13:19.000000+0000");
  EXPECT_EQ(pgs[1]["last_scrub_stamp"], "0.000000");
  // The down OSD's position: CRUSH_ITEM_NONE in up, still osd.3 in acting.
  const auto none = std::find(v0.up.begin(), v0.up.end(), kItemNone) - v0.up.begin();
  ASSERT_LT(none, 4);
  EXPECT_EQ(pgs[0]["up"][none], 2147483647);
  EXPECT_EQ(pgs[0]["acting"][none], 3);
  EXPECT_EQ(Json("pg dump pgs")["pg_stats"].size(), 4u);
  json b = Json("pg dump pgs_brief");
  EXPECT_EQ(b["pg_stats"][0].size(), 6u);
  EXPECT_EQ(b["pg_stats"][0]["up_primary"], report.osd);
  const std::string plain = Ok("pg dump").out;
  EXPECT_TRUE(Contains(plain, "last_osdmap_epoch " + std::to_string(Map().epoch) + "\n"));
  EXPECT_TRUE(Contains(plain, "2023-11-14T22:13:20.000000+0000")) << plain;

  const std::string ls = Ok("pg ls undersized").out;
  EXPECT_EQ(std::count(ls.begin(), ls.end(), '\n'), 5) << ls;
  EXPECT_TRUE(Contains(ls, "NONE")) << ls;
  EXPECT_TRUE(Contains(ls, "\n" + v0.pgid + " ")) << ls;
  EXPECT_EQ(Ok("pg ls clean").out, "");
  EXPECT_EQ(Json("pg ls clean")["pg_stats"].size(), 0u);
  EXPECT_EQ(Json("pg ls-by-pool p degraded")["pg_stats"].size(), 4u);
  EXPECT_EQ(Json("pg ls active clean")["pg_stats"].size(), 4u);  // any of the states
  EXPECT_TRUE(Contains(Fails("pg ls frob", "EINVAL"), "unknown pg state 'frob'"));
  Fails("pg ls active+clean", "EINVAL");
  EXPECT_TRUE(Contains(Fails("pg ls-by-pool q", "ENOENT"), "pool 'q' does not exist"));
  Fails("pg ls-by-pool", "EINVAL");
  Fails("pg dump frob", "EINVAL");

  json q = Json("pg " + v0.pgid + " query");
  EXPECT_EQ(q["state"], "active+undersized+degraded");
  EXPECT_EQ(q["epoch"], Map().epoch);
  EXPECT_EQ(q["up_primary"], report.osd);
  EXPECT_EQ(q["info"]["pgid"], v0.pgid);
  EXPECT_EQ(q["info"]["stats"]["stat_sum"]["num_objects"], 7);
  EXPECT_EQ(q["info"]["stats"]["last_scrub_stamp"], "2023-11-14T22:13:20.000000+0000");
  // Plain is indented JSON, as Ceph prints a query.
  EXPECT_EQ(Ok("pg " + v0.pgid + " query").out.rfind("{\n    \"", 0), 0u);
  EXPECT_EQ(Fails("pg " + p + ".9 query", "ENOENT"),
            "Error ENOENT: pgid '" + p + ".9' does not exist\n");
  Fails("pg x query", "EINVAL");
}

TEST(OpsAdminHelp, TheNewCommandsAreListed) {
  const std::string help = HelpText();
  for (const char* c :
       {"osd set noout|norecover|nobackfill|noscrub|nodeep-scrub", "osd unset", "osd stat",
        "osd down ID", "osd ok-to-stop ID", "osd perf", "osd pool get NAME", "osd pool set NAME",
        "pg stat", "pg dump", "pg ls [STATE", "pg ls-by-pool POOL", "pg PGID query"}) {
    EXPECT_TRUE(Contains(help, c)) << c;
  }
  EXPECT_TRUE(Contains(HelpFor({"osd", "set"}), "noout         the monitor marks no down OSD out"));
  EXPECT_TRUE(Contains(HelpFor({"osd", "ok-to-stop"}), "EBUSY (16)"));
}

}  // namespace
}  // namespace ec::cluster::admin
