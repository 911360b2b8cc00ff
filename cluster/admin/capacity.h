// Capacity and client I/O of the cluster, its pools and its OSDs, as `ceph df`, `ceph osd df`,
// `rados df` and the usage and io lines of `ceph -s` show them (issue 29 item 3): a PURE function
// of the map, the PG primaries' reports (cluster/map/pg_stats.h) and the OSDs' reports
// (cluster/map/osd_stats.h). No I/O.
//
// Raw space: the OSDs that are up and have reported (a down OSD's space is not there to use, as
// Ceph counts only OSDs with stats): SIZE their devices, AVAIL their free space, RAW USED the rest.
// USED = RAW USED (ecstore keeps no space outside the devices' own accounting).
//
// Pools: STORED and OBJECTS from the PG primaries' reports (a PG counts the report of its primary
// in the map, whatever the report's interval, as `status` counts objects): logical bytes and
// objects. USED is the raw space that data takes: STORED x size / k (each object's k data chunks
// and m parity chunks; Fast EC pools store no padding, so this is exact up to the last stripe's
// chunk rounding). MAX AVAIL is Ceph's projection (PGMap::get_rule_avail): over the OSDs a pool
// places on (in, weight > 0, up and reported), each OSD's headroom below the full ratio
// (mon_osd_full_ratio 0.95 x SIZE - RAW USE, at least 0) divided by its share of the total weight;
// the smallest of these is the raw space the pool can still take before its fullest OSD is full,
// and MAX AVAIL = that x k / (k + m). %USED = USED / (USED + MAX AVAIL x size / k) (Ceph's
// avail_raw, MAX AVAIL x size / k).
//
// OSDs (`osd df`): each OSD of the map, its statfs when it reported (zeros otherwise), PGS the PGs
// whose up set holds it, %USE = RAW USE / SIZE x 100, VAR = %USE / the cluster's %USE (0 when
// the cluster's is 0).
//
// Client I/O: RD_OPS, RD, WR_OPS, WR per pool summed over every OSD report (cumulative since each
// OSD started); rates (bytes and ops per second) summed over the reports of OSDs up in the map.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/map/cluster_map.h"
#include "cluster/map/osd_stats.h"
#include "cluster/map/pg_stats.h"
#include "common/status.h"

namespace ec::cluster::admin {

inline constexpr double kFullRatio = 0.95;  // Ceph's mon_osd_full_ratio

struct OsdUsage {
  int id = 0;
  double weight = 0;    // the map's CRUSH weight
  double reweight = 0;  // 1 when in, 0 when out
  bool up = false;
  bool reported = false;
  OsdStatfs statfs;
  std::uint64_t pgs = 0;
  double utilization = 0;  // %
  double var = 0;
};

struct PoolUsage {
  std::int64_t id = 0;
  std::string name;
  std::uint32_t pg_num = 0;
  int k = 0;
  int size = 0;  // k + m
  std::uint64_t stored = 0;
  std::uint64_t objects = 0;
  std::uint64_t used = 0;  // raw
  std::uint64_t max_avail = 0;
  std::uint64_t avail_raw = 0;  // the raw space MAX AVAIL stands for: max_avail x size / k
  double percent_used = 0;      // 0..1, as Ceph's JSON
  // For `rados df`: object copies (objects x size), degraded ones, unfound objects.
  std::uint64_t copies = 0;
  std::uint64_t degraded = 0;
  std::uint64_t unfound = 0;
  OsdIo io;  // cumulative
};

struct ClusterUsage {
  std::uint64_t total = 0;
  std::uint64_t avail = 0;
  std::uint64_t used = 0;  // RAW USED
  std::uint64_t stored = 0;
  std::uint64_t objects = 0;
  OsdIo rates;                   // per second, over the up OSDs' reports
  std::vector<OsdUsage> osds;    // by id
  std::vector<PoolUsage> pools;  // by id
  double UsedPercent() const;    // RAW USED / SIZE x 100 (0 when SIZE is 0)
};

// Errors: only PlacementFor's and the pools' geometry errors (a map from MapStore never has them).
Result<ClusterUsage> BuildUsage(const ClusterMap& map, const std::map<int, PgStatsReport>& pgs,
                                const std::map<int, OsdStatsReport>& osds);

}  // namespace ec::cluster::admin
