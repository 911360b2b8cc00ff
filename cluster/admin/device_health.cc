#include "cluster/admin/device_health.h"

#include <fmt/format.h>

#include <string>

namespace ec::cluster::admin {

namespace {

std::string Osds(std::size_t n) {
  return n == 1 ? "1 osd has" : fmt::format("{} osds have", n);
}

}  // namespace

std::vector<HealthCheck> DeviceHealthChecks(const ClusterMap& map,
                                            const std::map<int, OsdStatsReport>& osds) {
  HealthCheck errors{"OSD_DEVICE_ERRORS", "HEALTH_WARN", "", 0, {}};
  HealthCheck slow{"OSD_SLOW_DEVICE", "HEALTH_WARN", "", 0, {}};
  for (const auto& [id, report] : osds) {
    const auto osd = map.osds.find(id);
    if (osd == map.osds.end()) continue;
    const OsdDeviceHealth& d = report.device;
    if (d.read_errors > 0 || d.write_errors > 0) {
      ++errors.count;
      if (errors.detail.size() < kMaxDetail) {
        errors.detail.push_back(
            fmt::format("osd.{} (host={}, {}, {}): {} read errors, {} write errors on its device",
                        id, osd->second.host, osd->second.up ? "up" : "down",
                        osd->second.in ? "in" : "out", d.read_errors, d.write_errors));
      }
    }
    if (osd->second.up && report.slow_ops_interval > 0) {
      ++slow.count;
      if (slow.detail.size() < kMaxDetail) {
        slow.detail.push_back(fmt::format(
            "osd.{} (host={}): {} device requests slower than bdev_slow_op_ms in its last report "
            "interval",
            id, osd->second.host, report.slow_ops_interval));
      }
    }
  }
  std::vector<HealthCheck> out;
  if (errors.count > 0) {
    errors.summary = Osds(errors.count) + " device I/O errors";
    out.push_back(std::move(errors));
  }
  if (slow.count > 0) {
    slow.summary = Osds(slow.count) + " slow device requests";
    out.push_back(std::move(slow));
  }
  return out;
}

}  // namespace ec::cluster::admin
