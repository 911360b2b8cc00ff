// The PG stats publisher without etcd: what a report carries from the PGs' health, the recovery
// rates and since_ms between reports, and the thread publishing with the OSD's pull totals.
#include "osd/pg/pg_stats_publisher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ec::osd::pg {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

PgHealth Recovering() {
  PgHealth h;
  h.state = "active+recovering+degraded";
  h.objects = 10;
  h.bytes = 40960;
  h.degraded = 3;
  h.misplaced = 2;
  h.missing = 6;
  h.unfound = 1;
  h.missing_bytes = 24576;
  h.recovered = 4;
  h.recovered_bytes = 16384;
  return h;
}

TEST(CollectPgStats, CarriesEveryHealthField) {
  PgHealth clean;
  clean.state = "active+clean";
  clean.objects = 5;
  const cluster::PgStatsReport r = CollectPgStats(9, 2, {{"1.0", Recovering()}, {"1.1", clean}});
  EXPECT_EQ(r.osd, 2);
  EXPECT_EQ(r.epoch, 9);
  EXPECT_GT(r.stamp_ms, 1'600'000'000'000);
  ASSERT_EQ(r.pgs.size(), 2u);
  EXPECT_EQ(r.pgs.at("1.0"),
            (cluster::PgStat{
                10, "active+recovering+degraded", 3, 2, 6, 1, 24576, 4, 16384, {}, {}, 40960}));
  EXPECT_EQ(r.pgs.at("1.1"), (cluster::PgStat{5, "active+clean", 0, 0, 0, 0, 0, 0, 0, {}, {}}));
  EXPECT_EQ(r.recovery, cluster::RecoveryTotals{});
}

TEST(RecoveryTracker, RatesFromTheChangeBetweenReportsAndSinceWhileWorkRemains) {
  RecoveryTracker tracker;
  const Clock::time_point t0 = Clock::now();
  cluster::PgStatsReport work = CollectPgStats(3, 1, {{"1.0", Recovering()}});
  work.stamp_ms = 1000;
  cluster::RecoveryTotals totals{3000, 9000, 1000, 2, 77, 77, 77};  // rates/since are ignored
  tracker.Fill(&work, totals, t0);
  EXPECT_EQ(work.recovery.network_bytes, 3000);
  EXPECT_EQ(work.recovery.helper_device_bytes, 9000);
  EXPECT_EQ(work.recovery.rebuilt_bytes, 1000);
  EXPECT_EQ(work.recovery.objects, 2);
  EXPECT_EQ(work.recovery.rebuilt_bytes_per_sec, 0);  // nothing to compare with yet
  EXPECT_EQ(work.recovery.objects_per_sec, 0);
  EXPECT_EQ(work.recovery.since_ms, 1000);

  // 500 ms later 4000 more bytes and 6 more objects: 8000 B/s, 12 objects/s; still recovering
  // since the first report.
  work.stamp_ms = 1500;
  totals = {15000, 30000, 5000, 8, 0, 0, 0};
  tracker.Fill(&work, totals, t0 + milliseconds(500));
  EXPECT_EQ(work.recovery.rebuilt_bytes_per_sec, 8000);
  EXPECT_EQ(work.recovery.objects_per_sec, 12);
  EXPECT_EQ(work.recovery.since_ms, 1000);

  // Nothing missing any more: since_ms is 0; no change: rates 0.
  PgHealth clean;
  clean.state = "active+clean";
  cluster::PgStatsReport done = CollectPgStats(3, 1, {{"1.0", clean}});
  done.stamp_ms = 2000;
  tracker.Fill(&done, totals, t0 + milliseconds(1000));
  EXPECT_EQ(done.recovery.rebuilt_bytes_per_sec, 0);
  EXPECT_EQ(done.recovery.objects_per_sec, 0);
  EXPECT_EQ(done.recovery.since_ms, 0);
  EXPECT_EQ(done.recovery.rebuilt_bytes, 5000);
  // The run that ended is kept for `progress`'s completed events.
  EXPECT_EQ(done.recovery.last_since_ms, 1000);
  EXPECT_EQ(done.recovery.last_done_ms, 2000);

  // A new run of work starts a new since.
  work.stamp_ms = 3000;
  tracker.Fill(&work, totals, t0 + milliseconds(1500));
  EXPECT_EQ(work.recovery.since_ms, 3000);
  EXPECT_EQ(work.recovery.last_since_ms, 1000);  // still the last one that ended
  // A report at the same instant (no time passed) repeats the last rate (0 here) rather than
  // divide by 0.
  totals.rebuilt_bytes += 100;
  tracker.Fill(&work, totals, t0 + milliseconds(1500));
  EXPECT_EQ(work.recovery.rebuilt_bytes_per_sec, 0);
}

// Reports sooner than the window after the one the rates were measured from (a state change's)
// repeat those rates; the next one measures over the whole time since.
TEST(RecoveryTracker, RatesOverAtLeastTheWindow) {
  RecoveryTracker tracker(milliseconds(1000));
  const Clock::time_point t0 = Clock::now();
  cluster::PgStatsReport r = CollectPgStats(3, 1, {{"1.0", Recovering()}});
  cluster::RecoveryTotals totals{0, 0, 0, 0, 0, 0, 0};
  tracker.Fill(&r, totals, t0);
  totals.rebuilt_bytes = 1000;
  tracker.Fill(&r, totals, t0 + milliseconds(1000));
  EXPECT_EQ(r.recovery.rebuilt_bytes_per_sec, 1000);
  totals.rebuilt_bytes = 1100;
  tracker.Fill(&r, totals, t0 + milliseconds(1100));  // 100 ms later: not measured
  EXPECT_EQ(r.recovery.rebuilt_bytes_per_sec, 1000);
  EXPECT_EQ(r.recovery.rebuilt_bytes, 1100);
  totals.rebuilt_bytes = 4000;
  tracker.Fill(&r, totals, t0 + milliseconds(2000));  // 3000 bytes over 1 s
  EXPECT_EQ(r.recovery.rebuilt_bytes_per_sec, 3000);
}

TEST(PgStatsPublisher, PublishesTheHealthAndThePullTotals) {
  cluster::MapHolder maps;
  cluster::ClusterMap map;
  map.epoch = 4;
  ASSERT_TRUE(maps.Set(map));
  std::atomic<std::int64_t> rebuilt{0};
  std::mutex mu;
  std::vector<cluster::PgStatsReport> published;
  {
    PgStatsPublisher publisher(
        &maps,
        [] {
          return std::map<std::string, PgHealth>{{"1.0", Recovering()}};
        },
        7, milliseconds(20),
        [&](const cluster::PgStatsReport& r) {
          std::lock_guard lock(mu);
          published.push_back(r);
          return Status::OK();
        },
        nullptr,
        [&] {
          cluster::RecoveryTotals t;
          t.rebuilt_bytes = rebuilt.fetch_add(4096) + 4096;
          t.network_bytes = 2 * t.rebuilt_bytes;
          return t;
        });
    const auto deadline = Clock::now() + std::chrono::seconds(10);
    for (;;) {
      {
        std::lock_guard lock(mu);
        if (published.size() >= 3 || Clock::now() > deadline) break;
      }
      std::this_thread::sleep_for(milliseconds(5));
    }
  }
  ASSERT_GE(published.size(), 3u);
  for (std::size_t i = 0; i < published.size(); ++i) {
    const cluster::PgStatsReport& r = published[i];
    EXPECT_EQ(r.osd, 7);
    EXPECT_EQ(r.epoch, 4);
    EXPECT_EQ(r.pgs.at("1.0").missing_bytes, 24576);
    EXPECT_EQ(r.recovery.rebuilt_bytes, static_cast<std::int64_t>(4096 * (i + 1)));
    EXPECT_EQ(r.recovery.network_bytes, 2 * r.recovery.rebuilt_bytes);
    EXPECT_EQ(r.recovery.since_ms, published[0].stamp_ms);
    if (i > 0) {
      EXPECT_GT(r.recovery.rebuilt_bytes_per_sec, 0);
    }
  }
}

// Issue 29: a state change is reported at once (within kStateCheck), not an interval later; a
// change of the counter that leaves every state as reported publishes nothing.
TEST(PgStatsPublisher, PublishesAStateChangeAtOnce) {
  cluster::MapHolder maps;
  cluster::ClusterMap map;
  map.epoch = 4;
  ASSERT_TRUE(maps.Set(map));
  std::mutex mu;
  std::string state = "peering";
  std::vector<int> up = {1, 2, 3};
  std::atomic<std::uint64_t> changes{0};
  std::vector<cluster::PgStatsReport> published;
  const auto count = [&] {
    std::lock_guard lock(mu);
    return published.size();
  };
  const auto at = [&](std::size_t i) {
    std::lock_guard lock(mu);
    return published.at(i).pgs.at("1.0");
  };
  const auto wait_for = [&](std::size_t n, milliseconds limit) {
    const auto end = Clock::now() + limit;
    while (count() < n && Clock::now() < end) std::this_thread::sleep_for(milliseconds(5));
    return count() >= n;
  };
  PgStatsPublisher publisher(
      &maps,
      [&] {
        std::lock_guard lock(mu);
        PgHealth h;
        h.state = state;
        h.up = up;
        h.acting = {1, 2, 3};
        return std::map<std::string, PgHealth>{{"1.0", h}};
      },
      7, std::chrono::seconds(600),
      [&](const cluster::PgStatsReport& r) {
        std::lock_guard lock(mu);
        published.push_back(r);
        return Status::OK();
      },
      nullptr, nullptr, [&] { return changes.load(); });
  // The first report: at the first epoch seen.
  ASSERT_TRUE(wait_for(1, milliseconds(5000)));
  EXPECT_EQ(at(0).state, "peering");
  EXPECT_EQ(at(0).up, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(at(0).acting, (std::vector<int>{1, 2, 3}));
  // The counter moves, the state does not: nothing.
  ++changes;
  std::this_thread::sleep_for(kStateCheck + 3 * kEpochPoll);
  EXPECT_EQ(count(), 1u);
  // The state changes but the counter does not: nothing until the interval (10 minutes).
  {
    std::lock_guard lock(mu);
    state = "active+clean";
  }
  std::this_thread::sleep_for(kStateCheck + 3 * kEpochPoll);
  EXPECT_EQ(count(), 1u);
  // Both: reported at once.
  const auto t0 = Clock::now();
  ++changes;
  ASSERT_TRUE(wait_for(2, milliseconds(5000)));
  EXPECT_LT(Clock::now() - t0, milliseconds(2000));
  EXPECT_EQ(at(1).state, "active+clean");
  // A new interval with the same state is a change too.
  {
    std::lock_guard lock(mu);
    up = {1, cluster::kItemNone, 3};
  }
  ++changes;
  ASSERT_TRUE(wait_for(3, milliseconds(5000)));
  EXPECT_EQ(at(2).up, (std::vector<int>{1, cluster::kItemNone, 3}));
  publisher.Stop();
}

}  // namespace
}  // namespace ec::osd::pg
