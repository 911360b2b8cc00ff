// ConfigWatcher: follows the cluster's central config (config_db.h) and hands each new state of
// it to a callback within a moment of a change (`ec-admin config set` to a running ec-osd).
//
// It loads every setting (one Range) and delivers them, then follows <prefix>config/ with
// etcd::PrefixFollower (prefix_follower.h: a change loads and delivers again, a whole state read
// at one revision; a failed load is retried every `retry`). A state equal to the last delivered
// one is not delivered again.
//
// Errors (a failed load, the watch's reconnects) go to on_error, to log or ignore; keys that are
// not settings are in ConfigDb::bad, values that do not parse are for the reader to judge.
//
// Threading: a thread of its own (and the watch's). on_change and on_error run one at a time,
// never after Stop() or the destructor returned; they must not call Stop() or destroy the
// watcher. Stop() from any other thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "cluster/config/config_db.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/prefix_follower.h"
#include "common/status.h"

namespace ec::cluster {

class ConfigWatcher {
 public:
  using ChangeCallback = std::function<void(const ConfigDb&)>;
  using ErrorCallback = std::function<void(const Status&)>;

  // Starts the thread; the first state is delivered as soon as it is loaded.
  ConfigWatcher(etcd::ClientOptions client, std::string prefix, ChangeCallback on_change,
                ErrorCallback on_error,
                std::chrono::milliseconds retry = std::chrono::milliseconds(1000));
  ~ConfigWatcher();  // Stop()
  ConfigWatcher(const ConfigWatcher&) = delete;
  ConfigWatcher& operator=(const ConfigWatcher&) = delete;

  // Ends the watch and joins the threads. Idempotent.
  void Stop();

 private:
  // Loads and delivers (a state unlike the last delivered one); the revision it read at.
  Result<std::int64_t> LoadAndDeliver();

  const std::string prefix_;
  const ChangeCallback on_change_;
  etcd::Client client_;
  std::optional<ConfigDb> delivered_;  // the last state delivered (the follower's thread's own)
  // Last: its thread uses the members above, and stops before they are destroyed.
  std::unique_ptr<etcd::PrefixFollower> follower_;
};

}  // namespace ec::cluster
