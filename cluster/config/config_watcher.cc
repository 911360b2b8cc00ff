#include "cluster/config/config_watcher.h"

#include <utility>

namespace ec::cluster {

ConfigWatcher::ConfigWatcher(etcd::ClientOptions client, std::string prefix,
                             ChangeCallback on_change, ErrorCallback on_error,
                             std::chrono::milliseconds retry)
    : prefix_(std::move(prefix)), on_change_(std::move(on_change)), client_(client) {
  etcd::PrefixFollower::Options follow;
  follow.prefix = ConfigDir(prefix_);
  follow.retry = retry;
  follow.thread_name = "config-watch";
  follower_ = std::make_unique<etcd::PrefixFollower>(
      std::move(client), std::move(follow), [this] { return LoadAndDeliver(); },
      std::move(on_error));
}

ConfigWatcher::~ConfigWatcher() {
  Stop();
}

void ConfigWatcher::Stop() {
  follower_->Stop();
}

Result<std::int64_t> ConfigWatcher::LoadAndDeliver() {
  Result<ConfigDb> db = LoadConfigDb(client_, prefix_);
  if (!db.ok()) return db.status();
  if (!delivered_ || delivered_->settings != db->settings || delivered_->bad != db->bad) {
    delivered_ = *db;
    on_change_(*db);
  }
  return db->revision;
}

}  // namespace ec::cluster
