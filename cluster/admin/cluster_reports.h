// What `status`, `health` and the cluster exporter (prometheus_exporter.h) are computed from:
// the cluster map and every report the OSDs keep in etcd, loaded together; and the cluster's
// status from them, the one computation `status`, `health` and `ceph_health_status` share.
//
//   map     <prefix>...            cluster/map/cluster_map.h (MapStore::Load)
//   pgs     <prefix>pgstats/<id>   the PG primaries' reports (cluster/map/pg_stats.h)
//   scrubs  <prefix>scrub/<pgid>   the PGs' last scrub results (cluster/map/scrub_record.h)
//   osds    <prefix>osdstats/<id>  each OSD's space, client I/O and latency (osd_stats.h)
//
// A report that does not decode is left out by its loader (one OSD's bad report hides no
// other's).
//
// Thread safety: LoadClusterReports as AdminContext's store (its etcd client is thread-safe);
// BuildClusterStatus is a pure function.
#pragma once

#include <map>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/status_report.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/osd_stats.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/scrub_record.h"
#include "common/status.h"

namespace ec::cluster::admin {

struct ClusterReports {
  ClusterMap map;
  std::map<int, PgStatsReport> pgs;           // by OSD id
  std::map<std::string, ScrubResult> scrubs;  // by pgid ("1.1f")
  std::map<int, OsdStatsReport> osds;         // by OSD id
};

// Loads the map, then the reports. Errors: the map's as LoadMap reports them (an unreachable etcd
// names the configured endpoints; EBADMSG for a value that does not parse). A report range that
// cannot be read fails too when `reports_required` (the etcd error, as FromStore reports it);
// otherwise it leaves its part empty, so that `status` still shows the map's view through an etcd
// hiccup.
Result<ClusterReports> LoadClusterReports(const AdminContext& ctx, bool reports_required);

// The status and health of `reports` (status_report.h's BuildStatusReport with the scrub checks
// of scrub_health.h added) with its usage (capacity.h's BuildUsage; left empty when that fails,
// which a map from MapStore never makes it). `cluster_id` as BuildStatusReport's. Errors:
// BuildStatusReport's and ScrubHealthChecks', for a map MapStore would refuse.
Result<StatusReport> BuildClusterStatus(const ClusterReports& reports, std::string cluster_id);

}  // namespace ec::cluster::admin
