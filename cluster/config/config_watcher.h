// ConfigWatcher: follows the cluster's central config (config_db.h) and hands each new state of
// it to a callback within a moment of a change (`ec-admin config set` to a running ec-osd).
//
// It loads every setting (one Range), delivers them, and watches <prefix>config/ with
// etcd::Watch from the loaded revision + 1; an event above the last loaded revision makes it load
// and deliver again, so a callback always gets a whole state read at one revision (several
// changes in a row may arrive as one state: the last). A state equal to the last delivered one
// is not delivered again. When the watch ends (compaction: ERANGE; cancelled: EIO) it loads again
// and watches from the new revision; a load that fails is retried every `retry`: a change made
// meanwhile is delivered once etcd answers, nothing is lost for longer.
//
// Errors (a failed load, the watch's reconnects) go to on_error, to log or ignore; keys that are
// not settings are in ConfigDb::bad, values that do not parse are for the reader to judge.
//
// Threading: a thread of its own (and the watch's). on_change and on_error run one at a time,
// never after Stop() or the destructor returned; they must not call Stop() or destroy the
// watcher. Stop() from any other thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cluster/config/config_db.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_watch.h"
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
  void Run();
  // Loads and delivers; false (error reported) when the load failed.
  bool LoadAndDeliver();
  void ReportError(const Status& st);

  const etcd::ClientOptions client_options_;
  const std::string prefix_;
  const ChangeCallback on_change_;
  const ErrorCallback on_error_;
  const std::chrono::milliseconds retry_;
  etcd::Client client_;

  std::mutex cb_mu_;                   // one callback at a time
  std::optional<ConfigDb> delivered_;  // the last state delivered (the thread's own)
  std::atomic<std::int64_t> loaded_revision_{0};

  std::mutex mu_;  // guards the flags below
  std::condition_variable cv_;
  bool stop_ = false;
  bool dirty_ = false;                  // an event came above loaded_revision_
  bool restart_ = false;                // the watch ended
  std::unique_ptr<etcd::Watch> watch_;  // the thread's own
  std::thread thread_;
};

}  // namespace ec::cluster
