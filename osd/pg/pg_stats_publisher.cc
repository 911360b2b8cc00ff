#include "osd/pg/pg_stats_publisher.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

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
    st.bytes = static_cast<std::int64_t>(h.bytes);
    st.state = h.state;
    st.degraded = static_cast<std::int64_t>(h.degraded);
    st.misplaced = static_cast<std::int64_t>(h.misplaced);
    st.missing = static_cast<std::int64_t>(h.missing);
    st.unfound = static_cast<std::int64_t>(h.unfound);
    st.missing_bytes = static_cast<std::int64_t>(h.missing_bytes);
    st.recovered = static_cast<std::int64_t>(h.recovered);
    st.recovered_bytes = static_cast<std::int64_t>(h.recovered_bytes);
    st.up = h.up;
    st.acting = h.acting;
    report.pgs[pgid] = st;
  }
  return report;
}

void RecoveryTracker::Fill(cluster::PgStatsReport* report, const cluster::RecoveryTotals& totals,
                           std::chrono::steady_clock::time_point now) {
  cluster::RecoveryTotals& r = report->recovery;
  r = totals;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now - prev_at_).count();
  // Totals only grow within one process; a drop would be a caller's bug, counted as no work.
  const auto rate = [ms](std::int64_t now_total, std::int64_t prev_total) -> std::int64_t {
    if (now_total <= prev_total) return 0;
    return static_cast<std::int64_t>(static_cast<double>(now_total - prev_total) * 1000.0 /
                                     static_cast<double>(ms));
  };
  if (!have_prev_ || (ms > 0 && ms >= min_window_.count())) {
    if (have_prev_) {
      bytes_rate_ = rate(totals.rebuilt_bytes, prev_.rebuilt_bytes);
      objects_rate_ = rate(totals.objects, prev_.objects);
    }
    have_prev_ = true;
    prev_ = totals;
    prev_at_ = now;
  }
  r.rebuilt_bytes_per_sec = bytes_rate_;
  r.objects_per_sec = objects_rate_;
  const bool work = std::any_of(report->pgs.begin(), report->pgs.end(),
                                [](const auto& pg) { return pg.second.missing > 0; });
  if (!work) {
    if (since_ms_ != 0) {
      last_since_ms_ = since_ms_;
      last_done_ms_ = report->stamp_ms;
    }
    since_ms_ = 0;
  } else if (since_ms_ == 0) {
    since_ms_ = report->stamp_ms;
  }
  r.since_ms = since_ms_;
  r.last_since_ms = last_since_ms_;
  r.last_done_ms = last_done_ms_;
}

PgStatsPublisher::PgStatsPublisher(const cluster::MapHolder* maps, HealthOf health, int osd_id,
                                   std::chrono::milliseconds interval, Publish publish,
                                   std::shared_ptr<spdlog::logger> log, TotalsOf totals,
                                   ChangesOf changes)
    : maps_(maps),
      health_(std::move(health)),
      totals_(std::move(totals)),
      changes_(std::move(changes)),
      tracker_(interval),
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

namespace {

// What a report says of each PG's state: the state and the interval it is for.
using StateView =
    std::map<std::string, std::tuple<std::string, std::vector<int>, std::vector<int>>>;

StateView StatesOf(const std::map<std::string, PgHealth>& health) {
  StateView out;
  for (const auto& [pgid, h] : health) out[pgid] = {h.state, h.up, h.acting};
  return out;
}

}  // namespace

void PgStatsPublisher::Loop() {
  using Clock = std::chrono::steady_clock;
  bool warned = false;
  std::int64_t published_epoch = 0;
  StateView published;  // of the last report published
  std::uint64_t seen_changes = changes_ ? changes_() : 0;
  auto due = Clock::now() + interval_;
  auto next_check = Clock::now();
  // Wakes every kEpochPoll to see whether the map moved: a new epoch is reported at once, so that
  // `ec-admin -s` shows the PGs peering and recovering instead of their state at the old map.
  const auto slice = std::min<std::chrono::milliseconds>(interval_, kEpochPoll);
  std::unique_lock lock(mu_);
  while (!cv_.wait_for(lock, slice, [this] { return stop_; })) {
    auto map = maps_->Get();
    const auto now = Clock::now();
    std::optional<std::map<std::string, PgHealth>> health;
    if (now < due && map->epoch == published_epoch) {
      // Between reports: only when a state may have changed, and then only if one did.
      if (!changes_ || now < next_check || map->epoch == 0) continue;
      const std::uint64_t changes = changes_();
      if (changes == seen_changes) continue;
      seen_changes = changes;  // read before the health: a change during it is seen next time
      next_check = now + kStateCheck;
      lock.unlock();
      health = health_();
      if (StatesOf(*health) == published) {
        lock.lock();
        continue;
      }
    } else {
      lock.unlock();
      if (changes_) seen_changes = changes_();
    }
    Status s = Status::OK();
    if (map->epoch > 0) {
      if (!health) health = health_();
      cluster::PgStatsReport report = CollectPgStats(map->epoch, osd_id_, *health);
      tracker_.Fill(&report, totals_ ? totals_() : cluster::RecoveryTotals{}, Clock::now());
      s = publish_(report);
      if (s.ok()) published = StatesOf(*health);
    }
    if (!s.ok() && !warned) log_->warn("pg stats not published: {}", s.message());
    warned = !s.ok();
    published_epoch = map->epoch;
    due = Clock::now() + interval_;
    lock.lock();
  }
}

}  // namespace ec::osd::pg
