// ObjectLocator: the PG of an object and the PG's acting/up sets and primary. The locator
// remembers each PG's location; these tests check that what it remembers is what placement
// computes, for every caller and thread, and that it answers errors the same way each time.
#include "cluster/map/object_locator.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

namespace ec::cluster {
namespace {

std::shared_ptr<const ClusterMap> SixOsds(int down = -1) {
  auto m = std::make_shared<ClusterMap>();
  m->epoch = 7;
  m->profiles["rs"] = EcProfile{"rs", {{"plugin", "isa"}, {"k", "4"}, {"m", "2"}}};
  Pool p;
  p.id = 3;
  p.name = "p";
  p.profile = "rs";
  p.pg_num = 16;
  p.stripe_unit = 4096;
  p.min_size = 5;
  m->pools[p.id] = p;
  for (int i = 0; i < 6; ++i) {
    OsdEntry o;
    o.id = i;
    o.addr = "127.0.0.1:" + std::to_string(6800 + i);
    o.host = "h" + std::to_string(i);
    o.up = i != down;
    m->osds[i] = o;
  }
  return m;
}

void ExpectSame(const PgLocation& a, const PgLocation& b) {
  EXPECT_EQ(a.pgid, b.pgid);
  EXPECT_EQ(a.collection, b.collection);
  EXPECT_EQ(a.acting, b.acting);
  EXPECT_EQ(a.up, b.up);
  EXPECT_EQ(a.primary, b.primary);
  EXPECT_EQ(a.k, b.k);
  EXPECT_EQ(a.min_size, b.min_size);
}

TEST(ObjectLocator, RemembersWhatPlacementComputesFromEveryThread) {
  const auto map = SixOsds();
  // The reference: a fresh locator per lookup computes every answer anew.
  std::vector<PgLocation> expected;
  for (std::uint32_t pg = 0; pg < 16; ++pg) {
    auto fresh = ObjectLocator::Make(map);
    ASSERT_TRUE(fresh.ok());
    auto loc = (*fresh)->LocatePg(3, pg);
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    EXPECT_EQ(loc->acting.size(), 6u);
    EXPECT_EQ(loc->primary, loc->acting[0]);  // all up: the first of the acting set
    expected.push_back(*loc);
  }
  auto shared = ObjectLocator::Make(map);
  ASSERT_TRUE(shared.ok());
  std::vector<std::thread> threads;
  std::vector<std::vector<PgLocation>> seen(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round) {
        for (std::uint32_t pg = 0; pg < 16; ++pg) {
          auto loc = (*shared)->LocatePg(3, (pg + static_cast<std::uint32_t>(t)) % 16);
          if (loc.ok() && round == 49) seen[static_cast<std::size_t>(t)].push_back(*loc);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    ASSERT_EQ(seen[static_cast<std::size_t>(t)].size(), 16u);
    for (std::uint32_t i = 0; i < 16; ++i) {
      ExpectSame(seen[static_cast<std::size_t>(t)][i],
                 expected[(i + static_cast<std::uint32_t>(t)) % 16]);
    }
  }
  // An object's PG is one of those, the same on every call.
  auto obj = (*shared)->LocateObject(3, "some-object");
  ASSERT_TRUE(obj.ok());
  ExpectSame(*obj, expected[obj->pg]);
  ExpectSame(*(*shared)->LocateObject(3, "some-object"), *obj);
}

TEST(ObjectLocator, EachMapHasItsOwnAnswersAndErrorsRepeat) {
  auto up = ObjectLocator::Make(SixOsds());
  auto one_down = ObjectLocator::Make(SixOsds(/*down=*/2));
  ASSERT_TRUE(up.ok() && one_down.ok());
  int differ = 0;
  for (std::uint32_t pg = 0; pg < 16; ++pg) {
    auto a = (*up)->LocatePg(3, pg);
    auto b = (*one_down)->LocatePg(3, pg);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(a->acting, b->acting);  // down but in: still placed there
    for (std::size_t i = 0; i < b->up.size(); ++i) {
      EXPECT_EQ(b->up[i], b->acting[i] == 2 ? kItemNone : b->acting[i]);
    }
    differ += a->up != b->up ? 1 : 0;
  }
  EXPECT_GT(differ, 0);
  for (int i = 0; i < 2; ++i) {
    auto no_pool = (*up)->LocatePg(9, 0);
    EXPECT_EQ(no_pool.status().code(), ENOENT);
    auto no_pg = (*up)->LocatePg(3, 16);
    EXPECT_EQ(no_pg.status().code(), EINVAL);
  }
}

}  // namespace
}  // namespace ec::cluster
