// OSD liveness and the elected monitor against a real etcd (testing::EtcdServer): boot, identity,
// a crash and a fast restart, down within the grace, auto-out after the interval and back in at
// boot, a clean stop, a lost lease, and leader failover. Grace 2 s (etcd's shortest lease TTL).
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/liveness/liveness_keys.h"
#include "cluster/liveness/monitor.h"
#include "cluster/liveness/osd_registration.h"
#include "cluster/map/map_store.h"

namespace ec::cluster {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kPrefix = "/ecstore/";
constexpr milliseconds kGrace{2000};

TEST(LivenessKeys, RoundTripAndStrict) {
  AliveValue a{3, "u-3", "127.0.0.1:6803", 42};
  auto back = DecodeAlive("k", EncodeAlive(a));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->id, 3);
  EXPECT_EQ(back->uuid, "u-3");
  EXPECT_EQ(back->addr, "127.0.0.1:6803");
  EXPECT_EQ(back->pid, 42);
  auto l = DecodeLeader("k", EncodeLeader({"osd.1", 77}));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(l->name, "osd.1");
  EXPECT_EQ(l->since_ms, 77);
  for (const char* bad : {"", "{", "[]", R"({"v":2,"id":3,"uuid":"u","addr":"a","pid":1})",
                          R"({"v":1,"id":3,"uuid":"u","addr":"a"})",
                          R"({"v":1,"id":-3,"uuid":"u","addr":"a","pid":1})",
                          R"({"v":1,"id":3,"uuid":1,"addr":"a","pid":1})",
                          R"({"v":1,"id":3,"uuid":"u","addr":"a","pid":1,"x":0})"}) {
    auto d = DecodeAlive("/ecstore/alive/3", bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), EBADMSG);
    EXPECT_NE(d.status().message().find("/ecstore/alive/3"), std::string::npos);
  }
  EXPECT_FALSE(DecodeLeader("k", R"({"v":1,"name":"x"})").ok());
  EXPECT_EQ(LeaseTtlSeconds(milliseconds(500)), 2);
  EXPECT_EQ(LeaseTtlSeconds(milliseconds(2001)), 3);
  EXPECT_EQ(LeaseTtlSeconds(seconds(20)), 20);
}

class LivenessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = server_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<etcd::Client>(server_.client_options());
    store_ = std::make_unique<MapStore>(client_.get(), kPrefix);
  }

  RegistrationOptions Reg(int id, std::string uuid, std::string host = "h1") {
    RegistrationOptions o;
    o.osd_id = id;
    o.addr = "127.0.0.1:" + std::to_string(6800 + id);
    o.host = std::move(host);
    o.uuid = std::move(uuid);
    o.prefix = kPrefix;
    o.grace = kGrace;
    o.boot_timeout = seconds(10);
    return o;
  }
  MonitorOptions Mon(std::string name, milliseconds out_interval = seconds(600)) {
    MonitorOptions o;
    o.name = std::move(name);
    o.prefix = kPrefix;
    o.grace = kGrace;
    o.down_out_interval = out_interval;
    return o;
  }
  // Polls the map until `pred` holds; returns the time it took, or -1 ms after `limit`.
  milliseconds WaitFor(const std::function<bool(const ClusterMap&)>& pred, milliseconds limit) {
    const auto start = Clock::now();
    while (Clock::now() - start < limit) {
      auto m = store_->Load();
      if (m.ok() && pred(*m)) return std::chrono::duration_cast<milliseconds>(Clock::now() - start);
      std::this_thread::sleep_for(milliseconds(50));
    }
    return milliseconds(-1);
  }
  // The registration counts a boot just after its map change commits, so a test that saw the
  // map say up waits (briefly) for the count too.
  static int BootsReaching(OsdRegistration& r, int want) {
    const auto deadline = Clock::now() + seconds(3);
    while (r.state().boots < want && Clock::now() < deadline)
      std::this_thread::sleep_for(milliseconds(20));
    return r.state().boots;
  }
  ClusterMap Map() {
    auto m = store_->Load();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ClusterMap{};
  }

  etcd::testing::EtcdServer server_;
  std::unique_ptr<etcd::Client> client_;
  std::unique_ptr<MapStore> store_;
};

TEST_F(LivenessTest, BootPutsTheOsdUpWithItsAliveKeyInOneEpoch) {
  auto r = OsdRegistration::Start(server_.client_options(), Reg(3, "u-3", "hostA"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ClusterMap m = Map();
  ASSERT_TRUE(m.osds.contains(3));
  const OsdEntry& o = m.osds.at(3);
  EXPECT_TRUE(o.up);
  EXPECT_TRUE(o.in);
  EXPECT_EQ(o.host, "hostA");
  EXPECT_EQ(o.addr, "127.0.0.1:6803");
  EXPECT_EQ(o.uuid, "u-3");
  EXPECT_EQ(m.epoch, 1);
  auto alive = client_->Get(AliveKey(kPrefix, 3));
  ASSERT_TRUE(alive.ok());
  EXPECT_EQ(alive->lease, (*r)->state().lease);
  EXPECT_EQ(alive->mod_revision, m.epoch_mod_revision);
  EXPECT_EQ((*r)->state().boot_epoch, 1);
  // The lease is renewed: still up well past the grace.
  std::this_thread::sleep_for(kGrace + seconds(1));
  EXPECT_TRUE(client_->Get(AliveKey(kPrefix, 3)).ok());
  EXPECT_EQ((*r)->state().boots, 1);
}

TEST_F(LivenessTest, AnotherStoreCannotTakeAnIdLiveOrDead) {
  auto r = OsdRegistration::Start(server_.client_options(), Reg(1, "u-a"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  auto second = OsdRegistration::Start(server_.client_options(), Reg(1, "u-b"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EEXIST);
  EXPECT_NE(second.status().message().find("belongs to another store (uuid u-a)"),
            std::string::npos)
      << second.status().message();
  (*r)->Stop(true);
  second = OsdRegistration::Start(server_.client_options(), Reg(1, "u-b"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EEXIST);
  // Nothing of the refused daemon is left: the map still names the first store, and the alive
  // key is gone with the first daemon's clean stop.
  EXPECT_EQ(Map().osds.at(1).uuid, "u-a");
  EXPECT_EQ(client_->Get(AliveKey(kPrefix, 1)).status().code(), ENOENT);
}

// An alive key of some other daemon (here written by hand with a lease nobody renews) is waited
// out for the grace; one that never expires makes Start give up with EEXIST naming its holder.
TEST_F(LivenessTest, AForeignAliveKeyIsWaitedOutThenRefused) {
  auto lease = client_->LeaseGrantTtl(2);
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE(
      client_
          ->Put(etcd::PutRequest{AliveKey(kPrefix, 6),
                                 EncodeAlive({6, "u-other", "10.0.0.9:6806", 99}), lease->id})
          .ok());
  auto start = Clock::now();
  auto r = OsdRegistration::Start(server_.client_options(), Reg(6, "u-6"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_GE(Clock::now() - start, milliseconds(1000));
  (*r)->Stop(true);

  ASSERT_TRUE(client_
                  ->Put(etcd::PutRequest{AliveKey(kPrefix, 8),
                                         EncodeAlive({8, "u-other", "10.0.0.9:6808", 99}), 0})
                  .ok());
  start = Clock::now();
  auto refused = OsdRegistration::Start(server_.client_options(), Reg(8, "u-8"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), EEXIST);
  EXPECT_NE(refused.status().message().find("osd.8 is already up at 10.0.0.9:6808 (pid 99"),
            std::string::npos)
      << refused.status().message();
  EXPECT_GE(Clock::now() - start, seconds(2));
  EXPECT_FALSE(Map().osds.contains(8));
}

TEST_F(LivenessTest, RestartAfterACrashTakesOverAtOnce) {
  auto r = OsdRegistration::Start(server_.client_options(), Reg(2, "u-2"));
  ASSERT_TRUE(r.ok());
  const std::int64_t old_lease = (*r)->state().lease;
  (*r)->Stop(false);  // a crash: the alive key stays until its lease expires
  const auto start = Clock::now();
  auto again = OsdRegistration::Start(server_.client_options(), Reg(2, "u-2"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_LT(Clock::now() - start, seconds(1));
  auto alive = client_->Get(AliveKey(kPrefix, 2));
  ASSERT_TRUE(alive.ok());
  EXPECT_EQ(alive->lease, (*again)->state().lease);
  EXPECT_NE(alive->lease, old_lease);
  // The old lease was revoked, not left to expire.
  auto ttl = client_->LeaseKeepAlive(old_lease);
  EXPECT_TRUE(!ttl.ok() || *ttl <= 0);
  EXPECT_TRUE(Map().osds.at(2).up);
  EXPECT_EQ(Map().epoch, 2);
}

TEST_F(LivenessTest, CleanStopMarksDownAtOnce) {
  auto r = OsdRegistration::Start(server_.client_options(), Reg(4, "u-4"));
  ASSERT_TRUE(r.ok());
  (*r)->Stop(true);
  ClusterMap m = Map();
  EXPECT_FALSE(m.osds.at(4).up);
  EXPECT_GT(m.osds.at(4).down_stamp_ms, 0);
  EXPECT_EQ(m.epoch, 2);
  EXPECT_EQ(client_->Get(AliveKey(kPrefix, 4)).status().code(), ENOENT);
}

// A crash: down within the grace (plus etcd's lease check and a tick), out after the interval,
// up and in again at the next boot.
TEST_F(LivenessTest, MonitorMarksDownThenOutAndBootBringsItBack) {
  auto m1 = Monitor::Start(server_.client_options(), Mon("mon-a", seconds(3)));
  auto m2 = Monitor::Start(server_.client_options(), Mon("mon-b", seconds(3)));
  ASSERT_TRUE(m1.ok() && m2.ok());
  auto r0 = OsdRegistration::Start(server_.client_options(), Reg(0, "u-0", "h0"));
  auto r1 = OsdRegistration::Start(server_.client_options(), Reg(1, "u-1", "h1"));
  ASSERT_TRUE(r0.ok() && r1.ok());
  (*r1)->Stop(false);
  const milliseconds to_down =
      WaitFor([](const ClusterMap& m) { return !m.osds.at(1).up; }, kGrace + seconds(5));
  ASSERT_GE(to_down.count(), 0) << "osd.1 never marked down";
  std::printf("kill -> down in the map: %lld ms (grace %lld ms)\n",
              static_cast<long long>(to_down.count()), static_cast<long long>(kGrace.count()));
  EXPECT_LE(to_down, kGrace + milliseconds(1500));
  ClusterMap m = Map();
  EXPECT_TRUE(m.osds.at(1).in);
  EXPECT_TRUE(m.osds.at(0).up) << "a live OSD must not be marked down";
  const milliseconds to_out =
      WaitFor([](const ClusterMap& m) { return !m.osds.at(1).in; }, seconds(3) + seconds(4));
  ASSERT_GE(to_out.count(), 0) << "osd.1 never marked out";
  m = Map();
  EXPECT_TRUE(m.osds.at(1).auto_out);
  EXPECT_GE(WallClockMs() - m.osds.at(1).down_stamp_ms, 3000);
  EXPECT_TRUE(m.osds.at(0).in);
  // Exactly one of the two monitors did the marking.
  EXPECT_EQ((*m1)->state().marked_down + (*m2)->state().marked_down, 1);
  EXPECT_EQ((*m1)->state().marked_out + (*m2)->state().marked_out, 1);
  EXPECT_NE((*m1)->is_leader(), (*m2)->is_leader());

  auto back = OsdRegistration::Start(server_.client_options(), Reg(1, "u-1", "h1"));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  m = Map();
  EXPECT_TRUE(m.osds.at(1).up);
  EXPECT_TRUE(m.osds.at(1).in);
  EXPECT_FALSE(m.osds.at(1).auto_out);
  // And it stays up: the monitors leave a live OSD alone.
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_TRUE(Map().osds.at(1).up);
}

// Hold (a daemon whose device hangs): the lease is revoked at once, so the monitor marks the OSD
// down well within the grace; held, it neither renews nor boots; released, it boots again.
TEST_F(LivenessTest, AHeldOsdLeavesTheMapAtOnceAndBootsAgainWhenReleased) {
  auto mon = Monitor::Start(server_.client_options(), Mon("mon-a"));
  ASSERT_TRUE(mon.ok());
  auto r = OsdRegistration::Start(server_.client_options(), Reg(3, "u-3"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  (*r)->Hold(true, "test");
  EXPECT_TRUE((*r)->state().held);
  EXPECT_FALSE((*r)->state().up);
  EXPECT_EQ(client_->Get(AliveKey(kPrefix, 3)).status().code(), ENOENT);
  const milliseconds to_down =
      WaitFor([](const ClusterMap& m) { return !m.osds.at(3).up; }, kGrace + seconds(5));
  ASSERT_GE(to_down.count(), 0) << "a held OSD was never marked down";
  EXPECT_LT(to_down, kGrace) << "marked down by its lease's expiry, not by the revocation";
  // Held past the grace and more: no boot.
  std::this_thread::sleep_for(kGrace + seconds(1));
  EXPECT_FALSE(Map().osds.at(3).up);
  EXPECT_EQ((*r)->state().boots, 1);
  (*r)->Hold(true, "again");  // no change
  (*r)->Hold(false, "test");
  const milliseconds to_up =
      WaitFor([](const ClusterMap& m) { return m.osds.at(3).up; }, kGrace + seconds(5));
  ASSERT_GE(to_up.count(), 0) << "a released OSD never booted again";
  EXPECT_EQ(BootsReaching(**r, 2), 2);
  EXPECT_TRUE((*r)->state().up);
  EXPECT_FALSE((*r)->state().held);
}

// noout: a down OSD stays in past the interval while the flag is set; once it is unset, the
// monitor marks the OSD out at its next tick (the interval already passed).
TEST_F(LivenessTest, NooutKeepsDownOsdsInUntilUnset) {
  auto mon = Monitor::Start(server_.client_options(), Mon("mon", seconds(1)));
  ASSERT_TRUE(mon.ok());
  ASSERT_TRUE(store_->Apply({MapChange::SetFlag("noout")}).ok());
  auto r = OsdRegistration::Start(server_.client_options(), Reg(2, "u-2"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  (*r)->Stop(/*mark_down=*/true);
  ASSERT_FALSE(Map().osds.at(2).up);
  std::this_thread::sleep_for(milliseconds(2500));  // the interval (1 s) and more ticks
  EXPECT_TRUE(Map().osds.at(2).in) << "noout is set: no automatic out";
  EXPECT_EQ((*mon)->state().marked_out, 0);
  ASSERT_TRUE(store_->Apply({MapChange::UnsetFlag("noout")}).ok());
  const milliseconds to_out =
      WaitFor([](const ClusterMap& m) { return !m.osds.at(2).in; }, seconds(4));
  ASSERT_GE(to_out.count(), 0) << "osd.2 never marked out after noout was unset";
  EXPECT_TRUE(Map().osds.at(2).auto_out);
}

// `ec-admin osd down` of a live OSD: the map says down while its lease lives; the OSD notices
// (Ceph's "wrongly marked me down") and boots again, and the monitor does not mark it out.
TEST_F(LivenessTest, ALiveOsdMarkedDownBootsAgain) {
  auto mon = Monitor::Start(server_.client_options(), Mon("mon", seconds(1)));
  ASSERT_TRUE(mon.ok());
  auto r = OsdRegistration::Start(server_.client_options(), Reg(4, "u-4"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(store_->Apply({MapChange::OsdDown(4, WallClockMs())}).ok());
  ASSERT_FALSE(Map().osds.at(4).up);
  const milliseconds back =
      WaitFor([](const ClusterMap& m) { return m.osds.at(4).up; }, kGrace + seconds(2));
  ASSERT_GE(back.count(), 0) << "osd.4 stayed down";
  // A renew period (a third of the grace) to notice, one of backoff, and its boot.
  EXPECT_LE(back, kGrace + milliseconds(1000));
  EXPECT_EQ(BootsReaching(**r, 2), 2);
  EXPECT_TRUE(Map().osds.at(4).in);
  EXPECT_EQ((*mon)->state().marked_out, 0);
  EXPECT_TRUE(client_->Get(AliveKey(kPrefix, 4)).ok());
}

// An OSD whose lease is lost while it runs (revoked here; in life: SIGSTOP past the grace, or
// etcd out of reach) is marked down, notices, and boots again.
TEST_F(LivenessTest, LostLeaseIsMarkedDownAndTheOsdBootsAgain) {
  auto mon = Monitor::Start(server_.client_options(), Mon("mon"));
  ASSERT_TRUE(mon.ok());
  auto r = OsdRegistration::Start(server_.client_options(), Reg(5, "u-5"));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(client_->LeaseRevoke((*r)->state().lease).ok());
  const std::int64_t epoch_before = Map().epoch;
  // It comes back up through a second boot (the monitor may or may not see it down first).
  const milliseconds back = WaitFor(
      [&](const ClusterMap& m) { return m.osds.at(5).up && m.epoch > epoch_before; }, seconds(8));
  ASSERT_GE(back.count(), 0);
  EXPECT_EQ(BootsReaching(**r, 2), 2);
  EXPECT_TRUE((*r)->state().up);
  EXPECT_TRUE(client_->Get(AliveKey(kPrefix, 5)).ok());
}

// The leader crashes: another candidate takes over within the grace and does the work.
TEST_F(LivenessTest, LeaderFailover) {
  std::vector<std::unique_ptr<Monitor>> mons;
  for (const char* name : {"m0", "m1", "m2"}) {
    auto m = Monitor::Start(server_.client_options(), Mon(name));
    ASSERT_TRUE(m.ok());
    mons.push_back(std::move(*m));
  }
  auto leaders = [&] {
    int n = 0;
    for (auto& m : mons) n += m->is_leader() ? 1 : 0;
    return n;
  };
  const auto deadline = Clock::now() + seconds(5);
  while (leaders() != 1 && Clock::now() < deadline) std::this_thread::sleep_for(milliseconds(50));
  ASSERT_EQ(leaders(), 1);
  std::size_t first = 0;
  for (std::size_t i = 0; i < mons.size(); ++i)
    if (mons[i]->is_leader()) first = i;
  mons[first]->Stop(false);  // crash: its lease expires after the grace
  auto r = OsdRegistration::Start(server_.client_options(), Reg(7, "u-7"));
  ASSERT_TRUE(r.ok());
  (*r)->Stop(false);
  const milliseconds to_down =
      WaitFor([](const ClusterMap& m) { return !m.osds.at(7).up; }, kGrace * 2 + seconds(5));
  ASSERT_GE(to_down.count(), 0) << "no monitor took over";
  int alive_leaders = 0;
  for (std::size_t i = 0; i < mons.size(); ++i)
    if (i != first && mons[i]->is_leader()) ++alive_leaders;
  EXPECT_EQ(alive_leaders, 1);
  auto leader = client_->Get(LeaderKey(kPrefix));
  ASSERT_TRUE(leader.ok());
  auto value = DecodeLeader(leader->key, leader->value);
  ASSERT_TRUE(value.ok());
  EXPECT_NE(value->name, "m" + std::to_string(first));
}

// etcd away for longer than the leader's TTL (down, or without quorum): the leader stops leading;
// etcd back, it leads again on its old lease (which etcd could not expire and extended) within a
// tick, not after that lease has run out.
TEST_F(LivenessTest, LeaderLeadsAgainOnItsLeaseWhenEtcdReturns) {
  MonitorOptions o = Mon("mon");
  o.grace = seconds(4);
  auto mon = Monitor::Start(server_.client_options(), o);
  ASSERT_TRUE(mon.ok());
  const auto deadline = Clock::now() + seconds(5);
  while (!(*mon)->is_leader() && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  ASSERT_TRUE((*mon)->is_leader());
  server_.Kill();
  const auto gone = Clock::now();
  while ((*mon)->is_leader() && Clock::now() - gone < seconds(10)) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_FALSE((*mon)->is_leader()) << "still leading 10 s without etcd";
  ASSERT_TRUE(server_.Restart().ok());
  const auto back = Clock::now();
  while (!(*mon)->is_leader() && Clock::now() - back < seconds(10)) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  const auto took = std::chrono::duration_cast<milliseconds>(Clock::now() - back);
  ASSERT_TRUE((*mon)->is_leader());
  // A tick is 1 s; the old lease would live 4 s (its TTL) and more after the restart.
  EXPECT_LT(took, milliseconds(3000));
  std::printf("monitor leading again %lld ms after etcd returned\n",
              static_cast<long long>(took.count()));
}

}  // namespace
}  // namespace ec::cluster
