// Encode and layered decode beyond the corpus: every scalar_mds/technique against the codeword
// definition, random erasure sets up to m (all survivors, or only the k planned ones), the
// decode_chunks/encode_chunks buffer contract, and cost-based planning.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <thread>

#include "plugins/clay/clay_test_util.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

using clay_test::SameBytes;

// Encodes random data with `profile`, checks the codeword definition, then decodes random
// erasure sets. Returns "" or the first problem.
std::string RoundTrip(const std::string& profile, std::mt19937_64& rng, unsigned stripe_width,
                      int decode_trials) {
  Status st;
  auto code = clay_test::MakeClay(profile, &st);
  if (!code) return "factory: " + st.ToString();
  const int k = static_cast<int>(code->get_data_chunk_count());
  const int n = static_cast<int>(code->get_chunk_count());
  const int m = n - k;
  const unsigned chunk_size = code->get_chunk_size(stripe_width);
  Buffer data = clay_test::RandomBuffer(rng, stripe_width);
  ChunkMap chunks = clay_test::EncodeAll(*code, data);
  if (std::string e = clay_test::VerifyCodeword(*code, chunks); !e.empty()) return "codeword: " + e;
  for (int trial = 0; trial < decode_trials; ++trial) {
    std::vector<int> ids(n);
    for (int i = 0; i < n; ++i) ids[i] = i;
    std::shuffle(ids.begin(), ids.end(), rng);
    const int lost = 1 + static_cast<int>(rng() % m);
    ShardSet erased(ids.begin(), ids.begin() + lost);
    ChunkMap available;
    for (int id = 0; id < n; ++id)
      if (!erased.count(id)) available[id] = chunks.at(id);
    // Half the trials decode from exactly the chunks minimum_to_decode picks (the others are
    // left out like aloof nodes), half from every survivor.
    if (trial % 2) {
      ShardSet have;
      for (const auto& [id, b] : available) have.insert(id);
      Result<SubChunkPlan> plan = code->minimum_to_decode(erased, have);
      if (!plan.ok()) return "minimum_to_decode: " + plan.status().ToString();
      ChunkMap picked;
      const std::vector<SubChunkRange> whole{{0, static_cast<int>(code->get_sub_chunk_count())}};
      const std::size_t sub = chunk_size / code->get_sub_chunk_count();
      for (const auto& [id, ranges] : *plan) {
        if (lost > 1 && ranges != whole) return "a multi-chunk plan must read whole chunks";
        // One lost chunk: a repair plan, the helpers send their sub-chunks.
        picked[id] = clay_test::Gather(chunks.at(id), ranges, sub);
      }
      if (lost > 1 && picked.size() != static_cast<std::size_t>(k)) return "plan is not k chunks";
      available = picked;
    }
    ChunkMap decoded;
    st = code->decode(erased, available, &decoded, chunk_size);
    if (!st.ok()) return "decode: " + st.ToString();
    for (int id : erased) {
      if (!decoded.count(id) || !SameBytes(decoded.at(id), chunks.at(id))) {
        std::string e = "erasures {";
        for (int x : erased) e += std::to_string(x) + " ";
        return e + "}: chunk " + std::to_string(id) + " decoded wrong";
      }
    }
  }
  return "";
}

TEST(ClayDecode, RandomErasuresEveryCorpusCode) {
  std::mt19937_64 rng(ectest::Seed() + 10);
  for (auto [k, m, d] : clay_test::CorpusTriples()) {
    const std::string profile =
        "k=" + std::to_string(k) + " m=" + std::to_string(m) + " d=" + std::to_string(d);
    EXPECT_EQ(RoundTrip(profile, rng, k * 1500, 12), "") << profile;
  }
}

TEST(ClayDecode, EveryScalarTechniqueMatchesTheDefinition) {
  std::mt19937_64 rng(ectest::Seed() + 11);
  const char* profiles[] = {
      "k=4 m=2 d=5 scalar_mds=isa",
      "k=4 m=2 d=5 scalar_mds=isa technique=cauchy",
      "k=10 m=4 d=13 scalar_mds=isa technique=cauchy",
      "k=8 m=4 d=11 scalar_mds=isa",
      "k=4 m=3 d=5 scalar_mds=isa technique=cauchy",
      "k=6 m=3 d=7 scalar_mds=isa",
      "k=5 m=2 d=6 technique=reed_sol_r6_op",
      "k=10 m=4 d=13",
      "k=5 m=3 d=5",  // q = 1: a plain (k+m) code with one sub-chunk
      "k=4 m=2 d=5 technique=cauchy_good",
      "k=4 m=3 d=5 technique=cauchy_orig",
      "k=3 m=2 d=4 technique=liber8tion",
  };
  for (const char* profile : profiles) {
    auto code = clay_test::MakeClay(profile);
    ASSERT_TRUE(code) << profile;
    // Bit-matrix techniques have large chunks: keep them to one alignment unit.
    const unsigned width = code->fast_path() ? code->get_data_chunk_count() * 2000u : 1u;
    std::cout << "[clay] " << profile << ": " << (code->fast_path() ? "ISA-L" : "sub-code calls")
              << ", chunk " << code->get_chunk_size(width) << "\n";
    EXPECT_EQ(RoundTrip(profile, rng, code->get_chunk_size(width) * code->get_data_chunk_count(),
                        code->fast_path() ? 10 : 3),
              "")
        << profile;
  }
}

TEST(ClayDecode, RepairWithOtherScalarCodes) {
  std::mt19937_64 rng(ectest::Seed() + 12);
  for (const char* profile :
       {"k=4 m=3 d=5 scalar_mds=isa technique=cauchy", "k=4 m=2 d=5 technique=cauchy_good"}) {
    auto code = clay_test::MakeClay(profile);
    ASSERT_TRUE(code) << profile;
    const unsigned chunk_size = code->get_chunk_size(1);
    const int n = static_cast<int>(code->get_chunk_count());
    const std::size_t sub = chunk_size / code->get_sub_chunk_count();
    ChunkMap chunks = clay_test::EncodeAll(
        *code, clay_test::RandomBuffer(rng, chunk_size * code->get_data_chunk_count()));
    for (int lost = 0; lost < n; ++lost) {
      ShardSet available;
      for (int id = 0; id < n; ++id)
        if (id != lost) available.insert(id);
      Result<SubChunkPlan> plan = code->minimum_to_decode({lost}, available);
      ASSERT_TRUE(plan.ok());
      ChunkMap helpers;
      for (const auto& [id, ranges] : *plan)
        helpers[id] = clay_test::Gather(chunks.at(id), ranges, sub);
      ChunkMap decoded;
      Status s = code->decode({lost}, helpers, &decoded, chunk_size);
      ASSERT_TRUE(s.ok()) << profile << ": " << s.ToString();
      EXPECT_TRUE(SameBytes(decoded.at(lost), chunks.at(lost))) << profile << " lost " << lost;
    }
  }
}

TEST(ClayDecode, ChunkBufferContract) {
  std::mt19937_64 rng(ectest::Seed() + 13);
  auto code = clay_test::MakeClay("k=4 m=2 d=5");
  ASSERT_TRUE(code);
  const unsigned chunk_size = code->get_chunk_size(4 * 4096);
  ChunkMap chunks = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, 4 * chunk_size));
  // encode_chunks with a data chunk left out treats it as zeros.
  {
    Buffer p4 = Buffer::Allocate(chunk_size), p5 = Buffer::Allocate(chunk_size);
    ConstChunkSpans in{
        {0, chunks.at(0).span()}, {1, chunks.at(1).span()}, {2, chunks.at(2).span()}};
    ASSERT_TRUE(code->encode_chunks(in, {{4, p4.span()}, {5, p5.span()}}).ok());
    Buffer zero_last = Buffer::Allocate(4 * chunk_size, true);
    std::memcpy(zero_last.data(), chunks.at(0).data(), chunk_size);
    std::memcpy(zero_last.data() + chunk_size, chunks.at(1).data(), chunk_size);
    std::memcpy(zero_last.data() + 2 * chunk_size, chunks.at(2).data(), chunk_size);
    ChunkMap expect = clay_test::EncodeAll(*code, zero_last);
    EXPECT_TRUE(SameBytes(p4, expect.at(4)));
    EXPECT_TRUE(SameBytes(p5, expect.at(5)));
  }
  Buffer out = Buffer::Allocate(chunk_size);
  // Lengths that are not a multiple of the sub-chunk count, unequal lengths, ids out of range.
  EXPECT_EQ(code->encode_chunks({{0, chunks.at(0).span().first(chunk_size - 4)}},
                                {{4, out.span().first(chunk_size - 4)}})
                .code(),
            EINVAL);
  EXPECT_EQ(code->encode_chunks({{0, chunks.at(0).span()}}, {{4, out.span().first(64)}}).code(),
            EINVAL);
  EXPECT_EQ(code->encode_chunks({{0, chunks.at(0).span()}}, {{1, out.span()}}).code(), EINVAL);
  EXPECT_EQ(code->encode_chunks({{0, chunks.at(0).span()}}, {{6, out.span()}}).code(), EINVAL);
  // decode_chunks: too many erasures is EIO, a wanted chunk without a buffer EINVAL.
  ConstChunkSpans three{
      {0, chunks.at(0).span()}, {1, chunks.at(1).span()}, {2, chunks.at(2).span()}};
  EXPECT_EQ(code->decode_chunks({3}, three, {{3, out.span()}}).code(), EIO);
  EXPECT_EQ(code->decode_chunks({3, 4}, three, {{3, out.span()}}).code(), EINVAL);
  ConstChunkSpans four = three;
  four[5] = chunks.at(5).span();
  ASSERT_TRUE(code->decode_chunks({3}, four, {{3, out.span()}}).ok());
  EXPECT_TRUE(SameBytes(out.span(), chunks.at(3).span()));
  // decode() with whole chunks of the wrong size for the chunk_size given.
  ChunkMap decoded;
  ChunkMap avail{{0, chunks.at(0)}, {1, chunks.at(1)}, {2, chunks.at(2)}, {5, chunks.at(5)}};
  EXPECT_EQ(code->decode({3}, avail, &decoded, chunk_size / 2).code(), EINVAL);
  EXPECT_EQ(code->decode({3}, avail, &decoded, chunk_size * 2).code(), EINVAL);
  EXPECT_TRUE(code->decode({3}, avail, &decoded, chunk_size).ok());
  EXPECT_TRUE(code->decode({3}, avail, &decoded, 0).ok());
}

TEST(ClayPlan, MinimumToDecodeWithCost) {
  auto code = clay_test::MakeClay("k=4 m=2 d=5");
  ASSERT_TRUE(code);
  std::map<int, int> costs{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}};
  // Equal costs: the repair (5 helpers x 1/2) beats the decode (4 x 1).
  Result<ShardSet> set = code->minimum_to_decode_with_cost({0}, costs);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(*set, (ShardSet{1, 2, 3, 4, 5}));
  Result<SubChunkPlan> plan = code->minimum_to_decode({0}, *set);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 5u);
  EXPECT_EQ(plan->at(1), (std::vector<SubChunkRange>{{0, 4}}));
  // One helper far away: (1+1+1+1+100)/2 = 52 > 4 -> decode from the 4 cheapest.
  costs[5] = 100;
  set = code->minimum_to_decode_with_cost({0}, costs);
  ASSERT_TRUE(set.ok());
  EXPECT_EQ(*set, (ShardSet{1, 2, 3, 4}));
  // A wanted chunk that is available costs nothing to plan.
  EXPECT_EQ(*code->minimum_to_decode_with_cost({1}, costs), ShardSet{1});
  // Not enough chunks.
  EXPECT_EQ(code->minimum_to_decode_with_cost({0}, {{1, 1}, {2, 1}}).status().code(), EIO);
}

TEST(ClayPlan, PlanReadPicksTheCheapest) {
  auto code = clay_test::MakeClay("k=10 m=4 d=13");
  ASSERT_TRUE(code);
  const std::size_t chunk_size = code->get_chunk_size(10 * 65536);
  const int z = 256;
  std::map<int, int> costs;
  for (int id = 1; id < 14; ++id) costs[id] = 10;
  // Whole lost chunk: full repair, 13 x 64 sub-chunks, Ceph's ranges.
  Result<ClayReadPlan> plan = code->plan_read(0, {0, z}, costs, chunk_size);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->kind, ClayReadPlan::Kind::kRepair);
  EXPECT_EQ(plan->sub_chunks_read, 13 * 64);
  EXPECT_EQ(plan->bytes_read, 13 * chunk_size / 4);
  // A few sub-chunks: partial repair, far less.
  plan = code->plan_read(0, {40, 3}, costs, chunk_size);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ClayReadPlan::Kind::kPartialRepair);
  EXPECT_LT(plan->sub_chunks_read, 13 * 64 / 4);
  ASSERT_TRUE(plan->repair);
  // The chunk itself is available: direct.
  costs[0] = 10;
  plan = code->plan_read(0, {40, 3}, costs, chunk_size);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ClayReadPlan::Kind::kDirect);
  EXPECT_EQ(plan->sub_chunks_read, 3);
  costs.erase(0);
  // A group peer missing: no repair possible, RS-style decode of k whole chunks.
  costs.erase(1);
  plan = code->plan_read(0, {0, z}, costs, chunk_size);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, ClayReadPlan::Kind::kDecode);
  EXPECT_EQ(plan->sub_chunks_read, 10 * z);
  // Too few chunks, bad ranges.
  EXPECT_EQ(code->plan_read(0, {0, z}, {{2, 1}, {3, 1}}, chunk_size).status().code(), EIO);
  EXPECT_EQ(code->plan_read(0, {250, 7}, costs, chunk_size).status().code(), EINVAL);
  EXPECT_EQ(code->plan_read(14, {0, 1}, costs, chunk_size).status().code(), EINVAL);
}

TEST(ClayPlan, PlanReadExecutes) {
  std::mt19937_64 rng(ectest::Seed() + 14);
  auto code = clay_test::MakeClay("k=7 m=5 d=9");
  ASSERT_TRUE(code);
  const unsigned chunk_size = code->get_chunk_size(7 * 4000);
  const int z = static_cast<int>(code->get_sub_chunk_count());
  const std::size_t sub = chunk_size / z;
  ChunkMap chunks = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, 7 * chunk_size));
  for (int trial = 0; trial < 20; ++trial) {
    const int lost = static_cast<int>(rng() % 12);
    std::map<int, int> costs;
    for (int id = 0; id < 12; ++id)
      if (id != lost) costs[id] = 1 + static_cast<int>(rng() % 5);
    const int first = static_cast<int>(rng() % z);
    const int count = 1 + static_cast<int>(rng() % (z - first));
    Result<ClayReadPlan> plan = code->plan_read(lost, {first, count}, costs, chunk_size);
    ASSERT_TRUE(plan.ok());
    if (plan->kind == ClayReadPlan::Kind::kDecode) {
      ChunkMap whole, decoded;
      for (const auto& [id, ranges] : plan->reads) whole[id] = chunks.at(id);
      ASSERT_TRUE(code->decode({lost}, whole, &decoded, chunk_size).ok());
      EXPECT_TRUE(SameBytes(decoded.at(lost), chunks.at(lost)));
      continue;
    }
    ASSERT_TRUE(plan->repair);
    ConstChunkSpans data;
    std::vector<Buffer> keep;
    for (const auto& [id, ranges] : plan->reads) {
      keep.push_back(clay_test::Gather(chunks.at(id), ranges, sub));
      data[id] = keep.back().span();
    }
    Buffer out = Buffer::Allocate(count * sub);
    ASSERT_TRUE(code->repair(*plan->repair, data, chunk_size, out.span()).ok());
    EXPECT_TRUE(SameBytes(out.span(), chunks.at(lost).Slice(first * sub, count * sub).span()));
  }
}

}  // namespace
}  // namespace ec

namespace ec {
namespace {

TEST(ClayThreads, ConcurrentEncodeDecodeRepair) {
  // One code shared by threads: program caches and per-thread scratch must not interfere.
  auto code = clay_test::MakeClay("k=7 m=4 d=9");
  ASSERT_TRUE(code);
  const std::uint64_t seed = ectest::Seed() + 30;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(seed + t);
      for (int round = 0; round < 25; ++round) {
        const unsigned chunk_size = code->get_chunk_size(7 * (1024 << (round % 3)));
        const std::size_t sub = chunk_size / code->get_sub_chunk_count();
        ChunkMap chunks = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, 7 * chunk_size));
        const int lost = static_cast<int>(rng() % 11);
        ShardSet others;
        for (int id = 0; id < 11; ++id)
          if (id != lost && (rng() % 4 != 0 || others.size() < 9)) others.insert(id);
        Result<SubChunkPlan> plan = code->minimum_to_decode({lost}, others);
        if (!plan.ok()) {
          ++failures;
          continue;
        }
        ChunkMap helpers;
        for (const auto& [id, ranges] : *plan)
          helpers[id] = clay_test::Gather(chunks.at(id), ranges, sub);
        ChunkMap decoded;
        if (!code->decode({lost}, helpers, &decoded, chunk_size).ok() ||
            !SameBytes(decoded.at(lost), chunks.at(lost)))
          ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace ec
