// Pipelined repair in-process (issue 33 item 2) on the fixture of repair_chain_test_util.h: a
// SubPull kRebuild sent to OSD 6 goes through chains of the helpers: checked are the rebuilt
// shard's bytes (identical to the lost one), the bytes each OSD sent and received (one chunk per
// link), and what happens when a helper stalls, is at another version, or a request is bad: the
// shard is still right, or nothing is written.
#include <gtest/gtest.h>

#include <cstring>

#include "osd/pg/repair_chain.h"
#include "osd/pg/repair_chain_test_util.h"

namespace ec::osd::pg {
namespace {

using testing::Ask;
using testing::kChainStripes;
using testing::kClayPool;
using testing::kRsPool;
using testing::kStripeUnit;
using testing::RepairChainTest;
using namespace std::chrono_literals;

TEST_F(RepairChainTest, RsRebuildThroughAChainPutsOneChunkOnEachLink) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "rs", 7, &size);
  ASSERT_EQ(shards.size(), 6u);
  std::uint64_t received = 0;
  ASSERT_TRUE(RebuiltOn6(kRsPool, "rs", 7, size, shards, 2, &received));
  const std::uint64_t chunk = kChainStripes * kStripeUnit;
  // The requester received one chunk (a direct pull: k = 4 chunks), and read no helper itself.
  EXPECT_EQ(received, chunk);
  EXPECT_EQ(RequesterIn(6), chunk);
  EXPECT_EQ(HopIn(6), 0u);
  EXPECT_EQ(ChainOut(6), 0u);
  // Four hops (shards 0, 1, 3, 4): each sent exactly one chunk; all but the first received one.
  std::uint64_t in = 0, out = 0;
  int hops = 0;
  for (int osd = 0; osd < 6; ++osd) {
    EXPECT_LE(ChainOut(osd), chunk) << "osd." << osd;
    EXPECT_LE(ChainIn(osd), chunk) << "osd." << osd;
    EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd << " was read directly";
    in += ChainIn(osd);
    out += ChainOut(osd);
    if (ChainOut(osd) == chunk) ++hops;
  }
  EXPECT_EQ(hops, 4);
  EXPECT_EQ(out, 4 * chunk);
  EXPECT_EQ(in, 3 * chunk);
  EXPECT_EQ(Count(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 0u);
  EXPECT_GT(Count(6, "ecstore_repair_chain_slices_total{result=\"ok\"}"), 1u);
  EXPECT_GT(Count(0, "ecstore_osd_ops_total{op=\"sub_repair_chain\"}"), 0u);
}

TEST_F(RepairChainTest, ClayRebuildThroughAChainIsByteIdentical) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kClayPool, "clay", 5, &size);
  ASSERT_EQ(shards.size(), 6u);
  for (std::uint32_t lost : {0u, 5u}) {
    EXPECT_TRUE(RebuiltOn6(kClayPool, "clay", 5, size, shards, lost)) << "lost " << lost;
  }
  // Each rebuild brought one chunk to the requester (a direct CLAY pull: d/q = 2.5 chunks).
  EXPECT_EQ(ChainIn(6), 2 * kChainStripes * kStripeUnit);
  for (int osd = 0; osd < 6; ++osd) EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd;
}

TEST_F(RepairChainTest, AStalledHelperIsLeftOutAndTheShardIsStillRight) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "stall", 9, &size);
  ASSERT_EQ(shards.size(), 6u);
  // The first chain is 0 -> 1 -> 3 -> 4 (the direct repair's helpers); OSD 1 in the middle stalls.
  fronts_[1]->Stall(true);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(RebuiltOn6(kRsPool, "stall", 9, size, shards, 2));
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GT(fronts_[1]->chains(), 0) << "the stalled helper was never asked";
  // Its successor reported it in time (its share of the 1.5 s deadline), the requester planned
  // a chain without it (0, 3, 4, 5) and nothing fell back to direct reads.
  EXPECT_GE(Count(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 1u);
  EXPECT_GT(ChainOut(5), 0u);
  for (int osd = 0; osd < 6; ++osd) EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd;
  EXPECT_LT(took, 5s);
}

TEST_F(RepairChainTest, AHelperAtAnotherVersionFailsItsStageAndIsLeftOut) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "ver", 4, &size);
  ASSERT_EQ(shards.size(), 6u);
  // Shard 3 moved on to version 5 (bytes the object at version 4 does not have).
  ASSERT_TRUE(PutShard(*osds_[3], "ver", 3, 5, 4, size, shards[0]).ok());
  ASSERT_TRUE(RebuiltOn6(kRsPool, "ver", 4, size, shards, 2));
  EXPECT_GE(Count(3, "ecstore_repair_chain_stages_total{result=\"failed\"}"), 1u);
  EXPECT_GE(Count(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 1u);
}

TEST_F(RepairChainTest, TooFewHelpersAtTheVersionWritesNothing) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "few", 4, &size);
  ASSERT_EQ(shards.size(), 6u);
  // Two of the five helpers at another version: neither a chain nor a direct pull can rebuild.
  ASSERT_TRUE(PutShard(*osds_[3], "few", 3, 5, 4, size, shards[0]).ok());
  ASSERT_TRUE(PutShard(*osds_[4], "few", 4, 5, 4, size, shards[0]).ok());
  msg::SubPullRequest r = RebuildRequest(kRsPool, 2);
  r.objects = {{"few", 4, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  EXPECT_FALSE(reply.results[0].status.ok());
  EXPECT_EQ(reply.results[0].status.code(), ESTALE) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "few", 2).rfind("<", 0), 0u) << "a shard was written";
}

TEST_F(RepairChainTest, AHopRefusesBadRequestsNamingItself) {
  std::vector<Buffer> shards;
  std::shared_ptr<const recovery::PipelinePlan> plan;
  const msg::SubRepairChainRequest r = FirstHopRequest("bad", 3, &shards, &plan);
  ASSERT_TRUE(plan);
  const int first = r.hops[0].osd;
  auto client = Client(first);
  ASSERT_TRUE(client);
  // The first hop alone: its own share of the chunk, exactly as ApplyStage gives it.
  msg::ChainResult ok = Ask(*client, r);
  ASSERT_TRUE(ok.status.ok()) << ok.status.ToString();
  ASSERT_EQ(ok.partial.size(), kStripeUnit);
  Buffer expect = Buffer::Allocate(kStripeUnit, true);
  ASSERT_TRUE(recovery::ApplyStage(
                  plan->stages()[0], {0, 1, 0, kStripeUnit},
                  shards[static_cast<std::size_t>(first)].span().first(kStripeUnit), expect.span())
                  .ok());
  EXPECT_EQ(std::memcmp(ok.partial.data(), expect.data(), kStripeUnit), 0);

  auto bad = [&](auto change, int code, const char* what) {
    msg::SubRepairChainRequest b = r;
    change(b);
    msg::ChainResult res = Ask(*client, b);
    EXPECT_EQ(res.status.code(), code) << what << ": " << res.status.ToString();
    return res;
  };
  EXPECT_EQ(bad([](auto& b) { b.hops[0].fingerprint ^= 1; }, EPROTO, "another plan").failed_hop, 0);
  EXPECT_EQ(bad([](auto& b) { b.version = 2; }, ESTALE, "another version").failed_hop, 0);
  bad([](auto& b) { b.object = "absent"; }, ENOENT, "no such object");
  bad([&](auto& b) { b.first_stripe = kChainStripes; }, EINVAL, "past the object");
  bad([](auto& b) { b.offset = kStripeUnit - 100; }, EINVAL, "slice past the sub-chunk");
  bad([](auto& b) { b.pool = 77; }, ENOENT, "no such pool");
  // Three RS(4,2) helpers cannot rebuild anything: the code's own error.
  bad([](auto& b) { b.hops.pop_back(); }, EIO, "too few hops");
  // Another set of four: a plan of other coefficients than the fingerprints'.
  bad([](auto& b) { b.hops[3].shard = 5; }, EPROTO, "another helper set");
  bad([](auto& b) { b.hops[1].shard = 9; }, EINVAL, "a shard the code does not have");
  // An epoch this OSD's map does not reach (within map_wait): Retryable ESTALE, nothing named.
  msg::ChainResult later = bad([](auto& b) { b.epoch = 99; }, ESTALE, "newer epoch");
  EXPECT_TRUE(later.status.is_retryable());
  // Bounds the server checks before the service sees the request.
  bad([](auto& b) { b.hop = 7; }, EINVAL, "hop past the hops");
  bad([](auto& b) { b.timeout_ms = 0; }, EINVAL, "no time");
  EXPECT_EQ(BatchReads(first), 0u);
}

// Backfill of a lost shard (issue 33 item 3): a kCopy pull whose copy source is gone rebuilds the
// shard from the other positions through a chain first, as a kRebuild does.
TEST_F(RepairChainTest, BackfillWhoseCopyFailsRebuildsThroughAChain) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "moved", 3, &size);
  ASSERT_EQ(shards.size(), 6u);
  msg::SubPullRequest r = Request(kRsPool, 2, msg::SubPullMode::kCopy);
  r.helpers = {{2, 42}};  // the copy source, osd.42, is not in the map: no copy
  for (const msg::SubPullHelper& h : AllBut(2)) r.helpers.push_back(h);
  r.objects = {{"moved", 3, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "moved", 2), store::testing::ToString(shards[2]));
  // One chunk per rebuilt chunk came in, as the chain's partials; no helper was read directly.
  EXPECT_EQ(RequesterIn(6), kChainStripes * kStripeUnit);
  EXPECT_EQ(reply.results[0].network_bytes, kChainStripes * kStripeUnit);
  for (int osd = 0; osd < 6; ++osd) {
    EXPECT_EQ(Count(osd, "ecstore_osd_ops_total{op=\"read\"}"), 0u) << "osd." << osd;
    EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd;
  }
}

// osd_repair_pipeline = auto with 64 KiB slices on RS(4,2): recovery/link_cost.h's model from the
// bandwidths in the map. With every bandwidth unknown, a chain where D >= 2 (C + 4 slices) and C
// >= one slice: from shards of four slices (D = 4C) on.
class RepairChainAutoTest : public RepairChainTest {
 protected:
  RepairPipeline Mode() const override { return RepairPipeline::kAuto; }
  std::uint64_t SliceBytes() const override { return 64 * 1024; }

  // A new map epoch with these OSDs' osd_network_bandwidth (the others unknown).
  void SetBandwidths(const std::map<int, std::uint64_t>& bandwidth) {
    cluster::ClusterMap m = map_;
    ++m.epoch;
    for (auto& [id, o] : m.osds) {
      auto it = bandwidth.find(id);
      o.network_bandwidth = it == bandwidth.end() ? 0 : it->second;
    }
    map_ = m;
    ASSERT_TRUE(maps_.Set(m));
  }

  // OSD 6 rebuilds shard 1 of `object` (`stripes` stripes): whether through a chain (its
  // requester counter grew by the shard) or directly (fetched ahead, in one batch per helper).
  bool PulledThroughChain(const std::string& object, std::uint64_t stripes) {
    std::uint64_t size = 0;
    const std::vector<Buffer> shards = PutObject(kRsPool, object, 3, &size, stripes);
    EXPECT_EQ(shards.size(), 6u);
    const std::uint64_t before = RequesterIn(6);
    std::uint64_t batches = 0;
    for (int osd = 0; osd < 6; ++osd) batches += BatchReads(osd);
    msg::SubPullRequest r = RebuildRequest(kRsPool, 1);
    r.objects = {{object, 3, size, 0}};
    const msg::SubPullReply reply = Pull(6, r);
    EXPECT_EQ(reply.results.size(), 1u) << reply.status.ToString();
    if (reply.results.size() != 1) return false;
    EXPECT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
    EXPECT_EQ(Stored(6, object, 1), store::testing::ToString(shards[1])) << object;
    std::uint64_t after = 0;
    for (int osd = 0; osd < 6; ++osd) after += BatchReads(osd);
    const bool chained = RequesterIn(6) > before;
    if (chained) {
      EXPECT_EQ(RequesterIn(6) - before, stripes * kStripeUnit) << object;
      EXPECT_EQ(after, batches) << object << ": read directly too";
    } else {
      EXPECT_GT(after, batches) << object << ": not fetched ahead";
    }
    return chained;
  }
};

constexpr std::uint64_t kGbit = 125'000'000;  // bytes/s
constexpr std::uint64_t k100Mbit = 12'500'000;

TEST_F(RepairChainAutoTest, EqualLinksChainFromFourSlices) {
  EXPECT_FALSE(PulledThroughChain("small", 8));    // 32 KiB: below one slice
  EXPECT_FALSE(PulledThroughChain("medium", 24));  // 96 KiB: 384 KiB < 2 x (96 + 256) KiB
  EXPECT_TRUE(PulledThroughChain("large", 64));    // 256 KiB: 1 MiB >= 2 x (256 + 256) KiB
  // Published and equal: the same choices.
  SetBandwidths(
      {{0, kGbit}, {1, kGbit}, {2, kGbit}, {3, kGbit}, {4, kGbit}, {5, kGbit}, {6, kGbit}});
  EXPECT_FALSE(PulledThroughChain("medium-known", 24));
  EXPECT_TRUE(PulledThroughChain("large-known", 64));
}

// The rebuilding OSD behind a slow link (100 Mbit/s), its helpers at 1 Gbit/s: the medium shard,
// pulled directly on equal links, goes through a chain (the direct pull brings four chunks
// through the slow link, the chain one).
TEST_F(RepairChainAutoTest, SlowRequesterLinkChains) {
  SetBandwidths({{0, kGbit}, {2, kGbit}, {3, kGbit}, {4, kGbit}, {5, kGbit}, {6, k100Mbit}});
  EXPECT_TRUE(PulledThroughChain("medium", 24));
  EXPECT_FALSE(PulledThroughChain("small", 8));  // still below one slice
}

// The rebuilding OSD on a fast link (10 Gbit/s), its helpers at 1 Gbit/s: each helper sends its
// chunk at once, the chain's every link carries the chunk at 1 Gbit/s: even the large shard is
// pulled directly. One slow helper in the chain does the same.
TEST_F(RepairChainAutoTest, FastRequesterOrSlowHelperPullsDirectly) {
  SetBandwidths({{0, kGbit}, {2, kGbit}, {3, kGbit}, {4, kGbit}, {5, kGbit}, {6, 10 * kGbit}});
  EXPECT_FALSE(PulledThroughChain("large", 64));
  SetBandwidths({{0, k100Mbit}, {2, kGbit}, {3, kGbit}, {4, kGbit}, {5, kGbit}, {6, kGbit}});
  EXPECT_FALSE(PulledThroughChain("large-slow-helper", 64));
  SetBandwidths({});  // unknown again: equal
  EXPECT_TRUE(PulledThroughChain("large-unknown", 64));
}

// A backfill whose copy fails, under auto: the same model (here a slow requester's link).
TEST_F(RepairChainAutoTest, BackfillFallbackChoosesByBandwidth) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "moved", 3, &size, 24);
  ASSERT_EQ(shards.size(), 6u);
  msg::SubPullRequest r = Request(kRsPool, 2, msg::SubPullMode::kCopy);
  r.helpers = {{2, 42}};
  for (const msg::SubPullHelper& h : AllBut(2)) r.helpers.push_back(h);
  r.objects = {{"moved", 3, size, 0}};
  msg::SubPullReply reply = Pull(6, r);  // equal links: directly
  ASSERT_EQ(reply.results.size(), 1u) << reply.status.ToString();
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(RequesterIn(6), 0u);
  EXPECT_EQ(Stored(6, "moved", 2), store::testing::ToString(shards[2]));

  SetBandwidths({{0, kGbit}, {1, kGbit}, {3, kGbit}, {4, kGbit}, {5, kGbit}, {6, k100Mbit}});
  const std::vector<Buffer> again = PutObject(kRsPool, "moved-slow", 3, &size, 24);
  r.epoch = static_cast<std::uint64_t>(map_.epoch);
  r.objects = {{"moved-slow", 3, size, 0}};
  reply = Pull(6, r);
  ASSERT_EQ(reply.results.size(), 1u) << reply.status.ToString();
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(RequesterIn(6), 24 * kStripeUnit);
  EXPECT_EQ(Stored(6, "moved-slow", 2), store::testing::ToString(again[2]));
}

}  // namespace
}  // namespace ec::osd::pg
