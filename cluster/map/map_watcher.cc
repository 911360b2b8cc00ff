#include "cluster/map/map_watcher.h"
#include "common/thread_name.h"

#include <cerrno>
#include <chrono>
#include <utility>

namespace ec::cluster {

MapWatcher::MapWatcher(etcd::ClientOptions client, std::string prefix, ClusterMap initial,
                       MapCallback on_map, ErrorCallback on_error)
    : client_options_(std::move(client)),
      prefix_(std::move(prefix)),
      on_map_(std::move(on_map)),
      on_error_(std::move(on_error)),
      client_(client_options_),
      store_(&client_, prefix_),
      map_(std::move(initial)),
      loaded_revision_(map_.revision),
      last_epoch_(map_.epoch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    StartWatch(map_.revision + 1);
  }
  supervisor_ = std::thread([this] {
    NameCurrentThread("map-watch");
    Supervise();
  });
}

MapWatcher::~MapWatcher() {
  Stop();
}

void MapWatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (supervisor_.joinable()) supervisor_.join();
  std::unique_ptr<etcd::Watch> watch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch = std::move(watch_);
  }
  if (watch) watch->Stop();
}

void MapWatcher::StartWatch(std::int64_t from_revision) {
  etcd::WatchOptions opts;
  opts.key = prefix_;
  opts.range_end = etcd::PrefixEnd(prefix_);
  opts.start_revision = from_revision;
  watch_ = std::make_unique<etcd::Watch>(
      client_options_, opts, [this](const etcd::Event& ev) { OnEvent(ev); },
      [this](const Status& st) { OnError(st); });
}

void MapWatcher::Deliver() {
  if (map_.epoch <= last_epoch_.load()) return;
  last_epoch_.store(map_.epoch);
  on_map_(map_);
}

void MapWatcher::OnEvent(const etcd::Event& ev) {
  std::lock_guard<std::mutex> lock(cb_mu_);
  // After a reload the copy already holds every revision up to loaded_revision_.
  if (ev.kv.mod_revision <= loaded_revision_) return;
  bool is_map_key = false;
  Status st = ApplyKey(prefix_, ev.kv, ev.type == etcd::Event::Type::kDelete, &map_, &is_map_key);
  map_.revision = ev.kv.mod_revision;
  if (!st.ok()) {
    stale_ = true;
    on_error_(st);
    return;
  }
  if (!is_map_key || ev.kv.key != EpochKey(prefix_) || ev.type != etcd::Event::Type::kPut) return;
  if (stale_) {
    auto loaded = store_.Load();
    if (!loaded.ok()) {
      on_error_(loaded.status());
      return;
    }
    map_ = std::move(*loaded);
    loaded_revision_ = map_.revision;
    stale_ = false;
  }
  Deliver();
}

void MapWatcher::OnError(const Status& st) {
  {
    std::lock_guard<std::mutex> lock(cb_mu_);
    on_error_(st);
  }
  if (!st.is_retryable() && (st.code() == ERANGE || st.code() == EIO)) {
    std::lock_guard<std::mutex> lock(mu_);
    restart_ = true;
    cv_.notify_all();
  }
}

void MapWatcher::Supervise() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || restart_; });
    if (stop_) return;
    restart_ = false;
    // The old watch has ended; join it outside mu_ (its thread may be waiting for mu_ in OnError).
    std::unique_ptr<etcd::Watch> old = std::move(watch_);
    lock.unlock();
    if (old) old->Stop();
    old.reset();
    Result<ClusterMap> loaded = Status::Error(EAGAIN, "not loaded");
    for (;;) {
      loaded = store_.Load();
      if (loaded.ok()) break;
      {
        std::lock_guard<std::mutex> cb(cb_mu_);
        on_error_(loaded.status());
      }
      lock.lock();
      if (cv_.wait_for(lock, std::chrono::milliseconds(200), [this] { return stop_; })) return;
      lock.unlock();
    }
    std::int64_t revision = 0;
    {
      std::lock_guard<std::mutex> cb(cb_mu_);
      map_ = std::move(*loaded);
      loaded_revision_ = map_.revision;
      stale_ = false;
      revision = map_.revision;
      Deliver();
    }
    lock.lock();
    if (stop_) return;
    StartWatch(revision + 1);
  }
}

}  // namespace ec::cluster
