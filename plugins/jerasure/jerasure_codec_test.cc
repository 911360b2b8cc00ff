// jerasure plugin: encode/decode. Round trips over every erasure pattern, the ISA-L fast path
// and the cached bit-matrix schedules against plain jerasure and the GF reference, buffer
// validation, and a quick speed comparison. Random inputs print their seed (replay with
// EC_TEST_SEED=<seed>).
#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <functional>
#include <iostream>
#include <thread>

#include "ec/gf.h"
#include "plugins/jerasure/bitmatrix_code.h"
#include "plugins/jerasure/jerasure_rs.h"
#include "plugins/jerasure/jerasure_test_util.h"
#include "tests/support/test_env.h"

extern "C" {
#include <jerasure.h>
#include <reed_sol.h>
}

namespace ec::jerasure {
namespace {

using ectest::Seed;
using testing::Bytes;
using testing::MakeCode;
using testing::RandomBytes;
using testing::SameBytes;

// A code of the concrete class, for the accessors the interface does not have.
template <typename T>
std::unique_ptr<T> MakeTyped(const std::string& text) {
  Result<Profile> profile = ParseProfile(text);
  EXPECT_TRUE(profile.ok());
  std::unique_ptr<JerasureCode> code = MakeJerasureCode(profile->at("technique"));
  Status s = code->init(*profile);
  EXPECT_TRUE(s.ok()) << text << ": " << s.message();
  if (!s.ok() || dynamic_cast<T*>(code.get()) == nullptr) return nullptr;
  return std::unique_ptr<T>(static_cast<T*>(code.release()));
}

// Every subset of {0..n-1} with 1..max_size elements.
std::vector<ShardSet> ErasurePatterns(int n, int max_size) {
  std::vector<ShardSet> out;
  for (unsigned mask = 1; mask < (1u << n); ++mask) {
    if (std::popcount(mask) > max_size) continue;
    ShardSet s;
    for (int i = 0; i < n; ++i)
      if (mask & (1u << i)) s.insert(i);
    out.push_back(s);
  }
  return out;
}

ShardSet AllIds(const ErasureCodeInterface& code) {
  ShardSet ids;
  for (unsigned i = 0; i < code.get_chunk_count(); ++i) ids.insert(static_cast<int>(i));
  return ids;
}

const char* kRoundTripProfiles[] = {
    "technique=reed_sol_van k=4 m=3",
    "technique=reed_sol_van k=3 m=2 w=16",
    "technique=reed_sol_van k=3 m=3 w=32",
    "technique=reed_sol_van k=5 m=2 jerasure-per-chunk-alignment=true",
    "technique=reed_sol_van k=2 m=2 mapping=_DD_",
    "technique=reed_sol_r6_op k=4",
    "technique=reed_sol_r6_op k=3 w=16",
    "technique=reed_sol_r6_op k=3 w=32",
    "technique=cauchy_orig k=4 m=3 packetsize=8",
    "technique=cauchy_good k=4 m=3 packetsize=8",
    "technique=cauchy_good k=5 m=2 packetsize=8",
    "technique=cauchy_good k=3 m=3 w=4 packetsize=4 jerasure-per-chunk-alignment=true",
    "technique=cauchy_orig k=3 m=2 w=16 packetsize=4",
    "technique=cauchy_good k=4 m=2 packetsize=8 mapping=D_DD_D",
    "technique=liberation k=5 w=7 packetsize=8",
    "technique=liberation k=3 w=5 packetsize=4",
    "technique=liberation k=4 m=1 w=5 packetsize=4",
    "technique=blaum_roth k=4 w=6 packetsize=8",
    "technique=blaum_roth k=6 w=10 packetsize=4",
    "technique=liber8tion k=6 packetsize=8",
    "technique=liber8tion k=8 packetsize=4",
};

TEST(JerasureCodec, RoundTripEveryErasurePattern) {
  const std::uint64_t seed = Seed();
  std::cout << "seed " << seed << "\n";
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const char* text : kRoundTripProfiles) {
    SCOPED_TRACE(text);
    auto code = MakeCode(text);
    ASSERT_TRUE(code);
    const int n = static_cast<int>(code->get_chunk_count());
    const int m = static_cast<int>(code->get_coding_chunk_count());
    const unsigned width = 1 + rng() % 3000;
    const std::vector<std::uint8_t> content = RandomBytes(rng, width);
    ChunkMap encoded;
    ASSERT_TRUE(code->encode(AllIds(*code), Bytes(content), &encoded).ok());
    ASSERT_EQ(encoded.size(), static_cast<std::size_t>(n));
    const std::size_t chunk = code->get_chunk_size(width);
    for (const auto& [id, buf] : encoded) ASSERT_EQ(buf.size(), chunk);

    Buffer whole;
    ASSERT_TRUE(code->decode_concat({}, encoded, &whole).ok());
    ASSERT_EQ(whole.size(), chunk * code->get_data_chunk_count());
    EXPECT_EQ(std::memcmp(whole.data(), content.data(), width), 0);

    for (const ShardSet& erased : ErasurePatterns(n, m)) {
      ChunkMap available;
      for (const auto& [id, buf] : encoded)
        if (!erased.count(id)) available[id] = buf;
      ChunkMap decoded;
      Status s = code->decode(erased, available, &decoded, chunk);
      ASSERT_TRUE(s.ok()) << s.message();
      for (int id : erased) {
        ASSERT_TRUE(SameBytes(decoded[id], encoded[id])) << "chunk " << id;
      }
      Buffer data;
      ASSERT_TRUE(code->decode_concat({}, available, &data).ok());
      ASSERT_TRUE(SameBytes(data, whole));
    }
  }
}

// blaum_roth w=7 (tolerated for Firefly, w+1 not prime) is not MDS: every decode must either
// rebuild the right bytes or say EIO, never return wrong data.
TEST(JerasureCodec, BlaumRothW7NeverReturnsWrongBytes) {
  std::mt19937_64 rng(7);
  int refused = 0;
  int decoded_ok = 0;
  for (int k = 2; k <= 7; ++k) {
    auto code = MakeCode("technique=blaum_roth w=7 packetsize=4 k=" + std::to_string(k));
    ASSERT_TRUE(code);
    const std::vector<std::uint8_t> content = RandomBytes(rng, 1000);
    ChunkMap encoded;
    ASSERT_TRUE(code->encode(AllIds(*code), Bytes(content), &encoded).ok());
    for (const ShardSet& erased : ErasurePatterns(k + 2, 2)) {
      ChunkMap available;
      for (const auto& [id, buf] : encoded)
        if (!erased.count(id)) available[id] = buf;
      ChunkMap decoded;
      Status s = code->decode(erased, available, &decoded, encoded[0].size());
      if (!s.ok()) {
        EXPECT_EQ(s.code(), EIO) << s.message();
        ++refused;
        continue;
      }
      ++decoded_ok;
      for (int id : erased) EXPECT_TRUE(SameBytes(decoded[id], encoded[id]));
    }
  }
  std::cout << "blaum_roth w=7: " << decoded_ok << " patterns decoded, " << refused
            << " refused as singular\n";
  EXPECT_GT(decoded_ok, 0);
}

std::vector<Buffer> RandomChunks(std::mt19937_64& rng, int count, std::size_t len) {
  std::vector<Buffer> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(Buffer::Allocate(len, false));
    for (std::size_t b = 0; b < len; ++b) out.back().udata()[b] = static_cast<std::uint8_t>(rng());
  }
  return out;
}

// Encodes data pieces 0..k-1 (no mapping) with the interface, returns the m parity buffers.
std::vector<Buffer> EncodeWithPlugin(const ErasureCodeInterface& code,
                                     const std::vector<Buffer>& data, std::size_t len) {
  const int k = static_cast<int>(code.get_data_chunk_count());
  const int m = static_cast<int>(code.get_coding_chunk_count());
  ConstChunkSpans in;
  for (int i = 0; i < k; ++i) in[i] = data[i].span();
  std::vector<Buffer> parity;
  ChunkSpans out;
  for (int j = 0; j < m; ++j) {
    parity.push_back(Buffer::Allocate(len, true));
    out[k + j] = parity.back().span();
  }
  Status s = code.encode_chunks(in, out);
  EXPECT_TRUE(s.ok()) << s.message();
  return parity;
}

TEST(JerasureCodec, IsaFastPathMatchesJerasureAndReference) {
  const std::uint64_t seed = Seed();
  std::cout << "seed " << seed << "\n";
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 40; ++round) {
    const bool raid6 = round % 2 == 1;
    const int k = 2 + static_cast<int>(rng() % 11);
    const int m = raid6 ? 2 : 1 + static_cast<int>(rng() % 4);
    const std::size_t len = 1 + rng() % 5000;
    const std::string text = std::string("technique=") +
                             (raid6 ? "reed_sol_r6_op" : "reed_sol_van") +
                             " k=" + std::to_string(k) + " m=" + std::to_string(m);
    SCOPED_TRACE(text + " len=" + std::to_string(len));
    auto code = MakeTyped<ReedSolomonCode>(text);
    ASSERT_TRUE(code);
    ASSERT_NE(code->matrix_codec(), nullptr);

    int* expected_matrix =
        raid6 ? reed_sol_r6_coding_matrix(k, 8) : reed_sol_vandermonde_coding_matrix(k, m, 8);
    ASSERT_EQ(code->matrix(), std::vector<int>(expected_matrix, expected_matrix + k * m));

    std::vector<Buffer> data = RandomChunks(rng, k, len);
    std::vector<Buffer> fast = EncodeWithPlugin(*code, data, len);

    std::vector<Buffer> plain;
    std::vector<char*> dptr, cptr;
    for (auto& d : data) dptr.push_back(reinterpret_cast<char*>(d.udata()));
    for (int j = 0; j < m; ++j) {
      plain.push_back(Buffer::Allocate(len, true));
      cptr.push_back(reinterpret_cast<char*>(plain.back().udata()));
    }
    if (raid6)
      reed_sol_r6_encode(k, 8, dptr.data(), cptr.data(), static_cast<int>(len));
    else
      jerasure_matrix_encode(k, m, 8, expected_matrix, dptr.data(), cptr.data(),
                             static_cast<int>(len));
    std::free(expected_matrix);

    std::vector<Buffer> reference;
    std::vector<const std::uint8_t*> dref;
    std::vector<std::uint8_t*> cref;
    for (auto& d : data) dref.push_back(d.udata());
    for (int j = 0; j < m; ++j) {
      reference.push_back(Buffer::Allocate(len, true));
      cref.push_back(reference.back().udata());
    }
    std::vector<std::uint8_t> matrix8(code->matrix().begin(), code->matrix().end());
    gf::ReferenceMatrixEncode(k, m, matrix8.data(), dref.data(), cref.data(), len);

    for (int j = 0; j < m; ++j) {
      ASSERT_TRUE(SameBytes(fast[j], plain[j])) << "parity " << j << " vs jerasure";
      ASSERT_TRUE(SameBytes(fast[j], reference[j])) << "parity " << j << " vs reference";
    }
  }
}

// The schedules the plugin runs (compact copies of jerasure's smart schedule for encode, cached
// plans for decode) against jerasure's own schedule encode and lazy decode.
TEST(JerasureCodec, BitmatrixScheduleMatchesJerasure) {
  const std::uint64_t seed = Seed();
  std::cout << "seed " << seed << "\n";
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const char* profiles[] = {
      "technique=cauchy_orig k=5 m=3 packetsize=8",
      "technique=cauchy_good k=6 m=4 packetsize=16",
      "technique=cauchy_good k=4 m=2 w=16 packetsize=8",
      "technique=liberation k=7 w=7 packetsize=8",
      "technique=blaum_roth k=6 w=6 packetsize=8",
      "technique=liber8tion k=8 packetsize=8",
  };
  for (const char* text : profiles) {
    SCOPED_TRACE(text);
    auto code = MakeTyped<BitmatrixCode>(text);
    ASSERT_TRUE(code);
    const int k = static_cast<int>(code->get_data_chunk_count());
    const int m = static_cast<int>(code->get_coding_chunk_count());
    const int w = code->w();
    const int ps = code->packetsize();
    const std::size_t len = static_cast<std::size_t>(w) * ps * (1 + rng() % 5);
    std::vector<Buffer> data = RandomChunks(rng, k, len);
    std::vector<Buffer> fast = EncodeWithPlugin(*code, data, len);

    std::vector<int> bitmatrix = code->bitmatrix();
    int** schedule = jerasure_smart_bitmatrix_to_schedule(k, m, w, bitmatrix.data());
    std::vector<Buffer> plain;
    std::vector<char*> ptrs;
    for (auto& d : data) ptrs.push_back(reinterpret_cast<char*>(d.udata()));
    for (int j = 0; j < m; ++j) {
      plain.push_back(Buffer::Allocate(len, true));
      ptrs.push_back(reinterpret_cast<char*>(plain.back().udata()));
    }
    jerasure_schedule_encode(k, m, w, schedule, ptrs.data(), ptrs.data() + k, static_cast<int>(len),
                             ps);
    jerasure_free_schedule(schedule);
    for (int j = 0; j < m; ++j) ASSERT_TRUE(SameBytes(fast[j], plain[j])) << "parity " << j;

    // Decode: the plugin's cached plan and jerasure's lazy decode rebuild the same bytes.
    for (int round = 0; round < 6; ++round) {
      std::vector<int> ids(k + m);
      for (int i = 0; i < k + m; ++i) ids[i] = i;
      std::shuffle(ids.begin(), ids.end(), rng);
      const int lost = 1 + static_cast<int>(rng() % m);
      ShardSet erased(ids.begin(), ids.begin() + lost);

      ConstChunkSpans in;
      ChunkSpans out;
      std::vector<Buffer> rebuilt(k + m);
      std::vector<Buffer> lazy(k + m);
      std::vector<char*> lazy_ptrs(k + m);
      std::vector<int> erasures;
      for (int id = 0; id < k + m; ++id) {
        const Buffer& original = id < k ? data[id] : plain[id - k];
        if (erased.count(id)) {
          rebuilt[id] = Buffer::Allocate(len, true);
          out[id] = rebuilt[id].span();
          lazy[id] = Buffer::Allocate(len, true);
          erasures.push_back(id);
        } else {
          in[id] = original.span();
          lazy[id] = Buffer::Copy(original.span());
        }
        lazy_ptrs[id] = reinterpret_cast<char*>(lazy[id].udata());
      }
      erasures.push_back(-1);
      ASSERT_TRUE(code->decode_chunks(erased, in, out).ok());
      ASSERT_EQ(jerasure_schedule_decode_lazy(k, m, w, bitmatrix.data(), erasures.data(),
                                              lazy_ptrs.data(), lazy_ptrs.data() + k,
                                              static_cast<int>(len), ps, 1),
                0);
      for (int id : erased) {
        const Buffer& original = id < k ? data[id] : plain[id - k];
        ASSERT_TRUE(SameBytes(rebuilt[id], original)) << "chunk " << id;
        ASSERT_TRUE(SameBytes(lazy[id], original)) << "jerasure chunk " << id;
      }
    }
  }
}

TEST(JerasureCodec, DecodeSchedulesAreCached) {
  auto code = MakeTyped<BitmatrixCode>("technique=cauchy_good k=4 m=2 packetsize=8");
  ASSERT_TRUE(code);
  std::mt19937_64 rng(1);
  const std::vector<std::uint8_t> content = RandomBytes(rng, 1000);
  ChunkMap encoded;
  ASSERT_TRUE(code->encode(AllIds(*code), Bytes(content), &encoded).ok());
  auto decode_without = [&](const ShardSet& erased) {
    ChunkMap available;
    for (const auto& [id, buf] : encoded)
      if (!erased.count(id)) available[id] = buf;
    ChunkMap decoded;
    ASSERT_TRUE(code->decode(erased, available, &decoded, encoded[0].size()).ok());
    for (int id : erased) EXPECT_TRUE(SameBytes(decoded[id], encoded[id]));
  };
  EXPECT_EQ(code->cached_decode_schedules(), 0u);
  decode_without({0});
  decode_without({0});
  EXPECT_EQ(code->decode_schedules_built(), 1u);
  EXPECT_EQ(code->cached_decode_schedules(), 1u);
  decode_without({0, 5});
  decode_without({0, 5});
  decode_without({0});
  EXPECT_EQ(code->decode_schedules_built(), 2u);
  EXPECT_EQ(code->cached_decode_schedules(), 2u);

  // The Reed-Solomon fast path caches ISA-L decode tables the same way.
  auto rs = MakeTyped<ReedSolomonCode>("technique=reed_sol_van k=4 m=2");
  ASSERT_TRUE(rs);
  ChunkMap rs_encoded;
  ASSERT_TRUE(rs->encode(AllIds(*rs), Bytes(content), &rs_encoded).ok());
  for (int round = 0; round < 3; ++round) {
    ChunkMap available = rs_encoded;
    available.erase(1);
    ChunkMap decoded;
    ASSERT_TRUE(rs->decode({1}, available, &decoded, rs_encoded[0].size()).ok());
    EXPECT_TRUE(SameBytes(decoded[1], rs_encoded[1]));
  }
  EXPECT_EQ(rs->matrix_codec()->cached_decode_tables(), 1u);
}

TEST(JerasureCodec, BadBuffersAreRefused) {
  auto rs = MakeCode("technique=reed_sol_van k=2 m=1");
  auto rs16 = MakeCode("technique=reed_sol_van k=2 m=1 w=16");
  auto rs32 = MakeCode("technique=reed_sol_r6_op k=2 w=32");
  auto cauchy = MakeCode("technique=cauchy_good k=2 m=1 packetsize=8");
  auto lib = MakeCode("technique=liberation k=2 packetsize=8");
  Buffer a = Buffer::Allocate(256), b = Buffer::Allocate(256), c = Buffer::Allocate(256);
  Buffer d = Buffer::Allocate(256), shorter = Buffer::Allocate(128);
  auto span = [](Buffer& x, std::size_t n) { return std::span<std::byte>(x.data(), n); };

  // Unequal lengths, empty chunks, ids out of range, data id as an output.
  EXPECT_EQ(rs->encode_chunks({{0, a.span()}, {1, shorter.span()}}, {{2, c.span()}}).code(),
            EINVAL);
  EXPECT_EQ(rs->encode_chunks({{0, span(a, 0)}, {1, span(b, 0)}}, {{2, span(c, 0)}}).code(),
            EINVAL);
  EXPECT_EQ(rs->encode_chunks({{0, a.span()}, {7, b.span()}}, {{2, c.span()}}).code(), EINVAL);
  EXPECT_EQ(rs->encode_chunks({{0, a.span()}}, {{1, b.span()}, {2, c.span()}}).code(), EINVAL);
  EXPECT_EQ(rs->encode_chunks({{0, a.span()}, {-1, b.span()}}, {{2, c.span()}}).code(), EINVAL);
  // Lengths the technique cannot process.
  EXPECT_EQ(rs16->encode_chunks({{0, span(a, 255)}, {1, span(b, 255)}}, {{2, span(c, 255)}}).code(),
            EINVAL);
  EXPECT_EQ(rs32->encode_chunks({{0, span(a, 254)}, {1, span(b, 254)}},
                                {{2, span(c, 254)}, {3, span(d, 254)}})
                .code(),
            EINVAL);
  EXPECT_EQ(cauchy->encode_chunks({{0, span(a, 72)}, {1, span(b, 72)}}, {{2, span(c, 72)}}).code(),
            EINVAL);
  EXPECT_EQ(lib->encode_chunks({{0, span(a, 100)}, {1, span(b, 100)}},
                               {{2, span(c, 100)}, {3, span(d, 100)}})
                .code(),
            EINVAL);
  EXPECT_EQ(
      lib->decode_chunks({2}, {{0, span(a, 100)}, {1, span(b, 100)}}, {{2, span(c, 100)}}).code(),
      EINVAL);
  // Any length works for w=8 Reed-Solomon; multiples of w/8 for w=16/32.
  EXPECT_TRUE(rs->encode_chunks({{0, span(a, 3)}, {1, span(b, 3)}}, {{2, span(c, 3)}}).ok());
  EXPECT_TRUE(rs16->encode_chunks({{0, span(a, 6)}, {1, span(b, 6)}}, {{2, span(c, 6)}}).ok());

  // decode: a wanted chunk with no buffer; too few chunks.
  EXPECT_EQ(rs->decode_chunks({2}, {{0, a.span()}, {1, b.span()}}, {}).code(), EINVAL);
  EXPECT_EQ(rs->decode_chunks({0, 1}, {{2, c.span()}}, {{0, a.span()}, {1, b.span()}}).code(), EIO);
  EXPECT_EQ(cauchy->decode_chunks({0, 1}, {{2, c.span()}}, {{0, a.span()}, {1, b.span()}}).code(),
            EIO);
}

TEST(JerasureCodec, DecodeWithFewerThanKChunksIsEio) {
  for (const char* text :
       {"technique=reed_sol_van k=3 m=2", "technique=liberation k=3 packetsize=8"}) {
    SCOPED_TRACE(text);
    auto code = MakeCode(text);
    std::mt19937_64 rng(9);
    const std::vector<std::uint8_t> content = RandomBytes(rng, 500);
    ChunkMap encoded;
    ASSERT_TRUE(code->encode(AllIds(*code), Bytes(content), &encoded).ok());
    ChunkMap two = {{0, encoded[0]}, {3, encoded[3]}};
    ChunkMap decoded;
    EXPECT_EQ(code->decode({2}, two, &decoded, encoded[0].size()).code(), EIO);
    Buffer data;
    EXPECT_EQ(code->decode_concat({}, two, &data).code(), EIO);
    // Wanted chunks that are all present need no decoding.
    EXPECT_TRUE(code->decode({0}, two, &decoded, encoded[0].size()).ok());
  }
}

TEST(JerasureCodec, UnalignedBuffersGiveTheSameBytes) {
  std::mt19937_64 rng(3);
  const char* profiles[] = {"technique=reed_sol_van k=3 m=2 w=16",
                            "technique=reed_sol_van k=3 m=2 w=32",
                            "technique=reed_sol_r6_op k=3 w=16", "technique=reed_sol_van k=3 m=2",
                            "technique=cauchy_good k=3 m=2 packetsize=4"};
  for (const char* text : profiles) {
    SCOPED_TRACE(text);
    auto code = MakeCode(text);
    ASSERT_TRUE(code);
    const std::size_t len = 256;
    std::vector<Buffer> data = RandomChunks(rng, 3, len);
    std::vector<Buffer> aligned = EncodeWithPlugin(*code, data, len);
    // The same bytes at odd addresses.
    Buffer arena = Buffer::Allocate(5 * (len + 8), true);
    ConstChunkSpans in;
    ChunkSpans out;
    for (int i = 0; i < 5; ++i) {
      std::byte* p = arena.data() + i * (len + 8) + 1 + i;
      if (i < 3) {
        std::memcpy(p, data[i].data(), len);
        in[i] = std::span<const std::byte>(p, len);
      } else {
        out[i] = std::span<std::byte>(p, len);
      }
    }
    ASSERT_TRUE(code->encode_chunks(in, out).ok());
    for (int j = 0; j < 2; ++j)
      EXPECT_EQ(std::memcmp(out[3 + j].data(), aligned[j].data(), len), 0);
    // Decode data chunks 0 and 2 from unaligned 1, 3, 4 into unaligned outputs.
    ConstChunkSpans have = {{1, in[1]}, {3, out[3]}, {4, out[4]}};
    Buffer back = Buffer::Allocate(2 * len + 16, true);
    ChunkSpans lost = {{0, std::span<std::byte>(back.data() + 3, len)},
                       {2, std::span<std::byte>(back.data() + len + 9, len)}};
    ASSERT_TRUE(code->decode_chunks({0, 2}, have, lost).ok());
    EXPECT_EQ(std::memcmp(lost[0].data(), data[0].data(), len), 0);
    EXPECT_EQ(std::memcmp(lost[2].data(), data[2].data(), len), 0);
  }
}

TEST(JerasureCodec, AbsentDataChunksAreZerosAndParityOutputsOptional) {
  std::mt19937_64 rng(5);
  for (const char* text : {"technique=reed_sol_van k=3 m=2", "technique=reed_sol_van k=3 m=2 w=16",
                           "technique=cauchy_orig k=3 m=2 packetsize=8"}) {
    SCOPED_TRACE(text);
    auto code = MakeCode(text);
    const std::size_t len = 128;
    std::vector<Buffer> data = RandomChunks(rng, 3, len);
    std::memset(data[1].data(), 0, len);
    std::vector<Buffer> full = EncodeWithPlugin(*code, data, len);
    // encode_chunks without chunk 1 (zeros) and with only parity 4 wanted.
    Buffer p4 = Buffer::Allocate(len, true);
    ASSERT_TRUE(
        code->encode_chunks({{0, data[0].span()}, {2, data[2].span()}}, {{4, p4.span()}}).ok());
    EXPECT_TRUE(SameBytes(p4, full[1]));
    // decode_chunks: chunk 1 in neither map. With enough real chunks it is decoded around...
    Buffer r0 = Buffer::Allocate(len, true);
    ASSERT_TRUE(code->decode_chunks({0},
                                    {{2, data[2].span()}, {3, full[0].span()}, {4, full[1].span()}},
                                    {{0, r0.span()}})
                    .ok());
    EXPECT_TRUE(SameBytes(r0, data[0]));
    // ...and with fewer than k real chunks it is taken as zeros (Ceph's rule).
    Buffer r2 = Buffer::Allocate(len, true);
    ASSERT_TRUE(
        code->decode_chunks({2}, {{0, data[0].span()}, {3, full[0].span()}}, {{2, r2.span()}})
            .ok());
    EXPECT_TRUE(SameBytes(r2, data[2]));
  }
}

TEST(JerasureCodec, ConcurrentDecodesShareTheCaches) {
  const std::uint64_t seed = Seed();
  std::cout << "seed " << seed << "\n";
  for (const char* text :
       {"technique=cauchy_good k=6 m=3 packetsize=16", "technique=reed_sol_van k=6 m=3"}) {
    SCOPED_TRACE(text);
    auto code = MakeCode(text);
    std::mt19937_64 rng(seed);
    const std::vector<std::uint8_t> content = RandomBytes(rng, 20000);
    ChunkMap encoded;
    ASSERT_TRUE(code->encode(AllIds(*code), Bytes(content), &encoded).ok());
    const std::vector<ShardSet> patterns = ErasurePatterns(9, 3);
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        for (std::size_t i = t; i < patterns.size(); i += 2) {
          ChunkMap available;
          for (const auto& [id, buf] : encoded)
            if (!patterns[i].count(id)) available[id] = buf;
          ChunkMap decoded;
          if (!code->decode(patterns[i], available, &decoded, encoded.at(0).size()).ok()) {
            ++failures;
            continue;
          }
          for (int id : patterns[i])
            if (!SameBytes(decoded[id], encoded.at(id))) ++failures;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
  }
}

double MedianSeconds(int runs, const std::function<void()>& fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Not a benchmark (see bench/): a quick, printed comparison on the same data in one process.
// Encode throughput counts k x chunk bytes of data per call.
TEST(JerasureCodec, EncodeSpeedAgainstPlainJerasure) {
  const int k = 4, m = 2;
  const std::size_t len = 1 << 20;
  auto code = MakeTyped<ReedSolomonCode>("technique=reed_sol_van k=4 m=2");
  std::mt19937_64 rng(11);
  std::vector<Buffer> data = RandomChunks(rng, k, len);
  std::vector<Buffer> parity;
  ConstChunkSpans in;
  ChunkSpans out;
  std::vector<char*> dptr, cptr;
  for (int i = 0; i < k; ++i) {
    in[i] = data[i].span();
    dptr.push_back(reinterpret_cast<char*>(data[i].udata()));
  }
  std::vector<Buffer> plain;
  for (int j = 0; j < m; ++j) {
    parity.push_back(Buffer::Allocate(len, true));
    plain.push_back(Buffer::Allocate(len, true));
    out[k + j] = parity.back().span();
    cptr.push_back(reinterpret_cast<char*>(plain.back().udata()));
  }
  std::vector<int> matrix = code->matrix();
  const double ours = MedianSeconds(5, [&] { ASSERT_TRUE(code->encode_chunks(in, out).ok()); });
  const double theirs = MedianSeconds(5, [&] {
    jerasure_matrix_encode(k, m, 8, matrix.data(), dptr.data(), cptr.data(), static_cast<int>(len));
  });
  for (int j = 0; j < m; ++j) ASSERT_TRUE(SameBytes(parity[j], plain[j]));
  const double mib = static_cast<double>(k * len) / (1 << 20);
  std::cout << "encode reed_sol_van k=4 m=2 chunk=1MiB (median of 5, " << mib
            << " MiB of data per call): plugin " << ours * 1e3 << " ms (" << mib / ours
            << " MiB/s), jerasure_matrix_encode " << theirs * 1e3 << " ms (" << mib / theirs
            << " MiB/s), speed-up x" << theirs / ours << "\n";
}

}  // namespace
}  // namespace ec::jerasure
