// The interface contract, proven for every plugin over many profiles (in the spirit of Ceph's
// TestErasureCodePlugins.cc): profile round trip, chunk sizes, minimum_to_decode plans (whole
// chunks or sub-chunk ranges), decode from exactly what the plan asked for, any-k decode,
// chunk mapping, decode_concat, and concurrent use. Random data; the seed is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

#include "ec/plugin.h"
#include "ec/stripe_layout.h"

namespace ec {
namespace {

struct Case {
  const char* profile;
  unsigned stripe_width;
  // Every loss of this many chunks or fewer decodes; 0: every loss of up to the coding chunk count
  // (an MDS code). A locally repairable code (lrc) tolerates fewer: it tolerates its m; shec
  // tolerates 1. A larger loss may decode or not, but minimum_to_decode and decode must agree.
  unsigned tolerates = 0;
  // lrc's JSON `layers` (it holds commas, which separate profile pairs), set after parsing.
  const char* layers = nullptr;
};

std::ostream& operator<<(std::ostream& os, const Case& c) {
  return os << "'" << c.profile << "' sw=" << c.stripe_width;
}

class Contract : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    seed_ = std::random_device{}();
    std::cout << "seed=" << seed_ << " profile=" << GetParam().profile << "\n";
    auto parsed = ParseProfile(GetParam().profile);
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    profile_ = *parsed;
    if (GetParam().layers != nullptr) profile_["layers"] = GetParam().layers;
    const std::string plugin = profile_.at("plugin");
    Status s = PluginRegistry::instance().factory(plugin, PluginRegistry::default_directory(),
                                                  profile_, &code_);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  std::vector<std::byte> RandomBytes(std::size_t n, std::mt19937& rng) {
    std::vector<std::byte> v(n);
    for (auto& b : v) b = static_cast<std::byte>(rng());
    return v;
  }

  // The bytes of `chunk` named by `ranges`, concatenated: what a helper would send.
  Buffer Extract(const Buffer& chunk, const std::vector<SubChunkRange>& ranges) {
    const std::size_t sub = chunk.size() / code_->get_sub_chunk_count();
    std::size_t total = 0;
    for (auto [first, count] : ranges) total += static_cast<std::size_t>(count) * sub;
    Buffer out = Buffer::Allocate(total, false);
    std::size_t off = 0;
    for (auto [first, count] : ranges) {
      std::memcpy(out.data() + off, chunk.data() + static_cast<std::size_t>(first) * sub,
                  static_cast<std::size_t>(count) * sub);
      off += static_cast<std::size_t>(count) * sub;
    }
    return out;
  }

  // The loss size every pattern of which decodes.
  unsigned Tolerates() const {
    return GetParam().tolerates ? GetParam().tolerates : code_->get_coding_chunk_count();
  }
  bool Mds() const { return Tolerates() == code_->get_coding_chunk_count(); }

  unsigned seed_ = 0;
  Profile profile_;
  ErasureCodeInterfaceRef code_;
};

TEST_P(Contract, ProfileRoundTrips) {
  ErasureCodeInterfaceRef again;
  Profile copy = code_->get_profile();
  ASSERT_TRUE(PluginRegistry::instance()
                  .factory(copy.at("plugin"), PluginRegistry::default_directory(), copy, &again)
                  .ok());
  EXPECT_EQ(again->get_profile(), code_->get_profile());
  EXPECT_EQ(again->get_chunk_count(), code_->get_chunk_count());
  EXPECT_EQ(code_->get_chunk_count(),
            code_->get_data_chunk_count() + code_->get_coding_chunk_count());
  EXPECT_GE(code_->get_sub_chunk_count(), 1u);
}

TEST_P(Contract, ChunkSizeHoldsTheStripe) {
  const unsigned k = code_->get_data_chunk_count();
  for (unsigned sw : {1u, 100u, 4096u, 4651u, 65536u, GetParam().stripe_width}) {
    unsigned c = code_->get_chunk_size(sw);
    EXPECT_GE(static_cast<std::size_t>(c) * k, sw) << sw;
    EXPECT_EQ(c % code_->get_sub_chunk_count(), 0u) << sw;
    // Idempotent: a stripe of k whole chunks needs no more padding.
    EXPECT_EQ(code_->get_chunk_size(c * k), c) << sw;
  }
}

TEST_P(Contract, EncodeIsSystematicAndEveryPlanDecodes) {
  std::mt19937 rng(seed_);
  const unsigned n = code_->get_chunk_count();
  const unsigned k = code_->get_data_chunk_count();
  const unsigned m = n - k;
  const unsigned sw = GetParam().stripe_width;
  auto in = RandomBytes(sw, rng);
  ShardSet all;
  for (unsigned i = 0; i < n; ++i) all.insert(static_cast<int>(i));
  ChunkMap encoded;
  ASSERT_TRUE(code_->encode(all, in, &encoded).ok());
  ASSERT_EQ(encoded.size(), n);
  const std::size_t cs = code_->get_chunk_size(sw);
  for (auto& [id, b] : encoded) ASSERT_EQ(b.size(), cs);
  // Systematic: data piece i is the input's bytes, padded with zeros.
  Buffer concat;
  ASSERT_TRUE(code_->decode_concat({}, encoded, &concat).ok());
  ASSERT_EQ(concat.size(), cs * k);
  EXPECT_EQ(std::memcmp(concat.data(), in.data(), sw), 0);
  for (std::size_t b = sw; b < cs * k; ++b) ASSERT_EQ(concat.data()[b], std::byte{0});

  // Erasure sets: all of size 1..m when small, else random ones.
  std::vector<ShardSet> patterns;
  if (n <= 8) {
    for (unsigned mask = 1; mask < (1u << n); ++mask) {
      if (static_cast<unsigned>(__builtin_popcount(mask)) > m) continue;
      ShardSet lost;
      for (unsigned i = 0; i < n; ++i)
        if (mask & (1u << i)) lost.insert(static_cast<int>(i));
      patterns.push_back(lost);
    }
  } else {
    for (int t = 0; t < 40; ++t) {
      std::vector<int> ids(all.begin(), all.end());
      std::shuffle(ids.begin(), ids.end(), rng);
      patterns.emplace_back(ids.begin(), ids.begin() + 1 + rng() % m);
    }
  }
  int decodable = 0;
  for (const ShardSet& lost : patterns) {
    ShardSet avail;
    for (int id : all)
      if (!lost.count(id)) avail.insert(id);
    ChunkMap survivors;
    for (int id : avail) survivors[id] = encoded[id];
    if (lost.size() > Tolerates()) {
      // Beyond what the code promises: the plan and decode agree on whether it is possible.
      auto plan = code_->minimum_to_decode(lost, avail);
      ChunkMap decoded;
      Status s = code_->decode(lost, survivors, &decoded, cs);
      ASSERT_EQ(plan.ok(), s.ok()) << lost.size() << " lost: " << s.ToString();
      if (!plan.ok()) {
        EXPECT_EQ(plan.status().code(), EIO);
        continue;
      }
    }
    ++decodable;
    for (int want : lost) {
      // Plan, then give decode exactly the sub-chunks the plan names.
      auto plan = code_->minimum_to_decode({want}, avail);
      if (!plan.ok() && lost.size() > Tolerates()) continue;
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      ChunkMap helpers;
      for (const auto& [id, ranges] : *plan) {
        ASSERT_TRUE(avail.count(id)) << "plan reads lost chunk " << id;
        helpers[id] = Extract(encoded[id], ranges);
      }
      ChunkMap decoded;
      Status s = code_->decode({want}, helpers, &decoded, cs);
      ASSERT_TRUE(s.ok()) << s.ToString() << " want " << want;
      ASSERT_EQ(decoded[want].size(), cs);
      ASSERT_EQ(std::memcmp(decoded[want].data(), encoded[want].data(), cs), 0)
          << "chunk " << want << " rebuilt wrongly, " << lost.size() << " lost";
    }
    // All lost chunks at once from all survivors.
    ChunkMap decoded;
    ASSERT_TRUE(code_->decode(lost, survivors, &decoded, cs).ok());
    for (int id : lost) ASSERT_EQ(std::memcmp(decoded[id].data(), encoded[id].data(), cs), 0);
  }
  EXPECT_GT(decodable, 0);
}

TEST_P(Contract, TooFewChunksIsEIO) {
  const unsigned k = code_->get_data_chunk_count();
  ShardSet avail;
  for (unsigned i = 1; i < k; ++i) avail.insert(static_cast<int>(i));
  // k-1 chunks never give back all k data chunks; for an MDS code not even one lost chunk.
  ShardSet data;
  for (unsigned i = 0; i < k; ++i) {
    const auto& mapping = code_->get_chunk_mapping();
    data.insert(i < mapping.size() ? mapping[i] : static_cast<int>(i));
  }
  const ShardSet want = Mds() ? ShardSet{0} : data;
  EXPECT_EQ(code_->minimum_to_decode(want, avail).status().code(), EIO);
  std::mt19937 rng(seed_);
  auto in = RandomBytes(GetParam().stripe_width, rng);
  ChunkMap encoded, decoded;
  ShardSet all;
  for (unsigned i = 0; i < code_->get_chunk_count(); ++i) all.insert(static_cast<int>(i));
  ASSERT_TRUE(code_->encode(all, in, &encoded).ok());
  ChunkMap few;
  for (int id : avail) few[id] = encoded[id];
  Status s = code_->decode(want, few, &decoded, encoded[0].size());
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(code_->minimum_to_decode({-1}, all).status().code(), EINVAL);
}

TEST_P(Contract, CostsChooseASufficientCheapSet) {
  const unsigned n = code_->get_chunk_count();
  const unsigned k = code_->get_data_chunk_count();
  std::map<int, int> costs;
  for (unsigned i = 1; i < n; ++i) costs[static_cast<int>(i)] = (i == 1) ? 1000 : 1;
  auto r = code_->minimum_to_decode_with_cost({0}, costs);
  ASSERT_TRUE(r.ok()) << r.status().message();
  if (Mds()) {
    EXPECT_GE(r->size(), std::min(k, n - 1));
  }
  auto enough = code_->minimum_to_decode({0}, *r);
  EXPECT_TRUE(enough.ok()) << "the chosen set cannot rebuild chunk 0";
  auto cost_of = [&](const ShardSet& set) {
    long total = 0;
    for (int id : set) total += costs.at(id);
    return total;
  };
  if (Mds() && n - 1 > k) {
    EXPECT_FALSE(r->count(1)) << "picked the expensive chunk";
  }
  // Never dearer than what the code reads when costs are ignored.
  ShardSet others;
  for (const auto& [id, cost] : costs) others.insert(id);
  auto plain = code_->minimum_to_decode({0}, others);
  ASSERT_TRUE(plain.ok());
  ShardSet plain_set;
  for (const auto& [id, ranges] : *plain) plain_set.insert(id);
  EXPECT_LE(cost_of(*r), cost_of(plain_set));
}

TEST_P(Contract, ConcurrentDecodesAgree) {
  std::mt19937 rng(seed_);
  const unsigned n = code_->get_chunk_count();
  const unsigned m = code_->get_coding_chunk_count();
  auto in = RandomBytes(GetParam().stripe_width, rng);
  ShardSet all;
  for (unsigned i = 0; i < n; ++i) all.insert(static_cast<int>(i));
  ChunkMap encoded;
  ASSERT_TRUE(code_->encode(all, in, &encoded).ok());
  // Patterns of m losses (fewer for codes that are not MDS, down to the first that decodes).
  auto pattern = [&](int t, int rep) {
    ShardSet lost;
    for (unsigned j = 0; j < m; ++j) lost.insert(static_cast<int>((t + rep + j * 3) % n));
    while (!Mds() && lost.size() > 1) {
      ShardSet avail;
      for (int id : all)
        if (!lost.count(id)) avail.insert(id);
      if (code_->minimum_to_decode(lost, avail).ok()) break;
      lost.erase(std::prev(lost.end()));
    }
    return lost;
  };
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        const ShardSet lost = pattern(t, rep);
        ChunkMap avail;
        for (int id : all)
          if (!lost.count(id)) avail[id] = encoded[id];
        ChunkMap out;
        if (!code_->decode(lost, avail, &out, encoded[0].size()).ok()) ++failures;
        for (int id : lost)
          if (out[id].size() != encoded[id].size() ||
              std::memcmp(out[id].data(), encoded[id].data(), out[id].size()) != 0)
            ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// Fast EC's stored shards (StripeLayout with Padding::kNone): each shard keeps stored_size()
// bytes, and every byte the padded encoding has past that is zero, so padding the stored shards
// back gives exactly the padded (Ceph's) bytes. That proves each plugin's
// get_minimum_granularity() and the parity inputs the layout finds. Data shards keep exactly the
// object's bytes, and a parity shard never keeps more than the padded shard.
TEST_P(Contract, UnpaddedShardsPadBackToThePaddedEncoding) {
  std::mt19937 rng(seed_);
  const unsigned n = code_->get_chunk_count();
  const unsigned k = code_->get_data_chunk_count();
  const unsigned chunk = code_->get_chunk_size(GetParam().stripe_width);
  auto layout = StripeLayout::Make(*code_, chunk, Padding::kNone);
  ASSERT_TRUE(layout.ok()) << layout.status().ToString();
  const std::uint64_t width = layout->stripe_width();
  std::vector<std::uint64_t> sizes = {1,     chunk - 1, chunk,         chunk + 1, width - 1,
                                      width, width + 1, 2 * width + 7, 3 * width};
  if (layout->granularity() > 1) sizes.push_back(layout->granularity() + 1);
  for (int i = 0; i < 6; ++i) sizes.push_back(1 + rng() % (3 * width));
  ShardSet all;
  for (unsigned id = 0; id < n; ++id) all.insert(static_cast<int>(id));
  for (std::uint64_t size : sizes) {
    SCOPED_TRACE("object size " + std::to_string(size));
    auto object = RandomBytes(size, rng);
    const std::uint64_t stripes = layout->stripes_of(size);
    std::vector<std::vector<std::byte>> shards(n);
    for (std::uint64_t s = 0; s < stripes; ++s) {
      const std::size_t from = static_cast<std::size_t>(s * width);
      const std::size_t len = std::min<std::size_t>(width, size - from);
      // The last stripe padded with zeros to the whole width, as the legacy layout stores it.
      std::vector<std::byte> stripe(width, std::byte{0});
      std::memcpy(stripe.data(), object.data() + from, len);
      ChunkMap encoded;
      ASSERT_TRUE(code_->encode(all, stripe, &encoded).ok());
      for (unsigned id = 0; id < n; ++id) {
        const Buffer& c = encoded.at(static_cast<int>(id));
        ASSERT_EQ(c.size(), chunk);
        shards[id].insert(shards[id].end(), c.data(), c.data() + c.size());
      }
    }
    std::uint64_t data_bytes = 0;
    for (unsigned id = 0; id < n; ++id) {
      const std::uint64_t stored = layout->stored_size(size, static_cast<int>(id));
      ASSERT_LE(stored, layout->padded_shard_size(size)) << "chunk " << id;
      ASSERT_EQ(shards[id].size(), layout->padded_shard_size(size));
      const auto tail_nonzero =
          std::find_if(shards[id].begin() + static_cast<std::ptrdiff_t>(stored), shards[id].end(),
                       [](std::byte b) { return b != std::byte{0}; });
      EXPECT_EQ(tail_nonzero, shards[id].end())
          << "chunk " << id << " stores " << stored << " bytes but byte "
          << (tail_nonzero - shards[id].begin()) << " of the padded shard is not zero";
      if (layout->data_index(static_cast<int>(id)) >= 0) data_bytes += stored;
    }
    EXPECT_EQ(data_bytes, size);
  }
  (void)k;
}

// Issue 28's first target: a new 4 KiB object in a 4+2 pool stores 12 KiB (its data chunk and
// two parity chunks of 4 KiB), with 4 KiB and with 16 KiB stripe units; nothing on the three
// other data shards.
TEST(UnpaddedLayout, FourKiBObjectInFourPlusTwoStoresTwelveKiB) {
  for (const char* text :
       {"plugin=isa k=4 m=2", "plugin=jerasure k=4 m=2 technique=reed_sol_van"}) {
    auto parsed = ParseProfile(text);
    ASSERT_TRUE(parsed.ok());
    Profile profile = *parsed;
    ErasureCodeInterfaceRef code;
    ASSERT_TRUE(
        PluginRegistry::instance()
            .factory(profile.at("plugin"), PluginRegistry::default_directory(), profile, &code)
            .ok());
    for (std::uint64_t su : {4096u, 16384u}) {
      auto layout = StripeLayout::Make(*code, su, Padding::kNone);
      ASSERT_TRUE(layout.ok()) << layout.status().ToString();
      std::uint64_t total = 0;
      unsigned holding = 0;
      for (int id = 0; id < 6; ++id) {
        total += layout->stored_size(4096, id);
        holding += layout->stored_size(4096, id) > 0 ? 1 : 0;
      }
      EXPECT_EQ(total, 12288u) << text << " su " << su;
      EXPECT_EQ(holding, 3u) << text << " su " << su;
      auto padded = StripeLayout::Make(*code, su);
      ASSERT_TRUE(padded.ok());
      EXPECT_EQ(padded->stored_size(4096, 1), su);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Plugins, Contract,
    ::testing::Values(
        Case{"plugin=jerasure technique=reed_sol_van k=2 m=1", 4096},
        Case{"plugin=jerasure technique=reed_sol_van k=4 m=2", 4651},
        Case{"plugin=jerasure technique=reed_sol_van k=6 m=3 w=16", 8192},
        Case{"plugin=jerasure technique=reed_sol_van k=5 m=3 w=32", 10000},
        Case{"plugin=jerasure technique=reed_sol_van k=4 m=2 jerasure-per-chunk-alignment=true",
             4651},
        Case{"plugin=jerasure technique=reed_sol_van k=4 m=2 mapping=_DD_DD", 4096},
        Case{"plugin=jerasure technique=reed_sol_r6_op k=5 m=2", 4096},
        Case{"plugin=jerasure technique=cauchy_orig k=4 m=3 packetsize=32", 4651},
        Case{"plugin=jerasure technique=cauchy_good k=6 m=2 packetsize=32", 8192},
        Case{"plugin=jerasure technique=cauchy_good k=10 m=4 packetsize=64", 65536},
        Case{"plugin=jerasure technique=liberation k=5 m=2 w=7 packetsize=32", 4096},
        Case{"plugin=jerasure technique=blaum_roth k=4 m=2 w=6 packetsize=32", 4096},
        Case{"plugin=jerasure technique=liber8tion k=6 m=2 packetsize=32", 4096},
        Case{"plugin=isa technique=reed_sol_van k=2 m=1", 4096},
        Case{"plugin=isa technique=reed_sol_van k=8 m=3", 65536},
        Case{"plugin=isa technique=reed_sol_van k=10 m=4", 10000},
        Case{"plugin=isa technique=cauchy k=3 m=1", 4651},
        Case{"plugin=isa technique=cauchy k=12 m=6", 65536},
        Case{"plugin=isa technique=cauchy k=4 m=2 mapping=DD__DD", 4096},
        Case{"plugin=clay k=4 m=2", 16384}, Case{"plugin=clay k=4 m=2 d=4", 8192},
        Case{"plugin=clay k=4 m=3 d=5", 16384}, Case{"plugin=clay k=6 m=3 d=8", 41472},
        Case{"plugin=clay k=5 m=3 d=6 scalar_mds=isa", 40960},
        Case{"plugin=clay k=4 m=2 scalar_mds=isa technique=cauchy", 16384},
        Case{"plugin=clay k=10 m=4 d=13", 81920}, Case{"plugin=lrc k=4 m=2 l=3", 4651, 2},
        Case{"plugin=lrc k=2 m=2 l=2", 4096, 2}, Case{"plugin=lrc k=8 m=4 l=3", 65536, 4},
        Case{"plugin=lrc mapping=__DD__DD", 8192, 2,
             R"([["_cDD_cDD","plugin=isa"],["cDDD____",""],["____cDDD",""]])"},
        // SHEC is not MDS: every single loss decodes, some larger ones (up to m) do not.
        Case{"plugin=shec k=4 m=3 c=2", 4096, 1},
        Case{"plugin=shec technique=single k=6 m=3 c=2 w=16", 4651, 1},
        Case{"plugin=shec k=8 m=4 c=3 w=32", 65536, 1}),
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = std::to_string(info.index) + "_" + info.param.profile;
      for (auto& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

}  // namespace
}  // namespace ec
