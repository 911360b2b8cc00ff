// The read cost model: hand-computed prices of extent lists.
#include "recovery/read_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ec::recovery {
namespace {

TEST(ReadCostTest, OneExtentRoundsOutToBlocks) {
  EXPECT_EQ(PriceExtents({{100, 200}}, 4096), (ReadCost{200, 4096, 0}));
  EXPECT_EQ(PriceExtents({{0, 4096}}, 4096), (ReadCost{4096, 4096, 0}));
  EXPECT_EQ(PriceExtents({{4095, 2}}, 4096), (ReadCost{2, 8192, 0}));
  EXPECT_EQ(PriceExtents({{8192, 1}}, 4096), (ReadCost{1, 4096, 0}));
  EXPECT_EQ(PriceExtents({}, 4096), (ReadCost{}));
  EXPECT_EQ(PriceExtents({{10, 0}}, 4096), (ReadCost{}));
}

TEST(ReadCostTest, SharedBlocksCountOnce) {
  // The file comment's example: [100,300) and [4000,4200) touch blocks 0 and 1.
  EXPECT_EQ(PriceExtents({{100, 200}, {4000, 200}}, 4096), (ReadCost{400, 8192, 0}));
  // Two extents in one block, in any order.
  EXPECT_EQ(PriceExtents({{3000, 10}, {10, 10}}, 4096), (ReadCost{20, 4096, 0}));
  // Adjacent extents (a merged sub-chunk pair) and a gap of whole blocks.
  EXPECT_EQ(PriceExtents({{0, 2048}, {2048, 2048}, {3 * 4096, 4096}}, 4096),
            (ReadCost{8192, 8192, 0}));
  // Overlapping extents count their bytes once.
  EXPECT_EQ(PriceExtents({{0, 100}, {50, 100}}, 4096), (ReadCost{150, 4096, 0}));
  // Another block size.
  EXPECT_EQ(PriceExtents({{100, 200}, {4000, 200}}, 512), (ReadCost{400, 512 + 1024, 0}));
}

TEST(ReadCostTest, LocalShardsCostNoNetwork) {
  ReadCostModel model;
  const std::map<int, std::vector<Extent>> reads{
      {0, {{0, 1000}}}, {1, {{4096, 8192}}}, {2, {{100, 100}}}};
  ReadCost all_remote = PriceReads(model, reads);
  EXPECT_EQ(all_remote.net_bytes, 1000u + 8192 + 100);
  EXPECT_EQ(all_remote.device_bytes, 4096u + 8192 + 4096);
  EXPECT_DOUBLE_EQ(all_remote.total, 9292.0 + 16384.0);
  model.local = {1};
  ReadCost one_local = PriceReads(model, reads);
  EXPECT_EQ(one_local.net_bytes, 1100u);
  EXPECT_EQ(one_local.device_bytes, 16384u);
  EXPECT_DOUBLE_EQ(one_local.total, 1100.0 + 16384.0);
  model.weight_net = 10;
  model.weight_dev = 0.5;
  EXPECT_DOUBLE_EQ(PriceReads(model, reads).total, 11000.0 + 8192.0);
}

TEST(ReadCostTest, BadModels) {
  EXPECT_TRUE(CheckModel({}).ok());
  ReadCostModel m;
  m.weight_net = -1;
  EXPECT_EQ(CheckModel(m).code(), EINVAL);
  m.weight_net = std::numeric_limits<double>::infinity();
  EXPECT_EQ(CheckModel(m).code(), EINVAL);
  m = {};
  m.weight_dev = std::nan("");
  EXPECT_EQ(CheckModel(m).code(), EINVAL);
  m = {};
  m.device_block = 0;
  EXPECT_NE(CheckModel(m).message().find("device block"), std::string::npos);
}

}  // namespace
}  // namespace ec::recovery
