// WriteObject's outcome when a write reaches some shards only (object_io.h), in-process: four
// OSDs (a real store behind a real shard::OsdService, served on loopback), an RS(2,2) pool,
// min_size 3. A gate in front of chosen OSDs applies their SubWrites only after the primary's
// sub-operation timeout, as a slow or stalled OSD would. Checked: when fewer than k shards may
// still hold a failed write, it fails Retryable EAGAIN and the object stays at its old content;
// when k may, it fails Retryable EINPROGRESS (the client must not repeat an append), and indeed the
// next resolve settles the write.
#include "osd/pg/object_io.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "msg/server.h"
#include "osd/pg/pool_codecs.h"
#include "osd/shard/osd_service.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::pg {
namespace {

using namespace std::chrono_literals;

constexpr int kPositions = 4;
constexpr std::int64_t kPool = 1;
constexpr std::uint64_t kEpoch = 9;

// Hands requests to `service`; while `delay_ms` is set, SubWrites only after it (on a thread of
// their own, joined by the destructor).
class Gate final : public msg::RequestHandler {
 public:
  explicit Gate(std::shared_ptr<shard::OsdService> service) : service_(std::move(service)) {}
  ~Gate() override {
    for (std::thread& t : late_) t.join();
  }
  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override {
    const std::chrono::milliseconds d(delay_ms.load());
    if (d > 0ms && std::holds_alternative<msg::SubWriteRequest>(request.body)) {
      late_.emplace_back([this, d, r = std::move(request), resp = std::move(responder)]() mutable {
        std::this_thread::sleep_for(d);
        service_->Handle(std::move(r), std::move(resp));
      });
      return;
    }
    service_->Handle(std::move(request), std::move(responder));
  }
  std::atomic<int> delay_ms{0};

 private:
  std::shared_ptr<shard::OsdService> service_;
  std::vector<std::thread> late_;  // only the messenger's one io thread adds to it
};

struct Osd {
  store::testing::TempDir dir;
  std::unique_ptr<store::ObjectStore> store;
  MetricsRegistry metrics;
  std::unique_ptr<shard::ShardService> shards;
  std::shared_ptr<shard::OsdService> service;
  std::shared_ptr<Gate> gate;
  std::unique_ptr<msg::Server> server;
  std::shared_ptr<msg::OsdClient> client;
};

class ObjectIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    map_.epoch = kEpoch;
    map_.profiles["rs"] = {
        "rs", {{"plugin", "isa"}, {"k", "2"}, {"m", "2"}, {"technique", "reed_sol_van"}}};
    map_.pools[kPool] = {kPool, "rs-pool", "rs", 1, 4096, 3};
    auto codec = codecs_.Get(map_, map_.pools.at(kPool));
    ASSERT_TRUE(codec.ok()) << codec.status().ToString();
    codec_ = *codec;
    loc_.pool_id = kPool;
    loc_.pgid = "1.0";
    loc_.collection = "pg.1.0";
    loc_.k = 2;
    loc_.min_size = 3;
    for (int i = 0; i < kPositions; ++i) {
      auto osd = std::make_unique<Osd>();
      auto opened = store::testing::MkfsAndOpen(osd->dir, store::IoBackend::kUring);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      osd->store = std::move(opened).value();
      osd->shards = std::make_unique<shard::ShardService>(osd->store.get(), &osd->metrics, nullptr,
                                                          shard::ShardServiceOptions{});
      shard::OsdServiceOptions so;
      so.osd_id = i;
      osd->service =
          std::make_shared<shard::OsdService>(osd->shards.get(), &osd->metrics, nullptr, so);
      osd->gate = std::make_shared<Gate>(osd->service);
      auto server = msg::Server::Start(msg::ServerOptions{}, osd->gate);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      osd->server = std::move(server).value();
      msg::ClientOptions co;
      co.port = osd->server->port();
      auto client = msg::OsdClient::Create(co);
      ASSERT_TRUE(client.ok()) << client.status().ToString();
      osd->client = std::move(client).value();
      loc_.acting.push_back(i);
      loc_.up.push_back(i);
      io_.clients[i] = ShardLink::Remote(osd->client);
      osds_.push_back(std::move(osd));
    }
    loc_.primary = 0;
    io_.loc = &loc_;
    io_.codec = codec_.get();
    io_.object = "obj";
    io_.epoch = kEpoch;
    io_.timeout = 300ms;
  }

  void TearDown() override {
    for (auto& osd : osds_) osd->client->Close();
    for (auto& osd : osds_) osd->server->Stop();
    for (auto& osd : osds_) {
      osd->gate.reset();  // joins the late SubWrites
      osd->shards->Drain();
    }
  }

  static Buffer Bytes(std::size_t n, char c) {
    Buffer b = Buffer::Allocate(n);
    std::memset(b.data(), c, n);
    return b;
  }

  Result<ObjectState> WriteFull(const ObjectState& state, const Buffer& data,
                                std::uint64_t version) {
    auto plan = PlanWrite(codec_->layout, state.exists, state.size, msg::ObjWriteMode::kWriteFull,
                          0, data.size(), 1ull << 30);
    if (!plan.ok()) return plan.status();
    return WriteObject(io_, state, *plan, data, version, loc_.min_size);
  }

  // The object's content as a fresh resolve settles it (waiting for late SubWrites first).
  std::string Settled() {
    std::this_thread::sleep_for(700ms);
    auto st = ResolveObject(io_);
    if (!st.ok()) return "resolve: " + st.status().ToString();
    if (!st->exists) return "absent";
    auto got = ReadObject(io_, *st, 0, st->size);
    if (!got.ok()) return "read: " + got.status().ToString();
    return std::string(reinterpret_cast<const char*>(got->bytes.data()), got->bytes.size());
  }

  // A new object: absent on every position.
  static ObjectState Absent() {
    ObjectState st;
    for (int p = 0; p < kPositions; ++p) st.current.push_back(p);
    return st;
  }

  cluster::ClusterMap map_;
  PoolCodecs codecs_{""};
  std::shared_ptr<const PoolCodec> codec_;
  cluster::PgLocation loc_;
  ObjectIo io_;
  std::vector<std::unique_ptr<Osd>> osds_;
};

TEST_F(ObjectIoTest, AFailedWriteThatFewerThanKShardsMayHoldFailsEagainAndIsUndone) {
  const std::uint64_t v1 = (kEpoch << 32) | 1;
  auto first = WriteFull(Absent(), Bytes(10000, 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Shard 3's OSD was scanned by a newer primary (it refuses this one's writes); shard 2's OSD
  // applies the write only after the timeout.
  msg::SubScanRequest scan{loc_.collection, 3, "", 10};
  scan.epoch = kEpoch + 1;
  ASSERT_TRUE(osds_[3]->client->SubScan(scan).ok());
  osds_[2]->gate->delay_ms = 600;
  auto second = WriteFull(*first, Bytes(10000, 'b'), (kEpoch << 32) | 2);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EAGAIN) << second.status().ToString();
  EXPECT_TRUE(second.status().is_retryable());
  // Shards 0 and 1 were rolled back; shard 2 alone holds the write: never settled.
  osds_[2]->gate->delay_ms = 0;
  EXPECT_EQ(Settled(), std::string(10000, 'a'));
}

TEST_F(ObjectIoTest, AFailedWriteThatKShardsMayHoldFailsEinprogressAndMayBeSettled) {
  const std::uint64_t v1 = (kEpoch << 32) | 1;
  auto first = WriteFull(Absent(), Bytes(10000, 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Shards 2 and 3 answer too late: two positions (k) may hold the write once they apply it.
  osds_[2]->gate->delay_ms = 600;
  osds_[3]->gate->delay_ms = 600;
  auto second = WriteFull(*first, Bytes(10000, 'b'), (kEpoch << 32) | 2);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EINPROGRESS) << second.status().ToString();
  EXPECT_TRUE(second.status().is_retryable());
  EXPECT_NE(second.status().message().find("may still be applied"), std::string::npos)
      << second.status().message();
  // Which is what happens: the late shards took it, k of them, and the resolve rolls it forward
  // (had the client appended again, the object would hold the data twice).
  osds_[2]->gate->delay_ms = 0;
  osds_[3]->gate->delay_ms = 0;
  EXPECT_EQ(Settled(), std::string(10000, 'b'));
}

}  // namespace
}  // namespace ec::osd::pg
