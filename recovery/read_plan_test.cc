#include "recovery/read_plan.h"

#include <gtest/gtest.h>

#include "recovery/shard_source.h"

namespace ec::recovery {
namespace {

TEST(ReadPlan, WholeChunksMergeAcrossStripes) {
  SubChunkPlan plan = {{1, {{0, 1}}}, {3, {{0, 1}}}};
  auto reads = PlanShardReads(plan, 4096, 1, 0, 10);
  ASSERT_TRUE(reads.ok());
  ASSERT_EQ(reads->size(), 2u);
  EXPECT_EQ((*reads)[0].shard, 1);
  ASSERT_EQ((*reads)[0].extents.size(), 1u);
  EXPECT_EQ((*reads)[0].extents[0].offset, 0u);
  EXPECT_EQ((*reads)[0].extents[0].length, 40960u);
  EXPECT_EQ((*reads)[0].bytes_per_stripe, 4096u);
}

TEST(ReadPlan, ClayRangesStayApartAndAdjacentOnesMerge) {
  // k=4 m=2 d=5, chunk 2 lost: every helper sends sub-chunks (0,2) and (4,2) of 8.
  SubChunkPlan plan = {{0, {{0, 2}, {4, 2}}}};
  auto reads = PlanShardReads(plan, 8192, 8, 1, 2);
  ASSERT_TRUE(reads.ok());
  const auto& e = (*reads)[0].extents;
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(e[0].offset, 8192u);
  EXPECT_EQ(e[0].length, 2048u);
  EXPECT_EQ(e[1].offset, 8192u + 4096u);
  EXPECT_EQ((*reads)[0].bytes_per_stripe, 4096u);
  // chunk 5 lost pattern (1,1),(3,1),(5,1),(7,1): the last sub-chunk of a stripe is not adjacent
  // to the next stripe's first wanted one, so 4 extents per stripe.
  plan = {{0, {{1, 1}, {3, 1}, {5, 1}, {7, 1}}}};
  reads = PlanShardReads(plan, 8192, 8, 0, 3);
  ASSERT_TRUE(reads.ok());
  EXPECT_EQ((*reads)[0].extents.size(), 12u);
  // (4,4) ends a stripe and (0,4) would start the next: a plan of (0,4),(4,4) is one extent.
  plan = {{0, {{0, 4}, {4, 4}}}};
  reads = PlanShardReads(plan, 8192, 8, 0, 3);
  ASSERT_TRUE(reads.ok());
  EXPECT_EQ((*reads)[0].extents.size(), 1u);
}

TEST(ReadPlan, MalformedPlansAreRefused) {
  EXPECT_FALSE(PlanShardReads({{0, {{0, 9}}}}, 8192, 8, 0, 1).ok());
  EXPECT_FALSE(PlanShardReads({{0, {{4, 2}, {0, 2}}}}, 8192, 8, 0, 1).ok());
  EXPECT_FALSE(PlanShardReads({{0, {{0, 0}}}}, 8192, 8, 0, 1).ok());
  EXPECT_FALSE(PlanShardReads({{0, {{-1, 2}}}}, 8192, 8, 0, 1).ok());
  EXPECT_FALSE(PlanShardReads({{0, {{0, 1}}}}, 1001, 8, 0, 1).ok());
}

TEST(ReadPlan, MergeAndGatherExtents) {
  const std::vector<Extent> merged =
      MergeExtents({{50, 10}, {0, 20}, {10, 5}, {20, 5}, {55, 20}, {90, 0}});
  EXPECT_EQ(merged, (std::vector<Extent>{{0, 25}, {50, 25}}));
  std::vector<std::byte> raw(50);
  for (std::size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<std::byte>(i);
  std::vector<std::byte> out(7);
  GatherExtents(merged, raw.data(), {{3, 2}, {60, 5}}, out.data());
  // Byte 3 is raw[3]; byte 60 is 10 bytes into the second extent, raw[25 + 10].
  EXPECT_EQ(out, (std::vector<std::byte>{std::byte{3}, std::byte{4}, std::byte{35}, std::byte{36},
                                         std::byte{37}, std::byte{38}, std::byte{39}}));
}

TEST(ReadPlan, SplitToLimits) {
  std::vector<std::byte> dest(300);
  auto one = SplitToLimits(7, {{0, 100}, {500, 200}}, dest, {});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].shard, 7);
  EXPECT_EQ(one[0].destination.size(), 300u);
  auto cut = SplitToLimits(7, {{0, 100}, {500, 200}}, dest, {0, 120});
  ASSERT_EQ(cut.size(), 3u);
  EXPECT_EQ(cut[0].extents, (std::vector<Extent>{{0, 100}, {500, 20}}));
  EXPECT_EQ(cut[1].extents, (std::vector<Extent>{{520, 120}}));
  EXPECT_EQ(cut[2].extents, (std::vector<Extent>{{640, 60}}));
  EXPECT_EQ(cut[1].destination.data(), dest.data() + 120);
  EXPECT_EQ(cut[2].destination.size(), 60u);
  auto few = SplitToLimits(7, {{0, 1}, {5, 1}, {9, 1}}, {dest.data(), 3}, {2, 0});
  ASSERT_EQ(few.size(), 2u);
  EXPECT_EQ(few[1].extents, (std::vector<Extent>{{9, 1}}));
  EXPECT_EQ(few[1].destination.data(), dest.data() + 2);
}

}  // namespace
}  // namespace ec::recovery
