// Positions permuted among the OSDs that keep a PG (issue 31 item 4, found by the deployment
// guide's test): removing an OSD from the map (`ec-admin osd rm`, after it was marked out and its
// shards moved) changes the placement draws, and some PGs then keep the same OSDs at other
// positions, each holding the shard of its former position. Peering must count those shards
// (they are the object's) and copy them to their new positions; counting only the acting OSD of
// each position finds fewer than k and rolls back acknowledged writes, which lost objects.
//
// Seven ec-osd on hosts h0..h6, an RS(2,1) pool of 16 PGs with 96 objects. The OSD removed is the
// one whose removal (computed with the map's own placement) leaves the most PGs with objects
// keeping fewer than k positions on the same OSD; the case needs at least one. It is marked out,
// the cluster goes active+clean, it is killed and removed from the map; then the cluster is
// active+clean again and every object reads back equal (~20 s).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

// Named, around the anonymous one: this file shares its test program (and, in a unity build,
// its translation unit) with another whose helpers have the same names.
namespace remap_test {
namespace {

using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using ec::cluster::ObjectLocator;
using ec::osd::store::testing::RandomBytes;
using ectest::ToVector;
using std::chrono::seconds;

constexpr int kOsds = 7;
constexpr int kK = 2;
constexpr std::uint32_t kPgs = 16;
constexpr int kObjects = 96;

// The PGs of `pool_id` holding objects whose acting set, once `victim` is removed from `map`
// (after it was marked out), keeps fewer than k positions on the OSD that held them while out.
std::set<std::uint32_t> PermutedPgs(const ClusterMap& map, int victim, std::int64_t pool_id,
                                    const std::set<std::uint32_t>& used) {
  ClusterMap out = map;
  out.osds.at(victim).in = false;
  ClusterMap removed = out;
  removed.osds.erase(victim);
  auto before = ObjectLocator::Make(std::make_shared<const ClusterMap>(out));
  auto after = ObjectLocator::Make(std::make_shared<const ClusterMap>(removed));
  std::set<std::uint32_t> pgs;
  if (!before.ok() || !after.ok()) return pgs;
  for (std::uint32_t pg : used) {
    auto was = (*before)->LocatePg(pool_id, pg);
    auto now = (*after)->LocatePg(pool_id, pg);
    if (!was.ok() || !now.ok()) continue;
    int kept = 0;
    for (std::size_t p = 0; p < was->acting.size(); ++p) kept += was->acting[p] == now->acting[p];
    if (kept < kK) pgs.insert(pg);
  }
  return pgs;
}

TEST(PositionsPermuted, RemovingAnOutOsdKeepsEveryObject) {
  ectest::LocalClusterOptions o;
  o.osds = kOsds;
  o.pools = {ectest::PoolSpec{"rs", ectest::RsProfile(kK, 1), 4096, kPgs}};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());
  auto io = c.Pool("rs");
  const std::int64_t pool_id = io.pool_id();

  std::map<std::string, std::vector<std::byte>> model;
  std::set<std::uint32_t> used;
  std::mt19937_64 rng(31);
  for (int i = 0; i < kObjects; ++i) {
    const std::string name = fmt::format("obj{}", i);
    model[name] = RandomBytes(rng, 1 + rng() % 20000);
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok()) << name;
    auto loc = c.Locate(pool_id, name);
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    used.insert(loc->pg);
  }

  const ClusterMap map = c.Map();
  int victim = -1;
  std::set<std::uint32_t> permuted;
  for (int v = 0; v < kOsds; ++v) {
    std::set<std::uint32_t> pgs = PermutedPgs(map, v, pool_id, used);
    if (pgs.size() > permuted.size()) victim = v, permuted = std::move(pgs);
  }
  ASSERT_GE(victim, 0) << "no OSD's removal permutes a PG: the case tests nothing";
  std::printf("removing osd.%d permutes %zu PGs with objects\n", victim, permuted.size());

  ASSERT_TRUE(c.store->Apply({MapChange::OsdOut(victim, false)}).ok());
  ASSERT_TRUE(c.WaitClean(seconds(60))) << c.DescribeOsds();
  ASSERT_TRUE(c.Kill(victim));
  ASSERT_TRUE(c.WaitUp(victim, false, seconds(10))) << c.DescribeOsds();
  auto rm = c.store->Apply({MapChange::RemoveOsd(victim)});
  ASSERT_TRUE(rm.ok()) << rm.status().ToString();
  ASSERT_TRUE(c.WaitClean(seconds(60))) << c.DescribeOsds();

  int lost = 0;
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name);
    if (!got.ok() || ToVector(got->data) != bytes) {
      ++lost;
      ADD_FAILURE() << name << ": " << (got.ok() ? "different bytes" : got.status().ToString());
    }
  }
  EXPECT_EQ(lost, 0) << "of " << kObjects << " objects";
}

}  // namespace
}  // namespace remap_test
