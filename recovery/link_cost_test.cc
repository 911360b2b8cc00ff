// recovery/link_cost.h: the times of a direct repair and of a chain, and the choice between them.
#include "recovery/link_cost.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

namespace ec::recovery {
namespace {

constexpr std::uint64_t kGbit = 125'000'000;  // bytes/s
constexpr std::uint64_t kMbit100 = 12'500'000;
constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kSlice = 256 * kKiB;

// RS(k, m)'s repair of a shard of `c` bytes: k helpers sending c each directly, or a chain of k
// hops; the requester's link at `requester`, each helper's at `helper`.
LinkCostInput Rs(int k, std::uint64_t c, std::uint64_t requester, std::uint64_t helper) {
  LinkCostInput in;
  in.requester_bandwidth = requester;
  for (int i = 0; i < k; ++i) {
    in.direct.push_back({helper, c});
    in.chain.push_back(helper);
  }
  in.chain_bytes = c;
  in.slice_bytes = kSlice;
  return in;
}

// With every link equal the rule is C >= s and D >= 2 (C + n s) (the header says so), at every
// bandwidth and with every bandwidth unknown alike.
TEST(LinkCost, EqualLinksGiveTheDocumentedRule) {
  for (std::uint64_t bw : {std::uint64_t{0}, kMbit100, kGbit}) {
    for (int k : {2, 4, 10}) {
      for (std::uint64_t slices : {1, 2, 3, 4, 5, 8, 16, 64}) {
        const std::uint64_t c = slices * kSlice;
        const LinkCostEstimate e = EstimateRepairLinks(Rs(k, c, bw, bw));
        const std::uint64_t d = static_cast<std::uint64_t>(k) * c;
        const bool rule = d >= 2 * (c + static_cast<std::uint64_t>(k) * kSlice);
        EXPECT_EQ(e.chain, rule) << "k=" << k << " slices=" << slices << " bw=" << bw;
        const double unit = bw == 0 ? 1.0 : static_cast<double>(bw);
        EXPECT_DOUBLE_EQ(e.direct_seconds, static_cast<double>(d) / unit);
        EXPECT_DOUBLE_EQ(e.chain_seconds, static_cast<double>(c + k * kSlice) / unit);
      }
    }
  }
  // The boundary itself: RS(4,2) from four slices on (D = 16 s = 2 x (4 s + 4 s)).
  EXPECT_FALSE(EstimateRepairLinks(Rs(4, 4 * kSlice - 1, 0, 0)).chain);
  EXPECT_TRUE(EstimateRepairLinks(Rs(4, 4 * kSlice, 0, 0)).chain);
  // Below one slice never, whatever the bytes (the fill is then the chain's bytes themselves).
  LinkCostInput tiny = Rs(10, kSlice - 1, 0, 0);
  EXPECT_FALSE(EstimateRepairLinks(tiny).chain);
  // A shard of many slices: the rule of equal links before the model, D >= 2C.
  LinkCostInput two = Rs(2, 4096 * kSlice, kGbit, kGbit);
  EXPECT_FALSE(EstimateRepairLinks(two).chain);  // D = 2C, the fill tips it
  LinkCostInput three = Rs(3, 4096 * kSlice, kGbit, kGbit);
  EXPECT_TRUE(EstimateRepairLinks(three).chain);
}

// The requester's link fast (10 Gbit/s), the helpers' slow (1 Gbit/s): the direct repair is
// paced by each helper sending its own chunk, all at once; the chain by a slow link carrying the
// chunk, plus its fill: direct.
TEST(LinkCost, FastRequesterSlowHelpersPullsDirectly) {
  const LinkCostEstimate e = EstimateRepairLinks(Rs(4, 16 * kSlice, 10 * kGbit, kGbit));
  EXPECT_FALSE(e.chain);
  EXPECT_DOUBLE_EQ(e.direct_seconds, 16.0 * kSlice / kGbit);  // one chunk on a helper's link
  EXPECT_LT(e.direct_seconds, e.chain_seconds);
  // The same repair on equal links chains: the requester's link made the difference.
  EXPECT_TRUE(EstimateRepairLinks(Rs(4, 16 * kSlice, kGbit, kGbit)).chain);
}

// The requester's link slow (100 Mbit/s), the helpers' fast: the direct repair brings k chunks
// through it, the chain one: the chain, where equal links would not (a short shard).
TEST(LinkCost, SlowRequesterLinkChains) {
  const std::uint64_t c = 3 * kSlice;
  EXPECT_FALSE(EstimateRepairLinks(Rs(4, c, kGbit, kGbit)).chain);  // 12 s < 2 x 7 s
  const LinkCostEstimate e = EstimateRepairLinks(Rs(4, c, kMbit100, kGbit));
  EXPECT_TRUE(e.chain);
  EXPECT_DOUBLE_EQ(e.direct_seconds, 4.0 * c / kMbit100);
  // The chain's last link runs at the requester's pace: only that link is slow, and the slice
  // crosses the three others fast.
  EXPECT_DOUBLE_EQ(e.chain_seconds,
                   static_cast<double>(c + kSlice) / kMbit100 + 3.0 * kSlice / kGbit);
}

// One helper of the chain on a slow link (100 Mbit/s): every link carries the chunk, so the slow
// one paces the whole chain; the direct repair sends it only that helper's chunk: direct.
TEST(LinkCost, ASlowHelperMakesTheChainLose) {
  LinkCostInput in = Rs(10, 64 * kSlice, kGbit, kGbit);
  EXPECT_TRUE(EstimateRepairLinks(in).chain);
  in.direct[3].bandwidth = kMbit100;
  in.chain[3] = kMbit100;
  const LinkCostEstimate e = EstimateRepairLinks(in);
  EXPECT_FALSE(e.chain);
  EXPECT_DOUBLE_EQ(e.direct_seconds, 64.0 * kSlice / kMbit100);  // the slow helper's chunk
  // Its two links at 100 Mbit/s, the eight others (the requester's too) at 1 Gbit/s.
  EXPECT_DOUBLE_EQ(e.chain_seconds, (64.0 + 2.0) * kSlice / kMbit100 + 8.0 * kSlice / kGbit);
}

// Unknown bandwidths (0): all unknown is all equal; some known, an unknown one counts as the
// slowest known.
TEST(LinkCost, UnknownBandwidths) {
  const LinkCostEstimate unknown = EstimateRepairLinks(Rs(4, 3 * kSlice, 0, 0));
  const LinkCostEstimate equal = EstimateRepairLinks(Rs(4, 3 * kSlice, kGbit, kGbit));
  EXPECT_EQ(unknown.chain, equal.chain);
  EXPECT_DOUBLE_EQ(unknown.direct_seconds / unknown.chain_seconds,
                   equal.direct_seconds / equal.chain_seconds);
  // The requester's known and slow, the helpers' unknown: they count as that slow link, so the
  // links are equal again.
  EXPECT_EQ(EstimateRepairLinks(Rs(4, 3 * kSlice, kMbit100, 0)).chain, equal.chain);
  // The helpers known and fast, the requester unknown: it counts as fast as they are.
  EXPECT_EQ(EstimateRepairLinks(Rs(4, 3 * kSlice, 0, kGbit)).chain, equal.chain);
  // One helper known slow, the rest unknown: all count as slow: equal links.
  LinkCostInput mixed = Rs(4, 3 * kSlice, 0, 0);
  mixed.direct[0].bandwidth = kMbit100;
  mixed.chain[0] = kMbit100;
  const LinkCostEstimate m = EstimateRepairLinks(mixed);
  EXPECT_EQ(m.chain, equal.chain);
  EXPECT_DOUBLE_EQ(m.direct_seconds, 12.0 * kSlice / kMbit100);
}

// Extreme values neither overflow nor give NaN; a chain without hops is never chosen.
TEST(LinkCost, ExtremeValues) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  LinkCostInput in = Rs(10, kMax, kMax, 1);
  in.slice_bytes = kMax;
  LinkCostEstimate e = EstimateRepairLinks(in);
  EXPECT_TRUE(std::isfinite(e.direct_seconds));
  EXPECT_TRUE(std::isfinite(e.chain_seconds));
  EXPECT_FALSE(e.chain);  // every link but the requester's at 1 byte/s: direct, k in parallel
  // Huge bandwidths on every side: the same choice as equal links.
  EXPECT_EQ(EstimateRepairLinks(Rs(4, 64 * kSlice, kMax, kMax)).chain,
            EstimateRepairLinks(Rs(4, 64 * kSlice, 0, 0)).chain);
  LinkCostInput none = Rs(4, 64 * kSlice, kGbit, kGbit);
  none.chain.clear();
  e = EstimateRepairLinks(none);
  EXPECT_FALSE(e.chain);
  EXPECT_TRUE(std::isinf(e.chain_seconds));
  // No direct helper (everything local): nothing to save.
  LinkCostInput local = Rs(4, 64 * kSlice, kGbit, kGbit);
  local.direct.clear();
  e = EstimateRepairLinks(local);
  EXPECT_EQ(e.direct_seconds, 0.0);
  EXPECT_FALSE(e.chain);
  // A slice of 0 counts as the whole partial: the fill is n x C.
  LinkCostInput whole = Rs(4, 64 * kSlice, kGbit, kGbit);
  whole.slice_bytes = 0;
  EXPECT_DOUBLE_EQ(EstimateRepairLinks(whole).chain_seconds, 5.0 * 64 * kSlice / kGbit);
}

}  // namespace
}  // namespace ec::recovery
