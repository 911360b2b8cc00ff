#include "cluster/admin/cluster_reports.h"

#include <utility>
#include <vector>

#include "cluster/admin/capacity.h"
#include "cluster/admin/commands.h"
#include "cluster/admin/device_health.h"
#include "cluster/admin/scrub_health.h"

namespace ec::cluster::admin {

Result<ClusterReports> LoadClusterReports(const AdminContext& ctx, bool reports_required) {
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return map.status();
  ClusterReports r;
  r.map = std::move(map).value();
  const etcd::Client* client = ctx.store->client();
  if (client == nullptr) return r;
  // Each part: kept when read; an error fails the load only when the reports are required.
  const auto take = [&](auto loaded, auto* into) -> Status {
    if (loaded.ok()) {
      *into = std::move(loaded).value();
      return Status::OK();
    }
    return reports_required ? FromStore(ctx, loaded.status()) : Status::OK();
  };
  EC_RETURN_IF_ERROR(take(LoadPgStats(*client, ctx.store->prefix()), &r.pgs));
  EC_RETURN_IF_ERROR(take(LoadScrubResults(*client, ctx.store->prefix()), &r.scrubs));
  EC_RETURN_IF_ERROR(take(LoadOsdStats(*client, ctx.store->prefix()), &r.osds));
  return r;
}

Result<StatusReport> BuildClusterStatus(const ClusterReports& reports, std::string cluster_id) {
  Result<StatusReport> report = BuildStatusReport(reports.map, std::move(cluster_id), reports.pgs);
  if (!report.ok()) return report;
  Result<std::vector<HealthCheck>> scrub_checks =
      ScrubHealthChecks(reports.map, reports.pgs, reports.scrubs);
  if (!scrub_checks.ok()) return scrub_checks.status();
  AddHealthChecks(std::move(scrub_checks).value(), &*report);
  AddHealthChecks(DeviceHealthChecks(reports.map, reports.osds), &*report);
  Result<ClusterUsage> usage = BuildUsage(reports.map, reports.pgs, reports.osds);
  if (usage.ok()) report->usage = std::move(usage).value();
  return report;
}

}  // namespace ec::cluster::admin
