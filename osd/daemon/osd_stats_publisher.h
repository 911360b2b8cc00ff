// OsdStatsPublisher: the OSD's one report to etcd (cluster/map/osd_stats.h), every
// osd_mon_report_interval: its device's space and the client I/O it served as PG primary, for
// `ec-admin df`, `osd df`, the usage and io lines of `ec-admin -s` and `ec-rados df`, and the
// latency of the writes it served as a shard, for `ec-admin osd perf`; and the summed latency of
// that client I/O (op_latency), for the cluster exporter's ceph_osd_op_r_latency / _w_latency.
//
// Rates: operations and bytes per second from the I/O totals' change since the previous report
// (by the steady clock; 0 in the first report, and 0 for a total that went down, which only a
// caller's bug could do).
// Latency (perf_stat): the mean of the writes added to the cumulative write totals since the
// previous report (LatencyWindow). ecstore's store commits and applies in one step, so commit and
// apply latency are the same figure.
//
// Thread safety: its own thread; Stop (or the destructor) joins it. The callbacks are called on
// that thread only. IoRateTracker, LatencyWindow: one thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/map/osd_stats.h"
#include "common/metrics.h"
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

// Cumulative totals of a latency histogram (or several): observations and their sum.
struct LatencyTotals {
  std::uint64_t count = 0;
  double sum_seconds = 0;
};

// The mean of cumulative (count, sum) totals over their change since the previous call, as a
// histogram gives them (common/metrics.h).
class LatencyWindow {
 public:
  // `count` and `sum_seconds`: the cumulative totals now. Returns the mean in ms of what was
  // added since the previous call (the first call: since 0), 0 when nothing was; always finite
  // and within 0..cluster::kMaxOsdLatencyMs, so that the report decodes. *ops_out (if not null):
  // the count added. Totals that went backwards start a new window.
  double Next(std::uint64_t count, double sum_seconds, std::int64_t* ops_out = nullptr);

 private:
  std::uint64_t count_ = 0;
  double sum_ = 0;
};

// The write totals of the OSD's op latency histograms (the family osd/shard/op_accounting.cc
// registers): the shard writes (sub_write) and whole-object writes it served, received to
// answered with the data durable on its device. `registry` must outlive the returned function,
// which may be called from any thread.
std::function<LatencyTotals()> ShardWriteLatency(MetricsRegistry& registry);

// The client I/O this OSD served as PG primary, cumulative (Primary::PoolIoTotals): by pool id,
// and the summed latency of all of it (the report's op_latency).
struct ClientIo {
  std::map<std::int64_t, cluster::OsdIo> pools;
  cluster::OsdOpLatency latency;
};

class OsdStatsPublisher {
 public:
  using StatfsOf = std::function<cluster::OsdStatfs()>;
  // Cumulative client I/O (Primary::PoolIoTotals); null: none (no reports of I/O).
  using PoolIoOf = std::function<ClientIo()>;
  // Cumulative write latency totals (ShardWriteLatency); null: none (a zero perf_stat).
  using WritesOf = std::function<LatencyTotals()>;
  // The device's cumulative error and slow-request counts (WatchedDevice::counts); null: a healthy
  // device. The report's slow_ops_interval is their change since the previous report.
  using DeviceOf = std::function<cluster::OsdDeviceHealth()>;
  using Publish = std::function<Status(const cluster::OsdStatsReport&)>;
  // Publishes at once, then every `interval`.
  OsdStatsPublisher(int osd_id, std::chrono::milliseconds interval, StatfsOf statfs, PoolIoOf pools,
                    WritesOf writes, DeviceOf device, Publish publish,
                    std::shared_ptr<spdlog::logger> log);
  ~OsdStatsPublisher();
  // Ends the thread (idempotent). With `final_report`, it publishes one last report first (an
  // OSD leaving service after a device failure: its last counts must reach the cluster).
  void Stop(bool final_report = false);

 private:
  void Loop();
  int osd_id_;
  std::chrono::milliseconds interval_;
  StatfsOf statfs_;
  PoolIoOf pools_;
  WritesOf writes_;
  DeviceOf device_;
  std::int64_t prev_slow_ops_ = 0;  // the thread's
  Publish publish_;
  std::shared_ptr<spdlog::logger> log_;
  IoRateTracker rates_;    // the thread's
  LatencyWindow latency_;  // the thread's
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool final_report_ = false;
  std::thread thread_;
};

}  // namespace ec::osd::daemon
