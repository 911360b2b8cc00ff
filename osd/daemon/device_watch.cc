#include "osd/daemon/device_watch.h"

#include "cluster/map/map_store.h"

namespace ec::osd::daemon {

DeviceWatch::DeviceWatch(const store::WatchedDevice* device, MetricsRegistry* metrics,
                         std::chrono::milliseconds hang_timeout,
                         std::chrono::milliseconds suicide_timeout)
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
                                    "Device requests and flushes slower than bdev_slow_op_ms")),
      oldest_op_(metrics->GetGauge("ecstore_osd_device_oldest_op_milliseconds",
                                   "How long the oldest device request in progress has run")),
      hang_ms_(hang_timeout.count()),
      suicide_ms_(suicide_timeout.count()) {}

void DeviceWatch::SetTimeouts(std::chrono::milliseconds hang, std::chrono::milliseconds suicide) {
  hang_ms_.store(hang.count());
  suicide_ms_.store(suicide.count());
}

DeviceVerdict DeviceWatch::Poll() {
  const store::DeviceErrorCounts now = device_->counts();
  // The device's counts only grow: the metrics advance by the change.
  read_errors_.Inc(now.read_errors - seen_.read_errors);
  write_errors_.Inc(now.write_errors - seen_.write_errors);
  slow_ops_.Inc(now.slow_ops - seen_.slow_ops);
  seen_ = now;
  DeviceVerdict v;
  v.write_failed = now.write_errors > 0;
  v.oldest = std::chrono::duration_cast<std::chrono::milliseconds>(device_->OldestInProgress());
  oldest_op_.Set(v.oldest.count());
  const std::int64_t hang = hang_ms_.load(), suicide = suicide_ms_.load();
  v.hung = hang > 0 && v.oldest.count() >= hang;
  v.suicide = suicide > 0 && v.oldest.count() >= suicide;
  return v;
}

Status TakeOutOfService(const cluster::MapStore& store, int osd_id) {
  auto applied = store.Apply({cluster::MapChange::OsdOut(osd_id, true)});
  return applied.ok() ? Status::OK() : applied.status();
}

}  // namespace ec::osd::daemon
