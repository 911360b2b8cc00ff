// FailureReporter: keeps an OSD's failure reports in etcd (liveness_keys.h) as its heartbeat
// (osd/daemon/heartbeat.h) wants them, on a thread of its own, so that an etcd that is slow or out
// of reach never delays the heartbeat's pings.
//
// Set(wanted, lease) says which peers this OSD reports now. The thread then, at once:
//   - puts <prefix>failure/<target>/<self> for each wanted peer not written yet, or written for
//     another boot of the peer, another failed_since or another lease, bound to `lease` (the
//     OSD's own liveness lease: when the OSD dies its reports vanish with its alive key);
//   - deletes the reports no longer wanted (the peer answered, went down, or this OSD is down:
//     lease 0 means "report nothing").
// Every third of the grace it writes the wanted reports again with a new stamp_ms (the monitor
// ignores a report older than the grace: failure_policy.h). An etcd error leaves that report to
// the next round (within a third of the grace, at least 100 ms later); Set, Stop and state() never
// wait for etcd.
//
// Stop() deletes the reports it wrote (each delete bounded by the client's timeout), then ends
// the thread.
//
// Thread safety: Set and state from any thread; Start/Stop from one.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

struct FailureReporterOptions {
  int osd_id = 0;  // the reporter: this OSD
  std::string prefix = "/ecstore/";
  std::chrono::milliseconds grace{20000};  // osd_heartbeat_grace: reports are rewritten every third
  std::function<void(const std::string&)>
      log;  // one line per report made or withdrawn; may be empty
};

// A peer this OSD reports: see FailureReport (liveness_keys.h).
struct WantedReport {
  int target = 0;
  std::int64_t target_up_stamp_ms = 0;
  std::int64_t failed_since_ms = 0;
  bool operator==(const WantedReport&) const = default;
};

class FailureReporter {
 public:
  // Errors: EINVAL for a negative id, an empty prefix or a grace below 1 ms.
  static Result<std::unique_ptr<FailureReporter>> Start(const etcd::ClientOptions& client,
                                                        FailureReporterOptions options);
  ~FailureReporter();  // Stop()
  FailureReporter(const FailureReporter&) = delete;
  FailureReporter& operator=(const FailureReporter&) = delete;

  // Replaces the wanted set (one entry per target; later duplicates are ignored). lease 0: none.
  void Set(std::vector<WantedReport> wanted, std::int64_t lease);
  void Stop();

  struct State {
    std::vector<int> written;  // targets whose report is in etcd as last written
    std::int64_t puts = 0;     // reports written (first writes and rewrites)
    std::int64_t deletes = 0;
    std::string last_error;  // of the last etcd call ("" when it succeeded)
  };
  State state() const;

 private:
  FailureReporter(const etcd::ClientOptions& client, FailureReporterOptions options);
  void Run();
  // One pass: writes and deletes what differs (or is due), without holding mu_ during etcd calls.
  void Reconcile();
  void Log(const std::string& line) const;

  struct Written {
    WantedReport report;
    std::int64_t lease = 0;
    std::chrono::steady_clock::time_point at{};
  };

  const FailureReporterOptions options_;
  etcd::Client client_;
  const std::chrono::milliseconds refresh_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  bool changed_ = false;
  std::map<int, WantedReport> wanted_;  // by target
  std::int64_t lease_ = 0;
  State state_;
  std::map<int, Written> written_;  // the thread's own (and Stop's, after the join)
  std::thread thread_;
};

}  // namespace ec::cluster
