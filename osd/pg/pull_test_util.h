// The in-process fixture of the pull service's tests (pull_service_test.cc) and of the repair
// chains' (repair_chain_test_util.h): seven OSDs, each a real store behind a real
// shard::OsdService with a PullService (and, when asked, a ChainService), served on loopback; a
// map with a CLAY(4,2,5) and an RS(4,2) pool. Objects are encoded with the pool's code and their
// shards written to OSDs 0..5 at a version; a SubPull sent to an OSD over its messenger (as a
// primary would) rebuilds or copies a shard into that OSD's store. With Cephx() every server
// requires cephx and every OSD connects to the others as its osd.N.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ec/stripe_codec.h"
#include "msg/auth/key_server.h"
#include "msg/client.h"
#include "msg/server.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/pull_service.h"
#include "osd/pg/repair_chain.h"
#include "osd/shard/osd_service.h"
#include "osd/shard/shard_meta.h"
#include "osd/shard/sub_ops.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::pg::testing {

using namespace std::chrono_literals;

constexpr int kOsds = 7;
constexpr std::int64_t kClayPool = 1;
constexpr std::int64_t kRsPool = 2;
constexpr std::uint64_t kStripeUnit = 4096;
constexpr const char* kCollection = "pg.1.0";

struct LoopbackOsd {
  store::testing::TempDir dir;
  std::unique_ptr<store::ObjectStore> store;
  MetricsRegistry metrics;
  std::unique_ptr<shard::ShardService> shards;
  std::unique_ptr<PullService> pull;
  std::unique_ptr<ChainService> chain;  // WithChains() only
  std::shared_ptr<shard::OsdService> service;
  std::unique_ptr<msg::Server> server;
};

class LoopbackOsdsTest : public ::testing::Test {
 protected:
  // What a derived fixture changes: each OSD's pull options (osd_id, timeouts and auth are set
  // before), whether the OSDs run chain services, whether they require cephx, what each server
  // serves (the OSD's OsdService, or something in front of it), the stripes of PutObject.
  virtual void ConfigurePull(PullOptions* /*options*/) {}
  virtual bool WithChains() const { return false; }
  virtual bool Cephx() const { return false; }
  virtual std::shared_ptr<msg::RequestHandler> Front(int /*osd*/,
                                                     std::shared_ptr<shard::OsdService> service) {
    return service;
  }
  virtual std::uint64_t Stripes() const { return 5; }

  void SetUp() override {
    std::shared_ptr<msg::auth::KeyringKeyServer> keys;
    if (Cephx()) {
      for (int i = 0; i < kOsds; ++i) {
        keyring_.entries["osd." + std::to_string(i)] = {NewKey(), {{"osd", "allow *"}}};
      }
      keyring_.entries["client.admin"] = {NewKey(), {{"osd", "allow *"}}};
      auto made = msg::auth::KeyringKeyServer::Create(keyring_);
      ASSERT_TRUE(made.ok()) << made.status().ToString();
      keys = std::move(made).value();
    }
    cluster::ClusterMap map;
    map.epoch = 3;
    map.profiles["clay"] = {"clay", {{"plugin", "clay"}, {"k", "4"}, {"m", "2"}, {"d", "5"}}};
    map.profiles["rs"] = {
        "rs", {{"plugin", "isa"}, {"k", "4"}, {"m", "2"}, {"technique", "reed_sol_van"}}};
    map.pools[kClayPool] = {kClayPool, "clay-pool", "clay", 1, kStripeUnit, 5};
    map.pools[kRsPool] = {kRsPool, "rs-pool", "rs", 1, kStripeUnit, 5};
    map.pool_max = kRsPool;
    for (int i = 0; i < kOsds; ++i) {
      auto osd = std::make_unique<LoopbackOsd>();
      auto opened = store::testing::MkfsAndOpen(osd->dir, store::IoBackend::kUring);
      ASSERT_TRUE(opened.ok()) << opened.status().ToString();
      osd->store = std::move(opened).value();
      osd->shards = std::make_unique<shard::ShardService>(osd->store.get(), &osd->metrics, nullptr,
                                                          shard::ShardServiceOptions{});
      PullOptions po;
      po.osd_id = i;
      po.helper_timeout = 5s;
      po.map_wait = 1s;
      po.auth = OsdAuth(i);
      ConfigurePull(&po);
      osd->pull =
          std::make_unique<PullService>(osd->shards.get(), &maps_, &osd->metrics, nullptr, po);
      shard::OsdServiceOptions so;
      so.osd_id = i;
      so.recovery = osd->pull.get();
      if (WithChains()) {
        ChainServiceOptions co;
        co.osd_id = i;
        co.map_wait = 1s;
        co.auth = OsdAuth(i);
        osd->chain =
            std::make_unique<ChainService>(osd->shards.get(), &maps_, &osd->metrics, nullptr, co);
        so.chain = osd->chain.get();
      }
      osd->service =
          std::make_shared<shard::OsdService>(osd->shards.get(), &osd->metrics, nullptr, so);
      msg::ServerOptions server_options;
      if (keys) {
        server_options.auth = msg::auth::AuthMode::kCephx;
        server_options.keys = keys;
      }
      auto server = msg::Server::Start(server_options, Front(i, osd->service));
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

  static msg::auth::CryptoKey NewKey() {
    auto key = msg::auth::CryptoKey::Generate();
    EXPECT_TRUE(key.ok()) << key.status().ToString();
    return key.ok() ? *key : msg::auth::CryptoKey{};
  }
  // osd.N's identity (mode none without Cephx()).
  msg::ClientAuth OsdAuth(int osd) const {
    if (!Cephx()) return {};
    return {msg::auth::AuthMode::kCephx, "osd." + std::to_string(osd),
            keyring_.entries.at("osd." + std::to_string(osd)).key};
  }

  const PoolCodec& Codec(std::int64_t pool) {
    auto c = codecs_.Get(map_, map_.pools.at(pool));
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    held_.push_back(*c);
    return *held_.back();
  }

  // Writes shard `shard` of `object` on `osd` at `version` (over `prev`), as a SubWrite would,
  // with the object's metadata: xattr "name" = the object's name, mtime version x 1000.
  static Status PutShard(LoopbackOsd& osd, const std::string& object, int shard,
                         std::uint64_t version, std::uint64_t prev, std::uint64_t object_size,
                         const Buffer& bytes) {
    msg::SubWriteRequest w;
    w.collection = kCollection;
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
    w.xattrs = {{"name", object}};
    Status s = shard::ApplySubWrite(*osd.store, w, bytes, true);
    if (s.code() == EEXIST) s = shard::ApplySubWrite(*osd.store, w, bytes, false);
    return s;
  }

  // An object of `stripes` stripes (0: Stripes(); the last one part padding) in `pool`, shard i
  // on OSD i at `version`; returns its shards.
  std::vector<Buffer> PutObject(std::int64_t pool, const std::string& object, std::uint64_t version,
                                std::uint64_t* size, std::uint64_t stripes = 0) {
    const PoolCodec& codec = Codec(pool);
    std::mt19937_64 rng(std::hash<std::string>()(object) + static_cast<std::uint64_t>(pool));
    *size = codec.layout.stripe_width() * (stripes != 0 ? stripes : Stripes()) - 1000;
    std::vector<std::byte> bytes(*size);
    for (auto& b : bytes) b = static_cast<std::byte>(rng());
    auto shards = StripeCodec(*codec.code, codec.layout).EncodeToShards(bytes);
    EXPECT_TRUE(shards.ok()) << shards.status().ToString();
    if (!shards.ok()) return {};
    for (int i = 0; i < static_cast<int>(shards->size()); ++i) {
      EXPECT_EQ((*shards)[i].size(), codec.layout.padded_shard_size(*size));
      Status s = PutShard(*osds_[i], object, i, version, 0, *size, (*shards)[i]);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    return std::move(shards).value();
  }

  msg::SubPullRequest Request(std::int64_t pool, std::uint32_t shard, msg::SubPullMode mode) {
    msg::SubPullRequest r;
    r.pool = static_cast<std::uint64_t>(pool);
    r.epoch = static_cast<std::uint64_t>(map_.epoch);
    r.collection = kCollection;
    r.shard = shard;
    r.mode = mode;
    return r;
  }
  // Helpers: every position but `lost` on the OSD of the same number.
  static std::vector<msg::SubPullHelper> AllBut(std::uint32_t lost) {
    std::vector<msg::SubPullHelper> h;
    for (std::uint32_t p = 0; p < 6; ++p) {
      if (p != lost) h.push_back({p, static_cast<std::int32_t>(p)});
    }
    return h;
  }

  // A client of OSD `osd`; with Cephx() it authenticates as osd.0, or as `entity` when given.
  std::unique_ptr<msg::OsdClient> Client(int osd, const std::string& entity = "") {
    msg::ClientOptions co;
    co.port = osds_[osd]->server->port();
    co.request_timeout = 60s;
    if (Cephx()) {
      co.auth = msg::auth::AuthMode::kCephx;
      co.entity = entity.empty() ? "osd.0" : entity;
      co.key = keyring_.entries.at(co.entity).key;
    }
    auto client = msg::OsdClient::Create(co);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  // Sends `request` to OSD `target` over its messenger, as a primary would, and waits for the
  // reply (a whole-request error is the reply's status).
  msg::SubPullReply Pull(int target, msg::SubPullRequest request) {
    auto client = Client(target);
    if (!client) return msg::SubPullReply{Status::IOError("no client"), {}};
    auto reply = client->SubPull(std::move(request));
    if (!reply.ok()) return msg::SubPullReply{reply.status(), {}};
    return std::move(reply).value();
  }

  // Shard `shard` of `object` as OSD `osd`'s store holds it ("<error>" when it cannot be read).
  std::string Stored(int osd, const std::string& object, int shard) {
    auto got = osds_[osd]->store->Read(kCollection, shard::ShardObjectName(object, shard),
                                       std::vector<store::Extent>{{0, 1 << 24}});
    if (!got.ok()) return "<" + got.status().ToString() + ">";
    return store::testing::ToString((*got)[0]);
  }

  // The value of one counter line of OSD `osd`'s /metrics ("" when absent).
  std::string Metric(int osd, const std::string& line_start) {
    const std::string text = osds_[osd]->metrics.RenderPrometheus();
    const auto at = text.find(line_start + " ");
    if (at == std::string::npos) return "";
    const auto from = at + line_start.size() + 1;
    return text.substr(from, text.find('\n', from) - from);
  }
  // The same as a number (0 when absent).
  std::uint64_t Count(int osd, const std::string& line_start) {
    const std::string v = Metric(osd, line_start);
    return v.empty() ? 0 : std::stoull(v);
  }

  // Requests of type `op` OSD `osd` answered (ecstore_osd_ops_total{op}), once it has nothing in
  // flight (the count is taken right after the reply is queued).
  std::uint64_t Ops(int osd, const std::string& op) {
    osds_[osd]->shards->Drain();
    return Count(osd, "ecstore_osd_ops_total{op=\"" + op + "\"}");
  }

  msg::auth::Keyring keyring_;
  cluster::MapHolder maps_;
  cluster::ClusterMap map_;
  PoolCodecs codecs_{""};
  std::vector<std::shared_ptr<const PoolCodec>> held_;
  std::vector<std::unique_ptr<LoopbackOsd>> osds_;
};

}  // namespace ec::osd::pg::testing
