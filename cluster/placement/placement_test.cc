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

// `hosts` hosts of `per_host` OSDs each; host h's OSDs weigh 1, 1.25, 1.5, 2 by h mod 4.
std::vector<OsdInfo> Cluster(int hosts, int per_host) {
  std::vector<OsdInfo> osds;
  const double weights[] = {1.0, 1.25, 1.5, 2.0};
  for (int h = 0; h < hosts; ++h) {
    for (int j = 0; j < per_host; ++j) {
      osds.push_back({h * per_host + j, "host" + std::to_string(h), weights[h % 4], true, true});
    }
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
  long moved = 0;        // positions whose OSD changed
  long from_osd = 0;     // of those, positions that held `osd` before
  long to_osd = 0;       // of those, positions that hold `osd` after
  long held_before = 0;  // positions on `osd` before
  long held_after = 0;   // positions on `osd` after
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
  EXPECT_EQ(Mix64(1), 6238072747940578789ULL);
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
void CheckOut(std::vector<OsdInfo> osds, FailureDomain domain, int size, int out_id,
              std::uint32_t pg_num = 4096) {
  const Placement before_map = Make(osds);
  for (OsdInfo& o : osds) {
    if (o.id == out_id) o.in = false;
  }
  const Placement after_map = Make(osds);
  const PoolPlacement pool{5, pg_num, size, domain};
  const auto before = PlaceAll(before_map, pool);
  const auto after = PlaceAll(after_map, pool);
  const Movement m = Compare(before, after, out_id);
  std::printf(
      "%zu OSDs, %s size %d, osd.%d out: held %ld, moved %ld (%.4fx), moved not from it %ld\n",
      osds.size(), std::string(FailureDomainName(domain)).c_str(), size, out_id, m.held_before,
      m.moved, static_cast<double>(m.moved) / m.held_before, m.moved - m.from_osd);
  EXPECT_GT(m.held_before, 0);
  EXPECT_EQ(m.held_after, 0);
  EXPECT_EQ(m.from_osd, m.held_before);  // every shard it held moved
  EXPECT_LE(static_cast<double>(m.moved), 1.1 * static_cast<double>(m.held_before));
}

// Marking out moves exactly the shards of the OSD marked out, nothing else, in both domains.
TEST(Placement, OutMovesOnlyItsShardsDomainOsd) {
  for (int id : {0, 5, 11}) CheckOut(TwelveOsds(), FailureDomain::kOsd, 6, id);
  for (int id : {0, 47}) CheckOut(Cluster(8, 6), FailureDomain::kOsd, 6, id, 2048);
}

TEST(Placement, OutMovesOnlyItsShardsDomainHost) {
  for (int id : {0, 5, 11}) CheckOut(TwelveOsds(), FailureDomain::kHost, 4, id);
  for (int id : {0, 47}) CheckOut(Cluster(8, 6), FailureDomain::kHost, 6, id, 2048);
}

// Adding an OSD: the optimum is what it holds afterwards (only shards that land on it need to
// move); its fair share is all shards * its weight / total weight.
void CheckAdd(std::vector<OsdInfo> osds, FailureDomain domain, int size, OsdInfo added,
              double max_ratio, std::uint32_t pg_num = 4096) {
  const Placement before_map = Make(osds);
  osds.push_back(added);
  const Placement after_map = Make(osds);
  double weight_sum = 0;
  for (const OsdInfo& o : osds) weight_sum += o.weight;
  const PoolPlacement pool{5, pg_num, size, domain};
  const auto before = PlaceAll(before_map, pool);
  const auto after = PlaceAll(after_map, pool);
  const Movement m = Compare(before, after, added.id);
  const double fair = static_cast<double>(pg_num) * size * added.weight / weight_sum;
  std::printf(
      "%zu OSDs, %s size %d, osd.%d (%s, %.2f) added: holds %ld, fair share %.0f, moved %ld "
      "(%.4fx of holds, %.4fx of fair), moved not to it %ld\n",
      osds.size() - 1, std::string(FailureDomainName(domain)).c_str(), size, added.id,
      added.host.c_str(), added.weight, m.held_after, fair, m.moved,
      static_cast<double>(m.moved) / m.held_after, m.moved / fair, m.moved - m.to_osd);
  EXPECT_GT(m.held_after, 0);
  EXPECT_LE(static_cast<double>(m.moved), max_ratio * static_cast<double>(m.held_after));
  if (domain == FailureDomain::kOsd) {
    EXPECT_LE(static_cast<double>(m.moved), max_ratio * fair);
  }
}

// Adding an OSD. Domain osd on 48 OSDs meets 1.1x. Where size is half the OSDs (6 of 12) and under
// domain host the matching moves more than the optimum (a new OSD that takes a position frees the
// OSD that held it, which may take another position; under domain host, a new OSD in a host the
// PG already uses evicts that host's OSD): the bounds below are the measured ratios plus a
// margin, a regression guard, not the 1.1x goal (see README.md).
TEST(Placement, AddMovesItsFairShare) {
  CheckAdd(Cluster(8, 6), FailureDomain::kOsd, 6, {48, "host1", 1.25, true, true}, 1.1, 2048);
  CheckAdd(Cluster(8, 6), FailureDomain::kOsd, 6, {60, "host9", 2.0, true, true}, 1.1, 2048);
}

TEST(Placement, AddMovesMoreThanOptimalInSmallMapsAndDomainHost) {
  CheckAdd(TwelveOsds(), FailureDomain::kOsd, 6, {12, "a-host", 1.25, true, true}, 1.35);
  CheckAdd(TwelveOsds(), FailureDomain::kOsd, 6, {40, "e-host", 2.0, true, true}, 1.35);
  // Domain host: the fair share (weight share) is no bound here, a lone OSD in a new host is due
  // one shard in every PG the host is in; only the ratio to what it holds is checked.
  CheckAdd(TwelveOsds(), FailureDomain::kHost, 4, {12, "a-host", 1.25, true, true}, 1.75);
  CheckAdd(Cluster(8, 6), FailureDomain::kHost, 6, {48, "host1", 1.25, true, true}, 1.75, 2048);
}

// Known answers: a change of the hash, the log or the algorithm moves data and must show here.
TEST(Placement, KnownAnswers) {
  const Placement p = Make(TwelveOsds());
  const std::vector<std::vector<int>> osd_domain = {
      {8, 10, 3, 4}, {8, 11, 10, 4}, {3, 11, 5, 6}, {11, 1, 9, 8}};
  const std::vector<std::vector<int>> host_domain = {
      {8, 10, 1, 4}, {8, 11, 2, 4}, {3, 11, 0, 6}, {11, 1, 3, 8}};
  for (std::uint32_t pg = 0; pg < 4; ++pg) {
    EXPECT_EQ(*p.Place({1, 8, 4, FailureDomain::kOsd}, pg), osd_domain[pg]) << "pg " << pg;
    EXPECT_EQ(*p.Place({1, 8, 4, FailureDomain::kHost}, pg), host_domain[pg]) << "pg " << pg;
  }
  const PoolPlacement pool{1, 8, 4, FailureDomain::kOsd};
  EXPECT_EQ(*ObjectToPg(pool, "a"), 2u);
  EXPECT_EQ(*ObjectToPg(pool, "rbd_data.1"), 3u);
  EXPECT_EQ(*ObjectToPg(pool, "obj.42"), 5u);
}

// The order OSDs are given in does not matter.
TEST(Placement, InputOrderDoesNotMatter) {
  std::vector<OsdInfo> osds = TwelveOsds();
  const Placement a = Make(osds);
  std::reverse(osds.begin(), osds.end());
  std::rotate(osds.begin(), osds.begin() + 5, osds.end());
  const Placement b = Make(osds);
  for (FailureDomain d : {FailureDomain::kOsd, FailureDomain::kHost}) {
    const PoolPlacement pool{2, 512, 4, d};
    EXPECT_EQ(PlaceAll(a, pool), PlaceAll(b, pool));
  }
}

// No OSD twice; under domain host no host twice; every position filled when the map allows it.
TEST(Placement, NoDuplicates) {
  const Placement p = Make(Cluster(6, 3));
  std::map<int, std::string> host_of;
  for (const OsdInfo& o : p.osds()) host_of[o.id] = o.host;
  for (FailureDomain d : {FailureDomain::kOsd, FailureDomain::kHost}) {
    for (int size : {1, 3, 6}) {
      const auto all = PlaceAll(p, {4, 1024, size, d});
      for (const auto& a : all) {
        ASSERT_EQ(a.size(), static_cast<std::size_t>(size));
        std::set<int> ids(a.begin(), a.end());
        EXPECT_EQ(ids.size(), a.size());
        EXPECT_EQ(ids.count(kItemNone), 0u);
        if (d == FailureDomain::kHost) {
          std::set<std::string> hosts;
          for (int id : a) hosts.insert(host_of.at(id));
          EXPECT_EQ(hosts.size(), a.size());
        }
      }
    }
  }
}

int CountNone(const std::vector<int>& a) {
  return static_cast<int>(std::count(a.begin(), a.end(), kItemNone));
}

// size > OSDs (domain osd) or > hosts (domain host): what fits is filled, the rest is -1.
TEST(Placement, TooFewDomainsLeavesNone) {
  const Placement p = Make(TwelveOsds());  // 12 OSDs on 4 hosts
  for (std::uint32_t pg = 0; pg < 64; ++pg) {
    auto h = p.Place({1, 64, 6, FailureDomain::kHost}, pg);
    ASSERT_TRUE(h.ok());
    EXPECT_EQ(CountNone(*h), 2);
    auto o = p.Place({1, 64, 14, FailureDomain::kOsd}, pg);
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(CountNone(*o), 2);
  }
  // pg_num 1 works.
  auto one = p.Place({1, 1, 4, FailureDomain::kHost}, 0);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(CountNone(*one), 0);
  EXPECT_EQ(*ObjectToPg({1, 1, 4, FailureDomain::kHost}, "anything"), 0u);
}

TEST(Placement, ZeroWeightAndOutHoldNothing) {
  std::vector<OsdInfo> osds = TwelveOsds();
  for (OsdInfo& o : osds) {
    if (o.id % 3 == 0) o.weight = 0;
    if (o.id % 3 == 1) o.in = false;
  }
  const Placement p = Make(osds);
  const auto all = PlaceAll(p, {1, 256, 4, FailureDomain::kHost});
  for (const auto& a : all) {
    EXPECT_EQ(CountNone(a), 0);  // one in OSD of weight > 0 per host is left
    for (int id : a) EXPECT_EQ(id % 3, 2) << id;
  }
  for (OsdInfo& o : osds) o.weight = 0;
  const Placement zero = Make(osds);
  EXPECT_EQ(*zero.Place({1, 4, 3, FailureDomain::kOsd}, 1), std::vector<int>(3, kItemNone));
  osds = TwelveOsds();
  for (OsdInfo& o : osds) o.in = false;
  const Placement out = Make(osds);
  EXPECT_EQ(*out.Place({1, 4, 3, FailureDomain::kHost}, 1), std::vector<int>(3, kItemNone));
  const Placement empty = Make({});
  EXPECT_EQ(*empty.Place({1, 4, 2, FailureDomain::kOsd}, 3), std::vector<int>(2, kItemNone));
}

// Most of the weight out: phase 2 still fills every position from the OSDs left in.
TEST(Placement, MostlyOutStillFills) {
  std::vector<OsdInfo> osds = Cluster(6, 8);
  for (OsdInfo& o : osds) o.in = o.id % 8 == 0;  // one in OSD per host
  const Placement p = Make(osds);
  for (const auto& a : PlaceAll(p, {1, 256, 6, FailureDomain::kHost})) {
    EXPECT_EQ(CountNone(a), 0);
    for (int id : a) EXPECT_EQ(id % 8, 0);
  }
}

TEST(Placement, UpSetMarksDownAsNone) {
  std::vector<OsdInfo> osds = TwelveOsds();
  osds[4].up = false;  // osd.4
  const Placement p = Make(osds);
  EXPECT_EQ(p.UpSet({3, 4, kItemNone, 5, 99}),
            (std::vector<int>{3, kItemNone, kItemNone, 5, kItemNone}));
  // Down does not change the acting set.
  const Placement all_up = Make(TwelveOsds());
  const PoolPlacement pool{1, 256, 6, FailureDomain::kOsd};
  EXPECT_EQ(PlaceAll(p, pool), PlaceAll(all_up, pool));
}

TEST(Placement, BadInput) {
  auto bad = [](std::vector<OsdInfo> osds, const char* what) {
    auto p = Placement::Create(std::move(osds));
    ASSERT_FALSE(p.ok()) << what;
    EXPECT_EQ(p.status().code(), EINVAL);
    EXPECT_NE(p.status().message().find(what), std::string::npos) << p.status().message();
  };
  bad({{-1, "h", 1, true, true}}, "osd.-1");
  bad({{1, "h", 1, true, true}, {1, "g", 1, true, true}}, "duplicate");
  bad({{1, "", 1, true, true}}, "empty host");
  bad({{1, "h", -1, true, true}}, "weight");
  bad({{1, "h", std::nan(""), true, true}}, "weight");
  bad({{1, "h", HUGE_VAL, true, true}}, "weight");
  const Placement p = Make(TwelveOsds());
  EXPECT_FALSE(p.Place({1, 8, 4, FailureDomain::kOsd}, 8).ok());  // pg >= pg_num
  EXPECT_FALSE(p.Place({1, 0, 4, FailureDomain::kOsd}, 0).ok());
  EXPECT_FALSE(p.Place({1, 8, 0, FailureDomain::kOsd}, 0).ok());
  EXPECT_FALSE(p.Place({1, 8, kMaxPoolSize + 1, FailureDomain::kOsd}, 0).ok());
  EXPECT_FALSE(p.Place({-1, 8, 4, FailureDomain::kOsd}, 0).ok());
  EXPECT_EQ(*ParseFailureDomain("osd"), FailureDomain::kOsd);
  EXPECT_EQ(*ParseFailureDomain("host"), FailureDomain::kHost);
  EXPECT_FALSE(ParseFailureDomain("rack").ok());
  EXPECT_EQ(FailureDomainName(FailureDomain::kHost), "host");
}

}  // namespace
}  // namespace ec::cluster
