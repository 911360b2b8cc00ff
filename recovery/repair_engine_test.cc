// The repair engine over an in-memory ShardSource: what it reads (bytes, requests per helper),
// that the rebuilt bytes are right, partial repair, retries after failed helpers. The codes come
// from the plugins in EC_PLUGIN_DIR (this build's lib/).
#include "recovery/repair_engine.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ec/plugin.h"
#include "ec/stripe_codec.h"
#include "recovery/testing/encoded_object.h"
#include "recovery/testing/memory_shard_source.h"

namespace ec::recovery {
namespace {

using testing::Bytes;
using testing::MemoryShardSource;
using testing::Part;

using Object = testing::EncodedObject;

class RepairEngineTest : public testing::SeededTest {};

// CLAY k=4 m=2 d=5 (q=2): a single loss reads d*C/q per stripe, one request per helper.
TEST_F(RepairEngineTest, ClayReadsDTimesChunkOverQ) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 6, seed_);
  const std::uint64_t c = 4096, d = 5, q = 2;
  RepairEngine engine(o.code, o.layout);
  for (int lost = 0; lost < 6; ++lost) {
    MemoryShardSource source;
    testing::LoadShards(o, source, {lost});
    auto plan = engine.Plan({{lost}, testing::AvailableBut(o, {lost}), o.stripes});
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->kind, RepairPlan::Kind::kSubChunkRepair);
    EXPECT_TRUE(plan->native);
    EXPECT_EQ(plan->bytes_per_stripe, d * c / q);
    auto r = engine.Rebuild({{lost}, testing::AvailableBut(o, {lost}), o.stripes}, source);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(Bytes(r->shards.at(lost)), o.shards[lost]) << "lost " << lost;
    EXPECT_EQ(r->stats.bytes_read(), d * c / q * o.stripes);
    EXPECT_EQ(r->stats.helpers.size(), d);
    EXPECT_EQ(r->stats.batches, 1u);
    for (const auto& [id, count] : source.requests_per_shard()) EXPECT_EQ(count, 1u) << id;
    EXPECT_EQ(source.requests_per_shard().size(), d);
    EXPECT_EQ(r->stats.plans, 1u);
  }
}

// Reed-Solomon: k whole chunks per stripe, merged into one extent per helper and batch.
TEST_F(RepairEngineTest, ReedSolomonReadsKChunks) {
  const Object o =
      testing::EncodeStripes("plugin=isa technique=reed_sol_van k=4 m=2", 4096, 10, seed_);
  RepairEngine engine(o.code, o.layout, {4 * 4096 * 4});  // batches of 4 stripes: 3 batches
  MemoryShardSource source;
  testing::LoadShards(o, source, {1});
  auto r = engine.Rebuild({{1}, testing::AvailableBut(o, {1}), o.stripes}, source);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Bytes(r->shards.at(1)), o.shards[1]);
  EXPECT_EQ(r->stats.bytes_read(), 4u * 4096 * 10);
  EXPECT_EQ(r->stats.batches, 3u);
  EXPECT_EQ(r->stats.requests(), 4u * 3);
  EXPECT_EQ(r->stats.extents(), 4u * 3);
  EXPECT_EQ(r->stats.helpers_read(), (ShardSet{0, 2, 3, 4}));
}

// A byte range of a lost CLAY shard: only the stripes it touches, and in them only the
// sub-chunks it needs, are read; the bytes are those of the shard.
TEST_F(RepairEngineTest, PartialRepairReadsOnlyWhatTheRangeNeeds) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 8192, 8, seed_);
  const std::uint64_t c = 8192, sub = c / 8;
  RepairEngine engine(o.code, o.layout);
  const int lost = 2;
  struct Range {
    std::uint64_t offset, length;
  };
  for (Range range : {Range{3 * c + 100, 300}, Range{2 * c + 5 * sub, 3 * c}, Range{c - 1, 2},
                      Range{0, 8 * c}, Range{7 * c + 7 * sub, sub}}) {
    MemoryShardSource source;
    testing::LoadShards(o, source, {lost});
    RepairRequest req{
        {lost}, testing::AvailableBut(o, {lost}), o.stripes, range.offset, range.length};
    auto r = engine.Rebuild(req, source);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ(Bytes(r->shards.at(lost)), Part(o.shards[lost], range.offset, range.length))
        << range.offset << "+" << range.length;
    const std::uint64_t first = range.offset / c, last = (range.offset + range.length - 1) / c;
    const std::uint64_t full = 5 * c / 2 * (last - first + 1);
    if (range.length == 8 * c) {
      EXPECT_EQ(r->stats.bytes_read(), full);
    } else {
      EXPECT_LT(r->stats.bytes_read(), full) << range.offset << "+" << range.length;
    }
    for (const auto& logged : source.log()) {
      for (const Extent& e : logged.extents) {
        EXPECT_GE(e.offset, first * c);
        EXPECT_LE(e.offset + e.length, (last + 1) * c);
      }
    }
    for (const auto& [id, count] : source.requests_per_shard()) EXPECT_EQ(count, 1u) << id;
  }
}

TEST_F(RepairEngineTest, ReedSolomonPartialReadsWholeStripesItTouches) {
  const Object o =
      testing::EncodeStripes("plugin=jerasure technique=reed_sol_van k=3 m=2", 4096, 5, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  testing::LoadShards(o, source, {0});
  auto r =
      engine.Rebuild({{0}, testing::AvailableBut(o, {0}), o.stripes, 4096 + 4000, 200}, source);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Bytes(r->shards.at(0)), Part(o.shards[0], 4096 + 4000, 200));
  EXPECT_EQ(r->stats.bytes_read(), 3u * 4096 * 2);  // stripes 1 and 2, whole chunks of k
}

// Shards that are available are read directly, exactly the range.
TEST_F(RepairEngineTest, AvailableShardsAreReadDirectly) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 3, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  testing::LoadShards(o, source, {});
  auto r = engine.Rebuild({{1, 4}, testing::AvailableBut(o, {}), o.stripes, 1000, 5000}, source);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Bytes(r->shards.at(1)), Part(o.shards[1], 1000, 5000));
  EXPECT_EQ(Bytes(r->shards.at(4)), Part(o.shards[4], 1000, 5000));
  EXPECT_EQ(r->stats.bytes_read(), 2u * 5000);
  EXPECT_EQ(r->stats.extents(), 2u);
}

// What `ec-tool decode` does: every data chunk, from whatever k shards are there, in batches.
TEST_F(RepairEngineTest, DecodeAllDataChunksInBatches) {
  const Object o =
      testing::EncodeStripes("plugin=isa technique=cauchy k=4 m=2 mapping=DD__DD", 1024, 9, seed_);
  RepairEngine engine(o.code, o.layout, {2 * 4 * 1024});
  const ShardSet data(o.layout.data_ids().begin(), o.layout.data_ids().end());
  MemoryShardSource source;
  testing::LoadShards(o, source, {0, 4});
  std::map<int, std::vector<std::byte>> got;
  RepairStats stats;
  Status s = engine.Run(
      {data, testing::AvailableBut(o, {0, 4}), o.stripes}, source,
      [&](const RebuiltBytes& batch) {
        for (const auto& [id, bytes] : batch.shards) {
          EXPECT_EQ(got[id].size(), batch.offset);
          got[id].insert(got[id].end(), bytes.begin(), bytes.end());
        }
        return Status::OK();
      },
      &stats);
  ASSERT_TRUE(s.ok()) << s.message();
  for (int id : data) EXPECT_EQ(got[id], o.shards[id]) << id;
  EXPECT_EQ(stats.batches, 5u);
  EXPECT_EQ(stats.helpers_read(), (ShardSet{1, 2, 3, 5}));
}

// A helper that fails is dropped: CLAY falls back to k whole chunks from the rest.
TEST_F(RepairEngineTest, FailedHelperIsReplannedAround) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 6, seed_);
  RepairEngine engine(o.code, o.layout, {4 * 4096 * 2});  // 3 batches
  MemoryShardSource source;
  testing::LoadShards(o, source, {1});
  source.Fail(3, Status::IOError("disk of shard 3 is gone"), 1);  // fails from its 2nd request
  source.CompleteOnAnotherThread(true);
  auto r = engine.Rebuild({{1}, testing::AvailableBut(o, {1}), o.stripes}, source);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Bytes(r->shards.at(1)), o.shards[1]);
  EXPECT_EQ(r->stats.plans, 2u);
  ASSERT_EQ(r->stats.failed.size(), 1u);
  EXPECT_EQ(r->stats.failed.at(3).message(), "disk of shard 3 is gone");
  EXPECT_EQ(r->stats.helpers.at(3).failed_requests, 1u);
  // Batch 1 by sub-chunk repair (5 helpers x C/2 x 2 stripes); the failed batch (d-1 helpers
  // answered) and then batches 2-3 again from the 4 remaining shards, whole chunks.
  const std::uint64_t c = 4096;
  EXPECT_EQ(r->stats.bytes_read(), 5 * c / 2 * 2 + 4 * c / 2 * 2 + 4 * c * 4);
  EXPECT_EQ(r->stats.helpers_read(), (ShardSet{0, 2, 3, 4, 5}));
}

TEST_F(RepairEngineTest, NotEnoughHelpersNamesEveryFailure) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 2, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  testing::LoadShards(o, source, {1});
  source.Fail(3, Status::Retryable(ECONNREFUSED, "osd.3 refused"));
  source.Fail(5, Status::Retryable(ECONNRESET, "osd.5 reset"));
  RepairStats stats;
  Status s = engine.Run(
      {{1}, testing::AvailableBut(o, {1}), o.stripes}, source,
      [](const RebuiltBytes&) { return Status::OK(); }, &stats);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), EIO);
  EXPECT_TRUE(s.is_retryable());
  EXPECT_NE(s.message().find("cannot rebuild shard(s) 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("3 (osd.3 refused)"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("5 (osd.5 reset)"), std::string::npos) << s.message();
  EXPECT_EQ(stats.failed.size(), 2u);
  EXPECT_EQ(stats.batches, 0u);
}

TEST_F(RepairEngineTest, SourceLimitsCutBatches) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 8, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  testing::LoadShards(o, source,
                      {5});  // lost chunk 5: every helper sends 4 separate sub-chunks per stripe
  source.SetLimits({8, 0});
  auto r = engine.Rebuild({{5}, testing::AvailableBut(o, {5}), o.stripes}, source);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Bytes(r->shards.at(5)), o.shards[5]);
  for (const auto& logged : source.log()) EXPECT_LE(logged.extents.size(), 8u);
  EXPECT_GT(r->stats.batches, 1u);
  source.SetLimits({0, 100});  // not even one stripe's share of a helper fits
  EXPECT_EQ(engine.Rebuild({{5}, testing::AvailableBut(o, {5}), o.stripes}, source).status().code(),
            EINVAL);
}

TEST_F(RepairEngineTest, BadRequests) {
  const Object o = testing::EncodeStripes("plugin=isa k=2 m=1", 64, 2, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  testing::LoadShards(o, source, {});
  auto code = [&](RepairRequest r) { return engine.Rebuild(r, source).status().code(); };
  EXPECT_EQ(code({{}, testing::AvailableBut(o, {}), 2}), EINVAL);
  EXPECT_EQ(code({{3}, testing::AvailableBut(o, {}), 2}), EINVAL);
  EXPECT_EQ(code({{0}, {{1, -1}, {2, 1}}, 2}), EINVAL);
  EXPECT_EQ(code({{0}, {{1, 1}, {2, 1}}, 2, 100, 100}), EINVAL);  // past 2 * 64
  EXPECT_EQ(code({{0}, {{1, 1}, {2, 1}}, 2, 129}), EINVAL);
  EXPECT_EQ(code({{0}, {{1, 1}}, 2}), EIO);  // one shard cannot rebuild a 2+1 code
  auto empty = engine.Rebuild({{0}, {{1, 1}, {2, 1}}, 2, 128}, source);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shards.at(0).size(), 0u);
  EXPECT_EQ(empty->stats.requests(), 0u);
  // A shard that is shorter than the plan: the source's error, then no plan is left.
  MemoryShardSource short_source;
  testing::LoadShards(o, short_source, {0});
  short_source.SetShard(1, std::vector<std::byte>(10));
  Status s = engine.Rebuild({{0}, {{1, 1}, {2, 1}}, 2}, short_source).status();
  EXPECT_NE(s.message().find("shard 1 ends before byte"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace ec::recovery
