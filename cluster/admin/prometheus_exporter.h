// The cluster-level Prometheus exporter (issue 29 item 5): the cluster's state with the metric
// names, labels, types and help texts of ceph-mgr's prometheus module
// (src/pybind/mgr/prometheus/module.py) for what ecstore and Ceph both have, so that Ceph's
// Grafana dashboards show an ecstore cluster. Served by the elected monitor's ec-osd at
// /metrics/cluster (osd/daemon/http_server.h) and printed once by `ec-admin exporter`.
// Each OSD's own /metrics keeps its ecstore_ names (common/metrics.h).
//
// What is exported, from ClusterReports (cluster_reports.h), in this order:
//
//   ceph_health_status                untyped  0 HEALTH_OK, 1 HEALTH_WARN, 2 HEALTH_ERR: the
//                                              status of `ec-admin health` (BuildClusterStatus)
//   ceph_health_detail{name,severity} gauge    1 per active check ("OSD_DOWN", "HEALTH_WARN");
//                                              ecstore keeps no history of checks gone (Ceph's 0s)
//   ceph_osd_flag_<flag>              untyped  1 when set: noout norecover nobackfill noscrub
//                                              nodeep_scrub (Ceph's names of ecstore's flags)
//   ceph_osd_metadata{ceph_daemon,hostname,public_addr,cluster_addr,device_class,objectstore,
//                     back_iface,front_iface,ceph_version}
//                                     untyped  1 per OSD of the map with an address: its host,
//                                              its address's IP (public and cluster: ecstore
//                                              has one network), class "ssd" (as `osd df`),
//                                              objectstore "ecstore", ifaces and version ""
//                                              (not known to the map)
//   ceph_osd_up, ceph_osd_in, ceph_osd_weight{ceph_daemon}
//                                     untyped  per OSD of the map: 1/0; weight the reweight
//                                              (1 in, 0 out), as Ceph's osd_map "weight"
//   ceph_pool_metadata{pool_id,name,type,description,compression_mode}
//                                     untyped  1 per pool: "erasure", "ec:4+2", "none"
//   ceph_cluster_total_bytes, _total_used_bytes, _total_used_raw_bytes
//                                     gauge    `df`'s SIZE and RAW USED (capacity.h)
//   ceph_pool_{max_avail,avail_raw,stored,stored_raw,objects,dirty,quota_bytes,quota_objects,
//              rd,rd_bytes,wr,wr_bytes,compress_bytes_used,compress_under_bytes,bytes_used,
//              percent_used}{pool_id}
//                                     gauge (rd, wr and their bytes: counter)  `df detail`'s
//                                              figures: avail_raw = max_avail x size / k,
//                                              stored_raw = bytes_used = USED, percent_used
//                                              0..1; dirty, quotas, compression 0 (ecstore has
//                                              none); rd/wr summed over every OSD's report
//   ceph_num_objects_{degraded,misplaced,unfound}
//                                     gauge    as `-s` counts them (unfound: the pools' sum)
//   ceph_pg_total{pool_id}            gauge    the pool's PGs
//   ceph_pg_<state>{pool_id}          gauge    the pool's PGs whose state has the word, for every
//                                              word of Ceph's PG_STATES (0 for those ecstore
//                                              never shows), states as `-s` shows them
//                                              (pg_view.h)
//   ceph_osd_apply_latency_ms, ceph_osd_commit_latency_ms{ceph_daemon}
//                                     gauge    `osd perf`'s figures (up OSDs that reported)
//   per OSD up in the map with a report (osd_stats.h), as ceph-mgr exports each OSD's perf
//   counters, label ceph_daemon:
//   ceph_osd_op_r, ceph_osd_op_w      counter  client reads / writes served as PG primary
//   ceph_osd_op_r_out_bytes, ceph_osd_op_w_in_bytes
//                                     counter  their payload bytes
//   ceph_osd_op_r_latency_sum, _count counter  seconds the reads took (received to answered,
//   ceph_osd_op_w_latency_sum, _count          queue included) and how many; Ceph's
//                                              long-running averages, with help "... Total" and
//                                              "... Count"
//   ceph_osd_numpg                    gauge    PGs whose up set holds the OSD
//   ceph_osd_stat_bytes, _stat_bytes_used, _stat_bytes_avail
//                                     gauge    its device's size, used and free bytes
//
// Help texts are Ceph's ("Cluster health status", "DF pool stored", "PG active per pool",
// "Client read operations", ...). Not exported: what ecstore does not have (MONs and MGRs, MDS,
// RGW, RBD, quotas' use, per-pool recovery rates, disk occupation by device node) and ecstore's
// own figures under ceph_ names.
//
// Thread safety: RenderClusterMetrics is a pure function; ScrapeClusterMetrics as
// LoadClusterReports.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/cluster_reports.h"
#include "common/status.h"

namespace ec::cluster::admin {

// Ceph's PG_STATES (src/pybind/mgr/mgr_module.py, "Full list of strings in
// osd_types.cc:pg_state_string()"): the words of ceph_pg_<state>, in Ceph's order.
const std::array<std::string_view, 34>& CephPgStates();

// The metrics above in the Prometheus text format 0.0.4 (common/metrics.h PrometheusText): every
// family always has its HELP and TYPE lines, samples only where the above says. Errors: only
// BuildClusterStatus's and ViewPgs', for a map MapStore would refuse.
Result<std::string> RenderClusterMetrics(const ClusterReports& reports);

// Loads the map and every report (LoadClusterReports, every part required: a scrape never shows
// a cluster with its reports missing) and renders them. Errors: the load's (an unreachable etcd
// names the configured endpoints) and RenderClusterMetrics'.
Result<std::string> ScrapeClusterMetrics(const AdminContext& ctx);

}  // namespace ec::cluster::admin
