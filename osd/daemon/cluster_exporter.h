// The cluster-level Prometheus exporter in ec-osd (issue 29 item 5), the page of /metrics/cluster
// (http_server.h). ceph-mgr's prometheus module runs in the active mgr; ecstore's runs in the
// elected monitor: the ec-osd whose cluster::Monitor is leader renders the cluster's metrics
// (cluster/admin/prometheus_exporter.h) from etcd at each scrape; every other OSD answers an empty
// page, as ceph-mgr's standbys do, so that a Prometheus scraping every OSD's /metrics/cluster gets
// each series once. When the leader changes, the new one answers from its next scrape on.
//
// Thread safety: the callback may be called from any thread (the HTTP server's); the membership
// and the etcd client are borrowed and must outlive it.
#pragma once

#include "cluster/etcd/etcd_client.h"
#include "common/config.h"
#include "osd/daemon/cluster_membership.h"
#include "osd/daemon/http_server.h"

namespace ec::osd::daemon {

// The page: "" when this OSD is not the elected monitor, else ScrapeClusterMetrics over `client`
// at config.etcd_prefix (errors: an unreachable etcd, named by config.etcd_endpoints; a map that
// does not parse). The callback owns what it needs besides the borrowed pointers.
HttpServer::TextCallback ClusterMetricsPage(const OsdConfig& config, const etcd::Client* client,
                                            const ClusterMembership* membership);

}  // namespace ec::osd::daemon
