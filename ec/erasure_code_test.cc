// The base class's Ceph semantics, on a small Cauchy matrix code built from ec::gf::MatrixCodec.
#include "ec/erasure_code.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "ec/gf.h"

namespace ec {
namespace {

class TestCode : public ErasureCode {
 public:
  Status init(Profile& profile) override {
    EC_RETURN_IF_ERROR(init_base(profile));
    int k = 0, m = 0;
    EC_RETURN_IF_ERROR(ProfileToInt("k", profile, &k, "2"));
    EC_RETURN_IF_ERROR(ProfileToInt("m", profile, &m, "1"));
    EC_RETURN_IF_ERROR(sanity_check_k_m(k, m));
    k_ = k;
    m_ = m;
    parse_mapping(profile);
    std::vector<uint8_t> coding(static_cast<size_t>(k) * m);
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < k; ++i) coding[j * k + i] = gf::Inv(static_cast<uint8_t>((k + j) ^ i));
    codec_ = std::make_unique<gf::MatrixCodec>(k, m, coding);
    profile_ = profile;
    return Status::OK();
  }
  unsigned get_chunk_size(unsigned sw) const override {
    return (sw + k_ * 32 - 1) / (k_ * 32) * 32;
  }
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override {
    size_t len = 0;
    EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
    std::vector<uint8_t> zero(len, 0);
    std::array<const uint8_t*, 64> d{};
    std::array<uint8_t*, 64> p{};
    for (unsigned i = 0; i < k_; ++i) {
      auto it = in.find(chunk_index(i));
      d[i] = it == in.end() ? zero.data() : reinterpret_cast<const uint8_t*>(it->second.data());
    }
    for (unsigned j = 0; j < m_; ++j) {
      auto it = out.find(chunk_index(k_ + j));
      if (it == out.end()) return Status::Invalid("missing parity");
      p[j] = reinterpret_cast<uint8_t*>(it->second.data());
    }
    codec_->Encode(len, d.data(), p.data());
    return Status::OK();
  }
  Status decode_chunks(const ShardSet&, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override {
    size_t len = 0;
    EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
    std::array<const uint8_t*, 64> pieces{};
    for (const auto& [id, s] : in)
      pieces[piece_index(id)] = reinterpret_cast<const uint8_t*>(s.data());
    std::vector<int> targets;
    std::vector<uint8_t*> outs;
    for (const auto& [id, s] : out) {
      targets.push_back(piece_index(id));
      outs.push_back(reinterpret_cast<uint8_t*>(s.data()));
    }
    return codec_->Decode(len, pieces.data(), targets.data(), static_cast<int>(targets.size()),
                          outs.data());
  }
  std::unique_ptr<gf::MatrixCodec> codec_;
};

std::vector<std::byte> Pattern(size_t n) {
  std::vector<std::byte> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 131 + 7) & 0xff);
  return v;
}

TEST(ErasureCode, InitFillsBaseDefaults) {
  TestCode code;
  Profile p = {{"k", "3"}, {"m", "2"}};
  ASSERT_TRUE(code.init(p).ok());
  EXPECT_EQ(p["crush-root"], "default");
  EXPECT_EQ(p["crush-failure-domain"], "host");
  EXPECT_EQ(p["crush-device-class"], "");
  EXPECT_EQ(code.get_profile(), p);
  EXPECT_EQ(code.get_chunk_count(), 5u);
  EXPECT_EQ(code.get_coding_chunk_count(), 2u);
  EXPECT_EQ(code.get_sub_chunk_count(), 1u);
  Profile bad = {{"k", "1"}};
  EXPECT_EQ(TestCode().init(bad).message(), "k=1 must be >= 2");
  Profile badm = {{"k", "2"}, {"m", "0"}};
  EXPECT_EQ(TestCode().init(badm).message(), "m=0 must be >= 1");
}

TEST(ErasureCode, MinimumToDecodeLikeCeph) {
  TestCode code;
  Profile p = {{"k", "3"}, {"m", "2"}};
  ASSERT_TRUE(code.init(p).ok());
  auto plan = code.minimum_to_decode({1}, {0, 1, 2, 3, 4});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 1u);
  EXPECT_EQ(plan->at(1), (std::vector<SubChunkRange>{{0, 1}}));
  plan = code.minimum_to_decode({0}, {1, 2, 3, 4});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->size(), 3u);
  EXPECT_TRUE(plan->count(1) && plan->count(2) && plan->count(3));
  EXPECT_EQ(code.minimum_to_decode({0}, {1, 2}).status().code(), EIO);
  EXPECT_EQ(code.minimum_to_decode({7}, {1, 2}).status().code(), EINVAL);
}

TEST(ErasureCode, MinimumToDecodeWithCostPicksTheCheapest) {
  TestCode code;
  Profile p = {{"k", "3"}, {"m", "2"}};
  ASSERT_TRUE(code.init(p).ok());
  // Chunk 1 is expensive: the plan avoids it although it has a low id.
  auto r = code.minimum_to_decode_with_cost({0}, {{1, 100}, {2, 1}, {3, 1}, {4, 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (ShardSet{2, 3, 4}));
  r = code.minimum_to_decode_with_cost({0}, {{1, 1}, {2, 5}, {3, 1}, {4, 1}});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (ShardSet{1, 3, 4}));
  r = code.minimum_to_decode_with_cost({2}, {{2, 50}, {3, 1}});
  EXPECT_EQ(*r, (ShardSet{2}));
  EXPECT_EQ(code.minimum_to_decode_with_cost({0}, {{1, 1}}).status().code(), EIO);
}

TEST(ErasureCode, EncodeDecodeConcatWithMapping) {
  TestCode code;
  Profile p = {{"k", "2"}, {"m", "2"}, {"mapping", "_DD_"}};
  ASSERT_TRUE(code.init(p).ok());
  EXPECT_EQ(code.get_chunk_mapping(), (std::vector<int>{1, 2, 0, 3}));
  auto in = Pattern(1000);
  ChunkMap encoded;
  ASSERT_TRUE(code.encode({0, 1, 2, 3}, in, &encoded).ok());
  ASSERT_EQ(encoded.size(), 4u);
  const size_t cs = code.get_chunk_size(1000);
  EXPECT_EQ(encoded[1].size(), cs);
  // Data piece 0 lives in chunk 1, piece 1 in chunk 2.
  EXPECT_EQ(std::memcmp(encoded[1].data(), in.data(), cs), 0);
  EXPECT_EQ(std::memcmp(encoded[2].data(), in.data() + cs, 1000 - cs), 0);
  for (int lost_a = 0; lost_a < 4; ++lost_a) {
    for (int lost_b = lost_a + 1; lost_b < 4; ++lost_b) {
      ChunkMap avail = encoded;
      avail.erase(lost_a);
      avail.erase(lost_b);
      Buffer out;
      ASSERT_TRUE(code.decode_concat({}, avail, &out).ok());
      ASSERT_EQ(out.size(), 2 * cs);
      EXPECT_EQ(std::memcmp(out.data(), in.data(), in.size()), 0);
      ChunkMap decoded;
      ASSERT_TRUE(code.decode({lost_a, lost_b}, avail, &decoded, cs).ok());
      EXPECT_EQ(std::memcmp(decoded[lost_a].data(), encoded[lost_a].data(), cs), 0);
      EXPECT_EQ(std::memcmp(decoded[lost_b].data(), encoded[lost_b].data(), cs), 0);
    }
  }
}

TEST(ErasureCode, BadInputIsAnError) {
  TestCode code;
  Profile p = {{"k", "2"}, {"m", "1"}};
  ASSERT_TRUE(code.init(p).ok());
  ChunkMap encoded;
  EXPECT_EQ(code.encode({0}, {}, &encoded).code(), EINVAL);
  auto in = Pattern(64);
  EXPECT_EQ(code.encode({5}, in, &encoded).code(), EINVAL);
  ASSERT_TRUE(code.encode({0, 1, 2}, in, &encoded).ok());
  ChunkMap uneven = encoded;
  uneven[1] = uneven[1].Slice(0, 16);
  ChunkMap decoded;
  EXPECT_EQ(code.decode({0}, {{1, uneven[1]}, {2, encoded[2]}}, &decoded, 32).code(), EINVAL);
  EXPECT_EQ(code.decode({0}, {{1, encoded[1]}}, &decoded, 32).code(), EIO);
  EXPECT_TRUE(decoded.empty());
}

}  // namespace
}  // namespace ec
