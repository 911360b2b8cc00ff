// Capacity and client I/O in-process against a real etcd (admin_test_fixture.h): `df [detail]`,
// `osd df`, the usage and io lines of `status`, completed events of `progress`, from OSD and PG
// reports published as the OSDs publish them. Pool ids start at 1.
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/admin_test_fixture.h"
#include "cluster/admin/capacity.h"
#include "cluster/admin/progress_report.h"
#include "cluster/map/osd_stats.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;
using test_support::Contains;
using test_support::kNow;

constexpr std::int64_t kGiB = 1LL << 30;

class DfAdminTest : public test_support::AdminFixture {
 protected:
  // Three OSDs on three hosts, pool p (k=2 m=1, 8 PGs) with 2 objects of 4 KiB per PG, OSD 0 the
  // fullest (3 GiB used of 10) and the only one with client I/O.
  void SetUpCluster() {
    Ok("osd erasure-code-profile set rs k=2 m=1");
    Ok("osd pool create p 8 erasure rs");
    for (int id = 0; id < 3; ++id) Boot(id, "h" + std::to_string(id));
    for (int id = 0; id < 3; ++id) {
      OsdStatsReport o;
      o.osd = id;
      o.stamp_ms = kNow;
      const std::int64_t used = (id == 0 ? 3 : 1) * kGiB;
      o.statfs = {10 * kGiB, 10 * kGiB - used, used - (64 << 20), 0, 64 << 20};
      if (id == 0) {
        o.pools[1] = {10, 40960, 5, 20480};
        o.io = o.pools[1];
        o.rates = {2, 8192, 1, 4096};
      }
      ASSERT_TRUE(PublishOsdStats(*client_, prefix_, o).ok());
      // Every OSD reports every PG: each PG counts its primary's report only.
      PgStatsReport p;
      p.osd = id;
      p.epoch = Map().epoch;
      for (std::uint32_t pg = 0; pg < 8; ++pg) {
        PgStat& st = p.pgs[PgName(1, pg)];
        st.objects = 2;
        st.bytes = 8192;
        st.state = "active+clean";
      }
      p.recovery.objects = 4;
      p.recovery.rebuilt_bytes = 1000;
      if (id == 1) {
        p.recovery.last_since_ms = kNow - 60'000;
        p.recovery.last_done_ms = kNow - 20'000;
      }
      ASSERT_TRUE(PublishPgStats(*client_, prefix_, p).ok());
    }
  }
};

TEST_F(DfAdminTest, DfShowsRawSpaceAndPools) {
  SetUpCluster();
  const std::string out = Ok("df").out;
  EXPECT_EQ(out,
            "--- RAW STORAGE ---\n"
            "CLASS    SIZE   AVAIL     USED  RAW USED  %RAW USED\n"
            "ssd    30 GiB  25 GiB  5.0 GiB   5.0 GiB      16.67\n"
            "TOTAL  30 GiB  25 GiB  5.0 GiB   5.0 GiB      16.67\n"
            " \n"
            "--- POOLS ---\n"
            "POOL  ID  PGS  STORED  OBJECTS    USED  %USED  MAX AVAIL\n"
            "p      1    8  64 KiB       16  96 KiB      0     13 GiB\n")
      << out;

  const json j = Json("df");
  EXPECT_EQ(j["stats"]["total_bytes"], 30 * kGiB);
  EXPECT_EQ(j["stats"]["total_avail_bytes"], 25 * kGiB);
  EXPECT_EQ(j["stats"]["total_used_bytes"], 5 * kGiB);
  EXPECT_EQ(j["stats"]["total_used_raw_bytes"], 5 * kGiB);
  ASSERT_EQ(j["pools"].size(), 1u);
  const json& p = j["pools"][0];
  EXPECT_EQ(p["name"], "p");
  EXPECT_EQ(p["id"], 1);
  EXPECT_EQ(p["stats"]["stored"], 65536);
  EXPECT_EQ(p["stats"]["objects"], 16);
  EXPECT_EQ(p["stats"]["bytes_used"], 98304);  // stored x (k+m)/k
  // Ceph's MAX AVAIL: the fullest OSD's headroom (0.95 x 10 GiB - 3 GiB = 6.5 GiB) over its
  // share of the weight (1/3), x k/(k+m) = 2/3: 13 GiB.
  EXPECT_EQ(p["stats"]["max_avail"], 13 * kGiB);
  const double pct = 98304.0 / (98304.0 + 13.0 * kGiB * 1.5);
  EXPECT_NEAR(p["stats"]["percent_used"].get<double>(), pct, 1e-12);

  const std::string detail = Ok("df detail").out;
  EXPECT_TRUE(Contains(detail,
                       "MAX AVAIL  QUOTA OBJECTS  QUOTA BYTES  DIRTY  USED COMPR  UNDER "
                       "COMPR\n"))
      << detail;
  const json jd = Json("df detail");
  EXPECT_EQ(jd["pools"][0]["stats"]["rd"], 10);
  EXPECT_EQ(jd["pools"][0]["stats"]["wr_bytes"], 20480);
}

TEST_F(DfAdminTest, OsdDfPerOsd) {
  SetUpCluster();
  const std::string out = Ok("osd df").out;
  EXPECT_EQ(
      out.substr(0, out.find("MIN/MAX")),
      "ID  CLASS   WEIGHT  REWEIGHT    SIZE  RAW USE     DATA  OMAP     META    AVAIL   %USE  "
      " VAR  PGS  STATUS\n"
      " 0    ssd  1.00000   1.00000  10 GiB  3.0 GiB  2.9 GiB   0 B   64 MiB  7.0 GiB  30.00  "
      "1.80    8  up\n"
      " 1    ssd  1.00000   1.00000  10 GiB  1.0 GiB  960 MiB   0 B   64 MiB  9.0 GiB  10.00  "
      "0.60    8  up\n"
      " 2    ssd  1.00000   1.00000  10 GiB  1.0 GiB  960 MiB   0 B   64 MiB  9.0 GiB  10.00  "
      "0.60    8  up\n"
      "                       TOTAL  30 GiB  5.0 GiB  4.8 GiB   0 B  192 MiB   25 GiB  16.67\n")
      << out;
  EXPECT_TRUE(Contains(out, "MIN/MAX VAR: 0.60/1.80  STDDEV: 9.43\n")) << out;
  const json j = Json("osd df");
  ASSERT_EQ(j["nodes"].size(), 3u);
  const json& n = j["nodes"][0];
  EXPECT_EQ(n["id"], 0);
  EXPECT_EQ(n["kb"], 10 * kGiB / 1024);
  EXPECT_EQ(n["kb_used"], 3 * kGiB / 1024);
  EXPECT_EQ(n["kb_avail"], 7 * kGiB / 1024);
  EXPECT_NEAR(n["utilization"].get<double>(), 30.0, 1e-9);
  EXPECT_EQ(n["pgs"], 8);
  EXPECT_EQ(n["status"], "up");

  // A down OSD keeps its row (status down) but leaves the totals.
  Down(2);
  const json d = Json("osd df");
  EXPECT_EQ(d["nodes"][2]["status"], "down");
  EXPECT_EQ(d["summary"]["total_kb"], 20 * kGiB / 1024);
}

TEST_F(DfAdminTest, StatusUsageAndClientIo) {
  SetUpCluster();
  const std::string plain = Ok("status").out;
  EXPECT_TRUE(Contains(plain,
                       "    objects: 16 objects, 64 KiB\n"
                       "    usage:   5.0 GiB used, 25 GiB / 30 GiB avail\n"))
      << plain;
  EXPECT_TRUE(Contains(plain,
                       "  io:\n    client:   8.0 KiB/s rd, 4.0 KiB/s wr, 2 op/s rd, 1 op/s "
                       "wr\n"))
      << plain;
  const json pgmap = Json("status")["pgmap"];
  EXPECT_EQ(pgmap["data_bytes"], 65536);
  EXPECT_EQ(pgmap["bytes_used"], 5 * kGiB);
  EXPECT_EQ(pgmap["bytes_avail"], 25 * kGiB);
  EXPECT_EQ(pgmap["bytes_total"], 30 * kGiB);
  EXPECT_EQ(pgmap["num_objects"], 16);
  EXPECT_EQ(pgmap["read_bytes_sec"], 8192);
  EXPECT_EQ(pgmap["write_bytes_sec"], 4096);
  EXPECT_EQ(pgmap["read_op_per_sec"], 2);
  EXPECT_EQ(pgmap["write_op_per_sec"], 1);
  EXPECT_EQ(pgmap["num_objects_recovered"], 12);
  EXPECT_EQ(pgmap["num_bytes_recovered"], 3000);
}

TEST_F(DfAdminTest, ProgressKeepsTheCompletedRecovery) {
  SetUpCluster();
  EXPECT_EQ(Ok("progress").out, "[Complete]: Global Recovery Event (took 40s)\n");
  const json j = Json("progress");
  EXPECT_EQ(j["events"], json::array());
  ASSERT_EQ(j["completed"].size(), 1u);
  const json& c = j["completed"][0];
  EXPECT_EQ(c["message"], "Global Recovery Event");
  EXPECT_EQ(c["progress"], 1.0);
  EXPECT_EQ(c["failed"], false);
  EXPECT_DOUBLE_EQ(c["started_at"].get<double>(), (kNow - 60'000) / 1000.0);
  EXPECT_DOUBLE_EQ(c["finished_at"].get<double>(), (kNow - 20'000) / 1000.0);
  // An hour after it ended it is gone.
  ctx_.now_ms = [] { return kNow - 20'000 + kCompletedKeepMs + 1; };
  EXPECT_EQ(Ok("progress").out, "No ongoing recovery\n");
}

TEST_F(DfAdminTest, EmptyClusterBadReportsAndUsageErrors) {
  // No OSD, no pool: zeros, not errors.
  EXPECT_TRUE(Contains(Ok("df").out, "TOTAL   0 B    0 B   0 B       0 B          0\n"))
      << Ok("df").out;
  EXPECT_EQ(Json("osd df")["nodes"], json::array());

  SetUpCluster();
  // A report that does not decode is left out (osd.1 then counts as not reported), never a crash.
  ASSERT_TRUE(client_->Put(etcd::PutRequest{OsdStatsKey(prefix_, 1), "{\"v\":1,", 0}).ok());
  ASSERT_TRUE(
      client_->Put(etcd::PutRequest{OsdStatsKey(prefix_, 2), std::string(300'000, '{'), 0}).ok());
  const json j = Json("df");
  EXPECT_EQ(j["stats"]["total_bytes"], 10 * kGiB);
  EXPECT_EQ(Json("osd df")["nodes"][1]["kb"], 0);

  EXPECT_TRUE(Contains(Fails("df frob", "EINVAL"), "usage: df [detail]"));
  EXPECT_TRUE(Contains(Fails("osd df 1", "EINVAL"), "usage: osd df"));
  EXPECT_TRUE(Contains(HelpFor({"df"}), "k/(k+m)"));
  EXPECT_TRUE(Contains(HelpFor({"osd", "df"}), "usage: ec-admin osd df\n"));
}

// The pure model: MAX AVAIL follows the fullest OSD by weight; out, down or silent OSDs add no
// room; a pool whose profile has no geometry shows its data but no room.
TEST(Capacity, MaxAvailFollowsTheFullestOsdByWeight) {
  ClusterMap map;
  for (int id = 0; id < 4; ++id) {
    OsdEntry o;
    o.id = id;
    o.host = "h" + std::to_string(id);
    o.up = true;
    o.weight = id == 1 ? 2.0 : 1.0;
    map.osds[id] = o;
  }
  map.osds[3].in = false;
  map.profiles["rs"] = EcProfile{"rs", {{"plugin", "jerasure"}, {"k", "4"}, {"m", "2"}}};
  Pool p;
  p.id = 1;
  p.name = "p";
  p.profile = "rs";
  p.pg_num = 4;
  p.min_size = 5;
  map.pools[1] = p;
  std::map<int, OsdStatsReport> osds;
  for (int id = 0; id < 4; ++id) {
    osds[id].osd = id;
    osds[id].statfs = {100 * kGiB, 100 * kGiB, 0, 0, 0};
  }
  osds[1].statfs.available = 55 * kGiB;  // 45 used of 100: headroom 50 GiB, half the weight
  Result<ClusterUsage> u = BuildUsage(map, {}, osds);
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  ASSERT_EQ(u->pools.size(), 1u);
  // osd.1: 50 GiB / (2/4) = 100 GiB raw; osd.0 and 2: 95 GiB / (1/4) = 380 GiB. x 4/6.
  EXPECT_EQ(u->pools[0].max_avail, static_cast<std::uint64_t>(100.0 * kGiB * 4 / 6));
  EXPECT_EQ(u->total, 400u * kGiB);  // up and reported, out or not
}

}  // namespace
}  // namespace ec::cluster::admin
