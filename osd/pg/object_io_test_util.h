// The in-process fixture of object_io's tests (object_io_test.cc, object_form_test.cc): OSDs of
// real stores behind real shard::OsdServices served on loopback, one per position, each behind a
// Gate that can delay or fail SubWrites (a slow, stalled or failing OSD).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "msg/server.h"
#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"
#include "osd/pg/pool_codecs.h"
#include "osd/shard/osd_service.h"
#include "osd/shard/shard_meta.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::pg::testing {

using namespace std::chrono_literals;

constexpr std::int64_t kPool = 1;
constexpr std::uint64_t kEpoch = 9;

// Hands requests to `service`; while `delay_ms` is set, SubWrites only after it (on a thread of
// their own, joined by the destructor).
class Gate final : public msg::RequestHandler {
 public:
  explicit Gate(std::shared_ptr<shard::OsdService> service) : service_(std::move(service)) {}
  ~Gate() override { JoinLate(); }
  // Waits for the late SubWrites to be handed over. Only once the server has stopped (its io
  // thread adds to late_).
  void JoinLate() {
    for (std::thread& t : late_) {
      if (t.joinable()) t.join();
    }
  }
  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override {
    if (std::holds_alternative<msg::SubWriteRequest>(request.body)) {
      ++sub_writes;
      if (const int e = fail_errno.load(); e != 0) {
        (void)responder->SendError(Status::Error(e, "the gate's injected store error"));
        return;
      }
    }
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
  std::atomic<int> sub_writes{0};  // SubWrites received
  std::atomic<int> fail_errno{0};  // answer SubWrites with this error instead (0: none)

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

// The pool the fixture's OSDs serve: one OSD per position.
struct Geometry {
  std::map<std::string, std::string> profile;
  int positions = 0;  // k + m (+ LRC's local parities)
  int k = 0;
  int min_size = 0;
  bool fast = false;  // allow_ec_optimizations (no padding)
};

class ObjectIoTest : public ::testing::Test {
 protected:
  // RS(2,2) padded, min_size 3, stripe unit 4 KiB.
  virtual Geometry MakeGeometry() const {
    return {
        {{"plugin", "isa"}, {"k", "2"}, {"m", "2"}, {"technique", "reed_sol_van"}}, 4, 2, 3, false};
  }

  void SetUp() override {
    const Geometry g = MakeGeometry();
    positions_ = g.positions;
    map_.epoch = kEpoch;
    map_.profiles["ec"] = {"ec", g.profile};
    map_.pools[kPool] = {kPool, "ec-pool", "ec", 1, 4096, g.min_size, g.fast};
    auto codec = codecs_.Get(map_, map_.pools.at(kPool));
    ASSERT_TRUE(codec.ok()) << codec.status().ToString();
    codec_ = *codec;
    ASSERT_EQ(static_cast<int>(codec_->layout.chunk_count()), positions_);
    loc_.pool_id = kPool;
    loc_.pgid = "1.0";
    loc_.collection = "pg.1.0";
    loc_.k = g.k;
    loc_.min_size = g.min_size;
    for (int i = 0; i < positions_; ++i) {
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
    // The late SubWrites reach the shard services before they drain: an operation still queued
    // after that would end (and free its connection) once the server is gone. (The server holds
    // the gate too, so resetting the fixture's pointer alone joined nothing.)
    for (auto& osd : osds_) {
      osd->gate->JoinLate();
      osd->shards->Drain();
    }
  }

  static Buffer Bytes(std::size_t n, char c) {
    Buffer b = Buffer::Allocate(n);
    std::memset(b.data(), c, n);
    return b;
  }

  Result<ObjectState> WriteFull(const ObjectState& state, const Buffer& data, std::uint64_t version,
                                MetaUpdate meta = {}) {
    auto plan = PlanWrite(codec_->layout, state.exists, state.size, msg::ObjWriteMode::kWriteFull,
                          0, data.size(), 1ull << 30);
    if (!plan.ok()) return plan.status();
    return WriteObject(io_, state, *plan, data, version, loc_.min_size, std::move(meta));
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

  Result<ObjectState> WriteAt(const ObjectState& state, std::uint64_t offset, const Buffer& data,
                              std::uint64_t version, MetaUpdate meta = {}) {
    auto plan = PlanWrite(codec_->layout, state.exists, state.size, msg::ObjWriteMode::kWrite,
                          offset, data.size(), 1ull << 30);
    if (!plan.ok()) return plan.status();
    return WriteObject(io_, state, *plan, data, version, loc_.min_size, std::move(meta));
  }

  // A MetaUpdate that sets the mtime and changes the xattrs to `xattrs`.
  static MetaUpdate Change(std::uint64_t mtime, std::vector<msg::Attr> xattrs) {
    MetaUpdate m;
    m.mtime = mtime;
    m.xattrs = std::move(xattrs);
    m.changed = true;
    return m;
  }

  // Shard p's xattrs and mtime as its OSD records them.
  std::pair<std::vector<msg::Attr>, std::uint64_t> ShardMeta(int p) {
    auto st = osds_[p]->client->Stat(
        msg::StatRequest{loc_.collection, "obj", static_cast<std::uint32_t>(p)});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    if (!st.ok()) return {};
    return {shard::XattrsOf(st->attrs), shard::DecimalAttr(st->attrs, shard::kMtimeAttr)};
  }

  // SubWrites each OSD received since the last call.
  std::vector<int> SubWrites() {
    std::vector<int> out;
    for (auto& osd : osds_) out.push_back(osd->gate->sub_writes.exchange(0));
    return out;
  }

  std::uint64_t ShardVersion(int p) {
    auto st = osds_[p]->client->SubState(
        msg::SubStateRequest{loc_.collection, "obj", static_cast<std::uint32_t>(p)});
    return st.ok() ? st->version : 0;
  }

  // A new object: absent on every position.
  ObjectState Absent() const {
    ObjectState st;
    for (int p = 0; p < positions_; ++p) st.current.push_back(p);
    return st;
  }

  int positions_ = 0;
  cluster::ClusterMap map_;
  PoolCodecs codecs_{""};
  std::shared_ptr<const PoolCodec> codec_;
  cluster::PgLocation loc_;
  ObjectIo io_;
  std::vector<std::unique_ptr<Osd>> osds_;
};

}  // namespace ec::osd::pg::testing
