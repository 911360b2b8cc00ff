// Pipelined recovery on a real local cluster (issue 33 item 2): etcd, seven ec-osd processes with
// osd_repair_pipeline=on, an RS(4,2) and a CLAY(4,2,5) pool. One OSD is killed and marked out; the
// OSDs taking its positions rebuild its shards through chains of helpers (repair_chain.h). From
// the first chain on, one helper (one that mostly only helps: neither primary nor puller of the
// PGs to recover) is frozen (SIGSTOP) for longer than the chains' deadline and shorter than the
// heartbeat grace, so the map still says it is up and chains through it stall mid-way: they must
// be re-planned without it, and recovery must end with every object byte-identical. With
// authentication on (auth_cluster_required = cephx, the launcher's default): every hop asks its
// predecessor as its osd.N, and no connection or request is refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using ChainClock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kChainOsds = 7;
constexpr int kChainObjects = 24;  // per pool

double SecondsSince(ChainClock::time_point t) {
  return std::chrono::duration<double>(ChainClock::now() - t).count();
}

TEST(ChainRecovery, KilledOsdRebuiltThroughChainsWhileAHelperStalls) {
  const auto t0 = ChainClock::now();
  ectest::LocalClusterOptions o;
  o.osds = kChainOsds;
  o.auth = true;
  ectest::PoolSpec rs{"rs", ectest::RsProfile()};
  rs.pg_num = 4;
  ectest::PoolSpec clay{"clay", ectest::ClayProfile()};
  clay.pg_num = 4;
  o.pools = {rs, clay};
  // Down only after 10 s without a heartbeat: the frozen helper (5 s) stays up in the map, so
  // chains keep naming it and must get past it by their own deadline (osd_subop_timeout: 3 s).
  o.grace_seconds = 10;
  o.osd_options = {"osd_repair_pipeline=on", "osd_max_backfills=1", "osd_recovery_max_active=1",
                   "osd_recovery_sleep=300ms"};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());

  std::map<std::string, std::map<std::string, std::vector<std::byte>>> model;
  std::mt19937_64 rng(33);
  for (const char* pool : {"rs", "clay"}) {
    auto io = c.Pool(pool);
    for (int i = 0; i < kChainObjects; ++i) {
      const std::string name = fmt::format("obj{}", i);
      // 20 KiB .. 420 KiB: shards of one to several 64 KiB slices.
      const std::size_t size = 20000 + static_cast<std::size_t>(rng() % 400000);
      std::vector<std::byte> bytes = ec::osd::store::testing::RandomBytes(rng, size);
      auto w = io.WriteFull(name, bytes);
      ASSERT_TRUE(w.ok()) << pool << "/" << name << ": " << w.status().ToString();
      model[pool][name] = std::move(bytes);
    }
  }
  ASSERT_TRUE(c.WaitClean(seconds(30)));

  const int victim = 2;
  // The OSD to freeze: one that helps rebuild many of the victim's shards once it is out and runs
  // (as primary) or pulls few of them, so that chains through it are asked for while it is frozen
  // (every CLAY rebuild reads all five helpers).
  const auto before = std::make_shared<const ec::cluster::ClusterMap>(c.Map());
  ec::cluster::ClusterMap out_map = *before;
  out_map.osds[victim].in = false;
  auto old_locator = ec::cluster::ObjectLocator::Make(before);
  auto new_locator = ec::cluster::ObjectLocator::Make(
      std::make_shared<const ec::cluster::ClusterMap>(std::move(out_map)));
  ASSERT_TRUE(old_locator.ok() && new_locator.ok());
  std::map<int, int> helps, score;
  for (const auto& [pool, objects] : model) {
    const std::int64_t pool_id = c.Pool(pool).pool_id();
    for (const auto& [name, bytes] : objects) {
      auto was = (*old_locator)->LocateObject(pool_id, name);
      auto now = (*new_locator)->LocateObject(pool_id, name);
      ASSERT_TRUE(was.ok() && now.ok());
      auto at = std::find(was->acting.begin(), was->acting.end(), victim);
      if (at == was->acting.end()) continue;
      const int puller = now->acting[static_cast<std::size_t>(at - was->acting.begin())];
      for (int osd : now->acting) {
        if (osd == victim || osd < 0) continue;
        const bool only_helps = osd != puller && osd != now->primary;
        helps[osd] += only_helps ? 1 : 0;
        score[osd] += only_helps ? 1 : -2;
      }
    }
  }
  ASSERT_FALSE(score.empty());
  const int frozen = std::max_element(score.begin(), score.end(), [](const auto& a, const auto& b) {
                       return a.second < b.second;
                     })->first;
  ASSERT_GT(helps[frozen], 0) << "no OSD only helps";
  const std::string chain_in = "ecstore_repair_chain_bytes_total{dir=\"in\",role=\"requester\"}";
  const std::string slices_failed = "ecstore_repair_chain_slices_total{result=\"failed\"}";
  ASSERT_TRUE(c.Kill(victim));
  auto out = c.store->Apply({ec::cluster::MapChange::OsdOut(victim, false)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Frozen once chains run (frozen earlier, it would hold up the PGs' peering scans instead), for
  // longer than their deadline (3 s, osd_subop_timeout); recovery's pace (one object per PG every
  // 300 ms) leaves it objects to help with meanwhile.
  const auto started = std::chrono::steady_clock::now();
  while (c.MetricSum(chain_in) == 0 && std::chrono::steady_clock::now() - started < seconds(20)) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  ASSERT_GT(c.MetricSum(chain_in), 0u) << "no chain ran";
  ASSERT_TRUE(c.osds[frozen]->Stop());
  std::this_thread::sleep_for(milliseconds(5000));
  // Thawed before any /metrics is asked for: the frozen OSD's page would not answer.
  ASSERT_TRUE(c.osds[frozen]->Continue());
  const std::uint64_t failed_while_frozen = c.MetricSum(slices_failed);

  ASSERT_TRUE(c.WaitClean(seconds(60))) << c.DescribeOsds();
  // Every object reads back as written (the rebuilt shards among those it is read from: with the
  // victim gone the PGs read their new positions).
  int read = 0;
  for (const auto& [pool, objects] : model) {
    auto io = c.Pool(pool);
    for (const auto& [name, bytes] : objects) {
      auto got = io.Read(name);
      ASSERT_TRUE(got.ok()) << pool << "/" << name << ": " << got.status().ToString();
      EXPECT_TRUE(ectest::ToVector(got->data) == bytes) << pool << "/" << name;
      ++read;
    }
  }
  const std::uint64_t in = c.MetricSum(chain_in);
  const std::uint64_t out_bytes =
      c.MetricSum("ecstore_repair_chain_bytes_total{dir=\"out\",role=\"hop\"}");
  const std::uint64_t rebuilt = c.MetricSum("ecstore_recovery_rebuilt_bytes_total{pool=\"rs\"}") +
                                c.MetricSum("ecstore_recovery_rebuilt_bytes_total{pool=\"clay\"}");
  const std::uint64_t ok = c.MetricSum("ecstore_repair_chain_slices_total{result=\"ok\"}");
  std::printf(
      "osd.%d killed and out, osd.%d frozen 5 s: %d objects read back; chains brought %llu bytes "
      "for %llu rebuilt (%llu slices ok, %llu failed while frozen, %llu in all), hops sent %llu; "
      "%.1f s\n",
      victim, frozen, read, (unsigned long long)in, (unsigned long long)rebuilt,
      (unsigned long long)ok, (unsigned long long)failed_while_frozen,
      (unsigned long long)c.MetricSum(slices_failed), (unsigned long long)out_bytes,
      SecondsSince(t0));
  EXPECT_EQ(read, 2 * kChainObjects);
  EXPECT_GT(rebuilt, 0u);
  // Chains rebuilt most of it (a pull of the frozen OSD's own positions, or one whose chains both
  // failed, goes direct): a chain brings one padded chunk per rebuilt chunk.
  EXPECT_GE(in * 2, rebuilt);
  // ... and no more than that: one padded chunk per object rebuilt (a shard stores at most one
  // stripe unit less than its padded size), each slice received once whatever chains failed.
  EXPECT_LE(in, rebuilt + 2 * kChainObjects * 4096);
  EXPECT_GE(failed_while_frozen, 1u) << "no chain met the frozen helper";
  for (const char* reason : {"no_auth", "unknown_entity", "bad_proof", "not_osd", "caps"}) {
    EXPECT_EQ(c.MetricSum(fmt::format("ecstore_osd_auth_refusals_total{{reason=\"{}\"}}", reason)),
              0u)
        << reason;
  }
}

}  // namespace
