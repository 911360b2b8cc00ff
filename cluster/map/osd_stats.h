// The one per-OSD report each OSD publishes through etcd: its device's space and client I/O for
// the capacity and I/O commands (issue 29 item 3: `ec-admin df`, `osd df`, `-s` usage and io,
// `ec-rados df`), and its write latency for `ec-admin osd perf` (Ceph's commit_latency_ms /
// apply_latency_ms). Not part of the map (no epoch bump): each OSD overwrites its own key every
// osd_mon_report_interval.
//
//   <prefix>osdstats/<osd id>  {"v":3,"osd":3,"stamp_ms":...,
//                               "statfs":{"total":..,"available":..,"data":..,"omap":..,
//                                         "meta":..},
//                               "io":{"rd":..,"rd_bytes":..,"wr":..,"wr_bytes":..},
//                               "rates":{"rd":..,"rd_bytes":..,"wr":..,"wr_bytes":..},
//                               "pools":{"1":{"rd":..,"rd_bytes":..,"wr":..,"wr_bytes":..},...},
//                               "perf_stat":{"commit_latency_ms":0.84,"apply_latency_ms":0.84,
//                                            "ops":120},
//                               "op_latency":{"rd_ns":..,"wr_ns":..}}
//
// statfs is Ceph's store_statfs_t for the OSD's device: total bytes, available (free blocks),
// and of the rest data (blocks holding shards), omap (0: ecstore keeps no omap) and meta (the
// device's own blocks: superblock and journal ring). The RocksDB holding the store's metadata
// lives outside the device and is not counted. used = total - available.
// io: client operations this OSD served as PG primary (reads and writes, their payload bytes),
// cumulative since the OSD process started; pools: the same by pool id; rates: per second over
// the publisher's last interval (0 in the first report).
// perf_stat: the mean latency in ms of the writes this OSD served as a shard over the
// publisher's last interval (0 when it served none), and `ops`, how many writes that mean is of.
// ecstore's store commits and applies in one step, so the two latencies are the same figure.
// op_latency: the time the client operations counted in io took, received to answered (queue
// time included), summed in nanoseconds, cumulative as io: Ceph's op_r_latency and op_w_latency
// (a long-running average: this sum over io.rd, io.wr operations).
//
// Versions: 3 (above) is written. 2 is the same without "op_latency", 1 also without
// "perf_stat"; both still decode, with zeros for what they lack.
//
// Decoding is strict and bounded: the value at most kMaxOsdStatsBytes, exactly the version's
// fields, every count a non-negative integer that fits int64, available + data + omap + meta <=
// total, at most kMaxOsdStatsPools pools keyed by decimal ids >= 0, latencies finite numbers in
// 0..kMaxOsdLatencyMs; anything else is EBADMSG naming the key. A reader skips a report that
// does not decode rather than fail the command.
//
// Thread safety: pure functions, and calls on a thread-safe etcd::Client.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

// The device's space, in bytes (see the header).
struct OsdStatfs {
  std::int64_t total = 0;
  std::int64_t available = 0;
  std::int64_t data = 0;
  std::int64_t omap = 0;
  std::int64_t meta = 0;
  std::int64_t used() const { return total - available; }
  bool operator==(const OsdStatfs&) const = default;
};

// Client operations (as primary) and their payload bytes: cumulative counts, or per second.
struct OsdIo {
  std::int64_t rd = 0;
  std::int64_t rd_bytes = 0;
  std::int64_t wr = 0;
  std::int64_t wr_bytes = 0;
  bool operator==(const OsdIo&) const = default;
};

// Writes served over the last interval and their mean latency (see the header).
struct OsdPerfStat {
  double commit_latency_ms = 0;
  double apply_latency_ms = 0;
  std::int64_t ops = 0;
  bool operator==(const OsdPerfStat&) const = default;
};

// The summed latency of the client operations in OsdStatsReport::io (see the header).
struct OsdOpLatency {
  std::int64_t rd_ns = 0;
  std::int64_t wr_ns = 0;
  bool operator==(const OsdOpLatency&) const = default;
};

// What the OSD's device did wrong since the OSD started (osd/store/watched_device.h): requests
// that failed reading or writing (flushes count as writes) and requests slower than
// bdev_slow_op_ms. For health (OSD_DEVICE_ERRORS, OSD_SLOW_DEVICE) and the exporter.
struct OsdDeviceHealth {
  std::int64_t read_errors = 0;
  std::int64_t write_errors = 0;
  std::int64_t slow_ops = 0;
  bool operator==(const OsdDeviceHealth&) const = default;
};

struct OsdStatsReport {
  int osd = 0;
  std::int64_t stamp_ms = 0;  // wall clock when it was made
  OsdStatfs statfs;
  OsdIo io;                             // cumulative since the OSD started
  OsdIo rates;                          // per second over the last interval
  std::map<std::int64_t, OsdIo> pools;  // cumulative, by pool id
  OsdPerfStat perf;                     // over the last interval (zero from a version 1 report)
  OsdOpLatency op_latency;              // cumulative as io (zero from a version 1 or 2 report)
  OsdDeviceHealth device;               // cumulative as io (zero from a version 1 to 3 report)
  std::int64_t slow_ops_interval = 0;   // device.slow_ops added over the last interval
  bool operator==(const OsdStatsReport&) const = default;
};

inline constexpr std::int64_t kOsdStatsVersion = 4;
inline constexpr std::size_t kMaxOsdStatsBytes = 256 * 1024;
inline constexpr std::size_t kMaxOsdStatsPools = 4096;
inline constexpr double kMaxOsdLatencyMs = 1e9;

std::string OsdStatsKey(std::string_view prefix, int osd);
// Always the current version, kOsdStatsVersion.
std::string EncodeOsdStats(const OsdStatsReport& report);
// Versions 1 to 4. Errors: EBADMSG "bad osd stats at <key>: <what>". `key` only names the value.
Result<OsdStatsReport> DecodeOsdStats(std::string_view key, std::string_view value);

// Writes `report` under its OSD's key. Errors: the etcd client's.
Status PublishOsdStats(const etcd::Client& client, std::string_view prefix,
                       const OsdStatsReport& report);
// Every report under the prefix, by OSD id (reports that do not decode, or sit under another
// OSD's key, are left out). Errors: the etcd client's.
Result<std::map<int, OsdStatsReport>> LoadOsdStats(const etcd::Client& client,
                                                   std::string_view prefix);

}  // namespace ec::cluster
