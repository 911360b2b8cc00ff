// OsdStatsPublisher: the OSD reports its device's space and the client I/O it served as PG
// primary (cluster/map/osd_stats.h) to etcd every osd_mon_report_interval, for `ec-admin df`,
// `osd df`, the usage and io lines of `ec-admin -s` and `ec-rados df`.
//
// Rates: operations and bytes per second from the I/O totals' change since the previous report
// (by the steady clock; 0 in the first report, and 0 for a total that went down, which only a
// caller's bug could do).
//
// Thread safety: its own thread; Stop (or the destructor) joins it. The callbacks are called on
// that thread only. IoRateTracker: one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/map/osd_stats.h"
#include "common/status.h"

namespace spdlog {
class logger;
}

namespace ec::osd::daemon {

// The sum of the pools' I/O.
cluster::OsdIo SumIo(const std::map<std::int64_t, cluster::OsdIo>& pools);

// The report's "rates" from one report to the next (its "io" must be filled in).
class IoRateTracker {
 public:
  void Fill(cluster::OsdStatsReport* report, std::chrono::steady_clock::time_point now);

 private:
  bool have_prev_ = false;
  cluster::OsdIo prev_;
  std::chrono::steady_clock::time_point prev_at_;
};

class OsdStatsPublisher {
 public:
  using StatfsOf = std::function<cluster::OsdStatfs()>;
  // Cumulative client I/O by pool id (Primary::PoolIoTotals); null: none (no reports of I/O).
  using PoolIoOf = std::function<std::map<std::int64_t, cluster::OsdIo>()>;
  using Publish = std::function<Status(const cluster::OsdStatsReport&)>;
  // Publishes at once, then every `interval`.
  OsdStatsPublisher(int osd_id, std::chrono::milliseconds interval, StatfsOf statfs, PoolIoOf pools,
                    Publish publish, std::shared_ptr<spdlog::logger> log);
  ~OsdStatsPublisher();
  void Stop();

 private:
  void Loop();
  int osd_id_;
  std::chrono::milliseconds interval_;
  StatfsOf statfs_;
  PoolIoOf pools_;
  Publish publish_;
  std::shared_ptr<spdlog::logger> log_;
  IoRateTracker rates_;  // the thread's
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ec::osd::daemon
