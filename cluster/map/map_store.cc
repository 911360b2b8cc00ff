#include "cluster/map/map_store.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <utility>

namespace ec::cluster {
namespace {

bool Printable(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (c < 0x21 || c > 0x7e) return false;
  return true;
}

// k+m of a profile when both are integers, else kMaxPoolSize (the plugin decides later).
int ProfileSize(const EcProfile& p) {
  auto get = [&](const char* key, int* out) {
    auto it = p.profile.find(key);
    if (it == p.profile.end()) return false;
    const std::string& s = it->second;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size() && *out > 0 && *out <= kMaxPoolSize;
  };
  int k = 0, m = 0;
  if (get("k", &k) && get("m", &m) && k + m <= kMaxPoolSize) return k + m;
  return kMaxPoolSize;
}

const Pool* PoolUsing(const ClusterMap& map, std::string_view profile) {
  for (const auto& [id, p] : map.pools)
    if (p.profile == profile) return &p;
  return nullptr;
}

Status InUse(std::string_view profile, const Pool& pool) {
  return Status::Error(
      EBUSY, "erasure-code-profile " + std::string(profile) + " is in use by pool " + pool.name);
}

Status PutProfile(const EcProfile& p, ClusterMap* map) {
  if (!Printable(p.name) || p.name.find('/') != std::string::npos)
    return Status::Invalid("erasure-code-profile name '" + p.name +
                           "' must be non-empty printable ASCII without '/'");
  for (const auto& [k, v] : p.profile)
    if (k.empty()) return Status::Invalid("erasure-code-profile " + p.name + " has an empty key");
  auto it = map->profiles.find(p.name);
  if (it != map->profiles.end() && !(it->second == p)) {
    if (const Pool* pool = PoolUsing(*map, p.name)) return InUse(p.name, *pool);
  }
  map->profiles[p.name] = p;
  return Status::OK();
}

Status RemoveProfile(const std::string& name, ClusterMap* map) {
  if (!map->profiles.contains(name))
    return Status::NotFound("erasure-code-profile " + name + " does not exist");
  if (const Pool* pool = PoolUsing(*map, name)) return InUse(name, *pool);
  map->profiles.erase(name);
  return Status::OK();
}

Status PutPool(Pool p, ClusterMap* map) {
  if (!Printable(p.name))
    return Status::Invalid("pool name '" + p.name + "' must be non-empty printable ASCII");
  if (p.pg_num < 1 || p.pg_num > kMaxPgNum)
    return Status::Invalid("pg_num " + std::to_string(p.pg_num) + " out of range 1.." +
                           std::to_string(kMaxPgNum) + " for pool '" + p.name + "'");
  if (p.stripe_unit == 0) return Status::Invalid("stripe_unit 0 for pool '" + p.name + "'");
  int size = 0;
  if (p.type == PoolType::kReplicated) {
    if (!p.profile.empty()) {
      return Status::Invalid("pool '" + p.name + "' is replicated: it has no erasure-code profile");
    }
    if (p.size < 1 || p.size > kMaxReplicatedSize) {
      return Status::Invalid("pool size must be between 1 and " +
                             std::to_string(kMaxReplicatedSize));
    }
    size = p.size;
  } else {
    if (p.size != 0) {
      return Status::Invalid("pool '" + p.name +
                             "' is erasure-coded: its size is its profile's k+m, not a field");
    }
    auto prof = map->profiles.find(p.profile);
    if (prof == map->profiles.end())
      return Status::NotFound("erasure-code-profile " + p.profile + " does not exist");
    size = ProfileSize(prof->second);
  }
  if (p.ec_min_object_size != 0 && p.type != PoolType::kErasure) {
    return Status::Invalid("pool '" + p.name +
                           "' is replicated: ec_min_object_size is for erasure-coded pools");
  }
  if (p.ec_min_object_size > kMaxEcMinObjectSize) {
    return Status::Invalid("ec_min_object_size " + std::to_string(p.ec_min_object_size) +
                           " out of range 0.." + std::to_string(kMaxEcMinObjectSize));
  }
  if (p.min_size < 1 || p.min_size > size)
    return Status::Invalid("min_size " + std::to_string(p.min_size) + " out of range 1.." +
                           std::to_string(size) + " for pool '" + p.name + "'");
  const Pool* same_name = map->FindPool(p.name);
  if (p.id < 0) {
    if (same_name) return Status::Error(EEXIST, "pool '" + p.name + "' already exists");
    // Ceph's first pool is 1; a map that already gave pool 0 (made before ids started at 1) keeps
    // it and goes on from pool_max.
    p.id = std::max<std::int64_t>(map->pool_max + 1, kFirstPoolId);
    map->pool_max = p.id;
  } else {
    if (!map->pools.contains(p.id))
      return Status::NotFound("pool id " + std::to_string(p.id) + " does not exist");
    if (same_name && same_name->id != p.id)
      return Status::Error(EEXIST, "pool '" + p.name + "' already exists");
    const Pool& was = map->pools.at(p.id);
    if (was.type != p.type) {
      return Status::Invalid("pool '" + p.name +
                             "': its type is fixed at pool creation (its objects are stored "
                             "by it)");
    }
    if (map->pools.at(p.id).data_chunks != p.data_chunks)
      return Status::Invalid("pool '" + p.name +
                             "': its data chunks are fixed at pool creation, as its layout is");
    if (map->pools.at(p.id).ec_optimizations != p.ec_optimizations)
      return Status::Invalid("pool '" + p.name +
                             "': allow_ec_optimizations is fixed at pool creation: objects "
                             "already stored depend on it");
  }
  map->pools[p.id] = std::move(p);
  return Status::OK();
}

Status RemovePool(const std::string& name, ClusterMap* map) {
  const Pool* p = map->FindPool(name);
  if (!p) return Status::NotFound("pool '" + name + "' does not exist");
  map->pools.erase(p->id);
  return Status::OK();
}

Status PutOsd(const OsdEntry& o, ClusterMap* map) {
  if (o.id < 0) return Status::Invalid("osd id " + std::to_string(o.id) + " must be >= 0");
  if (o.host.empty()) return Status::Invalid("osd." + std::to_string(o.id) + " has an empty host");
  if (!std::isfinite(o.weight) || o.weight < 0)
    return Status::Invalid("osd." + std::to_string(o.id) + " weight must be finite and >= 0");
  if (o.network_bandwidth > kMaxNetworkBandwidth)
    return Status::Invalid("osd." + std::to_string(o.id) + " network bandwidth above 2^40 bytes/s");
  map->osds[o.id] = o;
  return Status::OK();
}

std::string OsdName(int id) {
  return "osd." + std::to_string(id);
}

Status RemoveOsd(int id, ClusterMap* map) {
  auto it = map->osds.find(id);
  if (it == map->osds.end()) return Status::NotFound(OsdName(id) + " does not exist");
  if (it->second.up) return Status::Error(EBUSY, OsdName(id) + " is still up; stop it first");
  map->osds.erase(it);
  return Status::OK();
}

Status OsdBoot(const MapChange& c, ClusterMap* map) {
  const OsdEntry& b = c.osd;
  if (b.id < 0) return Status::Invalid("osd id " + std::to_string(b.id) + " must be >= 0");
  if (b.host.empty()) return Status::Invalid(OsdName(b.id) + " has an empty host");
  if (b.uuid.empty()) return Status::Invalid(OsdName(b.id) + " boots without a store uuid");
  if (b.network_bandwidth > kMaxNetworkBandwidth) {
    return Status::Invalid(OsdName(b.id) + " boots with a network bandwidth above 2^40 bytes/s");
  }
  auto [it, added] = map->osds.try_emplace(b.id);
  OsdEntry& o = it->second;
  if (added) {
    o.id = b.id;
    o.weight = 1.0;
    o.in = true;
  } else if (!o.uuid.empty() && o.uuid != b.uuid) {
    return Status::Error(EEXIST, OsdName(b.id) + " belongs to another store (uuid " + o.uuid +
                                     "); this one is " + b.uuid);
  }
  o.addr = b.addr;
  o.host = b.host;
  o.uuid = b.uuid;
  o.network_bandwidth = b.network_bandwidth;
  o.up = true;
  o.up_stamp_ms = c.stamp_ms;
  o.down_stamp_ms = 0;
  if (o.auto_out) {
    o.in = true;
    o.auto_out = false;
  }
  return Status::OK();
}

Result<OsdEntry*> FindOsd(int id, ClusterMap* map) {
  auto it = map->osds.find(id);
  if (it == map->osds.end()) return Status::NotFound(OsdName(id) + " does not exist");
  return &it->second;
}

Status OsdDown(int id, std::int64_t stamp_ms, ClusterMap* map) {
  auto o = FindOsd(id, map);
  if (!o.ok()) return o.status();
  if (!(*o)->up) return Status::OK();
  (*o)->up = false;
  (*o)->down_stamp_ms = stamp_ms;
  return Status::OK();
}

Status OsdIn(int id, std::int64_t stamp_ms, ClusterMap* map) {
  auto o = FindOsd(id, map);
  if (!o.ok()) return o.status();
  if ((*o)->in) return Status::OK();
  (*o)->in = true;
  (*o)->auto_out = false;
  if (!(*o)->up) (*o)->down_stamp_ms = stamp_ms;
  return Status::OK();
}

Status OsdOut(int id, bool automatic, ClusterMap* map) {
  auto o = FindOsd(id, map);
  if (!o.ok()) return o.status();
  if (!(*o)->in) return Status::OK();
  (*o)->in = false;
  (*o)->auto_out = automatic;
  return Status::OK();
}

Status ChangeFlag(const std::string& flag, bool set, ClusterMap* map) {
  if (!IsOsdFlag(flag)) return Status::Invalid("unknown flag '" + flag + "'");
  if (set) {
    map->flags.insert(flag);
  } else {
    map->flags.erase(flag);
  }
  return Status::OK();
}

// The etcd operations that turn `from` into `to` (without the epoch).
std::vector<etcd::TxnOp> Diff(std::string_view prefix, const ClusterMap& from,
                              const ClusterMap& to) {
  std::vector<etcd::TxnOp> ops;
  if (from.pool_max != to.pool_max)
    ops.push_back(etcd::TxnOp::Put(PoolMaxKey(prefix), std::to_string(to.pool_max)));
  if (from.fsid != to.fsid) ops.push_back(etcd::TxnOp::Put(FsidKey(prefix), to.fsid));
  if (from.flags != to.flags) {
    ops.push_back(to.flags.empty() ? etcd::TxnOp::Delete(FlagsKey(prefix))
                                   : etcd::TxnOp::Put(FlagsKey(prefix), EncodeFlags(to.flags)));
  }
  for (const auto& [name, p] : from.profiles)
    if (!to.profiles.contains(name)) ops.push_back(etcd::TxnOp::Delete(ProfileKey(prefix, name)));
  for (const auto& [name, p] : to.profiles) {
    auto it = from.profiles.find(name);
    if (it == from.profiles.end() || !(it->second == p))
      ops.push_back(etcd::TxnOp::Put(ProfileKey(prefix, name), EncodeProfile(p)));
  }
  for (const auto& [id, p] : from.pools)
    if (!to.pools.contains(id)) ops.push_back(etcd::TxnOp::Delete(PoolKey(prefix, id)));
  for (const auto& [id, p] : to.pools) {
    auto it = from.pools.find(id);
    if (it == from.pools.end() || !(it->second == p))
      ops.push_back(etcd::TxnOp::Put(PoolKey(prefix, id), EncodePool(p)));
  }
  for (const auto& [id, o] : from.osds)
    if (!to.osds.contains(id)) ops.push_back(etcd::TxnOp::Delete(OsdKey(prefix, id)));
  for (const auto& [id, o] : to.osds) {
    auto it = from.osds.find(id);
    if (it == from.osds.end() || !(it->second == o))
      ops.push_back(etcd::TxnOp::Put(OsdKey(prefix, id), EncodeOsd(o)));
  }
  return ops;
}

}  // namespace

MapChange MapChange::PutProfile(EcProfile p) {
  MapChange c;
  c.kind = Kind::kPutProfile;
  c.profile = std::move(p);
  return c;
}
MapChange MapChange::RemoveProfile(std::string name) {
  MapChange c;
  c.kind = Kind::kRemoveProfile;
  c.name = std::move(name);
  return c;
}
MapChange MapChange::PutPool(Pool p) {
  MapChange c;
  c.kind = Kind::kPutPool;
  c.pool = std::move(p);
  return c;
}
MapChange MapChange::RemovePool(std::string name) {
  MapChange c;
  c.kind = Kind::kRemovePool;
  c.name = std::move(name);
  return c;
}
MapChange MapChange::PutOsd(OsdEntry o) {
  MapChange c;
  c.kind = Kind::kPutOsd;
  c.osd = std::move(o);
  return c;
}
MapChange MapChange::RemoveOsd(int id) {
  MapChange c;
  c.kind = Kind::kRemoveOsd;
  c.osd_id = id;
  return c;
}
MapChange MapChange::OsdBoot(int id, std::string addr, std::string host, std::string uuid,
                             std::int64_t stamp_ms, std::uint64_t network_bandwidth) {
  MapChange c;
  c.kind = Kind::kOsdBoot;
  c.osd.id = id;
  c.osd.addr = std::move(addr);
  c.osd.host = std::move(host);
  c.osd.uuid = std::move(uuid);
  c.osd.network_bandwidth = network_bandwidth;
  c.stamp_ms = stamp_ms;
  return c;
}
MapChange MapChange::OsdDown(int id, std::int64_t stamp_ms) {
  MapChange c;
  c.kind = Kind::kOsdDown;
  c.osd_id = id;
  c.stamp_ms = stamp_ms;
  return c;
}
MapChange MapChange::OsdIn(int id, std::int64_t stamp_ms) {
  MapChange c;
  c.kind = Kind::kOsdIn;
  c.osd_id = id;
  c.stamp_ms = stamp_ms;
  return c;
}
MapChange MapChange::OsdOut(int id, bool automatic) {
  MapChange c;
  c.kind = Kind::kOsdOut;
  c.osd_id = id;
  c.automatic = automatic;
  return c;
}

MapChange MapChange::SetFlag(std::string flag) {
  MapChange c;
  c.kind = Kind::kSetFlag;
  c.name = std::move(flag);
  return c;
}
MapChange MapChange::UnsetFlag(std::string flag) {
  MapChange c;
  c.kind = Kind::kUnsetFlag;
  c.name = std::move(flag);
  return c;
}

Status ApplyChanges(const std::vector<MapChange>& changes, ClusterMap* map) {
  for (const MapChange& c : changes) {
    switch (c.kind) {
      case MapChange::Kind::kPutProfile:
        EC_RETURN_IF_ERROR(PutProfile(c.profile, map));
        break;
      case MapChange::Kind::kRemoveProfile:
        EC_RETURN_IF_ERROR(RemoveProfile(c.name, map));
        break;
      case MapChange::Kind::kPutPool:
        EC_RETURN_IF_ERROR(PutPool(c.pool, map));
        break;
      case MapChange::Kind::kRemovePool:
        EC_RETURN_IF_ERROR(RemovePool(c.name, map));
        break;
      case MapChange::Kind::kPutOsd:
        EC_RETURN_IF_ERROR(PutOsd(c.osd, map));
        break;
      case MapChange::Kind::kRemoveOsd:
        EC_RETURN_IF_ERROR(RemoveOsd(c.osd_id, map));
        break;
      case MapChange::Kind::kOsdBoot:
        EC_RETURN_IF_ERROR(OsdBoot(c, map));
        break;
      case MapChange::Kind::kOsdDown:
        EC_RETURN_IF_ERROR(OsdDown(c.osd_id, c.stamp_ms, map));
        break;
      case MapChange::Kind::kOsdIn:
        EC_RETURN_IF_ERROR(OsdIn(c.osd_id, c.stamp_ms, map));
        break;
      case MapChange::Kind::kOsdOut:
        EC_RETURN_IF_ERROR(OsdOut(c.osd_id, c.automatic, map));
        break;
      case MapChange::Kind::kSetFlag:
      case MapChange::Kind::kUnsetFlag:
        EC_RETURN_IF_ERROR(ChangeFlag(c.name, c.kind == MapChange::Kind::kSetFlag, map));
        break;
    }
  }
  return Status::OK();
}

MapStore::MapStore(const etcd::Client* client, std::string prefix, ApplyOptions options)
    : client_(client), prefix_(std::move(prefix)), options_(options) {}

Result<ClusterMap> MapStore::Load() const {
  auto range = client_->GetPrefix(prefix_);
  if (!range.ok()) return range.status();
  return DecodeMap(prefix_, *range);
}

Result<ClusterMap> MapStore::Apply(const std::vector<MapChange>& changes,
                                   const TxnGuard& guard) const {
  if (changes.empty()) return Status::Invalid("empty cluster map change set");
  const int attempts = options_.max_attempts < 1 ? 1 : options_.max_attempts;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    auto current = Load();
    if (!current.ok()) return current.status();
    ClusterMap next = *current;
    EC_RETURN_IF_ERROR(ApplyChanges(changes, &next));
    etcd::TxnRequest txn;
    txn.success = Diff(prefix_, *current, next);
    if (txn.success.empty()) return current;
    // The cluster gets its id with its first change (and a map from before ids, with its next).
    if (next.fsid.empty()) {
      next.fsid = NewFsid();
      txn.success.insert(txn.success.begin(), etcd::TxnOp::Put(FsidKey(prefix_), next.fsid));
    }
    txn.success.insert(txn.success.end(), guard.ops.begin(), guard.ops.end());
    if (txn.success.size() + 1 > options_.max_txn_ops)
      return Status::Error(E2BIG, "cluster map change set needs " +
                                      std::to_string(txn.success.size() + 1) +
                                      " etcd operations; a transaction allows at most " +
                                      std::to_string(options_.max_txn_ops));
    next.epoch = current->epoch + 1;
    txn.success.push_back(etcd::TxnOp::Put(EpochKey(prefix_), std::to_string(next.epoch)));
    txn.compare.push_back(etcd::Compare::Number(EpochKey(prefix_), etcd::Compare::Target::kMod,
                                                current->epoch_mod_revision));
    txn.compare.insert(txn.compare.end(), guard.compares.begin(), guard.compares.end());
    // On failure, read the epoch key back: if it did not move, it was the guard that failed.
    if (!guard.compares.empty()) txn.failure.push_back(etcd::TxnOp::Range(EpochKey(prefix_)));
    auto reply = client_->Txn(txn);
    if (!reply.ok()) return reply.status();
    if (reply->succeeded) {
      next.revision = reply->revision;
      next.epoch_mod_revision = reply->revision;
      return next;
    }
    if (!guard.compares.empty() && reply->responses.size() == 1) {
      const auto& kvs = reply->responses[0].range.kvs;
      const std::int64_t mod = kvs.empty() ? 0 : kvs[0].mod_revision;
      if (mod == current->epoch_mod_revision)
        return Status::Error(ECANCELED, "cluster map change not applied: guard failed");
    }
  }
  return Status::Retryable(EAGAIN, "cluster map changed concurrently " + std::to_string(attempts) +
                                       " times; change set not applied");
}

}  // namespace ec::cluster
