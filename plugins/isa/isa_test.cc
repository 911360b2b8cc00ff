// Unit tests of the isa plugin: profile parsing and Ceph's messages, chunk sizes, matrices,
// encode against the GF(2^8) reference, the XOR helper, and both ways of registering the plugin.
// Decode and buffer validation are in isa_decode_test.cc, the Ceph corpus in isa_corpus_test.cc.
#include <dlfcn.h>

#include <gtest/gtest.h>

#include <cstring>

#include "ec/gf.h"
#include "plugins/isa/isa_code.h"
#include "plugins/isa/isa_matrix.h"
#include "plugins/isa/isa_plugin.h"
#include "plugins/isa/isa_test_util.h"
#include "plugins/isa/isa_xor.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

using ectest::Seed;
using isa::Technique;
using isa_test::EncodeAll;
using isa_test::ExpectedMatrix;
using isa_test::FillData;
using isa_test::ForEachSubset;
using isa_test::MakeCode;
using isa_test::RandomBytes;
using isa_test::Stripe;

// ---------------------------------------------------------------------------------------------
// Profiles and messages

TEST(IsaProfile, DefaultsAreWrittenBack) {
  ErasureCodeIsa code;
  Profile profile;
  ASSERT_TRUE(code.init(profile).ok());
  EXPECT_EQ(profile, (Profile{{"technique", "reed_sol_van"},
                              {"k", "7"},
                              {"m", "3"},
                              {"crush-root", "default"},
                              {"crush-failure-domain", "host"},
                              {"crush-device-class", ""}}));
  EXPECT_EQ(code.get_profile(), profile);
  EXPECT_EQ(code.get_chunk_count(), 10u);
  EXPECT_EQ(code.get_data_chunk_count(), 7u);
  EXPECT_EQ(code.get_coding_chunk_count(), 3u);
  EXPECT_EQ(code.get_sub_chunk_count(), 1u);
  EXPECT_EQ(code.technique(), Technique::kReedSolVan);
}

TEST(IsaProfile, RoundTripGivesTheSameCode) {
  std::mt19937_64 rng(Seed());
  for (const char* text : {"k=4 m=2 technique=cauchy", "k=5 m=3", "k=3 m=1 technique=cauchy"}) {
    SCOPED_TRACE(text);
    Status st;
    auto a = MakeCode(text, &st);
    ASSERT_TRUE(a) << st.ToString();
    Profile again = a->get_profile();
    ErasureCodeIsa b;
    ASSERT_TRUE(b.init(again).ok());
    EXPECT_EQ(again, a->get_profile());
    EXPECT_EQ(b.get_profile(), a->get_profile());
    EXPECT_EQ(b.coding_matrix(), a->coding_matrix());
    auto input = RandomBytes(rng, 5000);
    ChunkMap ca, cb;
    ShardSet all;
    for (unsigned i = 0; i < a->get_chunk_count(); ++i) all.insert(static_cast<int>(i));
    ASSERT_TRUE(a->encode(all, AsBytes(input.data(), input.size()), &ca).ok());
    ASSERT_TRUE(b.encode(all, AsBytes(input.data(), input.size()), &cb).ok());
    for (int id : all) {
      ASSERT_EQ(ca[id].size(), cb[id].size());
      EXPECT_EQ(std::memcmp(ca[id].data(), cb[id].data(), ca[id].size()), 0) << "chunk " << id;
    }
  }
}

struct MessageCase {
  const char* profile;
  int code;  // positive errno
  const char* message;
};

TEST(IsaProfile, CephMessagesExactly) {
  const MessageCase cases[] = {
      {"technique=foo", ENOENT,
       "technique=foo is not a valid coding technique.  Choose one of the following: "
       "reed_sol_van,cauchy"},
      {"technique=cauchy_good k=4 m=2", ENOENT,
       "technique=cauchy_good is not a valid coding technique.  Choose one of the following: "
       "reed_sol_van,cauchy"},
      {"k=1", EINVAL, "k=1 must be >= 2"},
      {"k=2 m=0", EINVAL, "m=0 must be >= 1"},
      {"technique=cauchy k=-3 m=2", EINVAL, "k=-3 must be >= 2"},
      {"technique=cauchy k=4 m=33", EINVAL,
       "isa: m=33 should be less/equal than 32 : revert to m=32"},
      {"k=33 m=2", EINVAL, "Vandermonde: m=2 should be less/equal than 32 : revert to k=32"},
      {"technique=reed_sol_van k=4 m=5", EINVAL,
       "Vandermonde: m=5 should be less than 5 to guarantee an MDS codec: revert to m=4"},
      {"k=22 m=4", EINVAL,
       "Vandermonde: k=22 should be less than 22 to guarantee an MDS codec with m=4: revert to "
       "k=21"},
      // Several violations: every line, in Ceph's order, each seeing the values reverted so far.
      {"k=40 m=40", EINVAL,
       "isa: m=40 should be less/equal than 32 : revert to m=32\n"
       "Vandermonde: m=32 should be less/equal than 32 : revert to k=32\n"
       "Vandermonde: m=32 should be less than 5 to guarantee an MDS codec: revert to m=4\n"
       "Vandermonde: k=32 should be less than 22 to guarantee an MDS codec with m=4: revert to "
       "k=21"},
      {"k=1 m=9", EINVAL,
       "k=1 must be >= 2\n"
       "Vandermonde: m=9 should be less than 5 to guarantee an MDS codec: revert to m=4"},
      // ecstore additions.
      {"technique=cauchy k=250 m=7", EINVAL,
       "isa: k+m=257 should be less/equal than 256 for a cauchy matrix over GF(2^8)"},
      {"k=4 m=2 mapping=DD__DD__", EINVAL,
       "mapping=DD__DD__ maps 8 chunks instead of the expected 6"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.profile);
    Status st;
    EXPECT_FALSE(MakeCode(c.profile, &st));
    EXPECT_EQ(st.code(), c.code);
    EXPECT_EQ(st.message(), c.message);
  }
}

TEST(IsaProfile, EmptyTechniqueIsInvalidAndAbsentIsDefault) {
  Profile profile{{"technique", ""}};
  ErasureCodeIsa code;
  Status st = code.init(profile);
  EXPECT_EQ(st.code(), ENOENT);
  EXPECT_EQ(st.message(),
            "technique= is not a valid coding technique.  Choose one of the following: "
            "reed_sol_van,cauchy");
}

TEST(IsaProfile, IntegerParseErrorsUseTheDefault) {
  Status st;
  EXPECT_FALSE(MakeCode("k=abc m=2", &st));
  EXPECT_EQ(st.code(), EINVAL);
  EXPECT_EQ(st.message().rfind("could not convert k=abc to int because ", 0), 0u) << st.message();
  EXPECT_NE(st.message().find(", set to default 7"), std::string::npos) << st.message();
  EXPECT_FALSE(MakeCode("m=x", &st));
  EXPECT_NE(st.message().find(", set to default 3"), std::string::npos) << st.message();
}

TEST(IsaProfile, AcceptedLimits) {
  for (const char* text : {"k=32 m=3", "k=21 m=4", "k=2 m=1", "technique=cauchy k=32 m=32",
                           "technique=cauchy k=100 m=5", "technique=cauchy k=224 m=32",
                           "technique=cauchy k=4 m=2 mapping=_DD_DD"}) {
    Status st;
    EXPECT_TRUE(MakeCode(text, &st)) << text << ": " << st.ToString();
  }
}

// ---------------------------------------------------------------------------------------------
// Chunk sizes and matrices

TEST(IsaChunkSize, RoundsCeilOfStripeOverKUpTo32) {
  auto k3 = MakeCode("k=3 m=2");
  ASSERT_TRUE(k3);
  EXPECT_EQ(k3->get_chunk_size(4651), 1568u);
  EXPECT_EQ(k3->get_chunk_size(0), 0u);
  EXPECT_EQ(k3->get_chunk_size(1), 32u);
  for (int k : {2, 3, 4, 7, 10}) {
    auto code = MakeCode("k=" + std::to_string(k) + " m=2");
    ASSERT_TRUE(code);
    for (unsigned sw : {1u, 31u, 96u, 4096u, 4651u, 8192u, 10000u, 65000u, 65536u, 1048577u}) {
      unsigned chunk = code->get_chunk_size(sw);
      unsigned per_chunk = (sw + k - 1) / k;
      EXPECT_EQ(chunk, (per_chunk + 31) / 32 * 32) << "k=" << k << " sw=" << sw;
      EXPECT_EQ(chunk % 32, 0u);
      EXPECT_GE(static_cast<std::uint64_t>(chunk) * k, sw);
    }
  }
}

TEST(IsaMatrix, ReferenceExamples) {
  EXPECT_EQ(isa::IsaCodingMatrix(Technique::kCauchy, 4, 2),
            (std::vector<std::uint8_t>{71, 167, 122, 186, 167, 71, 186, 122}));
  EXPECT_EQ(isa::IsaCodingMatrix(Technique::kReedSolVan, 4, 3),
            (std::vector<std::uint8_t>{1, 1, 1, 1, 1, 2, 4, 8, 1, 4, 16, 64}));
  auto code = MakeCode("k=4 m=2 technique=cauchy");
  ASSERT_TRUE(code);
  EXPECT_EQ(code->coding_matrix(),
            (std::vector<std::uint8_t>{71, 167, 122, 186, 167, 71, 186, 122}));
}

TEST(IsaMatrix, MatchesTheDefinitionForManyGeometries) {
  for (Technique t : {Technique::kReedSolVan, Technique::kCauchy}) {
    for (int k = 1; k <= 40; ++k) {
      for (int m = 1; m <= 8; ++m) {
        EXPECT_EQ(isa::IsaCodingMatrix(t, k, m), ExpectedMatrix(t, k, m))
            << isa::TechniqueName(t) << " k=" << k << " m=" << m;
      }
    }
  }
  EXPECT_EQ(isa::IsaCodingMatrix(Technique::kCauchy, 200, 56),
            ExpectedMatrix(Technique::kCauchy, 200, 56));
}

TEST(IsaMatrix, SingleParityIsXorForBothTechniques) {
  for (Technique t : {Technique::kReedSolVan, Technique::kCauchy}) {
    EXPECT_EQ(isa::EffectiveCodingMatrix(t, 5, 1), std::vector<std::uint8_t>(5, 1));
  }
  // The point of the special case: ISA-L's cauchy row for m=1 is not all ones.
  EXPECT_NE(isa::IsaCodingMatrix(Technique::kCauchy, 5, 1), std::vector<std::uint8_t>(5, 1));
}

// A systematic code is MDS iff every square submatrix of its coding rows is invertible. Checks
// that Ceph's Vandermonde limits (m <= 3 with k <= 32, m = 4 with k <= 21) only admit MDS codes,
// and spot-checks cauchy.
bool IsMds(const std::vector<std::uint8_t>& rows, int k, int m) {
  bool ok = true;
  ForEachSubset(m, m, [&](const std::vector<int>& r) {
    const int s = static_cast<int>(r.size());
    if (!ok || s > k) return;
    ForEachSubset(k, s, [&](const std::vector<int>& c) {
      if (!ok || static_cast<int>(c.size()) != s) return;
      std::vector<std::uint8_t> sub(s * s), inv(s * s);
      for (int a = 0; a < s; ++a)
        for (int b = 0; b < s; ++b) sub[a * s + b] = rows[r[a] * k + c[b]];
      ok = gf::InvertMatrix(sub.data(), inv.data(), s);
    });
  });
  return ok;
}

TEST(IsaMatrix, AcceptedVandermondeGeometriesAreMds) {
  for (int m = 2; m <= 4; ++m) {
    for (int k = 2; k <= (m == 4 ? 21 : 32); ++k) {
      EXPECT_TRUE(IsMds(isa::IsaCodingMatrix(Technique::kReedSolVan, k, m), k, m))
          << "k=" << k << " m=" << m;
    }
  }
  for (auto [k, m] : {std::pair{10, 4}, {12, 6}, {20, 5}}) {
    EXPECT_TRUE(IsMds(isa::IsaCodingMatrix(Technique::kCauchy, k, m), k, m))
        << "k=" << k << " m=" << m;
  }
}

// ---------------------------------------------------------------------------------------------
// Encode

TEST(IsaEncode, MatchesReferenceOnRandomData) {
  const std::uint64_t seed = Seed();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const std::pair<int, int> geometries[] = {{2, 1}, {2, 2}, {3, 2},  {4, 2},  {4, 3},
                                            {7, 3}, {8, 4}, {10, 4}, {21, 4}, {32, 3}};
  for (Technique t : {Technique::kReedSolVan, Technique::kCauchy}) {
    for (auto [k, m] : geometries) {
      auto code = MakeCode("k=" + std::to_string(k) + " m=" + std::to_string(m) +
                           " technique=" + std::string(isa::TechniqueName(t)));
      ASSERT_TRUE(code);
      const auto matrix = m == 1 ? std::vector<std::uint8_t>(k, 1) : ExpectedMatrix(t, k, m);
      for (std::size_t len : {std::size_t{32}, std::size_t{4096}, std::size_t{1}, std::size_t{31},
                              std::size_t{4099}, std::size_t{65536 + 7}}) {
        for (std::size_t misalign : {0, 5}) {
          SCOPED_TRACE(std::string(isa::TechniqueName(t)) + " k=" + std::to_string(k) +
                       " m=" + std::to_string(m) + " len=" + std::to_string(len) +
                       " misalign=" + std::to_string(misalign));
          Stripe s(k + m, len, misalign);
          FillData(*code, s, rng);
          ASSERT_TRUE(EncodeAll(*code, s).ok());
          Stripe ref(k + m, len);
          std::vector<const std::uint8_t*> data;
          std::vector<std::uint8_t*> coding;
          for (int i = 0; i < k; ++i) data.push_back(s.chunk(i));
          for (int j = 0; j < m; ++j) coding.push_back(ref.chunk(k + j));
          gf::ReferenceMatrixEncode(k, m, matrix.data(), data.data(), coding.data(), len);
          for (int j = 0; j < m; ++j) {
            ASSERT_EQ(std::memcmp(s.chunk(k + j), ref.chunk(k + j), len), 0) << "parity " << j;
          }
        }
      }
    }
  }
}

TEST(IsaEncode, EncodeLaysOutTheStripeAndPads) {
  std::mt19937_64 rng(Seed());
  auto code = MakeCode("k=3 m=2 technique=cauchy");
  ASSERT_TRUE(code);
  auto input = RandomBytes(rng, 4651);
  ChunkMap chunks;
  ASSERT_TRUE(code->encode({0, 1, 2, 3, 4}, AsBytes(input.data(), input.size()), &chunks).ok());
  ASSERT_EQ(chunks.size(), 5u);
  std::vector<std::uint8_t> padded(3 * 1568, 0);
  std::memcpy(padded.data(), input.data(), input.size());
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(chunks[i].size(), 1568u);
    EXPECT_EQ(std::memcmp(chunks[i].data(), padded.data() + i * 1568, 1568), 0) << i;
  }
  std::vector<std::uint8_t> p0(1568), p1(1568);
  const std::uint8_t* data[] = {padded.data(), padded.data() + 1568, padded.data() + 3136};
  std::uint8_t* coding[] = {p0.data(), p1.data()};
  auto matrix = ExpectedMatrix(Technique::kCauchy, 3, 2);
  gf::ReferenceMatrixEncode(3, 2, matrix.data(), data, coding, 1568);
  EXPECT_EQ(std::memcmp(chunks[3].data(), p0.data(), 1568), 0);
  EXPECT_EQ(std::memcmp(chunks[4].data(), p1.data(), 1568), 0);
}

TEST(IsaEncode, AbsentDataChunksAreZerosAndParityMayBeASubset) {
  std::mt19937_64 rng(Seed());
  auto code = MakeCode("k=4 m=3");
  ASSERT_TRUE(code);
  const std::size_t len = 1024;
  Stripe full(7, len);
  FillData(*code, full, rng);
  std::memset(full.chunk(1), 0, len);
  std::memset(full.chunk(3), 0, len);
  ASSERT_TRUE(EncodeAll(*code, full).ok());

  Stripe part(7, len);
  std::memcpy(part.chunk(0), full.chunk(0), len);
  std::memcpy(part.chunk(2), full.chunk(2), len);
  ASSERT_TRUE(
      code->encode_chunks({{0, part.span(0)}, {2, part.span(2)}}, {{5, part.span(5)}}).ok());
  EXPECT_EQ(part.copy(5), full.copy(5));
  ASSERT_TRUE(code->encode_chunks({{0, part.span(0)}, {2, part.span(2)}},
                                  {{4, part.span(4)}, {5, part.span(5)}, {6, part.span(6)}})
                  .ok());
  for (int id : {4, 5, 6}) EXPECT_EQ(part.copy(id), full.copy(id)) << id;
}

// ---------------------------------------------------------------------------------------------
// XOR helper

TEST(IsaXor, MatchesReferenceForAnyAlignmentAndLength) {
  std::mt19937_64 rng(Seed());
  for (int n : {1, 2, 3, 5, 32, 33}) {
    for (std::size_t misalign : {0, 32, 1}) {
      for (std::size_t len : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{32},
                              std::size_t{33}, std::size_t{96}, std::size_t{200}, std::size_t{4096},
                              std::size_t{4096 + 32}, std::size_t{65536}}) {
        Stripe s(n + 2, len, misalign);
        std::vector<const std::uint8_t*> src;
        for (int i = 0; i < n; ++i) {
          auto bytes = RandomBytes(rng, len);
          std::memcpy(s.chunk(i), bytes.data(), len);
          src.push_back(s.chunk(i));
        }
        isa::XorRegions(src.data(), n, s.chunk(n), len);
        isa::XorRegionsReference(src.data(), n, s.chunk(n + 1), len);
        ASSERT_EQ(s.copy(n), s.copy(n + 1))
            << "n=" << n << " len=" << len << " misalign=" << misalign;
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Registration

TEST(IsaPlugin, BuiltinThroughTheRegistry) {
  RegisterIsaBuiltin();
  auto& registry = PluginRegistry::instance();
  Profile profile{{"plugin", "isa"}, {"k", "3"}, {"m", "2"}, {"technique", "cauchy"}};
  ErasureCodeInterfaceRef code;
  Status st = registry.factory("isa", "", profile, &code);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(code->get_profile(), profile);
  EXPECT_EQ(profile.at("crush-root"), "default");
  EXPECT_EQ(code->get_chunk_size(4651), 1568u);

  Profile bad{{"technique", "liberation"}};
  EXPECT_EQ(registry.factory("isa", "", bad, &code).code(), ENOENT);

  // Codes of one plugin share their codec per (technique, k, m).
  ErasureCodePlugin* plugin = registry.get("isa");
  ASSERT_NE(plugin, nullptr);
  Profile p1{{"k", "5"}, {"m", "2"}}, p2{{"k", "5"}, {"m", "2"}}, p3{{"k", "5"}, {"m", "3"}};
  ErasureCodeInterfaceRef c1, c2, c3;
  ASSERT_TRUE(plugin->factory("", p1, &c1).ok());
  ASSERT_TRUE(plugin->factory("", p2, &c2).ok());
  ASSERT_TRUE(plugin->factory("", p3, &c3).ok());
  auto& i1 = dynamic_cast<ErasureCodeIsa&>(*c1);
  auto& i2 = dynamic_cast<ErasureCodeIsa&>(*c2);
  auto& i3 = dynamic_cast<ErasureCodeIsa&>(*c3);
  EXPECT_EQ(&i1.codec(), &i2.codec());
  EXPECT_NE(&i1.codec(), &i3.codec());
}

TEST(IsaPlugin, SharedObjectEntryPoints) {
  const std::string path = PluginRegistry::default_directory() + "/libec_isa.so";
  void* lib = dlopen(path.c_str(), RTLD_NOW);
  ASSERT_NE(lib, nullptr) << "dlopen(" << path << "): " << dlerror();
  using VersionFn = const char* (*)();
  using InitFn = int (*)(const char*, const char*);
  auto version = reinterpret_cast<VersionFn>(dlsym(lib, "__erasure_code_version"));
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "__erasure_code_init"));
  ASSERT_NE(version, nullptr);
  ASSERT_NE(init, nullptr);
  EXPECT_STREQ(version(), kPluginVersion);
  // Registered under the name it is given (a name the built-in cannot have taken).
  ASSERT_EQ(init("isa_from_so", ""), 0);
  EXPECT_EQ(init("isa_from_so", ""), -EEXIST);
  ErasureCodePlugin* plugin = PluginRegistry::instance().get("isa_from_so");
  ASSERT_NE(plugin, nullptr);
  Profile profile{{"k", "4"}, {"m", "2"}, {"technique", "cauchy"}};
  ErasureCodeInterfaceRef code;
  ASSERT_TRUE(plugin->factory("", profile, &code).ok());
  EXPECT_EQ(code->get_chunk_count(), 6u);
  // The library stays loaded: the registry owns a plugin object that lives in it.
}

}  // namespace
}  // namespace ec
