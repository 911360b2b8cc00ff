// Reads of object byte ranges (ReadObjectRange): direct reads fetch exactly the covering chunk
// bytes of the data shards, one request per shard; degraded reads rebuild only what the range
// needs at the least cost; a failing shard is just another lost shard.
#include "recovery/object_read.h"

#include <gtest/gtest.h>

#include "recovery/testing/encoded_object.h"

namespace ec::recovery {
namespace {

using testing::AvailableBut;
using testing::Bytes;
using testing::EncodedObject;
using testing::EncodeObject;
using testing::LoadShards;
using testing::LoggedReads;
using testing::MemoryShardSource;
using testing::Part;

class ObjectReadTest : public testing::SeededTest {};

struct ReadRange {
  const char* name;
  std::uint64_t offset, length;
};

// C = 8192, k = 4: stripe width 32 KiB; the object ends inside its 9th stripe.
constexpr std::uint64_t kC = 8192, kW = 4 * kC, kSize = 8 * kW + 5000;

std::vector<ReadRange> ReadRanges() {
  return {{"1 byte of piece 1", kW + kC + 17, 1},
          {"one sub-chunk of piece 1", 2 * kW + kC + 3 * (kC / 8), kC / 8},
          {"one chunk (piece 1)", 3 * kW + kC, kC},
          {"one stripe", 4 * kW, kW},
          {"many stripes, unaligned", kW / 2 + 77, 5 * kW + 123},
          {"into the last, partial stripe", 7 * kW + 3 * kC, kW + 5000 - 3 * kC},
          {"piece 0 only", 5 * kW + 10, 100},
          {"the whole object", 0, kSize}};
}

TEST_F(ObjectReadTest, DirectReadsFetchExactlyTheCoveringBytes) {
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", kC, kSize, seed_);
  RepairEngine engine(o.code, o.layout);
  for (const ReadRange& r : ReadRanges()) {
    SCOPED_TRACE(r.name);
    MemoryShardSource source;
    LoadShards(o, source, {});
    auto got = ReadObjectRange(engine, source,
                               {kSize, r.offset, r.length, AvailableBut(o, {}), ReadCostModel{}});
    ASSERT_TRUE(got.ok()) << got.status().message();
    EXPECT_EQ(Bytes(got->bytes), Part(o.object, r.offset, r.length));
    EXPECT_FALSE(got->degraded());
    // Exactly data_extents: one request of one extent per covering data shard, nothing else.
    auto extents = o.layout.data_extents(r.offset, r.length);
    ASSERT_TRUE(extents.ok());
    std::map<int, std::vector<Extent>> expected;
    for (const ShardExtent& e : *extents) expected[e.shard] = {{e.offset, e.length}};
    EXPECT_EQ(LoggedReads(source).size(), expected.size());
    for (const auto& [id, reads] : LoggedReads(source)) {
      ASSERT_EQ(reads.size(), 1u);
      EXPECT_EQ(reads[0].offset, expected[id][0].offset);
      EXPECT_EQ(reads[0].length, expected[id][0].length);
    }
    EXPECT_EQ(got->stats.bytes_read(), r.length);
    EXPECT_EQ(got->cost.net_bytes, r.length);
    for (const auto& [id, n] : source.requests_per_shard()) EXPECT_EQ(n, 1u) << id;
  }
}

// A source's limits cut a long direct extent into several requests, each within them.
TEST_F(ObjectReadTest, DirectReadsStayWithinTheSourceLimits) {
  const EncodedObject o =
      EncodeObject("plugin=isa technique=reed_sol_van k=4 m=2", kC, kSize, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  LoadShards(o, source, {});
  source.SetLimits({0, 5000});
  auto got = ReadObjectRange(engine, source, {kSize, 100, 3 * kW, AvailableBut(o, {}), {}});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->bytes), Part(o.object, 100, 3 * kW));
  for (const auto& logged : source.log()) {
    std::uint64_t n = 0;
    for (const Extent& e : logged.extents) n += e.length;
    EXPECT_LE(n, 5000u);
  }
  EXPECT_EQ(got->stats.bytes_read(), 3 * kW);
}

// One lost data shard: the bytes are the object's, the lost shard's plan is the engine's
// least-cost one for exactly its extent, and the bytes on the wire are what the plans priced.
TEST_F(ObjectReadTest, DegradedReadsRebuildOnlyWhatTheRangeNeeds) {
  for (const char* profile :
       {"plugin=clay k=4 m=2 d=5", "plugin=isa technique=reed_sol_van k=4 m=2"}) {
    const bool clay = std::string(profile).find("clay") != std::string::npos;
    const EncodedObject o = EncodeObject(profile, kC, kSize, seed_);
    RepairEngine engine(o.code, o.layout);
    const int lost = 1;
    for (const ReadRange& r : ReadRanges()) {
      SCOPED_TRACE(std::string(profile) + " " + r.name);
      MemoryShardSource source;
      LoadShards(o, source, {lost});
      ObjectReadRequest req{kSize, r.offset, r.length, AvailableBut(o, {lost}), ReadCostModel{}};
      auto got = ReadObjectRange(engine, source, req);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->bytes), Part(o.object, r.offset, r.length));
      auto extents = o.layout.data_extents(r.offset, r.length);
      ASSERT_TRUE(extents.ok());
      const ShardExtent* lost_extent = nullptr;
      for (const ShardExtent& e : *extents)
        if (e.shard == lost) lost_extent = &e;
      EXPECT_EQ(got->degraded(), lost_extent != nullptr);
      // All remote: the network bytes priced are the bytes asked of the shards.
      EXPECT_EQ(got->cost.net_bytes, got->stats.bytes_read());
      if (!lost_extent) continue;
      const RepairPlan& plan = got->rebuilt.at(lost);
      // One request per shard, the direct extents included; exactly the priced bytes.
      for (const auto& [id, n] : source.requests_per_shard()) EXPECT_EQ(n, 1u) << id;
      EXPECT_EQ(PriceReads(ReadCostModel{}, LoggedReads(source)), plan.cost);
      EXPECT_EQ(got->cost, plan.cost);
      for (const ShardExtent& e : *extents) {
        if (e.shard == lost) continue;
        EXPECT_EQ(got->direct.at(e.shard), e);
      }
      // The plan is the cheapest for the combined request, and no dearer than repairing alone
      // plus separate direct reads.
      std::map<int, std::vector<Extent>> also;
      for (const ShardExtent& e : *extents)
        if (e.shard != lost) also[e.shard] = {{e.offset, e.length}};
      RepairRequest combined{
          {lost},          req.available, o.stripes, lost_extent->offset, lost_extent->length,
          ReadCostModel{}, also};
      auto candidates = engine.Candidates(combined);
      ASSERT_TRUE(candidates.ok());
      EXPECT_EQ(candidates->front().cost, plan.cost);
      // RS decodes. CLAY repairs sub-chunks, except where a decode costs exactly as much: then
      // the plan asking fewer helpers wins.
      if (!clay) {
        EXPECT_EQ(plan.kind, RepairPlan::Kind::kDecode);
      } else if (plan.kind != RepairPlan::Kind::kSubChunkRepair) {
        bool tie = false;
        for (const RepairPlan& c : *candidates) {
          tie |= c.kind == RepairPlan::Kind::kSubChunkRepair && c.cost.total == plan.cost.total &&
                 c.helpers.size() > plan.helpers.size();
        }
        EXPECT_TRUE(tie) << "a decode chosen over a cheaper sub-chunk repair";
      }
      auto alone = engine.Plan({{lost},
                                req.available,
                                o.stripes,
                                lost_extent->offset,
                                lost_extent->length,
                                ReadCostModel{}});
      ASSERT_TRUE(alone.ok());
      EXPECT_LE(plan.cost.total, alone->cost.total + PriceReads(ReadCostModel{}, also).total);
      // Only the stripes the lost extent touches are read for it.
      const std::uint64_t first = lost_extent->offset / kC;
      const std::uint64_t last = (lost_extent->offset + lost_extent->length - 1) / kC;
      for (const auto& [id, reads] : LoggedReads(source)) {
        if (got->direct.count(id)) continue;  // a parity shard: only the repair reads it
        for (const Extent& e : reads) {
          EXPECT_GE(e.offset, first * kC) << id;
          EXPECT_LE(e.offset + e.length, (last + 1) * kC) << id;
        }
      }
    }
  }
}

// A shard whose direct read fails (a checksum error, a dead OSD) is rebuilt like a lost one;
// with more than m lost the error names the failures.
TEST_F(ObjectReadTest, FailingShardIsJustAnotherLostShard) {
  const EncodedObject o =
      EncodeObject("plugin=isa technique=reed_sol_van k=4 m=2", kC, kSize, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  LoadShards(o, source, {1});
  source.Fail(2, Status::Error(EBADMSG, "shard 2: checksum mismatch"));
  ObjectReadRequest req{kSize, 100, 3 * kW, AvailableBut(o, {1}), ReadCostModel{}};
  auto got = ReadObjectRange(engine, source, req);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->bytes), Part(o.object, 100, 3 * kW));
  EXPECT_EQ(got->rebuilt.size(), 2u);
  EXPECT_EQ(got->stats.failed.count(2), 1u);

  source.Fail(3, Status::Error(EBADMSG, "shard 3: checksum mismatch"));
  auto bad = ReadObjectRange(engine, source, req);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), EIO);
  EXPECT_NE(bad.status().message().find("shard 3: checksum mismatch"), std::string::npos)
      << bad.status().message();
}

// Two lost data shards (m = 2): one engine call rebuilds both extents, every other shard still
// gets one request.
TEST_F(ObjectReadTest, TwoLostShards) {
  for (const char* profile :
       {"plugin=clay k=4 m=2 d=5", "plugin=jerasure technique=reed_sol_van k=4 m=2"}) {
    SCOPED_TRACE(profile);
    const EncodedObject o = EncodeObject(profile, kC, kSize, seed_);
    RepairEngine engine(o.code, o.layout);
    for (const ReadRange& r : ReadRanges()) {
      SCOPED_TRACE(r.name);
      MemoryShardSource source;
      LoadShards(o, source, {0, 2});
      auto got = ReadObjectRange(
          engine, source, {kSize, r.offset, r.length, AvailableBut(o, {0, 2}), ReadCostModel{}});
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->bytes), Part(o.object, r.offset, r.length));
      for (const auto& [id, n] : source.requests_per_shard()) EXPECT_EQ(n, 1u) << id;
    }
  }
}

// A data shard on the caller itself costs no network; the price says so.
TEST_F(ObjectReadTest, LocalShardsCostNoNetwork) {
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", kC, kSize, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  LoadShards(o, source, {});
  ReadCostModel model;
  model.local = {0};
  auto got = ReadObjectRange(engine, source, {kSize, 0, kW, AvailableBut(o, {}), model});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->cost, (ReadCost{3 * kC, 4 * kC, 7.0 * kC}));
}

TEST_F(ObjectReadTest, BadRanges) {
  const EncodedObject o = EncodeObject("plugin=isa k=2 m=1", 64, 300, seed_);
  RepairEngine engine(o.code, o.layout);
  MemoryShardSource source;
  LoadShards(o, source, {});
  auto past = ReadObjectRange(engine, source, {300, 200, 101, AvailableBut(o, {}), {}});
  EXPECT_EQ(past.status().code(), EINVAL);
  EXPECT_NE(past.status().message().find("past the end"), std::string::npos);
  EXPECT_EQ(ReadObjectRange(engine, source, {300, 301, 0, AvailableBut(o, {}), {}}).status().code(),
            EINVAL);
  auto empty = ReadObjectRange(engine, source, {300, 300, 0, AvailableBut(o, {}), {}});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->bytes.size(), 0u);
  EXPECT_TRUE(source.log().empty());
  // Without a model the degraded part takes the code's plan and prices nothing.
  MemoryShardSource degraded;
  LoadShards(o, degraded, {0});
  auto got = ReadObjectRange(engine, degraded, {300, 10, 250, AvailableBut(o, {0}), {}});
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->bytes), Part(o.object, 10, 250));
  EXPECT_EQ(got->cost, ReadCost{});
}

}  // namespace
}  // namespace ec::recovery
