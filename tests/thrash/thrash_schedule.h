// The thrasher's schedule (tests only): a seeded sequence of rounds of faults for a LocalCluster,
// a pure function of the seed (no clock, no environment, only integer arithmetic on mt19937_64,
// which the standard defines exactly), so that a seed replays the same faults.
//
//   round i:  t=0 ............................................. last action, then (the runner)
//             |-- kill -9 osd.3 ------- restart osd.3              wait until every PG is
//                  |-- SIGSTOP osd.5 (> grace) -- SIGCONT osd.5    active+clean
//
// Each round has a main fault and, when max_impaired allows, sometimes a second one that overlaps
// it; each fault is undone within the round. Faults: kill -9 an OSD and restart it, mark an OSD
// out and in again, SIGSTOP an OSD for longer than its heartbeat grace and SIGCONT it (a partition
// that heals), kill etcd and start it again on its data. The main faults of rounds 4b .. 4b+3 are
// the four kinds in a seeded order, so any four consecutive rounds from a multiple of 4 have each.
// At most max_impaired OSDs are disrupted (down, stopped or out) in a round, and a round starts
// when the previous one has ended clean, so never more than m shards of a PG are missing at once
// (an OSD that comes back is only whole again once its PGs are clean).
//
// Thread safety: a Schedule is immutable; At() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ectest::thrash {

enum class ActionKind {
  kKill,         // kill -9 an OSD
  kRestart,      // start it again on its data
  kOut,          // mark it out (its shards move to other OSDs: recovery)
  kIn,           // mark it in again (they move back: backfill)
  kStop,         // SIGSTOP it
  kContinue,     // SIGCONT it
  kEtcdKill,     // kill -9 etcd
  kEtcdRestart,  // start etcd again on its data
};

// "kill", "restart", "out", "in", "stop", "continue", "etcd-kill", "etcd-restart".
const char* Name(ActionKind kind);

struct Action {
  std::chrono::milliseconds at{0};  // from the round's start
  ActionKind kind = ActionKind::kKill;
  int osd = -1;  // -1 for etcd
};

struct Round {
  int index = 0;
  std::vector<Action> actions;  // sorted by `at`; every fault is undone by a later action
  // "round 3: +1200ms kill osd.4, +2500ms out osd.1, ..."
  std::string ToString() const;
};

struct ScheduleOptions {
  int osds = 7;
  int max_impaired = 2;  // the pools' smallest m
  // The OSDs' heartbeat grace: a stop lasts 1 to 4 s longer, so that the map marks the OSD down.
  std::chrono::milliseconds grace{3000};
};

class Schedule {
 public:
  // Preconditions: options.osds > options.max_impaired >= 1.
  Schedule(std::uint64_t seed, ScheduleOptions options);

  // Round `index` (>= 0): a pure function of the seed, the options and the index.
  Round At(int index) const;

  std::uint64_t seed() const { return seed_; }
  const ScheduleOptions& options() const { return options_; }

 private:
  std::uint64_t seed_;
  ScheduleOptions options_;
};

}  // namespace ectest::thrash
