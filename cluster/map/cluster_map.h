// The cluster map's types and how each is kept in etcd (issue 13, item 2).
//
// Keys, under one prefix (default "/ecstore/"); every value but the epoch is a JSON object with a
// format field "v": 1:
//
// | key                       | value                                                           |
// |---------------------------|-----------------------------------------------------------------|
// | <prefix>epoch             | the map epoch, decimal ("7"); absent = epoch 0, empty map        |
// | <prefix>pool_max          | the highest pool id ever given, decimal; ids are never reused    |
// | <prefix>fsid              | the cluster's id, a random UUID written with the first change    |
// | <prefix>flags             | {"v":1,"flags":["noout","noscrub"]}: the cluster-wide OSD flags  |
// |                           |  set (`ec-admin osd set`), sorted; absent = none set             |
// | <prefix>profile/<name>    | {"v":1,"name":"rs","profile":{"k":"4","m":"2",...}}             |
// | <prefix>pool/<id>         | {"v":1,"id":1,"name":"p","profile":"rs","pg_num":64,            |
// |                           |  "stripe_unit":4096,"min_size":5,"allow_ec_optimizations":true,  |
// |                           |  "data_chunks":[0,1,2,3]}                                       |
// |                           |  (<id> decimal, no padding; allow_ec_optimizations, data_chunks  |
// |                           |  optional); a replicated pool adds "type":"replicated","size":3  |
// |                           |  and has "profile":""                                            |
// | <prefix>osd/<id>          | {"v":1,"id":3,"addr":"127.0.0.1:6800","host":"h1",             |
// |                           |  "weight":1.0,"in":true,"up":true,"uuid":"..","up_stamp_ms":..,  |
// |                           |  "down_stamp_ms":0,"auto_out":false}                             |
//
// Other keys under the prefix (the OSDs' lease-bound liveness keys "alive/<id>", the monitor's
// election key: cluster/liveness/) are not part of the map and are ignored here. Whether an OSD is
// up IS part of the map ("up" above): the OSD sets it when it boots and the elected monitor clears
// it when the OSD's liveness key is gone, each with an epoch bump, so that up/down changes are
// epochs like any other change. Every change to the map is one etcd txn that also bumps the epoch
// (map_store.h), so the map at one etcd revision is consistent.
//
// Decoding is strict: a value that is not JSON, lacks a field, has a field of the wrong type or out
// of range, an unknown field, a "v" other than 1, or a name/id that differs from its key is refused
// with EBADMSG and a message naming the key. Nothing in a value can crash the decoder. The
// optional fields are a pool's, added after v 1 was in use: "allow_ec_optimizations" (Encode
// always writes it; absent it decodes as false, so pools written before it stay padded and
// readable), "data_chunks" (absent: empty), "type" ("erasure" or "replicated"; absent: erasure)
// and "size" (present exactly when the type is replicated: 1..kMaxPoolSize copies). Encode writes
// "type" and "size" for replicated pools only, so an erasure pool's record is what it was.
// The flags value must name only flags of kOsdFlags, each once, at most kOsdFlags.size() of them.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_types.h"
#include "cluster/placement/placement.h"
#include "common/status.h"
#include "ec/profile.h"

namespace ec::cluster {

inline constexpr std::string_view kDefaultMapPrefix = "/ecstore/";
inline constexpr std::uint32_t kMaxPgNum = 65536;
// The id of a cluster's first pool (Ceph's pools start at 1). Maps made before ids started at 1
// may hold a pool 0; it keeps working.
inline constexpr std::int64_t kFirstPoolId = 1;

// The cluster-wide OSD flags an operator may set (Ceph's names), and what honours each:
//   noout         the monitor marks no down OSD out (cluster/liveness/monitor.h)
//   norecover     PG primaries start no recovery (rebuild of missing shards) (osd/pg/primary.h)
//   nobackfill    PG primaries start no backfill (copy of shards from a previous OSD)
//   noscrub       no new scheduled scrubs (osd/pg/scrub_scheduler.h); requested ones still run
//   nodeep-scrub  no new scheduled deep scrubs; requested ones still run
inline constexpr std::array<std::string_view, 5> kOsdFlags = {"noout", "norecover", "nobackfill",
                                                              "noscrub", "nodeep-scrub"};
// Whether `name` is one of kOsdFlags.
bool IsOsdFlag(std::string_view name);

struct EcProfile {
  std::string name;  // non-empty, no '/', printable ASCII
  ec::Profile profile;
  bool operator==(const EcProfile&) const = default;
};

// Ceph's pool types (pg_pool_t::TYPE_REPLICATED = 1, TYPE_ERASURE = 3).
enum class PoolType { kErasure, kReplicated };
// "erasure" / "replicated": the record's "type" and Ceph's words in `osd pool ls detail`.
std::string_view PoolTypeName(PoolType type);

// The most copies a replicated pool may keep (Ceph's "pool size must be between 1 and 10").
inline constexpr int kMaxReplicatedSize = 10;
// The largest ec_min_object_size (Pool below): Ceph's osd_max_object_size default, 128 MiB.
inline constexpr std::uint64_t kMaxEcMinObjectSize = 128ull << 20;

struct Pool {
  std::int64_t id = -1;           // >= 0 in the map; -1 in MapChange::PutPool means "give a new id"
  std::string name;               // non-empty, printable ASCII, unique in the map
  std::string profile;            // an EcProfile's name; "" for a replicated pool
  std::uint32_t pg_num = 0;       // 1..kMaxPgNum
  std::uint32_t stripe_unit = 0;  // bytes per chunk of a stripe, > 0
  int min_size = 0;               // 1..k+m (checked when the profile's k and m are integers)
  // Ceph's allow_ec_optimizations (Fast EC): objects of this pool are stored without padding, each
  // shard keeping only the bytes the object's data reaches, instead of whole stripes. Set when the
  // pool is created and never changed (MapStore refuses a change): the layout of every object on
  // disk depends on it. Record key "allow_ec_optimizations"; false for pools recorded without it.
  bool ec_optimizations = false;
  // The chunk id (shard position) of each data piece of a stripe, in piece order (the code's chunk
  // mapping: identity but for LRC; ec/stripe_layout.h data_ids), recorded at creation so that a
  // client can find the one shard holding a byte range without loading the plugin (direct reads,
  // issue 28). Record key "data_chunks"; empty for pools recorded without it, whose clients read
  // everything through the primary. Fixed at creation as the layout is.
  std::vector<int> data_chunks = {};
  // A replicated pool (issue 30) keeps `size` whole copies of each object, one per position of
  // its PG: the erasure-code machinery with the repetition code k=1, m=size-1
  // (ec/repetition_code.h, osd/pg/pool_codecs.h), a "stripe" of stripe_unit bytes being one chunk
  // that every position holds. Record keys "type" and "size". The type is fixed at creation
  // (MapStore refuses a change); the size may change (`osd pool set NAME size N`): every PG
  // then places N copies, a new position's copy is pulled from one other (recovery), copies of
  // positions that moved are backfilled, and a dropped position's copies stay where they were,
  // unused (strays).
  PoolType type = PoolType::kErasure;
  int size = 0;  // replicated: the copies, 1..kMaxReplicatedSize; erasure: 0 (the profile's k+m)
  // Object classes (issue 30 item 2, DAOS's fallback): in an erasure pool of k+m, an object
  // written smaller than this many bytes is stored as m+1 whole copies on its PG's first m+1
  // positions (as a replicated pool of size m+1 stores it) instead of k+m shards; one that grows
  // to it or past is turned into shards by the write that takes it there (osd/pg/README.md
  // "Small objects as replicas"). 0 (the default): every object erasure-coded. Changes apply to
  // objects as they are next written. Record key "ec_min_object_size" (absent: 0);
  // 0..kMaxEcMinObjectSize, erasure pools only (MapStore refuses others).
  std::uint64_t ec_min_object_size = 0;
  bool operator==(const Pool&) const = default;
};

// The largest OsdEntry::network_bandwidth (2^40 bytes/s, about 8.8 Tbit/s): no link is faster;
// a record above it is refused, not clamped (it is not what an OSD would publish).
inline constexpr std::uint64_t kMaxNetworkBandwidth = std::uint64_t{1} << 40;

// An OSD as the map records it.
struct OsdEntry {
  int id = 0;           // >= 0
  std::string addr;     // "host:port" it serves on (not parsed here)
  std::string host;     // non-empty; the failure domain "host"
  double weight = 1.0;  // finite, >= 0
  bool in = true;
  bool up = false;   // booted and its liveness key held (set by boot, cleared by the monitor)
  std::string uuid;  // the store that booted as this id ("" until the first boot)
  std::int64_t up_stamp_ms = 0;    // wall clock (ms since 1970) of the last boot; 0: never
  std::int64_t down_stamp_ms = 0;  // wall clock when last marked down; 0 while up or never up
  bool auto_out = false;  // marked out by the monitor (after mon_osd_down_out_interval), not by
                          // a person: it is marked in again when it boots (as Ceph does)
  // Bytes per second its host's link carries each way (osd_network_bandwidth, set at boot), for
  // the repair cost model (osd/pg/repair_chain.h ChooseRepair); 0: unknown. Record key
  // "network_bandwidth", written only when not 0 (a record without it, as every map before it
  // had, reads as 0); an integer 0..kMaxNetworkBandwidth, else the record is refused.
  std::uint64_t network_bandwidth = 0;
  bool operator==(const OsdEntry&) const = default;

  // For placement: OsdInfo{id, host, weight, in, up}.
  OsdInfo ToOsdInfo() const { return OsdInfo{id, host, weight, in, up}; }
};

struct ClusterMap {
  std::int64_t epoch = 0;                     // bumped by exactly 1 by every change
  std::int64_t pool_max = -1;                 // highest pool id ever given (-1: none)
  std::string fsid;                           // the cluster's UUID ("" before the first change)
  std::map<std::string, EcProfile> profiles;  // by name
  std::map<std::int64_t, Pool> pools;         // by id
  std::map<int, OsdEntry> osds;               // by id
  std::set<std::string> flags;                // kOsdFlags names that are set
  // Not part of the map's content: the etcd revision it was read at (Load) or written at (Apply),
  // and the epoch key's mod_revision (what Apply compares against). 0 when the key is absent.
  std::int64_t revision = 0;
  std::int64_t epoch_mod_revision = 0;

  // The pool named `name`, or nullptr.
  const Pool* FindPool(std::string_view name) const;
  // Whether flag `name` (kOsdFlags) is set.
  bool HasFlag(std::string_view name) const { return flags.count(std::string(name)) != 0; }
  // The flags set, comma-separated in kOsdFlags order ("noout,noscrub"; "" when none).
  std::string FlagsText() const;
};

// Content equality (epoch, pool_max, fsid, profiles, pools, osds, flags; not the revisions).
bool SameContent(const ClusterMap& a, const ClusterMap& b);

// The keys of the table above.
std::string EpochKey(std::string_view prefix);
std::string PoolMaxKey(std::string_view prefix);
std::string FsidKey(std::string_view prefix);
std::string FlagsKey(std::string_view prefix);
// A new random UUID (version 4, lower-case text): a cluster's fsid.
std::string NewFsid();
std::string ProfileKey(std::string_view prefix, std::string_view name);
std::string PoolKey(std::string_view prefix, std::int64_t id);
std::string OsdKey(std::string_view prefix, int id);

// Values. Encode* take a valid object (see ValidateX in map_store.h's change rules).
std::string EncodeProfile(const EcProfile& p);
std::string EncodePool(const Pool& p);
std::string EncodeOsd(const OsdEntry& o);
// The flags key's value for a set of flags (each of kOsdFlags).
std::string EncodeFlags(const std::set<std::string>& flags);

// One key/value of the map applied to `map`: a PUT (is_delete false) or a DELETE. Keys under the
// prefix that are not map keys are ignored (returns false in *is_map_key). Errors: EBADMSG naming
// the key (bad value, bad id in the key, unknown key under profile/, pool/, osd/).
Status ApplyKey(std::string_view prefix, const etcd::KeyValue& kv, bool is_delete, ClusterMap* map,
                bool* is_map_key);

// Builds the map from every key under the prefix (a Range's kvs). Errors: ApplyKey's, and EBADMSG
// when map keys exist without the epoch key.
Result<ClusterMap> DecodeMap(std::string_view prefix, const etcd::RangeResponse& range);

}  // namespace ec::cluster
