// PgStatsPublisher: the OSD reports the health of each PG it is primary of (its state with the
// interval it is for, objects, degraded and misplaced objects, missing shards and bytes, what was
// recovered since it peered: the primary's peered view, osd/pg/pg_table.h) and its own recovery
// totals as the OSD that pulls shards (pull_service.h: bytes from helpers, helper device bytes,
// rebuilt bytes, objects) with their rates, to etcd (cluster/map/pg_stats.h), where `ec-admin -s`
// and `ec-admin progress` read them.
//
// When: every osd_mon_report_interval; at once (within kEpochPoll) when the map's epoch changes;
// and, given `changes` (Primary::HealthChanges), within kStateCheck of a change of any PG's state
// (a peering done, a recovery begun or finished, a scrub): when that counter moved, the health is
// taken again and published if some PG's state or interval differs from the last report's. So a PG
// reported "peering" at a map change is reported active as soon as its primary has peered it,
// not an interval later (Ceph's OSD publishes its PG stats on every state change too); the
// counts alone (objects recovered, bytes) wait for the interval.
//
// Rates: rebuilt bytes and objects per second from the totals' change since the report they were
// last measured from, at least osd_mon_report_interval before (by the steady clock; a report
// sooner repeats the last rates); 0 in the first report.
//
// Thread safety: its own thread; Stop (or the destructor) joins it. `maps` is borrowed and must
// outlive it; `health`, `totals` and `changes` are called on its thread. RecoveryTracker: one
// thread.
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
// first report of the current run naming a PG with missing > 0; 0 when this one names none), and
// the last run that ended (last_since_ms, and last_done_ms: the stamp of the first report naming
// none after it).
// Rates are measured over at least `min_window`: a report sooner after the one the last rates were
// measured from repeats those rates (reports between intervals would make them noisy).
class RecoveryTracker {
 public:
  explicit RecoveryTracker(std::chrono::milliseconds min_window = std::chrono::milliseconds(0))
      : min_window_(min_window) {}
  // `totals`: the OSD's cumulative totals now (rates and since_ms ignored); `now`: when.
  void Fill(cluster::PgStatsReport* report, const cluster::RecoveryTotals& totals,
            std::chrono::steady_clock::time_point now);

 private:
  std::chrono::milliseconds min_window_;
  bool have_prev_ = false;
  cluster::RecoveryTotals prev_;
  std::chrono::steady_clock::time_point prev_at_;
  std::int64_t bytes_rate_ = 0, objects_rate_ = 0;  // the last rates measured
  std::int64_t since_ms_ = 0;
  std::int64_t last_since_ms_ = 0, last_done_ms_ = 0;
};

// How often the publisher looks for a new map epoch between its reports.
inline constexpr std::chrono::milliseconds kEpochPoll{100};
// At most this often it takes the health again when the states may have changed (`changes`).
inline constexpr std::chrono::milliseconds kStateCheck{200};

class PgStatsPublisher {
 public:
  using Publish = std::function<Status(const cluster::PgStatsReport&)>;
  using HealthOf = std::function<std::map<std::string, PgHealth>()>;
  // The OSD's cumulative pull totals (PullService::Totals), rates and since_ms left 0.
  using TotalsOf = std::function<cluster::RecoveryTotals()>;
  // A counter that moves when a PG's state may have changed (Primary::HealthChanges).
  using ChangesOf = std::function<std::uint64_t()>;
  // `totals` null: the reports carry zero totals (an OSD that pulls nothing). `changes` null: no
  // report between the interval's and the epoch's.
  PgStatsPublisher(const cluster::MapHolder* maps, HealthOf health, int osd_id,
                   std::chrono::milliseconds interval, Publish publish,
                   std::shared_ptr<spdlog::logger> log, TotalsOf totals = nullptr,
                   ChangesOf changes = nullptr);
  ~PgStatsPublisher();
  void Stop();

 private:
  void Loop();
  const cluster::MapHolder* maps_;
  HealthOf health_;
  TotalsOf totals_;
  ChangesOf changes_;
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
