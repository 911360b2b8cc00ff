// DeviceWatch: what ec-osd does about its device's health (osd/store/watched_device.h). Polled
// once a second by the daemon's main loop, it brings the device's counts into the metrics
// (ecstore_osd_device_errors_total{op="read"|"write"}, ecstore_osd_device_slow_ops_total) and
// says when the device has failed a write: from then on the store takes no transactions
// (object_store.h), so the OSD must leave service, as Ceph's OSDs stop on a failed write. The
// daemon then marks itself out (an automatic out: a restart on a good device marks it in again)
// and down, and exits; its PGs peer without it and recovery rebuilds its shards elsewhere. A read
// error only fails that read: the primary reads the shard's object from the others, and scrub
// repairs the shard.
//
// Thread safety: Poll from one thread (the main loop); SlowOpsSince from the stats publisher's
// thread (atomic counts).
#pragma once

#include <cstdint>

#include "common/metrics.h"
#include "common/status.h"
#include "osd/store/watched_device.h"

namespace ec::cluster {
class MapStore;
}

namespace ec::osd::daemon {

class DeviceWatch {
 public:
  // Borrowed: both must outlive the watch.
  DeviceWatch(const store::WatchedDevice* device, MetricsRegistry* metrics);

  // Updates the metrics; true once the device has failed a write (and from then on).
  bool Poll();

 private:
  const store::WatchedDevice* device_;
  Counter& read_errors_;
  Counter& write_errors_;
  Counter& slow_ops_;
  store::DeviceErrorCounts seen_;
};

// Marks osd `osd_id` out in the map (automatic, as the monitor's outs), so that recovery
// rebuilds its shards elsewhere without waiting for mon_osd_down_out_interval. Errors: the map
// store's (etcd unreachable, ...).
Status TakeOutOfService(const cluster::MapStore& store, int osd_id);

}  // namespace ec::osd::daemon
