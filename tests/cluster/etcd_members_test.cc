// The cluster map on a three-member etcd (issue 31 item 1), with real ec-osd processes and the
// client library: the etcd leader killed (kill -9) during client I/O, and the quorum lost (two
// members killed) and restored. Every case follows the map with a MapWatcher talking to the
// member that dies first, and checks that it saw every epoch once, in order.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/liveness/liveness_keys.h"
#include "cluster/map/map_watcher.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/cluster/model_workload.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::Status;
using ec::cluster::ClusterMap;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kGraceSeconds = 4;

// The epochs a MapWatcher delivered, from a map loaded at its start.
class EpochLog {
 public:
  EpochLog(ec::etcd::ClientOptions etcd, const ClusterMap& initial) : first_(initial.epoch) {
    watcher_ = std::make_unique<ec::cluster::MapWatcher>(
        std::move(etcd), "/ecstore/", initial,
        [this](const ClusterMap& m) {
          std::lock_guard lock(mu_);
          epochs_.push_back(m.epoch);
        },
        [](const Status&) {});
  }
  ~EpochLog() { watcher_->Stop(); }
  // Waits until the watcher has delivered `epoch`; false after `limit`.
  bool WaitFor(std::int64_t epoch, milliseconds limit) const {
    const auto end = Clock::now() + limit;
    while (Clock::now() < end) {
      if (watcher_->last_epoch() >= epoch) return true;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return watcher_->last_epoch() >= epoch;
  }
  // Every epoch after the first map's up to `last`, each once, ascending.
  void ExpectEveryEpochOnceUpTo(std::int64_t last) const {
    std::lock_guard lock(mu_);
    std::vector<std::int64_t> want;
    for (std::int64_t e = first_ + 1; e <= last; ++e) want.push_back(e);
    EXPECT_EQ(epochs_, want) << "epochs " << first_ + 1 << ".." << last;
  }
  std::size_t count() const {
    std::lock_guard lock(mu_);
    return epochs_.size();
  }

 private:
  const std::int64_t first_;
  mutable std::mutex mu_;
  std::vector<std::int64_t> epochs_;
  std::unique_ptr<ec::cluster::MapWatcher> watcher_;
};

// The longest time between two completed operations of a workload (sampled every 10 ms).
class PauseMeter {
 public:
  explicit PauseMeter(const ectest::WorkloadCounts& n) : n_(n) {
    thread_ = std::thread([this] {
      std::uint64_t seen = n_.ops.load();
      auto last = Clock::now();
      while (!stop_.load()) {
        std::this_thread::sleep_for(milliseconds(10));
        const std::uint64_t now_ops = n_.ops.load();
        const auto now = Clock::now();
        if (now_ops != seen) {
          seen = now_ops;
          last = now;
        }
        const auto gap = std::chrono::duration_cast<milliseconds>(now - last).count();
        if (gap > longest_ms_.load()) longest_ms_.store(gap);
      }
    });
  }
  ~PauseMeter() { Stop(); }
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  milliseconds longest() const { return milliseconds(longest_ms_.load()); }

 private:
  const ectest::WorkloadCounts& n_;
  std::atomic<bool> stop_{false};
  std::atomic<std::int64_t> longest_ms_{0};
  std::thread thread_;
};

// Two threads of the model-checked workload on their own objects, until Stop.
class Workload {
 public:
  Workload(ectest::LocalCluster& c, const std::string& prefix) {
    for (int t = 0; t < 2; ++t) {
      auto io = c.Pool("rs");
      threads_.emplace_back([this, io, t, prefix] {
        ectest::WorkloadOptions wo;
        wo.prefix = prefix + std::to_string(t) + "-";
        wo.objects = 8;
        wo.max_full = 40000;
        ectest::RunWorkload(io, wo, 31 + static_cast<std::uint64_t>(t), stop_,
                            models_[static_cast<std::size_t>(t)], n);
      });
      prefixes_.push_back(prefix + std::to_string(t) + "-");
    }
  }
  ~Workload() { Stop(); }
  void Stop() {
    stop_.store(true);
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }
  // Every object read back and the pool's listing checked (after Stop).
  void VerifyAll(ectest::LocalCluster& c) {
    for (std::size_t t = 0; t < prefixes_.size(); ++t) {
      const Status s = ectest::VerifyAll(c.Pool("rs"), prefixes_[t], models_[t], n);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    EXPECT_EQ(n.mismatches.load(), 0u) << n.Summary();
    EXPECT_EQ(n.lost.load(), 0u) << n.Summary();
    for (const std::string& note : n.Notes()) std::printf("  %s\n", note.c_str());
  }

  ectest::WorkloadCounts n;

 private:
  std::atomic<bool> stop_{false};
  ectest::ObjectModel models_[2];
  std::vector<std::string> prefixes_;
  std::vector<std::thread> threads_;
};

class EtcdMembersTest : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = 6;
    o.etcd_members = 3;
    o.grace_seconds = kGraceSeconds;
    o.pools = {{"rs", ectest::RsProfile(), 4096, 8}};
    StartCluster(std::move(o));
  }

  // The etcd client options with member `first` tried first (as a program whose first
  // endpoint is that member: every program starts with the first).
  static ec::etcd::ClientOptions FirstMember(int first) {
    ec::etcd::ClientOptions o = cluster_->etcd.client_options();
    std::rotate(o.endpoints.begin(), o.endpoints.begin() + first, o.endpoints.end());
    return o;
  }
  static std::string EndpointsFrom(int first) {
    std::string out;
    for (const auto& ep : FirstMember(first).endpoints) {
      out += (out.empty() ? "http://" : ",http://") + ep.ToString();
    }
    return out;
  }
  // The elected monitor's OSD id (its name in the leader key), or -1.
  static int MonitorOsd() {
    auto kv = cluster_->client->Get(ec::cluster::LeaderKey("/ecstore/"));
    if (!kv.ok()) return -1;
    auto v = ec::cluster::DecodeLeader(kv->key, kv->value);
    if (!v.ok() || v->name.rfind("osd.", 0) != 0) return -1;
    return std::stoi(v->name.substr(4));
  }
  // kill -9 of an OSD that is not the elected monitor's, and the time until the map says it is
  // down (-1 when it does not within the grace + 10 s): {its id, ms}.
  static std::pair<int, long long> KillAnOsdUntilDown() {
    const int victim = MonitorOsd() == 5 ? 4 : 5;
    if (!cluster_->Kill(victim)) return {victim, -1};
    const auto killed = Clock::now();
    if (!cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 10))) return {victim, -1};
    return {victim, std::chrono::duration_cast<milliseconds>(Clock::now() - killed).count()};
  }
  // Waits until every PG's primary reports an active state at the map's epoch (no "peering", no
  // "(no report)"); false after `limit`.
  static bool WaitActive(seconds limit) {
    const auto end = Clock::now() + limit;
    std::map<std::string, std::uint64_t> s;
    while (Clock::now() < end) {
      s = cluster_->PgStates();
      bool all = !s.empty();
      for (const auto& [state, n] : s) all = all && state.rfind("active", 0) == 0;
      if (all) return true;
      std::this_thread::sleep_for(milliseconds(200));
    }
    for (const auto& [state, n] : s)
      std::printf("  %s: %llu pgs\n", state.c_str(), (unsigned long long)n);
    return false;
  }
  // Puts the cluster back as SetUp found it: every etcd member and OSD running.
  static void Restore() {
    for (int i = 0; i < cluster_->etcd.members(); ++i) {
      const Status s = cluster_->etcd.StartMember(i);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
    EXPECT_TRUE(cluster_->etcd.WaitQuorum(seconds(20)).ok());
    for (std::size_t id = 0; id < cluster_->osds.size(); ++id) {
      if (!cluster_->osds[id]->running()) cluster_->Restart(static_cast<int>(id));
    }
  }
};

TEST_F(EtcdMembersTest, LeaderKilledDuringClientIo) {
  auto leader = cluster_->etcd.Leader();
  ASSERT_TRUE(leader.ok()) << leader.status().ToString();
  const ClusterMap initial = cluster_->Map();
  EpochLog epochs(FirstMember(*leader), initial);  // watching through the leader
  Workload io(*cluster_, "leader-");
  PauseMeter pause(io.n);
  std::this_thread::sleep_for(seconds(2));
  const std::uint64_t ops_before = io.n.ops.load();

  // kill -9 of the leader: the two others elect one among them.
  cluster_->etcd.KillMember(*leader);
  const auto killed = Clock::now();
  std::this_thread::sleep_for(seconds(5));
  auto next = cluster_->etcd.Leader();
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_NE(*next, *leader);

  // A new client whose first endpoint is the dead member connects through the others.
  ec::cluster::client::ClientOptions co;
  co.etcd_endpoints = EndpointsFrom(*leader);
  co.etcd_op_timeout = seconds(2);
  const auto connect_start = Clock::now();
  auto fresh = ec::cluster::client::Rados::Connect(co);
  const auto connect_ms =
      std::chrono::duration_cast<milliseconds>(Clock::now() - connect_start).count();
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_LT(connect_ms, 5000);
  auto fresh_io = (*fresh)->OpenPool("rs");
  ASSERT_TRUE(fresh_io.ok()) << fresh_io.status().ToString();
  const std::vector<std::byte> bytes(5000, std::byte{7});
  ASSERT_TRUE(fresh_io->WriteFull("leader-fresh", bytes).ok());
  auto back = fresh_io->Read("leader-fresh");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ectest::ToVector(back->data), bytes);

  // An OSD (not the monitor's) killed after the leader change: marked down, its PGs peer.
  const auto victim_killed = Clock::now();
  const auto [victim, down_ms] = KillAnOsdUntilDown();
  ASSERT_GE(down_ms, 0) << "osd." << victim << " not marked down; " << cluster_->DescribeOsds();
  ASSERT_TRUE(WaitActive(seconds(20)));
  std::this_thread::sleep_for(seconds(1));  // I/O on the peered PGs
  io.Stop();
  pause.Stop();
  const std::uint64_t ops_after = io.n.ops.load() - ops_before;

  // The map: every epoch once, in order, through the leader's death.
  const std::int64_t last = cluster_->Map().epoch;
  ASSERT_TRUE(epochs.WaitFor(last, seconds(10)));
  epochs.ExpectEveryEpochOnceUpTo(last);
  io.VerifyAll(*cluster_);
  EXPECT_LT(pause.longest(), seconds(kGraceSeconds + 4));
  std::printf(
      "etcd leader m%d killed: new leader m%d; client I/O %llu ops after the kill (%s), "
      "longest pause %lld ms; new client connected through the others in %lld ms; osd.%d "
      "killed %lld ms after the leader and marked down in %lld ms; epochs %lld..%lld seen "
      "once each (%zu)\n",
      *leader, *next, static_cast<unsigned long long>(ops_after), io.n.Summary().c_str(),
      static_cast<long long>(pause.longest().count()), static_cast<long long>(connect_ms), victim,
      static_cast<long long>(
          std::chrono::duration_cast<milliseconds>(victim_killed - killed).count()),
      static_cast<long long>(down_ms), static_cast<long long>(initial.epoch + 1),
      static_cast<long long>(last), epochs.count());
  Restore();
}

TEST_F(EtcdMembersTest, QuorumLostThenBack) {
  auto leader = cluster_->etcd.Leader();
  ASSERT_TRUE(leader.ok()) << leader.status().ToString();
  const int other = (*leader + 1) % 3;
  const int survivor = (*leader + 2) % 3;
  const ClusterMap initial = cluster_->Map();
  EpochLog epochs(FirstMember(*leader), initial);
  // A client made before, whose operations give up after 3 s (the fixture's wait 40 s).
  ec::cluster::client::ClientOptions co;
  co.etcd_endpoints = cluster_->Endpoints();
  co.op_timeout = seconds(3);
  co.attempt_timeout = seconds(2);
  auto impatient = ec::cluster::client::Rados::Connect(co);
  ASSERT_TRUE(impatient.ok()) << impatient.status().ToString();
  auto quick_io = (*impatient)->OpenPool("rs");
  ASSERT_TRUE(quick_io.ok());
  auto io = cluster_->Pool("rs");
  const std::vector<std::byte> a(7000, std::byte{1}), b(9000, std::byte{2}), c(3000, std::byte{3});
  ASSERT_TRUE(io.WriteFull("quorum-a", a).ok());
  ASSERT_TRUE(io.WriteFull("quorum-b", b).ok());

  // Two of three members killed: no quorum, no leader.
  cluster_->etcd.KillMember(*leader);
  cluster_->etcd.KillMember(other);
  const auto lost = Clock::now();
  // Within the grace the OSDs' liveness leases are fresh: I/O goes on with the last map. Past it
  // no OSD could renew its lease: primaries refuse (EAGAIN, which the client retries until its op
  // timeout), since the monitor might have marked them down unseen.
  int rounds = 0;
  Status refused;
  auto last_ok = lost;
  while (Clock::now() - lost < seconds(kGraceSeconds + 5)) {
    auto w = quick_io->WriteFull("quorum-b", b);
    if (!w.ok()) {
      refused = w.status();
      break;
    }
    auto r = quick_io->Read("quorum-a");
    if (!r.ok()) {
      refused = r.status();
      break;
    }
    EXPECT_EQ(ectest::ToVector(r->data), a);
    ++rounds;
    last_ok = Clock::now();
    std::this_thread::sleep_for(milliseconds(50));
  }
  const auto went_on_ms = std::chrono::duration_cast<milliseconds>(last_ok - lost).count();
  EXPECT_GE(rounds, 1);
  EXPECT_LT(went_on_ms, kGraceSeconds * 1000);  // never past the lease
  ASSERT_FALSE(refused.ok()) << "I/O went on without quorum for " << went_on_ms << " ms";
  EXPECT_EQ(refused.code(), EAGAIN) << refused.ToString();
  EXPECT_NE(refused.message().find("liveness lease"), std::string::npos) << refused.message();
  std::printf("quorum lost: %d writes and reads in the first %lld ms, then: %s\n", rounds,
              static_cast<long long>(went_on_ms), refused.ToString().c_str());

  // A new client gets a clear error naming every endpoint, once the survivor knows it has no
  // leader (its election timeout, 1 to 2 s): ec-rados exits with EAGAIN.
  const std::string conf = (cluster_->dir / "impatient.conf").string();
  ectest::WriteText(
      conf, "[global]\netcd_endpoints = " + cluster_->Endpoints() + "\netcd_op_timeout = 1s\n");
  ectest::ProcessResult tool;
  const auto until = Clock::now() + seconds(15);
  do {
    tool = ectest::RunPoolTool(EC_RADOS_PATH, conf, "rs", {"stat", "quorum-a"});
  } while (tool.exit_code != EAGAIN && Clock::now() < until);
  EXPECT_EQ(tool.exit_code, EAGAIN) << tool.err;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(tool.err.find(cluster_->etcd.member_endpoint(i).ToString()), std::string::npos)
        << tool.err;
  }
  EXPECT_NE(tool.err.find("lost its quorum"), std::string::npos) << tool.err;
  std::printf("a new client without quorum: exit %d, %s", tool.exit_code, tool.err.c_str());

  // A write of the patient client (40 s) waits for the quorum, started now.
  auto pending = io.WriteFullAsync("quorum-c", c);

  // Back: both members restarted on their data.
  std::this_thread::sleep_for(seconds(1));
  ASSERT_TRUE(cluster_->etcd.StartMember(*leader).ok());
  ASSERT_TRUE(cluster_->etcd.StartMember(other).ok());
  const auto restarted = Clock::now();
  ASSERT_TRUE(cluster_->etcd.WaitQuorum(seconds(20)).ok());
  EXPECT_TRUE(cluster_->etcd.member_running(survivor));
  ASSERT_EQ(pending.wait_for(seconds(30)), std::future_status::ready);
  auto done = pending.get();
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  const auto resumed_ms =
      std::chrono::duration_cast<milliseconds>(Clock::now() - restarted).count();
  // Everything acknowledged reads back, through a client made now.
  auto fresh = ec::cluster::client::Rados::Connect(co);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  auto fresh_io = (*fresh)->OpenPool("rs");
  ASSERT_TRUE(fresh_io.ok());
  for (const auto& [name, bytes] : {std::pair{"quorum-a", a}, {"quorum-b", b}, {"quorum-c", c}}) {
    auto r = fresh_io->Read(name);
    ASSERT_TRUE(r.ok()) << name << ": " << r.status().ToString();
    EXPECT_EQ(ectest::ToVector(r->data), bytes) << name;
  }
  // Every OSD up again in the map, every PG clean, and the epochs all seen once, in order.
  for (int id = 0; id < static_cast<int>(cluster_->osds.size()); ++id) {
    EXPECT_TRUE(cluster_->WaitUp(id, true, seconds(10))) << cluster_->DescribeOsds();
  }
  EXPECT_TRUE(cluster_->WaitClean(seconds(30)));
  // The monitor leads again: an OSD killed now is marked down.
  const auto [victim, down_ms] = KillAnOsdUntilDown();
  ASSERT_GE(down_ms, 0) << "osd." << victim << " not marked down; " << cluster_->DescribeOsds();
  const std::int64_t last = cluster_->Map().epoch;
  ASSERT_TRUE(epochs.WaitFor(last, seconds(10)));
  epochs.ExpectEveryEpochOnceUpTo(last);
  std::printf(
      "quorum back: the waiting write done %lld ms after the restart; osd.%d killed then, marked "
      "down in %lld ms; epochs %lld..%lld seen once each (%zu)\n",
      static_cast<long long>(resumed_ms), victim, static_cast<long long>(down_ms),
      static_cast<long long>(initial.epoch + 1), static_cast<long long>(last), epochs.count());
  Restore();
}

}  // namespace
