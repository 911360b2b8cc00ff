#include "osd/daemon/cluster_exporter.h"

#include <memory>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/prometheus_exporter.h"
#include "cluster/map/map_store.h"

namespace ec::osd::daemon {
namespace {

// What a scrape reads etcd through (the admin context points at the store).
struct Scraper {
  Scraper(const OsdConfig& config, const etcd::Client* client) : store(client, config.etcd_prefix) {
    ctx.store = &store;
    ctx.etcd_endpoints = config.etcd_endpoints;
  }
  cluster::MapStore store;
  cluster::admin::AdminContext ctx;
};

}  // namespace

HttpServer::TextCallback ClusterMetricsPage(const OsdConfig& config, const etcd::Client* client,
                                            const ClusterMembership* membership) {
  auto scraper = std::make_shared<const Scraper>(config, client);
  return [scraper, membership]() -> Result<std::string> {
    if (!membership->mon_leader()) return std::string();
    return cluster::admin::ScrapeClusterMetrics(scraper->ctx);
  };
}

}  // namespace ec::osd::daemon
