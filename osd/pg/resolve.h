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
// Object forms (issue 30 item 2). In an erasure pool with small objects kept as copies, every
// record says its version's form (msg::ObjectForm). Every write of such an object still reaches
// all k+m positions (the copies 0..m, and an empty shard at m+1..k+m-1), and it is acknowledged
// by the same rule as any write (min_size positions hold it), so everything above holds as it
// is; only what settles a version differs:
//
//   vmax of form erasure          k positions hold it (above)
//   vmax of form replicas         one of the copy positions 0..copies-1 holds it (its bytes are
//                                 there whole), and either k positions hold it or fewer than
//                                 min_size shards do not answer: no newer write can have been
//                                 acknowledged without one of its min_size positions answering,
//                                 so vmax is the newest the object can be (a write that reached
//                                 one copy and was never acknowledged is rolled forward: old or
//                                 new content, never a mix)
//
// A conversion is one whole write of every position with the new form: from copies to shards it
// is settled only by k shards of the new version, else rolled back (fewer than min_size could
// hold it) to the copies, whose undo records restore them; from shards to copies, by one copy of
// the new version, the positions past m then being stale (their shards of the old version are
// never read: reads take only positions at the object's version) until recovery writes them
// empty. So an object reads as its old or its new content, whole, in its own form.
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
  msg::ObjectForm form = msg::ObjectForm::kErasure;  // settled: the form of `version`
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

// `copies`: an erasure pool's copies of a small object (m+1; 0 for a pool whose objects have one
// form): a version recorded as kReplicas settles by the rule above.
Resolution Resolve(const std::vector<ShardView>& shards, int k, int min_size,
                   const std::vector<std::vector<OtherHolder>>& elsewhere = {}, int unknown = 0,
                   int copies = 0);

}  // namespace ec::osd::pg
