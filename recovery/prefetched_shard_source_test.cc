// RepairEngine::PlanFirstBatch (the requests Run() sends first, known ahead) and
// PrefetchedShardSource (answering them from bytes fetched ahead, forwarding the rest): the
// engine over prefetched bytes rebuilds the same bytes, reads nothing else, and after a failed
// helper re-plans and reads the others through the inner source.
#include "recovery/prefetched_shard_source.h"

#include <gtest/gtest.h>

#include "recovery/repair_engine.h"
#include "recovery/testing/encoded_object.h"
#include "recovery/testing/memory_shard_source.h"

namespace ec::recovery {
namespace {

using testing::Bytes;
using testing::MemoryShardSource;
using Object = testing::EncodedObject;

class PrefetchTest : public testing::SeededTest {};

// The bytes of `extents` of `shard`, as one buffer (what a helper would send).
std::vector<Buffer> ShardBytes(const Object& o, int shard, const std::vector<Extent>& extents) {
  std::vector<Buffer> out;
  for (const Extent& e : extents) {
    out.push_back(Buffer::Copy(
        std::span(o.shards[shard]).subspan(static_cast<std::size_t>(e.offset), e.length)));
  }
  return out;
}

// Every read of `first` loaded into `source` from the object's shards.
void Prefill(const Object& o, const FirstBatch& first, PrefetchedShardSource& source) {
  for (const auto& [shard, extents] : first.reads) {
    ASSERT_TRUE(source.Add(shard, extents, Status::OK(), ShardBytes(o, shard, extents)).ok());
  }
}

// What Run() asks in its first batch is what PlanFirstBatch says, for every kind of plan, with
// and without a cost model, whole and partial ranges, one batch or several.
TEST_F(PrefetchTest, FirstBatchIsWhatRunReadsFirst) {
  struct Case {
    std::string profile;
    std::size_t unit;
    std::uint64_t stripes;
    ShardSet want;
    std::uint64_t offset, length;
    std::size_t batch_bytes;
    bool cost;
  };
  const std::vector<Case> cases = {
      {"plugin=clay k=4 m=2 d=5", 4096, 5, {1}, 0, kToTheEnd, 16 << 20, true},
      {"plugin=clay k=4 m=2 d=5", 4096, 5, {1}, 0, kToTheEnd, 16 << 20, false},
      {"plugin=clay k=4 m=2 d=5", 4096, 5, {4}, 5000, 9000, 16 << 20, true},
      {"plugin=isa technique=reed_sol_van k=4 m=2", 4096, 7, {4}, 0, kToTheEnd, 16 << 20, true},
      {"plugin=isa technique=reed_sol_van k=4 m=2", 4096, 7, {0, 5}, 0, kToTheEnd, 16 << 20, true},
      // Batches of 2 stripes: the first batch is not the whole range.
      {"plugin=isa technique=reed_sol_van k=4 m=2", 4096, 7, {2}, 0, kToTheEnd, 2 * 4 * 4096, true},
      {"plugin=clay k=4 m=2 d=5", 4096, 5, {0}, 0, kToTheEnd, 2 * 4 * 4096, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.profile + " want " + JoinShards(c.want) + " batch " +
                 std::to_string(c.batch_bytes));
    const Object o = testing::EncodeStripes(c.profile, c.unit, c.stripes, seed_);
    RepairEngine engine(o.code, o.layout, {c.batch_bytes});
    RepairRequest r{c.want, testing::AvailableBut(o, c.want), o.stripes, c.offset, c.length};
    if (c.cost) r.cost = ReadCostModel{};
    auto plan = engine.Plan(r);
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    MemoryShardSource source;
    testing::LoadShards(o, source, c.want);
    source.SetLimits({64, 1 << 20});
    auto first = engine.PlanFirstBatch(r, *plan, source.limits());
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    ASSERT_FALSE(first->reads.empty());
    auto rebuilt = engine.Rebuild(r, source);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    const auto log = source.log();
    // The first |reads| requests are the first batch: one per helper, exactly those extents.
    ASSERT_GE(log.size(), first->reads.size());
    std::map<int, std::vector<Extent>> asked;
    for (std::size_t i = 0; i < first->reads.size(); ++i) {
      EXPECT_TRUE(asked.emplace(log[i].shard, log[i].extents).second) << "shard " << log[i].shard;
    }
    EXPECT_EQ(asked, first->reads);
    EXPECT_EQ(first->whole, rebuilt->stats.batches == 1);
    EXPECT_EQ(first->whole, log.size() == first->reads.size());
  }
  // Requests with also_read are refused (the prefetch path never has them).
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 2, seed_);
  RepairEngine engine(o.code, o.layout);
  RepairRequest r{{1}, testing::AvailableBut(o, {1}), o.stripes};
  auto plan = engine.Plan(r);
  ASSERT_TRUE(plan.ok());
  r.also_read[0] = {{0, 10}};
  EXPECT_EQ(engine.PlanFirstBatch(r, *plan, {}).status().code(), EINVAL);
}

// Every first request answered from the prefetched bytes: the inner source (which holds no shard
// at all) is never asked, the bytes are right, and every entry is used once.
TEST_F(PrefetchTest, ServesExactMatchesWithoutTheInnerSource) {
  for (const std::string profile :
       {"plugin=clay k=4 m=2 d=5", "plugin=isa technique=reed_sol_van k=4 m=2"}) {
    SCOPED_TRACE(profile);
    const Object o = testing::EncodeStripes(profile, 4096, 5, seed_);
    RepairEngine engine(o.code, o.layout);
    RepairRequest r{{1}, testing::AvailableBut(o, {1}), o.stripes};
    r.cost = ReadCostModel{};
    auto plan = engine.Plan(r);
    ASSERT_TRUE(plan.ok());
    MemoryShardSource inner;  // empty: a forwarded request would fail
    inner.CompleteOnAnotherThread(true);
    auto first = engine.PlanFirstBatch(r, *plan, inner.limits());
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(first->whole);
    PrefetchedShardSource source(&inner);
    Prefill(o, *first, source);
    auto rebuilt = engine.Rebuild(r, source);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    EXPECT_EQ(Bytes(rebuilt->shards.at(1)), o.shards[1]);
    EXPECT_TRUE(inner.log().empty());
    EXPECT_EQ(rebuilt->stats.plans, 1u);
    const auto used = source.Used();
    EXPECT_EQ(used.size(), first->reads.size());
    std::uint64_t bytes = 0;
    for (const auto& u : used) {
      EXPECT_EQ(u.extents, first->reads.at(u.shard));
      bytes += u.bytes;
    }
    EXPECT_EQ(bytes, rebuilt->stats.bytes_read());
  }
}

// Requests with other extents, or of shards without an entry, go to the inner source unchanged;
// the completions reach the engine under the engine's own indices.
TEST_F(PrefetchTest, ForwardsEverythingElse) {
  const Object o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 5, seed_);
  RepairEngine engine(o.code, o.layout);
  RepairRequest r{{2}, testing::AvailableBut(o, {2}), o.stripes};
  r.cost = ReadCostModel{};
  auto plan = engine.Plan(r);
  ASSERT_TRUE(plan.ok());
  MemoryShardSource inner;
  testing::LoadShards(o, inner, {2});
  inner.CompleteOnAnotherThread(true);
  auto first = engine.PlanFirstBatch(r, *plan, inner.limits());
  ASSERT_TRUE(first.ok());
  PrefetchedShardSource source(&inner);
  // Helpers 0 and 1 prefetched; helper 3 with other extents (never asked that way).
  for (int shard : {0, 1}) {
    const auto& extents = first->reads.at(shard);
    ASSERT_TRUE(source.Add(shard, extents, Status::OK(), ShardBytes(o, shard, extents)).ok());
  }
  const std::vector<Extent> other{{0, 100}};
  ASSERT_TRUE(source.Add(3, other, Status::OK(), ShardBytes(o, 3, other)).ok());
  auto rebuilt = engine.Rebuild(r, source);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_EQ(Bytes(rebuilt->shards.at(2)), o.shards[2]);
  // The inner source saw the other helpers' requests, each exactly as the engine made it.
  std::map<int, std::vector<Extent>> forwarded;
  for (const auto& l : inner.log()) forwarded[l.shard] = l.extents;
  std::map<int, std::vector<Extent>> expected = first->reads;
  expected.erase(0);
  expected.erase(1);
  EXPECT_EQ(forwarded, expected);
  const auto used = source.Used();
  ASSERT_EQ(used.size(), 2u);
  EXPECT_EQ(used[0].shard, 0);
  EXPECT_EQ(used[1].shard, 1);
  // Bytes whose sizes do not add up to the extents are refused.
  EXPECT_EQ(source.Add(4, {{0, 10}}, Status::OK(), {Buffer::Allocate(9)}).code(), EINVAL);
}

// A helper that failed in the batch: its entry answers with the error, the engine drops it and
// plans again; the new plan's reads of helpers already fetched come from the entries (used and
// counted once), the others from the inner source.
TEST_F(PrefetchTest, FailedHelperItemsMakeTheEngineReplan) {
  struct Case {
    std::string profile;
    int lost;
  };
  for (const Case& c : std::vector<Case>{{"plugin=isa technique=reed_sol_van k=4 m=2", 1},
                                         {"plugin=clay k=4 m=2 d=5", 1}}) {
    SCOPED_TRACE(c.profile);
    const Object o = testing::EncodeStripes(c.profile, 4096, 5, seed_);
    RepairEngine engine(o.code, o.layout);
    RepairRequest r{{c.lost}, testing::AvailableBut(o, {c.lost}), o.stripes};
    r.cost = ReadCostModel{};
    auto plan = engine.Plan(r);
    ASSERT_TRUE(plan.ok());
    MemoryShardSource inner;
    testing::LoadShards(o, inner, {c.lost});
    auto first = engine.PlanFirstBatch(r, *plan, inner.limits());
    ASSERT_TRUE(first.ok());
    const int failed = first->reads.begin()->first;
    PrefetchedShardSource source(&inner);
    for (const auto& [shard, extents] : first->reads) {
      if (shard == failed) {
        ASSERT_TRUE(
            source.Add(shard, extents, Status::Retryable(ECONNREFUSED, "osd.0: refused")).ok());
      } else {
        ASSERT_TRUE(source.Add(shard, extents, Status::OK(), ShardBytes(o, shard, extents)).ok());
      }
    }
    auto rebuilt = engine.Rebuild(r, source);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
    EXPECT_EQ(Bytes(rebuilt->shards.at(c.lost)), o.shards[c.lost]);
    EXPECT_EQ(rebuilt->stats.plans, 2u);
    ASSERT_EQ(rebuilt->stats.failed.count(failed), 1u);
    EXPECT_EQ(rebuilt->stats.failed.at(failed).code(), ECONNREFUSED);
    // The failed helper is never asked again, through the inner source or otherwise.
    for (const auto& l : inner.log()) EXPECT_NE(l.shard, failed);
    // What the second plan read: the inner source's requests plus the entries it matched.
    std::uint64_t inner_bytes = 0;
    for (const auto& [shard, bytes] : inner.bytes_per_shard()) inner_bytes += bytes;
    std::uint64_t used_bytes = 0;
    for (const auto& u : source.Used()) {
      EXPECT_NE(u.shard, failed);
      used_bytes += u.bytes;
    }
    std::uint64_t first_ok = 0;
    for (const auto& [shard, extents] : first->reads) {
      if (shard == failed) continue;
      for (const Extent& e : extents) first_ok += e.length;
    }
    EXPECT_LE(used_bytes, first_ok);
    EXPECT_GT(inner_bytes + used_bytes, 0u);
    // RS re-reads whole chunks of the same helpers: those come from the entries, only the
    // replacement helper from the network.
    if (c.profile.find("isa") != std::string::npos) {
      EXPECT_EQ(used_bytes, first_ok);
      EXPECT_EQ(inner.requests_per_shard().size(), 1u);
      EXPECT_EQ(inner_bytes, o.stripes * 4096);
    }
  }
}

}  // namespace
}  // namespace ec::recovery
