// lrc_plan.h over the layers of k=4 m=2 l=3 (chunks 0..7; groups {0,1,2,3} and {4,5,6,7}; the
// global layer reads 0,1,4,5 and computes 2,6; local parities 3 and 7).
#include <gtest/gtest.h>

#include "plugins/lrc/lrc_plan.h"

namespace ec::lrc {
namespace {

const std::vector<LayerShape> kLayers = {
    {{0, 1, 4, 5, 2, 6}, 4},
    {{0, 1, 2, 3}, 3},
    {{4, 5, 6, 7}, 3},
};

std::map<int, int> AllBut(const ShardSet& lost, int cost = 1) {
  std::map<int, int> costs;
  for (int id = 0; id < 8; ++id)
    if (!lost.count(id)) costs[id] = cost;
  return costs;
}

TEST(LrcPlan, OneLossReadsItsLocalGroup) {
  for (int lost = 0; lost < 8; ++lost) {
    auto reads = ChooseReads(kLayers, {lost}, AllBut({lost}));
    ASSERT_TRUE(reads.ok()) << reads.status().message();
    ShardSet group;
    for (int id = lost / 4 * 4; id < lost / 4 * 4 + 4; ++id)
      if (id != lost) group.insert(id);
    EXPECT_EQ(*reads, group) << "lost " << lost;
  }
}

TEST(LrcPlan, AvailableWantIsReadAsIs) {
  auto reads = ChooseReads(kLayers, {1, 5}, AllBut({0}));
  ASSERT_TRUE(reads.ok());
  EXPECT_EQ(*reads, (ShardSet{1, 5}));
}

TEST(LrcPlan, CostsCanPreferTheGlobalLayer) {
  std::map<int, int> costs = AllBut({0});
  costs[1] = 1000;
  auto reads = ChooseReads(kLayers, {0}, costs);
  ASSERT_TRUE(reads.ok());
  EXPECT_EQ(*reads, (ShardSet{2, 4, 5, 6}));
}

TEST(LrcPlan, TwoLossesInAGroupUseTheGlobalLayer) {
  auto reads = ChooseReads(kLayers, {0, 1}, AllBut({0, 1}));
  ASSERT_TRUE(reads.ok());
  EXPECT_EQ(*reads, (ShardSet{2, 4, 5, 6}));
  // Wanted chunks rebuilt by one layer do not need another.
  auto one = ChooseReads(kLayers, {0, 1, 3}, AllBut({0, 1}));
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, (ShardSet{2, 3, 4, 5, 6}));
}

TEST(LrcPlan, ChainedRepairGlobalThenLocal) {
  // Local parity 3 lost with data chunk 0: the global layer rebuilds 0, then group 0 rebuilds 3
  // (Ceph's single pass answers EIO here).
  auto reads = ChooseReads(kLayers, {3}, AllBut({0, 3}));
  ASSERT_TRUE(reads.ok()) << reads.status().message();
  EXPECT_EQ(*reads, (ShardSet{1, 2, 4, 5}));  // the global layer's 4, no more
  auto steps = ScheduleDecode(kLayers, *reads, {3});
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].layer, 0);
  EXPECT_EQ((*steps)[0].rebuilt, (ShardSet{0, 6}));
  EXPECT_EQ((*steps)[1].layer, 1);
  EXPECT_EQ((*steps)[1].rebuilt, (ShardSet{3}));
}

TEST(LrcPlan, TooManyLossesAreEIO) {
  auto reads = ChooseReads(kLayers, {0}, AllBut({0, 1, 2}));
  EXPECT_EQ(reads.status().code(), EIO);
  EXPECT_NE(reads.status().message().find("cannot rebuild {0}"), std::string::npos)
      << reads.status().message();
  EXPECT_EQ(ScheduleDecode(kLayers, {4, 5, 6, 7}, {0}).status().code(), EIO);
}

TEST(LrcPlan, ScheduleKeepsOnlyNeededSteps) {
  // 0 and 7 lost, only 0 wanted: group 0 alone; group 1's step is not run.
  auto steps = ScheduleDecode(kLayers, {1, 2, 3, 4, 5, 6}, {0});
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 1u);
  EXPECT_EQ((*steps)[0].layer, 1);
  EXPECT_EQ((*steps)[0].inputs, (ShardSet{1, 2, 3}));
  EXPECT_EQ((*steps)[0].rebuilt, (ShardSet{0}));
  // Nothing to do when the targets are known.
  auto none = ScheduleDecode(kLayers, {0, 1}, {0});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// Whatever ChooseReads answers, ScheduleDecode rebuilds the wanted chunks from exactly it: every
// loss pattern of k=4 m=2 l=3 and every wanted chunk.
TEST(LrcPlan, EveryChoiceSchedules) {
  int decodable = 0, patterns = 0;
  for (unsigned mask = 1; mask < 256; ++mask) {
    ShardSet lost;
    for (int id = 0; id < 8; ++id)
      if (mask & (1u << id)) lost.insert(id);
    for (int want : lost) {
      ++patterns;
      auto reads = ChooseReads(kLayers, {want}, AllBut(lost));
      if (!reads.ok()) {
        EXPECT_EQ(reads.status().code(), EIO);
        continue;
      }
      ++decodable;
      for (int id : *reads) EXPECT_FALSE(lost.count(id));
      EXPECT_TRUE(ScheduleDecode(kLayers, *reads, {want}).ok());
    }
    if (lost.size() <= 2) {
      EXPECT_TRUE(ChooseReads(kLayers, lost, AllBut(lost)).ok()) << "m=2 losses must decode";
    }
  }
  std::cout << decodable << " of " << patterns << " (loss pattern, wanted chunk) decodable\n";
  EXPECT_GT(decodable, 0);
}

}  // namespace
}  // namespace ec::lrc
