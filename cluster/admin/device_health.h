// What the OSDs' devices did wrong, as health checks: a PURE function of the map and the OSDs'
// reports (cluster/map/osd_stats.h OsdStatsReport::device), for `health [detail]` and `status`.
//
//   OSD_DEVICE_ERRORS  HEALTH_WARN  "1 osd has device I/O errors" ("N osds have ..."): the OSDs of
//                                   the map whose report counts a failed device read or write
//                                   since the OSD started; one detail line each, at most
//                                   kMaxDetail: "osd.3 (host=h3, up, in): 2 read errors, 0 write
//                                   errors on its device". An OSD whose device failed a write takes
//                                   itself out of service (marked out and down), so its last
//                                   report stays here, "down, out", until it starts again.
//   OSD_SLOW_DEVICE    HEALTH_WARN  "1 osd has slow device requests": the up OSDs whose last
//                                   report interval had requests slower than bdev_slow_op_ms;
//                                   "osd.3 (host=h3): 4 device requests slower than
//                                   bdev_slow_op_ms in its last report interval".
//
// Ceph raises BLUESTORE_SPURIOUS_READ_ERRORS and SLOW_OPS for what it sees of this; ecstore's
// names say what is counted. A report of an OSD not in the map is ignored.
//
// Thread safety: pure functions.
#pragma once

#include <map>
#include <vector>

#include "cluster/admin/status_report.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/osd_stats.h"

namespace ec::cluster::admin {

// The checks above that apply, OSD_DEVICE_ERRORS then OSD_SLOW_DEVICE; empty when none does.
std::vector<HealthCheck> DeviceHealthChecks(const ClusterMap& map,
                                            const std::map<int, OsdStatsReport>& osds);

}  // namespace ec::cluster::admin
