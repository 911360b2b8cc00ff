// Pipelined repair in-process (issue 33 item 2): seven OSDs, each a real store behind a real
// shard::OsdService with a PullService (osd_repair_pipeline on) and a ChainService, served on
// loopback; a map with an RS(4,2) and a CLAY(4,2,5) pool. A SubPull kRebuild sent to OSD 6 goes
// through chains of the helpers: checked are the rebuilt shard's bytes (identical to the lost
// one), the bytes each OSD sent and received (one chunk per link), and what happens when a helper
// stalls, is at another version, or a request is bad: the shard is still right, or nothing is
// written.
#include "osd/pg/repair_chain.h"

#include <gtest/gtest.h>

#include <cstring>
#include <future>
#include <mutex>
#include <random>

#include "ec/stripe_codec.h"
#include "msg/client.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/pull_service.h"
#include "osd/shard/osd_service.h"
#include "osd/shard/shard_meta.h"
#include "osd/shard/sub_ops.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::pg {
namespace {

using namespace std::chrono_literals;

constexpr int kChainOsds = 7;
constexpr std::int64_t kChainRsPool = 1;
constexpr std::int64_t kChainClayPool = 2;
constexpr std::uint64_t kChainUnit = 4096;
constexpr std::uint64_t kChainStripes = 8;
constexpr const char* kChainCollection = "pg.1.0";

// In front of an OSD's OsdService: when told to, keeps SubRepairChain requests unanswered (a
// helper that stalls mid-chain) until Release.
class StallingHandler final : public msg::RequestHandler {
 public:
  explicit StallingHandler(std::shared_ptr<msg::RequestHandler> inner) : inner_(std::move(inner)) {}
  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override {
    if (std::holds_alternative<msg::SubRepairChainRequest>(request.body)) {
      std::lock_guard lock(mu_);
      ++chains_;
      if (stall_) {
        held_.push_back(std::move(responder));
        return;
      }
    }
    inner_->Handle(std::move(request), std::move(responder));
  }
  void Stall(bool on) {
    std::lock_guard lock(mu_);
    stall_ = on;
  }
  // Drops the held requests (the server answers them EIO).
  void Release() {
    std::lock_guard lock(mu_);
    held_.clear();
  }
  int chains() {
    std::lock_guard lock(mu_);
    return chains_;
  }

 private:
  std::shared_ptr<msg::RequestHandler> inner_;
  std::mutex mu_;
  bool stall_ = false;
  int chains_ = 0;
  std::vector<std::shared_ptr<msg::Responder>> held_;
};

struct ChainOsd {
  store::testing::TempDir dir;
  std::unique_ptr<store::ObjectStore> store;
  MetricsRegistry metrics;
  std::unique_ptr<shard::ShardService> shards;
  std::unique_ptr<PullService> pull;
  std::unique_ptr<ChainService> chain;
  std::shared_ptr<shard::OsdService> service;
  std::shared_ptr<StallingHandler> front;
  std::unique_ptr<msg::Server> server;
};

class RepairChainTest : public ::testing::Test {
 protected:
  // Every OSD's osd_repair_pipeline and chain slice size (a fixture below changes them).
  virtual RepairPipeline Mode() const { return RepairPipeline::kOn; }
  virtual std::uint64_t SliceBytes() const { return 1024; }

  void SetUp() override {
    cluster::ClusterMap map;
    map.epoch = 3;
    map.profiles["rs"] = {
        "rs", {{"plugin", "isa"}, {"k", "4"}, {"m", "2"}, {"technique", "reed_sol_van"}}};
    map.profiles["clay"] = {"clay", {{"plugin", "clay"}, {"k", "4"}, {"m", "2"}, {"d", "5"}}};
    map.pools[kChainRsPool] = {kChainRsPool, "rs-pool", "rs", 1, kChainUnit, 5};
    map.pools[kChainClayPool] = {kChainClayPool, "clay-pool", "clay", 1, kChainUnit, 5};
    map.pool_max = kChainClayPool;
    for (int i = 0; i < kChainOsds; ++i) {
      auto osd = std::make_unique<ChainOsd>();
      auto opened = store::testing::MkfsAndOpen(osd->dir, store::IoBackend::kUring);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      osd->store = std::move(opened).value();
      osd->shards = std::make_unique<shard::ShardService>(osd->store.get(), &osd->metrics, nullptr,
                                                          shard::ShardServiceOptions{});
      PullOptions po;
      po.osd_id = i;
      po.helper_timeout = 5s;
      po.map_wait = 1s;
      po.repair_pipeline = Mode();
      po.chain.slice_bytes = SliceBytes();  // 1 KiB: several slices per object, a window in flight
      po.chain.timeout = 1500ms;
      osd->pull =
          std::make_unique<PullService>(osd->shards.get(), &maps_, &osd->metrics, nullptr, po);
      ChainServiceOptions co;
      co.osd_id = i;
      co.map_wait = 1s;
      osd->chain =
          std::make_unique<ChainService>(osd->shards.get(), &maps_, &osd->metrics, nullptr, co);
      shard::OsdServiceOptions so;
      so.osd_id = i;
      so.recovery = osd->pull.get();
      so.chain = osd->chain.get();
      osd->service =
          std::make_shared<shard::OsdService>(osd->shards.get(), &osd->metrics, nullptr, so);
      osd->front = std::make_shared<StallingHandler>(osd->service);
      auto server = msg::Server::Start(msg::ServerOptions{}, osd->front);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      osd->server = std::move(server).value();
      cluster::OsdEntry e;
      e.id = i;
      e.addr = "127.0.0.1:" + std::to_string(osd->server->port());
      e.host = "host" + std::to_string(i);
      e.up = true;
      map.osds[i] = e;
      osds_.push_back(std::move(osd));
    }
    map_ = map;
    ASSERT_TRUE(maps_.Set(map));
  }

  void TearDown() override {
    for (auto& osd : osds_) osd->front->Release();
    for (auto& osd : osds_) osd->server->Stop();
    for (auto& osd : osds_) {
      osd->shards->Drain();
      osd->pull.reset();
      osd->chain.reset();
      osd->service.reset();
      osd->shards.reset();
    }
    osds_.clear();
  }

  const PoolCodec& Codec(std::int64_t pool) {
    auto c = codecs_.Get(map_, map_.pools.at(pool));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    held_.push_back(*c);
    return *held_.back();
  }

  static Status PutShard(ChainOsd& osd, const std::string& object, int shard, std::uint64_t version,
                         std::uint64_t object_size, const Buffer& bytes, std::uint64_t prev = 0) {
    msg::SubWriteRequest w;
    w.collection = kChainCollection;
    w.object = object;
    w.shard = static_cast<std::uint32_t>(shard);
    w.version = version;
    w.prev_version = prev;
    w.kind = msg::SubWriteKind::kFull;
    w.object_size = object_size;
    w.shard_size = bytes.size();
    if (!bytes.empty()) w.extents.push_back({0, bytes.size()});
    w.meta = msg::SubWriteMeta::kReplace;
    w.mtime = version * 1000;
    Status s = shard::ApplySubWrite(*osd.store, w, bytes, true);
    if (s.code() == EEXIST) s = shard::ApplySubWrite(*osd.store, w, bytes, false);
    return s;
  }

  // An object of `stripes` stripes (the last one part padding), shard i on OSD i.
  std::vector<Buffer> PutObject(std::int64_t pool, const std::string& object, std::uint64_t version,
                                std::uint64_t* size, std::uint64_t stripes = kChainStripes) {
    const PoolCodec& codec = Codec(pool);
    std::mt19937_64 rng(std::hash<std::string>()(object) + static_cast<std::uint64_t>(pool));
    *size = codec.layout.stripe_width() * stripes - 1000;
    std::vector<std::byte> bytes(*size);
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    auto shards = StripeCodec(*codec.code, codec.layout).EncodeToShards(bytes);
    EXPECT_TRUE(shards.ok()) << shards.status().ToString();
    if (!shards.ok()) return {};
    for (int i = 0; i < static_cast<int>(shards->size()); ++i) {
      Status s = PutShard(*osds_[i], object, i, version, *size, (*shards)[i]);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    return std::move(shards).value();
  }

  msg::SubPullRequest RebuildRequest(std::int64_t pool, std::uint32_t lost) {
    msg::SubPullRequest r;
    r.pool = static_cast<std::uint64_t>(pool);
    r.epoch = static_cast<std::uint64_t>(map_.epoch);
    r.collection = kChainCollection;
    r.shard = lost;
    r.mode = msg::SubPullMode::kRebuild;
    for (std::uint32_t p = 0; p < 6; ++p) {
      if (p != lost) r.helpers.push_back({p, static_cast<std::int32_t>(p)});
    }
    return r;
  }

  std::unique_ptr<msg::OsdClient> Client(int osd) {
    msg::ClientOptions co;
    co.port = osds_[osd]->server->port();
    co.request_timeout = 60s;
    auto client = msg::OsdClient::Create(co);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  msg::SubPullReply Pull(int target, msg::SubPullRequest request) {
    auto client = Client(target);
    if (!client) return msg::SubPullReply{Status::IOError("no client"), {}};
    auto reply = client->SubPull(std::move(request));
    if (!reply.ok()) return msg::SubPullReply{reply.status(), {}};
    return std::move(reply).value();
  }

  std::string Stored(int osd, const std::string& object, int shard) {
    auto got = osds_[osd]->store->Read(kChainCollection, shard::ShardObjectName(object, shard),
                                       std::vector<store::Extent>{{0, 1 << 24}});
    if (!got.ok()) return "<" + got.status().ToString() + ">";
    return store::testing::ToString((*got)[0]);
  }

  std::uint64_t Metric(int osd, const std::string& line_start) {
    const std::string text = osds_[osd]->metrics.RenderPrometheus();
    const auto at = text.find(line_start + " ");
    if (at == std::string::npos) return 0;
    const auto from = at + line_start.size() + 1;
    return std::stoull(text.substr(from, text.find('\n', from) - from));
  }
  // Partial bytes OSD `osd` received as a hop and as the rebuilding OSD, sent as a hop.
  std::uint64_t HopIn(int osd) {
    return Metric(osd, "ecstore_repair_chain_bytes_total{dir=\"in\",role=\"hop\"}");
  }
  std::uint64_t RequesterIn(int osd) {
    return Metric(osd, "ecstore_repair_chain_bytes_total{dir=\"in\",role=\"requester\"}");
  }
  std::uint64_t ChainIn(int osd) { return HopIn(osd) + RequesterIn(osd); }
  std::uint64_t ChainOut(int osd) {
    return Metric(osd, "ecstore_repair_chain_bytes_total{dir=\"out\",role=\"hop\"}");
  }
  std::uint64_t BatchReads(int osd) {
    osds_[osd]->shards->Drain();
    return Metric(osd, "ecstore_osd_ops_total{op=\"sub_read_batch\"}") +
           Metric(osd, "ecstore_osd_ops_total{op=\"read\"}");
  }

  cluster::MapHolder maps_;
  cluster::ClusterMap map_;
  PoolCodecs codecs_{""};
  std::vector<std::shared_ptr<const PoolCodec>> held_;
  std::vector<std::unique_ptr<ChainOsd>> osds_;
};

TEST_F(RepairChainTest, RsRebuildThroughAChainPutsOneChunkOnEachLink) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kChainRsPool, "rs", 7, &size);
  ASSERT_EQ(shards.size(), 6u);
  msg::SubPullRequest r = RebuildRequest(kChainRsPool, 2);
  r.objects = {{"rs", 7, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "rs", 2), store::testing::ToString(shards[2]));
  const std::uint64_t chunk = kChainStripes * kChainUnit;
  // The requester received one chunk (a direct pull: k = 4 chunks), and read no helper itself.
  EXPECT_EQ(reply.results[0].network_bytes, chunk);
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
  EXPECT_EQ(Metric(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 0u);
  EXPECT_GT(Metric(6, "ecstore_repair_chain_slices_total{result=\"ok\"}"), 1u);
  EXPECT_GT(Metric(0, "ecstore_osd_ops_total{op=\"sub_repair_chain\"}"), 0u);
}

TEST_F(RepairChainTest, ClayRebuildThroughAChainIsByteIdentical) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kChainClayPool, "clay", 5, &size);
  ASSERT_EQ(shards.size(), 6u);
  for (std::uint32_t lost : {0u, 5u}) {
    msg::SubPullRequest r = RebuildRequest(kChainClayPool, lost);
    r.objects = {{"clay", 5, size, 0}};
    const msg::SubPullReply reply = Pull(6, r);
    ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
    ASSERT_EQ(reply.results.size(), 1u);
    ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
    EXPECT_EQ(Stored(6, "clay", static_cast<int>(lost)), store::testing::ToString(shards[lost]))
        << "lost " << lost;
  }
  // Each rebuild brought one chunk to the requester (a direct CLAY pull: d/q = 2.5 chunks).
  EXPECT_EQ(ChainIn(6), 2 * kChainStripes * kChainUnit);
  for (int osd = 0; osd < 6; ++osd) EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd;
}

TEST_F(RepairChainTest, AStalledHelperIsLeftOutAndTheShardIsStillRight) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kChainRsPool, "stall", 9, &size);
  ASSERT_EQ(shards.size(), 6u);
  // The first chain is 0 -> 1 -> 3 -> 4 (the direct repair's helpers); OSD 1 in the middle stalls.
  osds_[1]->front->Stall(true);
  msg::SubPullRequest r = RebuildRequest(kChainRsPool, 2);
  r.objects = {{"stall", 9, size, 0}};
  const auto start = std::chrono::steady_clock::now();
  const msg::SubPullReply reply = Pull(6, r);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "stall", 2), store::testing::ToString(shards[2]));
  EXPECT_GT(osds_[1]->front->chains(), 0) << "the stalled helper was never asked";
  // Its successor reported it in time (its share of the 1.5 s deadline), the requester planned
  // a chain without it (0, 3, 4, 5) and nothing fell back to direct reads.
  EXPECT_GE(Metric(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 1u);
  EXPECT_GT(ChainOut(5), 0u);
  for (int osd = 0; osd < 6; ++osd) EXPECT_EQ(BatchReads(osd), 0u) << "osd." << osd;
  EXPECT_LT(took, 5s);
}

TEST_F(RepairChainTest, AHelperAtAnotherVersionFailsItsStageAndIsLeftOut) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kChainRsPool, "ver", 4, &size);
  ASSERT_EQ(shards.size(), 6u);
  // Shard 3 moved on to version 5 (bytes the object at version 4 does not have).
  ASSERT_TRUE(PutShard(*osds_[3], "ver", 3, 5, size, shards[0], 4).ok());
  msg::SubPullRequest r = RebuildRequest(kChainRsPool, 2);
  r.objects = {{"ver", 4, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "ver", 2), store::testing::ToString(shards[2]));
  EXPECT_GE(Metric(3, "ecstore_repair_chain_stages_total{result=\"failed\"}"), 1u);
  EXPECT_GE(Metric(6, "ecstore_repair_chain_slices_total{result=\"failed\"}"), 1u);
}

TEST_F(RepairChainTest, TooFewHelpersAtTheVersionWritesNothing) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kChainRsPool, "few", 4, &size);
  ASSERT_EQ(shards.size(), 6u);
  // Two of the five helpers at another version: neither a chain nor a direct pull can rebuild.
  ASSERT_TRUE(PutShard(*osds_[3], "few", 3, 5, size, shards[0], 4).ok());
  ASSERT_TRUE(PutShard(*osds_[4], "few", 4, 5, size, shards[0], 4).ok());
  msg::SubPullRequest r = RebuildRequest(kChainRsPool, 2);
  r.objects = {{"few", 4, size, 0}};
  const msg::SubPullReply reply = Pull(6, r);
  ASSERT_TRUE(reply.status.ok()) << reply.status.ToString();
  ASSERT_EQ(reply.results.size(), 1u);
  EXPECT_FALSE(reply.results[0].status.ok());
  EXPECT_EQ(reply.results[0].status.code(), ESTALE) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "few", 2).rfind("<", 0), 0u) << "a shard was written";
}

// Sends one hop request straight to OSD `osd` and returns its answer.
msg::ChainResult Ask(msg::OsdClient& client, msg::SubRepairChainRequest r) {
  std::promise<Result<msg::ChainResult>> p;
  auto f = p.get_future();
  client.SubRepairChainAsync(std::move(r),
                             [&p](Result<msg::ChainResult> res) { p.set_value(std::move(res)); });
  auto res = f.get();
  if (!res.ok()) return msg::ChainResult{res.status(), -9, {}};
  return std::move(res).value();
}

TEST_F(RepairChainTest, AHopRefusesBadRequestsNamingItself) {
  std::uint64_t size = 0;
  const std::vector<Buffer> shards = PutObject(kChainRsPool, "bad", 3, &size);
  ASSERT_EQ(shards.size(), 6u);
  const PoolCodec& codec = Codec(kChainRsPool);
  ChainPlans plans;
  auto plan = plans.Get(*codec.code, codec.layout, 2, {0, 1, 3, 4});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  msg::SubRepairChainRequest r;
  r.pool = kChainRsPool;
  r.epoch = static_cast<std::uint64_t>(map_.epoch);
  r.collection = kChainCollection;
  r.object = "bad";
  r.lost = 2;
  r.version = 3;
  r.object_size = size;
  r.stripes = 1;
  r.length = kChainUnit;
  for (const auto& stage : (*plan)->stages()) {
    r.hops.push_back(
        {static_cast<std::uint32_t>(stage.chunk), stage.chunk, ChainStageFingerprint(stage)});
  }
  r.hop = 0;
  r.timeout_ms = 2000;
  const int first = r.hops[0].osd;
  auto client = Client(first);
  ASSERT_TRUE(client);
  // The first hop alone: its own share of the chunk, exactly as ApplyStage gives it.
  msg::ChainResult ok = Ask(*client, r);
  ASSERT_TRUE(ok.status.ok()) << ok.status.ToString();
  ASSERT_EQ(ok.partial.size(), kChainUnit);
  Buffer expect = Buffer::Allocate(kChainUnit, true);
  ASSERT_TRUE(recovery::ApplyStage((*plan)->stages()[0], {0, 1, 0, kChainUnit},
                                   shards[static_cast<std::size_t>(first)].span().first(kChainUnit),
                                   expect.span())
                  .ok());
  EXPECT_EQ(std::memcmp(ok.partial.data(), expect.data(), kChainUnit), 0);

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
  bad([](auto& b) { b.offset = kChainUnit - 100; }, EINVAL, "slice past the sub-chunk");
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

// osd_repair_pipeline = auto with 64 KiB slices: a chain only where a direct pull brings at least
// two chunks per rebuilt chunk (RS(4,2): four) and the shard is at least one slice.
class RepairChainAutoTest : public RepairChainTest {
 protected:
  RepairPipeline Mode() const override { return RepairPipeline::kAuto; }
  std::uint64_t SliceBytes() const override { return 64 * 1024; }
};

TEST_F(RepairChainAutoTest, SmallShardsArePulledDirectlyLargeOnesThroughAChain) {
  std::uint64_t small_size = 0, large_size = 0;
  // Shards of 8 x 4 KiB = 32 KiB (below one slice) and 24 x 4 KiB = 96 KiB.
  const std::vector<Buffer> small = PutObject(kChainRsPool, "small", 3, &small_size);
  const std::vector<Buffer> large = PutObject(kChainRsPool, "large", 3, &large_size, 24);
  ASSERT_EQ(small.size(), 6u);
  ASSERT_EQ(large.size(), 6u);
  msg::SubPullRequest r = RebuildRequest(kChainRsPool, 1);
  r.objects = {{"small", 3, small_size, 0}};
  msg::SubPullReply reply = Pull(6, r);
  ASSERT_EQ(reply.results.size(), 1u) << reply.status.ToString();
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "small", 1), store::testing::ToString(small[1]));
  EXPECT_EQ(RequesterIn(6), 0u) << "a chain for a shard below one slice";
  // Read directly, fetched ahead in one batch per helper as without chains.
  std::uint64_t direct = 0;
  for (int osd = 0; osd < 6; ++osd) {
    direct += BatchReads(osd);
    EXPECT_EQ(Metric(osd, "ecstore_osd_ops_total{op=\"read\"}"), 0u) << "osd." << osd;
  }
  EXPECT_GT(direct, 0u);

  r.objects = {{"large", 3, large_size, 0}};
  reply = Pull(6, r);
  ASSERT_EQ(reply.results.size(), 1u) << reply.status.ToString();
  ASSERT_TRUE(reply.results[0].status.ok()) << reply.results[0].status.ToString();
  EXPECT_EQ(Stored(6, "large", 1), store::testing::ToString(large[1]));
  EXPECT_EQ(RequesterIn(6), 24 * kChainUnit);
  std::uint64_t after = 0;
  for (int osd = 0; osd < 6; ++osd) after += BatchReads(osd);
  EXPECT_EQ(after, direct) << "the large shard was read directly";
}

}  // namespace
}  // namespace ec::osd::pg
