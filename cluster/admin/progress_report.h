// Recovery progress as `ceph progress` and the "io:"/"progress:" sections of `ceph -s` show it
// (issue 15 item 6), from a StatusReport (status_report.h): PURE functions, no I/O.
//
// Events. While shards are missing on up OSDs (RecoveryStatus::missing > 0 over the PGs whose
// primary reported at the map's epoch), one global event "Global Recovery Event" (id
// "global-recovery"), then one per pool with shards missing, "Recovery of pool 'NAME'" (id
// "pool-recovery-<pool id>"). An event's progress is recovered / (recovered + missing) shard bytes
// of its PGs (recovered since each PG last peered, so a map change during recovery restarts the
// count of the PGs it changed); its start is the earliest since_ms its primaries report (the
// first of their reports of an unbroken run naming missing shards; 0: not known), and the
// remaining time is missing bytes / the cluster's rebuilt bytes per second (up OSDs' rates),
// given for the global event only (the rate is per OSD, not per pool) and unknown at rate 0. No
// shards missing: no events ("No ongoing recovery").
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cluster/admin/status_report.h"

namespace ec::cluster::admin {

struct ProgressEvent {
  std::string id;
  std::string message;
  double progress = 0;          // 0 .. 1
  std::int64_t started_ms = 0;  // ms since 1970; 0: not known
  std::optional<std::int64_t> remaining_sec;
  std::uint64_t missing_bytes = 0;
  std::uint64_t recovered_bytes = 0;
};

// The running events of `report`, global first then pools by id; empty when none runs.
std::vector<ProgressEvent> ProgressEvents(const StatusReport& report);

// How long a completed event is kept (Ceph's progress module keeps its completed events until
// `progress clear`; the OSDs' reports keep the last run each, so this bounds how stale it gets).
inline constexpr std::int64_t kCompletedKeepMs = 3600 * 1000;

// A recovery that ended (RecoveryStatus::last_*), as Ceph's completed events: "Global Recovery
// Event", id "global-recovery-<start ms>", progress 1, started_ms and finished_ms; kept while it
// ended at most kCompletedKeepMs before now_ms. Empty when none ended, or it ended longer ago.
struct CompletedEvent {
  std::string id;
  std::string message;
  std::int64_t started_ms = 0;  // 0: not known
  std::int64_t finished_ms = 0;
};
std::vector<CompletedEvent> CompletedEvents(const StatusReport& report, std::int64_t now_ms);

// `progress json`: {"events":[{"id","message","progress","started_at" (s since 1970, a number;
// null when not known),"elapsed_sec" (null when not known),"remaining_sec" (null when not
// known),"missing_bytes","recovered_bytes"}],"completed":[{"id","message","progress" (1.0),
// "started_at" (null when not known),"finished_at","failed" (false)}]}.
nlohmann::json ProgressJson(const std::vector<ProgressEvent>& events, std::int64_t now_ms,
                            const std::vector<CompletedEvent>& completed = {});
// `progress` in plain text: per event "MESSAGE (ELAPSED)" (the age left out when not known), then
// "    [=====.......] (remaining: 20s)" (remaining left out when not known); then, after a blank
// line when there were events, per completed event "[Complete]: MESSAGE (took 12s)" (as Ceph's
// progress module; "took" left out when the start is not known); "No ongoing recovery\n" when
// there is neither.
std::string RenderProgressPlain(const std::vector<ProgressEvent>& events, std::int64_t now_ms,
                                const std::vector<CompletedEvent>& completed = {});

// The "io:" and "progress:" sections of `status` (each with its blank line after it), empty when
// there is nothing to show: "    client:   4.0 KiB/s rd, 8.0 KiB/s wr, 1 op/s rd, 2 op/s wr" while
// the OSDs report client operations (Ceph's words: a direction's bytes only when it has ops),
// "    recovery: 12 MiB/s, 3 objects/s" while the rate is above 0,
// "    recovery bytes: 2.50 network per rebuilt (30 MiB from helpers, 12 MiB rebuilt, 40 MiB
// read by helpers)" once anything was rebuilt; the global event only under "progress:", its
// message at 4 spaces and its bar at 6.
std::string RenderRecoveryPlain(const StatusReport& report, std::int64_t now_ms);

// Ceph's byte units: "512 B", "1.5 KiB", "12 MiB" (one decimal below 10 of a unit).
std::string HumanBytes(std::uint64_t bytes);
// "[=====.......]": `width` characters between the brackets, done rounded down (full only at 1).
std::string ProgressBar(double fraction, int width);

}  // namespace ec::cluster::admin
