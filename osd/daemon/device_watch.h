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
// A device that hangs (a request in progress for longer than osd_op_thread_timeout, Ceph's name
// for an op thread stuck that long) makes the OSD leave the map until the device answers again:
// its messenger serves small reads inline and would hang with it, while its liveness lease, kept
// on a thread of its own, kept it up and its PGs waiting. Held out (cluster_membership.h), it is
// marked down, its PGs peer without it and reads decode from the other shards; once no request
// has hung that long it boots again. A request in progress past osd_op_thread_suicide_timeout
// ends the process (Ceph's suicide timeout): the store's journal makes that a crash it recovers
// from at the next start, and a supervisor (systemd) restarts it.
//
// Thread safety: Poll from one thread (the main loop); SetTimeouts from any (a live option).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "common/metrics.h"
#include "common/status.h"
#include "osd/store/watched_device.h"

namespace ec::cluster {
class MapStore;
}

namespace ec::osd::daemon {

// What a Poll found.
struct DeviceVerdict {
  bool write_failed = false;            // the device has failed a write (and from then on)
  bool hung = false;                    // a request in progress for osd_op_thread_timeout or longer
  bool suicide = false;                 // ... for osd_op_thread_suicide_timeout or longer
  std::chrono::milliseconds oldest{0};  // the oldest request in progress has run this long
};

class DeviceWatch {
 public:
  // Borrowed: both must outlive the watch. A timeout of 0 turns its check off.
  DeviceWatch(const store::WatchedDevice* device, MetricsRegistry* metrics,
              std::chrono::milliseconds hang_timeout, std::chrono::milliseconds suicide_timeout);

  // Updates the metrics (and ecstore_osd_device_oldest_op_milliseconds) and judges the device.
  DeviceVerdict Poll();
  void SetTimeouts(std::chrono::milliseconds hang, std::chrono::milliseconds suicide);

 private:
  const store::WatchedDevice* device_;
  Counter& read_errors_;
  Counter& write_errors_;
  Counter& slow_ops_;
  Gauge& oldest_op_;
  std::atomic<std::int64_t> hang_ms_;
  std::atomic<std::int64_t> suicide_ms_;
  store::DeviceErrorCounts seen_;
};

// Marks osd `osd_id` out in the map (automatic, as the monitor's outs), so that recovery
// rebuilds its shards elsewhere without waiting for mon_osd_down_out_interval. Errors: the map
// store's (etcd unreachable, ...).
Status TakeOutOfService(const cluster::MapStore& store, int osd_id);

}  // namespace ec::osd::daemon
