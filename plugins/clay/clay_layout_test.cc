// ClayLayout: parameters, plane digits, pairing and Ceph's repair plans (reference §3.1).
#include <gtest/gtest.h>

#include "plugins/clay/clay_layout.h"

namespace ec::clay {
namespace {

TEST(ClayLayout, ParametersOfTheReferenceExamples) {
  struct Case {
    int k, m, d, q, nu, t, z;
  };
  const Case cases[] = {{4, 2, 5, 2, 0, 3, 8},     {4, 3, 5, 2, 1, 4, 16},
                        {8, 4, 11, 4, 0, 3, 64},   {8, 3, 10, 3, 1, 4, 81},
                        {10, 4, 13, 4, 2, 4, 256}, {16, 4, 19, 4, 0, 5, 1024},
                        {9, 6, 14, 6, 3, 3, 216},  {4, 2, 4, 1, 0, 6, 1}};
  for (const Case& c : cases) {
    Result<ClayLayout> l = ClayLayout::Make(c.k, c.m, c.d);
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    EXPECT_EQ(l->q(), c.q) << c.k << "," << c.m << "," << c.d;
    EXPECT_EQ(l->nu(), c.nu) << c.k << "," << c.m << "," << c.d;
    EXPECT_EQ(l->t(), c.t) << c.k << "," << c.m << "," << c.d;
    EXPECT_EQ(l->sub_chunk_count(), c.z) << c.k << "," << c.m << "," << c.d;
  }
}

TEST(ClayLayout, NodesAndChunks) {
  ClayLayout l = *ClayLayout::Make(10, 4, 13);  // nu = 2
  EXPECT_EQ(l.node_of_chunk(9), 9);
  EXPECT_EQ(l.node_of_chunk(10), 12);
  EXPECT_EQ(l.chunk_of_node(10), -1);
  EXPECT_EQ(l.chunk_of_node(11), -1);
  EXPECT_EQ(l.chunk_of_node(12), 10);
  EXPECT_TRUE(l.is_virtual(10));
  EXPECT_FALSE(l.is_virtual(12));
  EXPECT_EQ(l.group_peers(10), (std::vector<int>{11, 12, 13}));
  EXPECT_EQ(l.group_peers(8), (std::vector<int>{9}));  // nodes 10, 11 are virtual
}

TEST(ClayLayout, PlaneDigitsMostSignificantFirst) {
  ClayLayout l = *ClayLayout::Make(4, 2, 5);  // q=2, t=3
  // z = 6 = 110b: z_vec = (1,1,0).
  EXPECT_EQ(l.digit(6, 0), 1);
  EXPECT_EQ(l.digit(6, 1), 1);
  EXPECT_EQ(l.digit(6, 2), 0);
  EXPECT_TRUE(l.is_dot(1, 6));  // node (1,0)
  EXPECT_TRUE(l.is_dot(4, 6));  // node (0,2)
  EXPECT_FALSE(l.is_dot(0, 6));
  // Node 0 = (0,0) in plane 6 pairs with node 1 = (1,0) in plane 6 - 4 = 2.
  EXPECT_EQ(l.partner_node(0, 6), 1);
  EXPECT_EQ(l.partner_plane(0, 6), 2);
  EXPECT_EQ(l.partner_node(1, 2), 0);
  EXPECT_EQ(l.partner_plane(1, 2), 6);
}

TEST(ClayLayout, RepairSubChunksOfReferenceExample) {
  ClayLayout l = *ClayLayout::Make(4, 2, 5);
  using R = std::vector<SubChunkRange>;
  EXPECT_EQ(l.repair_sub_chunks(0), (R{{0, 4}}));
  EXPECT_EQ(l.repair_sub_chunks(1), (R{{4, 4}}));
  EXPECT_EQ(l.repair_sub_chunks(2), (R{{0, 2}, {4, 2}}));
  EXPECT_EQ(l.repair_sub_chunks(3), (R{{2, 2}, {6, 2}}));
  EXPECT_EQ(l.repair_sub_chunks(4), (R{{0, 1}, {2, 1}, {4, 1}, {6, 1}}));
  EXPECT_EQ(l.repair_sub_chunks(5), (R{{1, 1}, {3, 1}, {5, 1}, {7, 1}}));
}

TEST(ClayLayout, RepairPlanesAreTheDots) {
  for (auto [k, m, d] : {std::array{4, 3, 5}, std::array{8, 3, 10}, std::array{9, 6, 12}}) {
    ClayLayout l = *ClayLayout::Make(k, m, d);
    for (int node = 0; node < l.nodes(); ++node) {
      std::vector<int> expect;
      for (int z = 0; z < l.sub_chunk_count(); ++z)
        if (l.is_dot(node, z)) expect.push_back(z);
      EXPECT_EQ(l.repair_sub_chunks(node), PlanesToRanges(expect)) << "node " << node;
      EXPECT_EQ(CountSubChunks(l.repair_sub_chunks(node)), l.sub_chunk_count() / l.q());
    }
  }
}

TEST(ClayLayout, IsRepairAndMinimumToRepair) {
  ClayLayout l = *ClayLayout::Make(4, 3, 5);  // q=2, nu=1: chunk 4 -> node 5, node 4 virtual
  EXPECT_TRUE(l.is_repair({0}, {1, 2, 3, 4, 5, 6}));
  EXPECT_FALSE(l.is_repair({0}, {2, 3, 4, 5, 6}));  // peer 1 missing
  EXPECT_FALSE(l.is_repair({0}, {1, 2, 3, 4}));     // only 4 < d available
  EXPECT_FALSE(l.is_repair({0, 1}, {2, 3, 4, 5, 6}));
  EXPECT_FALSE(l.is_repair({1}, {1, 2, 3, 4, 5}));  // wanted is available
  EXPECT_EQ(l.group_peers(4), std::vector<int>{});  // its peer is the virtual node
  EXPECT_TRUE(l.is_repair({4}, {0, 1, 2, 3, 5}));
  SubChunkPlan plan = l.minimum_to_repair(2, {0, 1, 3, 4, 5, 6});
  // Group of chunk 2 = {2, 3}: 3 first, then ascending ids up to d = 5 helpers.
  ASSERT_EQ(plan.size(), 5u);
  EXPECT_TRUE(plan.count(3) && plan.count(0) && plan.count(1) && plan.count(4) && plan.count(5));
  for (const auto& [id, ranges] : plan) EXPECT_EQ(ranges, l.repair_sub_chunks(2));
}

TEST(ClayLayout, Errors) {
  Result<ClayLayout> l = ClayLayout::Make(4, 2, 6);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), EINVAL);
  EXPECT_EQ(l.status().message(), "value of d 6 must be within [ 4,5]");
  l = ClayLayout::Make(4, 2, 3);
  EXPECT_EQ(l.status().message(), "value of d 3 must be within [ 4,5]");
  l = ClayLayout::Make(200, 60, 259);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().code(), EINVAL);
  EXPECT_NE(l.status().message().find("must be less than or equal to 254"), std::string::npos)
      << l.status().message();
  l = ClayLayout::Make(60, 4, 63);  // q=4, t=16: 4^16 sub-chunks
  ASSERT_FALSE(l.ok());
  EXPECT_NE(l.status().message().find("sub-chunks per chunk"), std::string::npos);
}

TEST(ClayLayout, PlanesToRanges) {
  EXPECT_EQ(PlanesToRanges({0, 1, 2, 5, 7, 8}),
            (std::vector<SubChunkRange>{{0, 3}, {5, 1}, {7, 2}}));
  EXPECT_TRUE(PlanesToRanges({}).empty());
}

}  // namespace
}  // namespace ec::clay
