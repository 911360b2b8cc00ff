// The in-process fixture of the repair chains' tests (repair_chain_test.cc,
// repair_chain_auth_test.cc): pull_test_util.h's seven OSDs with a ChainService each and
// osd_repair_pipeline on, each server behind a StallingHandler; shards of 8 stripes, 1 KiB slices.
#pragma once

#include <gtest/gtest.h>

#include <future>
#include <mutex>

#include "osd/pg/pull_test_util.h"
#include "osd/pg/repair_chain.h"

namespace ec::osd::pg::testing {

constexpr std::uint64_t kChainStripes = 8;

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

class RepairChainTest : public LoopbackOsdsTest {
 protected:
  // Every OSD's osd_repair_pipeline and chain slice size (a fixture below changes them).
  virtual RepairPipeline Mode() const { return RepairPipeline::kOn; }
  virtual std::uint64_t SliceBytes() const { return 1024; }

  void ConfigurePull(PullOptions* po) override {
    po->repair_pipeline = Mode();
    po->chain.slice_bytes = SliceBytes();  // 1 KiB: several slices per object, a window in flight
    po->chain.timeout = 1500ms;
  }
  bool WithChains() const override { return true; }
  std::shared_ptr<msg::RequestHandler> Front(int /*osd*/,
                                             std::shared_ptr<shard::OsdService> service) override {
    fronts_.push_back(std::make_shared<StallingHandler>(std::move(service)));
    return fronts_.back();
  }
  std::uint64_t Stripes() const override { return kChainStripes; }

  void TearDown() override {
    for (auto& front : fronts_) front->Release();
    LoopbackOsdsTest::TearDown();
  }

  msg::SubPullRequest RebuildRequest(std::int64_t pool, std::uint32_t lost) {
    msg::SubPullRequest r = Request(pool, lost, msg::SubPullMode::kRebuild);
    r.helpers = AllBut(lost);
    return r;
  }

  // Writes the RS object `object` at `version` (its shards in `*shards`) and returns a request
  // for hop 0 alone (its share of the first stripe) of the chain rebuilding its shard 2 from
  // shards 0, 1, 3, 4 (shard i on OSD i); `*plan` receives the chain's plan (null on a failure).
  msg::SubRepairChainRequest FirstHopRequest(const std::string& object, std::uint64_t version,
                                             std::vector<Buffer>* shards,
                                             std::shared_ptr<const recovery::PipelinePlan>* plan) {
    std::uint64_t size = 0;
    *shards = PutObject(kRsPool, object, version, &size);
    EXPECT_EQ(shards->size(), 6u);
    const PoolCodec& codec = Codec(kRsPool);
    ChainPlans plans;
    auto made = plans.Get(*codec.code, codec.layout, 2, {0, 1, 3, 4});
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    msg::SubRepairChainRequest r;
    r.pool = kRsPool;
    r.epoch = static_cast<std::uint64_t>(map_.epoch);
    r.collection = kCollection;
    r.object = object;
    r.lost = 2;
    r.version = version;
    r.object_size = size;
    r.stripes = 1;
    r.length = kStripeUnit;
    if (!made.ok()) return r;
    *plan = *made;
    for (const auto& stage : (*plan)->stages()) {
      r.hops.push_back(
          {static_cast<std::uint32_t>(stage.chunk), stage.chunk, ChainStageFingerprint(stage)});
    }
    r.hop = 0;
    r.timeout_ms = 2000;
    return r;
  }

  // OSD 6 rebuilds shard `lost` of `object` (at `version`, `size` bytes, encoded as `shards`)
  // from every other position: success when the pull's result is OK and the stored shard holds
  // the lost one's bytes; `*network_bytes` (may be null) receives the bytes the pull received.
  ::testing::AssertionResult RebuiltOn6(std::int64_t pool, const std::string& object,
                                        std::uint64_t version, std::uint64_t size,
                                        const std::vector<Buffer>& shards, std::uint32_t lost,
                                        std::uint64_t* network_bytes = nullptr) {
    msg::SubPullRequest r = RebuildRequest(pool, lost);
    r.objects = {{object, version, size, 0}};
    const msg::SubPullReply reply = Pull(6, r);
    if (!reply.status.ok()) return ::testing::AssertionFailure() << reply.status.ToString();
    if (reply.results.size() != 1) {
      return ::testing::AssertionFailure() << reply.results.size() << " results";
    }
    if (!reply.results[0].status.ok()) {
      return ::testing::AssertionFailure() << reply.results[0].status.ToString();
    }
    if (shards.size() <= lost ||
        Stored(6, object, static_cast<int>(lost)) != store::testing::ToString(shards[lost])) {
      return ::testing::AssertionFailure() << object << " shard " << lost << ": other bytes";
    }
    if (network_bytes != nullptr) *network_bytes = reply.results[0].network_bytes;
    return ::testing::AssertionSuccess();
  }

  // Partial bytes OSD `osd` received as a hop and as the rebuilding OSD, sent as a hop.
  std::uint64_t HopIn(int osd) {
    return Count(osd, "ecstore_repair_chain_bytes_total{dir=\"in\",role=\"hop\"}");
  }
  std::uint64_t RequesterIn(int osd) {
    return Count(osd, "ecstore_repair_chain_bytes_total{dir=\"in\",role=\"requester\"}");
  }
  std::uint64_t ChainIn(int osd) { return HopIn(osd) + RequesterIn(osd); }
  std::uint64_t ChainOut(int osd) {
    return Count(osd, "ecstore_repair_chain_bytes_total{dir=\"out\",role=\"hop\"}");
  }
  std::uint64_t BatchReads(int osd) { return Ops(osd, "sub_read_batch") + Ops(osd, "read"); }

  std::vector<std::shared_ptr<StallingHandler>> fronts_;  // OSD i's is fronts_[i]
};

// Sends one hop request straight to OSD `osd` and returns its answer.
inline msg::ChainResult Ask(msg::OsdClient& client, msg::SubRepairChainRequest r) {
  std::promise<Result<msg::ChainResult>> p;
  auto f = p.get_future();
  client.SubRepairChainAsync(std::move(r),
                             [&p](Result<msg::ChainResult> res) { p.set_value(std::move(res)); });
  auto res = f.get();
  if (!res.ok()) return msg::ChainResult{res.status(), -9, {}};
  return std::move(res).value();
}

}  // namespace ec::osd::pg::testing
