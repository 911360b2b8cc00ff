// The device health checks from the OSDs' reports (device_health.h).
#include "cluster/admin/device_health.h"

#include <gtest/gtest.h>

namespace ec::cluster::admin {
namespace {

ClusterMap ThreeOsds() {
  ClusterMap map;
  for (int id = 0; id < 3; ++id) {
    OsdEntry e;
    e.id = id;
    e.host = "h" + std::to_string(id);
    e.up = true;
    map.osds[id] = e;
  }
  return map;
}

TEST(DeviceHealth, HealthyDevicesRaiseNothing) {
  std::map<int, OsdStatsReport> reports;
  for (int id = 0; id < 3; ++id) reports[id].osd = id;
  EXPECT_TRUE(DeviceHealthChecks(ThreeOsds(), reports).empty());
  EXPECT_TRUE(DeviceHealthChecks(ThreeOsds(), {}).empty());
}

TEST(DeviceHealth, ErrorsAndSlowRequestsAreNamedPerOsd) {
  ClusterMap map = ThreeOsds();
  map.osds[2].up = false;
  map.osds[2].in = false;
  std::map<int, OsdStatsReport> reports;
  reports[0].device.slow_ops = 9;
  reports[0].slow_ops_interval = 4;
  reports[1].device.read_errors = 2;
  reports[2].device.write_errors = 1;
  reports[2].slow_ops_interval = 7;   // down: its slowness is not current
  reports[9].device.read_errors = 5;  // not in the map
  const std::vector<HealthCheck> checks = DeviceHealthChecks(map, reports);
  ASSERT_EQ(checks.size(), 2u);
  EXPECT_EQ(checks[0].code, "OSD_DEVICE_ERRORS");
  EXPECT_EQ(checks[0].severity, "HEALTH_WARN");
  EXPECT_EQ(checks[0].summary, "2 osds have device I/O errors");
  EXPECT_EQ(checks[0].count, 2u);
  EXPECT_EQ(checks[0].detail,
            (std::vector<std::string>{
                "osd.1 (host=h1, up, in): 2 read errors, 0 write errors on its device",
                "osd.2 (host=h2, down, out): 0 read errors, 1 write errors on its device"}));
  EXPECT_EQ(checks[1].code, "OSD_SLOW_DEVICE");
  EXPECT_EQ(checks[1].summary, "1 osd has slow device requests");
  EXPECT_EQ(checks[1].detail,
            (std::vector<std::string>{"osd.0 (host=h0): 4 device requests slower than "
                                      "bdev_slow_op_ms in its last report interval"}));
}

}  // namespace
}  // namespace ec::cluster::admin
