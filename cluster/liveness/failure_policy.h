// Which OSDs the monitor marks down from the failure reports of their peers (Ceph's
// OSDMonitor::check_failure, in the spirit of its options): a pure function of the map, the
// reports and the time; the elected monitor (monitor.h) applies its answer as one map epoch.
//
// A report (liveness_keys.h: "OSD r has had no answer from OSD t since failed_since_ms") counts
// for t only when all of these hold:
//   - t is in the map and up, and the report is about its current boot (target_up_stamp_ms ==
//     the map's up_stamp_ms of t): a report does not outlive a reboot of its target;
//   - r is not t (an OSD's reports about itself are ignored);
//   - r is in the map and up (a down reporter's word is ignored: it may be the one cut off);
//   - the report is fresh: written at most `grace` ago (reporters rewrite theirs every third of
//     the grace), and not more than `grace` in the future (a clock that far off is not believed);
//   - the failure has lasted the grace: now - failed_since_ms >= grace.
// t is marked down when its counted reporters lie in at least `min_down_reporters` distinct
// subtrees of `subtree` (mon_osd_min_down_reporters, default 2; mon_osd_reporter_subtree_level,
// default "host": reporters on one host count once; "osd": every reporter counts).
//
// Decisions are made one OSD at a time, the OSD with the most reporting subtrees first (then the
// lowest id), and an OSD marked down stops counting as a reporter for the rest: when two halves
// of a cluster report each other, the first half marked down no longer condemns the second, so
// one side stays up. An OSD is not marked down while fewer than `min_up_ratio` of the map's OSDs
// are up (Ceph's mon_osd_min_up_ratio, 0.3): it is then in `held`, not `down`.
//
// Clocks: stamps are wall clocks (ms since 1970) of the reporters and of the monitor, which must
// agree to within a fraction of the grace (NTP), as the map's other stamps assume.
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/liveness/liveness_keys.h"
#include "cluster/map/cluster_map.h"
#include "common/status.h"

namespace ec::cluster {

enum class ReporterSubtree { kOsd, kHost };
// "osd" | "host". Errors: EINVAL naming the value and the choices.
Result<ReporterSubtree> ParseReporterSubtree(std::string_view text);
std::string_view ReporterSubtreeName(ReporterSubtree subtree);

// Ceph's mon_osd_min_up_ratio default (a float option: ecstore keeps Ceph's value fixed).
inline constexpr double kMonOsdMinUpRatio = 0.3;

struct FailurePolicy {
  int min_down_reporters = 2;  // mon_osd_min_down_reporters; >= 1
  ReporterSubtree subtree = ReporterSubtree::kHost;
  std::chrono::milliseconds grace{20000};  // osd_heartbeat_grace
  double min_up_ratio = kMonOsdMinUpRatio;
};

struct FailureVerdict {
  int target = 0;
  std::vector<int> reporters;      // the counted reporters, by id
  int subtrees = 0;                // distinct subtrees among them
  std::int64_t failed_for_ms = 0;  // now - the latest failed_since_ms among them
  bool operator==(const FailureVerdict&) const = default;
};

struct FailureDecision {
  std::vector<FailureVerdict> down;  // to mark down, in the order decided
  std::vector<FailureVerdict> held;  // reported enough, kept up by min_up_ratio
};

// See above. `map` is the map as the monitor is about to leave it (OSDs it marks down for other
// reasons in the same tick already down). Reports may come in any order and repeat.
FailureDecision DecideFailures(const ClusterMap& map, std::span<const FailureReport> reports,
                               std::int64_t now_ms, const FailurePolicy& policy);

// One line for the monitor's log, in the words of Ceph's: "osd.0 failed (root=default,host=h1)
// (3 reporters from different host after 4.2 >= grace 4.0)".
std::string DescribeVerdict(const ClusterMap& map, const FailureVerdict& v,
                            const FailurePolicy& policy);

}  // namespace ec::cluster
