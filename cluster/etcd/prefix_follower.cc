#include "cluster/etcd/prefix_follower.h"

#include <utility>

#include "common/thread_name.h"

namespace ec::etcd {

PrefixFollower::PrefixFollower(ClientOptions client, Options options, LoadCallback load,
                               ErrorCallback on_error)
    : client_(std::move(client)),
      options_(std::move(options)),
      load_(std::move(load)),
      on_error_(std::move(on_error)),
      loaded_revision_(options_.loaded_revision) {
  thread_ = std::thread([this] {
    NameCurrentThread(options_.thread_name.c_str());
    Run();
  });
}

PrefixFollower::~PrefixFollower() {
  Stop();
}

void PrefixFollower::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PrefixFollower::ReportError(const Status& st) {
  std::lock_guard<std::mutex> lock(cb_mu_);
  if (on_error_) on_error_(st);
}

bool PrefixFollower::Load() {
  Result<std::int64_t> revision = [this] {
    std::lock_guard<std::mutex> lock(cb_mu_);
    return load_();
  }();
  if (!revision.ok()) {
    ReportError(revision.status());
    return false;
  }
  loaded_revision_.store(*revision);
  return true;
}

void PrefixFollower::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  bool load = options_.loaded_revision <= 0;
  while (!stop_) {
    if (restart_) {
      // The watch ended; its thread may wait for mu_ in a callback, so it is joined outside.
      restart_ = false;
      std::unique_ptr<Watch> ended = std::move(watch_);
      lock.unlock();
      ended.reset();
      lock.lock();
      load = true;
      continue;
    }
    if (load || dirty_) {
      dirty_ = false;
      lock.unlock();
      const bool loaded = Load();
      lock.lock();
      load = !loaded;
      if (load) {
        cv_.wait_for(lock, options_.retry, [this] { return stop_; });
        continue;
      }
    }
    if (!watch_) {
      WatchOptions w;
      w.key = options_.prefix;
      w.range_end = PrefixEnd(w.key);
      w.start_revision = loaded_revision_.load() + 1;
      watch_ = std::make_unique<Watch>(
          client_, w,
          [this](const Event& ev) {
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
    cv_.wait(lock, [this] { return stop_ || dirty_ || restart_; });
  }
  std::unique_ptr<Watch> last = std::move(watch_);
  lock.unlock();
  last.reset();
}

}  // namespace ec::etcd
