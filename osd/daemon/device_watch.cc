#include "osd/daemon/device_watch.h"

#include "cluster/map/map_store.h"

namespace ec::osd::daemon {

DeviceWatch::DeviceWatch(const store::WatchedDevice* device, MetricsRegistry* metrics)
    : device_(device),
      read_errors_(metrics->GetCounter("ecstore_osd_device_errors_total",
                                       "Device requests that failed (failed flushes count as "
                                       "writes)",
                                       {{"op", "read"}})),
      write_errors_(metrics->GetCounter("ecstore_osd_device_errors_total",
                                        "Device requests that failed (failed flushes count as "
                                        "writes)",
                                        {{"op", "write"}})),
      slow_ops_(metrics->GetCounter("ecstore_osd_device_slow_ops_total",
                                    "Device requests and flushes slower than bdev_slow_op_ms")) {}

bool DeviceWatch::Poll() {
  const store::DeviceErrorCounts now = device_->counts();
  // The device's counts only grow: the metrics advance by the change.
  read_errors_.Inc(now.read_errors - seen_.read_errors);
  write_errors_.Inc(now.write_errors - seen_.write_errors);
  slow_ops_.Inc(now.slow_ops - seen_.slow_ops);
  seen_ = now;
  return now.write_errors > 0;
}

Status TakeOutOfService(const cluster::MapStore& store, int osd_id) {
  auto applied = store.Apply({cluster::MapChange::OsdOut(osd_id, true)});
  return applied.ok() ? Status::OK() : applied.status();
}

}  // namespace ec::osd::daemon
