// Recovery survives kill -9 (issue 15 item 5) on a real local cluster (cluster_fixture.h): etcd,
// seven ec-osd processes on hosts h0..h6, a CLAY(4,2,5) pool and an RS(4,2) pool of 8 PGs each
// holding a few hundred objects of varied sizes. Recovery is slowed down (osd_recovery_sleep,
// osd_recovery_max_active, osd_recovery_max_chunk) so that every kill lands in the middle of it,
// and each case checks that it did: the objects recovered counter was above 0 and below all.
//
// Each case kills one OSD (the victim) and marks it out: with seven hosts and six positions per
// PG, every PG that held a shard on the victim moves that position to the one OSD outside its
// acting set (the puller), which pulls the shards from the five others (the helpers). Then:
//
//   KillTheRecoveringOsd    kill -9 of the puller with the most to pull, restart it: every PG
//                           active+clean, every object reads back, and objects recovered (summed
//                           over the OSDs) <= objects missing + one batch in flight
//   KillAHelperOsd          kill -9 of the OSD that serves the most helper reads: recovery goes on
//                           with the four shards left (k: a plain decode) while it is down; then
//                           it returns, every PG active+clean, every object reads back
//   KillEtcd                kill -9 of etcd, restart on its data: recovery completes
//   ClientIoDuringRecovery  objects still missing a shard are read, overwritten and appended to
//                           while recovery runs: each read equals the model at that time, and at
//                           the end every object equals the model (no write lost or overwritten by
//                           the rebuild), after recovery and after backfill to the victim
//
// Every case ends with the victim back in and the cluster active+clean, so the cases can share one
// cluster (one gtest process); under ctest each case runs in its own process and cluster.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using ec::osd::store::testing::RandomBytes;
using ectest::ToVector;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kOsds = 7;
// An OSD is down 3 s after its last lease renewal: short, yet not so short that a busy 2-core
// machine (etcd's fsync stalling) marks live OSDs down.
constexpr int kGraceSeconds = 3;
constexpr int kObjectsPerPool = 150;
// Recovery's pace: every primary pulls kMaxActive objects of one PG (osd_max_backfills=1), then
// sleeps kSleepMs; a batch is at most kMaxChunk object bytes (one object at least).
constexpr int kMaxActive = 2;
constexpr int kSleepMs = 300;
constexpr const char* kMaxChunk = "256K";

const std::vector<std::string> kPools = {"clay", "rs"};

double Since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// Polls `done` every 20 ms until it holds; false after `limit`.
bool WaitFor(const std::function<bool()>& done, milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(milliseconds(20));
  }
  return done();
}

// What marking the victim out asks of the cluster: the objects with a shard on it, and for each
// OSD the objects it pulls (the OSD that took the victim's position) and those it helps with
// (holds another shard of).
struct Plan {
  int victim = -1;
  struct Missing {
    std::string pool, name;
    int position = 0;  // the victim's position in the object's PG
    int puller = -1;
  };
  std::vector<Missing> missing;
  std::map<int, std::uint64_t> pulls;             // puller -> objects
  std::map<int, std::set<std::string>> pull_pgs;  // puller -> PGs it pulls for
  std::map<int, std::uint64_t> helps;             // OSD -> missing objects it holds a shard of

  int MostPulls() const {
    return std::max_element(pulls.begin(), pulls.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  }
};

class RecoveryKill : public ectest::ClusterTest {
 protected:
  using Model = std::map<std::string, std::map<std::string, std::vector<std::byte>>>;

  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = kOsds;
    o.pools = ectest::ClayAndRsPools();
    o.grace_seconds = kGraceSeconds;
    o.osd_options = {"osd_max_backfills=1", "osd_recovery_max_active=" + std::to_string(kMaxActive),
                     "osd_recovery_sleep=" + std::to_string(kSleepMs) + "ms",
                     "osd_recovery_max_chunk=" + std::string(kMaxChunk)};
    const auto t0 = Clock::now();
    StartCluster(std::move(o));
    model_ = std::make_unique<Model>();
    if (!cluster_->Whole()) return;
    // Sizes from empty to 13 stripes of 16 KiB, written 16 at a time.
    const std::vector<std::size_t> sizes = {0,     1,     4095,  4096,  16384,
                                            20000, 40000, 65536, 99999, 200000};
    std::mt19937_64 rng(15);
    std::uint64_t bytes = 0;
    for (const std::string& pool : kPools) {
      auto io = cluster_->Pool(pool);
      std::vector<std::future<ec::Result<std::uint64_t>>> writes;
      for (int i = 0; i < kObjectsPerPool; ++i) {
        const std::string name = "obj-" + std::to_string(i);
        auto& data = (*model_)[pool][name];
        data = RandomBytes(rng, sizes[rng() % sizes.size()]);
        bytes += data.size();
        writes.push_back(io.WriteFullAsync(name, data));
        if (writes.size() == 16 || i + 1 == kObjectsPerPool) {
          for (auto& w : writes) {
            auto r = w.get();
            EXPECT_TRUE(r.ok()) << r.status().ToString();
          }
          writes.clear();
        }
      }
    }
    EXPECT_TRUE(cluster_->WaitClean(seconds(60)));
    std::printf("cluster of %d OSDs with %d objects in each of %zu pools (%llu bytes) in %.1f s\n",
                kOsds, kObjectsPerPool, kPools.size(), static_cast<unsigned long long>(bytes),
                Since(t0));
  }
  static void TearDownTestSuite() {
    ClusterTest::TearDownTestSuite();
    model_.reset();
  }

  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  }

  // Objects recovered with success on OSD `id` (ecstore_recovery_objects_total, both pools),
  // since that OSD process started.
  static std::uint64_t Recovered(int id) {
    std::uint64_t n = 0;
    for (const std::string& pool : kPools) {
      n += cluster_->Metric(id,
                            "ecstore_recovery_objects_total{pool=\"" + pool + "\",result=\"ok\"}");
    }
    return n;
  }
  static std::uint64_t Failed() {
    std::uint64_t n = 0;
    for (const std::string& pool : kPools) {
      n += cluster_->MetricSum("ecstore_recovery_objects_total{pool=\"" + pool +
                               "\",result=\"failed\"}");
    }
    return n;
  }
  static std::uint64_t NetworkBytes() {
    std::uint64_t n = 0;
    for (const std::string& pool : kPools) {
      n += cluster_->MetricSum("ecstore_recovery_network_bytes_total{pool=\"" + pool + "\"}");
    }
    return n;
  }

  // Objects recovered since the case began: every OSD's counter less its value then, plus what an
  // OSD had counted before it was killed (its counter starts again from 0): kill OSDs with Kill.
  class RecoveredSince {
   public:
    RecoveredSince() {
      for (int id = 0; id < kOsds; ++id) base_[id] = Recovered(id);
    }
    std::uint64_t Of(int id) const {
      const auto b = base_.find(id);
      return Recovered(id) + carried_.at(id) - (b == base_.end() ? 0 : b->second);
    }
    std::uint64_t All() const {
      std::uint64_t n = 0;
      for (int id = 0; id < kOsds; ++id) n += Of(id);
      return n;
    }
    // kill -9 of OSD `id`; the count it had reached (kept: its next process counts from 0).
    std::uint64_t Kill(int id) {
      const std::uint64_t n = Of(id);
      carried_[id] = n;
      base_[id] = 0;
      cluster_->Kill(id);
      return n;
    }

   private:
    std::map<int, std::uint64_t> base_;
    std::map<int, std::uint64_t> carried_ = [] {
      std::map<int, std::uint64_t> m;
      for (int id = 0; id < kOsds; ++id) m[id] = 0;
      return m;
    }();
  };

  // kill -9 of the victim, the monitor marks it down, and the test marks it out: recovery starts.
  // The plan from the map with it out. `recovered` keeps the victim's count.
  static Plan MarkOut(int victim, RecoveredSince& recovered) {
    Plan plan;
    plan.victim = victim;
    const auto before = std::make_shared<const ClusterMap>(cluster_->Map());
    recovered.Kill(victim);
    EXPECT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
    auto out = cluster_->store->Apply({MapChange::OsdOut(victim, false)});
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    const auto after = std::make_shared<const ClusterMap>(cluster_->Map());
    auto old_locator = ec::cluster::ObjectLocator::Make(before);
    auto new_locator = ec::cluster::ObjectLocator::Make(after);
    EXPECT_TRUE(old_locator.ok() && new_locator.ok());
    if (!old_locator.ok() || !new_locator.ok()) return plan;
    for (const auto& [pool, objects] : *model_) {
      const std::int64_t pool_id = cluster_->Pool(pool).pool_id();
      for (const auto& [name, bytes] : objects) {
        auto was = (*old_locator)->LocateObject(pool_id, name);
        auto now = (*new_locator)->LocateObject(pool_id, name);
        EXPECT_TRUE(was.ok() && now.ok());
        if (!was.ok() || !now.ok()) continue;
        auto at = std::find(was->acting.begin(), was->acting.end(), victim);
        if (at == was->acting.end()) continue;
        const auto position = static_cast<std::size_t>(at - was->acting.begin());
        const int puller = now->acting[position];
        plan.missing.push_back({pool, name, static_cast<int>(position), puller});
        ++plan.pulls[puller];
        plan.pull_pgs[puller].insert(now->pgid);
        for (std::size_t p = 0; p < now->acting.size(); ++p) {
          if (p != position) ++plan.helps[now->acting[p]];
        }
      }
    }
    return plan;
  }

  // The victim starts again and is marked in: its positions move back (backfill of what changed
  // while it was out), and every PG is active+clean again.
  static void BringBack(int victim) {
    cluster_->Restart(victim);
    auto in = cluster_->store->Apply({MapChange::OsdIn(victim, 0)});
    EXPECT_TRUE(in.ok()) << in.status().ToString();
    EXPECT_TRUE(cluster_->WaitClean(seconds(90)));
  }

  // Every object of the model reads back whole and equal, and not degraded (called when every PG
  // is active+clean: a data shard missing then would be one recovery skipped); the number of
  // objects read.
  static int ExpectModel() {
    int n = 0;
    for (const auto& [pool, objects] : *model_) {
      auto io = cluster_->Pool(pool);
      std::vector<std::pair<std::string, std::future<ec::Result<ec::cluster::client::ReadResult>>>>
          reads;
      for (const auto& [name, bytes] : objects) reads.emplace_back(name, io.ReadAsync(name));
      for (auto& [name, f] : reads) {
        auto got = f.get();
        EXPECT_TRUE(got.ok()) << pool << "/" << name << ": " << got.status().ToString();
        if (!got.ok()) continue;
        EXPECT_TRUE(ToVector(got->data) == objects.at(name)) << pool << "/" << name;
        EXPECT_FALSE(got->degraded) << pool << "/" << name << " is missing a shard";
        ++n;
      }
    }
    return n;
  }

  inline static std::unique_ptr<Model> model_;
};

TEST_F(RecoveryKill, KillTheRecoveringOsdMidwayThenRestartIt) {
  RecoveredSince recovered;
  const std::uint64_t net0 = NetworkBytes();
  const auto t0 = Clock::now();
  const Plan plan = MarkOut(6, recovered);
  ASSERT_FALSE(plan.missing.empty());
  const int puller = plan.MostPulls();
  const std::uint64_t share = plan.pulls.at(puller);
  // Killed twice: once it has rebuilt about a third of its share, and again at two thirds.
  constexpr int kKills = 2;
  std::string kills;
  for (int kill = 1; kill <= kKills; ++kill) {
    ASSERT_TRUE(
        WaitFor([&] { return recovered.Of(puller) * 3 >= share * kill; }, milliseconds(60000)))
        << "osd." << puller << " recovered " << recovered.Of(puller) << " of " << share;
    const std::uint64_t at_kill = recovered.Kill(puller);
    kills += fmt::format("{}killed at {:.1f} s with {} of its {} recovered", kill > 1 ? ", " : "",
                         Since(t0), at_kill, share);
    EXPECT_GT(at_kill, 0u);
    EXPECT_LT(at_kill, share) << "the kill did not land in the middle of the recovery";
    ASSERT_TRUE(cluster_->WaitUp(puller, false, seconds(kGraceSeconds + 6)));
    cluster_->Restart(puller);
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(120)));
  const double secs = Since(t0);

  const int read = ExpectModel();
  // A batch is up to kMaxActive objects of one PG to one puller; the puller had at most one batch
  // of each PG it pulls for in flight when it died, which it may count again after the restart
  // (a retried pull of a shard already written reads nothing and counts as recovered).
  const std::uint64_t missing = plan.missing.size();
  const std::uint64_t batch = kMaxActive * plan.pull_pgs.at(puller).size();
  const std::uint64_t total = recovered.All();
  std::printf(
      "osd.%d out: %llu objects missing a shard, osd.%d pulls %llu of them (%zu PGs); %s; "
      "active+clean after %.1f s; objects recovered %llu (bound %llu + %d kills x batch %llu), "
      "network bytes %llu (counted while up), failed pulls %llu, %d objects read back\n",
      plan.victim, (unsigned long long)missing, puller, (unsigned long long)share,
      plan.pull_pgs.at(puller).size(), kills.c_str(), secs, (unsigned long long)total,
      (unsigned long long)missing, kKills, (unsigned long long)batch,
      (unsigned long long)(NetworkBytes() - net0), (unsigned long long)Failed(), read);
  // Every missing object was pulled at least once; what the killed process finished between the
  // last look at its counter and the kill (at most the batch in flight) is not counted anywhere.
  EXPECT_GE(total + kKills * batch, missing);
  EXPECT_LE(total, missing + kKills * batch) << "objects rebuilt twice beyond one batch";
  BringBack(plan.victim);
}

TEST_F(RecoveryKill, KillAHelperOsdMidwayThenRestartIt) {
  RecoveredSince recovered;
  const auto t0 = Clock::now();
  const Plan plan = MarkOut(2, recovered);
  ASSERT_FALSE(plan.missing.empty());
  const std::uint64_t missing = plan.missing.size();
  // The OSD holding shards of the most objects to rebuild.
  const int helper =
      std::max_element(plan.helps.begin(), plan.helps.end(), [](const auto& a, const auto& b) {
        return a.second < b.second;
      })->first;
  ASSERT_TRUE(WaitFor([&] { return recovered.All() * 4 >= missing; }, milliseconds(60000)));
  const std::uint64_t at_kill = recovered.All();
  recovered.Kill(helper);
  const double kill_secs = Since(t0);
  EXPECT_GT(at_kill, 0u);
  EXPECT_LT(at_kill, missing) << "the kill did not land in the middle of the recovery";
  ASSERT_TRUE(cluster_->WaitUp(helper, false, seconds(kGraceSeconds + 6)));
  // While it is down, the objects it does not pull itself are rebuilt from the four shards left
  // (one position lost, one down: exactly k).
  const auto pulls = plan.pulls.find(helper);
  const std::uint64_t others = missing - (pulls == plan.pulls.end() ? 0 : pulls->second);
  // Every PG that lost a shard holds all six OSDs left, so every pull now lacks the helper: CLAY
  // cannot repair from d=5 helpers' sub-chunks (network d/q = 2.5 x the rebuilt bytes) and
  // decodes from k=4 whole chunks instead (4 x), as RS does.
  auto bytes = [](const std::string& pool, const char* what) {
    return cluster_->MetricSum(
        fmt::format("ecstore_recovery_{}_bytes_total{{pool=\"{}\"}}", what, pool));
  };
  std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> at_down_bytes;
  for (const std::string& pool : kPools) {
    at_down_bytes[pool] = {bytes(pool, "network"), bytes(pool, "rebuilt")};
  }
  const std::uint64_t at_down = recovered.All();
  WaitFor([&] { return recovered.All() >= others; }, milliseconds(30000));
  const std::uint64_t while_down = recovered.All() - at_down;
  EXPECT_GT(while_down, 0u) << "no recovery while a helper was down";
  std::string ratios;
  for (const std::string& pool : kPools) {
    const std::uint64_t net = bytes(pool, "network") - at_down_bytes[pool].first;
    const std::uint64_t rebuilt = bytes(pool, "rebuilt") - at_down_bytes[pool].second;
    ratios +=
        fmt::format(" {}: {} network / {} rebuilt bytes = {:.2f};", pool, net, rebuilt,
                    rebuilt > 0 ? static_cast<double>(net) / static_cast<double>(rebuilt) : 0.0);
    EXPECT_GT(rebuilt, 0u) << pool;
    EXPECT_GT(net * 2, rebuilt * 5) << pool << ": not a k-chunk decode while a helper is down";
  }
  cluster_->Restart(helper);
  ASSERT_TRUE(cluster_->WaitClean(seconds(120)));
  const double secs = Since(t0);
  const int read = ExpectModel();
  const std::uint64_t total = recovered.All();
  std::printf(
      "osd.%d out: %llu objects missing a shard; helper osd.%d (holds shards of %llu of them) "
      "killed at %.1f s with %llu recovered; %llu recovered while it was down (%llu to pull by the "
      "others;%s); active+clean after %.1f s; objects recovered %llu, failed pulls %llu, %d "
      "objects "
      "read back\n",
      plan.victim, (unsigned long long)missing, helper, (unsigned long long)plan.helps.at(helper),
      kill_secs, (unsigned long long)at_kill, (unsigned long long)while_down,
      (unsigned long long)others, ratios.c_str(), secs, (unsigned long long)total,
      (unsigned long long)Failed(), read);
  // As in the case above: the helper may have been pulling too (for the PGs it is outside of), and
  // what it finished between the last look at its counter and the kill is not counted.
  const auto helper_pgs = plan.pull_pgs.find(helper);
  const std::uint64_t helper_batch =
      helper_pgs == plan.pull_pgs.end() ? 0 : kMaxActive * helper_pgs->second.size();
  EXPECT_GE(total + helper_batch, missing);
  BringBack(plan.victim);
}

TEST_F(RecoveryKill, KillEtcdMidwayThenRestartIt) {
  RecoveredSince recovered;
  const auto t0 = Clock::now();
  const Plan plan = MarkOut(4, recovered);
  ASSERT_FALSE(plan.missing.empty());
  const std::uint64_t missing = plan.missing.size();
  ASSERT_TRUE(WaitFor([&] { return recovered.All() * 4 >= missing; }, milliseconds(60000)));
  const std::uint64_t at_kill = recovered.All();
  cluster_->etcd.Kill();
  const double kill_secs = Since(t0);
  EXPECT_GT(at_kill, 0u);
  EXPECT_LT(at_kill, missing) << "the kill did not land in the middle of the recovery";
  std::this_thread::sleep_for(seconds(3));
  const std::uint64_t while_down = recovered.All() - at_kill;
  EXPECT_GT(while_down, 0u) << "recovery stopped while etcd was down";
  const ec::Status restarted = cluster_->etcd.Restart();
  ASSERT_TRUE(restarted.ok()) << restarted.ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(120)));
  const double secs = Since(t0);
  const int read = ExpectModel();
  const std::uint64_t total = recovered.All();
  std::printf(
      "osd.%d out: %llu objects missing a shard; etcd killed at %.1f s with %llu recovered, "
      "%llu recovered in the 3 s it was down; active+clean after %.1f s; objects recovered %llu, "
      "failed pulls %llu, %d objects read back\n",
      plan.victim, (unsigned long long)missing, kill_secs, (unsigned long long)at_kill,
      (unsigned long long)while_down, secs, (unsigned long long)total, (unsigned long long)Failed(),
      read);
  EXPECT_GE(total, missing);
  for (int id = 0; id < kOsds; ++id) {
    if (id != plan.victim) {
      EXPECT_TRUE(cluster_->osds[id]->running()) << id;
    }
  }
  BringBack(plan.victim);
}

TEST_F(RecoveryKill, ClientReadsAndWritesOfObjectsUnderRecovery) {
  RecoveredSince recovered;
  const auto t0 = Clock::now();
  const std::uint64_t failed0 = Failed();
  Plan plan = MarkOut(1, recovered);
  ASSERT_FALSE(plan.missing.empty());
  const std::uint64_t missing = plan.missing.size();
  std::mt19937_64 rng(51);
  std::shuffle(plan.missing.begin(), plan.missing.end(), rng);
  int writes = 0, reads = 0, degraded = 0, ops_during = 0;
  std::uint64_t first_at = 0, last_at = 0;
  for (const Plan::Missing& m : plan.missing) {
    const std::uint64_t now = recovered.All();
    if (now >= missing) break;  // recovery is over: the rest would not be under recovery
    if (writes == 0) first_at = now;
    last_at = now;
    auto io = cluster_->Pool(m.pool);
    auto& bytes = (*model_)[m.pool][m.name];
    // A read before the write: the model's content; degraded when the lost shard is a data shard
    // the object uses and it is not rebuilt yet.
    auto before = io.Read(m.name);
    ASSERT_TRUE(before.ok()) << m.name << ": " << before.status().ToString() << "; map "
                             << cluster_->DescribeOsds();
    EXPECT_TRUE(ToVector(before->data) == bytes) << m.pool << "/" << m.name;
    ++reads;
    if (before->degraded) ++degraded;
    // Overwrite a range (possibly growing it), append, or replace the whole object.
    const int op = writes % 3;
    if (op == 0) {
      const std::size_t off = rng() % (bytes.size() + 1000);
      const auto data = RandomBytes(rng, 1 + rng() % 30000);
      auto w = io.Write(m.name, data, off);
      ASSERT_TRUE(w.ok()) << m.name << ": " << w.status().ToString();
      if (bytes.size() < off + data.size()) bytes.resize(off + data.size());
      std::copy(data.begin(), data.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off));
    } else if (op == 1) {
      const auto data = RandomBytes(rng, 1 + rng() % 20000);
      auto w = io.Append(m.name, data);
      ASSERT_TRUE(w.ok()) << m.name << ": " << w.status().ToString();
      bytes.insert(bytes.end(), data.begin(), data.end());
    } else {
      bytes = RandomBytes(rng, rng() % 150000);
      auto w = io.WriteFull(m.name, bytes);
      ASSERT_TRUE(w.ok()) << m.name << ": " << w.status().ToString();
    }
    ++writes;
    if (recovered.All() < missing) ++ops_during;
    // And read back at once: the write, not the rebuild.
    auto after = io.Read(m.name);
    ASSERT_TRUE(after.ok()) << m.name << ": " << after.status().ToString() << "; map "
                            << cluster_->DescribeOsds();
    EXPECT_TRUE(ToVector(after->data) == bytes) << m.pool << "/" << m.name;
    ++reads;
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(120)));
  const double secs = Since(t0);
  const int read = ExpectModel();
  std::printf(
      "osd.%d out: %llu objects missing a shard; %d written (%d finished while recovery was "
      "running, recovered counter %llu .. %llu of %llu), %d reads during recovery (%d degraded: "
      "the object's shard not rebuilt yet); active+clean after %.1f s; objects recovered %llu, "
      "pulls failed %llu (a write got there first); %d objects read back\n",
      plan.victim, (unsigned long long)missing, writes, ops_during, (unsigned long long)first_at,
      (unsigned long long)last_at, (unsigned long long)missing, reads, degraded, secs,
      (unsigned long long)recovered.All(), (unsigned long long)(Failed() - failed0), read);
  EXPECT_GT(ops_during, 0);
  EXPECT_GT(degraded, 0) << "no write landed on an object still missing a shard";
  // Back in: the objects written while it was out are copied to it; still the model.
  BringBack(plan.victim);
  EXPECT_EQ(ExpectModel(), read);
}

}  // namespace
