#include "osd/pg/pg_stats_publisher.h"

#include <spdlog/spdlog.h>

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
    st.missing = static_cast<std::int64_t>(h.missing);
    st.unfound = static_cast<std::int64_t>(h.unfound);
    report.pgs[pgid] = st;
  }
  return report;
}

PgStatsPublisher::PgStatsPublisher(const cluster::MapHolder* maps, HealthOf health, int osd_id,
                                   std::chrono::milliseconds interval, Publish publish,
                                   std::shared_ptr<spdlog::logger> log)
    : maps_(maps),
      health_(std::move(health)),
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
  bool warned = false;
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, interval_, [this] { return stop_; })) {
    lock.unlock();
    auto map = maps_->Get();
    Status s =
        map->epoch > 0 ? publish_(CollectPgStats(map->epoch, osd_id_, health_())) : Status::OK();
    if (!s.ok() && !warned) log_->warn("pg stats not published: {}", s.message());
    warned = !s.ok();
    lock.lock();
  }
}

}  // namespace ec::osd::pg
