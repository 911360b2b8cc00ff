// The OSD stats publisher: rates between reports, and the thread publishing what its sources
// give.
#include "osd/daemon/osd_stats_publisher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace ec::osd::daemon {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(IoRateTracker, RatesFromTheChangeSinceThePreviousReport) {
  IoRateTracker tracker;
  const Clock::time_point t0 = Clock::now();
  cluster::OsdStatsReport r;
  r.io = {10, 40960, 4, 16384};
  tracker.Fill(&r, t0);
  EXPECT_EQ(r.rates, cluster::OsdIo{});  // nothing to compare with yet

  r.io = {30, 122880, 6, 16384 + 8192};
  tracker.Fill(&r, t0 + milliseconds(500));
  EXPECT_EQ(r.rates, (cluster::OsdIo{40, 163840, 4, 16384}));

  // No time passed: 0, and the next report still measures from the previous one.
  tracker.Fill(&r, t0 + milliseconds(500));
  EXPECT_EQ(r.rates, cluster::OsdIo{});
  r.io.rd += 10;
  tracker.Fill(&r, t0 + milliseconds(1500));
  EXPECT_EQ(r.rates.rd, 10);
  EXPECT_EQ(r.rates.wr, 0);

  // A total that went down (a caller's bug) is no work, not a negative rate.
  r.io.rd = 0;
  tracker.Fill(&r, t0 + milliseconds(2500));
  EXPECT_EQ(r.rates.rd, 0);
}

TEST(OsdStatsPublisher, PublishesStatfsAndIoEveryInterval) {
  std::mutex mu;
  std::vector<cluster::OsdStatsReport> published;
  std::atomic<std::int64_t> reads{0};
  {
    OsdStatsPublisher pub(
        4, milliseconds(50),
        [] {
          return cluster::OsdStatfs{1 << 20, 1 << 19, 1 << 18, 0, 4096};
        },
        [&reads] {
          std::map<std::int64_t, cluster::OsdIo> pools;
          pools[1] = {reads.fetch_add(5) + 5, 100, 1, 10};
          pools[2] = {1, 1, 0, 0};
          return pools;
        },
        [&](const cluster::OsdStatsReport& r) {
          std::lock_guard lock(mu);
          published.push_back(r);
          return Status::OK();
        },
        nullptr);
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard lock(mu);
        if (published.size() >= 3) break;
      }
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
  ASSERT_GE(published.size(), 3u);
  const cluster::OsdStatsReport& first = published.front();
  EXPECT_EQ(first.osd, 4);
  EXPECT_GT(first.stamp_ms, 1'600'000'000'000);
  EXPECT_EQ(first.statfs.total, 1 << 20);
  EXPECT_EQ(first.io, (cluster::OsdIo{6, 101, 1, 10}));  // the pools summed
  EXPECT_EQ(first.rates, cluster::OsdIo{});
  EXPECT_GT(published[1].rates.rd, 0);  // 5 reads more each interval
  EXPECT_EQ(published[1].rates.wr, 0);
}

}  // namespace
}  // namespace ec::osd::daemon
