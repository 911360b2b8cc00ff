// PgStatsPublisher: every osd_mon_report_interval, the OSD counts the objects of each PG it is
// primary of (the objects it holds a shard of in that PG's collection) and writes the report to
// etcd (cluster/map/pg_stats.h), where `ec-admin -s` reads objects and degraded objects from.
//
// Thread safety: its own thread; Stop (or the destructor) joins it. `maps` and `store` are
// borrowed and must outlive it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "cluster/map/map_holder.h"
#include "cluster/map/pg_stats.h"
#include "common/status.h"
#include "osd/store/object_store.h"

namespace spdlog {
class logger;
}

namespace ec::osd::pg {

// The report of `osd_id` for `map` (pure but for the store's listing).
cluster::PgStatsReport CollectPgStats(const std::shared_ptr<const cluster::ClusterMap>& map,
                                      store::ObjectStore& store, int osd_id);

class PgStatsPublisher {
 public:
  using Publish = std::function<Status(const cluster::PgStatsReport&)>;
  PgStatsPublisher(const cluster::MapHolder* maps, store::ObjectStore* store, int osd_id,
                   std::chrono::milliseconds interval, Publish publish,
                   std::shared_ptr<spdlog::logger> log);
  ~PgStatsPublisher();
  void Stop();

 private:
  void Loop();
  const cluster::MapHolder* maps_;
  store::ObjectStore* store_;
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
