#include "cluster/map/map_holder.h"

#include <gtest/gtest.h>

namespace ec::cluster {
namespace {

ClusterMap AtEpoch(std::int64_t epoch) {
  ClusterMap m;
  m.epoch = epoch;
  return m;
}

TEST(MapHolder, KeepsTheLastMapsInEpochOrder) {
  MapHolder holder;
  EXPECT_TRUE(holder.Recent().empty());
  EXPECT_EQ(holder.Get()->epoch, 0);
  for (std::int64_t e = 1; e <= static_cast<std::int64_t>(kMapHistory) + 4; ++e) {
    ASSERT_TRUE(holder.Set(AtEpoch(e)));
  }
  auto recent = holder.Recent();
  ASSERT_EQ(recent.size(), kMapHistory);
  EXPECT_EQ(recent.front()->epoch, 5);
  EXPECT_EQ(recent.back()->epoch, static_cast<std::int64_t>(kMapHistory) + 4);
  EXPECT_EQ(recent.back(), holder.Get());
}

TEST(MapHolder, AnOlderOrEqualEpochIsNotRecorded) {
  MapHolder holder;
  ASSERT_TRUE(holder.Set(AtEpoch(3)));
  EXPECT_FALSE(holder.Set(AtEpoch(3)));
  EXPECT_FALSE(holder.Set(AtEpoch(2)));
  ASSERT_TRUE(holder.Set(AtEpoch(7)));  // a gap: epochs never received are not there
  auto recent = holder.Recent();
  ASSERT_EQ(recent.size(), 2u);
  EXPECT_EQ(recent[0]->epoch, 3);
  EXPECT_EQ(recent[1]->epoch, 7);
}

}  // namespace
}  // namespace ec::cluster
