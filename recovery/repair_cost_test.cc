// The repair engine's least-cost choice (RepairRequest::cost): candidates and their prices for
// real byte ranges, CLAY vs Reed-Solomon, local shards and weights changing the choice, a brute
// force over helper sets, and that what the engine then reads is exactly what it priced.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <set>

#include "recovery/read_cost.h"
#include "recovery/repair_engine.h"
#include "recovery/testing/encoded_object.h"

namespace ec::recovery {
namespace {

using testing::AvailableBut;
using testing::Bytes;
using testing::EncodedObject;
using testing::EncodeObject;
using testing::LoadShards;
using testing::LoggedReads;
using testing::MemoryShardSource;
using testing::Part;

// The price of decoding shard bytes [off, off + len) from `helpers`: whole chunks of every
// covering stripe of each helper, computed here without the engine.
ReadCost DecodePrice(const ReadCostModel& model, std::uint64_t c, const ShardSet& helpers,
                     std::uint64_t off, std::uint64_t len) {
  const std::uint64_t first = off / c, last = (off + len - 1) / c;
  std::map<int, std::vector<Extent>> reads;
  for (int h : helpers) reads[h] = {{first * c, (last - first + 1) * c}};
  return PriceReads(model, reads);
}

// Every subset of `ids` of `size` elements.
std::vector<ShardSet> Subsets(const std::vector<int>& ids, std::size_t size) {
  std::vector<ShardSet> out;
  for (unsigned mask = 0; mask < (1u << ids.size()); ++mask) {
    if (static_cast<std::size_t>(__builtin_popcount(mask)) != size) continue;
    ShardSet s;
    for (std::size_t i = 0; i < ids.size(); ++i)
      if (mask & (1u << i)) s.insert(ids[i]);
    out.push_back(s);
  }
  return out;
}

class RepairCostTest : public testing::SeededTest {};

struct Range {
  const char* name;
  std::uint64_t offset, length;
};

// One lost data shard, ranges from 1 byte to many stripes: the chosen plan is the cheapest
// candidate, no k-subset decodes cheaper (brute force), the bytes are right and what the engine
// reads, one request per helper, prices exactly as the plan said.
TEST_F(RepairCostTest, OneLostShardAcrossRanges) {
  const std::uint64_t c = 8192, sub = c / 8;
  const std::vector<Range> ranges = {{"1 byte", 3 * c + 3000, 1},
                                     {"one sub-chunk", 2 * c + 2 * sub, sub},
                                     {"one chunk", 3 * c, c},
                                     {"many stripes", c, 4 * c},
                                     {"unaligned", c / 2 + 7, 3 * c + 100},
                                     {"whole shard", 0, 8 * c}};
  for (const char* profile :
       {"plugin=clay k=4 m=2 d=5", "plugin=isa technique=reed_sol_van k=4 m=2"}) {
    const bool clay = std::string(profile).find("clay") != std::string::npos;
    const EncodedObject o = EncodeObject(profile, c, 8 * 4 * c, seed_);
    RepairEngine engine(o.code, o.layout);
    const int lost = 1;
    const ReadCostModel model;
    for (const Range& r : ranges) {
      SCOPED_TRACE(std::string(profile) + " " + r.name);
      RepairRequest req{{lost}, AvailableBut(o, {lost}), o.stripes, r.offset, r.length, model};
      auto candidates = engine.Candidates(req);
      ASSERT_TRUE(candidates.ok()) << candidates.status().message();
      auto plan = engine.Plan(req);
      ASSERT_TRUE(plan.ok()) << plan.status().message();
      EXPECT_EQ(plan->kind, candidates->front().kind);
      EXPECT_EQ(plan->helpers, candidates->front().helpers);
      EXPECT_EQ(plan->cost, candidates->front().cost);
      for (const RepairPlan& p : *candidates) EXPECT_GE(p.cost.total, plan->cost.total);
      // Brute force: every set of k helpers, priced here.
      for (const ShardSet& s : Subsets({0, 2, 3, 4, 5}, 4))
        EXPECT_LE(plan->cost.total, DecodePrice(model, c, s, r.offset, r.length).total);
      if (clay) {
        EXPECT_EQ(plan->kind, RepairPlan::Kind::kSubChunkRepair);
        EXPECT_TRUE(plan->native);
        EXPECT_LT(plan->cost.net_bytes,
                  DecodePrice(model, c, {0, 2, 3, 4}, r.offset, r.length).net_bytes);
      } else {
        EXPECT_EQ(plan->kind, RepairPlan::Kind::kDecode);
        EXPECT_EQ(plan->cost, DecodePrice(model, c, plan->helpers, r.offset, r.length));
      }
      MemoryShardSource source;
      LoadShards(o, source, {lost});
      auto got = engine.Rebuild(req, source);
      ASSERT_TRUE(got.ok()) << got.status().message();
      EXPECT_EQ(Bytes(got->shards.at(lost)), Part(o.shards[lost], r.offset, r.length));
      const ShardSet read = got->stats.helpers_read();
      EXPECT_TRUE(
          std::includes(plan->helpers.begin(), plan->helpers.end(), read.begin(), read.end()));
      EXPECT_EQ(PriceReads(model, LoggedReads(source)), plan->cost);
      EXPECT_EQ(got->stats.bytes_read(), plan->cost.net_bytes);
      for (const auto& [id, n] : source.requests_per_shard()) EXPECT_EQ(n, 1u) << id;
    }
  }
}

// Hand-computed: RS(4,2), C = 8192, one byte of lost shard 1 in stripe 3: four whole chunks.
TEST_F(RepairCostTest, HandComputedReedSolomon) {
  const std::uint64_t c = 8192;
  const EncodedObject o =
      EncodeObject("plugin=isa technique=reed_sol_van k=4 m=2", c, 8 * 4 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  RepairRequest req{{1}, AvailableBut(o, {1}), o.stripes, 3 * c + 5, 1, ReadCostModel{}};
  auto plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->cost, (ReadCost{4 * c, 4 * c, 8.0 * c}));
  // Two stripes touched: twice that; shard 0 local: its bytes leave the network sum.
  req.offset = 3 * c + 5;
  req.length = c;
  req.cost->local = {0};
  plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->helpers.count(0));
  EXPECT_EQ(plan->cost, (ReadCost{3 * 2 * c, 4 * 2 * c, 14.0 * c}));
}

// CLAY with C = 4096 (sub-chunks of 512 bytes): a repair reads half of each of d=5 helpers over
// the network but whole 4 KiB blocks from their devices, so a device-heavy weight makes decoding
// from k=4 helpers cheaper, a network-heavy one keeps the repair.
TEST_F(RepairCostTest, WeightsChangeTheChoice) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", c, 4 * 4 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  RepairRequest req{{1}, AvailableBut(o, {1}), o.stripes, 0, kToTheEnd, ReadCostModel{}};
  auto plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, RepairPlan::Kind::kSubChunkRepair);
  EXPECT_EQ(plan->cost.net_bytes, 4 * 5 * c / 2);
  EXPECT_EQ(plan->cost.device_bytes, 4 * 5 * c);
  req.cost->weight_dev = 10;
  plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, RepairPlan::Kind::kDecode);
  EXPECT_EQ(plan->cost, (ReadCost{4 * 4 * c, 4 * 4 * c, 4 * 4 * c * 11.0}));
  req.cost->weight_dev = 1;
  req.cost->weight_net = 10;
  plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, RepairPlan::Kind::kSubChunkRepair);
  // The engine reads what it chose.
  MemoryShardSource source;
  LoadShards(o, source, {1});
  req.cost->weight_dev = 10;
  req.cost->weight_net = 1;
  auto got = engine.Rebuild(req, source);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(1)), o.shards[1]);
  EXPECT_EQ(got->stats.bytes_read(), 4 * 4 * c);
}

// Plan() remembers its answers by request: asked again, in any order, one engine gives what a
// fresh engine computes for each request, also for requests that differ in one field only.
TEST_F(RepairCostTest, RememberedPlansAnswerEachRequestAsAFreshEngine) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", c, 4 * 4 * c, seed_);
  std::vector<RepairRequest> requests;
  RepairRequest base{{1}, AvailableBut(o, {1}), o.stripes, 0, kToTheEnd, ReadCostModel{}};
  requests.push_back(base);
  RepairRequest r = base;
  r.offset = c;
  r.length = c / 2;
  requests.push_back(r);
  r = base;
  r.cost->local = {0, 2};
  requests.push_back(r);
  r = base;
  r.cost->weight_dev = 10;
  requests.push_back(r);
  r = base;
  r.available.erase(5);
  requests.push_back(r);
  r = base;
  r.also_read[0] = {{0, c}};
  requests.push_back(r);
  RepairEngine remembered(o.code, o.layout);
  std::set<std::pair<int, std::uint64_t>> distinct;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < requests.size(); ++i) {
      SCOPED_TRACE("request " + std::to_string(i) + ", round " + std::to_string(round));
      auto got = remembered.Plan(requests[i]);
      auto fresh = RepairEngine(o.code, o.layout).Plan(requests[i]);
      ASSERT_TRUE(got.ok() && fresh.ok());
      EXPECT_EQ(got->kind, fresh->kind);
      EXPECT_EQ(got->helpers, fresh->helpers);
      EXPECT_EQ(got->cost, fresh->cost);
      distinct.emplace(static_cast<int>(got->kind), got->cost.net_bytes);
    }
  }
  EXPECT_GE(distinct.size(), 4u);  // the requests do get different plans
}

// The lost shard's helpers local (on the primary) vs remote.
TEST_F(RepairCostTest, LocalShardsChangeTheChoice) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", c, 4 * 4 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  RepairRequest req{{1}, AvailableBut(o, {1}), o.stripes, 0, kToTheEnd, ReadCostModel{}};
  auto remote = engine.Plan(req);
  ASSERT_TRUE(remote.ok());
  EXPECT_EQ(remote->kind, RepairPlan::Kind::kSubChunkRepair);
  // Four helpers local: decoding from them costs no network and 4 C of device per stripe;
  // repairing still needs the fifth over the network and 5 blocks of device per stripe.
  req.cost->local = {0, 2, 3, 5};
  auto local = engine.Plan(req);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->kind, RepairPlan::Kind::kDecode);
  EXPECT_EQ(local->helpers, (ShardSet{0, 2, 3, 5}));
  EXPECT_EQ(local->cost, (ReadCost{0, 4 * 4 * c, 4 * 4 * c * 1.0}));

  // Reed-Solomon: the local parity shards are among the k helpers, unlike the cost-less plan.
  const EncodedObject rs =
      EncodeObject("plugin=isa technique=reed_sol_van k=4 m=2", c, 4 * 4 * c, seed_);
  RepairEngine rs_engine(rs.code, rs.layout);
  RepairRequest rs_req{{1}, AvailableBut(rs, {1}), rs.stripes};
  auto today = rs_engine.Plan(rs_req);
  ASSERT_TRUE(today.ok());
  EXPECT_EQ(today->helpers, (ShardSet{0, 2, 3, 4}));
  EXPECT_EQ(today->cost, ReadCost{});  // no model, no price
  rs_req.cost = ReadCostModel{};
  rs_req.cost->local = {4, 5};
  auto chosen = rs_engine.Plan(rs_req);
  ASSERT_TRUE(chosen.ok());
  EXPECT_TRUE(chosen->helpers.count(4) && chosen->helpers.count(5)) << JoinShards(chosen->helpers);
  EXPECT_EQ(chosen->cost.net_bytes, 2 * 4 * c);
  MemoryShardSource source;
  LoadShards(rs, source, {1});
  auto got = rs_engine.Rebuild(rs_req, source);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(1)), rs.shards[1]);
  EXPECT_EQ(got->stats.helpers_read(), chosen->helpers);
}

// Brute force over every helper set, random local shards and weights, two lost shards of a
// small code: the engine finds the minimum over all k-subsets.
TEST_F(RepairCostTest, BruteForceOverHelperSets) {
  const std::uint64_t c = 1024;
  const EncodedObject o =
      EncodeObject("plugin=jerasure technique=reed_sol_van k=3 m=3", c, 6 * 3 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  std::mt19937 rng(seed_);
  for (int round = 0; round < 30; ++round) {
    ReadCostModel model;
    model.weight_net = std::uniform_real_distribution<double>(0, 4)(rng);
    model.weight_dev = std::uniform_real_distribution<double>(0, 4)(rng);
    std::vector<int> ids;
    for (int id : {0, 2, 3, 4, 5}) {
      ids.push_back(id);
      if (rng() % 2) model.local.insert(id);
    }
    const std::uint64_t off = rng() % (6 * c), len = 1 + rng() % (6 * c - off);
    RepairRequest req{{1}, AvailableBut(o, {1}), o.stripes, off, len, model};
    auto plan = engine.Plan(req);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    double best = std::numeric_limits<double>::max();
    for (const ShardSet& s : Subsets(ids, 3))
      best = std::min(best, DecodePrice(model, c, s, off, len).total);
    EXPECT_DOUBLE_EQ(plan->cost.total, best) << "round " << round;
  }
}

// A code with too many helper sets to try one by one (C(8,6) = 28): the decode from the k
// cheapest helpers is still the minimum over every set, also_read extents included.
TEST_F(RepairCostTest, BruteForceOverALargerCode) {
  const std::uint64_t c = 2048;
  const EncodedObject o =
      EncodeObject("plugin=isa technique=reed_sol_van k=6 m=3", c, 6 * 6 * c, seed_);
  RepairEngine engine(o.code, o.layout);
  std::mt19937 rng(seed_);
  const std::vector<int> ids = {0, 1, 3, 4, 5, 6, 7, 8};
  for (int round = 0; round < 30; ++round) {
    ReadCostModel model;
    model.weight_net = std::uniform_real_distribution<double>(0, 4)(rng);
    model.weight_dev = std::uniform_real_distribution<double>(0, 4)(rng);
    std::map<int, std::vector<Extent>> also;
    for (int id : ids) {
      if (rng() % 2) model.local.insert(id);
      if (rng() % 3 == 0) {
        const std::uint64_t off = rng() % (6 * c);
        also[id] = {{off, 1 + rng() % (6 * c - off)}};
      }
    }
    const std::uint64_t off = rng() % (6 * c), len = 1 + rng() % (6 * c - off);
    RepairRequest req{{2}, AvailableBut(o, {2}), o.stripes, off, len, model, also};
    auto plan = engine.Plan(req);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    double best = std::numeric_limits<double>::max();
    const std::uint64_t first = off / c, last = (off + len - 1) / c;
    for (const ShardSet& s : Subsets(ids, 6)) {
      std::map<int, std::vector<Extent>> reads = also;
      for (int h : s) reads[h].push_back({first * c, (last - first + 1) * c});
      best = std::min(best, PriceReads(model, reads).total);
    }
    EXPECT_DOUBLE_EQ(plan->cost.total, best) << "round " << round;
    EXPECT_EQ(plan->kind, RepairPlan::Kind::kDecode);
  }
}

TEST_F(RepairCostTest, DirectReadIsPricedExactly) {
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", 4096, 3 * 4 * 4096, seed_);
  RepairEngine engine(o.code, o.layout);
  ReadCostModel model;
  model.local = {4};
  RepairRequest req{{1, 4}, AvailableBut(o, {}), o.stripes, 1000, 5000, model};
  auto plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kind, RepairPlan::Kind::kDirect);
  // [1000, 6000) touches blocks 0 and 1 of each shard; shard 4 is local.
  EXPECT_EQ(plan->cost, (ReadCost{5000, 2 * 8192, 5000.0 + 2 * 8192}));
  auto candidates = engine.Candidates(req);
  ASSERT_TRUE(candidates.ok());
  EXPECT_EQ(candidates->size(), 1u);
}

TEST_F(RepairCostTest, FailedHelperIsReplannedAtTheLeastCost) {
  const std::uint64_t c = 4096;
  const EncodedObject o = EncodeObject("plugin=clay k=4 m=2 d=5", c, 6 * 4 * c, seed_);
  RepairEngine engine(o.code, o.layout, {4 * c * 2});
  MemoryShardSource source;
  LoadShards(o, source, {1});
  source.Fail(3, Status::IOError("checksum mismatch in shard 3"), 1);
  RepairRequest req{{1}, AvailableBut(o, {1}), o.stripes, 0, kToTheEnd, ReadCostModel{}};
  auto got = engine.Rebuild(req, source);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(Bytes(got->shards.at(1)), o.shards[1]);
  EXPECT_EQ(got->stats.plans, 2u);
  EXPECT_EQ(got->stats.failed.count(3), 1u);
}

// also_read: other shards' extents ride in the plan's requests (one per shard, merged with the
// plan's extents), are priced with the plan, come back in the first batch; a failing shard read
// only for them is left out without a new plan.
TEST_F(RepairCostTest, AlsoReadRidesInTheSameRequests) {
  const std::uint64_t c = 4096;
  const EncodedObject o =
      EncodeObject("plugin=isa technique=reed_sol_van k=4 m=2", c, 6 * 4 * c, seed_);
  RepairEngine engine(o.code, o.layout, {4 * c * 2});  // batches of 2 stripes
  const std::map<int, std::vector<Extent>> also{{0, {{c + 10, 100}, {5 * c, 50}}},
                                                {2, {{2 * c + 7, 2 * c}}}};
  RepairRequest req{{1}, AvailableBut(o, {1}), o.stripes, c, 4 * c, ReadCostModel{}, also};
  auto plan = engine.Plan(req);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  MemoryShardSource source;
  LoadShards(o, source, {1});
  std::map<int, std::vector<std::byte>> got_also;
  std::vector<std::byte> got;
  Status s = engine.Run(req, source, [&](const RebuiltBytes& batch) {
    EXPECT_TRUE(batch.offset == c || batch.also_read.empty());
    for (const auto& [id, bytes] : batch.also_read) got_also[id].assign(bytes.begin(), bytes.end());
    got.insert(got.end(), batch.shards.at(1).begin(), batch.shards.at(1).end());
    return Status::OK();
  });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(got, Part(o.shards[1], c, 4 * c));
  std::vector<std::byte> want0 = Part(o.shards[0], c + 10, 100);
  const std::vector<std::byte> tail = Part(o.shards[0], 5 * c, 50);
  want0.insert(want0.end(), tail.begin(), tail.end());
  EXPECT_EQ(got_also[0], want0);
  EXPECT_EQ(got_also[2], Part(o.shards[2], 2 * c + 7, 2 * c));
  // The first batch's request of shard 0 carries its plan extent and the caller's, merged.
  const auto log = source.log();
  for (const auto& logged : log) {
    if (logged.shard != 0) continue;
    EXPECT_EQ(logged.extents.size(), logged.extents.front().offset == c ? 2u : 1u);
    break;
  }
  // Priced with the plan: the union of each shard's extents.
  std::map<int, std::vector<Extent>> union_reads;
  for (int h : plan->helpers) union_reads[h] = {{c, 4 * c}};
  union_reads[0].push_back({5 * c, 50});
  EXPECT_EQ(plan->cost, PriceReads(ReadCostModel{}, union_reads));

  // A source that takes one extent per request: the merged request would break that, so the
  // plan's extents and the caller's go separately, cut to the limit.
  MemoryShardSource one_extent;
  LoadShards(o, one_extent, {1});
  one_extent.SetLimits({1, 0});
  auto split = engine.Rebuild(req, one_extent);
  ASSERT_TRUE(split.ok()) << split.status().message();
  EXPECT_EQ(Bytes(split->shards.at(1)), Part(o.shards[1], c, 4 * c));
  EXPECT_EQ(Bytes(split->also_read.at(0)), want0);
  EXPECT_EQ(Bytes(split->also_read.at(2)), Part(o.shards[2], 2 * c + 7, 2 * c));
  for (const auto& logged : one_extent.log()) EXPECT_EQ(logged.extents.size(), 1u);

  // A shard read only for also_read (5, a parity the plan does not use) fails: left out, no
  // new plan.
  MemoryShardSource failing;
  LoadShards(o, failing, {1});
  failing.Fail(5, Status::IOError("shard 5 is gone"));
  RepairRequest with5 = req;
  with5.also_read = {{5, {{0, 100}}}};
  auto r = engine.Rebuild(with5, failing);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Bytes(r->shards.at(1)), Part(o.shards[1], c, 4 * c));
  EXPECT_EQ(r->also_read.count(5), 0u);
  EXPECT_EQ(r->stats.failed.count(5), 1u);
  EXPECT_EQ(r->stats.plans, 1u);

  // Bad also_read: a wanted shard, an unavailable one, past the end.
  RepairRequest bad = req;
  bad.also_read = {{1, {{0, 1}}}};
  EXPECT_EQ(engine.Plan(bad).status().code(), EINVAL);
  bad.also_read = {{0, {{6 * c, 1}}}};
  EXPECT_EQ(engine.Plan(bad).status().code(), EINVAL);
  bad.available.erase(3);
  bad.also_read = {{3, {{0, 1}}}};
  EXPECT_EQ(engine.Plan(bad).status().code(), EINVAL);
}

TEST_F(RepairCostTest, BadModelAndTooFewShards) {
  const EncodedObject o = EncodeObject("plugin=isa k=2 m=1", 64, 256, seed_);
  RepairEngine engine(o.code, o.layout);
  ReadCostModel bad;
  bad.weight_net = -2;
  EXPECT_EQ(engine.Plan({{0}, AvailableBut(o, {0}), o.stripes, 0, kToTheEnd, bad}).status().code(),
            EINVAL);
  auto none = engine.Plan({{0}, {{1, 1}}, o.stripes, 0, kToTheEnd, ReadCostModel{}});
  EXPECT_EQ(none.status().code(), EIO);
  EXPECT_NE(none.status().message().find("need 2 chunks"), std::string::npos)
      << none.status().message();
}

}  // namespace
}  // namespace ec::recovery
