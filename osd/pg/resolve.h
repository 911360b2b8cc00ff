// Deciding an object's version from its shards' states (issue 14 item 2), a pure function.
//
// A write reaches the shards one SubWrite each; a primary killed in the middle leaves some shards
// at the new version v (each with the undo record of v) and the others at the old one. The
// primary that next touches the object asks every reachable shard for its state and decides:
//
//   vmax = the highest object version among the reachable shards' records, n = how many
//          positions hold it (a shard holds v when it is at the version v's record gives its
//          position: v itself where v's write changed it, an older one where a partial write
//          left it alone, msg/messages.h "Versions")
//   n >= k                          settled at vmax (it decodes: "roll forward"); reachable shards
//                                   below vmax are stale (left behind while their OSD was down):
//                                   never read, reported for recovery
//   n + unreachable < min_size      v was never acknowledged (an acknowledged write is durable on
//                                   at least min_size shards): roll back the shards v's write
//                                   changed, ask again
//   otherwise                       undecided: the shards that could settle it are unreachable
//
// Partial writes keep this sound: a write changes at least one data shard and every parity
// shard, so it leaves at most k-1 positions alone; when none of the shards it changed answers,
// the positions that do answer are fewer than k and settle nothing older, and the positions
// holding it still count for every older version they hold, so it is never rolled back either.
// So an object always reads as entirely the old or entirely the new content, and an acknowledged
// write is never rolled back: it is on at least min_size shards, so the shards holding it plus
// the shards that do not answer are never fewer than min_size. With fewer than k shards at vmax
// and that many possibly holding it, the object is undecided until they answer.
//
// Positions move between OSDs (an OSD marked out or in): the shards of an acknowledged write may
// then sit on OSDs that are no longer in the acting set, while the acting set's new OSDs lack
// them. Counting only the acting set would roll back such a write (data loss). So the caller also
// gives what other OSDs hold of each position (`elsewhere`: the PG's prior OSDs, or every up OSD
// outside the acting set): a position holds version v when its acting OSD or any of those holds
// it. Settled at vmax, the acting positions at vmax are `current` (readable now) and the others
// that another OSD holds at vmax are `copy_from` (backfill copies them); a rollback is only
// decided when no other OSD holds vmax either.
//
// Thread safety: pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "msg/messages.h"

namespace ec::osd::pg {

struct ShardView {
  int position = 0;        // shard / chunk id
  bool reachable = false;  // answered SubState
  msg::SubStateReply state;
};

// A shard of a position held by an OSD other than the position's acting OSD.
struct OtherHolder {
  int osd = -1;
  msg::SubStateReply state;
};

struct Resolution {
  enum class Action { kSettled, kRollback, kUndecided };
  Action action = Action::kSettled;
  std::uint64_t version = 0;  // settled: the object's version (0: never written)
  bool exists = false;        // settled: present (not removed, not absent)
  std::uint64_t object_size = 0;
  // settled: the version each position must be at (empty: every position at `version`).
  msg::ShardVersions versions;
  std::vector<int> current;   // settled: positions holding `version`
  std::vector<int> stale;     // settled: reachable positions behind `version`
  std::vector<int> rollback;  // kRollback: positions to roll back from `version`
  // settled: positions not current whose shard another OSD holds at `version` -> that OSD.
  std::map<int, int> copy_from;
  std::string why;  // kUndecided: for the error message
};

// `shards`: one entry per position of the PG's acting set (unreachable ones included).
// `elsewhere`: empty, or one entry per position: what other OSDs hold of it. `unknown`: OSDs that
// may hold shards of the object but cannot be asked (down, not in the acting set, not out): they
// count with the unreachable shards, so a version they may complete is waited for, never rolled
// back (nor passed over for an older one).
// The version position `position` must be at: versions[position], or `version` when versions is
// empty (or too short to name the position).
std::uint64_t VersionAt(const msg::ShardVersions& versions, std::uint64_t version, int position);

Resolution Resolve(const std::vector<ShardView>& shards, int k, int min_size,
                   const std::vector<std::vector<OtherHolder>>& elsewhere = {}, int unknown = 0);

}  // namespace ec::osd::pg
