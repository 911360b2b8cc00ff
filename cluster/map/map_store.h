// MapStore: reads the cluster map from etcd and changes it in single transactions.
//
// Load(): one Range over the prefix, so the map is the one at that etcd revision.
//
// Apply(changes): a change set (put/remove of profiles, pools, OSDs) is applied to the map in
// order, validated, and written as ONE etcd txn: the keys whose value differs, then the epoch key
// set to epoch + 1 (always the txn's last operation: the watcher relies on it), guarded by a
// compare on the epoch key's mod_revision as read. Nothing can leave the map half-changed: either
// the whole txn is applied or none of it. The first change that writes anything also writes the
// cluster's fsid (a random UUID) when the map has none.
//
// Concurrency (optimistic): when the compare fails (another writer changed the map since it was
// read), Apply reloads the map, re-applies and re-validates the same change set on it and tries
// again, up to ApplyOptions::max_attempts times in all; then EAGAIN (retryable). Changes are
// intents ("create pool p", "remove osd 3"), so re-applying them on a newer map is what the
// caller asked for; one that no longer holds (the pool now exists) fails validation then.
//
// Change rules (Ceph's messages), checked on the map as changed by the earlier changes of the set:
//   PutProfile   name non-empty, printable, no '/'; EINVAL otherwise. Changing an existing profile
//                to a different value while a pool uses it: EBUSY
//                "erasure-code-profile NAME is in use by pool POOL".
//   RemoveProfile  ENOENT "erasure-code-profile NAME does not exist";
//                EBUSY "erasure-code-profile NAME is in use by pool POOL".
//   PutPool      id -1: a new pool, id = max(pool_max + 1, kFirstPoolId): the first pool is 1, as
//                Ceph's (a map that already holds pool 0 keeps it); ids are never reused. EEXIST
//                "pool 'NAME' already exists" if the name is taken. id >= 0: replaces that pool
//                (ENOENT "pool id N does not exist"), EEXIST if it renames onto another pool's
//                name; EINVAL "pool 'NAME': allow_ec_optimizations is fixed at pool creation:
//                objects already stored depend on it" if it changes the pool's ec_optimizations.
//                EINVAL: empty/unprintable name, pg_num outside 1..65536, stripe_unit 0,
//                min_size outside 1..k+m (k and m read from the profile when they are integers,
//                else 1..64); ENOENT "erasure-code-profile NAME does not exist". A replicated
//                pool: EINVAL for a profile (it has none), "pool size must be between 1 and 10",
//                min_size outside 1..size; an erasure pool with a size: EINVAL. Replacing a pool:
//                EINVAL "pool 'NAME': its type is fixed at pool creation ..." when it changes (a
//                replicated pool's size may change: its PGs then place that many copies).
//   RemovePool   by name: ENOENT "pool 'NAME' does not exist".
//   PutOsd       EINVAL for id < 0, empty host, weight negative or not finite, network_bandwidth
//                above kMaxNetworkBandwidth; adds or replaces.
//   RemoveOsd    ENOENT "osd.N does not exist"; EBUSY "osd.N is still up; stop it first".
//   OsdBoot      an OSD starting (cluster/liveness/osd_registration.h): adds it (weight 1, in)
//                if new; sets addr, host, uuid, network_bandwidth (0: unknown), up,
//                up_stamp_ms = stamp, down_stamp_ms = 0, and
//                marks it in again if it was auto-out. EEXIST "osd.N belongs to another store
//                (uuid U); this one is V" when the map has a different non-empty uuid for it;
//                EINVAL for an empty host or uuid, a network_bandwidth above
//                kMaxNetworkBandwidth.
//   OsdDown      ENOENT if absent; up = false, down_stamp_ms = stamp (no change if already down).
//   OsdIn/Out    ENOENT "osd.N does not exist". In: in = true, auto_out = false, and if the OSD
//                is down its down_stamp_ms restarts at stamp (so the monitor does not mark it out
//                again at once). Out: in = false, auto_out = `automatic`. No change if already so.
//   SetFlag/UnsetFlag  EINVAL "unknown flag 'X'" for a name not in kOsdFlags; no change when the
//                flag is already so.
// A change set that needs more than ApplyOptions::max_txn_ops etcd operations (changed keys + the
// epoch, default etcd's 128) is refused with E2BIG before anything is sent. An empty change set is
// EINVAL; one that changes nothing (re-putting an equal OSD) writes nothing and returns the map as
// loaded, epoch unchanged: an epoch bump always changes the map.
// Other errors: Load's, and the client's (etcd_client.h); a write sent without a reply
// (ETIMEDOUT/ECONNRESET) may or may not have been applied: Load to see.
//
// Thread safety: Load and Apply may be called from any thread concurrently (each uses the client's
// per-call connections); MapStore holds no mutable state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "cluster/map/cluster_map.h"
#include "common/status.h"

namespace ec::cluster {

struct MapChange {
  enum class Kind {
    kPutProfile,
    kRemoveProfile,
    kPutPool,
    kRemovePool,
    kPutOsd,
    kRemoveOsd,
    kOsdBoot,
    kOsdDown,
    kOsdIn,
    kOsdOut,
    kSetFlag,
    kUnsetFlag
  };
  Kind kind = Kind::kPutProfile;
  EcProfile profile;          // kPutProfile
  Pool pool;                  // kPutPool
  OsdEntry osd;               // kPutOsd; kOsdBoot (id, addr, host, uuid, network_bandwidth)
  std::string name;           // kRemoveProfile, kRemovePool; kSetFlag, kUnsetFlag: the flag
  int osd_id = -1;            // kRemoveOsd, kOsdDown, kOsdIn, kOsdOut
  std::int64_t stamp_ms = 0;  // kOsdBoot, kOsdDown, kOsdIn: wall clock, ms since 1970
  bool automatic = false;     // kOsdOut: by the monitor, not a person

  static MapChange PutProfile(EcProfile p);
  static MapChange RemoveProfile(std::string name);
  static MapChange PutPool(Pool p);
  static MapChange RemovePool(std::string name);
  static MapChange PutOsd(OsdEntry o);
  static MapChange RemoveOsd(int id);
  static MapChange OsdBoot(int id, std::string addr, std::string host, std::string uuid,
                           std::int64_t stamp_ms, std::uint64_t network_bandwidth = 0);
  static MapChange OsdDown(int id, std::int64_t stamp_ms);
  static MapChange OsdIn(int id, std::int64_t stamp_ms);
  static MapChange OsdOut(int id, bool automatic);
  static MapChange SetFlag(std::string flag);
  static MapChange UnsetFlag(std::string flag);
};

// Extra conditions and operations for Apply's txn, for callers whose change is only valid while
// something outside the map holds (an OSD's liveness key is absent; this process is still the
// elected monitor) or that must write a non-map key in the same txn (the liveness key at boot).
// The compares are ANDed with Apply's epoch compare; the ops run before the epoch bump.
struct TxnGuard {
  std::vector<etcd::Compare> compares;
  std::vector<etcd::TxnOp> ops;
};

struct ApplyOptions {
  int max_attempts = 8;           // txns tried before EAGAIN (>= 1)
  std::size_t max_txn_ops = 128;  // etcd's --max-txn-ops
};

// Applies `changes` to `map` in memory with the rules above (no epoch bump). For callers that
// want to validate without writing, and for MapStore itself.
Status ApplyChanges(const std::vector<MapChange>& changes, ClusterMap* map);

class MapStore {
 public:
  MapStore(const etcd::Client* client, std::string prefix = std::string(kDefaultMapPrefix),
           ApplyOptions options = {});

  // The map at one etcd revision. Errors: the client's, EBADMSG for a bad value (naming its key).
  Result<ClusterMap> Load() const;

  // Commits the change set with the epoch bump in one txn (see above) and returns the new map
  // (epoch + 1, revision = the txn's revision). With a guard: ECANCELED "guard failed" when the
  // epoch compare held but one of the guard's compares did not (nothing written; not retried:
  // the caller decides); a change set that changes nothing writes nothing, the guard's ops
  // included. The guard's ops count against max_txn_ops.
  Result<ClusterMap> Apply(const std::vector<MapChange>& changes, const TxnGuard& guard = {}) const;

  const std::string& prefix() const { return prefix_; }
  // The etcd client it reads and writes with (for the keys under the prefix that are not the map,
  // such as pg_stats.h's).
  const etcd::Client* client() const { return client_; }

 private:
  const etcd::Client* client_;
  const std::string prefix_;
  const ApplyOptions options_;
};

}  // namespace ec::cluster
