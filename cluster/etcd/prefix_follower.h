// etcd::PrefixFollower: keeps a reader of one key prefix (the central config, the auth database)
// up to date: it calls `load` (which reads the whole prefix, hands what it read on, and returns
// the revision it read at), then watches the prefix from that revision + 1 and calls `load`
// again after any event above the last loaded revision, so a reader always gets a whole state
// read at one revision (several changes in a row may come as one load: the last). When the watch
// ends (compaction: ERANGE; cancelled: EIO) it loads again and watches from the new revision; a
// load that fails is retried every `retry`: a change made meanwhile is loaded once etcd answers,
// nothing is lost for longer.
//
// Errors (a failed load's Status, the watch's reconnects) go to on_error, to log or ignore.
//
// Threading: a thread of its own (and the watch's). `load` runs on the follower's thread;
// `load` and on_error run one at a time, never after Stop() or the destructor returned; they
// must not call Stop() or destroy the follower. Stop() from any other thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_watch.h"
#include "common/status.h"

namespace ec::etcd {

class PrefixFollower {
 public:
  // Reads the prefix and hands the state on; returns the revision it read at.
  using LoadCallback = std::function<Result<std::int64_t>()>;
  using ErrorCallback = std::function<void(const Status&)>;

  struct Options {
    std::string prefix;                       // the keys followed
    std::chrono::milliseconds retry{1000};    // between failed loads
    std::int64_t loaded_revision = 0;         // > 0: the caller loaded already
    std::string thread_name = "etcd-follow";  // at most 15 characters
  };

  // Starts the thread: it loads first unless options.loaded_revision says the caller did.
  PrefixFollower(ClientOptions client, Options options, LoadCallback load, ErrorCallback on_error);
  ~PrefixFollower();  // Stop()
  PrefixFollower(const PrefixFollower&) = delete;
  PrefixFollower& operator=(const PrefixFollower&) = delete;

  // Ends the watch and joins the threads. Idempotent.
  void Stop();

 private:
  void Run();
  // Calls load_; false (error reported) when it failed.
  bool Load();
  void ReportError(const Status& st);

  const ClientOptions client_;
  const Options options_;
  const LoadCallback load_;
  const ErrorCallback on_error_;

  std::mutex cb_mu_;  // one callback at a time
  std::atomic<std::int64_t> loaded_revision_;

  std::mutex mu_;  // guards the flags and watch_
  std::condition_variable cv_;
  bool stop_ = false;
  bool dirty_ = false;    // an event came above loaded_revision_
  bool restart_ = false;  // the watch ended
  std::unique_ptr<Watch> watch_;
  std::thread thread_;
};

}  // namespace ec::etcd
