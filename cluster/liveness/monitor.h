// Monitor: marks OSDs down and out in the cluster map (issue 13, item 4), elected through etcd so
// that it is no single point of failure: every ec-osd with osd_mon_role runs a candidate, exactly
// one is the leader at a time, and when the leader's process dies its lease expires and another
// candidate takes over within the grace.
//
// Election: the leader holds <prefix>mon/leader bound to its own lease (TTL = grace, renewed every
// tick). A candidate puts the key only if it is absent (txn on CREATE == 0). Every change the
// leader writes is guarded by "the leader key's lease is still mine" (TxnGuard), so a deposed
// leader that has not noticed yet cannot write.
//
// Each tick (grace/4, between 100 ms and 1 s) the leader reads the prefix once (the map and the
// alive keys at one revision) and writes at most one change set of each kind:
//   - down: every OSD up in the map whose alive key is gone -> OsdDown(now), guarded by "its alive
//     key is still absent" (a boot in between wins);
//   - out:  every OSD down and in for at least mon_osd_down_out_interval (from its
//     down_stamp_ms) -> OsdOut(automatic); 0 disables, and so does the map's flag noout while it
//     is set (Ceph's). Its next boot marks it in again. The interval may change while the monitor
//     runs (SetDownOutInterval: `ec-admin config set ... mon_osd_down_out_interval`), from the
//     next tick.
//   - failed: the OSDs that failure_policy.h's DecideFailures marks down from the failure reports
//     under <prefix>failure/ (read in the same range: OSDs cut off from their peers while they
//     still reach etcd) -> OsdDown(now), all in ONE change set (one epoch), guarded by "each
//     one's map record is as read" (a boot in between wins). Reports of OSDs marked down above
//     in the same tick count as theirs would after it (down reporters ignored).
// The time from a lease's expiry to "down" in the map is at most one tick plus etcd's lease check
// (every 500 ms); from a kill -9 it is the grace plus that. From a report that makes the count
// it is at most one tick.
//
// etcd out of reach (down, or without quorum) for longer than the TTL: the leader stops acting as
// one (its lease may have expired), but keeps the lease; if etcd could not expire it, renewing it
// once etcd is back makes the candidate leader again within a tick.
//
// Thread safety: Start/Stop from one thread; is_leader()/state()/SetDownOutInterval()/
// SetFailurePolicy() from any.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/liveness/failure_policy.h"
#include "cluster/map/map_store.h"
#include "common/status.h"

namespace ec::cluster {

struct MonitorOptions {
  std::string name;  // how this candidate names itself in the leader key ("osd.3"); non-empty
  std::string prefix = "/ecstore/";
  std::chrono::milliseconds grace{20000};                     // osd_heartbeat_grace
  std::chrono::milliseconds down_out_interval{600000};        // mon_osd_down_out_interval
  int min_down_reporters = 2;                                 // mon_osd_min_down_reporters (>= 1)
  ReporterSubtree reporter_subtree = ReporterSubtree::kHost;  // mon_osd_reporter_subtree_level
  std::function<void(const std::string&)> log;                // may be empty
};

class Monitor {
 public:
  // Starts the candidate's thread. Errors: EINVAL for bad options. etcd being unreachable is not
  // an error here: the candidate keeps trying.
  static Result<std::unique_ptr<Monitor>> Start(const etcd::ClientOptions& client,
                                                MonitorOptions options);
  ~Monitor();  // Stop(true)
  Monitor(const Monitor&) = delete;
  Monitor& operator=(const Monitor&) = delete;

  // resign: revoke the election lease so that another candidate takes over at once; without,
  // the thread just stops (as a crash would look).
  void Stop(bool resign);

  bool is_leader() const { return leader_.load(); }

  // A new mon_osd_down_out_interval (0: never), from the next tick. Errors: EINVAL when negative.
  Status SetDownOutInterval(std::chrono::milliseconds interval);
  // New mon_osd_min_down_reporters and mon_osd_reporter_subtree_level, from the next tick.
  // Errors: EINVAL when min_down_reporters < 1.
  Status SetFailurePolicy(int min_down_reporters, ReporterSubtree subtree);

  struct State {
    bool leader = false;
    std::int64_t marked_down = 0;  // OSDs this candidate marked down while leader
    std::int64_t marked_out = 0;
    std::int64_t marked_down_by_reports = 0;  // of marked_down: from failure reports
    std::string last_error;
  };
  State state() const;

 private:
  Monitor(const etcd::ClientOptions& client, MonitorOptions options);
  void Run();
  void Tick();
  bool Campaign();
  void Lead();
  // The failure reports of `range` (bad ones named in last_error, skipped) and the OSDs
  // DecideFailures marks down in `map`; applies them as one change set.
  void MarkFailed(const etcd::RangeResponse& range, ClusterMap map, std::int64_t now_ms);
  void Log(const std::string& line) const;

  const MonitorOptions options_;
  etcd::Client client_;
  MapStore store_;
  const std::int64_t ttl_seconds_;
  const std::chrono::milliseconds tick_;

  std::atomic<bool> leader_{false};
  std::atomic<std::int64_t> down_out_ms_;  // options_.down_out_interval, then as set
  std::atomic<int> min_down_reporters_;
  std::atomic<ReporterSubtree> reporter_subtree_;
  std::int64_t lease_ = 0;  // the thread's own; read by Stop after the join
  std::set<int> held_;      // the thread's: OSDs kept up by mon_osd_min_up_ratio (logged once)
  std::chrono::steady_clock::time_point lease_renewed_{};

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  State state_;
  std::thread thread_;
};

}  // namespace ec::cluster
