#include "cluster/map/cluster_map.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <utility>

namespace ec::cluster {
namespace {

using nlohmann::json;

Status Bad(std::string_view key, const std::string& what) {
  return Status::Error(EBADMSG, "cluster map key '" + std::string(key) + "': " + what);
}

// A decimal in [lo, hi] with nothing else (no sign unless lo < 0, no spaces).
bool ParseDecimal(std::string_view s, std::int64_t lo, std::int64_t hi, std::int64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  if (s.size() > 1 && s[0] == '0') return false;  // one spelling per number
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < lo || v > hi) return false;
  *out = v;
  return true;
}

// Field readers: each checks presence and type; the caller names the key on failure.
class Reader {
 public:
  Reader(std::string_view key, const json& obj) : key_(key), obj_(obj) {}

  Status Check(const std::set<std::string>& fields) const {
    if (!obj_.is_object()) return Bad(key_, "value is not a JSON object");
    for (const auto& [name, v] : obj_.items()) {
      (void)v;
      if (!fields.contains(name)) return Bad(key_, "unknown field '" + name + "'");
    }
    std::int64_t version = 0;
    EC_RETURN_IF_ERROR(Int("v", 0, 1000000, &version));
    if (version != 1) return Bad(key_, "format v=" + std::to_string(version) + " (expected 1)");
    return Status::OK();
  }
  Status Int(const char* name, std::int64_t lo, std::int64_t hi, std::int64_t* out) const {
    auto it = obj_.find(name);
    if (it == obj_.end()) return Bad(key_, std::string("missing field '") + name + "'");
    if (!it->is_number_integer())
      return Bad(key_, std::string("field '") + name + "' is not an integer");
    std::int64_t v = 0;
    if (it->is_number_unsigned()) {
      auto u = it->get<std::uint64_t>();
      if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Bad(key_, std::string("field '") + name + "' is out of range");
      v = static_cast<std::int64_t>(u);
    } else {
      v = it->get<std::int64_t>();
    }
    if (v < lo || v > hi)
      return Bad(key_, std::string("field '") + name + "' = " + std::to_string(v) + " is outside " +
                           std::to_string(lo) + ".." + std::to_string(hi));
    *out = v;
    return Status::OK();
  }
  Status Str(const char* name, std::string* out) const {
    auto it = obj_.find(name);
    if (it == obj_.end()) return Bad(key_, std::string("missing field '") + name + "'");
    if (!it->is_string()) return Bad(key_, std::string("field '") + name + "' is not a string");
    *out = it->get<std::string>();
    return Status::OK();
  }
  Status Bool(const char* name, bool* out) const {
    auto it = obj_.find(name);
    if (it == obj_.end()) return Bad(key_, std::string("missing field '") + name + "'");
    if (!it->is_boolean()) return Bad(key_, std::string("field '") + name + "' is not a boolean");
    *out = it->get<bool>();
    return Status::OK();
  }
  // An optional boolean: `fallback` when absent; present, it must be a boolean.
  Status OptionalBool(const char* name, bool fallback, bool* out) const {
    if (!obj_.contains(name)) {
      *out = fallback;
      return Status::OK();
    }
    return Bool(name, out);
  }
  Status Double(const char* name, double* out) const {
    auto it = obj_.find(name);
    if (it == obj_.end()) return Bad(key_, std::string("missing field '") + name + "'");
    if (!it->is_number()) return Bad(key_, std::string("field '") + name + "' is not a number");
    double v = it->get<double>();
    if (!std::isfinite(v) || v < 0)
      return Bad(key_, std::string("field '") + name + "' is not a finite number >= 0");
    *out = v;
    return Status::OK();
  }
  const json& obj() const { return obj_; }

 private:
  std::string_view key_;
  const json& obj_;
};

Result<json> ParseValue(std::string_view key, const std::string& value) {
  json j = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Bad(key, "value is not JSON");
  return j;
}

Result<EcProfile> DecodeProfile(std::string_view key, std::string_view name,
                                const std::string& value) {
  auto j = ParseValue(key, value);
  if (!j.ok()) return j.status();
  Reader r(key, *j);
  EC_RETURN_IF_ERROR(r.Check({"v", "name", "profile"}));
  EcProfile p;
  EC_RETURN_IF_ERROR(r.Str("name", &p.name));
  if (p.name != name) return Bad(key, "name '" + p.name + "' differs from the key");
  auto it = j->find("profile");
  if (it == j->end()) return Bad(key, "missing field 'profile'");
  if (!it->is_object()) return Bad(key, "field 'profile' is not an object");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return Bad(key, "profile value of '" + k + "' is not a string");
    if (k.empty()) return Bad(key, "profile has an empty key");
    p.profile[k] = v.get<std::string>();
  }
  return p;
}

Result<Pool> DecodePool(std::string_view key, std::int64_t id, const std::string& value) {
  auto j = ParseValue(key, value);
  if (!j.ok()) return j.status();
  Reader r(key, *j);
  EC_RETURN_IF_ERROR(
      r.Check({"v", "id", "name", "profile", "pg_num", "stripe_unit", "min_size",
               "allow_ec_optimizations", "data_chunks", "type", "size", "ec_min_object_size"}));
  Pool p;
  std::int64_t n = 0;
  EC_RETURN_IF_ERROR(r.Int("id", 0, std::numeric_limits<std::int64_t>::max(), &p.id));
  if (p.id != id) return Bad(key, "id " + std::to_string(p.id) + " differs from the key");
  EC_RETURN_IF_ERROR(r.Str("name", &p.name));
  if (p.name.empty()) return Bad(key, "empty pool name");
  EC_RETURN_IF_ERROR(r.Str("profile", &p.profile));
  EC_RETURN_IF_ERROR(r.Int("pg_num", 1, kMaxPgNum, &n));
  p.pg_num = static_cast<std::uint32_t>(n);
  EC_RETURN_IF_ERROR(r.Int("stripe_unit", 1, std::numeric_limits<std::uint32_t>::max(), &n));
  p.stripe_unit = static_cast<std::uint32_t>(n);
  EC_RETURN_IF_ERROR(r.Int("min_size", 1, kMaxPoolSize, &n));
  p.min_size = static_cast<int>(n);
  // Absent in records written before the flag existed: those pools are padded.
  EC_RETURN_IF_ERROR(r.OptionalBool("allow_ec_optimizations", false, &p.ec_optimizations));
  // Absent in records written before it existed (their clients never read directly).
  if (auto it = r.obj().find("data_chunks"); it != r.obj().end()) {
    if (!it->is_array() || it->size() > static_cast<std::size_t>(kMaxPoolSize)) {
      return Bad(key, "field 'data_chunks' is not an array of at most " +
                          std::to_string(kMaxPoolSize) + " chunk ids");
    }
    std::set<int> seen;
    for (const json& c : *it) {
      if (!c.is_number_integer() || c.get<std::int64_t>() < 0 ||
          c.get<std::int64_t>() >= kMaxPoolSize || !seen.insert(c.get<int>()).second) {
        return Bad(key, "field 'data_chunks' holds " + c.dump() +
                            ", not a distinct chunk id in 0.." + std::to_string(kMaxPoolSize - 1));
      }
      p.data_chunks.push_back(c.get<int>());
    }
  }
  // Absent in records written before replicated pools existed: erasure.
  if (r.obj().contains("type")) {
    std::string type;
    EC_RETURN_IF_ERROR(r.Str("type", &type));
    if (type == PoolTypeName(PoolType::kReplicated)) {
      p.type = PoolType::kReplicated;
    } else if (type != PoolTypeName(PoolType::kErasure)) {
      return Bad(key, "field 'type' is '" + type + "', not erasure or replicated");
    }
  }
  if (p.type == PoolType::kReplicated) {
    std::int64_t size = 0;
    EC_RETURN_IF_ERROR(r.Int("size", 1, kMaxPoolSize, &size));
    p.size = static_cast<int>(size);
  } else if (r.obj().contains("size")) {
    return Bad(key, "field 'size' is for replicated pools only");
  }
  // Absent in records written before object classes existed (and while it is 0).
  if (r.obj().contains("ec_min_object_size")) {
    if (p.type != PoolType::kErasure) {
      return Bad(key, "field 'ec_min_object_size' is for erasure pools only");
    }
    std::int64_t bytes = 0;
    EC_RETURN_IF_ERROR(
        r.Int("ec_min_object_size", 0, static_cast<std::int64_t>(kMaxEcMinObjectSize), &bytes));
    p.ec_min_object_size = static_cast<std::uint64_t>(bytes);
  }
  return p;
}

Result<OsdEntry> DecodeOsd(std::string_view key, int id, const std::string& value) {
  auto j = ParseValue(key, value);
  if (!j.ok()) return j.status();
  Reader r(key, *j);
  EC_RETURN_IF_ERROR(r.Check({"v", "id", "addr", "host", "weight", "in", "up", "uuid",
                              "up_stamp_ms", "down_stamp_ms", "auto_out", "network_bandwidth"}));
  OsdEntry o;
  std::int64_t n = 0;
  EC_RETURN_IF_ERROR(r.Int("id", 0, std::numeric_limits<int>::max(), &n));
  o.id = static_cast<int>(n);
  if (o.id != id) return Bad(key, "id " + std::to_string(o.id) + " differs from the key");
  EC_RETURN_IF_ERROR(r.Str("addr", &o.addr));
  EC_RETURN_IF_ERROR(r.Str("host", &o.host));
  if (o.host.empty()) return Bad(key, "empty host");
  EC_RETURN_IF_ERROR(r.Double("weight", &o.weight));
  EC_RETURN_IF_ERROR(r.Bool("in", &o.in));
  EC_RETURN_IF_ERROR(r.Bool("up", &o.up));
  EC_RETURN_IF_ERROR(r.Str("uuid", &o.uuid));
  EC_RETURN_IF_ERROR(
      r.Int("up_stamp_ms", 0, std::numeric_limits<std::int64_t>::max(), &o.up_stamp_ms));
  EC_RETURN_IF_ERROR(
      r.Int("down_stamp_ms", 0, std::numeric_limits<std::int64_t>::max(), &o.down_stamp_ms));
  EC_RETURN_IF_ERROR(r.Bool("auto_out", &o.auto_out));
  if (j->contains("network_bandwidth")) {  // absent in records older than it: unknown (0)
    std::int64_t bw = 0;
    EC_RETURN_IF_ERROR(
        r.Int("network_bandwidth", 0, static_cast<std::int64_t>(kMaxNetworkBandwidth), &bw));
    o.network_bandwidth = static_cast<std::uint64_t>(bw);
  }
  return o;
}

Result<std::set<std::string>> DecodeFlags(std::string_view key, const std::string& value) {
  auto j = ParseValue(key, value);
  if (!j.ok()) return j.status();
  Reader r(key, *j);
  EC_RETURN_IF_ERROR(r.Check({"v", "flags"}));
  auto it = j->find("flags");
  if (it == j->end()) return Bad(key, "missing field 'flags'");
  if (!it->is_array()) return Bad(key, "field 'flags' is not an array");
  if (it->size() > kOsdFlags.size()) return Bad(key, "too many flags");
  std::set<std::string> flags;
  for (const json& f : *it) {
    if (!f.is_string()) return Bad(key, "a flag is not a string");
    const std::string name = f.get<std::string>();
    if (!IsOsdFlag(name)) return Bad(key, "unknown flag '" + name + "'");
    if (!flags.insert(name).second) return Bad(key, "flag '" + name + "' given twice");
  }
  return flags;
}

bool StartsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

}  // namespace

std::string_view PoolTypeName(PoolType type) {
  return type == PoolType::kReplicated ? "replicated" : "erasure";
}

bool IsOsdFlag(std::string_view name) {
  for (std::string_view f : kOsdFlags) {
    if (f == name) return true;
  }
  return false;
}

std::string ClusterMap::FlagsText() const {
  std::string out;
  for (std::string_view f : kOsdFlags) {
    if (HasFlag(f)) out += (out.empty() ? "" : ",") + std::string(f);
  }
  return out;
}

const Pool* ClusterMap::FindPool(std::string_view name) const {
  for (const auto& [id, p] : pools)
    if (p.name == name) return &p;
  return nullptr;
}

bool SameContent(const ClusterMap& a, const ClusterMap& b) {
  return a.epoch == b.epoch && a.pool_max == b.pool_max && a.fsid == b.fsid &&
         a.profiles == b.profiles && a.pools == b.pools && a.osds == b.osds && a.flags == b.flags;
}

std::string EpochKey(std::string_view prefix) {
  return std::string(prefix) + "epoch";
}
std::string PoolMaxKey(std::string_view prefix) {
  return std::string(prefix) + "pool_max";
}
std::string FsidKey(std::string_view prefix) {
  return std::string(prefix) + "fsid";
}

std::string FlagsKey(std::string_view prefix) {
  return std::string(prefix) + "flags";
}

std::string NewFsid() {
  std::random_device rd;
  std::uniform_int_distribution<int> byte(0, 255);
  unsigned char b[16];
  for (unsigned char& x : b) x = static_cast<unsigned char>(byte(rd));
  b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);  // RFC 4122 variant
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[b[i] >> 4];
    out += kHex[b[i] & 15];
  }
  return out;
}

std::string ProfileKey(std::string_view prefix, std::string_view name) {
  return std::string(prefix) + "profile/" + std::string(name);
}
std::string PoolKey(std::string_view prefix, std::int64_t id) {
  return std::string(prefix) + "pool/" + std::to_string(id);
}
std::string OsdKey(std::string_view prefix, int id) {
  return std::string(prefix) + "osd/" + std::to_string(id);
}

std::string EncodeProfile(const EcProfile& p) {
  json prof = json::object();
  for (const auto& [k, v] : p.profile) prof[k] = v;
  return json{{"v", 1}, {"name", p.name}, {"profile", prof}}.dump();
}
std::string EncodePool(const Pool& p) {
  json j{{"v", 1},
         {"id", p.id},
         {"name", p.name},
         {"profile", p.profile},
         {"pg_num", p.pg_num},
         {"stripe_unit", p.stripe_unit},
         {"min_size", p.min_size},
         {"allow_ec_optimizations", p.ec_optimizations},
         {"data_chunks", p.data_chunks}};
  if (p.type == PoolType::kReplicated) {
    j["type"] = PoolTypeName(p.type);
    j["size"] = p.size;
  }
  if (p.ec_min_object_size != 0) j["ec_min_object_size"] = p.ec_min_object_size;
  return j.dump();
}
std::string EncodeOsd(const OsdEntry& o) {
  json j{{"v", 1},
         {"id", o.id},
         {"addr", o.addr},
         {"host", o.host},
         {"weight", o.weight},
         {"in", o.in},
         {"up", o.up},
         {"uuid", o.uuid},
         {"up_stamp_ms", o.up_stamp_ms},
         {"down_stamp_ms", o.down_stamp_ms},
         {"auto_out", o.auto_out}};
  // Only when known: an OSD of a version before the field reads the record as before.
  if (o.network_bandwidth != 0) j["network_bandwidth"] = o.network_bandwidth;
  return j.dump();
}

std::string EncodeFlags(const std::set<std::string>& flags) {
  return json{{"v", 1}, {"flags", flags}}.dump();
}

Status ApplyKey(std::string_view prefix, const etcd::KeyValue& kv, bool is_delete, ClusterMap* map,
                bool* is_map_key) {
  *is_map_key = false;
  std::string_view key = kv.key;
  if (!StartsWith(key, prefix)) return Status::OK();
  std::string_view rest = key.substr(prefix.size());
  std::int64_t n = 0;
  if (rest == "epoch" || rest == "pool_max") {
    *is_map_key = true;
    std::int64_t* field = rest == "epoch" ? &map->epoch : &map->pool_max;
    if (is_delete) {
      *field = rest == "epoch" ? 0 : -1;
    } else if (!ParseDecimal(kv.value, 0, std::numeric_limits<std::int64_t>::max() - 1, &n)) {
      return Bad(key, "value is not a decimal number >= 0");
    } else {
      *field = n;
    }
    if (rest == "epoch") map->epoch_mod_revision = is_delete ? 0 : kv.mod_revision;
    return Status::OK();
  }
  if (rest == "fsid") {
    *is_map_key = true;
    if (is_delete) {
      map->fsid.clear();
      return Status::OK();
    }
    const std::string& v = kv.value;
    bool ok = v.size() == 36;
    for (std::size_t i = 0; ok && i < v.size(); ++i) {
      const char c = v[i];
      ok = (i == 8 || i == 13 || i == 18 || i == 23)
               ? c == '-'
               : ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    }
    if (!ok) return Bad(key, "value is not a lower-case UUID");
    map->fsid = v;
    return Status::OK();
  }
  if (rest == "flags") {
    *is_map_key = true;
    if (is_delete) {
      map->flags.clear();
      return Status::OK();
    }
    auto flags = DecodeFlags(key, kv.value);
    if (!flags.ok()) return flags.status();
    map->flags = std::move(flags).value();
    return Status::OK();
  }
  if (StartsWith(rest, "profile/")) {
    *is_map_key = true;
    std::string name(rest.substr(8));
    if (name.empty()) return Bad(key, "empty profile name");
    if (is_delete) {
      map->profiles.erase(name);
      return Status::OK();
    }
    auto p = DecodeProfile(key, name, kv.value);
    if (!p.ok()) return p.status();
    map->profiles[name] = std::move(*p);
    return Status::OK();
  }
  if (StartsWith(rest, "pool/")) {
    *is_map_key = true;
    if (!ParseDecimal(rest.substr(5), 0, std::numeric_limits<std::int64_t>::max(), &n))
      return Bad(key, "pool id in the key is not a decimal number >= 0");
    if (is_delete) {
      map->pools.erase(n);
      return Status::OK();
    }
    auto p = DecodePool(key, n, kv.value);
    if (!p.ok()) return p.status();
    map->pools[n] = std::move(*p);
    return Status::OK();
  }
  if (StartsWith(rest, "osd/")) {
    *is_map_key = true;
    if (!ParseDecimal(rest.substr(4), 0, std::numeric_limits<int>::max(), &n))
      return Bad(key, "osd id in the key is not a decimal number >= 0");
    int id = static_cast<int>(n);
    if (is_delete) {
      map->osds.erase(id);
      return Status::OK();
    }
    auto o = DecodeOsd(key, id, kv.value);
    if (!o.ok()) return o.status();
    map->osds[id] = std::move(*o);
    return Status::OK();
  }
  return Status::OK();
}

Result<ClusterMap> DecodeMap(std::string_view prefix, const etcd::RangeResponse& range) {
  ClusterMap map;
  bool has_epoch = false, has_other = false;
  for (const auto& kv : range.kvs) {
    bool is_map_key = false;
    EC_RETURN_IF_ERROR(ApplyKey(prefix, kv, false, &map, &is_map_key));
    if (!is_map_key) continue;
    if (kv.key == EpochKey(prefix)) {
      has_epoch = true;
    } else {
      has_other = true;
    }
  }
  if (has_other && !has_epoch)
    return Status::Error(EBADMSG, "cluster map under '" + std::string(prefix) +
                                      "' has keys but no '" + EpochKey(prefix) + "'");
  map.revision = range.revision;
  return map;
}

}  // namespace ec::cluster
