// The thrasher (issue 16 item 1) on a real local cluster: etcd, seven ec-osd processes on hosts
// h0..h6, a CLAY(4,2,5) and an RS(4,2) pool (and, in a second case, a replicated pool of 3
// copies, issue 30). Four workload threads (two per pool, 50 objects
// each, written once first) run full writes, range overwrites, appends, removes and whole and
// range reads through the client library, each read compared with the model
// (tests/cluster/model_workload.h), while the seeded schedule (thrash_schedule.h) kills -9 and
// restarts OSDs, marks them out and in, SIGSTOPs them past the grace and continues them, and
// restarts etcd, round after round, each round ending active+clean (thrasher.h).
//
// At the end every OSD is running and in, every PG active+clean, every object equals the model and
// the pools list exactly the model's objects; no read differed (mismatches) or showed an earlier
// acknowledged content (lost); reads that failed are few; and `ec-osd --fsck --deep` is clean on
// every OSD once stopped.
//
//   ECSTORE_THRASH_SEED=N      replays the schedule of seed N (printed at the start and in every
//                              failure); the workload's operations follow the seed too, but their
//                              timing against the faults does not replay
//   ECSTORE_THRASH_SECONDS=S   thrash for S seconds (default 75; at least four rounds, one of each
//                              fault), then finish the round; bench/thrash.sh runs the long form
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/cluster/cluster_fixture.h"
#include "tests/cluster/model_workload.h"
#include "tests/thrash/thrash_schedule.h"
#include "tests/thrash/thrasher.h"

namespace ectest::thrash {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

constexpr int kOsds = 7;
// As recovery_test: short, yet long enough that a busy 2-core machine does not mark live OSDs down.
constexpr int kGraceSeconds = 3;
constexpr int kWorkersPerPool = 2;
constexpr int kObjectsPerWorker = 50;
constexpr int kMinRounds = 4;  // one of each kind of fault (thrash_schedule.h)

std::uint64_t EnvOr(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// The first workload object name in `text`: "w", digits, "-", digits. (Not std::regex: GCC 12
// warns inside <regex> under -fsanitize, and warnings are errors here.)
std::optional<std::string> FirstObjectName(const std::string& text) {
  auto digits = [&](std::size_t at) {
    std::size_t end = at;
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    return end;
  };
  for (std::size_t i = text.find('w'); i != std::string::npos; i = text.find('w', i + 1)) {
    const std::size_t a = digits(i + 1);
    if (a == i + 1 || a >= text.size() || text[a] != '-') continue;
    const std::size_t b = digits(a + 1);
    if (b == a + 1) continue;
    return text.substr(i, b - i);
  }
  return std::nullopt;
}

// For a failure: every OSD's log lines that name the objects of the first failing notes, so that
// a report says what the shards did (the logs go with the cluster's TempDir).
void PrintLogsOf(const LocalCluster& cluster, const std::vector<std::string>& notes) {
  std::set<std::string> objects;
  for (const std::string& note : notes) {
    if (objects.size() >= 3) break;
    auto name = FirstObjectName(note);
    if (name) objects.insert(*name);
  }
  for (const std::string& object : objects) {
    for (std::size_t id = 0; id < cluster.osds.size(); ++id) {
      std::istringstream log(cluster.osds[id]->LogFile());
      // The OSDs log at debug level in the suite (CMakeLists.txt): every SubWrite, SubResolve
      // and write outcome of the object, which is what a report of a race needs.
      int shown = 0;
      for (std::string line; std::getline(log, line) && shown < 400;) {
        if (line.find(object + "#") == std::string::npos &&
            line.find(object + " ") == std::string::npos &&
            line.find(object + ":") == std::string::npos) {
          continue;
        }
        std::printf("  osd.%zu log: %s\n", id, line.c_str());
        ++shown;
      }
    }
  }
}

// The workload threads; they stop and are joined however the test ends.
struct Workers {
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  void Join() {
    stop = true;
    for (std::thread& t : threads) {
      if (t.joinable()) t.join();
    }
  }
  ~Workers() { Join(); }
};

// Prints the counts every 10 s until destroyed.
class Progress {
 public:
  Progress(const WorkloadCounts& n, const ThrashCounts& t)
      : start_(Clock::now()), thread_([this, &n, &t] {
          std::unique_lock<std::mutex> lock(mu_);
          while (!cv_.wait_for(lock, seconds(10), [this] { return done_; })) {
            const auto s = std::chrono::duration_cast<seconds>(Clock::now() - start_).count();
            std::printf("[%5lld s] %s | %s\n", static_cast<long long>(s), n.Summary().c_str(),
                        t.Summary().c_str());
            std::fflush(stdout);
          }
        }) {}
  ~Progress() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

 private:
  Clock::time_point start_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::thread thread_;
};

// What one bounded thrash runs on: the pools, the workload threads per pool, and how long it
// thrashes unless ECSTORE_THRASH_SECONDS says otherwise.
struct ThrashSetup {
  std::vector<PoolSpec> pools;
  int workers_per_pool = kWorkersPerPool;
  std::uint64_t default_seconds = 75;
};

void RunThrash(const ThrashSetup& setup) {
  const std::uint64_t seed = EnvOr("ECSTORE_THRASH_SEED", std::random_device{}());
  const auto duration = seconds(EnvOr("ECSTORE_THRASH_SECONDS", setup.default_seconds));
  std::printf("thrash seed %llu, %lld s (replay the schedule: ECSTORE_THRASH_SEED=%llu)\n",
              static_cast<unsigned long long>(seed), static_cast<long long>(duration.count()),
              static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  SCOPED_TRACE(fmt::format("thrash seed {} (ECSTORE_THRASH_SEED={})", seed, seed));

  LocalClusterOptions o;
  o.osds = kOsds;
  o.pools = setup.pools;
  o.grace_seconds = kGraceSeconds;
  // With authentication, as the launcher and the main job run (issue 32): every OSD restart
  // proves its key again, the heartbeats and sub-operations are authenticated and signed, and the
  // auth database is followed across etcd's restarts. ECSTORE_THRASH_AUTH=0 runs without.
  o.auth = EnvOr("ECSTORE_THRASH_AUTH", 1) != 0;
  std::printf("auth: %s\n", o.auth ? "cephx" : "none");
  LocalCluster cluster(std::move(o));
  // A failed run keeps the cluster's folder (every OSD's log and store) for a post-mortem.
  struct KeepOnFailure {
    TempDir& dir;
    ~KeepOnFailure() {
      if (::testing::Test::HasFailure()) dir.Keep();
    }
  } keep_on_failure{cluster.dir};
  ASSERT_TRUE(cluster.Whole());

  ScheduleOptions so;
  so.osds = kOsds;
  so.max_impaired = 2;  // m of both EC pools; size - 1 of a replicated pool of 3
  so.grace = seconds(kGraceSeconds);
  const Schedule schedule(seed, so);
  Thrasher thrasher(cluster, {});

  // One model per worker (its objects are its own); declared before the workers they outlive.
  struct Slot {
    std::string pool;
    std::string prefix;
    ObjectModel model;
  };
  std::vector<Slot> slots;
  for (const PoolSpec& p : setup.pools) {
    for (int w = 0; w < setup.workers_per_pool; ++w) {
      slots.push_back({p.name, fmt::format("w{}-", slots.size()), {}});
    }
  }
  WorkloadCounts n;
  Workers workers;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    WorkloadOptions wo;
    wo.prefix = slots[i].prefix;
    wo.objects = kObjectsPerWorker;
    wo.prefill = true;
    workers.threads.emplace_back([&, i, wo] {
      RunWorkload(cluster.Pool(slots[i].pool), wo, seed * 31 + i, workers.stop, slots[i].model, n);
    });
  }

  {
    Progress progress(n, thrasher.counts());
    const auto start = Clock::now();
    for (int i = 0; i < kMinRounds || Clock::now() - start < duration; ++i) {
      const Round round = schedule.At(i);
      std::printf("%s\n", round.ToString().c_str());
      std::fflush(stdout);
      const ec::Status s = thrasher.RunRound(round);
      if (!s.ok()) {
        const std::vector<std::string> notes = n.Notes();
        for (std::size_t k = 0; k < notes.size() && k < 40; ++k) {
          std::printf("  %s\n", notes[k].c_str());
        }
        PrintLogsOf(cluster, notes);
      }
      ASSERT_TRUE(s.ok()) << s.ToString() << "\nworkload: " << n.Summary();
    }
    workers.Join();
    const ec::Status finished = thrasher.Finish();
    ASSERT_TRUE(finished.ok()) << finished.ToString();
  }

  // Every object equals the model, and the pools list exactly the model's objects.
  for (Slot& slot : slots) {
    const ec::Status v = VerifyAll(cluster.Pool(slot.pool), slot.prefix, slot.model, n);
    EXPECT_TRUE(v.ok()) << v.ToString();
  }
  const ThrashCounts& t = thrasher.counts();
  std::printf("final: %s | %s | longest wait for active+clean %.1f s\n", n.Summary().c_str(),
              t.Summary().c_str(), static_cast<double>(t.clean_ms_max.load()) / 1000.0);
  const std::vector<std::string> notes = n.Notes();
  for (std::size_t i = 0; i < notes.size() && i < 40; ++i) std::printf("  %s\n", notes[i].c_str());
  if (n.mismatches != 0 || n.lost != 0 || n.read_errors != 0) PrintLogsOf(cluster, notes);
  EXPECT_EQ(n.mismatches, 0u);
  EXPECT_EQ(n.lost, 0u);
  // A read fails only when the client gave up (40 s of retries) or fewer than k shards answered.
  EXPECT_LE(n.read_errors.load(), std::max<std::uint64_t>(5, n.reads_checked.load() / 50));
  EXPECT_GT(n.acked, 200u);
  EXPECT_GT(n.reads_checked, 200u);
  EXPECT_GE(t.kills, 1u);
  EXPECT_EQ(t.restarts, t.kills);
  EXPECT_GE(t.outs, 1u);
  EXPECT_EQ(t.ins, t.outs);
  EXPECT_GE(t.stops, 1u);
  EXPECT_GE(t.etcd_restarts, 1u);

  std::string report;
  const ec::Status fsck = thrasher.FsckAll(&report);
  std::printf("%s", report.c_str());
  EXPECT_TRUE(fsck.ok()) << fsck.ToString();
}

TEST(Thrash, ModelCheckedWorkloadSurvivesKillsOutsStopsAndEtcdRestarts) {
  RunThrash({ClayAndRsPools(), kWorkersPerPool, 75});
}

// Issue 30: a replicated pool of 3 copies (min_size 2) under the same faults, two at once (every
// copy but one), for a shorter run: 25 s of rounds, at least four (one of each fault).
TEST(Thrash, ReplicatedPoolSurvivesKillsOutsStopsAndEtcdRestarts) {
  RunThrash({{ReplicatedPool("rep", 3, 8)}, 3, 25});
}

// Issue 30 item 2: an RS(4,2) pool keeping objects below 48 KiB as 3 copies, under the same
// faults: the workload's write_fulls (up to max_full) make both forms, its appends and growing
// overwrites convert copies into shards and its write_fulls shards back into copies, while OSDs
// are killed, stopped and marked out. A short run: 25 s of rounds.
TEST(Thrash, SmallObjectCopiesInAnErasurePoolSurviveKillsOutsStopsAndEtcdRestarts) {
  PoolSpec small{"small", RsProfile(), 4096, 8};
  small.ec_min_object_size = 48 * 1024;
  RunThrash({{small}, 3, 25});
}

}  // namespace
}  // namespace ectest::thrash
