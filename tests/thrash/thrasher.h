// The thrasher's runner (tests only): plays the rounds of a Schedule (thrash_schedule.h) against a
// LocalCluster (tests/cluster/cluster_fixture.h) while the caller's workload runs, and checks the
// cluster's answers to each fault:
//
//   kill / restart      kill -9 (exit status 137); start on its data, the map says up within
//                       options.up_limit
//   out / in            the map change through MapStore (retried while etcd is away; while the
//                       round itself has etcd down, made right after its restart)
//   stop / continue     SIGSTOP; before SIGCONT the map must say down (the grace passed), after it
//                       the OSD must be up again within options.up_limit
//   etcd kill/restart   SIGKILL; start again on the same data dir and ports
//
// After a round's last action every PG must be active+clean within options.clean_limit. Then
// Finish() leaves every OSD running and in and the cluster clean, and FsckAll() stops each OSD
// (SIGTERM, exit 0) and runs `ec-osd --fsck --deep` on it (exit 0, "0 errors").
//
// Errors are Status values naming the round, the action and what was seen (the PG states, the
// map's OSDs); the caller adds the seed. Thread safety: one thread runs the thrasher; counts() may
// be read from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/thrash/thrash_schedule.h"

namespace ectest::thrash {

struct ThrashCounts {
  std::atomic<std::uint64_t> rounds{0};
  std::atomic<std::uint64_t> kills{0};
  std::atomic<std::uint64_t> restarts{0};
  std::atomic<std::uint64_t> outs{0};
  std::atomic<std::uint64_t> ins{0};
  std::atomic<std::uint64_t> stops{0};  // SIGSTOPs that the map saw as down, then SIGCONTs
  std::atomic<std::uint64_t> etcd_restarts{0};
  std::atomic<std::uint64_t> clean_ms_max{0};  // the longest wait for active+clean after a round

  // "N rounds, N kills, N restarts, N outs, N ins, N stops, N etcd restarts"
  std::string Summary() const;
};

struct ThrasherOptions {
  std::chrono::seconds up_limit{30};      // an OSD restarted or continued is up in the map
  std::chrono::seconds down_limit{15};    // a stopped OSD is down in the map (after the grace)
  std::chrono::seconds clean_limit{180};  // every PG active+clean after a round
  std::chrono::seconds etcd_limit{30};    // map changes retried while etcd is away
};

class Thrasher {
 public:
  // `cluster` must outlive the thrasher and be whole (every OSD running and in).
  Thrasher(LocalCluster& cluster, ThrasherOptions options);

  // Plays `round`'s actions at their times (an action that waits for the map delays the later
  // ones), then waits until every PG is active+clean. Errors: the first action whose check failed
  // (the rest of the round is still undone, so the cluster is whole when that is possible),
  // ETIMEDOUT when the PGs did not become clean (their states in the message).
  ec::Status RunRound(const Round& round);

  // Every OSD running (stopped ones continued, killed ones restarted), up and in, etcd running,
  // and every PG active+clean. Errors as RunRound.
  ec::Status Finish();

  // Stops every OSD (SIGTERM; exit 0 expected) and runs `ec-osd --fsck --deep` on its store:
  // OK when every one exits 0 and reports 0 errors, else the outputs of those that did not.
  // `report` gets one line per OSD ("osd.3: fsck (deep) of osd.3: 120 objects, ...").
  ec::Status FsckAll(std::string* report);

  const ThrashCounts& counts() const { return counts_; }

 private:
  struct Deferred {
    ec::cluster::MapChange change;
    std::string what;
    bool out = false;
  };
  ec::Status Do(const Action& a);
  ec::Status ApplyNow(Deferred& d);
  ec::Status ApplyWithRetry(const ec::cluster::MapChange& change, const std::string& what);

  LocalCluster& cluster_;
  ThrasherOptions options_;
  ThrashCounts counts_;
  std::vector<Deferred> deferred_;  // map changes waiting for this round's etcd restart
  // OSDs whose restart waits for this round's etcd restart (an OSD cannot boot without etcd, and
  // only this thread starts etcd again).
  std::vector<int> deferred_restarts_;
  ec::Status RestartNow(int osd);
};

}  // namespace ectest::thrash
