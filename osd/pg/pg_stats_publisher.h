// PgStatsPublisher: every osd_mon_report_interval, the OSD reports the health of each PG it is
// primary of (its state, objects, degraded objects and missing shards, from the primary's peered
// view: osd/pg/pg_table.h) to etcd (cluster/map/pg_stats.h), where `ec-admin -s` reads them.
//
// Thread safety: its own thread; Stop (or the destructor) joins it. `maps` is borrowed and must
// outlive it; `health` is called on its thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
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

class PgStatsPublisher {
 public:
  using Publish = std::function<Status(const cluster::PgStatsReport&)>;
  using HealthOf = std::function<std::map<std::string, PgHealth>()>;
  PgStatsPublisher(const cluster::MapHolder* maps, HealthOf health, int osd_id,
                   std::chrono::milliseconds interval, Publish publish,
                   std::shared_ptr<spdlog::logger> log);
  ~PgStatsPublisher();
  void Stop();

 private:
  void Loop();
  const cluster::MapHolder* maps_;
  HealthOf health_;
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
