// The batch codec against the plugins' own one-stripe-at-a-time encode() and decode(): same shard
// bytes, same rebuilt chunks, for scalar codes, a mapping and CLAY's sub-chunk repair. The
// plugins come from EC_PLUGIN_DIR (this build's lib/).
#include "ec/stripe_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ec/plugin.h"

namespace ec {
namespace {

struct Case {
  std::string profile;
  std::size_t stripe_unit;
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << c.profile << " su=" << c.stripe_unit;
}

ErasureCodeInterfaceRef MakeCode(const std::string& text) {
  auto profile = ParseProfile(text);
  EXPECT_TRUE(profile.ok());
  ErasureCodeInterfaceRef code;
  Status s = PluginRegistry::instance().factory(
      (*profile)["plugin"], PluginRegistry::default_directory(), *profile, &code);
  EXPECT_TRUE(s.ok()) << text << ": " << s.message();
  return code;
}

std::vector<std::byte> Random(std::size_t n, std::mt19937& rng) {
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(rng());
  return out;
}

class StripeCodecTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    code_ = MakeCode(GetParam().profile);
    ASSERT_TRUE(code_);
    auto layout = StripeLayout::Make(*code_, GetParam().stripe_unit);
    ASSERT_TRUE(layout.ok()) << layout.status().message();
    layout_ = *layout;
    seed_ = std::random_device{}();
    rng_.seed(seed_);
  }

  // The shards as the plugin's encode() makes them, one stripe at a time.
  std::vector<std::vector<std::byte>> Reference(const std::vector<std::byte>& object) {
    const std::size_t c = layout_.chunk_size();
    const std::uint64_t stripes = layout_.stripes_of(object.size());
    std::vector<std::vector<std::byte>> shards(layout_.chunk_count());
    ShardSet all;
    for (unsigned i = 0; i < layout_.chunk_count(); ++i) all.insert(static_cast<int>(i));
    for (std::uint64_t s = 0; s < stripes; ++s) {
      std::vector<std::byte> stripe(layout_.stripe_width(), std::byte{0});
      const std::size_t start = s * layout_.stripe_width();
      std::memcpy(stripe.data(), object.data() + start,
                  std::min(stripe.size(), object.size() - start));
      ChunkMap encoded;
      EXPECT_TRUE(code_->encode(all, stripe, &encoded).ok());
      for (auto& [id, buf] : encoded) {
        EXPECT_EQ(buf.size(), c);
        shards[id].insert(shards[id].end(), buf.data(), buf.data() + buf.size());
      }
    }
    return shards;
  }

  ErasureCodeInterfaceRef code_;
  StripeLayout layout_;
  unsigned seed_ = 0;
  std::mt19937 rng_;
};

TEST_P(StripeCodecTest, EncodeMatchesPerStripeEncode) {
  SCOPED_TRACE("seed=" + std::to_string(seed_));
  StripeCodec codec(*code_, layout_);
  const std::vector<std::byte> object = Random(layout_.stripe_width() * 5 + 123, rng_);
  const auto expect = Reference(object);
  const std::uint64_t stripes = layout_.stripes_of(object.size());

  // From shards of the codec's own making.
  auto shards = codec.EncodeToShards(object);
  ASSERT_TRUE(shards.ok()) << shards.status().message();
  for (unsigned id = 0; id < layout_.chunk_count(); ++id) {
    const Buffer& b = (*shards)[id];
    ASSERT_EQ(std::vector<std::byte>(b.data(), b.data() + b.size()), expect[id]) << "shard " << id;
  }

  // From the object as it is in memory (padded), parity only.
  std::vector<std::byte> padded = object;
  padded.resize(layout_.padded_size(object.size()));
  std::vector<std::vector<std::byte>> parity(
      layout_.m(), std::vector<std::byte>(stripes * layout_.chunk_size()));
  std::vector<std::span<std::byte>> parity_spans(parity.begin(), parity.end());
  ASSERT_TRUE(codec.EncodeObject(padded, stripes, parity_spans).ok());
  for (unsigned j = 0; j < layout_.m(); ++j) {
    EXPECT_EQ(parity[j], expect[layout_.parity_ids()[j]]) << "parity " << j;
  }
  // Too small a buffer is refused before anything is written.
  EXPECT_EQ(
      codec.EncodeObject(std::span(padded).first(padded.size() - 1), stripes, parity_spans).code(),
      EINVAL);
}

TEST_P(StripeCodecTest, DecodeRebuildsEveryLostPair) {
  SCOPED_TRACE("seed=" + std::to_string(seed_));
  StripeCodec codec(*code_, layout_);
  const std::vector<std::byte> object = Random(layout_.stripe_width() * 3, rng_);
  const auto shards = Reference(object);
  const std::uint64_t stripes = 3;
  const std::size_t c = layout_.chunk_size();
  const int n = static_cast<int>(layout_.chunk_count());
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      ShardSet want = {a, b};
      std::map<int, ConstColumn> in;
      for (int id = 0; id < n; ++id)
        if (!want.count(id)) in[id] = {shards[id].data(), c};
      std::vector<std::vector<std::byte>> rebuilt(2, std::vector<std::byte>(stripes * c));
      std::map<int, Column> out = {{a, {rebuilt[0].data(), c}}, {b, {rebuilt[1].data(), c}}};
      Status s = codec.Decode(want, in, out, stripes);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(rebuilt[0], shards[a]) << a << "," << b;
      EXPECT_EQ(rebuilt[1], shards[b]) << a << "," << b;
    }
  }
}

// A single loss rebuilt from what minimum_to_decode plans: for CLAY sub-chunks of d helpers
// through repair_sub_chunks, otherwise whole chunks; also through the generic decode() path.
TEST_P(StripeCodecTest, RepairMatchesTheLostShard) {
  SCOPED_TRACE("seed=" + std::to_string(seed_));
  StripeCodec codec(*code_, layout_);
  const std::uint64_t stripes = 4;
  const std::vector<std::byte> object = Random(layout_.stripe_width() * stripes, rng_);
  const auto shards = Reference(object);
  const std::size_t c = layout_.chunk_size();
  const std::size_t sub = layout_.sub_chunk_size();
  const int z = static_cast<int>(layout_.sub_chunk_count());
  const int n = static_cast<int>(layout_.chunk_count());
  for (int lost = 0; lost < n; ++lost) {
    std::map<int, int> costs;
    for (int id = 0; id < n; ++id)
      if (id != lost) costs[id] = 1;
    auto helpers = code_->minimum_to_decode_with_cost({lost}, costs);
    ASSERT_TRUE(helpers.ok());
    auto full = code_->minimum_to_decode({lost}, *helpers);
    ASSERT_TRUE(full.ok());
    auto native = code_->minimum_to_repair(lost, {0, z}, *helpers);
    EXPECT_EQ(native.ok(), z > 1) << native.status().message();
    if (native.ok()) {
      EXPECT_EQ(*native, *full);
    } else {
      EXPECT_EQ(native.status().code(), EOPNOTSUPP);
    }
    // Helper columns: per stripe, the planned sub-chunks concatenated.
    auto gather = [&](const SubChunkPlan& plan, std::vector<std::vector<std::byte>>* store) {
      std::map<int, ConstColumn> cols;
      for (const auto& [id, ranges] : plan) {
        const std::size_t per = codec.HelperBytes(ranges);
        std::vector<std::byte>& bytes = store->emplace_back();
        for (std::uint64_t s = 0; s < stripes; ++s) {
          for (const auto& [first, count] : ranges) {
            const std::byte* src =
                shards[id].data() + s * c + static_cast<std::size_t>(first) * sub;
            bytes.insert(bytes.end(), src, src + static_cast<std::size_t>(count) * sub);
          }
        }
        cols[id] = {bytes.data(), per};
      }
      return cols;
    };
    std::vector<std::vector<std::byte>> store;
    store.reserve(2 * n);
    std::vector<std::byte> out(stripes * c);
    {
      ASSERT_TRUE(
          codec.Repair(lost, {0, z}, *full, false, gather(*full, &store), {out.data(), c}, stripes)
              .ok());
      EXPECT_EQ(out, shards[lost]) << "generic decode(), lost " << lost;
    }
    if (!native.ok()) continue;
    std::fill(out.begin(), out.end(), std::byte{0});
    Status s = codec.Repair(lost, {0, z}, *native, true, gather(*native, &store), {out.data(), c},
                            stripes);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(out, shards[lost]) << "repair_sub_chunks, lost " << lost;
    // Part of each chunk: sub-chunks [1, 1 + z/2) only, from fewer bytes than the full repair.
    const SubChunkRange part{1, z / 2};
    auto partial = code_->minimum_to_repair(lost, part, *helpers);
    ASSERT_TRUE(partial.ok()) << partial.status().message();
    std::size_t full_bytes = 0, partial_bytes = 0;
    for (const auto& [id, r] : *native) full_bytes += codec.HelperBytes(r);
    for (const auto& [id, r] : *partial) partial_bytes += codec.HelperBytes(r);
    EXPECT_LT(partial_bytes, full_bytes);
    std::vector<std::byte> piece(stripes * part.second * sub);
    s = codec.Repair(lost, part, *partial, true, gather(*partial, &store),
                     {piece.data(), part.second * sub}, stripes);
    ASSERT_TRUE(s.ok()) << s.message();
    for (std::uint64_t st = 0; st < stripes; ++st) {
      const std::byte* want = shards[lost].data() + st * c + part.first * sub;
      EXPECT_EQ(0, std::memcmp(piece.data() + st * part.second * sub, want, part.second * sub))
          << "partial, lost " << lost << " stripe " << st;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Plugins, StripeCodecTest,
    ::testing::Values(Case{"plugin=jerasure technique=reed_sol_van k=4 m=2", 4096},
                      Case{"plugin=jerasure technique=cauchy_good k=3 m=2", 65536},
                      Case{"plugin=isa technique=cauchy k=4 m=2 mapping=DD__DD", 4096},
                      Case{"plugin=isa technique=reed_sol_van k=6 m=3", 1024},
                      Case{"plugin=clay k=4 m=2 d=5", 4096},
                      Case{"plugin=clay k=4 m=3 d=5 scalar_mds=isa", 4096 * 3},
                      Case{"plugin=clay k=6 m=3 d=8", 864 * 4}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = std::to_string(info.index);
      for (char ch : info.param.profile)
        name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

TEST(StripeCodec, RefusesColumnsThatDoNotFit) {
  auto code = MakeCode("plugin=isa k=2 m=1");
  ASSERT_TRUE(code);
  auto layout = StripeLayout::Make(*code, 64);
  ASSERT_TRUE(layout.ok());
  StripeCodec codec(*code, *layout);
  std::vector<std::byte> data(128), parity(64);
  std::vector<ConstColumn> in = {{data.data(), 64}};  // one data column, k is 2
  std::vector<Column> out = {{parity.data(), 64}};
  EXPECT_EQ(codec.EncodeColumns(in, out, 1).code(), EINVAL);
  std::vector<std::span<std::byte>> small = {std::span(parity).first(32)};
  EXPECT_EQ(codec.EncodeObject(data, 1, small).code(), EINVAL);
  EXPECT_EQ(codec.Decode({2}, {{0, {data.data(), 64}}}, {}, 1).code(), EINVAL);
  // One chunk is not enough to rebuild from: the code's EIO, named by stripe.
  Status s = codec.Decode({2}, {{0, {data.data(), 64}}}, {{2, {parity.data(), 64}}}, 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("stripe 0"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace ec
