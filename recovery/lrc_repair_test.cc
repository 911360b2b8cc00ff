// The repair engine with an lrc code (what an OSD's pool with an lrc profile runs for degraded
// reads and recovery pulls): one lost shard is rebuilt from the l shards of its local group,
// with and without a cost model, and object reads around a lost shard come back right.
#include <gtest/gtest.h>

#include "recovery/object_read.h"
#include "recovery/repair_engine.h"
#include "recovery/testing/encoded_object.h"

namespace ec::recovery {
namespace {

using testing::AvailableBut;
using testing::Bytes;
using testing::EncodedObject;
using testing::EncodeObject;
using testing::LoadShards;
using testing::MemoryShardSource;
using testing::Part;

class LrcRepairTest : public testing::SeededTest {};

// k=4 m=2 l=3: groups {0,1,2,3} and {4,5,6,7}; C = 4096, 8 stripes.
constexpr std::uint64_t kChunk = 4096, kStripes = 8;

ShardSet GroupOf(int lost) {
  ShardSet group;
  for (int id = lost / 4 * 4; id < lost / 4 * 4 + 4; ++id)
    if (id != lost) group.insert(id);
  return group;
}

TEST_F(LrcRepairTest, RecoveryOfOneShardReadsItsGroup) {
  const EncodedObject o =
      EncodeObject("plugin=lrc k=4 m=2 l=3", kChunk, kStripes * 4 * kChunk, seed_);
  ASSERT_EQ(o.layout.chunk_count(), 8u);
  RepairEngine engine(o.code, o.layout);
  for (int lost = 0; lost < 8; ++lost) {
    SCOPED_TRACE("lost " + std::to_string(lost));
    for (bool modelled : {false, true}) {
      RepairRequest req{{lost}, AvailableBut(o, {lost}), o.stripes};
      if (modelled) req.cost = ReadCostModel{};
      auto plan = engine.Plan(req);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      EXPECT_EQ(plan->kind, RepairPlan::Kind::kDecode);
      EXPECT_EQ(plan->helpers, GroupOf(lost));
      MemoryShardSource source;
      LoadShards(o, source, {lost});
      auto got = engine.Rebuild(req, source);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->shards.at(lost)), o.shards[static_cast<std::size_t>(lost)]);
      EXPECT_EQ(got->stats.helpers_read(), GroupOf(lost));
      EXPECT_EQ(got->stats.bytes_read(), 3 * kChunk * kStripes);  // l chunks, not k
    }
  }
}

TEST_F(LrcRepairTest, AFailedGroupHelperFallsBackToTheGlobalLayer) {
  const EncodedObject o =
      EncodeObject("plugin=lrc k=4 m=2 l=3", kChunk, kStripes * 4 * kChunk, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  LoadShards(o, source, {0});
  source.Fail(1, Status::IOError("disk gone"));
  RepairRequest req{{0}, AvailableBut(o, {0}), o.stripes};
  auto got = engine.Rebuild(req, source);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(0)), o.shards[0]);
  EXPECT_EQ(got->stats.plans, 2u);
  EXPECT_TRUE(got->stats.failed.count(1));
  // The global layer: 4 of {2, 4, 5, 6}.
  EXPECT_EQ(got->stats.helpers_read(), (ShardSet{2, 3, 4, 5, 6}));
}

TEST_F(LrcRepairTest, DegradedObjectReads) {
  const std::uint64_t size = kStripes * 4 * kChunk - 1000;
  const EncodedObject o = EncodeObject("plugin=lrc k=4 m=2 l=3", kChunk, size, seed_);
  RepairEngine engine(o.code, o.layout);
  for (const ShardSet& lost : {ShardSet{0}, ShardSet{5}, ShardSet{0, 1}, ShardSet{0, 4}}) {
    MemoryShardSource source;
    LoadShards(o, source, lost);
    for (auto [offset, length] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
             {0, size}, {kChunk + 5, 100}, {3 * 4 * kChunk + 3 * kChunk, 2 * kChunk}}) {
      auto got = ReadObjectRange(engine, source,
                                 {size, offset, length, AvailableBut(o, lost), ReadCostModel{}});
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->bytes), Part(o.object, offset, length));
    }
  }
}

}  // namespace
}  // namespace ec::recovery
