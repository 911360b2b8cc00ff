#include "cluster/config/config_watcher.h"

#include <cerrno>
#include <utility>

#include "common/thread_name.h"

namespace ec::cluster {

ConfigWatcher::ConfigWatcher(etcd::ClientOptions client, std::string prefix,
                             ChangeCallback on_change, ErrorCallback on_error,
                             std::chrono::milliseconds retry)
    : client_options_(std::move(client)),
      prefix_(std::move(prefix)),
      on_change_(std::move(on_change)),
      on_error_(std::move(on_error)),
      retry_(retry),
      client_(client_options_) {
  thread_ = std::thread([this] {
    NameCurrentThread("config-watch");
    Run();
  });
}

ConfigWatcher::~ConfigWatcher() {
  Stop();
}

void ConfigWatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ConfigWatcher::ReportError(const Status& st) {
  std::lock_guard<std::mutex> lock(cb_mu_);
  if (on_error_) on_error_(st);
}

bool ConfigWatcher::LoadAndDeliver() {
  Result<ConfigDb> db = LoadConfigDb(client_, prefix_);
  if (!db.ok()) {
    ReportError(db.status());
    return false;
  }
  loaded_revision_.store(db->revision);
  if (delivered_ && delivered_->settings == db->settings && delivered_->bad == db->bad) {
    return true;
  }
  delivered_ = *db;
  std::lock_guard<std::mutex> lock(cb_mu_);
  on_change_(*db);
  return true;
}

void ConfigWatcher::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  bool load = true;
  while (!stop_) {
    if (restart_) {
      // The watch ended; its thread may wait for mu_ in a callback, so it is joined outside.
      restart_ = false;
      std::unique_ptr<etcd::Watch> ended = std::move(watch_);
      lock.unlock();
      ended.reset();
      lock.lock();
      load = true;
      continue;
    }
    if (load || dirty_) {
      dirty_ = false;
      lock.unlock();
      const bool loaded = LoadAndDeliver();
      if (loaded && !watch_) {
        etcd::WatchOptions w;
        w.key = ConfigDir(prefix_);
        w.range_end = etcd::PrefixEnd(w.key);
        w.start_revision = loaded_revision_.load() + 1;
        watch_ = std::make_unique<etcd::Watch>(
            client_options_, w,
            [this](const etcd::Event& ev) {
              if (ev.kv.mod_revision <= loaded_revision_.load()) return;
              std::lock_guard<std::mutex> l(mu_);
              dirty_ = true;
              cv_.notify_all();
            },
            [this](const Status& st) {
              ReportError(st);
              if (st.is_retryable()) return;
              std::lock_guard<std::mutex> l(mu_);
              restart_ = true;
              cv_.notify_all();
            });
      }
      lock.lock();
      load = !loaded;
      if (load) cv_.wait_for(lock, retry_, [this] { return stop_; });
      continue;
    }
    cv_.wait(lock, [this] { return stop_ || dirty_ || restart_; });
  }
  std::unique_ptr<etcd::Watch> last = std::move(watch_);
  lock.unlock();
  last.reset();
}

}  // namespace ec::cluster
