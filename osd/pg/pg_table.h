// PgTable: what the primary knows of each PG it serves, between map changes (issue 15 item 1).
//
// A PG is peered once per interval: the primary scans every up shard (SubScan) and settles every
// object's version (resolve.h), so from then on it knows each object's version, size and which
// positions hold it, without asking the shards again on each operation. An object not in the
// table does not exist (no round trip for a new object). Writes and removes update the table
// when they are acknowledged; an operation that failed in a way that may have changed the shards
// marks its object unknown, and the next operation on it asks the shards (ResolveObject).
//
// Intervals. A PG's interval is its acting and up sets. Observe(map) is given every map this
// primary uses, in epoch order: when the epoch follows the last one seen by exactly one, only the
// PGs whose interval changed must peer again; after a jump (epochs this process never saw, when
// another primary may have served the PG) every PG must. A PG that must peer again keeps nothing,
// except when it can catch up (below).
//
// Catching up (issue 31 item 5: an OSD down for seconds costs what it missed, not a scan of the
// PG). When only OSDs going down or coming back up change the interval (the same acting set, the
// same primary: this process, which saw every epoch in between), the table is kept: it is exact
// for every position whose OSD stayed up (this primary made or recorded every change of their
// shards; nobody else wrote them), and for a position whose OSD went away it still says what that
// OSD held when it left (a write it missed leaves it stale or not current). So the PG "catches
// up" instead of peering: the caller raises the interval fence on every up shard (what a scan
// does first, so no sub-operation of an earlier interval lands after), and FinishCatchUp marks
// unknown, for every position whose OSD is back, the objects that position does not hold at
// their version; those are asked of their shards again (ResolveObject: recovery's Unknown pass,
// or the next operation), and what they lack is rebuilt. A position whose OSD was down when the
// PG last peered (its contents never scanned) or another OSD at a position makes a full peering.
// Removed objects are kept while a position whose contents are known does not hold the removal
// (its OSD may come back with the object's older shard). An operation that ran in an earlier
// interval and finishes after the table was kept marks its object unknown (its outcome may have
// reached the shards or not) rather than being ignored.
//
// Missing shards. For an object at version v, every position of the PG whose OSD is up and that
// is not at v is missing (absent, or stale at an older version): recovery rebuilds it there.
// Positions with no up OSD do not count as missing (nothing can hold them); they make the PG
// undersized.
//
// Backfill. When placement moves a position to another OSD (an OSD added, marked out or in again)
// the OSD that held it may still be up with its shards: peering records those as copy sources,
// recovery copies them rather than rebuilding, and such objects count as misplaced, not degraded
// (Ceph's meaning), while the PG is "remapped" and "backfilling" or "backfill_wait".
//
// Thread safety: every method may be called from any thread; one mutex guards the table and each
// PG's contents. Peering itself runs outside the lock (BeginPeering/FinishPeering).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/map/object_locator.h"
#include "cluster/map/pg_state.h"
#include "common/status.h"
#include "osd/pg/object_io.h"

namespace ec::osd::pg {

// A PG's health as its primary sees it, for `ec-admin -s` (through pg_stats_publisher.h).
struct PgHealth {
  // Ceph's state (cluster/map/pg_state.h): `flags` and their string, "active+clean",
  // "active+undersized+degraded", "peering", ... (see PgTable::Health).
  std::uint64_t flags = 0;
  std::string state;
  std::uint64_t objects = 0;    // objects that exist
  std::uint64_t bytes = 0;      // their sizes summed (logical bytes, Ceph's num_bytes)
  std::uint64_t degraded = 0;   // objects with a position missing that no other OSD holds
  std::uint64_t misplaced = 0;  // objects whose every missing position a prior OSD holds (copy)
  std::uint64_t missing = 0;    // (object, up position) pairs to rebuild or copy
  std::uint64_t unfound = 0;    // objects fewer than k shards can settle
  // Estimated shard bytes still to rebuild or copy: object size / k per missing pair (a small
  // object kept as copies: its size per missing copy, nothing for its empty shards).
  std::uint64_t missing_bytes = 0;
  // Recovered in this interval (since the PG last peered): (object, position) pairs, shard bytes.
  std::uint64_t recovered = 0;
  std::uint64_t recovered_bytes = 0;
  // The interval the state is for: the PG's up and acting sets as located (PgLocation).
  std::vector<int> up;
  std::vector<int> acting;
};

// One object that a position lacks, for recovery.
struct MissingShard {
  std::string object;
  int position = 0;
  ObjectState state;  // the object's state when it was listed
  // An OSD outside the acting set that holds this position at state.version (the PG's previous
  // OSD there): backfill copies from it; kItemNone: rebuild from the other positions.
  int copy_from = cluster::kItemNone;
};

// Shards that OSDs outside the acting set still hold at an object's settled version (found by
// peering, which scans every up OSD outside the acting set): object -> position -> OSD.
using CopySources = std::map<std::string, std::map<int, int>>;

class PgTable {
 public:
  // Records `map` as seen; returns false when it is older than the last one seen (ignored).
  // PGs whose interval may have changed are reset (see the header).
  bool Observe(const cluster::ObjectLocator& locator);

  // The result of BeginPeering: either the PG is peered for `loc`'s interval (ready), or this
  // caller must peer it now (then FinishPeering or AbortPeering), or `loc` comes from a map older
  // than one already observed (stale: locate again with the newer map).
  // kCatchUp: the PG kept its table from the interval before (see the header): the caller raises
  // the fence of every up shard, then calls FinishCatchUp (or AbortPeering).
  enum class Peer { kReady, kMustPeer, kCatchUp, kStale };
  // Waits while another thread peers the PG; returns kMustPeer or kCatchUp to exactly one caller
  // when the PG is not peered for `loc`'s interval. `epoch`: the epoch of the map `loc` was located
  // in. A caller holding an older map than the newest observed gets kStale and changes nothing:
  // peering for an interval that has ended would throw away the table of the current one, and its
  // scans (fencing at the old epoch) would not hold back the current interval's writes in flight,
  // which its resolves could then take for unfinished ones and roll back.
  Peer BeginPeering(const cluster::PgLocation& loc, std::int64_t epoch);
  // Installs the peered objects (settled states; `unfound`: objects that could not be settled),
  // unless a map jumped over epochs meanwhile (another primary may have served the PG in them):
  // then the PG is left unpeered, and its next operation peers again.
  // `copies`: shards held outside the acting set, valid for the objects' versions in `objects`.
  // `scanned`: the positions whose shards were scanned (nullopt: every up position); a position
  // that could not be scanned is never caught up with (its contents are not known).
  void FinishPeering(const cluster::PgLocation& loc, std::map<std::string, ObjectState> objects,
                     std::set<std::string> unfound, CopySources copies = {},
                     const std::optional<std::set<int>>& scanned = std::nullopt);
  // The catch-up's fences are raised (see the header): installs `loc`'s interval and marks
  // unknown, for every position whose OSD came back, the objects it does not hold. Returns how
  // many objects were marked.
  std::size_t FinishCatchUp(const cluster::PgLocation& loc);
  // The peering or catch-up failed: the PG keeps nothing, and waiters retry (one of them peers).
  void AbortPeering(const cluster::PgLocation& loc);

  // The object's state: nullopt when it is unknown (ask the shards); when the PG does not hold
  // it, exists=false at version 0 with every position current (absent everywhere). Only for a
  // peered PG.
  std::optional<ObjectState> Lookup(const std::string& pgid, const std::string& object) const;
  // The same, and nullopt unless the PG is peered for `loc`'s interval (Observe the map first).
  std::optional<ObjectState> Lookup(const cluster::PgLocation& loc,
                                    const std::string& object) const;
  // After an acknowledged write or remove, or a resolve: the object's new state, learnt through
  // `loc` (the PG's location the operation ran with). When the PG is not peered for `loc`'s
  // interval, the state is not the current interval's: ignored when the table was built anew
  // since (its peering scanned the shards), the object marked unknown when it was kept (a
  // catch-up: the operation's outcome may have reached the shards or not).
  void Update(const cluster::PgLocation& loc, const std::string& object, const ObjectState& state);
  // An operation failed in a way that may have changed the shards: ask them next time. `suspect`:
  // positions it leaves suspect (ObjectState::suspect), added to the object's.
  void Forget(const std::string& pgid, const std::string& object,
              const std::set<int>& suspect = {});
  // The object's suspect positions: what Forget added, until a write's outcome replaces them
  // (SetSuspect, ignored unless the PG is peered for `loc`'s interval). Lookup's states carry
  // them too. A new interval drops them: its peering fences off every older sub-operation.
  std::set<int> Suspect(const std::string& pgid, const std::string& object) const;
  void SetSuspect(const cluster::PgLocation& loc, const std::string& object,
                  const std::set<int>& suspect);
  // The object's metadata, read from its shards at `version` (ReadObjectMeta): kept with its
  // state if the object is still at that version.
  void NoteMeta(const std::string& pgid, const std::string& object, std::uint64_t version,
                std::shared_ptr<const ObjectMeta> meta);
  // Recovery rebuilt (or copied) `position` of `object` at `version`, writing `bytes` of shard,
  // through `loc` (the PG's location the pull was sent with): the position is current if the
  // object is still at that version (a write since then wins) and the PG is still peered for
  // `loc`'s interval. A pull sent before a map change wrote the position on the OSD that held it
  // then: in another interval that may be another OSD's position, which must not be taken as
  // current (a partial write would count it as holding the object).
  void MarkRecovered(const cluster::PgLocation& loc, const std::string& object, int position,
                     std::uint64_t version, std::uint64_t bytes = 0);

  // Up to `max` objects of the PG whose state is unknown (ask their shards); none unless the PG
  // is peered for `loc`'s interval (a recovery round still holding an older map does nothing).
  std::vector<std::string> Unknown(const cluster::PgLocation& loc, std::size_t max) const;
  // Up to `max` missing shards of the PG, skipping those in `busy` (object names); none unless
  // the PG is peered for `loc`'s interval (its positions are that interval's OSDs).
  std::vector<MissingShard> Missing(const cluster::PgLocation& loc, std::size_t max,
                                    const std::set<std::string>& busy) const;
  // The PG's health for `loc` (its current interval): Ceph's state from what this table knows
  // (cluster/map/pg_state.h), with u = loc's up positions:
  //   u < k                                              down
  //   not peered for loc's interval                      peering
  //   peered, objects fewer than k shards can settle     incomplete
  //   peered, u >= min_size / k <= u < min_size          active / peered (takes no writes)
  // with: undersized (u < positions); degraded (objects lacking a position that no OSD outside
  // the acting set holds, or any object when undersized); remapped and backfilling
  // (`recovering`) or backfill_wait (shards to copy from such OSDs); recovering (`recovering`:
  // the primary is running this PG's recovery) or recovery_wait (shards to rebuild, stale ones to
  // delete); clean (active, not undersized, nothing missing). Written in Ceph's order:
  // "active+recovering+undersized+degraded", "undersized+degraded+peered". `up` and `acting` are
  // loc's: the interval the state is for.
  PgHealth Health(const cluster::PgLocation& loc, bool recovering) const;
  // A counter that moves whenever a PG's state may have changed because of peering: a new map
  // observed, a peering begun, finished or aborted. (Recovery moves states too; its driver
  // counts that, primary.h.) For the stats publisher, to report a new state at once.
  std::uint64_t Changes() const { return changes_.load(std::memory_order_relaxed); }
  // Whether the PG is clean for `loc`'s interval with nothing unsettled: peered for it, every
  // position up, no object unknown or unfound, no position of any object to rebuild, copy or
  // delete. O(1) (the table keeps the objects lacking a position as they change). The read
  // leases' condition (read_lease.h).
  bool Clean(const cluster::PgLocation& loc) const;
  // Object names of a peered PG after `cursor`, at most `max`; nullopt when not peered.
  std::optional<std::vector<std::string>> List(const std::string& pgid, const std::string& cursor,
                                               std::size_t max) const;

 private:
  // What the table knows of a position's shards: nothing (its OSD was down when the PG peered),
  // all of them (its OSD up since), or what its OSD held when it went down (kAway).
  enum class Known : std::uint8_t { kNothing, kLive, kAway };
  struct Pg {
    std::int64_t pool_id = 0;
    std::uint32_t pg = 0;
    bool peered = false;
    bool peering = false;
    // Kept across interval changes for a catch-up (see the header); not peered meanwhile.
    bool kept = false;
    // Epochs were jumped over while it peered: what the peering found is not installed.
    bool overtaken = false;
    std::vector<int> acting, up;                 // the interval peered for
    std::vector<Known> known;                    // by position
    std::map<std::string, ObjectState> objects;  // settled; removed ones while a position lacks it
    std::set<std::string> unknown;               // ask the shards before use
    std::set<std::string> unfound;
    CopySources copies;             // for the versions in `objects`; dropped when an object changes
    std::set<std::string> lacking;  // objects of `objects` with an up position to recover
    std::map<std::string, std::set<int>> suspect;  // ObjectState::suspect, by object
    std::uint64_t recovered = 0, recovered_bytes = 0;
  };
  static void Reset(Pg& pg);
  // Whether `pg` may keep its table for `loc`'s interval (see the header).
  static bool CanKeep(const Pg& pg, const cluster::PgLocation& loc);
  // A removed object stays in the table while a position whose shards it knows lacks the removal.
  static bool Keep(const Pg& pg, const ObjectState& st);
  // Files `object` in pg.lacking or not, from its entry in pg.objects (none: not lacking).
  static void Track(Pg& pg, const std::string& object);
  static std::optional<ObjectState> LookupLocked(const Pg& pg, const std::string& object);
  static bool SameInterval(const Pg& pg, const cluster::PgLocation& loc) {
    return pg.acting == loc.acting && pg.up == loc.up;
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<std::uint64_t> changes_{0};
  std::int64_t last_epoch_ = 0;
  std::map<std::string, Pg> pgs_;  // by pgid
};

}  // namespace ec::osd::pg
