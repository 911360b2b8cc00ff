// The per-OSD reports kept in etcd, one key per OSD under a directory of the cluster prefix
// (pgstats/<id>: pg_stats.h; osdstats/<id>: osd_stats.h): publishing one is one Put, loading
// every OSD's one range read; and how their codecs read a count. What the two report kinds
// share; each keeps its own codec.
//
// Thread safety: as etcd::Client (the calls are independent).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster::osd_reports {

// Field `name` of a report's JSON object as a count: an integer in [0, INT64_MAX] (nlohmann keeps
// integers above INT64_MAX unsigned). False when it is missing or anything else.
inline bool GetCount(const nlohmann::json& j, const char* name, std::int64_t* out) {
  auto it = j.find(name);
  if (it == j.end()) return false;
  if (it->is_number_unsigned()) {
    const auto v = it->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(INT64_MAX)) return false;
    *out = static_cast<std::int64_t>(v);
    return true;
  }
  if (!it->is_number_integer()) return false;
  *out = it->get<std::int64_t>();
  return *out >= 0;
}

// Puts `value` at `key`. Errors: etcd's.
inline Status Put(const etcd::Client& client, std::string key, std::string value) {
  etcd::PutRequest put;
  put.key = std::move(key);
  put.value = std::move(value);
  auto r = client.Put(put);
  return r.ok() ? Status::OK() : r.status();
}

// Every report under <prefix><dir> (dir ends with '/'), by OSD id: `decode(key, value)` gives a
// Result<Report> with an `osd` field, and `key_of(prefix, osd)` the key that OSD's report must
// be at. A value that does not decode, or that names another OSD than its key, is left out (an
// OSD's bad report must not hide the others'). Errors: etcd's.
template <typename Report, typename Decode, typename KeyOf>
Result<std::map<int, Report>> Load(const etcd::Client& client, std::string_view prefix,
                                   std::string_view dir, Decode decode, KeyOf key_of) {
  etcd::RangeRequest range;
  range.key = std::string(prefix) + std::string(dir);
  range.range_end = etcd::PrefixEnd(range.key);
  auto got = client.Range(range);
  if (!got.ok()) return got.status();
  std::map<int, Report> out;
  for (const etcd::KeyValue& kv : got->kvs) {
    auto r = decode(kv.key, kv.value);
    if (r.ok() && key_of(prefix, r->osd) == kv.key) out[r->osd] = std::move(r).value();
  }
  return out;
}

}  // namespace ec::cluster::osd_reports
