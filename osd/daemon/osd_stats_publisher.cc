#include "osd/daemon/osd_stats_publisher.h"

#include <spdlog/spdlog.h>

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

OsdStatsPublisher::OsdStatsPublisher(int osd_id, std::chrono::milliseconds interval,
                                     StatfsOf statfs, PoolIoOf pools, Publish publish,
                                     std::shared_ptr<spdlog::logger> log)
    : osd_id_(osd_id),
      interval_(interval),
      statfs_(std::move(statfs)),
      pools_(std::move(pools)),
      publish_(std::move(publish)),
      log_(log ? std::move(log) : spdlog::default_logger()),
      thread_([this] { Loop(); }) {}

OsdStatsPublisher::~OsdStatsPublisher() {
  Stop();
}

void OsdStatsPublisher::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void OsdStatsPublisher::Loop() {
  bool warned = false;
  std::unique_lock lock(mu_);
  do {
    lock.unlock();
    cluster::OsdStatsReport report;
    report.osd = osd_id_;
    report.stamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    report.statfs = statfs_();
    if (pools_) report.pools = pools_();
    report.io = SumIo(report.pools);
    rates_.Fill(&report, std::chrono::steady_clock::now());
    const Status s = publish_(report);
    if (!s.ok() && !warned) log_->warn("osd stats not published: {}", s.message());
    warned = !s.ok();
    lock.lock();
  } while (!cv_.wait_for(lock, interval_, [this] { return stop_; }));
}

}  // namespace ec::osd::daemon
