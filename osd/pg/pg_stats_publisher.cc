#include "osd/pg/pg_stats_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace ec::osd::pg {

cluster::PgStatsReport CollectPgStats(std::int64_t epoch, int osd_id,
                                      const std::map<std::string, PgHealth>& health) {
  cluster::PgStatsReport report;
  report.osd = osd_id;
  report.epoch = epoch;
  report.stamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  for (const auto& [pgid, h] : health) {
    cluster::PgStat st;
    st.objects = static_cast<std::int64_t>(h.objects);
    st.state = h.state;
    st.degraded = static_cast<std::int64_t>(h.degraded);
    st.misplaced = static_cast<std::int64_t>(h.misplaced);
    st.missing = static_cast<std::int64_t>(h.missing);
    st.unfound = static_cast<std::int64_t>(h.unfound);
    st.missing_bytes = static_cast<std::int64_t>(h.missing_bytes);
    st.recovered = static_cast<std::int64_t>(h.recovered);
    st.recovered_bytes = static_cast<std::int64_t>(h.recovered_bytes);
    report.pgs[pgid] = st;
  }
  return report;
}

void RecoveryTracker::Fill(cluster::PgStatsReport* report, const cluster::RecoveryTotals& totals,
                           std::chrono::steady_clock::time_point now) {
  cluster::RecoveryTotals& r = report->recovery;
  r = totals;
  r.rebuilt_bytes_per_sec = 0;
  r.objects_per_sec = 0;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - prev_at_).count();
  // Totals only grow within one process; a drop would be a caller's bug, counted as no work.
  const auto rate = [ms](std::int64_t now_total, std::int64_t prev_total) -> std::int64_t {
    if (now_total <= prev_total) return 0;
    return static_cast<std::int64_t>(static_cast<double>(now_total - prev_total) * 1000.0 /
                                     static_cast<double>(ms));
  };
  if (have_prev_ && ms > 0) {
    r.rebuilt_bytes_per_sec = rate(totals.rebuilt_bytes, prev_.rebuilt_bytes);
    r.objects_per_sec = rate(totals.objects, prev_.objects);
  }
  have_prev_ = true;
  prev_ = totals;
  prev_at_ = now;
  const bool work = std::any_of(report->pgs.begin(), report->pgs.end(),
                                [](const auto& pg) { return pg.second.missing > 0; });
  if (!work) {
    since_ms_ = 0;
  } else if (since_ms_ == 0) {
    since_ms_ = report->stamp_ms;
  }
  r.since_ms = since_ms_;
}

PgStatsPublisher::PgStatsPublisher(const cluster::MapHolder* maps, HealthOf health, int osd_id,
                                   std::chrono::milliseconds interval, Publish publish,
                                   std::shared_ptr<spdlog::logger> log, TotalsOf totals)
    : maps_(maps),
      health_(std::move(health)),
      totals_(std::move(totals)),
      osd_id_(osd_id),
      interval_(interval),
      publish_(std::move(publish)),
      log_(log ? std::move(log) : spdlog::default_logger()),
      thread_([this] { Loop(); }) {}

PgStatsPublisher::~PgStatsPublisher() {
  Stop();
}

void PgStatsPublisher::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PgStatsPublisher::Loop() {
  using Clock = std::chrono::steady_clock;
  bool warned = false;
  std::int64_t published_epoch = 0;
  auto due = Clock::now() + interval_;
  // Wakes every kEpochPoll to see whether the map moved: a new epoch is reported at once, so that
  // `ec-admin -s` shows the PGs peering and recovering instead of their state at the old map.
  const auto slice = std::min<std::chrono::milliseconds>(interval_, kEpochPoll);
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, slice, [this] { return stop_; })) {
    auto map = maps_->Get();
    if (Clock::now() < due && map->epoch == published_epoch) continue;
    lock.unlock();
    Status s = Status::OK();
    if (map->epoch > 0) {
      cluster::PgStatsReport report = CollectPgStats(map->epoch, osd_id_, health_());
      tracker_.Fill(&report, totals_ ? totals_() : cluster::RecoveryTotals{}, Clock::now());
      s = publish_(report);
    }
    if (!s.ok() && !warned) log_->warn("pg stats not published: {}", s.message());
    warned = !s.ok();
    published_epoch = map->epoch;
    due = Clock::now() + interval_;
    lock.lock();
  }
}

}  // namespace ec::osd::pg
