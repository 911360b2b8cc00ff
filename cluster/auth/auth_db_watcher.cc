#include "cluster/auth/auth_db_watcher.h"

#include <fmt/format.h>

#include "common/thread_name.h"

namespace ec::cluster {

Result<std::shared_ptr<AuthDbWatcher>> AuthDbWatcher::Start(etcd::ClientOptions client,
                                                            std::string prefix,
                                                            const msg::auth::CryptoKey& mon_key,
                                                            ErrorCallback on_error,
                                                            std::chrono::milliseconds retry) {
  auto key = AuthDbKey::From(mon_key);
  if (!key.ok()) return key.status();
  auto w = std::make_shared<AuthDbWatcher>(std::move(client), std::move(prefix), *key,
                                           std::move(on_error), retry);
  auto first = LoadAuthDb(w->client_, w->prefix_, w->key_);
  if (!first.ok()) return first.status().WithPrefix("loading the auth database");
  // The first table is the one just read; the thread watches from its revision.
  auto table = std::make_shared<Table>();
  for (const auto& [name, e] : first->entities) {
    auto peer = msg::auth::PeerAuthOf(name, msg::auth::KeyringEntry{e.key, e.caps});
    if (peer.ok()) table->emplace(name, std::move(*peer));
  }
  for (const Status& bad : first->bad) w->ReportError(bad);
  w->table_ = std::move(table);
  w->loaded_revision_ = first->revision;
  w->thread_ = std::thread([raw = w.get()] {
    NameCurrentThread("auth-watch");
    raw->Run();
  });
  return w;
}

AuthDbWatcher::AuthDbWatcher(etcd::ClientOptions client, std::string prefix, AuthDbKey key,
                             ErrorCallback on_error, std::chrono::milliseconds retry)
    : client_options_(std::move(client)),
      prefix_(std::move(prefix)),
      key_(key),
      on_error_(std::move(on_error)),
      retry_(retry),
      client_(client_options_),
      table_(std::make_shared<Table>()) {}

AuthDbWatcher::~AuthDbWatcher() {
  Stop();
}

void AuthDbWatcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::unique_ptr<etcd::Watch> watch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    watch = std::move(watch_);
  }
  watch.reset();
}

std::optional<msg::auth::PeerAuth> AuthDbWatcher::Find(std::string_view entity) const {
  std::shared_ptr<const Table> table;
  {
    std::shared_lock lock(table_mu_);
    table = table_;
  }
  auto it = table->find(std::string(entity));
  if (it == table->end()) return std::nullopt;
  return it->second;
}

std::size_t AuthDbWatcher::size() const {
  std::shared_lock lock(table_mu_);
  return table_->size();
}

void AuthDbWatcher::ReportError(const Status& st) {
  std::lock_guard<std::mutex> lock(cb_mu_);
  if (on_error_) on_error_(st);
}

bool AuthDbWatcher::Load() {
  auto db = LoadAuthDb(client_, prefix_, key_);
  if (!db.ok()) {
    ReportError(db.status().WithPrefix("loading the auth database"));
    return false;
  }
  auto table = std::make_shared<Table>();
  for (const auto& [name, e] : db->entities) {
    auto peer = msg::auth::PeerAuthOf(name, msg::auth::KeyringEntry{e.key, e.caps});
    if (peer.ok()) {
      table->emplace(name, std::move(*peer));
    } else {
      ReportError(peer.status());
    }
  }
  for (const Status& bad : db->bad) ReportError(bad);
  {
    std::unique_lock lock(table_mu_);
    table_ = std::move(table);
  }
  loaded_revision_ = db->revision;
  return true;
}

void AuthDbWatcher::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  bool load = false;  // Start loaded the first table
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
      const bool loaded = Load();
      lock.lock();
      load = !loaded;
      if (load) {
        cv_.wait_for(lock, retry_, [this] { return stop_; });
        continue;
      }
    }
    if (!watch_) {
      etcd::WatchOptions w;
      w.key = AuthDir(prefix_);
      w.range_end = etcd::PrefixEnd(w.key);
      w.start_revision = loaded_revision_ + 1;
      watch_ = std::make_unique<etcd::Watch>(
          client_options_, w,
          [this](const etcd::Event& ev) {
            std::lock_guard<std::mutex> l(mu_);
            if (ev.kv.mod_revision > loaded_revision_) dirty_ = true;
            cv_.notify_all();
          },
          [this](const Status& st) {
            if (!st.is_retryable()) {
              std::lock_guard<std::mutex> l(mu_);
              restart_ = true;
              cv_.notify_all();
            }
            ReportError(st);
          });
    }
    cv_.wait(lock, [this] { return stop_ || dirty_ || restart_; });
  }
}

}  // namespace ec::cluster
