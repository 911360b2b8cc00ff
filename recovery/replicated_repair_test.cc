// The repair engine with the repetition code of replicated pools (ec/repetition_code.h): a lost
// replica is rebuilt from ONE other replica, its bytes read once (one copy, no decode work but the
// copy), the cheapest replica under the cost model (the primary's own, free of network), and a
// failed replica is replanned around.
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

class ReplicatedRepairTest : public testing::SeededTest {};

constexpr const char* kReplicated = "plugin=replicated size=3";

TEST_F(ReplicatedRepairTest, ALostReplicaReadsOneOtherReplicaOnce) {
  const std::uint64_t c = 4096;
  const std::uint64_t size = 5 * c + 1000;
  const EncodedObject o = EncodeObject(kReplicated, c, size, seed_);
  ASSERT_EQ(o.shards.size(), 3u);
  RepairEngine engine(o.code, o.layout);
  for (int lost = 0; lost < 3; ++lost) {
    for (bool priced : {false, true}) {
      SCOPED_TRACE("lost " + std::to_string(lost) + (priced ? " with the cost model" : ""));
      RepairRequest req{{lost}, AvailableBut(o, {lost}), o.stripes};
      if (priced) req.cost = ReadCostModel{};
      MemoryShardSource source;
      LoadShards(o, source, {lost});
      auto got = engine.Rebuild(req, source);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->shards.at(lost)), o.shards[lost]);
      // The object, zero-padded to whole stripes (this layout pads): a copy, not a code.
      EXPECT_EQ(Part(Bytes(got->shards.at(lost)), 0, size), o.object);
      EXPECT_EQ(got->stats.helpers_read().size(), 1u);
      EXPECT_EQ(got->stats.bytes_read(), c * o.stripes);  // one copy of the bytes
    }
  }
}

TEST_F(ReplicatedRepairTest, TheCheapestReplicaIsReadAndAFailedOneIsReplannedAround) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject(kReplicated, c, 3 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  RepairRequest req{{0}, {{1, 5}, {2, 1}}, o.stripes};
  MemoryShardSource source;
  LoadShards(o, source, {0});
  auto got = engine.Rebuild(req, source);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->stats.helpers_read(), (ShardSet{2}));
  // Replica 2 fails: replica 1 serves.
  MemoryShardSource failing;
  LoadShards(o, failing, {0});
  failing.Fail(2, Status::IOError("injected"));
  got = engine.Rebuild(req, failing);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(0)), o.shards[0]);
  EXPECT_EQ(got->stats.helpers_read(), (ShardSet{1}));
  EXPECT_EQ(got->stats.failed.count(2), 1u);
  // No replica left: EIO.
  MemoryShardSource none;
  RepairRequest lost_all{{0}, {}, o.stripes};
  EXPECT_EQ(engine.Rebuild(lost_all, none).status().code(), EIO);
}

}  // namespace
}  // namespace ec::recovery
