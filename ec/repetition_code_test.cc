// The repetition code of replicated pools (ec/repetition_code.h): every chunk a copy, a lost
// chunk read from ONE other chunk, decode a copy, shards without padding equal to the object, and
// no erasure-code profile reaching it through the plugin registry.
#include "ec/repetition_code.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "ec/plugin.h"
#include "ec/stripe_codec.h"
#include "ec/stripe_layout.h"

namespace ec {
namespace {

std::vector<std::byte> RandomBytes(std::size_t n, std::mt19937& rng) {
  std::vector<std::byte> out(n);
  for (auto& b : out) b = static_cast<std::byte>(rng());
  return out;
}

TEST(RepetitionCode, InitTakesTheNumberOfCopies) {
  for (unsigned copies : {1u, 2u, 3u, 10u, RepetitionCode::kMaxCopies}) {
    auto code = MakeRepetitionCode(copies);
    ASSERT_TRUE(code.ok()) << code.status().ToString();
    EXPECT_EQ((*code)->get_chunk_count(), copies);
    EXPECT_EQ((*code)->get_data_chunk_count(), 1u);
    EXPECT_EQ((*code)->get_coding_chunk_count(), copies - 1);
    EXPECT_EQ((*code)->get_sub_chunk_count(), 1u);
    EXPECT_EQ((*code)->get_minimum_granularity(), 1u);
    EXPECT_EQ((*code)->get_chunk_size(4096), 4096u);
    EXPECT_EQ((*code)->get_chunk_size(1), 1u);
    EXPECT_EQ((*code)->get_profile().at("plugin"), "replicated");
    EXPECT_EQ((*code)->get_profile().at("size"), std::to_string(copies));
    EXPECT_EQ((*code)->get_profile().at("crush-failure-domain"), "host");
  }
  for (const char* bad : {"0", "65", "-1", "three", ""}) {
    RepetitionCode code;
    Profile p = {{"size", bad}};
    const Status s = code.init(p);
    EXPECT_EQ(s.code(), EINVAL) << bad;
    EXPECT_NE(s.message().find("must be between 1 and 64"), std::string::npos) << s.message();
  }
  RepetitionCode code;
  Profile none;
  EXPECT_EQ(code.init(none).code(), EINVAL);
}

// No erasure-code profile gets a repetition code: "replicated" is no plugin.
TEST(RepetitionCode, IsNotAPlugin) {
  Profile p = {{"plugin", "replicated"}, {"size", "3"}};
  ErasureCodeInterfaceRef code;
  const Status s = PluginRegistry::instance().factory(
      "replicated", PluginRegistry::default_directory(), p, &code);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(code, nullptr);
}

TEST(RepetitionCode, EncodeCopiesAndDecodeCopiesBack) {
  std::mt19937 rng(30);
  auto code = MakeRepetitionCode(3);
  ASSERT_TRUE(code.ok());
  const auto stripe = RandomBytes(1000, rng);
  ChunkMap encoded;
  ASSERT_TRUE((*code)->encode({0, 1, 2}, stripe, &encoded).ok());
  ASSERT_EQ(encoded.size(), 3u);
  for (const auto& [id, chunk] : encoded) {
    ASSERT_EQ(chunk.size(), stripe.size()) << id;
    EXPECT_EQ(std::memcmp(chunk.data(), stripe.data(), stripe.size()), 0) << id;
  }
  // Any one chunk rebuilds every other.
  for (int have = 0; have < 3; ++have) {
    ChunkMap one = {{have, encoded.at(have)}};
    ChunkMap decoded;
    ASSERT_TRUE((*code)->decode({0, 1, 2}, one, &decoded, stripe.size()).ok()) << have;
    for (int id = 0; id < 3; ++id) {
      ASSERT_EQ(decoded.at(id).size(), stripe.size());
      EXPECT_EQ(std::memcmp(decoded.at(id).data(), stripe.data(), stripe.size()), 0);
    }
    Buffer concat;
    ASSERT_TRUE((*code)->decode_concat({}, one, &concat).ok());
    ASSERT_EQ(concat.size(), stripe.size());
    EXPECT_EQ(std::memcmp(concat.data(), stripe.data(), stripe.size()), 0);
  }
  ChunkMap decoded;
  EXPECT_EQ((*code)->decode({1}, {}, &decoded, stripe.size()).code(), EIO);
  // encode_chunks: an absent data chunk is zeros; chunk 0 is never an output.
  std::vector<std::byte> out(16, std::byte{7});
  ASSERT_TRUE((*code)->encode_chunks({}, {{2, std::span<std::byte>(out)}}).ok());
  EXPECT_EQ(out, std::vector<std::byte>(16));
  EXPECT_EQ((*code)->encode_chunks({}, {{0, std::span<std::byte>(out)}}).code(), EINVAL);
  EXPECT_EQ((*code)->encode_chunks({}, {{3, std::span<std::byte>(out)}}).code(), EINVAL);
}

// A lost chunk is read from ONE other chunk, the cheapest one.
TEST(RepetitionCode, ALostChunkReadsOneOtherCopy) {
  auto code = MakeRepetitionCode(4);
  ASSERT_TRUE(code.ok());
  auto plan = (*code)->minimum_to_decode({2}, {0, 1, 3});
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->size(), 1u);
  EXPECT_EQ(plan->begin()->second, (std::vector<SubChunkRange>{{0, 1}}));
  auto cheapest = (*code)->minimum_to_decode_with_cost({2}, {{0, 5}, {1, 1}, {3, 9}});
  ASSERT_TRUE(cheapest.ok());
  EXPECT_EQ(*cheapest, (ShardSet{1}));
  auto all_lost = (*code)->minimum_to_decode_with_cost({0, 1}, {{3, 2}});
  ASSERT_TRUE(all_lost.ok());
  EXPECT_EQ(*all_lost, (ShardSet{3}));
  EXPECT_EQ((*code)->minimum_to_decode({0}, {}).status().code(), EIO);
  EXPECT_EQ((*code)->minimum_to_decode({4}, {0}).status().code(), EINVAL);
}

// Without padding every shard stores exactly the object's bytes, whatever the stripe unit; the
// batch codec's shards are copies of the object, and its decode rebuilds one from another.
TEST(RepetitionCode, ShardsAreTheObject) {
  std::mt19937 rng(3030);
  auto code = MakeRepetitionCode(3);
  ASSERT_TRUE(code.ok());
  for (std::size_t su : {1ul, 4096ul, 65536ul}) {
    auto layout = StripeLayout::Make(**code, su, Padding::kNone);
    ASSERT_TRUE(layout.ok()) << layout.status().ToString();
    EXPECT_EQ(layout->k(), 1u);
    EXPECT_EQ(layout->stripe_width(), su);
    EXPECT_EQ(layout->data_ids(), (std::vector<int>{0}));
    EXPECT_EQ(layout->parity_ids(), (std::vector<int>{1, 2}));
    for (std::uint64_t size : {0ull, 1ull, 4095ull, 4096ull, 100001ull}) {
      for (int id = 0; id < 3; ++id) EXPECT_EQ(layout->stored_size(size, id), size) << su;
    }
    auto extents = layout->data_extents(5000, 70000);
    ASSERT_TRUE(extents.ok());
    EXPECT_EQ(*extents, (std::vector<ShardExtent>{{0, 5000, 70000}}));
  }
  auto layout = StripeLayout::Make(**code, 4096);
  ASSERT_TRUE(layout.ok());
  const auto object = RandomBytes(3 * 4096, rng);
  StripeCodec codec(**code, *layout);
  auto shards = codec.EncodeToShards(object);
  ASSERT_TRUE(shards.ok());
  ASSERT_EQ(shards->size(), 3u);
  for (const Buffer& shard : *shards) {
    ASSERT_EQ(shard.size(), object.size());
    EXPECT_EQ(std::memcmp(shard.data(), object.data(), object.size()), 0);
  }
}

}  // namespace
}  // namespace ec
