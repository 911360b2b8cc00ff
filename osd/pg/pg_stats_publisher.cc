#include "osd/pg/pg_stats_publisher.h"

#include <spdlog/spdlog.h>

#include <set>

#include "cluster/etcd/etcd_client.h"
#include "cluster/map/object_locator.h"
#include "osd/daemon/shard_meta.h"

namespace ec::osd::pg {

cluster::PgStatsReport CollectPgStats(const std::shared_ptr<const cluster::ClusterMap>& map,
                                      store::ObjectStore& store, int osd_id) {
  cluster::PgStatsReport report;
  report.osd = osd_id;
  report.epoch = map->epoch;
  report.stamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
  auto locator = cluster::ObjectLocator::Make(map);
  if (!locator.ok()) return report;
  for (const auto& [pool_id, pool] : map->pools) {
    for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
      auto loc = (*locator)->LocatePg(pool_id, pg);
      if (!loc.ok() || loc->primary != osd_id) continue;
      std::set<std::string> objects;
      auto names = store.List(loc->collection);
      if (names.ok()) {
        for (const std::string& n : *names) {
          std::string object;
          std::uint32_t shard = 0;
          if (ParseShardObjectName(n, &object, &shard)) objects.insert(object);
        }
      }
      report.pgs[loc->pgid] = cluster::PgStat{static_cast<std::int64_t>(objects.size())};
    }
  }
  return report;
}

PgStatsPublisher::PgStatsPublisher(const cluster::MapHolder* maps, store::ObjectStore* store,
                                   int osd_id, std::chrono::milliseconds interval, Publish publish,
                                   std::shared_ptr<spdlog::logger> log)
    : maps_(maps),
      store_(store),
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
    Status s = map->epoch > 0 ? publish_(CollectPgStats(map, *store_, osd_id_)) : Status::OK();
    if (!s.ok() && !warned) log_->warn("pg stats not published: {}", s.message());
    warned = !s.ok();
    lock.lock();
  }
}

}  // namespace ec::osd::pg
