// Sub-chunk repair: Ceph's plans, repair from exactly the planned sub-chunks for every corpus
// (k, m, d) and lost chunk, aloof helpers, partial repair of random ranges, and the length checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "plugins/clay/clay_test_util.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

using clay_test::Gather;
using clay_test::SameBytes;

std::string Name(int k, int m, int d) {
  return "k=" + std::to_string(k) + " m=" + std::to_string(m) + " d=" + std::to_string(d);
}

ShardSet AllBut(int n, int lost) {
  ShardSet s;
  for (int i = 0; i < n; ++i)
    if (i != lost) s.insert(i);
  return s;
}

// Repairs `lost` through decode() from the helpers of `plan`, sending exactly the planned
// sub-chunks. Returns "" or the problem; *bytes_sent is what the helpers sent.
std::string RepairThroughDecode(const ErasureCodeClay& code, const ChunkMap& chunks, int lost,
                                const SubChunkPlan& plan, std::size_t* bytes_sent) {
  const std::size_t chunk_size = chunks.at(0).size();
  const std::size_t sub = chunk_size / code.get_sub_chunk_count();
  ChunkMap helpers;
  *bytes_sent = 0;
  for (const auto& [id, ranges] : plan) {
    helpers[id] = Gather(chunks.at(id), ranges, sub);
    *bytes_sent += helpers[id].size();
  }
  ChunkMap decoded;
  Status s = code.decode({lost}, helpers, &decoded, chunk_size);
  if (!s.ok()) return "decode: " + s.ToString();
  if (decoded.size() != 1 || !decoded.count(lost)) return "decode returned the wrong chunks";
  if (!SameBytes(decoded.at(lost), chunks.at(lost))) return "repaired bytes differ";
  return "";
}

TEST(ClayRepair, PlanExampleOfTheReference) {
  auto code = clay_test::MakeClay("k=4 m=2 d=5");
  ASSERT_TRUE(code);
  const std::vector<std::vector<SubChunkRange>> expect = {{{0, 4}},
                                                          {{4, 4}},
                                                          {{0, 2}, {4, 2}},
                                                          {{2, 2}, {6, 2}},
                                                          {{0, 1}, {2, 1}, {4, 1}, {6, 1}},
                                                          {{1, 1}, {3, 1}, {5, 1}, {7, 1}}};
  for (int lost = 0; lost < 6; ++lost) {
    Result<SubChunkPlan> plan = code->minimum_to_decode({lost}, AllBut(6, lost));
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    EXPECT_EQ(plan->size(), 5u);
    for (const auto& [id, ranges] : *plan) EXPECT_EQ(ranges, expect[lost]) << "lost " << lost;
  }
  // Not a repair: two wanted, or the group incomplete -> first k available, whole.
  Result<SubChunkPlan> plan = code->minimum_to_decode({0, 1}, {2, 3, 4, 5});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 4u);
  for (const auto& [id, ranges] : *plan) EXPECT_EQ(ranges, (std::vector<SubChunkRange>{{0, 8}}));
  plan = code->minimum_to_decode({0}, {2, 3, 4, 5});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 4u);
  // Fewer than k available: EIO.
  EXPECT_EQ(code->minimum_to_decode({0}, {2, 3, 4}).status().code(), EIO);
}

TEST(ClayRepair, EveryCorpusCodeEveryLostChunk) {
  std::mt19937_64 rng(ectest::Seed());
  for (auto [k, m, d] : clay_test::CorpusTriples()) {
    auto code = clay_test::MakeClay(Name(k, m, d));
    ASSERT_TRUE(code) << Name(k, m, d);
    const int n = k + m;
    const int q = code->layout().q();
    const unsigned chunk_size = code->get_chunk_size(k * 3000);
    ChunkMap chunks = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, k * chunk_size));
    for (int lost = 0; lost < n; ++lost) {
      // Ceph's plan from all other chunks (aloof nodes appear when d < k+m-1).
      Result<SubChunkPlan> plan = code->minimum_to_decode({lost}, AllBut(n, lost));
      ASSERT_TRUE(plan.ok());
      ASSERT_EQ(plan->size(), static_cast<std::size_t>(d));
      std::size_t sent = 0;
      EXPECT_EQ(RepairThroughDecode(*code, chunks, lost, *plan, &sent), "")
          << Name(k, m, d) << " lost " << lost;
      EXPECT_EQ(sent, static_cast<std::size_t>(d) * chunk_size / q)
          << Name(k, m, d) << " lost " << lost;
      // A random helper set: the group plus random others, so the aloof nodes vary.
      std::vector<int> others;
      const std::vector<int> peers = code->layout().group_peers(lost);
      for (int id = 0; id < n; ++id)
        if (id != lost && std::find(peers.begin(), peers.end(), id) == peers.end())
          others.push_back(id);
      std::shuffle(others.begin(), others.end(), rng);
      ShardSet available(peers.begin(), peers.end());
      for (int id : others)
        if (available.size() < static_cast<std::size_t>(d)) available.insert(id);
      plan = code->minimum_to_decode({lost}, available);
      ASSERT_TRUE(plan.ok());
      EXPECT_EQ(RepairThroughDecode(*code, chunks, lost, *plan, &sent), "")
          << Name(k, m, d) << " lost " << lost << " random helpers";
    }
  }
}

TEST(ClayRepair, PartialRepairOfRandomRanges) {
  std::mt19937_64 rng(ectest::Seed() + 1);
  for (auto [k, m, d] : clay_test::CorpusTriples()) {
    auto code = clay_test::MakeClay(Name(k, m, d));
    ASSERT_TRUE(code);
    const int n = k + m;
    const int z = static_cast<int>(code->get_sub_chunk_count());
    const unsigned chunk_size = code->get_chunk_size(k * 1000);
    const std::size_t sub = chunk_size / z;
    ChunkMap chunks = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, k * chunk_size));
    for (int trial = 0; trial < 6; ++trial) {
      const int lost = static_cast<int>(rng() % n);
      // Helpers: the group plus random others (aloof nodes when d < k+m-1).
      const std::vector<int> peers = code->layout().group_peers(lost);
      ShardSet helpers(peers.begin(), peers.end());
      while (helpers.size() < static_cast<std::size_t>(d)) {
        const int id = static_cast<int>(rng() % n);
        if (id != lost) helpers.insert(id);
      }
      const int first = static_cast<int>(rng() % z);
      const int count = 1 + static_cast<int>(rng() % std::min(z - first, trial < 3 ? 3 : z));
      auto plan = code->plan_repair(lost, {first, count}, helpers);
      ASSERT_TRUE(plan.ok()) << plan.status().ToString();
      auto full = code->plan_repair(lost, {0, z}, helpers);
      ASSERT_TRUE(full.ok());
      EXPECT_LE((*plan)->sub_chunks_read, (*full)->sub_chunks_read);
      EXPECT_EQ((*full)->sub_chunks_read, static_cast<long long>(d) * z / code->layout().q());
      const std::vector<SubChunkRange> repair_ranges =
          code->layout().repair_sub_chunks(code->layout().node_of_chunk(lost));
      ConstChunkSpans helper_data;
      std::vector<Buffer> keep;
      for (const auto& [id, ranges] : (*plan)->reads) {
        // Every sub-chunk read is one a full repair reads too.
        for (const auto& [f, c] : ranges) {
          for (int s = f; s < f + c; ++s) {
            bool inside = false;
            for (const auto& [rf, rc] : repair_ranges) inside |= s >= rf && s < rf + rc;
            EXPECT_TRUE(inside) << "helper " << id << " reads sub-chunk " << s;
          }
        }
        keep.push_back(Gather(chunks.at(id), ranges, sub));
        helper_data[id] = keep.back().span();
      }
      Buffer out = Buffer::Allocate(count * sub, false);
      Status s = code->repair(**plan, helper_data, chunk_size, out.span());
      ASSERT_TRUE(s.ok()) << s.ToString();
      EXPECT_TRUE(SameBytes(out.span(), chunks.at(lost).Slice(first * sub, count * sub).span()))
          << Name(k, m, d) << " lost " << lost << " range (" << first << "," << count << ")";
    }
  }
}

TEST(ClayRepair, PartialRepairOfOneSubChunkReadsLittle) {
  auto code = clay_test::MakeClay("k=10 m=4 d=13");
  ASSERT_TRUE(code);
  ShardSet helpers = AllBut(14, 0);
  auto one = code->plan_repair(0, {17, 1}, helpers);
  auto full = code->plan_repair(0, {0, 256}, helpers);
  ASSERT_TRUE(one.ok() && full.ok());
  EXPECT_EQ((*full)->sub_chunks_read, 13 * 64);
  // q-1 group peers send 1 each; in the 3 other groups the dot sends q and the others 1 (virtual
  // nodes send nothing). The exact count depends on which nodes are dots of the plane.
  EXPECT_LE((*one)->sub_chunks_read, 3 + 3 * (4 + 3));
  EXPECT_GE((*one)->sub_chunks_read, 3 + 3);
}

TEST(ClayRepair, BadHelperBuffersAreRejected) {
  std::mt19937_64 rng(ectest::Seed() + 2);
  auto code = clay_test::MakeClay("k=4 m=3 d=5");
  ASSERT_TRUE(code);
  const unsigned chunk_size = code->get_chunk_size(4 * 4096);
  const std::size_t sub = chunk_size / code->get_sub_chunk_count();
  ChunkMap chunks = clay_test::EncodeAll(*code, clay_test::RandomBuffer(rng, 4 * chunk_size));
  const int lost = 2;
  Result<SubChunkPlan> plan = code->minimum_to_decode({lost}, AllBut(7, lost));
  ASSERT_TRUE(plan.ok());
  ChunkMap helpers;
  for (const auto& [id, ranges] : *plan) helpers[id] = Gather(chunks.at(id), ranges, sub);
  ChunkMap decoded;
  // One helper a sub-chunk short.
  {
    ChunkMap bad = helpers;
    const int id = bad.begin()->first;
    bad[id] = bad[id].Slice(0, bad[id].size() - sub);
    Status s = code->decode({lost}, bad, &decoded, chunk_size);
    EXPECT_EQ(s.code(), EINVAL) << s.ToString();
  }
  // One helper a byte short.
  {
    ChunkMap bad = helpers;
    const int id = std::prev(bad.end())->first;
    bad[id] = bad[id].Slice(0, bad[id].size() - 1);
    EXPECT_EQ(code->decode({lost}, bad, &decoded, chunk_size).code(), EINVAL);
  }
  // A chunk size that is not a multiple of the sub-chunk count.
  EXPECT_EQ(code->decode({lost}, helpers, &decoded, chunk_size + 1).code(), EINVAL);
  // Partial buffers for a decode that is not a repair (two chunks wanted).
  EXPECT_EQ(code->decode({lost, 0}, helpers, &decoded, chunk_size).code(), EINVAL);
  // An extra helper (d+1 partial buffers).
  {
    ChunkMap bad = helpers;
    for (int id = 0; id < 7; ++id)
      if (id != lost && !bad.count(id)) bad[id] = Gather(chunks.at(id), plan->begin()->second, sub);
    EXPECT_EQ(code->decode({lost}, bad, &decoded, chunk_size).code(), EINVAL);
  }
  // The good set works.
  Status s = code->decode({lost}, helpers, &decoded, chunk_size);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(SameBytes(decoded.at(lost), chunks.at(lost)));

  // repair(): wrong output size, missing helper, extra helper, bad lengths.
  auto program = code->plan_repair(lost, {3, 5}, ShardSet{0, 1, 3, 4, 5});
  ASSERT_TRUE(program.ok());
  ConstChunkSpans data;
  std::vector<Buffer> keep;
  for (const auto& [id, ranges] : (*program)->reads) {
    keep.push_back(Gather(chunks.at(id), ranges, sub));
    data[id] = keep.back().span();
  }
  Buffer out = Buffer::Allocate(5 * sub, false);
  EXPECT_TRUE(code->repair(**program, data, chunk_size, out.span()).ok());
  EXPECT_EQ(code->repair(**program, data, chunk_size, out.span().first(4 * sub)).code(), EINVAL);
  EXPECT_EQ(code->repair(**program, data, chunk_size + 16, out.span()).code(), EINVAL);
  EXPECT_EQ(code->repair(**program, data, 0, out.span()).code(), EINVAL);
  {
    ConstChunkSpans bad = data;
    bad.erase(bad.begin());
    EXPECT_EQ(code->repair(**program, bad, chunk_size, out.span()).code(), EINVAL);
    bad = data;
    bad[6] = data.begin()->second;
    EXPECT_EQ(code->repair(**program, bad, chunk_size, out.span()).code(), EINVAL);
    bad = data;
    bad.begin()->second = bad.begin()->second.first(bad.begin()->second.size() - 32);
    EXPECT_EQ(code->repair(**program, bad, chunk_size, out.span()).code(), EINVAL);
  }
  // plan_repair(): helper sets and ranges that cannot work.
  EXPECT_EQ(code->plan_repair(lost, {0, 16}, ShardSet{0, 1, 4, 5, 6}).status().code(), EINVAL);
  EXPECT_EQ(code->plan_repair(lost, {0, 16}, ShardSet{0, 1, 3, 4}).status().code(), EINVAL);
  EXPECT_EQ(code->plan_repair(lost, {0, 16}, ShardSet{0, 1, 2, 3, 4}).status().code(), EINVAL);
  EXPECT_EQ(code->plan_repair(lost, {10, 7}, ShardSet{0, 1, 3, 4, 5}).status().code(), EINVAL);
  EXPECT_EQ(code->plan_repair(lost, {0, 0}, ShardSet{0, 1, 3, 4, 5}).status().code(), EINVAL);
  EXPECT_EQ(code->plan_repair(9, {0, 1}, ShardSet{0, 1, 3, 4, 5}).status().code(), EINVAL);
}

}  // namespace
}  // namespace ec
