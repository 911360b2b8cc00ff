// ErasureCodeLrc encode/decode: every loss pattern that the code's plan says is decodable decodes
// to the encoded bytes from exactly what the plan reads, and every other one fails; one loss of a
// local group reads its l chunks; explicit layers give the same bytes as k/m/l; isa layers.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

#include "ec/plugin.h"
#include "plugins/lrc/lrc_plugin.h"
#include "plugins/lrc/lrc_test_util.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

using ectest::Seed;
using lrc_test::EncodeAll;
using lrc_test::MakeLrc;
using lrc_test::RandomBuffer;
using lrc_test::SameBytes;

std::vector<ShardSet> LossPatterns(unsigned n, unsigned max_lost) {
  std::vector<ShardSet> patterns;
  std::vector<int> pick;
  // Every subset of size 1..max_lost of {0..n-1}, by recursion.
  auto rec = [&](auto&& self, int from) -> void {
    if (!pick.empty()) patterns.emplace_back(pick.begin(), pick.end());
    if (pick.size() == max_lost) return;
    for (int id = from; id < static_cast<int>(n); ++id) {
      pick.push_back(id);
      self(self, id + 1);
      pick.pop_back();
    }
  };
  rec(rec, 0);
  return patterns;
}

// Checks every loss pattern of up to `max_lost` chunks; `guaranteed`: patterns that small must
// decode. Returns the number of decodable patterns.
int CheckAllPatterns(const ErasureCodeLrc& code, unsigned stripe_width, unsigned max_lost,
                     unsigned guaranteed) {
  std::mt19937_64 rng(Seed());
  const Buffer data = RandomBuffer(rng, stripe_width);
  const ChunkMap encoded = EncodeAll(code, data);
  EXPECT_EQ(encoded.size(), code.get_chunk_count());
  if (encoded.size() != code.get_chunk_count()) return 0;
  const std::size_t cs = encoded.begin()->second.size();
  int decodable = 0;
  for (const ShardSet& lost : LossPatterns(code.get_chunk_count(), max_lost)) {
    ShardSet avail;
    ChunkMap survivors;
    for (const auto& [id, chunk] : encoded) {
      if (lost.count(id)) continue;
      avail.insert(id);
      survivors[id] = chunk;
    }
    auto plan = code.minimum_to_decode(lost, avail);
    ChunkMap decoded;
    Status all = code.decode(lost, survivors, &decoded, cs);
    if (!plan.ok()) {
      EXPECT_EQ(plan.status().code(), EIO);
      EXPECT_FALSE(all.ok()) << "decode succeeds where the plan says EIO";
      EXPECT_GT(lost.size(), guaranteed) << "a pattern of " << lost.size() << " is not decodable";
      continue;
    }
    ++decodable;
    EXPECT_TRUE(all.ok()) << all.ToString();
    ChunkMap helpers;
    for (const auto& [id, ranges] : *plan) {
      EXPECT_TRUE(avail.count(id)) << "the plan reads lost chunk " << id;
      helpers[id] = encoded.at(id);
    }
    ChunkMap from_plan;
    Status s = code.decode(lost, helpers, &from_plan, cs);
    EXPECT_TRUE(s.ok()) << s.ToString();
    for (int id : lost) {
      EXPECT_TRUE(from_plan.count(id) && SameBytes(from_plan.at(id), encoded.at(id)))
          << "chunk " << id << " rebuilt wrongly from the plan";
      EXPECT_TRUE(decoded.count(id) && SameBytes(decoded.at(id), encoded.at(id)))
          << "chunk " << id << " rebuilt wrongly from all survivors";
    }
  }
  return decodable;
}

TEST(LrcCode, EveryDecodablePatternOfTheCorpusProfiles) {
  struct Case {
    const char* kml;
    unsigned m;
    unsigned sw;
  };
  for (const Case& c : {Case{"k=2 m=2 l=2", 2, 4096}, Case{"k=4 m=2 l=3", 2, 4651},
                        Case{"k=8 m=4 l=3", 4, 65536}}) {
    Status st;
    auto code = MakeLrc(c.kml, &st);
    ASSERT_TRUE(code) << st.ToString();
    const unsigned n = code->get_chunk_count();
    // Up to every coding chunk lost (16 chunks: up to 5 of them, 6884 patterns).
    const unsigned max_lost = std::min(n - code->get_data_chunk_count(), 5u);
    int decodable = CheckAllPatterns(*code, c.sw, max_lost, c.m);
    std::cout << c.kml << ": " << decodable << " loss patterns of up to " << max_lost
              << " chunks decodable\n";
    EXPECT_GT(decodable, 0);
  }
}

TEST(LrcCode, OneLossReadsOnlyItsLocalGroup) {
  for (const char* kml :
       {"k=2 m=2 l=2", "k=4 m=2 l=3", "k=8 m=4 l=3", "k=8 m=4 l=6", "k=6 m=3 l=3"}) {
    auto code = MakeLrc(kml);
    ASSERT_TRUE(code) << kml;
    const int n = static_cast<int>(code->get_chunk_count());
    const int l = std::stoi(code->get_profile().at("l"));
    for (int lost = 0; lost < n; ++lost) {
      ShardSet avail;
      for (int id = 0; id < n; ++id)
        if (id != lost) avail.insert(id);
      auto plan = code->minimum_to_decode({lost}, avail);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      ASSERT_EQ(plan->size(), static_cast<std::size_t>(l)) << kml << " lost " << lost;
      for (const auto& [id, ranges] : *plan) {
        EXPECT_EQ(id / (l + 1), lost / (l + 1)) << kml << ": " << id << " is not in the group";
        EXPECT_EQ(ranges, (std::vector<SubChunkRange>{{0, 1}}));
      }
      auto cheap = code->minimum_to_decode_with_cost({lost}, [&] {
        std::map<int, int> costs;
        for (int id : avail) costs[id] = 1;
        return costs;
      }());
      ASSERT_TRUE(cheap.ok());
      EXPECT_EQ(cheap->size(), static_cast<std::size_t>(l));
    }
  }
}

TEST(LrcCode, LocalParityIsTheXorOfItsGroup) {
  // jerasure reed_sol_van with m=1 has a first parity row of ones: the local parity is a XOR.
  auto code = MakeLrc("k=4 m=2 l=3");
  ASSERT_TRUE(code);
  std::mt19937_64 rng(Seed());
  const ChunkMap chunks = EncodeAll(*code, RandomBuffer(rng, 4 * 4096));
  ASSERT_EQ(chunks.size(), 8u);
  for (int group = 0; group < 2; ++group) {
    const int base = group * 4;
    for (std::size_t b = 0; b < 4096; ++b) {
      const auto x = chunks.at(base).udata()[b] ^ chunks.at(base + 1).udata()[b] ^
                     chunks.at(base + 2).udata()[b];
      ASSERT_EQ(x, chunks.at(base + 3).udata()[b]) << "group " << group << " byte " << b;
    }
  }
}

TEST(LrcCode, ExplicitLayersGiveTheSameBytesAsKml) {
  RegisterLrcBuiltin();
  auto kml = MakeLrc("k=4 m=2 l=3");
  ASSERT_TRUE(kml);
  Profile p{{"plugin", "lrc"},
            {"mapping", "DD__DD__"},
            {"layers", R"([["DDc_DDc_",""],["DDDc____",""],["____DDDc",""]])"}};
  ErasureCodeInterfaceRef explicit_code;
  ASSERT_TRUE(PluginRegistry::instance()
                  .factory("lrc", PluginRegistry::default_directory(), p, &explicit_code)
                  .ok());
  std::mt19937_64 rng(Seed());
  const Buffer data = RandomBuffer(rng, 10000);
  const ChunkMap a = EncodeAll(*kml, data), b = EncodeAll(*explicit_code, data);
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), 8u);
  for (int id = 0; id < 8; ++id) EXPECT_TRUE(SameBytes(a.at(id), b.at(id))) << id;
}

TEST(LrcCode, IsaLayersAndAThreeLevelLayout) {
  RegisterLrcBuiltin();
  // isa global and local layers.
  Profile isa{{"plugin", "lrc"},
              {"mapping", "DD__DD__"},
              {"layers", R"([["DDc_DDc_","plugin=isa"],["DDDc____",{"plugin":"isa",)"
                         R"("technique":"cauchy"}],["____DDDc","plugin=isa"]])"}};
  ErasureCodeInterfaceRef ref;
  Status s =
      PluginRegistry::instance().factory("lrc", PluginRegistry::default_directory(), isa, &ref);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto code = std::dynamic_pointer_cast<ErasureCodeLrc>(ref);
  EXPECT_EQ(code->get_chunk_size(4651), 1184u);  // isa: roundup(ceil(4651/4), 32)
  EXPECT_GT(CheckAllPatterns(*code, 4651, 4, 2), 0);

  // Ceph's documentation example: local parities in front of each group, global parities inside.
  Profile three{{"plugin", "lrc"},
                {"mapping", "__DD__DD"},
                {"layers", R"([["_cDD_cDD",""],["cDDD____",""],["____cDDD",""]])"}};
  s = PluginRegistry::instance().factory("lrc", PluginRegistry::default_directory(), three, &ref);
  ASSERT_TRUE(s.ok()) << s.ToString();
  code = std::dynamic_pointer_cast<ErasureCodeLrc>(ref);
  EXPECT_EQ(code->get_chunk_mapping(), (std::vector<int>{2, 3, 6, 7, 0, 1, 4, 5}));
  EXPECT_GT(CheckAllPatterns(*code, 8192, 4, 2), 0);
  ShardSet avail = {0, 1, 2, 4, 5, 6, 7};
  auto plan = code->minimum_to_decode({3}, avail);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 3u);  // chunks 0, 1, 2 of its group
}

TEST(LrcCode, EncodeChunksWithoutSomeParities) {
  auto code = MakeLrc("k=4 m=2 l=3");
  ASSERT_TRUE(code);
  std::mt19937_64 rng(Seed());
  const ChunkMap all = EncodeAll(*code, RandomBuffer(rng, 4 * 1024));
  ASSERT_EQ(all.size(), 8u);
  // Only the local parity 3 wanted: the global parity 2 it depends on goes to scratch.
  ConstChunkSpans in;
  for (int id : {0, 1, 4, 5}) in[id] = all.at(id).span();
  Buffer three = Buffer::Allocate(1024, false);
  ASSERT_TRUE(code->encode_chunks(in, {{3, three.span()}}).ok());
  EXPECT_TRUE(SameBytes(three, all.at(3)));
  // A data chunk is not a parity.
  Buffer zero = Buffer::Allocate(1024, true);
  EXPECT_EQ(code->encode_chunks(in, {{5, zero.span()}}).code(), EINVAL);
  // decode_chunks: a wanted chunk without a buffer, and lengths that differ.
  ConstChunkSpans survivors;
  for (int id : {1, 2, 3}) survivors[id] = all.at(id).span();
  EXPECT_EQ(code->decode_chunks({0}, survivors, {}).code(), EINVAL);
  Buffer small = Buffer::Allocate(512, false);
  EXPECT_EQ(code->decode_chunks({0}, survivors, {{0, small.span()}}).code(), EINVAL);
  Buffer out = Buffer::Allocate(1024, false);
  ASSERT_TRUE(code->decode_chunks({0}, survivors, {{0, out.span()}}).ok());
  EXPECT_TRUE(SameBytes(out, all.at(0)));
  ConstChunkSpans too_few = {{1, all.at(1).span()}};
  EXPECT_EQ(code->decode_chunks({0}, too_few, {{0, out.span()}}).code(), EIO);
}

}  // namespace
}  // namespace ec
