// The keys of OSD liveness and of the monitor election, beside the cluster map under its prefix
// (cluster_map.h ignores them):
//
// | key                   | value                                               | bound to |
// |-----------------------|-----------------------------------------------------|-------------------|
// | <prefix>alive/<id>    | {"v":1,"id":3,"uuid":"..","addr":"..","pid":123}    | the OSD's lease |
// | <prefix>mon/leader    | {"v":1,"name":"osd.3","since_ms":..}                | the leader's
// lease|
//
// An alive key exists exactly while its OSD renews its lease: when the lease expires (the process
// died, hung, or lost etcd for osd_heartbeat_grace), etcd deletes the key. The map's "up" flag
// follows with an epoch: set by the OSD's boot txn (which writes the alive key too), cleared by the
// elected monitor once the key is gone (monitor.h).
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ec::cluster {

std::string AliveKey(std::string_view prefix, int osd_id);
std::string AlivePrefix(std::string_view prefix);
std::string LeaderKey(std::string_view prefix);

struct AliveValue {
  int id = 0;
  std::string uuid;  // the store's uuid
  std::string addr;
  std::int64_t pid = 0;
};
std::string EncodeAlive(const AliveValue& v);
// Strict (cluster_map.h's rules). EBADMSG naming the key.
Result<AliveValue> DecodeAlive(std::string_view key, const std::string& value);

struct LeaderValue {
  std::string name;  // "osd.3", or whatever the candidate calls itself
  std::int64_t since_ms = 0;
};
std::string EncodeLeader(const LeaderValue& v);
Result<LeaderValue> DecodeLeader(std::string_view key, const std::string& value);

// Wall clock in ms since 1970: the stamps of the map (down_stamp_ms ...).
std::int64_t WallClockMs();

// An etcd lease TTL in whole seconds for a grace period: rounded up, at least 2 (etcd raises any
// shorter TTL to its minimum, 1.5 x the election timeout, which is 2 s with etcd's defaults).
std::int64_t LeaseTtlSeconds(std::chrono::milliseconds grace);

}  // namespace ec::cluster
