// CheckShards over real codes (the plugins in EC_PLUGIN_DIR): intact shards are consistent, one
// flipped byte in any shard is found and located (every id, data and parity, first and last
// stripe), localisation is never claimed where the code cannot support it (k+1 shards), two bad
// shards are not blamed on one, sets the code cannot decode are "not checked", and bad arguments
// are EINVAL. Random data; the seed is printed with every failure.
#include "recovery/shard_consistency.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ec/stripe_codec.h"
#include "recovery/testing/encoded_object.h"

namespace ec::recovery {
namespace {

using testing::EncodedObject;
using testing::EncodeStripes;
using ShardBytes = std::vector<std::vector<std::byte>>;

struct CodeCase {
  const char* name;
  const char* profile;
  std::size_t stripe_unit;
  bool mds;  // any k chunks decode, and the minimum distance is m + 1
};

void PrintTo(const CodeCase& c, std::ostream* os) {
  *os << c.profile;
}

constexpr std::uint64_t kStripes = 4;

class ShardConsistencyTest : public testing::SeededTest,
                             public ::testing::WithParamInterface<CodeCase> {
 protected:
  void SetUp() override {
    SeededTest::SetUp();
    o_ = EncodeStripes(GetParam().profile, GetParam().stripe_unit, kStripes, seed_);
    ASSERT_TRUE(o_.code);
    n_ = static_cast<int>(o_.layout.chunk_count());
    k_ = static_cast<int>(o_.layout.k());
    rng_.seed(seed_);
  }

  ShardSet All() const {
    ShardSet ids;
    for (int id = 0; id < n_; ++id) ids.insert(id);
    return ids;
  }

  static std::map<int, std::span<const std::byte>> View(const ShardBytes& shards,
                                                        const ShardSet& ids) {
    std::map<int, std::span<const std::byte>> view;
    for (int id : ids) view[id] = shards[static_cast<std::size_t>(id)];
    return view;
  }

  ShardCheck Check(const ShardBytes& shards, const ShardSet& ids) {
    auto got = CheckShards(*o_.code, o_.layout, o_.stripes, View(shards, ids));
    EXPECT_TRUE(got.ok()) << got.status().message();
    return got.ok() ? *got : ShardCheck{};
  }

  // A copy of the shards with one byte of chunk `id` in stripe `stripe` changed.
  ShardBytes Flip(const ShardBytes& shards, int id, std::uint64_t stripe) {
    ShardBytes copy = shards;
    const std::size_t c = o_.layout.chunk_size();
    const std::size_t at = stripe * c + rng_() % c;
    copy[static_cast<std::size_t>(id)][at] ^=
        std::byte{static_cast<unsigned char>(1 + rng_() % 255)};
    return copy;
  }

  std::string Describe(int id, std::uint64_t stripe) const {
    return "chunk " + std::to_string(id) + " (" +
           (o_.layout.data_index(id) >= 0 ? "data" : "parity") + "), stripe " +
           std::to_string(stripe);
  }

  EncodedObject o_;
  int n_ = 0;
  int k_ = 0;
  std::mt19937 rng_;
};

TEST_P(ShardConsistencyTest, IntactShardsAreConsistent) {
  const ShardCheck r = Check(o_.shards, All());
  EXPECT_TRUE(r.checked);
  EXPECT_TRUE(r.consistent);
  EXPECT_FALSE(r.located);
  EXPECT_TRUE(r.bad.empty());
  EXPECT_TRUE(r.mismatched.empty());
}

// Every subset of intact shards: fewer than k+1 is not checked; otherwise checked exactly when the
// code can rebuild the missing data pieces from it, and then consistent.
TEST_P(ShardConsistencyTest, EverySubsetOfIntactShards) {
  for (unsigned mask = 0; mask < (1u << n_); ++mask) {
    ShardSet ids, missing_data;
    for (int id = 0; id < n_; ++id)
      if (mask & (1u << id)) ids.insert(id);
    for (int id : o_.layout.data_ids())
      if (!ids.count(id)) missing_data.insert(id);
    SCOPED_TRACE("mask " + std::to_string(mask));
    const ShardCheck r = Check(o_.shards, ids);
    if (static_cast<int>(ids.size()) <= k_) {
      EXPECT_FALSE(r.checked);
      continue;
    }
    const bool decodable =
        missing_data.empty() || o_.code->minimum_to_decode(missing_data, ids).ok();
    if (GetParam().mds) {
      EXPECT_TRUE(decodable);
    }
    EXPECT_EQ(r.checked, decodable);
    EXPECT_EQ(r.consistent, decodable);
    EXPECT_FALSE(r.located);
  }
}

// One flipped byte, every shard given: found, and located when the code's distance is at least 3
// (m >= 2 for an MDS code; shec c=2 and lrc here rebuild any two lost chunks).
TEST_P(ShardConsistencyTest, OneFlippedByteIsLocated) {
  for (int id = 0; id < n_; ++id) {
    for (std::uint64_t stripe : {std::uint64_t{0}, kStripes - 1}) {
      SCOPED_TRACE(Describe(id, stripe));
      const ShardBytes bad = Flip(o_.shards, id, stripe);
      const ShardBytes before = bad;
      const ShardCheck r = Check(bad, All());
      EXPECT_EQ(bad, before);  // borrowed, never written
      EXPECT_TRUE(r.checked);
      EXPECT_FALSE(r.consistent);
      EXPECT_TRUE(r.located);
      EXPECT_EQ(r.bad, std::vector<int>{id});
      EXPECT_FALSE(r.mismatched.empty());
      if (o_.layout.data_index(id) < 0) {
        // A wrong parity disagrees with the encoded parity and nothing else does.
        EXPECT_EQ(r.mismatched, std::vector<int>{id});
      }
      for (int p : r.mismatched) EXPECT_LT(o_.layout.data_index(p), 0) << p;
    }
  }
}

// One shard absent, another flipped: n-1 shards. An MDS code locates the flip when n-1 >= k+2 and
// never claims a culprit with n-1 = k+1; for the other codes, a culprit, when claimed, is right.
TEST_P(ShardConsistencyTest, OneFlippedByteWithOneShardAbsent) {
  int located = 0, cases = 0;
  for (int absent = 0; absent < n_; ++absent) {
    ShardSet ids = All();
    ids.erase(absent);
    for (int id : ids) {
      const std::uint64_t stripe = (id + absent) % 2 == 0 ? 0 : kStripes - 1;
      SCOPED_TRACE(Describe(id, stripe) + ", chunk " + std::to_string(absent) + " absent");
      const ShardCheck r = Check(Flip(o_.shards, id, stripe), ids);
      ++cases;
      if (!r.checked) {
        EXPECT_FALSE(GetParam().mds);
        continue;
      }
      if (GetParam().mds) {
        EXPECT_FALSE(r.consistent);
        EXPECT_EQ(r.located, n_ - 1 >= k_ + 2);
      }
      if (r.located) {
        EXPECT_EQ(r.bad, std::vector<int>{id});
        ++located;
      }
    }
  }
  std::cout << "[          ] " << GetParam().profile << ": " << located << " of " << cases
            << " located with one shard absent\n";
}

// k+1 shards (the data and one parity, so that every code can decode them), one flipped:
// inconsistent wherever the flip is visible, and never located.
TEST_P(ShardConsistencyTest, KPlusOneShardsAreNeverLocated) {
  for (int parity : o_.layout.parity_ids()) {
    ShardSet ids(o_.layout.data_ids().begin(), o_.layout.data_ids().end());
    ids.insert(parity);
    for (int id : ids) {
      SCOPED_TRACE(Describe(id, 1) + ", parity " + std::to_string(parity) + " given");
      const ShardCheck r = Check(Flip(o_.shards, id, 1), ids);
      EXPECT_TRUE(r.checked);
      EXPECT_FALSE(r.located);
      EXPECT_TRUE(r.bad.empty());
      // An MDS parity depends on every data chunk; a local or shingled one may not see the flip.
      if (GetParam().mds) {
        EXPECT_FALSE(r.consistent);
      }
      if (!r.consistent) {
        EXPECT_EQ(r.mismatched, std::vector<int>{parity});
      }
    }
  }
}

TEST_P(ShardConsistencyTest, KShardsAreNotChecked) {
  ShardSet ids(o_.layout.data_ids().begin(), o_.layout.data_ids().end());
  const ShardCheck r = Check(Flip(o_.shards, *ids.begin(), 0), ids);
  EXPECT_FALSE(r.checked);
  EXPECT_FALSE(r.consistent);
  EXPECT_FALSE(r.located);
  EXPECT_FALSE(Check(o_.shards, {}).checked);
}

// Two bad shards in different stripes: each stripe needs its own culprit, so none is named.
TEST_P(ShardConsistencyTest, TwoBadShardsAreNotBlamedOnOne) {
  for (int a = 0; a < n_; ++a) {
    for (int b = 0; b < n_; ++b) {
      if (a == b) continue;
      SCOPED_TRACE(Describe(a, 0) + " and " + Describe(b, kStripes - 1));
      const ShardCheck r = Check(Flip(Flip(o_.shards, a, 0), b, kStripes - 1), All());
      EXPECT_TRUE(r.checked);
      EXPECT_FALSE(r.consistent);
      EXPECT_FALSE(r.located);
      EXPECT_TRUE(r.located == false || r.bad == std::vector<int>{a} ||
                  r.bad == std::vector<int>{b});
    }
  }
}

TEST_P(ShardConsistencyTest, BadArgumentsAreEinval) {
  auto view = View(o_.shards, All());
  const std::vector<std::byte> longer(o_.shards[0].size() + 1);
  for (int id : {0, n_ - 1}) {
    auto v = view;
    v[id] = v[id].first(v[id].size() - 1);
    auto r = CheckShards(*o_.code, o_.layout, o_.stripes, v);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), EINVAL);
    EXPECT_NE(r.status().message().find("shard " + std::to_string(id)), std::string::npos)
        << r.status().message();
    v[id] = longer;
    EXPECT_EQ(CheckShards(*o_.code, o_.layout, o_.stripes, v).status().code(), EINVAL);
  }
  // Too short for the stripes asked, even with too few shards to compare.
  EXPECT_EQ(CheckShards(*o_.code, o_.layout, o_.stripes + 1, View(o_.shards, {0})).status().code(),
            EINVAL);
  for (int id : {-1, n_, n_ + 7}) {
    auto v = view;
    v[id] = o_.shards[0];
    auto r = CheckShards(*o_.code, o_.layout, o_.stripes, v);
    ASSERT_FALSE(r.ok()) << id;
    EXPECT_EQ(r.status().code(), EINVAL);
    EXPECT_NE(r.status().message().find("chunk id " + std::to_string(id)), std::string::npos)
        << r.status().message();
  }
  // A layout that describes another code.
  EXPECT_EQ(CheckShards(*o_.code, StripeLayout{}, o_.stripes, view).status().code(), EINVAL);
}

TEST_P(ShardConsistencyTest, NoStripesAreConsistent) {
  const std::vector<std::byte> empty;
  std::map<int, std::span<const std::byte>> v;
  for (int id = 0; id < n_; ++id) v[id] = empty;
  auto r = CheckShards(*o_.code, o_.layout, 0, v);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->checked);
  EXPECT_TRUE(r->consistent);
}

INSTANTIATE_TEST_SUITE_P(
    Codes, ShardConsistencyTest,
    ::testing::Values(
        CodeCase{"isa_k4_m2", "plugin=isa technique=reed_sol_van k=4 m=2", 4096, true},
        CodeCase{"isa_k4_m3", "plugin=isa technique=reed_sol_van k=4 m=3", 4096, true},
        CodeCase{"jerasure_k3_m2", "plugin=jerasure technique=reed_sol_van k=3 m=2", 4096, true},
        CodeCase{"clay_k4_m2_d5", "plugin=clay k=4 m=2 d=5", 4096, true},
        CodeCase{"clay_k3_m3_d5", "plugin=clay k=3 m=3 d=5", 9 * 512, true},
        CodeCase{"shec_k4_m3_c2", "plugin=shec k=4 m=3 c=2", 4096, false},
        CodeCase{"lrc_k4_m2_l3", "plugin=lrc k=4 m=2 l=3", 4096, false},
        // A replicated pool's (osd/pg/pool_codecs.h): 3 copies name the odd one out, 2 do not.
        CodeCase{"replicated_3", "plugin=replicated size=3", 4096, true},
        CodeCase{"replicated_4", "plugin=replicated size=4", 4096, true}),
    [](const ::testing::TestParamInfo<CodeCase>& info) { return std::string(info.param.name); });

// Beyond the contract's promise, made visible: with distance 3 (k=4 m=2), two wrong shards in one
// stripe can equal another codeword everywhere but at a third, intact shard, which is then
// "located". Here data chunk 0 and parity 4 are rewritten as if chunk 0 had changed; parity 5 is
// left alone and takes the blame.
class ShardConsistencyLimitsTest : public testing::SeededTest {};

TEST_F(ShardConsistencyLimitsTest, TwoErrorsInOneStripeCanPointAtAThirdShard) {
  const EncodedObject o =
      EncodeStripes("plugin=isa technique=reed_sol_van k=4 m=2", 4096, 3, seed_);
  ASSERT_TRUE(o.code);
  const std::size_t c = o.layout.chunk_size();
  ShardBytes shards = o.shards;
  shards[0][c + 17] ^= std::byte{0x5a};
  std::vector<std::span<const std::byte>> data;
  for (int id : o.layout.data_ids()) data.push_back(shards[static_cast<std::size_t>(id)]);
  std::vector<std::byte> p4(shards[4].size()), p5(shards[5].size());
  std::vector<std::span<std::byte>> parity = {p4, p5};
  ASSERT_TRUE(StripeCodec(*o.code, o.layout).EncodeShards(data, o.stripes, parity).ok());
  shards[4] = p4;  // parity 5 keeps the old bytes
  std::map<int, std::span<const std::byte>> view;
  for (int id = 0; id < 6; ++id) view[id] = shards[static_cast<std::size_t>(id)];
  auto r = CheckShards(*o.code, o.layout, o.stripes, view);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->consistent);
  EXPECT_TRUE(r->located);
  EXPECT_EQ(r->bad, std::vector<int>{5});
  EXPECT_EQ(r->mismatched, std::vector<int>{5});
}

// Shards longer than one batch (256 KiB of each shard): flips in the first and the last batch.
TEST_F(ShardConsistencyLimitsTest, ManyBatches) {
  const std::uint64_t stripes = 150;  // 64 stripes of 4 KiB per batch: three batches
  const EncodedObject o =
      EncodeStripes("plugin=jerasure technique=reed_sol_van k=3 m=2", 4096, stripes, seed_);
  ASSERT_TRUE(o.code);
  std::map<int, std::span<const std::byte>> view;
  for (int id = 0; id < 5; ++id) view[id] = o.shards[static_cast<std::size_t>(id)];
  auto r = CheckShards(*o.code, o.layout, o.stripes, view);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->consistent);
  for (std::uint64_t stripe :
       {std::uint64_t{0}, std::uint64_t{63}, std::uint64_t{64}, stripes - 1}) {
    for (int id : {1, 3}) {
      ShardBytes shards = o.shards;
      shards[static_cast<std::size_t>(id)][stripe * 4096 + 4095] ^= std::byte{1};
      for (int i = 0; i < 5; ++i) view[i] = shards[static_cast<std::size_t>(i)];
      r = CheckShards(*o.code, o.layout, o.stripes, view);
      ASSERT_TRUE(r.ok()) << r.status().message();
      EXPECT_FALSE(r->consistent) << stripe;
      EXPECT_TRUE(r->located) << stripe;
      EXPECT_EQ(r->bad, std::vector<int>{id}) << stripe;
    }
  }
  // The same shard wrong in two batches is still one culprit; two shards in two batches are not.
  ShardBytes shards = o.shards;
  shards[2][5] ^= std::byte{1};
  shards[2][(stripes - 1) * 4096] ^= std::byte{1};
  for (int i = 0; i < 5; ++i) view[i] = shards[static_cast<std::size_t>(i)];
  r = CheckShards(*o.code, o.layout, o.stripes, view);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->bad, std::vector<int>{2});
  shards[4][100 * 4096] ^= std::byte{1};
  r = CheckShards(*o.code, o.layout, o.stripes, view);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->consistent);
  EXPECT_FALSE(r->located);
  EXPECT_TRUE(r->bad.empty());
}

}  // namespace
}  // namespace ec::recovery
