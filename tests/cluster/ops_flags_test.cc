// Issue 29 item 3 on a real cluster: what the daemons must honour of the operator's commands,
// each set and cleared through the real ec-admin. Seven ec-osd on seven hosts, an RS(4,2) pool
// (min_size k = 4), a 2 s down-out interval and an 8 s scrub interval, so that the automatic out,
// recovery and scheduled scrubs would all happen within the case without the flags (~45 s):
//   - osd perf: every OSD reports;
//   - osd down of a live OSD: the map says down, the OSD boots again ("wrongly marked me down");
//   - noscrub: no scheduled scrub although due; cleared, they run;
//   - noout: a killed OSD stays in past the interval; cleared, it goes out;
//   - norecover + nobackfill: nothing is pulled while set; cleared, every PG gets clean;
//   - osd pool set min_size: a write with fewer shards up than min_size is refused (EAGAIN after
//     osd_min_size_wait; ok-to-stop says EBUSY first), and goes through once min_size is lowered.
#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "cluster/map/osd_stats.h"
#include "cluster/map/scrub_record.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kOsds = 7;
constexpr auto kScrubInterval = seconds(8);

TEST(OpsFlags, TheDaemonsHonourTheFlagsAndMinSize) {
  const auto started = Clock::now();
  ectest::LocalClusterOptions o;
  o.osds = kOsds;
  o.down_out_seconds = 2;
  o.pools = {ectest::PoolSpec{"rs", ectest::RsProfile(4, 2), 4096, 8}};
  o.osd_options = {"osd_scrub_min_interval=8s", "osd_deep_scrub_interval=3600s"};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());
  const auto pool_made = Clock::now();  // the PGs' scrub intervals count from about now
  const std::string conf = c.ToolConf();
  const auto admin = [&](const std::string& line, int want_exit = 0) {
    const ectest::ProcessResult r = ectest::RunAdminLine(EC_ADMIN_PATH, conf, line);
    EXPECT_EQ(r.exit_code, want_exit) << line << "\n" << r.out << r.err;
    return r;
  };
  for (const char* f : {"noscrub", "noout", "norecover", "nobackfill"}) {
    EXPECT_EQ(admin(std::string("osd set ") + f).err, std::string(f) + " is set\n");
  }
  EXPECT_LT(Clock::now() - pool_made, kScrubInterval) << "the flags came too late to test noscrub";
  EXPECT_NE(admin("health").out.find("noout,norecover,nobackfill,noscrub flag(s) set"),
            std::string::npos);

  auto io = c.Pool("rs");
  for (int i = 0; i < 32; ++i) {
    ASSERT_TRUE(io.WriteFull("obj-" + std::to_string(i), ectest::RandomBytes(6000, i)).ok());
  }
  ASSERT_TRUE(c.WaitClean(seconds(30)));

  // osd perf: every OSD reports its write latency in its osd stats (twice a second here).
  std::this_thread::sleep_for(seconds(1));
  auto perf = ec::cluster::LoadOsdStats(*c.client, "/ecstore/");
  ASSERT_TRUE(perf.ok());
  EXPECT_EQ(perf->size(), static_cast<std::size_t>(kOsds));
  const std::string perf_table = admin("osd perf").out;
  EXPECT_EQ(perf_table.rfind("osd  commit_latency(ms)  apply_latency(ms)\n", 0), 0u) << perf_table;
  EXPECT_EQ(std::count(perf_table.begin(), perf_table.end(), '\n'), kOsds + 1) << perf_table;

  // A live OSD marked down boots again at once.
  EXPECT_EQ(admin("osd down 0").err, "marked down osd.0. \n");
  ASSERT_TRUE(c.WaitUp(0, true, seconds(5))) << c.DescribeOsds();
  ASSERT_TRUE(c.WaitClean(seconds(20)));

  // noscrub: scrubs are due (every PG clean for longer than the interval) and none has run.
  std::this_thread::sleep_until(pool_made + kScrubInterval + seconds(2));
  auto scrubs = ec::cluster::LoadScrubResults(*c.client, "/ecstore/");
  ASSERT_TRUE(scrubs.ok());
  EXPECT_TRUE(scrubs->empty()) << scrubs->size() << " PGs scrubbed under noscrub";
  admin("osd unset noscrub");
  const auto scrub_deadline = Clock::now() + seconds(10);
  while (Clock::now() < scrub_deadline) {
    scrubs = ec::cluster::LoadScrubResults(*c.client, "/ecstore/");
    if (scrubs.ok() && !scrubs->empty()) break;
    std::this_thread::sleep_for(milliseconds(200));
  }
  ASSERT_TRUE(scrubs.ok());
  EXPECT_FALSE(scrubs->empty()) << "no scheduled scrub once noscrub was unset";

  // noout: past the down-out interval the killed OSD is still in.
  constexpr int kVictim = 3;
  ASSERT_TRUE(c.Kill(kVictim));
  ASSERT_TRUE(c.WaitUp(kVictim, false, seconds(8)));
  std::this_thread::sleep_for(seconds(4));
  EXPECT_TRUE(c.Map().osds.at(kVictim).in) << "noout is set: " << c.DescribeOsds();
  admin("osd unset noout");
  EXPECT_GE(c.WaitForMap([&](const auto& m) { return !m.osds.at(kVictim).in; }, seconds(5)).count(),
            0)
      << "not marked out once noout was unset: " << c.DescribeOsds();

  // norecover + nobackfill: the out OSD's shards are missing and nothing is pulled.
  std::this_thread::sleep_for(seconds(3));
  const std::string pulled = "ecstore_recovery_objects_total{pool=\"rs\",result=\"ok\"}";
  EXPECT_EQ(c.MetricSum(pulled), 0u) << "recovery ran under norecover";
  // The PGs that had a shard on it stay degraded: none is being recovered.
  std::uint64_t unclean = 0;
  for (const auto& [state, n] : c.PgStates()) {
    if (state != "active+clean") unclean += n;
    EXPECT_EQ(state.find("recovering"), std::string::npos) << state;
  }
  EXPECT_GT(unclean, 0u) << "no PG waits for recovery";
  admin("osd unset norecover");
  admin("osd unset nobackfill");
  ASSERT_TRUE(c.WaitClean(seconds(30)));
  EXPECT_GT(c.MetricSum(pulled), 0u);

  // min_size 6 with an OSD down: ok-to-stop refuses, writes are refused; min_size 5 lets them go.
  admin("osd pool set rs min_size 6");
  admin("osd ok-to-stop 1", 16);
  constexpr int kSecond = 1;
  ASSERT_TRUE(c.Kill(kSecond));
  ASSERT_TRUE(c.WaitUp(kSecond, false, seconds(8)));
  // The primary waits osd_min_size_wait (3 s here) for min_size shards, then refuses.
  const auto refused = io.WriteFull("late", ectest::RandomBytes(5000, 98));
  ASSERT_FALSE(refused.ok()) << "a write went through with 5 shards up and min_size 6";
  EXPECT_EQ(refused.status().code(), EAGAIN);
  EXPECT_NE(refused.status().message().find("fewer than min_size 6"), std::string::npos)
      << refused.status().message();
  admin("osd pool set rs min_size 5");
  const auto written = io.WriteFull("late", ectest::RandomBytes(5000, 99));
  EXPECT_TRUE(written.ok()) << written.status().ToString();
  const auto read = io.Read("late");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  c.Restart(kSecond);
  std::printf("case took %.1f s\n", std::chrono::duration<double>(Clock::now() - started).count());
}

}  // namespace
