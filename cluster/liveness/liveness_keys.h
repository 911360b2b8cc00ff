// The keys of OSD liveness and of the monitor election, beside the cluster map under its prefix
// (cluster_map.h ignores them):
//
// | key                   | value                                               | bound to |
// |-----------------------|-----------------------------------------------------|-------------------|
// | <prefix>alive/<id>    | {"v":1,"id":3,"uuid":"..","addr":"..","pid":123}    | the OSD's lease |
// | <prefix>mon/leader    | {"v":1,"name":"osd.3","since_ms":..}                | the leader's
// lease|
// | <prefix>failure/<t>/<r> | {"v":1,"target":t,"reporter":r,"target_up_stamp_ms":..,
// |                       |  "failed_since_ms":..,"stamp_ms":..}                | the reporter's |
//
// An alive key exists exactly while its OSD renews its lease: when the lease expires (the process
// died, hung, or lost etcd for osd_heartbeat_grace), etcd deletes the key. The map's "up" flag
// follows with an epoch: set by the OSD's boot txn (which writes the alive key too), cleared by the
// elected monitor once the key is gone (monitor.h).
//
// A failure report says "OSD r has had no answer to its heartbeats from OSD t since
// failed_since_ms" (osd/daemon/heartbeat.h writes it once that lasted osd_heartbeat_grace, and
// removes it when t answers again). It is bound to the reporter's own lease, so a dead reporter's
// reports vanish with it; target_up_stamp_ms names the boot of t it is about (the map's
// up_stamp_ms), so a report outlives no reboot of its target. stamp_ms is when r last wrote it
// (it rewrites it every third of the grace): the monitor ignores older ones (failure_policy.h).
//
// Thread safety: pure functions.
#pragma once

#include <chrono>
#include <cstddef>
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

std::string FailurePrefix(std::string_view prefix);
std::string FailureKey(std::string_view prefix, int target, int reporter);

struct FailureReport {
  int target = 0;                       // the OSD that does not answer
  int reporter = 0;                     // the OSD that says so
  std::int64_t target_up_stamp_ms = 0;  // the target's up_stamp_ms in the map the reporter saw
  std::int64_t failed_since_ms = 0;     // wall clock of the target's last answer (or of the
                                        // reporter's first ping when none came)
  std::int64_t stamp_ms = 0;            // wall clock when the reporter wrote the report
  bool operator==(const FailureReport&) const = default;
};
// A value is at most this long (checked before it is parsed).
inline constexpr std::size_t kMaxFailureValueBytes = 512;
std::string EncodeFailure(const FailureReport& r);
// Strict: `key` must be <prefix>failure/<target>/<reporter> (decimal ids without sign or leading
// zeros, at most INT_MAX) and the value must name the same ids; stamps 0..INT64_MAX; at most
// kMaxFailureValueBytes. Errors: EBADMSG naming the key. Never throws, for any bytes.
Result<FailureReport> DecodeFailure(std::string_view prefix, std::string_view key,
                                    const std::string& value);

// Wall clock in ms since 1970: the stamps of the map (down_stamp_ms ...).
std::int64_t WallClockMs();

// An etcd lease TTL in whole seconds for a grace period: rounded up, at least 2 (etcd raises any
// shorter TTL to its minimum, 1.5 x the election timeout, which is 2 s with etcd's defaults).
std::int64_t LeaseTtlSeconds(std::chrono::milliseconds grace);

}  // namespace ec::cluster
