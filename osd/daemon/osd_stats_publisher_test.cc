// The OSD stats publisher: rates and latency between reports, and the thread publishing what its
// sources give.
#include "osd/daemon/osd_stats_publisher.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
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

TEST(LatencyWindow, MeanOfWhatWasAddedSinceTheLastCall) {
  LatencyWindow w;
  std::int64_t ops = -1;
  EXPECT_DOUBLE_EQ(w.Next(4, 0.004, &ops), 1.0);  // 4 writes, 4 ms in all
  EXPECT_EQ(ops, 4);
  EXPECT_DOUBLE_EQ(w.Next(4, 0.004, &ops), 0.0);  // none since
  EXPECT_EQ(ops, 0);
  EXPECT_DOUBLE_EQ(w.Next(6, 0.010, &ops), 3.0);  // 2 more, 6 ms
  EXPECT_EQ(ops, 2);
  EXPECT_DOUBLE_EQ(w.Next(1, 0.002, &ops), 2.0);  // went backwards (a restart): a new window
  EXPECT_EQ(ops, 1);
}

TEST(LatencyWindow, StaysWithinWhatTheReportCarries) {
  LatencyWindow w;
  EXPECT_DOUBLE_EQ(w.Next(1, 1e12), cluster::kMaxOsdLatencyMs);
  EXPECT_DOUBLE_EQ(w.Next(2, std::numeric_limits<double>::infinity()), 0.0);
  LatencyWindow nan;
  EXPECT_DOUBLE_EQ(nan.Next(1, std::numeric_limits<double>::quiet_NaN()), 0.0);
}

TEST(ShardWriteLatency, SumsTheWriteHistogramsOfTheRegistry) {
  MetricsRegistry registry;
  auto totals = ShardWriteLatency(registry);
  EXPECT_EQ(totals().count, 0u);
  const auto op = [&](const char* name) -> Histogram& {
    return registry.GetHistogram("ecstore_osd_op_latency_seconds",
                                 "Time from request received to reply queued", {{"op", name}});
  };
  op("sub_write").Observe(0.002);
  op("write").Observe(0.004);
  op("read").Observe(1.0);  // not a write
  const LatencyTotals t = totals();
  EXPECT_EQ(t.count, 2u);
  EXPECT_DOUBLE_EQ(t.sum_seconds, 0.006);
}

// Until `published` holds `n` reports (2 s at most).
void WaitForReports(std::mutex& mu, const std::vector<cluster::OsdStatsReport>& published,
                    std::size_t n) {
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard lock(mu);
      if (published.size() >= n) return;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
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
          ClientIo io;
          io.pools[1] = {reads.fetch_add(5) + 5, 100, 1, 10};
          io.pools[2] = {1, 1, 0, 0};
          io.latency = {reads.load() * 1000, 7};
          return io;
        },
        [&reads] {
          // 2 writes of 125 ms each more every report.
          const auto n = static_cast<std::uint64_t>(reads.load() / 5);
          return LatencyTotals{2 * n, 0.25 * static_cast<double>(n)};
        },
        [&reads] {
          // 3 slow requests more every report, and one read error in all.
          return cluster::OsdDeviceHealth{1, 0, 3 * (reads.load() / 5)};
        },
        [&](const cluster::OsdStatsReport& r) {
          std::lock_guard lock(mu);
          published.push_back(r);
          return Status::OK();
        },
        nullptr);
    WaitForReports(mu, published, 3);
  }
  ASSERT_GE(published.size(), 3u);
  const cluster::OsdStatsReport& first = published.front();
  EXPECT_EQ(first.osd, 4);
  EXPECT_GT(first.stamp_ms, 1'600'000'000'000);
  EXPECT_EQ(first.statfs.total, 1 << 20);
  EXPECT_EQ(first.io, (cluster::OsdIo{6, 101, 1, 10}));  // the pools summed
  EXPECT_EQ(first.op_latency, (cluster::OsdOpLatency{5000, 7}));
  EXPECT_EQ(first.rates, cluster::OsdIo{});
  EXPECT_GT(published[1].rates.rd, 0);  // 5 reads more each interval
  EXPECT_EQ(published[1].rates.wr, 0);
  EXPECT_EQ(first.perf, (cluster::OsdPerfStat{125.0, 125.0, 2}));
  EXPECT_EQ(published[1].perf.ops, 2);
  EXPECT_DOUBLE_EQ(published[1].perf.commit_latency_ms, 125.0);
  EXPECT_EQ(first.device, (cluster::OsdDeviceHealth{1, 0, 3}));
  EXPECT_EQ(first.slow_ops_interval, 3);  // since 0
  EXPECT_EQ(published[1].slow_ops_interval, 3);
}

// Stop(true) publishes one last report, with what the device counted meanwhile.
TEST(OsdStatsPublisher, AFinalReportAtStop) {
  std::mutex mu;
  std::vector<cluster::OsdStatsReport> published;
  std::atomic<std::int64_t> write_errors{0};
  OsdStatsPublisher pub(
      2, std::chrono::hours(1), [] { return cluster::OsdStatfs{}; }, nullptr, nullptr,
      [&] {
        return cluster::OsdDeviceHealth{0, write_errors.load(), 0};
      },
      [&](const cluster::OsdStatsReport& r) {
        std::lock_guard lock(mu);
        published.push_back(r);
        return Status::OK();
      },
      nullptr);
  WaitForReports(mu, published, 1);
  write_errors = 1;
  pub.Stop(true);
  pub.Stop(true);  // idempotent: no third report
  ASSERT_EQ(published.size(), 2u);
  EXPECT_EQ(published[0].device.write_errors, 0);
  EXPECT_EQ(published[1].device.write_errors, 1);
}

TEST(OsdStatsPublisher, WithoutWriteTotalsPerfIsZero) {
  std::mutex mu;
  std::vector<cluster::OsdStatsReport> published;
  {
    OsdStatsPublisher pub(
        1, milliseconds(1000), [] { return cluster::OsdStatfs{}; }, nullptr, nullptr, nullptr,
        [&](const cluster::OsdStatsReport& r) {
          std::lock_guard lock(mu);
          published.push_back(r);
          return Status::OK();
        },
        nullptr);
    WaitForReports(mu, published, 1);
  }
  ASSERT_FALSE(published.empty());
  EXPECT_EQ(published.front().perf, cluster::OsdPerfStat{});
}

}  // namespace
}  // namespace ec::osd::daemon
