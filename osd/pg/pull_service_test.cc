// PullService in-process, on the fixture of pull_test_util.h (seven OSDs on loopback, a CLAY(4,2,5)
// and an RS(4,2) pool): a SubPull sent to an OSD over its messenger (as a primary would) rebuilds
// or copies a shard into that OSD's store. Checked: the shard is byte-identical to the one lost,
// its version and sizes are the object's, the helpers sent exactly the code's minimum (CLAY d*C/q
// per stripe, RS k*C), and failures stay per object.
#include "osd/pg/pull_service.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <future>
#include <mutex>
#include <random>
#include <thread>

#include "osd/pg/pull_test_util.h"
#include "osd/store/transaction.h"

namespace ec::osd::pg {
namespace {

using namespace std::chrono_literals;
using testing::kClayPool;
using testing::kCollection;
using testing::kOsds;
using testing::kRsPool;
using testing::kStripeUnit;

constexpr std::uint64_t kStripes = 5;

// Catches one reply.
class PromiseResponder final : public msg::Responder {
 public:
  PromiseResponder(msg::MsgType type, std::promise<msg::ReplyBody>* reply)
      : Responder(type, 1), reply_(reply) {}
  ~PromiseResponder() override {
    if (!sent()) reply_->set_value(msg::ErrorReply(request_type(), Status::IOError("dropped")));
  }

 private:
  Status Deliver(msg::ReplyBody body, std::vector<Buffer>) override {
    reply_->set_value(std::move(body));
    return Status::OK();
  }
  std::promise<msg::ReplyBody>* reply_;
};

class PullServiceTest : public testing::LoopbackOsdsTest {
 protected:
  std::uint64_t Stripes() const override { return kStripes; }

  // `count` objects named prefix + i (i = 0..count-1) at versions version + i * step, each added to
  // `r`'s objects; their shards, and the size of the last one in *size.
  std::vector<std::vector<Buffer>> PutObjects(std::int64_t pool, const std::string& prefix,
                                              int count, std::uint64_t version, std::uint64_t step,
                                              msg::SubPullRequest* r, std::uint64_t* size) {
    std::vector<std::vector<Buffer>> shards;
    for (int i = 0; i < count; ++i) {
      const std::string name = prefix + std::to_string(i);
      const std::uint64_t v = version + static_cast<std::uint64_t>(i) * step;
      shards.push_back(PutObject(pool, name, v, size));
      r->objects.push_back({name, v, *size, 0});
    }
    return shards;
  }

  // The xattrs and mtime shard `shard` of `object` records on OSD `osd`.
  std::pair<std::vector<msg::Attr>, std::uint64_t> Meta(int osd, const std::string& object,
                                                        int shard) {
    auto got = osds_[osd]->store->GetAttr(kCollection, shard::ShardObjectName(object, shard),
                                          shard::kShardMetaAttr);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return {};
    auto meta = shard::DecodeShardMeta(*got);
    EXPECT_TRUE(meta.ok());
    if (!meta.ok()) return {};
    return {shard::XattrsOf(meta->attrs), shard::DecimalAttr(meta->attrs, shard::kMtimeAttr)};
  }
  msg::SubStateReply State(int osd, const std::string& object, int shard) {
    auto st = shard::ReadSubState(
        *osds_[osd]->store,
        msg::SubStateRequest{kCollection, object, static_cast<std::uint32_t>(shard)});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? *st : msg::SubStateReply{};
  }
};

TEST_F(PullServiceTest, ClayRebuildReadsDTimesCOverQ) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kClayPool, "obj", 7, &size);
  ASSERT_EQ(shards.size(), 6u);
  // Shard 1 is lost (its OSD gone); OSD 6 rebuilds it from the other five.
  msg::SubPullRequest r = Request(kClayPool, 1, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(1);
  r.objects = {{"obj", 7, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  const msg::SubPullResult& res = reply.results[0];
  ASSERT_TRUE(res.status.ok()) << res.status.ToString();
  EXPECT_EQ(res.object, "obj");
  // d = 5 helpers, q = d - k + 1 = 2: each sends half a chunk per stripe.
  EXPECT_EQ(res.network_bytes, kStripes * 5 * kStripeUnit / 2);
  EXPECT_EQ(res.rebuilt_bytes, kStripes * kStripeUnit);
  // Device bytes: what the engine's plan prices for the helpers' stores (4 KiB blocks).
  recovery::RepairRequest plan_request;
  plan_request.want = {1};
  for (int p : {0, 2, 3, 4, 5}) plan_request.available[p] = 1;
  plan_request.stripes = kStripes;
  plan_request.cost = recovery::ReadCostModel{};
  auto plan = Codec(kClayPool).engine->Plan(plan_request);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(plan->kind, recovery::RepairPlan::Kind::kSubChunkRepair);
  EXPECT_EQ(plan->cost.net_bytes, res.network_bytes);
  EXPECT_EQ(res.device_bytes, plan->cost.device_bytes);
  EXPECT_GE(res.device_bytes, res.network_bytes);
  EXPECT_EQ(Stored(6, "obj", 1), store::testing::ToString(shards[1]));
  const msg::SubStateReply st = State(6, "obj", 1);
  EXPECT_EQ(st.state, msg::ShardState::kPresent);
  EXPECT_EQ(st.version, 7u);
  EXPECT_EQ(st.object_size, size);
  EXPECT_EQ(st.shard_size, kStripes * kStripeUnit);
  EXPECT_EQ(Metric(6, "ecstore_recovery_network_bytes_total{pool=\"clay-pool\"}"),
            std::to_string(res.network_bytes));
  EXPECT_EQ(Metric(6, "ecstore_recovery_helper_device_bytes_total{pool=\"clay-pool\"}"),
            std::to_string(res.device_bytes));
  EXPECT_EQ(Metric(6, "ecstore_recovery_rebuilt_bytes_total{pool=\"clay-pool\"}"),
            std::to_string(res.rebuilt_bytes));
  EXPECT_EQ(Metric(6, "ecstore_recovery_objects_total{pool=\"clay-pool\",result=\"ok\"}"), "1");
  // The same sums for the PG stats reports.
  const PullTotals totals = osds_[6]->pull->Totals();
  EXPECT_EQ(totals.network_bytes, res.network_bytes);
  EXPECT_EQ(totals.helper_device_bytes, res.device_bytes);
  EXPECT_EQ(totals.rebuilt_bytes, res.rebuilt_bytes);
  EXPECT_EQ(totals.objects_ok, 1u);

  // Pulled again (a retried request): nothing is read, the shard stays.
  const msg::SubPullReply again = Pull(6, r);
  ASSERT_EQ(again.results.size(), 1u);
  EXPECT_TRUE(again.results[0].status.ok()) << again.results[0].status.ToString();
  EXPECT_EQ(again.results[0].network_bytes, 0u);
  EXPECT_EQ(Stored(6, "obj", 1), store::testing::ToString(shards[1]));
}

TEST_F(PullServiceTest, RsRebuildReadsKChunks) {
  std::vector<std::vector<Buffer>> shards;
  std::uint64_t size = 0;
  msg::SubPullRequest r = Request(kRsPool, 4, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(4);
  shards = PutObjects(kRsPool, "rs", 5, 10, 1, &r, &size);
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const msg::SubPullResult& res = reply.results[i];
    EXPECT_EQ(res.object, "rs" + std::to_string(i));  // in request order
    ASSERT_TRUE(res.status.ok()) << res.status.ToString();
    EXPECT_EQ(res.network_bytes, kStripes * 4 * kStripeUnit);
    EXPECT_EQ(res.device_bytes, kStripes * 4 * kStripeUnit);
    EXPECT_EQ(Stored(6, res.object, 4), store::testing::ToString(shards[i][4]));
    EXPECT_EQ(State(6, res.object, 4).version, 10u + i);
    // The object's metadata comes with the rebuilt bytes (issue 29).
    EXPECT_EQ(Meta(6, res.object, 4), std::make_pair(std::vector<msg::Attr>{{"name", res.object}},
                                                     std::uint64_t{(10u + i) * 1000}));
  }
  EXPECT_EQ(Metric(6, "ecstore_recovery_objects_total{pool=\"rs-pool\",result=\"ok\"}"), "5");
  // Every object's pull time is observed once (bench/recovery_netns.sh's time per object).
  EXPECT_EQ(Metric(6, "ecstore_recovery_pull_seconds_count{pool=\"rs-pool\",result=\"ok\"}"), "5");
  EXPECT_GT(
      std::stod(Metric(6, "ecstore_recovery_pull_seconds_sum{pool=\"rs-pool\",result=\"ok\"}")),
      0.0);
}

// A batch of small objects costs one read request per helper, not one per object and helper:
// every helper of the plan gets ONE SubReadBatch carrying its share of every object, and no
// ReadShard; each object still receives exactly the code's minimum.
TEST_F(PullServiceTest, BatchOfObjectsSendsOneReadRequestPerHelper) {
  constexpr int kObjects = 8;
  struct Case {
    std::int64_t pool;
    std::uint32_t lost;
    std::uint64_t per_object;  // network bytes per object
    int helpers;               // helpers the plan reads
  };
  for (const Case& c : {Case{kClayPool, 1, kStripes * 5 * kStripeUnit / 2, 5},
                        Case{kRsPool, 4, kStripes * 4 * kStripeUnit, 4}}) {
    SCOPED_TRACE(c.pool);
    std::vector<std::uint64_t> batches_before(kOsds), reads_before(kOsds);
    for (int i = 0; i < kOsds; ++i) {
      batches_before[i] = Ops(i, "sub_read_batch");
      reads_before[i] = Ops(i, "read");
    }
    std::vector<std::vector<Buffer>> shards;
    std::uint64_t size = 0;
    msg::SubPullRequest r = Request(c.pool, c.lost, msg::SubPullMode::kRebuild);
    r.helpers = AllBut(c.lost);
    shards = PutObjects(c.pool, "batch" + std::to_string(c.pool) + ".", kObjects, 20, 1, &r, &size);
    const msg::SubPullReply reply = Pull(6, r);
    ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
    ASSERT_EQ(reply.results.size(), static_cast<std::size_t>(kObjects));
    for (int i = 0; i < kObjects; ++i) {
      const msg::SubPullResult& res = reply.results[i];
      ASSERT_TRUE(res.status.ok()) << res.status.ToString();
      EXPECT_EQ(res.network_bytes, c.per_object) << res.object;
      EXPECT_EQ(Stored(6, res.object, static_cast<int>(c.lost)),
                store::testing::ToString(shards[i][c.lost]))
          << res.object;
    }
    int batched = 0;
    for (int i = 0; i < 6; ++i) {
      const std::uint64_t batches = Ops(i, "sub_read_batch") - batches_before[i];
      EXPECT_LE(batches, 1u) << "osd." << i;
      batched += static_cast<int>(batches);
      EXPECT_EQ(Ops(i, "read") - reads_before[i], 0u) << "osd." << i;
    }
    EXPECT_EQ(batched, c.helpers);
  }
  EXPECT_EQ(Metric(6, "ecstore_recovery_read_batches_total{pool=\"clay-pool\"}"), "5");
  EXPECT_EQ(Metric(6, "ecstore_recovery_read_batches_total{pool=\"rs-pool\"}"), "4");
}

// A helper that fails inside a batch: for the objects whose items failed (the helper lost their
// shards), the engine drops it and re-plans from the others, reading them directly; the other
// objects are served from the batch alone. Every object is rebuilt right and the bytes are what
// per-object reads would count: the failed items count nothing.
TEST_F(PullServiceTest, HelperFailingMidBatchStillRebuildsEveryObject) {
  constexpr int kObjects = 6;
  std::vector<std::vector<Buffer>> shards;
  std::uint64_t size = 0;
  msg::SubPullRequest r = Request(kClayPool, 1, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(1);
  shards = PutObjects(kClayPool, "mid", kObjects, 5, 0, &r, &size);
  // osd.2 lost the shards of objects 1 and 4.
  for (int i : {1, 4}) {
    store::Transaction t;
    t.Remove(kCollection, shard::ShardObjectName("mid" + std::to_string(i), 2));
    ASSERT_TRUE(osds_[2]->store->Apply(t).ok());
  }
  const std::uint64_t reads_before = Ops(0, "read");
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), static_cast<std::size_t>(kObjects));
  const std::uint64_t half = kStripes * kStripeUnit / 2, whole = kStripes * kStripeUnit;
  for (int i = 0; i < kObjects; ++i) {
    const msg::SubPullResult& res = reply.results[i];
    ASSERT_TRUE(res.status.ok()) << res.status.ToString();
    EXPECT_EQ(Stored(6, res.object, 1), store::testing::ToString(shards[i][1])) << res.object;
    if (i == 1 || i == 4) {
      // The four half chunks that came in the batch, then k = 4 whole chunks to decode.
      EXPECT_EQ(res.network_bytes, 4 * half + 4 * whole) << res.object;
    } else {
      EXPECT_EQ(res.network_bytes, 5 * half) << res.object;
    }
  }
  // The re-plans read osd.0 directly, once per failed object.
  EXPECT_EQ(Ops(0, "read") - reads_before, 2u);
  EXPECT_EQ(Ops(2, "sub_read_batch"), 1u);
}

// A helper down when the batch goes out: every item of its batch fails, every object re-plans
// without it and is rebuilt from the four others.
TEST_F(PullServiceTest, HelperDownForTheWholeBatch) {
  constexpr int kObjects = 4;
  std::vector<std::vector<Buffer>> shards;
  std::uint64_t size = 0;
  msg::SubPullRequest r = Request(kClayPool, 0, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(0);
  shards = PutObjects(kClayPool, "down", kObjects, 5, 0, &r, &size);
  osds_[3]->server->Stop();
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), static_cast<std::size_t>(kObjects));
  const std::uint64_t half = kStripes * kStripeUnit / 2, whole = kStripes * kStripeUnit;
  for (int i = 0; i < kObjects; ++i) {
    const msg::SubPullResult& res = reply.results[i];
    ASSERT_TRUE(res.status.ok()) << res.status.ToString();
    EXPECT_EQ(Stored(6, res.object, 0), store::testing::ToString(shards[i][0])) << res.object;
    EXPECT_EQ(res.network_bytes, 4 * half + 4 * whole) << res.object;
  }
}

// kCopy of many objects: one batch to the source for every object's whole shard.
TEST_F(PullServiceTest, CopyOfManyObjectsIsOneBatch) {
  constexpr int kObjects = 5;
  std::vector<std::vector<Buffer>> shards;
  std::uint64_t size = 0;
  msg::SubPullRequest r = Request(kRsPool, 2, msg::SubPullMode::kCopy);
  r.helpers = {{2, 2}};
  shards = PutObjects(kRsPool, "copy", kObjects, 5, 0, &r, &size);
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), static_cast<std::size_t>(kObjects));
  for (int i = 0; i < kObjects; ++i) {
    const msg::SubPullResult& res = reply.results[i];
    ASSERT_TRUE(res.status.ok()) << res.status.ToString();
    EXPECT_EQ(res.network_bytes, shards[i][2].size());
    EXPECT_EQ(res.rebuilt_bytes, shards[i][2].size());
    EXPECT_EQ(Stored(6, res.object, 2), store::testing::ToString(shards[i][2]));
  }
  EXPECT_EQ(Ops(2, "sub_read_batch"), 1u);
  EXPECT_EQ(Ops(2, "read"), 0u);
}

// Windows: with batch_bytes below two objects' reads, each window holds one object, so each
// object costs one batch per helper (and the results are the same).
TEST_F(PullServiceTest, WindowsStayWithinBatchBytes) {
  constexpr int kObjects = 3;
  std::vector<std::vector<Buffer>> shards;
  std::uint64_t size = 0;
  msg::SubPullRequest r = Request(kRsPool, 0, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(0);
  shards = PutObjects(kRsPool, "win", kObjects, 5, 0, &r, &size);
  PullOptions po;
  po.osd_id = 6;
  po.batch_bytes = kStripes * 4 * kStripeUnit + 1;  // one object's reads, not two
  MetricsRegistry metrics;
  auto direct =
      std::make_unique<PullService>(osds_[6]->shards.get(), &maps_, &metrics, nullptr, po);
  std::promise<msg::ReplyBody> got;
  auto done = got.get_future();
  msg::Request req;
  req.body = r;
  direct->Handle(std::move(req), std::make_shared<PromiseResponder>(msg::MsgType::kSubPull, &got));
  ASSERT_EQ(done.wait_for(60s), std::future_status::ready);
  const msg::ReplyBody body = done.get();
  const auto* reply = std::get_if<msg::SubPullReply>(&body);
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->results.size(), static_cast<std::size_t>(kObjects));
  for (int i = 0; i < kObjects; ++i) {
    ASSERT_TRUE(reply->results[i].status.ok()) << reply->results[i].status.ToString();
    EXPECT_EQ(reply->results[i].network_bytes, kStripes * 4 * kStripeUnit);
    EXPECT_EQ(Stored(6, reply->results[i].object, 0), store::testing::ToString(shards[i][0]));
  }
  const std::string text = metrics.RenderPrometheus();
  EXPECT_NE(text.find("ecstore_recovery_read_batches_total{pool=\"rs-pool\"} 12"),
            std::string::npos)
      << text;

  // batch_bytes 0: no batching, every object reads its helpers itself (one ReadShard each).
  po.batch_bytes = 0;
  MetricsRegistry unbatched_metrics;
  direct.reset();
  direct = std::make_unique<PullService>(osds_[6]->shards.get(), &maps_, &unbatched_metrics,
                                         nullptr, po);
  r.shard = 1;
  r.helpers = AllBut(1);
  std::uint64_t reads_before = 0;
  for (int i = 0; i < 6; ++i) reads_before += Ops(i, "read");
  std::promise<msg::ReplyBody> got2;
  auto done2 = got2.get_future();
  msg::Request req2;
  req2.body = r;
  direct->Handle(std::move(req2),
                 std::make_shared<PromiseResponder>(msg::MsgType::kSubPull, &got2));
  ASSERT_EQ(done2.wait_for(60s), std::future_status::ready);
  const msg::ReplyBody body2 = done2.get();
  const auto* unbatched = std::get_if<msg::SubPullReply>(&body2);
  ASSERT_NE(unbatched, nullptr);
  ASSERT_EQ(unbatched->results.size(), static_cast<std::size_t>(kObjects));
  for (int i = 0; i < kObjects; ++i) {
    ASSERT_TRUE(unbatched->results[i].status.ok()) << unbatched->results[i].status.ToString();
    EXPECT_EQ(unbatched->results[i].network_bytes, kStripes * 4 * kStripeUnit);
    EXPECT_EQ(Stored(6, unbatched->results[i].object, 1), store::testing::ToString(shards[i][1]));
  }
  EXPECT_EQ(unbatched_metrics.RenderPrometheus().find("ecstore_recovery_read_batches_total"),
            std::string::npos);
  // One ReadShard per helper of the plan (k = 4) per object.
  std::uint64_t reads = 0;
  for (int i = 0; i < 6; ++i) reads += Ops(i, "read");
  EXPECT_EQ(reads - reads_before, 4u * kObjects);
}

TEST_F(PullServiceTest, CopyReadsTheShardOnce) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "obj", 5, &size);
  msg::SubPullRequest r = Request(kRsPool, 2, msg::SubPullMode::kCopy);
  r.helpers = {{2, 2}};
  r.objects = {{"obj", 5, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(reply.results[0].network_bytes, shards[2].size());
  EXPECT_EQ(reply.results[0].rebuilt_bytes, shards[2].size());
  EXPECT_EQ(Stored(6, "obj", 2), store::testing::ToString(shards[2]));
  EXPECT_EQ(State(6, "obj", 2).version, 5u);
  EXPECT_EQ(Meta(6, "obj", 2),
            std::make_pair(std::vector<msg::Attr>{{"name", "obj"}}, std::uint64_t{5000}));
}

TEST_F(PullServiceTest, CopyFallsBackToRebuildWhenTheSourceIsGone) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kClayPool, "obj", 5, &size);
  msg::SubPullRequest r = Request(kClayPool, 3, msg::SubPullMode::kCopy);
  r.helpers = {{3, 42}};  // osd.42 is not in the map: left out
  for (const msg::SubPullHelper& h : AllBut(3)) r.helpers.push_back(h);
  r.objects = {{"obj", 5, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(reply.results[0].network_bytes, kStripes * 5 * kStripeUnit / 2);
  EXPECT_EQ(Stored(6, "obj", 3), store::testing::ToString(shards[3]));
}

TEST_F(PullServiceTest, HelperAtAnotherVersionIsNeverMixedIn) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kClayPool, "obj", 5, &size);
  // Shard 2 moved on to version 6 (other bytes): its reads are refused, and the engine decodes
  // from the four helpers left (k whole chunks).
  Buffer other = Buffer::Allocate(shards[2].size(), true);
  ASSERT_TRUE(PutShard(*osds_[2], "obj", 2, 6, 5, size, other).ok());
  msg::SubPullRequest r = Request(kClayPool, 1, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(1);
  r.objects = {{"obj", 5, size, 0}};
  msg::SubPullReply reply = Pull(6, r);
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "obj", 1), store::testing::ToString(shards[1]));

  // With shard 3 moved on too, three helpers are left: that object fails ESTALE and nothing is
  // written.
  ASSERT_TRUE(PutShard(*osds_[3], "obj", 3, 6, 5, size, other).ok());
  r.shard = 0;
  r.helpers = AllBut(0);
  reply = Pull(6, r);
  ASSERT_EQ(reply.results.size(), 1u);
  EXPECT_EQ(reply.results[0].status.code(), ESTALE) << reply.results[0].status.ToString();
  EXPECT_EQ(State(6, "obj", 0).state, msg::ShardState::kAbsent);
  EXPECT_EQ(Metric(6, "ecstore_recovery_objects_total{pool=\"clay-pool\",result=\"failed\"}"), "1");
}

TEST_F(PullServiceTest, PrevVersionMismatchFailsThatObjectOnly) {
  std::uint64_t size = 0;
  const std::vector<Buffer> a = PutObject(kRsPool, "a", 5, &size);
  const std::vector<Buffer> b = PutObject(kRsPool, "b", 5, &size);
  // OSD 6 already holds shard 1 of "b" at version 4 (an older copy), but the primary thinks it
  // holds nothing.
  ASSERT_TRUE(PutShard(*osds_[6], "b", 1, 4, 0, size, a[1]).ok());
  msg::SubPullRequest r = Request(kRsPool, 1, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(1);
  r.objects = {{"a", 5, size, 0}, {"b", 5, size, 0}, {"c", 3, size, 4}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 3u);
  EXPECT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(reply.results[1].status.code(), ESTALE) << reply.results[1].status.ToString();
  EXPECT_EQ(reply.results[1].network_bytes, 0u);  // refused before reading anything
  EXPECT_EQ(reply.results[2].status.code(), EINVAL) << reply.results[2].status.ToString();
  EXPECT_EQ(Stored(6, "a", 1), store::testing::ToString(a[1]));
  EXPECT_EQ(State(6, "b", 1).version, 4u);
  EXPECT_EQ(Stored(6, "b", 1), store::testing::ToString(a[1]));

  // With the right prev_version, "b" is brought to version 5.
  r.objects = {{"b", 5, size, 4}};
  const msg::SubPullReply fixed = Pull(6, r);
  ASSERT_EQ(fixed.results.size(), 1u);
  EXPECT_TRUE(fixed.results[0].status.ok()) << fixed.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "b", 1), store::testing::ToString(b[1]));
  EXPECT_EQ(State(6, "b", 1).version, 5u);
}

TEST_F(PullServiceTest, RequestErrors) {
  msg::SubPullRequest r = Request(9, 1, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(1);
  r.objects = {{"obj", 5, 100, 0}};
  EXPECT_EQ(Pull(6, r).status.code(), ENOENT);

  r.pool = kClayPool;
  r.epoch = 4;  // newer than every OSD's map: refused after a short wait
  msg::SubPullReply reply = Pull(6, r);
  EXPECT_EQ(reply.status.code(), ESTALE) << reply.status.ToString();
  EXPECT_TRUE(reply.status.is_retryable());
  EXPECT_TRUE(reply.results.empty());

  r.epoch = 3;
  r.shard = 6;  // the pool has 6 shards: 0..5
  EXPECT_EQ(Pull(6, r).status.code(), EINVAL);
  r.shard = 1;
  r.helpers.push_back({1, 1});  // a helper holding the shard to rebuild
  EXPECT_EQ(Pull(6, r).status.code(), EINVAL);
  r.helpers = AllBut(1);
  r.helpers.push_back({0, 6});  // two helpers of one position
  EXPECT_EQ(Pull(6, r).status.code(), EINVAL);

  r.helpers = AllBut(1);
  r.objects.clear();  // nothing to do: an empty reply
  reply = Pull(6, r);
  EXPECT_TRUE(reply.status.ok()) << reply.status.ToString();
  EXPECT_TRUE(reply.results.empty());
}

TEST_F(PullServiceTest, NewerMapArrivingInTimeIsUsed) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kRsPool, "obj", 5, &size);
  msg::SubPullRequest r = Request(kRsPool, 0, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(0);
  r.objects = {{"obj", 5, size, 0}};
  r.epoch = 4;
  std::thread later([&] {
    std::this_thread::sleep_for(50ms);
    cluster::ClusterMap next = map_;
    next.epoch = 4;
    maps_.Set(next);
  });
  const msg::SubPullReply reply = Pull(6, r);
  later.join();
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  EXPECT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "obj", 0), store::testing::ToString(shards[0]));
}

// A client write (the primary's SubWrite) and the pull of the same shard race: exactly one of
// them applies, and the shard holds that one's bytes and version, never a mix.
TEST_F(PullServiceTest, ClientWriteAndPullOfOneShardNeverInterleave) {
  constexpr int kObjects = 24;
  std::uint64_t size = 0;
  std::vector<std::vector<Buffer>> shards;
  msg::SubPullRequest r = Request(kRsPool, 1, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(1);
  shards = PutObjects(kRsPool, "race", kObjects, 5, 0, &r, &size);
  msg::ClientOptions co;
  co.port = osds_[6]->server->port();
  auto client = msg::OsdClient::Create(co);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  const Buffer written = Buffer::Allocate(shards[0][1].size(), true);
  std::vector<Status> writes(kObjects);
  std::thread writer([&] {
    for (int i = 0; i < kObjects; ++i) {
      msg::SubWriteRequest w;
      w.collection = kCollection;
      w.object = "race" + std::to_string(i);
      w.shard = 1;
      w.version = 9;
      w.prev_version = 0;
      w.kind = msg::SubWriteKind::kFull;
      w.object_size = size;
      w.shard_size = written.size();
      w.extents.push_back({0, written.size()});
      writes[i] = (*client)->SubWrite(w, {written});
    }
  });
  const msg::SubPullReply reply = Pull(6, r);
  writer.join();
  ASSERT_EQ(reply.results.size(), static_cast<std::size_t>(kObjects));
  for (int i = 0; i < kObjects; ++i) {
    const std::string name = "race" + std::to_string(i);
    const bool pulled = reply.results[i].status.ok();
    EXPECT_NE(pulled, writes[i].ok()) << name << ": pull " << reply.results[i].status.ToString()
                                      << ", write " << writes[i].ToString();
    if (!pulled) {
      EXPECT_EQ(reply.results[i].status.code(), ESTALE);
    }
    if (!writes[i].ok()) {
      EXPECT_EQ(writes[i].code(), ESTALE);
    }
    const msg::SubStateReply st = State(6, name, 1);
    EXPECT_EQ(st.version, pulled ? 5u : 9u) << name;
    EXPECT_EQ(Stored(6, name, 1), store::testing::ToString(pulled ? shards[i][1] : written))
        << name;
  }
}

// Without a shard service, the pull writes to the store itself (and creates the collection).
TEST_F(PullServiceTest, WritesToTheStoreWithoutAShardService) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kClayPool, "obj", 5, &size);
  PullOptions po;
  po.osd_id = 6;
  auto direct = std::make_unique<PullService>(osds_[6]->shards.get(), &maps_, &osds_[6]->metrics,
                                              nullptr, po);
  msg::SubPullRequest r = Request(kClayPool, 5, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(5);
  r.objects = {{"obj", 5, size, 0}};
  std::promise<msg::ReplyBody> got;
  auto done = got.get_future();
  msg::Request req;
  req.body = r;
  direct->Handle(std::move(req), std::make_shared<PromiseResponder>(msg::MsgType::kSubPull, &got));
  ASSERT_EQ(done.wait_for(60s), std::future_status::ready);
  const msg::ReplyBody body = done.get();
  const auto* reply = std::get_if<msg::SubPullReply>(&body);
  ASSERT_NE(reply, nullptr);
  ASSERT_EQ(reply->results.size(), 1u);
  ASSERT_TRUE(reply->results[0].status.ok()) << reply->results[0].status.ToString();
  EXPECT_EQ(Stored(6, "obj", 5), store::testing::ToString(shards[5]));

  // Not a SubPull: refused at once.
  std::promise<msg::ReplyBody> refused;
  auto refusal = refused.get_future();
  msg::Request ping;
  ping.body = msg::PingRequest{};
  direct->Handle(std::move(ping),
                 std::make_shared<PromiseResponder>(msg::MsgType::kPing, &refused));
  ASSERT_EQ(refusal.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(msg::StatusOf(refusal.get()).code(), EINVAL);
}

// Destroyed with a pull in flight: the request is still answered, ECANCELED as a whole if it had
// not started, else the objects not started are ECANCELED and the ones that ran written whole.
TEST_F(PullServiceTest, ShutdownAnswersWithTheObjectsNotStartedCancelled) {
  constexpr int kObjects = 12;
  std::uint64_t size = 0;
  std::vector<std::vector<Buffer>> shards;
  msg::SubPullRequest r = Request(kClayPool, 2, msg::SubPullMode::kRebuild);
  r.helpers = AllBut(2);
  shards = PutObjects(kClayPool, "stop", kObjects, 5, 0, &r, &size);
  PullOptions po;
  po.osd_id = 6;
  po.threads = 1;
  po.max_active = 1;
  auto direct = std::make_unique<PullService>(osds_[6]->shards.get(), &maps_, &osds_[6]->metrics,
                                              nullptr, po);
  std::promise<msg::ReplyBody> got;
  auto done = got.get_future();
  msg::Request req;
  req.body = r;
  direct->Handle(std::move(req), std::make_shared<PromiseResponder>(msg::MsgType::kSubPull, &got));
  direct.reset();  // microseconds after Handle: twelve objects of network reads cannot be done
  ASSERT_EQ(done.wait_for(0s), std::future_status::ready);
  const msg::ReplyBody body = done.get();
  const auto* reply = std::get_if<msg::SubPullReply>(&body);
  ASSERT_NE(reply, nullptr);
  if (!reply->status.ok()) {
    // Not started at all: the whole request is refused.
    EXPECT_EQ(reply->status.code(), ECANCELED) << reply->status.ToString();
    EXPECT_TRUE(reply->results.empty());
    for (int i = 0; i < kObjects; ++i) {
      EXPECT_EQ(State(6, "stop" + std::to_string(i), 2).state, msg::ShardState::kAbsent);
    }
    return;
  }
  ASSERT_EQ(reply->results.size(), static_cast<std::size_t>(kObjects));
  for (int i = 0; i < kObjects; ++i) {
    const msg::SubPullResult& res = reply->results[i];
    if (res.status.ok()) {
      EXPECT_EQ(Stored(6, res.object, 2), store::testing::ToString(shards[i][2]));
    } else {
      EXPECT_EQ(res.status.code(), ECANCELED) << res.status.ToString();
      EXPECT_EQ(State(6, res.object, 2).state, msg::ShardState::kAbsent);
    }
  }
  EXPECT_NE(reply->results.back().status.code(), 0) << "every object ran before the shutdown";
}

}  // namespace
}  // namespace ec::osd::pg
