// The options of ec-osd's components from its configuration (common/config.h OsdConfig), written
// once: ec_osd_main.cc builds the components with them, and ApplyLiveOptions retunes the running
// ones with the same functions when a live option changes (runtime_config.h).
//
// Where each live option (OptionUpdate::kLive) goes:
//   log_level                                  the daemon's logger (spdlog's level is atomic)
//   osd_min_size_wait, osd_max_object_size,    the PG primary (Primary::Tune: from the next
//   osd_max_backfills, osd_recovery_max_active, operation, the next recovery round)
//   osd_recovery_sleep, osd_recovery_max_chunk,
//   osd_recovery_max_bytes_per_sec,
//   osd_recovery_max_network_bytes_per_sec
//   osd_recovery_max_active, osd_recovery_max_chunk   the pull service's windows
//   (PullService::Tune) osd_scrub_min_interval, osd_deep_scrub_interval,  the scrub scheduler
//   (ScrubScheduler::Retune: osd_scrub_sleep, osd_max_scrubs,                  from its next pass)
//   osd_scrub_auto_repair
//   mon_osd_down_out_interval,                 this OSD's monitor candidate (Monitor: next tick)
//   mon_osd_min_down_reporters,
//   mon_osd_reporter_subtree_level
//   osd_pool_default_flag_ec_optimizations     read by ec-admin at each `osd pool create`
//   bdev_inject_read_eio, bdev_inject_write_eio, the device (WatchedDevice::SetFaults: from the
//   bdev_inject_stall_ms                       next request)
//   osd_pool_default_size, _min_size           read by ec-admin at each replicated pool create
//   osd_op_thread_timeout,                     the device watchdog (DeviceWatch::SetTimeouts:
//   osd_op_thread_suicide_timeout              from its next poll)
//
// Thread safety: pure functions; ApplyLiveOptions calls thread-safe setters (any thread).
#pragma once

#include <memory>

#include "common/config.h"
#include "osd/daemon/cluster_membership.h"
#include "osd/daemon/device_watch.h"
#include "osd/pg/primary.h"
#include "osd/pg/pull_service.h"
#include "osd/pg/scrub_scheduler.h"
#include "osd/store/watched_device.h"

namespace spdlog {
class logger;
}

namespace ec::osd::daemon {

pg::PrimaryTunables PrimaryTunablesFor(const OsdConfig& c);
pg::ScrubSchedule ScrubScheduleFor(const OsdConfig& c);
// The faults bdev_inject_* ask the device to play (the config checked their values; a value that
// does not parse plays no fault).
store::DeviceFaults DeviceFaultsFor(const OsdConfig& c);

// The running components a live option reaches; any may be null (not running: an OSD outside a
// cluster has no primary, scrubs or monitor). Borrowed.
struct LiveTargets {
  spdlog::logger* log = nullptr;
  pg::Primary* primary = nullptr;
  pg::PullService* pulls = nullptr;
  pg::ScrubScheduler* scrubs = nullptr;
  ClusterMembership* membership = nullptr;
  store::WatchedDevice* device = nullptr;
  DeviceWatch* device_watch = nullptr;
};

// Gives every target the live options of `c` (the table above); restart-only options are not
// read.
void ApplyLiveOptions(const OsdConfig& c, const LiveTargets& targets);

}  // namespace ec::osd::daemon
