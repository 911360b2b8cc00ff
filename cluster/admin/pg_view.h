// One PG as `ec-admin` shows it (`status`, `health detail`, the scrub checks): its up set and the
// state to print, from the map and what the PG's primary reported (cluster/map/pg_stats.h). A
// PURE function: no I/O, so every caller shows the same state for a PG.
//
// The state, for a PG of a pool with k data chunks, size positions and min_size, u of its
// positions up in the map (up = UpSet(Place)), and P its primary (the first up OSD):
//
//   the pool's profile gives no geometry                            unknown
//   P reported the PG for its current interval                      P's state
//   u < k                                                           down
//   P reported the PG for an earlier interval, or P's report is    peering
//     older than the map and does not name the PG (a new pool, a
//     new primary)
//   otherwise (P has not reported: no report, or a report without  the map's rule:
//     intervals at another epoch)                                     u == size     active+clean
//                                                                     u >= min_size active+
//                                                                                   undersized+
//                                                                                   degraded
//                                                                     u >= k        undersized+
//                                                                                   degraded+
//                                                                                   peered
//
// "For its current interval": the report's "up" and "acting" for the PG (v4) equal the map's,
// whatever the report's epoch (epochs that did not touch the PG leave its state standing); a
// report without them (v1 to v3) counts only when made at the map's epoch. So a PG shows peering
// exactly while its primary has not said it peered it in this interval (every change of a PG's
// up or acting set makes its primary peer it again before it serves I/O), and never once it has.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cluster/map/cluster_map.h"
#include "cluster/map/pg_stats.h"
#include "common/status.h"

namespace ec::cluster::admin {

// The map's rule above, for PGs whose primary has not reported.
enum class PgState { kActiveClean, kActiveDegraded, kPeeredDegraded, kDown, kUnknown };
// "active+clean", "active+undersized+degraded", "undersized+degraded+peered", "down", "unknown".
const char* PgStateName(PgState state);
PgState ComputePgState(int up_count, int size, int min_size, int k);

struct PgView {
  std::int64_t pool_id = 0;
  std::uint32_t pg = 0;
  std::string pgid;         // "1.1f"
  int size = 0;             // positions; 0 for a pool without geometry (then up is empty)
  std::vector<int> up;      // the up set, kItemNone for a position without an up OSD
  std::vector<int> acting;  // the OSDs placement gives the positions (down ones included)
  int up_count = 0;
  std::string state;  // as above
  // The state's flags (cluster/map/pg_state.h); nullopt for a reported state with a word this
  // version does not know (shown as reported, counted as degraded: not known to be well).
  std::optional<std::uint64_t> flags;
  // The primary's report of the PG, whatever its interval (its objects count), or null. Points
  // into the `stats` given to ViewPgs.
  const PgStat* stat = nullptr;
  // `stat` is of the PG's current interval (the state is its; so are missing, misplaced, ...).
  bool current = false;
};

// Every PG of every pool, in pool id then PG order. `stats` must outlive the result. Errors: only
// PlacementFor's, for a map it would refuse (a map from MapStore never is), and Place's.
Result<std::vector<PgView>> ViewPgs(const ClusterMap& map,
                                    const std::map<int, PgStatsReport>& stats);

// Ceph's health detail line for the PG: "pg 1.3 is <state>, acting [2,NONE,1]" (no acting list for
// a pool without geometry).
std::string PgDetailLine(const PgView& pg, const std::string& state);

}  // namespace ec::cluster::admin
