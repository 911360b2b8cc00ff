// The pipelined repair plan against direct repair, for every plugin: the chain of helper steps,
// run in process slice by slice, gives the lost bytes byte for byte as RepairEngine does, reading
// the same bytes; a failed helper is planned around; trees of small fan-in agree with the chain;
// codes that are not byte-wise GF(2^8)-linear (bit-matrix jerasure techniques, fakes that are
// affine, position-dependent, non-linear or size-dependent) are refused, never given
// coefficients.
#include "recovery/pipeline_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ec/gf.h"
#include "recovery/repair_engine.h"
#include "recovery/testing/encoded_object.h"

namespace ec::recovery {
namespace {

using testing::EncodedObject;
using testing::MemoryShardSource;

class PipelinePlanTest : public testing::SeededTest {};

// A stripe unit of `profile`'s code of about `target` bytes that the plugin does not round up.
std::size_t PipeUnitOf(const std::string& profile_text, std::size_t target) {
  auto profile = ParseProfile(profile_text);
  EXPECT_TRUE(profile.ok());
  if (!profile.ok()) return 0;
  ErasureCodeInterfaceRef code;
  Status s = testing::MakeCode(*profile, &code);
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s.ok()) return 0;
  return code->get_chunk_size(static_cast<unsigned>(target * code->get_data_chunk_count()));
}

std::vector<std::byte> PipeGather(const std::vector<std::byte>& shard,
                                  const std::vector<Extent>& extents) {
  std::vector<std::byte> out;
  for (const Extent& e : extents) {
    EXPECT_LE(e.offset + e.length, shard.size());
    out.insert(out.end(), shard.begin() + static_cast<std::ptrdiff_t>(e.offset),
               shard.begin() + static_cast<std::ptrdiff_t>(e.offset + e.length));
  }
  return out;
}

void PipeScatter(const std::vector<std::byte>& bytes, const std::vector<Extent>& extents,
                 std::vector<std::byte>& shard) {
  std::size_t pos = 0;
  for (const Extent& e : extents) {
    ASSERT_LE(e.offset + e.length, shard.size());
    ASSERT_LE(pos + e.length, bytes.size());
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(pos), e.length,
                shard.begin() + static_cast<std::ptrdiff_t>(e.offset));
    pos += e.length;
  }
  EXPECT_EQ(pos, bytes.size());
}

// Runs `slices` of `plan` as a chain in process: every stage reads its extents of its shard,
// adds its share to the partial its predecessor sent (a copy, as over a link) and sends it on;
// the last partial lands in `out` (the lost shard's positions). Returns the bytes the stages
// read.
std::uint64_t PipeRunChain(const EncodedObject& o, const PipelinePlan& plan,
                           const std::vector<PipelineSlice>& slices, std::vector<std::byte>& out) {
  std::uint64_t read = 0;
  for (const PipelineSlice& slice : slices) {
    EXPECT_TRUE(plan.CheckSlice(slice).ok());
    std::vector<std::byte> received(plan.PartialBytes(slice));
    for (std::size_t i = 0; i < plan.stages().size(); ++i) {
      const PipelineStage& stage = plan.stages()[i];
      const auto mine =
          PipeGather(o.shards[static_cast<std::size_t>(stage.chunk)], plan.StageExtents(i, slice));
      EXPECT_EQ(mine.size(), plan.InputBytes(i, slice));
      read += mine.size();
      std::vector<std::byte> partial = received;
      Status s = ApplyStage(stage, slice, mine, partial);
      EXPECT_TRUE(s.ok()) << s.message();
      received = std::move(partial);
    }
    PipeScatter(received, plan.OutputExtents(slice), out);
  }
  return read;
}

// Slices of random sizes (aligned by Slices(), or cut at random byte offsets) of stripes
// [first, first + stripes).
std::vector<PipelineSlice> PipeRandomSlices(const PipelinePlan& plan, std::uint64_t first,
                                            std::uint64_t stripes, std::mt19937& rng) {
  const std::size_t s = plan.sub_chunk_size();
  if (rng() % 2) {
    auto slices = plan.Slices(first, stripes, 1 + rng() % (3 * s));
    EXPECT_TRUE(slices.ok());
    return slices.ok() ? *slices : std::vector<PipelineSlice>{};
  }
  std::vector<PipelineSlice> slices;
  for (std::uint64_t st = first; st < first + stripes; ++st) {
    for (std::size_t off = 0; off < s;) {
      const std::size_t len = std::min<std::size_t>(s - off, 1 + rng() % s);
      slices.push_back({st, 1, off, len});
      off += len;
    }
  }
  std::shuffle(slices.begin(), slices.end(), rng);  // any order: slices are independent
  return slices;
}

// The available chunks for a loss of `lost`: every other one, minus up to `drop` random ones,
// with random costs.
std::map<int, int> PipeRandomHelpers(const EncodedObject& o, int lost, unsigned drop,
                                     std::mt19937& rng) {
  std::map<int, int> available;
  for (int id = 0; id < static_cast<int>(o.shards.size()); ++id)
    if (id != lost) available[id] = static_cast<int>(rng() % 3);
  const unsigned n = drop == 0 ? 0 : static_cast<unsigned>(rng() % (drop + 1));
  for (unsigned i = 0; i < n && available.size() > 1; ++i) {
    auto it = available.begin();
    std::advance(it, static_cast<std::ptrdiff_t>(rng() % available.size()));
    available.erase(it);
  }
  return available;
}

struct PipeCase {
  const char* profile;
  std::size_t unit;  // about this many bytes per chunk
  std::uint64_t stripes;
  unsigned drop;         // up to this many other chunks unavailable
  unsigned helper_sets;  // random helper sets per lost chunk
};

// Every lost chunk, random helper sets and slices: the chain gives what RepairEngine rebuilds
// (and the original shard), reading exactly as many bytes.
TEST_F(PipelinePlanTest, EveryPluginMatchesDirectRepair) {
  std::mt19937 rng(seed_);
  const std::vector<PipeCase> cases = {
      {"plugin=jerasure technique=reed_sol_van k=4 m=2", 4096, 3, 1, 3},
      {"plugin=jerasure technique=reed_sol_r6_op k=4 m=2", 4096, 3, 1, 2},
      {"plugin=jerasure technique=reed_sol_van k=10 m=4", 2048, 2, 3, 2},
      {"plugin=isa technique=reed_sol_van k=4 m=2", 4096, 3, 1, 3},
      {"plugin=isa technique=cauchy k=4 m=2 mapping=DD__DD", 1024, 3, 1, 2},
      {"plugin=isa technique=reed_sol_van k=10 m=4", 2048, 2, 3, 2},
      {"plugin=clay k=4 m=2 d=5", 4096, 3, 1, 3},
      {"plugin=clay k=6 m=3 d=7", 8192, 2, 2, 2},
      {"plugin=clay k=10 m=4 d=13", 65536, 1, 0, 1},
      {"plugin=lrc k=4 m=2 l=3", 4096, 3, 2, 2},
      {"plugin=lrc k=8 m=4 l=3", 2048, 2, 3, 2},
      {"plugin=shec k=4 m=3 c=2", 4096, 3, 2, 2},
  };
  for (const PipeCase& c : cases) {
    SCOPED_TRACE(c.profile);
    const EncodedObject o = testing::EncodeStripes(c.profile, PipeUnitOf(c.profile, c.unit),
                                                   c.stripes, static_cast<unsigned>(rng()));
    ASSERT_TRUE(o.code);
    RepairEngine engine(o.code, o.layout);
    const std::size_t chunk = o.layout.chunk_size();
    for (int lost = 0; lost < static_cast<int>(o.shards.size()); ++lost) {
      for (unsigned set = 0; set < c.helper_sets; ++set) {
        const auto available = PipeRandomHelpers(o, lost, set == 0 ? 0 : c.drop, rng);
        SCOPED_TRACE("lost " + std::to_string(lost) + " from " + JoinShards([&] {
                       ShardSet ids;
                       for (const auto& [id, cost] : available) ids.insert(id);
                       return ids;
                     }()));
        const RepairRequest req{{lost}, available, o.stripes};
        MemoryShardSource source;
        for (const auto& [id, cost] : available) source.SetShard(id, o.shards[id]);
        auto direct = engine.Rebuild(req, source);
        auto plan = PipelinePlan::Make(*o.code, o.layout, {lost, {0, 0}, available});
        if (!direct.ok()) {  // too few helpers left: both refuse
          ASSERT_FALSE(plan.ok());
          EXPECT_EQ(plan.status().code(), direct.status().code()) << plan.status().message();
          continue;
        }
        ASSERT_TRUE(plan.ok()) << plan.status().message();
        EXPECT_EQ(plan->want(), (SubChunkRange{0, static_cast<int>(o.layout.sub_chunk_count())}));
        ShardSet stage_ids;
        for (const PipelineStage& st : plan->stages()) stage_ids.insert(st.chunk);
        EXPECT_EQ(stage_ids, direct->stats.helpers_read());
        std::vector<std::byte> rebuilt(o.stripes * chunk);
        const auto slices = PipeRandomSlices(*plan, 0, o.stripes, rng);
        const std::uint64_t read = PipeRunChain(o, *plan, slices, rebuilt);
        EXPECT_EQ(rebuilt, testing::Bytes(direct->shards.at(lost)));
        EXPECT_EQ(rebuilt, o.shards[lost]);
        EXPECT_EQ(read, direct->stats.bytes_read());
        EXPECT_EQ(read, plan->bytes_per_stripe() * o.stripes);
      }
    }
  }
}

// The direct repair's byte counts for a single loss with every other chunk available, per stripe:
// CLAY d*C/q, Reed-Solomon k*C, LRC its local group, SHEC its shingle.
TEST_F(PipelinePlanTest, ReadsWhatTheCodesMinimumIs) {
  struct Want {
    const char* profile;
    int lost;
    std::uint64_t chunks_times_q;  // bytes per stripe * q / C
    unsigned q;
  };
  for (const Want& w : std::vector<Want>{{"plugin=isa technique=reed_sol_van k=4 m=2", 0, 4, 1},
                                         {"plugin=clay k=4 m=2 d=5", 1, 5, 2},
                                         {"plugin=clay k=10 m=4 d=13", 3, 13, 4},
                                         {"plugin=lrc k=8 m=4 l=3", 2, 3, 1},
                                         {"plugin=shec k=4 m=3 c=2", 0, 2, 1}}) {
    SCOPED_TRACE(w.profile);
    const EncodedObject o =
        testing::EncodeStripes(w.profile, PipeUnitOf(w.profile, 4096), 1, seed_);
    ASSERT_TRUE(o.code);
    auto plan =
        PipelinePlan::Make(*o.code, o.layout, {w.lost, {0, 0}, testing::AvailableBut(o, {w.lost})});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->bytes_per_stripe() * w.q, w.chunks_times_q * o.layout.chunk_size());
  }
}

// CLAY's partial repair: a random range of sub-chunks, the same reads as the engine's repair of
// that byte range of one stripe, and the lost bytes there. Every other round one more chunk is
// unavailable: CLAY(4,2,5) then decodes from k whole chunks (not native), CLAY(6,3,7) may still
// find a repair set.
TEST_F(PipelinePlanTest, PartOfTheSubChunks) {
  std::mt19937 rng(seed_);
  for (const char* profile : {"plugin=clay k=4 m=2 d=5", "plugin=clay k=6 m=3 d=7"}) {
    SCOPED_TRACE(profile);
    const EncodedObject o =
        testing::EncodeStripes(profile, PipeUnitOf(profile, 8192), 3, static_cast<unsigned>(rng()));
    ASSERT_TRUE(o.code);
    RepairEngine engine(o.code, o.layout);
    const int z = static_cast<int>(o.layout.sub_chunk_count());
    const std::size_t c = o.layout.chunk_size(), s = o.layout.sub_chunk_size();
    for (int round = 0; round < 8; ++round) {
      const int lost = static_cast<int>(rng() % o.shards.size());
      const int first = static_cast<int>(rng() % static_cast<unsigned>(z));
      const int count = 1 + static_cast<int>(rng() % static_cast<unsigned>(z - first));
      SCOPED_TRACE("lost " + std::to_string(lost) + " sub-chunks " + std::to_string(first) + "+" +
                   std::to_string(count));
      const int gone = round % 2 ? (lost + 1 + static_cast<int>(rng() % (o.shards.size() - 1))) %
                                       static_cast<int>(o.shards.size())
                                 : lost;
      const auto available = testing::AvailableBut(o, {lost, gone});
      auto plan = PipelinePlan::Make(*o.code, o.layout, {lost, {first, count}, available});
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      if (gone == lost || z == 8) {  // CLAY(4,2,5) has one repair set: all the others
        EXPECT_EQ(plan->native(), gone == lost);
      }
      std::vector<std::byte> rebuilt(o.stripes * c);
      const std::uint64_t read =
          PipeRunChain(o, *plan, PipeRandomSlices(*plan, 0, o.stripes, rng), rebuilt);
      const std::vector<Extent> wanted = plan->OutputExtents({0, o.stripes, 0, s});
      EXPECT_EQ(PipeGather(rebuilt, wanted), PipeGather(o.shards[lost], wanted));
      const std::uint64_t st = rng() % o.stripes;  // the engine's repair of that range
      const RepairRequest req{{lost}, available, o.stripes, st * c + first * s, count * s};
      MemoryShardSource source;
      testing::LoadShards(o, source, {lost, gone});
      auto direct = engine.Rebuild(req, source);
      ASSERT_TRUE(direct.ok()) << direct.status().message();
      EXPECT_EQ(testing::Bytes(direct->shards.at(lost)),
                PipeGather(rebuilt, plan->OutputExtents({st, 1, 0, s})));
      EXPECT_EQ(read, direct->stats.bytes_read() * o.stripes);
      if (plan->native()) {
        EXPECT_LT(plan->bytes_per_stripe(), o.layout.k() * c);
      }
    }
  }
}

// A helper fails after some slices: the slices done stand, a plan from the other helpers does the
// rest, and the lost shard comes out whole.
TEST_F(PipelinePlanTest, AFailedHelperIsPlannedAround) {
  std::mt19937 rng(seed_);
  for (const char* profile :
       {"plugin=jerasure technique=reed_sol_van k=4 m=2", "plugin=clay k=4 m=2 d=5",
        "plugin=clay k=6 m=3 d=7", "plugin=lrc k=4 m=2 l=3", "plugin=shec k=4 m=3 c=2"}) {
    SCOPED_TRACE(profile);
    const EncodedObject o =
        testing::EncodeStripes(profile, PipeUnitOf(profile, 4096), 4, static_cast<unsigned>(rng()));
    ASSERT_TRUE(o.code);
    for (int lost = 0; lost < static_cast<int>(o.shards.size()); ++lost) {
      auto available = testing::AvailableBut(o, {lost});
      auto first = PipelinePlan::Make(*o.code, o.layout, {lost, {0, 0}, available});
      ASSERT_TRUE(first.ok()) << first.status().message();
      auto slices = first->Slices(0, o.stripes, 1 + rng() % (2 * o.layout.chunk_size()));
      ASSERT_TRUE(slices.ok());
      const std::size_t cut = rng() % slices->size();
      std::vector<std::byte> rebuilt(o.stripes * o.layout.chunk_size());
      PipeRunChain(o, *first, {slices->begin(), slices->begin() + static_cast<std::ptrdiff_t>(cut)},
                   rebuilt);
      const int failed = first->stages()[rng() % first->stages().size()].chunk;
      SCOPED_TRACE("lost " + std::to_string(lost) + ", helper " + std::to_string(failed) +
                   " failed after " + std::to_string(cut) + " slices");
      available.erase(failed);
      auto second = PipelinePlan::Make(*o.code, o.layout, {lost, {0, 0}, available});
      ASSERT_TRUE(second.ok()) << second.status().message();
      for (const PipelineStage& st : second->stages()) EXPECT_NE(st.chunk, failed);
      // The rest of the slices, as they were: a slice names layout bytes, valid for any plan of
      // the layout (CLAY's falls back to k whole chunks when its repair set is broken).
      const std::vector<PipelineSlice> rest(slices->begin() + static_cast<std::ptrdiff_t>(cut),
                                            slices->end());
      PipeRunChain(o, *second, rest, rebuilt);
      EXPECT_EQ(rebuilt, o.shards[lost]);
    }
  }
}

// Trees of fan-in 1 (the chain), 2 and 3: parents after children, every stage once, the root's
// partial is the lost bytes.
TEST_F(PipelinePlanTest, TreesOfSmallFanInAgreeWithTheChain) {
  std::mt19937 rng(seed_);
  for (const char* profile :
       {"plugin=isa technique=reed_sol_van k=10 m=4", "plugin=clay k=4 m=2 d=5"}) {
    SCOPED_TRACE(profile);
    const EncodedObject o =
        testing::EncodeStripes(profile, PipeUnitOf(profile, 4096), 2, static_cast<unsigned>(rng()));
    ASSERT_TRUE(o.code);
    const int lost = static_cast<int>(rng() % o.shards.size());
    auto plan =
        PipelinePlan::Make(*o.code, o.layout, {lost, {0, 0}, testing::AvailableBut(o, {lost})});
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    const std::size_t n = plan->stages().size();
    for (unsigned fan_in : {1u, 2u, 3u}) {
      SCOPED_TRACE("fan-in " + std::to_string(fan_in));
      const std::vector<int> parent = plan->TreeParents(fan_in);
      ASSERT_EQ(parent.size(), n);
      EXPECT_EQ(parent[n - 1], -1);
      std::vector<unsigned> children(n);
      for (std::size_t i = 0; i + 1 < n; ++i) {
        ASSERT_GT(parent[i], static_cast<int>(i));
        ASSERT_LT(parent[i], static_cast<int>(n));
        ++children[static_cast<std::size_t>(parent[i])];
      }
      for (unsigned ch : children) EXPECT_LE(ch, fan_in);
      if (fan_in == 1) {
        for (std::size_t i = 0; i + 1 < n; ++i) EXPECT_EQ(parent[i], static_cast<int>(i + 1));
      }
      auto slices = plan->Slices(0, o.stripes, 1000);
      ASSERT_TRUE(slices.ok());
      std::vector<std::byte> rebuilt(o.stripes * o.layout.chunk_size());
      for (const PipelineSlice& slice : *slices) {
        std::vector<std::vector<std::byte>> partial(
            n, std::vector<std::byte>(plan->PartialBytes(slice)));
        for (std::size_t i = 0; i < n; ++i) {
          const auto mine = PipeGather(o.shards[static_cast<std::size_t>(plan->stages()[i].chunk)],
                                       plan->StageExtents(i, slice));
          ASSERT_TRUE(ApplyStage(plan->stages()[i], slice, mine, partial[i]).ok());
          if (parent[i] >= 0) {
            ASSERT_TRUE(AddPartial(partial[i], partial[static_cast<std::size_t>(parent[i])]).ok());
          }
        }
        PipeScatter(partial[n - 1], plan->OutputExtents(slice), rebuilt);
      }
      EXPECT_EQ(rebuilt, o.shards[lost]);
    }
  }
}

// Slices() covers the range once, in order, and the extents of a slice are what its bytes say.
TEST_F(PipelinePlanTest, SlicesCoverTheStripesOnce) {
  const EncodedObject o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 8192, 5, seed_);
  ASSERT_TRUE(o.code);
  auto plan = PipelinePlan::Make(*o.code, o.layout, {2, {0, 0}, testing::AvailableBut(o, {2})});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const std::size_t c = o.layout.chunk_size(), s = plan->sub_chunk_size();
  ASSERT_EQ(s, 1024u);
  for (std::size_t bytes : {1ul, 64ul, 100ul, 1000ul, 1024ul, 3000ul, 4096ul, 1ul << 20}) {
    SCOPED_TRACE("slice bytes " + std::to_string(bytes));
    auto slices = plan->Slices(1, 3, bytes);
    ASSERT_TRUE(slices.ok());
    std::vector<Extent> out;
    std::uint64_t input = 0;
    for (const PipelineSlice& sl : *slices) {
      ASSERT_TRUE(plan->CheckSlice(sl).ok());
      if (sl.stripes == 1 && sl.length != s) {
        EXPECT_EQ(sl.offset % 64, 0u);
        EXPECT_LE(sl.length, std::max<std::size_t>(64, bytes));
      }
      for (const Extent& e : plan->OutputExtents(sl)) out.push_back(e);
      for (std::size_t i = 0; i < plan->stages().size(); ++i) {
        std::uint64_t sum = 0;
        for (const Extent& e : plan->StageExtents(i, sl)) sum += e.length;
        EXPECT_EQ(sum, plan->InputBytes(i, sl));
        input += sum;
      }
      std::uint64_t partial = 0;
      for (const Extent& e : plan->OutputExtents(sl)) partial += e.length;
      EXPECT_EQ(partial, plan->PartialBytes(sl));
    }
    std::uint64_t covered = 0;  // once: no overlap, no gap
    for (const Extent& e : out) covered += e.length;
    EXPECT_EQ(covered, 3 * c);
    EXPECT_EQ(MergeExtents(out), (std::vector<Extent>{{c, 3 * c}}));
    EXPECT_EQ(input, 3 * plan->bytes_per_stripe());
  }
  EXPECT_EQ(plan->Slices(0, 3, 0).status().code(), EINVAL);
  EXPECT_EQ(plan->Slices(~0ull, 2, 64).status().code(), EINVAL);
  EXPECT_TRUE(plan->Slices(4, 0, 64)->empty());
}

TEST_F(PipelinePlanTest, BadRequestsSlicesAndBuffersAreRefused) {
  const EncodedObject o = testing::EncodeStripes("plugin=clay k=4 m=2 d=5", 4096, 2, seed_);
  ASSERT_TRUE(o.code);
  const auto available = testing::AvailableBut(o, {0});
  auto make = [&](PipelineRequest r) { return PipelinePlan::Make(*o.code, o.layout, r); };
  EXPECT_EQ(make({-1, {0, 0}, available}).status().code(), EINVAL);
  EXPECT_EQ(make({6, {0, 0}, available}).status().code(), EINVAL);
  EXPECT_EQ(make({1, {0, 0}, available}).status().code(), EINVAL);  // 1 is available
  EXPECT_EQ(make({0, {0, 0}, {{1, 0}, {9, 0}}}).status().code(), EINVAL);
  EXPECT_EQ(make({0, {0, 0}, {{1, -1}, {2, 0}, {3, 0}, {4, 0}}}).status().code(), EINVAL);
  EXPECT_EQ(make({0, {7, 2}, available}).status().code(), EINVAL);
  EXPECT_EQ(make({0, {-1, 2}, available}).status().code(), EINVAL);
  EXPECT_EQ(make({0, {3, 0}, available}).status().code(), EINVAL);
  EXPECT_EQ(make({0, {0, 0}, {{1, 0}, {2, 0}, {3, 0}}}).status().code(), EIO);  // 3 < k
  const StripeLayout other =
      *StripeLayout::Make(*testing::EncodeStripes("plugin=isa k=4 m=2", 4096, 1, seed_).code, 4096);
  EXPECT_EQ(PipelinePlan::Make(*o.code, other, {0, {0, 0}, available}).status().code(), EINVAL);

  auto plan = make({0, {0, 0}, available});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  const std::size_t s = plan->sub_chunk_size();
  EXPECT_EQ(plan->CheckSlice({0, 0, 0, s}).code(), EINVAL);
  EXPECT_EQ(plan->CheckSlice({0, 1, 0, 0}).code(), EINVAL);
  EXPECT_EQ(plan->CheckSlice({0, 1, s - 10, 11}).code(), EINVAL);
  EXPECT_EQ(plan->CheckSlice({0, 2, 0, s - 1}).code(), EINVAL);
  EXPECT_EQ(plan->CheckSlice({~0ull, 2, 0, s}).code(), EINVAL);
  EXPECT_TRUE(plan->CheckSlice({0, 1, s - 10, 10}).ok());

  const PipelineStage& stage = plan->stages()[0];
  const PipelineSlice slice{0, 1, 0, 100};
  std::vector<std::byte> mine(plan->InputBytes(0, slice)), partial(plan->PartialBytes(slice));
  std::fill(mine.begin(), mine.end(), std::byte{7});
  EXPECT_EQ(ApplyStage(stage, slice, {mine.data(), mine.size() - 1}, partial).code(), EINVAL);
  EXPECT_EQ(ApplyStage(stage, slice, mine, {partial.data(), partial.size() - 1}).code(), EINVAL);
  EXPECT_EQ(ApplyStage(stage, {0, 1, 0, 0}, {}, {}).code(), EINVAL);
  EXPECT_EQ(ApplyStage(stage, {0, ~0ull, 0, 1ull << 40}, mine, partial).code(), EINVAL);
  EXPECT_TRUE(
      std::all_of(partial.begin(), partial.end(), [](std::byte b) { return b == std::byte{0}; }));
  PipelineStage broken = stage;
  broken.columns.pop_back();
  EXPECT_EQ(ApplyStage(broken, slice, mine, partial).code(), EINVAL);
  EXPECT_TRUE(ApplyStage(stage, slice, mine, partial).ok());
  std::vector<std::byte> a(3), b(4);
  EXPECT_EQ(AddPartial(a, b).code(), EINVAL);
}

// Bit-matrix jerasure techniques (GF(2)-linear over packets, not byte-wise GF(2^8)) and word
// codes (w=16, w=32) are refused, cleanly. A loss that such a code rebuilds with plain XORs (a
// parity row of ones, e.g. cauchy_good's first) is byte-wise linear after all: then the plan is
// accepted and must give the right bytes.
TEST_F(PipelinePlanTest, BitMatrixAndWordCodesAreNotPipelinable) {
  for (const char* profile :
       {"plugin=jerasure technique=cauchy_orig k=4 m=2 packetsize=32",
        "plugin=jerasure technique=cauchy_good k=4 m=2 packetsize=32",
        "plugin=jerasure technique=liberation k=4 m=2 w=7 packetsize=32",
        "plugin=jerasure technique=blaum_roth k=4 m=2 w=6 packetsize=32",
        "plugin=jerasure technique=liber8tion k=4 m=2 packetsize=32",
        "plugin=jerasure technique=reed_sol_van k=4 m=2 w=16",
        "plugin=jerasure technique=reed_sol_van k=4 m=2 w=32",
        "plugin=clay k=4 m=2 d=5 scalar_mds=jerasure technique=cauchy_good"}) {
    SCOPED_TRACE(profile);
    const EncodedObject o = testing::EncodeStripes(profile, PipeUnitOf(profile, 4096), 2, seed_);
    ASSERT_TRUE(o.code);
    unsigned refused = 0;
    for (int lost = 0; lost < static_cast<int>(o.shards.size()); ++lost) {
      SCOPED_TRACE("lost " + std::to_string(lost));
      // Parity 5 among the helpers, so that no loss is rebuilt by XORs of the data and parity 4
      // alone.
      auto available = testing::AvailableBut(o, {lost});
      if (lost != 4) available.erase(4);
      auto plan = PipelinePlan::Make(*o.code, o.layout, {lost, {0, 0}, available});
      if (!plan.ok()) {
        EXPECT_EQ(plan.status().code(), EOPNOTSUPP) << plan.status().message();
        EXPECT_NE(plan.status().message().find("not pipelinable"), std::string::npos)
            << plan.status().message();
        ++refused;
        continue;
      }
      std::vector<std::byte> rebuilt(o.stripes * o.layout.chunk_size());
      PipeRunChain(o, *plan, *plan->Slices(0, o.stripes, 1000), rebuilt);
      EXPECT_EQ(rebuilt, o.shards[lost]);
    }
    EXPECT_GT(refused, 0u);
  }
}

// A code whose decode is the real one bent: affine (a constant added), position-dependent,
// non-linear but uniform on unit probes, or bent only at chunk sizes above the smallest one.
class PipeBentCode final : public ErasureCodeInterface {
 public:
  enum class Bend { kNone, kAffine, kPositional, kCube, kLargeChunks };
  PipeBentCode(ErasureCodeInterfaceRef inner, Bend bend) : inner_(std::move(inner)), bend_(bend) {}

  Status init(Profile& profile) override { return inner_->init(profile); }
  const Profile& get_profile() const override { return inner_->get_profile(); }
  unsigned get_chunk_count() const override { return inner_->get_chunk_count(); }
  unsigned get_data_chunk_count() const override { return inner_->get_data_chunk_count(); }
  unsigned get_coding_chunk_count() const override { return inner_->get_coding_chunk_count(); }
  unsigned get_sub_chunk_count() const override { return inner_->get_sub_chunk_count(); }
  unsigned get_chunk_size(unsigned w) const override { return inner_->get_chunk_size(w); }
  const std::vector<int>& get_chunk_mapping() const override { return inner_->get_chunk_mapping(); }
  Result<SubChunkPlan> minimum_to_decode(const ShardSet& want,
                                         const ShardSet& available) const override {
    return inner_->minimum_to_decode(want, available);
  }
  Result<ShardSet> minimum_to_decode_with_cost(const ShardSet& want,
                                               const std::map<int, int>& available) const override {
    return inner_->minimum_to_decode_with_cost(want, available);
  }
  Status encode(const ShardSet& want, std::span<const std::byte> in,
                ChunkMap* encoded) const override {
    return inner_->encode(want, in, encoded);
  }
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override {
    return inner_->encode_chunks(in, out);
  }
  Status decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                std::size_t chunk_size) const override {
    EC_RETURN_IF_ERROR(inner_->decode(want, chunks, decoded, chunk_size));
    for (auto& [id, buf] : *decoded)
      if (!chunks.count(id)) Apply(buf.span());
    return Status::OK();
  }
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override {
    EC_RETURN_IF_ERROR(inner_->decode_chunks(want, in, out));
    for (const auto& [id, span] : out) Apply(span);
    return Status::OK();
  }
  Status decode_concat(const ShardSet& want, const ChunkMap& chunks, Buffer* out) const override {
    return inner_->decode_concat(want, chunks, out);
  }

 private:
  void Apply(std::span<std::byte> bytes) const {
    const std::size_t smallest = inner_->get_chunk_size(1);
    for (std::size_t b = 0; b < bytes.size(); ++b) {
      auto x = static_cast<std::uint8_t>(bytes[b]);
      switch (bend_) {
        case Bend::kNone:
          break;
        case Bend::kAffine:
          x ^= 0x5A;
          break;
        case Bend::kPositional:
          x = gf::Mul(x, b % 2 ? 2 : 1);
          break;
        case Bend::kCube:
          x = gf::Mul(x, gf::Mul(x, x));
          break;
        case Bend::kLargeChunks:
          // Still linear over GF(2) and uniform on uniform input, but mixes byte positions.
          if (bytes.size() > smallest)
            x ^= static_cast<std::uint8_t>(bytes[(b + 1) % bytes.size()]) & 0x0F;
          break;
      }
      bytes[b] = static_cast<std::byte>(x);
    }
  }

  ErasureCodeInterfaceRef inner_;
  Bend bend_;
};

TEST_F(PipelinePlanTest, ProbingRefusesMapsThatAreNotByteWiseLinear) {
  const EncodedObject o =
      testing::EncodeStripes("plugin=isa technique=reed_sol_van k=4 m=2", 4096, 1, seed_);
  ASSERT_TRUE(o.code);
  ASSERT_GT(o.layout.chunk_size(), o.code->get_chunk_size(1));
  const auto available = testing::AvailableBut(o, {1});
  for (auto bend : {PipeBentCode::Bend::kAffine, PipeBentCode::Bend::kPositional,
                    PipeBentCode::Bend::kCube, PipeBentCode::Bend::kLargeChunks}) {
    SCOPED_TRACE("bend " + std::to_string(static_cast<int>(bend)));
    PipeBentCode bent(o.code, bend);
    auto plan = PipelinePlan::Make(bent, o.layout, {1, {0, 0}, available});
    ASSERT_FALSE(plan.ok());
    EXPECT_EQ(plan.status().code(), EOPNOTSUPP) << plan.status().message();
    EXPECT_NE(plan.status().message().find("not pipelinable"), std::string::npos);
  }
  // Unbent, the same wrapper is pipelinable and its coefficients are the code's decode row.
  PipeBentCode straight(o.code, PipeBentCode::Bend::kNone);
  auto plan = PipelinePlan::Make(straight, o.layout, {1, {0, 0}, available});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  std::vector<std::byte> rebuilt(o.layout.chunk_size());
  PipeRunChain(o, *plan, *plan->Slices(0, 1, 512), rebuilt);
  EXPECT_EQ(rebuilt, o.shards[1]);
}

}  // namespace
}  // namespace ec::recovery
