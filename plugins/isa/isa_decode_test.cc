// Decode tests of the isa plugin: every erasure pattern, the XOR paths, mappings, the
// decode-table cache under concurrency, and validation of bad buffers.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "plugins/isa/isa_code.h"
#include "plugins/isa/isa_test_util.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

using ectest::Seed;
using isa::Technique;
using isa_test::DecodeMatches;
using isa_test::EncodeAll;
using isa_test::FillData;
using isa_test::ForEachSubset;
using isa_test::MakeCode;
using isa_test::PatternName;
using isa_test::RandomBytes;
using isa_test::Stripe;

// ---------------------------------------------------------------------------------------------
// Decode

TEST(IsaDecode, EveryErasurePatternUpToM) {
  const std::uint64_t seed = Seed();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::pair<int, int> geometries[] = {{2, 1}, {2, 2}, {3, 1},  {3, 2},  {4, 2}, {4, 3},
                                            {7, 3}, {8, 4}, {10, 4}, {12, 4}, {21, 4}};
  for (Technique t : {Technique::kReedSolVan, Technique::kCauchy}) {
    for (const auto& geometry : geometries) {
      // Plain copies: lambdas below use them (clang 14 does not capture structured bindings).
      const int k = geometry.first;
      const int m = geometry.second;
      auto code = MakeCode("k=" + std::to_string(k) + " m=" + std::to_string(m) +
                           " technique=" + std::string(isa::TechniqueName(t)));
      ASSERT_TRUE(code);
      Stripe s(k + m, 96);
      FillData(*code, s, rng);
      ASSERT_TRUE(EncodeAll(*code, s).ok());
      int patterns = 0;
      ForEachSubset(k + m, m, [&](const std::vector<int>& erased) {
        ++patterns;
        EXPECT_TRUE(DecodeMatches(*code, s, erased))
            << isa::TechniqueName(t) << " k=" << k << " m=" << m << " " << PatternName(erased);
      });
      EXPECT_GT(patterns, 0);
    }
  }
}

TEST(IsaDecode, ThroughDecodeAndDecodeConcat) {
  std::mt19937_64 rng(Seed());
  auto code = MakeCode("k=4 m=2 technique=cauchy");
  ASSERT_TRUE(code);
  auto input = RandomBytes(rng, 10000);
  ChunkMap all;
  ASSERT_TRUE(code->encode({0, 1, 2, 3, 4, 5}, AsBytes(input.data(), input.size()), &all).ok());
  ChunkMap avail = all;
  avail.erase(1);
  avail.erase(2);
  ChunkMap decoded;
  ASSERT_TRUE(code->decode({1}, avail, &decoded, all[0].size()).ok());
  ASSERT_TRUE(decoded.count(1));
  EXPECT_EQ(std::memcmp(decoded[1].data(), all[1].data(), all[1].size()), 0);
  Buffer concat;
  ASSERT_TRUE(code->decode_concat({}, avail, &concat).ok());
  ASSERT_GE(concat.size(), input.size());
  EXPECT_EQ(std::memcmp(concat.data(), input.data(), input.size()), 0);
  avail.erase(3);
  EXPECT_EQ(code->decode({1}, avail, &decoded, all[0].size()).code(), EIO);
}

TEST(IsaDecode, SingleParityXorBothTechniques) {
  std::mt19937_64 rng(Seed());
  for (const char* t : {"reed_sol_van", "cauchy"}) {
    for (int k : {2, 3, 5, 9, 40}) {
      if (k > 32 && std::string(t) == "reed_sol_van") continue;
      SCOPED_TRACE(std::string(t) + " k=" + std::to_string(k));
      auto code = MakeCode("k=" + std::to_string(k) + " m=1 technique=" + t);
      ASSERT_TRUE(code);
      for (std::size_t len : {std::size_t{4096}, std::size_t{100}}) {
        Stripe s(k + 1, len);
        FillData(*code, s, rng);
        ASSERT_TRUE(EncodeAll(*code, s).ok());
        std::vector<std::uint8_t> expect(len, 0);
        for (int i = 0; i < k; ++i)
          for (std::size_t b = 0; b < len; ++b) expect[b] ^= s.chunk(i)[b];
        EXPECT_EQ(s.copy(k), expect);
        for (int e = 0; e <= k; ++e) EXPECT_TRUE(DecodeMatches(*code, s, {e})) << e;
      }
      EXPECT_EQ(code->codec().cached_decode_tables(), 0u) << "m=1 must not use the matrix path";
    }
  }
}

TEST(IsaDecode, WithAMapping) {
  std::mt19937_64 rng(Seed());
  auto code = MakeCode("k=4 m=2 mapping=_DD_DD");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->get_chunk_mapping(), (std::vector<int>{1, 2, 4, 5, 0, 3}));
  for (unsigned i = 0; i < 6; ++i) EXPECT_EQ(code->piece_index(code->chunk_index(i)), int(i));
  auto input = RandomBytes(rng, 4 * 256);
  ChunkMap chunks;
  ASSERT_TRUE(code->encode({0, 1, 2, 3, 4, 5}, AsBytes(input.data(), input.size()), &chunks).ok());
  const int data_ids[] = {1, 2, 4, 5};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::memcmp(chunks[data_ids[i]].data(), input.data() + i * 256, 256), 0) << i;
  }
  // Parity 0 of reed_sol_van is the XOR of the data; it lives at chunk id 0.
  std::vector<std::uint8_t> x(256, 0);
  for (int i = 0; i < 4; ++i)
    for (int b = 0; b < 256; ++b) x[b] ^= input[i * 256 + b];
  EXPECT_EQ(std::memcmp(chunks[0].data(), x.data(), 256), 0);
  Stripe s(6, 256);
  for (int id = 0; id < 6; ++id) std::memcpy(s.chunk(id), chunks[id].data(), 256);
  ForEachSubset(6, 2, [&](const std::vector<int>& erased) {
    EXPECT_TRUE(DecodeMatches(*code, s, erased)) << PatternName(erased);
  });
}

TEST(IsaDecode, TablesAreCachedPerErasurePattern) {
  std::mt19937_64 rng(Seed());
  auto code = MakeCode("k=4 m=2 technique=cauchy");
  ASSERT_TRUE(code);
  Stripe s(6, 256);
  FillData(*code, s, rng);
  ASSERT_TRUE(EncodeAll(*code, s).ok());
  const gf::MatrixCodec& codec = code->codec();
  EXPECT_EQ(codec.cached_decode_tables(), 0u);
  ASSERT_TRUE(DecodeMatches(*code, s, {0, 1}));
  EXPECT_EQ(codec.cached_decode_tables(), 1u);
  ASSERT_TRUE(DecodeMatches(*code, s, {0, 1}));  // a hit: no new entry
  EXPECT_EQ(codec.cached_decode_tables(), 1u);
  ASSERT_TRUE(DecodeMatches(*code, s, {0, 2}));
  EXPECT_EQ(codec.cached_decode_tables(), 2u);
  ASSERT_TRUE(DecodeMatches(*code, s, {5}));
  EXPECT_EQ(codec.cached_decode_tables(), 3u);
  ASSERT_TRUE(DecodeMatches(*code, s, {0, 1}));
  EXPECT_EQ(codec.cached_decode_tables(), 3u);

  // Vandermonde rebuilds one data chunk or parity 0 by XOR, without tables.
  auto rs = MakeCode("k=4 m=2");
  ASSERT_TRUE(rs);
  Stripe r(6, 256);
  FillData(*rs, r, rng);
  ASSERT_TRUE(EncodeAll(*rs, r).ok());
  for (int e = 0; e <= 4; ++e) ASSERT_TRUE(DecodeMatches(*rs, r, {e}));
  EXPECT_EQ(rs->codec().cached_decode_tables(), 0u);
  ASSERT_TRUE(DecodeMatches(*rs, r, {5}));
  EXPECT_EQ(rs->codec().cached_decode_tables(), 1u);
}

TEST(IsaDecode, ConcurrentDecodesGiveCorrectBytes) {
  const std::uint64_t seed = Seed();
  std::mt19937_64 rng(seed);
  auto code = MakeCode("k=8 m=3 technique=cauchy");
  ASSERT_TRUE(code);
  Stripe s(11, 4096);
  FillData(*code, s, rng);
  ASSERT_TRUE(EncodeAll(*code, s).ok());
  std::vector<std::vector<int>> patterns;
  ForEachSubset(11, 3, [&](const std::vector<int>& e) { patterns.push_back(e); });
  std::atomic<int> failures{0};
  std::atomic<int> decodes{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 local(seed + 1 + t);
      for (int i = 0; i < 300; ++i) {
        const auto& erased = patterns[local() % patterns.size()];
        if (!DecodeMatches(*code, s, erased)) ++failures;
        ++decodes;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(decodes.load(), 1800);
  EXPECT_GT(code->codec().cached_decode_tables(), 1u);
}

// ---------------------------------------------------------------------------------------------
// Buffer validation: every bad call is a clear error, never a crash.

TEST(IsaBuffers, BadCallsAreErrors) {
  auto code = MakeCode("k=4 m=2");
  ASSERT_TRUE(code);
  Stripe s(6, 128);
  std::vector<std::uint8_t> shorter(64), empty_buf(1);
  std::span<std::byte> short_span(reinterpret_cast<std::byte*>(shorter.data()), 64);
  std::span<std::byte> empty_span(reinterpret_cast<std::byte*>(empty_buf.data()), 0);
  auto expect_error = [](const Status& st, int code_expected, const std::string& needle) {
    EXPECT_EQ(st.code(), code_expected) << st.ToString();
    EXPECT_NE(st.message().find(needle), std::string::npos) << st.message();
  };
  // encode_chunks
  expect_error(code->encode_chunks({{0, s.span(0)}, {1, short_span}}, {{4, s.span(4)}}), EINVAL,
               "chunk 1 has 64 bytes");
  expect_error(code->encode_chunks({{0, empty_span}}, {{4, empty_span}}), EINVAL, "empty");
  expect_error(code->encode_chunks({{6, s.span(0)}}, {{4, s.span(4)}}), EINVAL, "out of range");
  expect_error(code->encode_chunks({{0, s.span(0)}}, {{-1, s.span(4)}}), EINVAL, "out of range");
  expect_error(code->encode_chunks({{4, s.span(4)}}, {{5, s.span(5)}}), EINVAL,
               "chunk 4 is a parity chunk");
  expect_error(code->encode_chunks({{0, s.span(0)}}, {{1, s.span(1)}}), EINVAL,
               "chunk 1 is a data chunk");
  expect_error(code->encode_chunks({{5, s.span(5)}}, {}), EINVAL, "chunk 5 is a parity chunk");
  // decode_chunks
  ConstChunkSpans five;
  for (int id = 0; id < 5; ++id) five[id] = s.span(id);
  expect_error(code->decode_chunks({5}, five, {}), EINVAL, "wanted chunk 5");
  expect_error(code->decode_chunks({9}, five, {}), EINVAL, "out of range");
  expect_error(code->decode_chunks({4}, five, {{4, s.span(4)}}), EINVAL,
               "both an input and an output");
  expect_error(code->decode_chunks({5}, five, {{5, short_span}}), EINVAL, "has 64 bytes");
  expect_error(code->decode_chunks({4, 5}, {{0, s.span(0)}, {1, s.span(1)}, {2, s.span(2)}},
                                   {{4, s.span(4)}, {5, s.span(5)}}),
               EIO, "3 chunks available, 4 needed");
  // decode with chunks of different sizes
  ChunkMap chunks{{0, Buffer::Allocate(128)},
                  {1, Buffer::Allocate(64)},
                  {2, Buffer::Allocate(128)},
                  {3, Buffer::Allocate(128)}};
  ChunkMap decoded;
  EXPECT_EQ(code->decode({4}, chunks, &decoded, 128).code(), EINVAL);
  // a code that was never initialised, or whose init failed
  ErasureCodeIsa fresh;
  expect_error(fresh.encode_chunks({{0, s.span(0)}}, {{1, s.span(1)}}), EINVAL, "not initialised");
  Profile bad{{"k", "1"}};
  EXPECT_FALSE(fresh.init(bad).ok());
  expect_error(fresh.decode_chunks({}, {{0, s.span(0)}}, {{1, s.span(1)}}), EINVAL,
               "not initialised");
  // nothing to do is fine
  EXPECT_TRUE(code->decode_chunks({0}, five, {}).ok());
  EXPECT_TRUE(code->encode_chunks({}, {}).ok());
}

}  // namespace
}  // namespace ec
