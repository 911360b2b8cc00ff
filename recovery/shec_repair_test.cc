// The repair engine with a SHEC code (not MDS, fewer than k helpers for a single loss): what a
// pool with a shec profile gets from recovery and degraded reads. The plan reads the shingle,
// the least-cost choice keeps it, a failed helper is replanned around, and what is read is what
// was planned.
#include <gtest/gtest.h>

#include "recovery/read_cost.h"
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

class ShecRepairTest : public testing::SeededTest {};

// k=4 m=3 c=2: parities 4 = 1111, 5 = 1100, 6 = 0011.
constexpr const char* kProfile = "plugin=shec k=4 m=3 c=2";

TEST_F(ShecRepairTest, SingleLossReadsTheShingle) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject(kProfile, c, 6 * 4 * c + 1000, seed_);
  RepairEngine engine(o.code, o.layout);
  const std::map<int, ShardSet> expected = {{0, {1, 5}}, {1, {0, 5}},       {2, {3, 6}},
                                            {3, {2, 6}}, {4, {0, 1, 2, 3}}, {5, {0, 1}},
                                            {6, {2, 3}}};
  for (const auto& [lost, helpers] : expected) {
    for (bool priced : {false, true}) {
      SCOPED_TRACE("lost " + std::to_string(lost) + (priced ? " with the cost model" : ""));
      RepairRequest req{{lost}, AvailableBut(o, {lost}), o.stripes};
      if (priced) req.cost = ReadCostModel{};
      MemoryShardSource source;
      LoadShards(o, source, {lost});
      auto got = engine.Rebuild(req, source);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->shards.at(lost)), o.shards[lost]);
      EXPECT_EQ(got->stats.helpers_read(), helpers);
      EXPECT_EQ(got->stats.bytes_read(), helpers.size() * c * o.stripes);
    }
  }
}

TEST_F(ShecRepairTest, PartOfAShardAndTwoLosses) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject(kProfile, c, 8 * 4 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  // Bytes of one stripe of lost shard 2: chunk 3 and parity 6 of that stripe only.
  RepairRequest part{{2}, AvailableBut(o, {2}), o.stripes, 3 * c + 100, 2000, ReadCostModel{}};
  MemoryShardSource source;
  LoadShards(o, source, {2});
  auto got = engine.Rebuild(part, source);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(2)), Part(o.shards[2], 3 * c + 100, 2000));
  EXPECT_EQ(got->stats.helpers_read(), (ShardSet{3, 6}));
  EXPECT_EQ(got->stats.bytes_read(), 2 * c);
  // Two losses in one shingle need the wide parity.
  RepairRequest two{{0, 1}, AvailableBut(o, {0, 1}), o.stripes};
  MemoryShardSource source2;
  LoadShards(o, source2, {0, 1});
  got = engine.Rebuild(two, source2);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(0)), o.shards[0]);
  EXPECT_EQ(Bytes(got->shards.at(1)), o.shards[1]);
  EXPECT_EQ(got->stats.helpers_read(), (ShardSet{2, 3, 4, 5}));
}

TEST_F(ShecRepairTest, NotDecodableIsEio) {
  const EncodedObject o = EncodeObject(kProfile, 4096, 4 * 4096, seed_);
  RepairEngine engine(o.code, o.layout);
  // 0, 1 and the wide parity lost: parity 5 alone cannot give two chunks.
  RepairRequest req{{0}, AvailableBut(o, {0, 1, 4}), o.stripes};
  MemoryShardSource source;
  LoadShards(o, source, {0, 1, 4});
  auto got = engine.Rebuild(req, source);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), EIO) << got.status().message();
}

}  // namespace
}  // namespace ec::recovery
