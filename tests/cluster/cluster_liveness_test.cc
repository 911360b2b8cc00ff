// OSD liveness with real processes: a real etcd (testing::EtcdServer) and real ec-osd daemons
// joining it (--set etcd_endpoints=...). Boot into the map, kill -9 -> down within the grace, a
// restart comes back up, SIGTERM marks down at once, a second store claiming an id is refused, an
// unreachable etcd fails the start naming the endpoint, etcd restarting under running daemons,
// every daemon following each map epoch, and an OSD marked down while alive booting again until
// osd_max_markdown_count, then exiting.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/liveness/liveness_keys.h"
#include "cluster/map/map_store.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kGraceSeconds = 2;

// Each case its own cluster, etcd alone at first: the cases count epochs and OSDs from an empty
// map. The OSDs run with ec-osd's own timeouts and the config file's small device.
class ClusterLiveness : public ::testing::Test {
 protected:
  void SetUp() override {
    ectest::LocalClusterOptions o;
    o.osds = 0;
    o.grace_seconds = kGraceSeconds;
    o.fast_failure = false;
    o.block_size.clear();
    c_ = std::make_unique<ectest::LocalCluster>(std::move(o));
    ASSERT_TRUE(c_->Whole());
  }
  // Makes and starts osd.<id> (the next id) in its own folder.
  ectest::OsdProcess* StartOsd(int id) {
    EXPECT_EQ(c_->AddOsd(), id);
    return c_->osds.back().get();
  }
  ClusterMap Map() {
    auto m = c_->store->Load();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ClusterMap{};
  }
  milliseconds WaitFor(const std::function<bool(const ClusterMap&)>& pred, milliseconds limit) {
    return c_->WaitForMap(pred, limit);
  }
  // The map epoch an OSD reports in /status, and when it received it (wall ms); -1 if unknown.
  static std::pair<std::int64_t, std::int64_t> OsdEpoch(const ectest::OsdProcess& p) {
    auto j = nlohmann::json::parse(ectest::HttpGet(p.metrics_port(), "/status"), nullptr, false);
    if (j.is_discarded() || !j.contains("cluster")) return {-1, -1};
    return {j["cluster"].value("epoch", std::int64_t{-1}),
            j["cluster"].value("epoch_received_ms", std::int64_t{-1})};
  }

  std::unique_ptr<ectest::LocalCluster> c_;
};

TEST_F(ClusterLiveness, KillIsDownWithinTheGraceRestartIsUpTermIsDownAtOnce) {
  std::vector<ectest::OsdProcess*> osds;
  for (int id = 0; id < 3; ++id) osds.push_back(StartOsd(id));
  ClusterMap m = Map();
  ASSERT_EQ(m.osds.size(), 3u);
  for (const auto& [id, o] : m.osds) {
    EXPECT_TRUE(o.up) << id;
    EXPECT_TRUE(o.in) << id;
    EXPECT_EQ(o.host, "h" + std::to_string(id));
    EXPECT_EQ(o.addr, "127.0.0.1:" + std::to_string(osds[id]->port()));
  }
  EXPECT_EQ(m.epoch, 3);

  EXPECT_EQ(osds[1]->Kill(), 128 + 9);
  const milliseconds to_down =
      WaitFor([](const ClusterMap& m) { return !m.osds.at(1).up; }, seconds(kGraceSeconds + 5));
  ASSERT_GE(to_down.count(), 0) << "osd.1 never marked down";
  std::printf("kill -9 -> down in the map: %lld ms (osd_heartbeat_grace %d s)\n",
              static_cast<long long>(to_down.count()), kGraceSeconds);
  EXPECT_LE(to_down, seconds(kGraceSeconds) + milliseconds(1500));
  EXPECT_TRUE(Map().osds.at(0).up);
  EXPECT_TRUE(Map().osds.at(2).up);

  // Restarted (its store is the same): up again.
  ASSERT_TRUE(osds[1]->Start(c_->Args(1)));
  m = Map();
  EXPECT_TRUE(m.osds.at(1).up);
  EXPECT_EQ(m.osds.at(1).addr, "127.0.0.1:" + std::to_string(osds[1]->port()));

  // A kill -9 and an immediate restart: the new daemon takes over the old one's liveness key.
  EXPECT_EQ(osds[2]->Kill(), 128 + 9);
  const auto restart = Clock::now();
  ASSERT_TRUE(osds[2]->Start(c_->Args(2)));
  EXPECT_LT(Clock::now() - restart, seconds(kGraceSeconds));
  EXPECT_TRUE(Map().osds.at(2).up);

  // SIGTERM: the daemon marks itself down before it exits.
  EXPECT_EQ(osds[0]->Terminate(), 0);
  m = Map();
  EXPECT_FALSE(m.osds.at(0).up);
  EXPECT_FALSE(c_->client->Get(ec::cluster::AliveKey("/ecstore/", 0)).ok());
}

TEST_F(ClusterLiveness, AnotherStoreWithATakenIdIsRefused) {
  StartOsd(0);
  std::filesystem::create_directories(c_->dir.path() / "second");
  ectest::OsdProcess second(c_->dir.path() / "second", 0);
  ASSERT_EQ(second.Mkfs().exit_code, 0);
  std::vector<std::string> args = second.BaseArgs();
  for (const std::string& a : c_->Args(9)) args.push_back(a);
  ectest::ProcessResult r = ectest::RunOsdTool(args);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("osd.0 belongs to another store"), std::string::npos) << r.err;
  EXPECT_TRUE(Map().osds.at(0).up);
  EXPECT_EQ(Map().osds.at(0).host, "h0");
}

TEST_F(ClusterLiveness, UnreachableEtcdFailsTheStartNamingIt) {
  std::filesystem::create_directories(c_->dir.path() / "lonely");
  ectest::OsdProcess p(c_->dir.path() / "lonely", 4);
  ASSERT_EQ(p.Mkfs().exit_code, 0);
  std::uint16_t port = 0;
  const int fd = ec::etcd::testing::EtcdServer::BindLoopback(/*listen=*/false, &port);
  ASSERT_GE(fd, 0);
  std::vector<std::string> args = p.BaseArgs();
  for (const std::string& a :
       {std::string("--set"), "etcd_endpoints=http://127.0.0.1:" + std::to_string(port),
        std::string("--set"), std::string("etcd_op_timeout=200ms"), std::string("--set"),
        std::string("osd_heartbeat_grace=2s")})
    args.push_back(a);
  const auto start = Clock::now();
  ectest::ProcessResult r = ectest::RunOsdTool(args);
  ::close(fd);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("127.0.0.1:" + std::to_string(port)), std::string::npos) << r.err;
  EXPECT_LT(Clock::now() - start, seconds(20));
}

// etcd killed and restarted under running daemons: they keep serving, stay up, and follow the
// next epoch. Then, for the record, how long each map change takes to reach every daemon.
TEST_F(ClusterLiveness, DaemonsRideOutAnEtcdRestartAndFollowEveryEpoch) {
  std::vector<ectest::OsdProcess*> osds;
  for (int id = 0; id < 3; ++id) osds.push_back(StartOsd(id));
  c_->etcd.Kill();
  std::this_thread::sleep_for(milliseconds(800));
  for (auto& p : osds) EXPECT_FALSE(ectest::HttpGet(p->metrics_port(), "/status").empty());
  ASSERT_TRUE(c_->etcd.Restart().ok());

  std::vector<double> lag_ms;
  for (int i = 0; i < 20; ++i) {
    ec::cluster::EcProfile prof{"p" + std::to_string(i), {{"k", "2"}, {"m", "1"}}};
    const std::int64_t sent = ec::cluster::WallClockMs();
    auto applied = c_->store->Apply({MapChange::PutProfile(prof)});
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    for (auto& p : osds) {
      const auto deadline = Clock::now() + seconds(5);
      std::pair<std::int64_t, std::int64_t> seen{-1, -1};
      while (Clock::now() < deadline) {
        seen = OsdEpoch(*p);
        if (seen.first >= applied->epoch) break;
        std::this_thread::sleep_for(milliseconds(5));
      }
      ASSERT_GE(seen.first, applied->epoch) << "a daemon did not follow epoch " << applied->epoch;
      if (seen.first == applied->epoch) lag_ms.push_back(static_cast<double>(seen.second - sent));
    }
  }
  std::sort(lag_ms.begin(), lag_ms.end());
  ASSERT_FALSE(lag_ms.empty());
  std::printf("map change -> daemon has it: %zu samples, p50 %.0f ms, p99 %.0f ms, max %.0f ms\n",
              lag_ms.size(), lag_ms[lag_ms.size() / 2],
              lag_ms[std::min(lag_ms.size() - 1, lag_ms.size() * 99 / 100)], lag_ms.back());
  ClusterMap m = Map();
  for (const auto& [id, o] : m.osds) EXPECT_TRUE(o.up) << "osd." << id << " after etcd restart";
}

// The thrasher's bug 3: etcd killed, then an OSD frozen (SIGSTOP) while etcd is away, then etcd
// restarted. The frozen OSD's liveness lease must still run out and the monitor mark it down,
// whichever OSD leads the monitor (the frozen one included: another takes over). Both cases.
TEST_F(ClusterLiveness, AnOsdFrozenWhileEtcdIsAwayIsMarkedDownAfterEtcdReturns) {
  std::vector<ectest::OsdProcess*> osds;
  for (int id = 0; id < 3; ++id) osds.push_back(StartOsd(id));
  for (const bool freeze_leader : {false, true}) {
    SCOPED_TRACE(freeze_leader ? "the monitor's leader frozen" : "another OSD frozen");
    // Who leads the monitor: the leader key names it ("osd.N").
    int leader = -1;
    const auto found = WaitFor(
        [&](const ClusterMap&) {
          const std::string key = ec::cluster::LeaderKey("/ecstore/");
          auto kv = c_->client->Get(key);
          if (!kv.ok()) return false;
          auto v = ec::cluster::DecodeLeader(key, kv->value);
          if (!v.ok() || v->name.rfind("osd.", 0) != 0) return false;
          leader = std::stoi(v->name.substr(4));
          return true;
        },
        seconds(10));
    ASSERT_GE(found.count(), 0) << "no monitor leader";
    const int victim = freeze_leader ? leader : (leader + 1) % 3;
    c_->etcd.Kill();
    std::this_thread::sleep_for(milliseconds(1500));
    osds[victim]->Stop();
    std::this_thread::sleep_for(milliseconds(600));
    ASSERT_TRUE(c_->etcd.Restart().ok());
    const milliseconds to_down = WaitFor([&](const ClusterMap& m) { return !m.osds.at(victim).up; },
                                         seconds(4 * kGraceSeconds + 10));
    osds[victim]->Continue();
    ASSERT_GE(to_down.count(), 0) << "osd." << victim << " (leader osd." << leader
                                  << ") frozen across an etcd restart was never marked down";
    std::printf("frozen osd.%d (monitor leader osd.%d) -> down %lld ms after etcd returned\n",
                victim, leader, static_cast<long long>(to_down.count()));
    // Resumed: it boots again (up in the map).
    EXPECT_GE(
        WaitFor([&](const ClusterMap& m) { return m.osds.at(victim).up; }, seconds(20)).count(), 0)
        << "osd." << victim << " did not come back up after SIGCONT";
  }
}

// An OSD marked down while it runs and holds its lease (as its peers' failure reports do, or
// `ec-admin osd down`) logs Ceph's "wrongly marked me down" and boots again in the same process
// once its peer answers it; marked down so more than osd_max_markdown_count times within
// osd_max_markdown_period it exits 0, as Ceph's OSD shuts down, and stays down.
TEST_F(ClusterLiveness, MarkedDownWhileAliveBootsAgainUntilTheMarkdownLimit) {
  c_->options.osd_options.push_back("osd_max_markdown_count=1");
  ectest::OsdProcess* osd = StartOsd(0);
  StartOsd(1);  // the peer that answers osd.0's heartbeats
  ASSERT_TRUE(c_->WaitUp(0, true, seconds(10)));
  const auto up0 = [](const ClusterMap& m) { return m.osds.at(0).up; };
  ASSERT_TRUE(c_->store->Apply({MapChange::OsdDown(0, ec::cluster::WallClockMs())}).ok());
  const milliseconds back = WaitFor(up0, seconds(6));
  ASSERT_GE(back.count(), 0) << "osd.0 did not boot again:\n" << osd->LogFile();
  std::printf("marked down while alive -> up again in %lld ms\n",
              static_cast<long long>(back.count()));
  // Info lines reach the file with the logger's next flush (osd/daemon/logging.h).
  const auto logged = [&](const std::string& what) {
    const auto until = Clock::now() + seconds(5);
    while (osd->LogFile().find(what) == std::string::npos && Clock::now() < until)
      std::this_thread::sleep_for(milliseconds(50));
    return osd->LogFile().find(what) != std::string::npos;
  };
  EXPECT_TRUE(logged("wrongly marked me down")) << osd->LogFile();
  EXPECT_LT(osd->Exited(), 0) << "osd.0 exited after one markdown";
  // The second markdown is one more than osd_max_markdown_count (1): it exits 0.
  ASSERT_TRUE(c_->store->Apply({MapChange::OsdDown(0, ec::cluster::WallClockMs())}).ok());
  int code = -1;
  const auto deadline = Clock::now() + seconds(8);
  while ((code = osd->Exited()) < 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(milliseconds(50));
  EXPECT_EQ(code, 0) << osd->Log();
  EXPECT_TRUE(logged("marked down 2 > osd_max_markdown_count 1")) << osd->LogFile();
  std::this_thread::sleep_for(seconds(1));
  EXPECT_FALSE(Map().osds.at(0).up);
}

}  // namespace
