// The fast path against the reference path: the same programs built for ISA-L fused steps and for
// plain sub-code calls (one pft/mds call per step, Ceph's way) must give the same bytes, for
// layered encode/decode, full repair and partial repair, on random data (seed printed).
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>

#include "ec/plugin.h"
#include "plugins/clay/clay_engine.h"
#include "plugins/clay/clay_test_util.h"
#include "tests/support/test_env.h"

namespace ec::clay {
namespace {

struct Codes {
  ClayLayout layout;
  PairCode pair;
  MdsCode mds;
};

// Sub-codes of a jerasure reed_sol_van CLAY, with or without the matrix fast path.
std::unique_ptr<Codes> MakeCodes(int k, int m, int d, bool fast) {
  auto codes = std::make_unique<Codes>();
  codes->layout = *ClayLayout::Make(k, m, d);
  auto make = [](int sk, int sm) {
    Profile p{{"technique", "reed_sol_van"},
              {"k", std::to_string(sk)},
              {"m", std::to_string(sm)},
              {"w", "8"}};
    ErasureCodeInterfaceRef code;
    Status s = PluginRegistry::instance().factory("jerasure", PluginRegistry::default_directory(),
                                                  p, &code);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return code;
  };
  EXPECT_TRUE(codes->pair.Init(make(2, 2), fast).ok());
  EXPECT_TRUE(
      codes->mds.Init(make(k + codes->layout.nu(), m), k + codes->layout.nu(), m, fast).ok());
  return codes;
}

// Runs `program` with `bound` slots (others get fresh scratch).
void RunWith(const Program& program, const Codes& codes, std::size_t sub,
             std::vector<std::uint8_t*> slots) {
  std::vector<std::vector<std::uint8_t>> scratch;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    if (slots[s] == nullptr && program.scratch_sub_chunks[s] != 0) {
      scratch.emplace_back(program.scratch_sub_chunks[s] * sub, 0xAA);
      slots[s] = scratch.back().data();
    }
  }
  std::vector<std::uint8_t> zeros(std::max<std::size_t>(program.zero_sub_chunks, 1) * sub, 0);
  std::vector<std::uint8_t> spare(std::max<std::size_t>(program.max_count, 1) * sub);
  Status st =
      RunProgram(program, codes.pair, codes.mds, sub, slots.data(), zeros.data(), spare.data());
  ASSERT_TRUE(st.ok()) << st.ToString();
}

TEST(ClayEngine, FastPathMatchesSubCodeCalls) {
  std::mt19937_64 rng(ectest::Seed() + 20);
  const int triples[][3] = {{4, 2, 5}, {4, 3, 5}, {7, 5, 9}, {8, 3, 10}, {9, 6, 12}, {5, 4, 6}};
  for (const auto& t : triples) {
    const int k = t[0], m = t[1], d = t[2];
    auto fast = MakeCodes(k, m, d, true);
    auto slow = MakeCodes(k, m, d, false);
    ASSERT_TRUE(fast->mds.linear() && !slow->mds.linear());
    const ClayLayout& l = fast->layout;
    const int n = l.nodes();
    const int z = l.sub_chunk_count();
    const std::size_t sub = 32 * (1 + rng() % 3);  // 32 and 96 end in a partial vector
    const std::size_t chunk = sub * z;
    // Random coupled data for the real data nodes; encode both ways.
    std::vector<std::vector<std::uint8_t>> c(n, std::vector<std::uint8_t>(chunk, 0));
    for (int j = 0; j < k; ++j)
      for (auto& byte : c[j]) byte = static_cast<std::uint8_t>(rng());
    std::vector<int> parity;
    for (int j = k + l.nu(); j < n; ++j) parity.push_back(j);
    std::vector<std::vector<std::uint8_t>> by_fast = c, by_slow = c;
    for (int variant = 0; variant < 4; ++variant) {
      const bool direct = variant % 2 != 0, fold = variant / 2 != 0;
      auto pf = BuildLayeredProgram(l, fast->pair, fast->mds, parity, direct, fold);
      auto ps = BuildLayeredProgram(l, slow->pair, slow->mds, parity, direct, fold);
      ASSERT_TRUE(pf.ok() && ps.ok());
      std::vector<std::uint8_t*> sf(2 * n, nullptr), ss(2 * n, nullptr);
      for (int j = 0; j < n; ++j) {
        if (l.is_virtual(j)) continue;
        sf[j] = by_fast[j].data();
        ss[j] = by_slow[j].data();
      }
      RunWith(**pf, *fast, sub, sf);
      RunWith(**ps, *slow, sub, ss);
      for (int j : parity) ASSERT_EQ(by_fast[j], by_slow[j]) << k << m << d << " node " << j;
    }
    // Random erasures, decoded both ways, equal to the encoded chunks.
    const std::vector<std::vector<std::uint8_t>>& coded = by_fast;
    for (int trial = 0; trial < 8; ++trial) {
      std::vector<int> real;
      for (int j = 0; j < n; ++j)
        if (!l.is_virtual(j)) real.push_back(j);
      std::shuffle(real.begin(), real.end(), rng);
      std::vector<int> erased(real.begin(), real.begin() + 1 + rng() % m);
      std::sort(erased.begin(), erased.end());
      auto pf = BuildLayeredProgram(l, fast->pair, fast->mds, erased, trial % 2, trial / 2 % 2);
      auto ps = BuildLayeredProgram(l, slow->pair, slow->mds, erased, trial % 2, trial / 2 % 2);
      ASSERT_TRUE(pf.ok() && ps.ok());
      std::vector<std::vector<std::uint8_t>> of(n), os(n);
      std::vector<std::uint8_t*> sf(2 * n, nullptr), ss(2 * n, nullptr);
      for (int j = 0; j < n; ++j) {
        if (l.is_virtual(j)) continue;
        const bool lost = std::count(erased.begin(), erased.end(), j) > 0;
        of[j] = lost ? std::vector<std::uint8_t>(chunk, 0x55) : coded[j];
        os[j] = lost ? std::vector<std::uint8_t>(chunk, 0x66) : coded[j];
        sf[j] = of[j].data();
        ss[j] = os[j].data();
      }
      RunWith(**pf, *fast, sub, sf);
      RunWith(**ps, *slow, sub, ss);
      for (int e : erased) {
        EXPECT_EQ(of[e], coded[e]) << k << m << d << " fast, erased node " << e;
        EXPECT_EQ(os[e], coded[e]) << k << m << d << " slow, erased node " << e;
      }
    }
    // Repairs (full and partial, random helper sets) both ways.
    for (int trial = 0; trial < 6; ++trial) {
      const int lost = static_cast<int>(rng() % (k + m));
      const std::vector<int> peers = l.group_peers(lost);
      ShardSet helpers(peers.begin(), peers.end());
      while (helpers.size() < static_cast<std::size_t>(d)) {
        const int h = static_cast<int>(rng() % (k + m));
        if (h != lost) helpers.insert(h);
      }
      const int first = trial < 2 ? 0 : static_cast<int>(rng() % z);
      const int count = trial < 2 ? z : 1 + static_cast<int>(rng() % (z - first));
      const bool fold = rng() % 2 != 0;
      auto rf = BuildRepairProgram(l, fast->pair, fast->mds, lost, helpers, {first, count}, fold);
      auto rs = BuildRepairProgram(l, slow->pair, slow->mds, lost, helpers, {first, count}, fold);
      ASSERT_TRUE(rf.ok() && rs.ok());
      ASSERT_EQ((*rf)->reads, (*rs)->reads);
      std::vector<std::vector<std::uint8_t>> sent;
      std::vector<std::uint8_t*> slots(2 * n + 1, nullptr);
      for (int h : helpers) {
        std::vector<std::uint8_t> buf;
        for (auto [f, cnt] : (*rf)->reads.at(h)) {
          const auto& src = coded[l.node_of_chunk(h)];
          buf.insert(buf.end(), src.begin() + f * sub, src.begin() + (f + cnt) * sub);
        }
        sent.push_back(std::move(buf));
        slots[l.node_of_chunk(h)] = sent.back().data();
      }
      std::vector<std::uint8_t> out_f(count * sub, 1), out_s(count * sub, 2);
      std::vector<std::uint8_t*> sf = slots, ss = slots;
      sf[2 * n] = out_f.data();
      ss[2 * n] = out_s.data();
      RunWith((*rf)->program, *fast, sub, sf);
      RunWith((*rs)->program, *slow, sub, ss);
      const auto& want = coded[l.node_of_chunk(lost)];
      const std::vector<std::uint8_t> expect(want.begin() + first * sub,
                                             want.begin() + (first + count) * sub);
      EXPECT_EQ(out_f, expect) << k << m << d << " fast repair of " << lost;
      EXPECT_EQ(out_s, expect) << k << m << d << " slow repair of " << lost;
    }
  }
}

TEST(ClayEngine, MergedProgramsAreSmall) {
  // Encode of (4,2,5) is a handful of kernel calls, not one per sub-chunk.
  auto codes = MakeCodes(4, 2, 5, true);
  auto p = BuildLayeredProgram(codes->layout, codes->pair, codes->mds, {4, 5}, false, false);
  ASSERT_TRUE(p.ok());
  EXPECT_LE((*p)->ops.size(), 24u);
  ShardSet helpers{1, 2, 3, 4, 5};
  auto r = BuildRepairProgram(codes->layout, codes->pair, codes->mds, 0, helpers, {0, 8}, true);
  ASSERT_TRUE(r.ok());
  EXPECT_LE((*r)->program.ops.size(), 8u);  // one fused solve (pairs folded in) per plane
  EXPECT_EQ((*r)->sub_chunks_read, 5 * 4);
}

}  // namespace
}  // namespace ec::clay
