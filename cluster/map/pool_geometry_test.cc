// A pool's geometry from its profile, for every plugin's way of saying how many chunks it has.
#include "cluster/map/pool_geometry.h"

#include <gtest/gtest.h>

namespace ec::cluster {
namespace {

TEST(PoolGeometry, ReedSolomonAndClay) {
  auto g = GeometryOf({{"plugin", "jerasure"}, {"k", "4"}, {"m", "2"}});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->k, 4);
  EXPECT_EQ(g->size, 6);
  EXPECT_FALSE(GeometryOf({{"plugin", "isa"}, {"k", "4"}}).ok());
}

TEST(PoolGeometry, LrcKml) {
  auto g = GeometryOf({{"plugin", "lrc"}, {"k", "4"}, {"m", "2"}, {"l", "3"}});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->k, 4);
  EXPECT_EQ(g->size, 8);  // one local parity per group of l
  g = GeometryOf({{"plugin", "lrc"}, {"k", "8"}, {"m", "4"}, {"l", "3"}});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->size, 16);
  EXPECT_FALSE(GeometryOf({{"plugin", "lrc"}, {"k", "4"}, {"m", "2"}, {"l", "0"}}).ok());
}

TEST(PoolGeometry, LrcExplicitMappingAsGivenAndAsNormalised) {
  const std::string layers = R"([["DDc_DDc_",""],["DDDc____",""],["____DDDc",""]])";
  auto g = GeometryOf({{"plugin", "lrc"}, {"mapping", "DD__DD__"}, {"layers", layers}});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->k, 4);
  EXPECT_EQ(g->size, 8);
  // What `osd erasure-code-profile set` stores: the plugin's normalised profile, k=m=l=-1.
  g = GeometryOf({{"plugin", "lrc"},
                  {"mapping", "_DD_DD_"},
                  {"layers", layers},
                  {"k", "-1"},
                  {"m", "-1"},
                  {"l", "-1"},
                  {"crush-failure-domain", "osd"}});
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->k, 4);
  EXPECT_EQ(g->size, 7);
  EXPECT_EQ(g->failure_domain, FailureDomain::kOsd);
}

// A replicated pool's geometry is its record's (no profile): k = 1, size = its copies, one per
// host; an erasure pool's is its profile's, and a missing profile is ENOENT.
TEST(PoolGeometry, OfAPool) {
  ClusterMap map;
  map.profiles["rs"] = EcProfile{"rs", {{"plugin", "isa"}, {"k", "4"}, {"m", "2"}}};
  Pool rep;
  rep.id = 3;
  rep.name = "rep";
  rep.type = PoolType::kReplicated;
  rep.size = 3;
  rep.pg_num = 16;
  auto g = GeometryOfPool(map, rep);
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->k, 1);
  EXPECT_EQ(g->size, 3);
  EXPECT_EQ(g->failure_domain, FailureDomain::kHost);
  auto pp = PlacementOf(map, rep);
  ASSERT_TRUE(pp.ok());
  EXPECT_EQ(pp->size, 3);
  EXPECT_EQ(pp->pg_num, 16u);
  const Pool ec{.id = 1, .name = "p", .profile = "rs"};
  g = GeometryOfPool(map, ec);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->size, 6);
  const Pool missing{.id = 2, .name = "q", .profile = "nope"};
  EXPECT_EQ(GeometryOfPool(map, missing).status().code(), ENOENT);
  rep.size = 0;
  EXPECT_EQ(GeometryOfPool(map, rep).status().code(), EINVAL);
}

}  // namespace
}  // namespace ec::cluster
