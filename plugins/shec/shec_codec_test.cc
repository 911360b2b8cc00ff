// Encode against a word-by-word reference (w = 8, 16, 32), and decode of every erasure pattern of
// small profiles: every pattern of up to c losses must decode; a larger pattern decodes exactly
// when minimum_to_decode finds a plan, and then gives back the original bytes.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "plugins/shec/shec_test_util.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

using shec_test::MakeCode;
using shec_test::Name;

bool Same(const Buffer& a, const Buffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

TEST(ShecCodec, EncodeMatchesReferenceForEveryWordSize) {
  std::mt19937_64 rng(ectest::Seed());
  for (const char* profile :
       {"k=4 m=3 c=2", "k=4 m=3 c=2 w=16", "k=6 m=4 c=3 w=32", "k=5 m=2 c=1 technique=single w=16",
        "k=12 m=7 c=4", "k=1 m=1 c=1", "k=8 m=4 c=3 technique=single w=32"}) {
    SCOPED_TRACE(profile);
    auto code = MakeCode(profile);
    ASSERT_TRUE(code);
    const int k = static_cast<int>(code->get_data_chunk_count());
    const std::size_t len = code->get_chunk_size(4651 * k) + 16;  // a length no stripe gives
    shec_test::EncodedStripe s = shec_test::Encode(*code, len, rng);
    std::vector<Buffer> data(s.chunks.begin(), s.chunks.begin() + k);
    auto expected = shec_test::ReferenceParity(*code, data);
    for (std::size_t j = 0; j < expected.size(); ++j) {
      EXPECT_EQ(0, std::memcmp(expected[j].data(), s.chunks[k + j].data(), len)) << "parity " << j;
    }
  }
}

TEST(ShecCodec, MisalignedBuffersGiveTheSameBytes) {
  std::mt19937_64 rng(ectest::Seed());
  for (const char* profile : {"k=4 m=3 c=2", "k=4 m=3 c=2 w=16", "k=4 m=3 c=2 w=32"}) {
    SCOPED_TRACE(profile);
    auto code = MakeCode(profile);
    ASSERT_TRUE(code);
    const std::size_t len = 256;
    shec_test::EncodedStripe s = shec_test::Encode(*code, len, rng);
    // Copies 4 bytes past an aligned start: rebuild chunk 0 and parity 6 from them.
    std::vector<Buffer> shifted;
    ConstChunkSpans in;
    for (int id = 1; id < 6; ++id) {
      Buffer b = Buffer::Allocate(len + 4, true);
      std::memcpy(b.data() + 4, s.chunks[id].data(), len);
      shifted.push_back(b);
      in[id] = std::span<const std::byte>(b.data() + 4, len);
    }
    Buffer out = Buffer::Allocate(2 * len + 8, true);
    ChunkSpans outs = {{0, std::span<std::byte>(out.data() + 4, len)},
                       {6, std::span<std::byte>(out.data() + len + 8, len)}};
    Status st = code->decode_chunks({0, 6}, in, outs);
    ASSERT_TRUE(st.ok()) << st.ToString();
    EXPECT_EQ(0, std::memcmp(outs[0].data(), s.chunks[0].data(), len));
    EXPECT_EQ(0, std::memcmp(outs[6].data(), s.chunks[6].data(), len));
  }
}

// Every erasure pattern of 1..m chunks, through decode() with every other chunk given, and
// through decode() with only the chunks minimum_to_decode names.
void CheckEveryPattern(const std::string& profile) {
  SCOPED_TRACE(profile);
  std::mt19937_64 rng(ectest::Seed());
  auto code = MakeCode(profile);
  ASSERT_TRUE(code);
  const int n = static_cast<int>(code->get_chunk_count());
  const int m = static_cast<int>(code->get_coding_chunk_count());
  const std::size_t len = code->get_chunk_size(1000 * code->get_data_chunk_count());
  shec_test::EncodedStripe s = shec_test::Encode(*code, len, rng);
  int decodable = 0, patterns = 0;
  shec_test::ForEachSubset(n, m, [&](const std::vector<int>& erased) {
    ++patterns;
    ShardSet lost(erased.begin(), erased.end());
    ShardSet available;
    ChunkMap chunks;
    for (int id = 0; id < n; ++id) {
      if (lost.count(id)) continue;
      available.insert(id);
      chunks[id] = s.chunks[id];
    }
    Result<SubChunkPlan> plan = code->minimum_to_decode(lost, available);
    ChunkMap decoded;
    Status st = code->decode(lost, chunks, &decoded, len);
    if (static_cast<int>(erased.size()) <= code->c()) {
      EXPECT_TRUE(plan.ok()) << "c=" << code->c() << " losses must decode: " << Name(erased);
    }
    ASSERT_EQ(plan.ok(), st.ok()) << Name(erased) << " plan: " << plan.status().ToString()
                                  << " decode: " << st.ToString();
    if (!plan.ok()) {
      EXPECT_EQ(plan.status().code(), EIO);
      EXPECT_EQ(st.code(), EIO);
      return;
    }
    ++decodable;
    for (int id : erased) {
      ASSERT_TRUE(decoded.count(id) && Same(decoded.at(id), s.chunks[id]))
          << "chunk " << id << " of " << Name(erased);
    }
    // Only the planned chunks.
    ChunkMap minimal;
    for (const auto& [id, ranges] : *plan) {
      EXPECT_EQ(ranges, (std::vector<SubChunkRange>{{0, 1}}));
      minimal[id] = s.chunks[id];
    }
    ChunkMap again;
    st = code->decode(lost, minimal, &again, len);
    ASSERT_TRUE(st.ok()) << Name(erased) << ": " << st.ToString();
    for (int id : erased) {
      ASSERT_TRUE(again.count(id) && Same(again.at(id), s.chunks[id]))
          << "chunk " << id << " of " << Name(erased) << " from the plan's chunks";
    }
  });
  std::cout << "[shec] " << profile << ": " << decodable << " of " << patterns
            << " patterns of up to m losses decode\n";
  EXPECT_GT(decodable, 0);
}

TEST(ShecCodec, EveryErasurePatternMultiple) {
  for (const char* p : {"k=4 m=3 c=2", "k=4 m=2 c=2", "k=3 m=2 c=1", "k=5 m=2 c=1", "k=2 m=1 c=1",
                        "k=1 m=1 c=1", "k=6 m=4 c=3", "k=8 m=4 c=2"}) {
    CheckEveryPattern(p);
  }
}

TEST(ShecCodec, EveryErasurePatternSingleAndWideWords) {
  for (const char* p : {"k=4 m=3 c=2 technique=single", "k=6 m=3 c=2 technique=single",
                        "k=4 m=3 c=2 w=16", "k=5 m=3 c=2 w=32 technique=single"}) {
    CheckEveryPattern(p);
  }
}

TEST(ShecCodec, BufferErrors) {
  auto code = MakeCode("k=4 m=3 c=2 w=16");
  ASSERT_TRUE(code);
  Buffer a = Buffer::Allocate(64), b = Buffer::Allocate(64), odd = Buffer::Allocate(63);
  // Lengths must agree and be whole w/8-byte words.
  EXPECT_EQ(code->encode_chunks({{0, a.span()}}, {{4, odd.span()}}).code(), EINVAL);
  EXPECT_EQ(code->encode_chunks({{0, odd.span()}}, {{4, odd.span()}}).code(), EINVAL);
  // A data chunk cannot be an output; ids must exist.
  EXPECT_EQ(code->encode_chunks({{0, a.span()}}, {{1, b.span()}}).code(), EINVAL);
  EXPECT_EQ(code->encode_chunks({{0, a.span()}}, {{7, b.span()}}).code(), EINVAL);
  // Chunk 0 from chunk 1 alone cannot be done.
  EXPECT_EQ(code->decode_chunks({0}, {{1, a.span()}}, {{0, b.span()}}).code(), EIO);
  EXPECT_EQ(code->minimum_to_decode({9}, {0, 1}).status().code(), EINVAL);
  EXPECT_EQ(code->minimum_to_decode({0}, {1}).status().code(), EIO);
}

}  // namespace
}  // namespace ec
