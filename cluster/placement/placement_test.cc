#include "cluster/placement/placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cluster/placement/placement_hash.h"

namespace ec::cluster {
namespace {

// 12 OSDs on 4 hosts of unequal weights (hosts of 3 disks of 1, 1.25, 1.5 and 2 units). Hosts are
// named so that their order differs from their ids' order.
std::vector<OsdInfo> TwelveOsds() {
  std::vector<OsdInfo> osds;
  const char* hosts[] = {"d-host", "a-host", "c-host", "b-host"};
  const double weights[] = {1.0, 1.25, 1.5, 2.0};
  for (int h = 0; h < 4; ++h) {
    for (int j = 0; j < 3; ++j) osds.push_back({h * 3 + j, hosts[h], weights[h], true, true});
  }
  return osds;
}

Placement Make(std::vector<OsdInfo> osds) {
  auto p = Placement::Create(std::move(osds));
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

// Acting sets of every PG of `pool`.
std::vector<std::vector<int>> PlaceAll(const Placement& p, const PoolPlacement& pool) {
  std::vector<std::vector<int>> all;
  all.reserve(pool.pg_num);
  for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
    auto a = p.Place(pool, pg);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    all.push_back(a.ok() ? *a : std::vector<int>(pool.size, kItemNone));
  }
  return all;
}

std::map<int, long> Load(const std::vector<std::vector<int>>& all) {
  std::map<int, long> load;
  for (const auto& a : all) {
    for (int id : a) {
      if (id != kItemNone) ++load[id];
    }
  }
  return load;
}

struct Movement {
  long moved = 0;          // positions whose OSD changed
  long from_osd = 0;       // of those, positions that held `osd` before
  long to_osd = 0;         // of those, positions that hold `osd` after
  long held_before = 0;    // positions on `osd` before
  long held_after = 0;     // positions on `osd` after
};

Movement Compare(const std::vector<std::vector<int>>& before,
                 const std::vector<std::vector<int>>& after, int osd) {
  Movement m;
  for (std::size_t pg = 0; pg < before.size(); ++pg) {
    for (std::size_t r = 0; r < before[pg].size(); ++r) {
      const int b = before[pg][r], a = after[pg][r];
      m.held_before += b == osd;
      m.held_after += a == osd;
      if (a == b) continue;
      ++m.moved;
      m.from_osd += b == osd;
      m.to_osd += a == osd;
    }
  }
  return m;
}

TEST(PlacementHash, KnownAnswers) {
  EXPECT_EQ(Mix64(0), 0u);
  EXPECT_EQ(Mix64(1), 0x910A2DEC89025CC1ULL);
  EXPECT_EQ(HashBytes(0, ""), 0u);
  EXPECT_NE(HashBytes(0, "a"), HashBytes(0, std::string("a\0", 2)));  // length is hashed
  EXPECT_NE(HashBytes(0, "abcdefgh"), HashBytes(1, "abcdefgh"));
  // -log2(u), Q30: u = 2^-32 -> 32, u = 1/2 -> 1, u = 1 -> 0, u = 3/4 -> 0.415037...
  EXPECT_EQ(NegLog2Fixed(0), 32ULL << 30);
  EXPECT_EQ(NegLog2Fixed(0x7FFFFFFF), 1ULL << 30);
  EXPECT_EQ(NegLog2Fixed(0xFFFFFFFF), 0u);
  const double l34 = static_cast<double>(NegLog2Fixed(0xBFFFFFFF)) / (1 << 30);
  EXPECT_NEAR(l34, 0.41503749927884381, 1e-8);
  // Monotone: a larger u never has a larger -log2(u).
  for (std::uint32_t u = 1; u < 200000; u += 7) {
    ASSERT_LE(NegLog2Fixed(u), NegLog2Fixed(u - 1)) << u;
  }
}

TEST(PlacementHash, StableModSplitsBuckets) {
  EXPECT_EQ(StableMod(13, 1), 0u);
  EXPECT_EQ(StableMod(13, 16), 13u);
  EXPECT_EQ(StableMod(13, 12), 5u);  // 13 & 15 = 13 >= 12 -> 13 & 7
  EXPECT_EQ(StableMod(11, 12), 11u);
  EXPECT_EQ(StableMod(0xFFFFFFFFFFFFFFFFULL, 3), 1u);  // & 3 = 3 >= 3 -> & 1
  for (std::uint32_t b = 1; b < 70; ++b) {
    for (std::uint64_t x = 0; x < 2000; ++x) {
      const std::uint64_t h = Mix64(x + kGolden64);
      const std::uint32_t old_pg = StableMod(h, b), new_pg = StableMod(h, b + 1);
      ASSERT_LT(old_pg, b);
      // Growing pg_num by one splits one PG: an object stays or moves to the new PG b.
      ASSERT_TRUE(new_pg == old_pg || new_pg == b) << "x " << x << " b " << b;
    }
  }
}

TEST(Placement, ObjectToPg) {
  PoolPlacement pool{7, 64, 6, FailureDomain::kOsd};
  auto a = ObjectToPg(pool, "rbd_data.1234.0000000000000001");
  ASSERT_TRUE(a.ok());
  EXPECT_LT(*a, 64u);
  EXPECT_EQ(*a, *ObjectToPg(pool, "rbd_data.1234.0000000000000001"));
  // Every PG gets objects, roughly evenly: 64000 names, 1000 expected per PG.
  std::vector<int> count(64, 0);
  for (int i = 0; i < 64000; ++i) ++count[*ObjectToPg(pool, "obj." + std::to_string(i))];
  for (int c : count) {
    EXPECT_GT(c, 850);
    EXPECT_LT(c, 1150);
  }
  // Doubling pg_num splits: new pg & 63 == old pg.
  PoolPlacement bigger = pool;
  bigger.pg_num = 128;
  for (int i = 0; i < 1000; ++i) {
    const std::string n = "obj." + std::to_string(i);
    EXPECT_EQ(*ObjectToPg(bigger, n) & 63u, *ObjectToPg(pool, n));
  }
  // The pool id is part of the hash.
  PoolPlacement other = pool;
  other.pool_id = 8;
  int same = 0;
  for (int i = 0; i < 1000; ++i) {
    const std::string n = "obj." + std::to_string(i);
    same += *ObjectToPg(other, n) == *ObjectToPg(pool, n);
  }
  EXPECT_LT(same, 50);
  pool.pg_num = 0;
  EXPECT_FALSE(ObjectToPg(pool, "x").ok());
}


// Balance, domain osd: 16384 PGs x 6 shards over TwelveOsds(). Compared, per OSD: its shard count
// against its weight share of all placed shards, sum * weight / total weight; |count - share| /
// share must be <= 5%.
TEST(Placement, BalanceDomainOsd) {
  const Placement p = Make(TwelveOsds());
  const PoolPlacement pool{3, 16384, 6, FailureDomain::kOsd};
  const auto all = PlaceAll(p, pool);
  const auto load = Load(all);
  long total = 0;
  double weight_sum = 0;
  for (const auto& [id, n] : load) total += n;
  for (const OsdInfo& o : p.osds()) weight_sum += o.weight;
  EXPECT_EQ(total, 16384L * 6);
  double worst = 0;
  for (const OsdInfo& o : p.osds()) {
    const double share = static_cast<double>(total) * o.weight / weight_sum;
    const double dev = (static_cast<double>(load.count(o.id) ? load.at(o.id) : 0) - share) / share;
    worst = std::max(worst, std::abs(dev));
    std::printf("osd.%d weight %.2f shards %ld share %.0f deviation %+.2f%%\n", o.id, o.weight,
                load.count(o.id) ? load.at(o.id) : 0, share, dev * 100);
    EXPECT_LE(std::abs(dev), 0.05) << "osd." << o.id;
  }
  std::printf("worst deviation %.2f%%\n", worst * 100);
}


// Marking one OSD out: the optimum is the shards it held (they must move). Measured: every
// position whose OSD changed, against that optimum.
void CheckOut(FailureDomain domain, int size, int out_id) {
  std::vector<OsdInfo> osds = TwelveOsds();
  const Placement before_map = Make(osds);
  for (OsdInfo& o : osds) {
    if (o.id == out_id) o.in = false;
  }
  const Placement after_map = Make(osds);
  const PoolPlacement pool{5, 4096, size, domain};
  const auto before = PlaceAll(before_map, pool);
  const auto after = PlaceAll(after_map, pool);
  const Movement m = Compare(before, after, out_id);
  std::printf("%s size %d, osd.%d out: held %ld, moved %ld (%.4fx), moved not from it %ld\n",
              std::string(FailureDomainName(domain)).c_str(), size, out_id, m.held_before,
              m.moved, static_cast<double>(m.moved) / m.held_before, m.moved - m.from_osd);
  EXPECT_GT(m.held_before, 0);
  EXPECT_EQ(m.held_after, 0);
  EXPECT_EQ(m.from_osd, m.held_before);  // every shard it held moved
  EXPECT_LE(static_cast<double>(m.moved), 1.1 * static_cast<double>(m.held_before));
}

TEST(Placement, OutMovesOnlyItsShardsDomainOsd) {
  for (int id : {0, 5, 11}) CheckOut(FailureDomain::kOsd, 6, id);
}

TEST(Placement, OutMovesOnlyItsShardsDomainHost) {
  for (int id : {0, 5, 11}) CheckOut(FailureDomain::kHost, 4, id);
}

// Adding an OSD: the optimum is what it holds afterwards (only shards that land on it need to
// move); its fair share is all shards * its weight / total weight.
void CheckAdd(FailureDomain domain, int size, OsdInfo added) {
  std::vector<OsdInfo> osds = TwelveOsds();
  const Placement before_map = Make(osds);
  osds.push_back(added);
  const Placement after_map = Make(osds);
  double weight_sum = 0;
  for (const OsdInfo& o : osds) weight_sum += o.weight;
  const PoolPlacement pool{5, 4096, size, domain};
  const auto before = PlaceAll(before_map, pool);
  const auto after = PlaceAll(after_map, pool);
  const Movement m = Compare(before, after, added.id);
  const double fair = 4096.0 * size * added.weight / weight_sum;
  std::printf("%s size %d, osd.%d (%s, %.2f) added: holds %ld, fair share %.0f, moved %ld "
              "(%.4fx of holds, %.4fx of fair), moved not to it %ld\n",
              std::string(FailureDomainName(domain)).c_str(), size, added.id, added.host.c_str(),
              added.weight, m.held_after, fair, m.moved,
              static_cast<double>(m.moved) / m.held_after, m.moved / fair, m.moved - m.to_osd);
  EXPECT_GT(m.held_after, 0);
  EXPECT_LE(static_cast<double>(m.moved), 1.1 * static_cast<double>(m.held_after));
  EXPECT_LE(static_cast<double>(m.moved), 1.1 * fair);
}

TEST(Placement, AddMovesItsFairShare) {
  CheckAdd(FailureDomain::kOsd, 6, {12, "a-host", 1.25, true, true});
  CheckAdd(FailureDomain::kOsd, 6, {40, "e-host", 2.0, true, true});
  CheckAdd(FailureDomain::kHost, 4, {12, "a-host", 1.25, true, true});
  CheckAdd(FailureDomain::kHost, 4, {40, "e-host", 2.0, true, true});
}

}  // namespace
}  // namespace ec::cluster
