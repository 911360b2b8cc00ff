#include "osd/daemon/osd_stats_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ec::osd::daemon {

cluster::OsdIo SumIo(const std::map<std::int64_t, cluster::OsdIo>& pools) {
  cluster::OsdIo sum;
  for (const auto& [id, io] : pools) {
    sum.rd += io.rd;
    sum.rd_bytes += io.rd_bytes;
    sum.wr += io.wr;
    sum.wr_bytes += io.wr_bytes;
  }
  return sum;
}

void IoRateTracker::Fill(cluster::OsdStatsReport* report,
                         std::chrono::steady_clock::time_point now) {
  const cluster::OsdIo& io = report->io;
  cluster::OsdIo& r = report->rates;
  r = {};
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - prev_at_).count();
  if (have_prev_ && ms > 0) {
    const auto rate = [ms](std::int64_t now_total, std::int64_t prev_total) -> std::int64_t {
      if (now_total <= prev_total) return 0;
      return static_cast<std::int64_t>(static_cast<double>(now_total - prev_total) * 1000.0 /
                                       static_cast<double>(ms));
    };
    r.rd = rate(io.rd, prev_.rd);
    r.rd_bytes = rate(io.rd_bytes, prev_.rd_bytes);
    r.wr = rate(io.wr, prev_.wr);
    r.wr_bytes = rate(io.wr_bytes, prev_.wr_bytes);
  }
  if (!have_prev_ || ms > 0) {
    have_prev_ = true;
    prev_ = io;
    prev_at_ = now;
  }
}

double LatencyWindow::Next(std::uint64_t count, double sum_seconds, std::int64_t* ops_out) {
  if (count < count_ || sum_seconds < sum_) {
    count_ = 0;
    sum_ = 0;
  }
  const std::uint64_t ops = count - count_;
  const double sum = sum_seconds - sum_;
  count_ = count;
  sum_ = sum_seconds;
  if (ops_out != nullptr) {
    *ops_out = static_cast<std::int64_t>(std::min<std::uint64_t>(ops, INT64_MAX));
  }
  if (ops == 0) return 0;
  const double ms = sum * 1000.0 / static_cast<double>(ops);
  // A mean the report cannot carry would make the whole report undecodable, df figures and all.
  if (!std::isfinite(ms) || ms < 0) return 0;
  return std::min(ms, cluster::kMaxOsdLatencyMs);
}

std::function<LatencyTotals()> ShardWriteLatency(MetricsRegistry& registry) {
  std::vector<const Histogram*> writes;
  // The family op_accounting.cc registers (same name and help: the registry returns its child).
  for (const char* op : {"sub_write", "write"}) {
    writes.push_back(&registry.GetHistogram("ecstore_osd_op_latency_seconds",
                                            "Time from request received to reply queued",
                                            {{"op", op}}));
  }
  return [writes = std::move(writes)] {
    LatencyTotals t;
    for (const Histogram* h : writes) {
      for (std::uint64_t c : h->BucketCounts()) t.count += c;
      t.sum_seconds += h->Sum();
    }
    return t;
  };
}

OsdStatsPublisher::OsdStatsPublisher(int osd_id, std::chrono::milliseconds interval,
                                     StatfsOf statfs, PoolIoOf pools, WritesOf writes,
                                     DeviceOf device, Publish publish,
                                     std::shared_ptr<spdlog::logger> log)
    : osd_id_(osd_id),
      interval_(interval),
      statfs_(std::move(statfs)),
      pools_(std::move(pools)),
      writes_(std::move(writes)),
      device_(std::move(device)),
      publish_(std::move(publish)),
      log_(log ? std::move(log) : spdlog::default_logger()),
      thread_([this] { Loop(); }) {}

OsdStatsPublisher::~OsdStatsPublisher() {
  Stop();
}

void OsdStatsPublisher::Stop(bool final_report) {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    final_report_ = final_report;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OsdStatsPublisher::Loop() {
  bool warned = false;
  const auto report_once = [&] {
    cluster::OsdStatsReport report;
    report.osd = osd_id_;
    report.stamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    report.statfs = statfs_();
    if (pools_) {
      ClientIo io = pools_();
      report.pools = std::move(io.pools);
      report.op_latency = io.latency;
    }
    report.io = SumIo(report.pools);
    rates_.Fill(&report, std::chrono::steady_clock::now());
    if (writes_) {
      const LatencyTotals w = writes_();
      report.perf.commit_latency_ms = latency_.Next(w.count, w.sum_seconds, &report.perf.ops);
      report.perf.apply_latency_ms = report.perf.commit_latency_ms;
    }
    if (device_) {
      report.device = device_();
      report.slow_ops_interval = std::max<std::int64_t>(0, report.device.slow_ops - prev_slow_ops_);
      prev_slow_ops_ = report.device.slow_ops;
    }
    const Status s = publish_(report);
    if (!s.ok() && !warned) log_->warn("osd stats not published: {}", s.message());
    warned = !s.ok();
  };
  std::unique_lock lock(mu_);
  do {
    lock.unlock();
    report_once();
    lock.lock();
  } while (!cv_.wait_for(lock, interval_, [this] { return stop_; }));
  if (final_report_) {
    lock.unlock();
    report_once();
  }
}

}  // namespace ec::osd::daemon
