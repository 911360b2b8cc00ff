// PgStatsPublisher: every osd_mon_report_interval, and at once when the map's epoch changes, the
// OSD reports the health of each PG it is primary of (its state, objects, degraded and misplaced
// objects, missing shards and bytes, what was recovered since it peered: the primary's peered view,
// osd/pg/pg_table.h) and its own recovery totals as the OSD that pulls shards (pull_service.h:
// bytes from helpers, helper device bytes, rebuilt bytes, objects) with their rates, to etcd
// (cluster/map/pg_stats.h), where `ec-admin -s` and `ec-admin progress` read them.
//
// Rates: rebuilt bytes and objects per second from the totals' change between two consecutive
// reports of this publisher (over one interval, by the steady clock); 0 in the first report.
//
// Thread safety: its own thread; Stop (or the destructor) joins it. `maps` is borrowed and must
// outlive it; `health` and `totals` are called on its thread. RecoveryTracker: one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/map/map_holder.h"
#include "cluster/map/pg_stats.h"
#include "common/status.h"
#include "osd/pg/pg_table.h"

namespace spdlog {
class logger;
}

namespace ec::osd::pg {

// The report of `osd_id` at `epoch` from its PGs' health (pure but for the clock).
cluster::PgStatsReport CollectPgStats(std::int64_t epoch, int osd_id,
                                      const std::map<std::string, PgHealth>& health);

// The report's "recovery" (pg_stats.h RecoveryTotals) from one report to the next: the totals as
// given, the rates from their change since the previous Fill, and since_ms (the stamp of the
// first report of the current run naming a PG with missing > 0; 0 when this one names none).
class RecoveryTracker {
 public:
  // `totals`: the OSD's cumulative totals now (rates and since_ms ignored); `now`: when.
  void Fill(cluster::PgStatsReport* report, const cluster::RecoveryTotals& totals,
            std::chrono::steady_clock::time_point now);

 private:
  bool have_prev_ = false;
  cluster::RecoveryTotals prev_;
  std::chrono::steady_clock::time_point prev_at_;
  std::int64_t since_ms_ = 0;
};

// How often the publisher looks for a new map epoch between its reports.
inline constexpr std::chrono::milliseconds kEpochPoll{100};

class PgStatsPublisher {
 public:
  using Publish = std::function<Status(const cluster::PgStatsReport&)>;
  using HealthOf = std::function<std::map<std::string, PgHealth>()>;
  // The OSD's cumulative pull totals (PullService::Totals), rates and since_ms left 0.
  using TotalsOf = std::function<cluster::RecoveryTotals()>;
  // `totals` null: the reports carry zero totals (an OSD that pulls nothing).
  PgStatsPublisher(const cluster::MapHolder* maps, HealthOf health, int osd_id,
                   std::chrono::milliseconds interval, Publish publish,
                   std::shared_ptr<spdlog::logger> log, TotalsOf totals = nullptr);
  ~PgStatsPublisher();
  void Stop();

 private:
  void Loop();
  const cluster::MapHolder* maps_;
  HealthOf health_;
  TotalsOf totals_;
  RecoveryTracker tracker_;  // used on the thread only
  int osd_id_;
  std::chrono::milliseconds interval_;
  Publish publish_;
  std::shared_ptr<spdlog::logger> log_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ec::osd::pg
