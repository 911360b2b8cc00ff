#include "osd/daemon/component_options.h"

#include <spdlog/logger.h>

#include <algorithm>

#include "osd/daemon/logging.h"

namespace ec::osd::daemon {

pg::PrimaryTunables PrimaryTunablesFor(const OsdConfig& c) {
  pg::PrimaryTunables t;
  t.min_size_wait = c.osd_min_size_wait;
  t.max_object_size = c.osd_max_object_size;
  t.recovery.max_backfills = static_cast<int>(c.osd_max_backfills);
  t.recovery.max_active = static_cast<int>(c.osd_recovery_max_active);
  t.recovery.sleep = c.osd_recovery_sleep;
  t.recovery.max_chunk = c.osd_recovery_max_chunk;
  t.recovery.bytes_per_sec = c.osd_recovery_max_bytes_per_sec;
  t.recovery.network_bytes_per_sec = c.osd_recovery_max_network_bytes_per_sec;
  return t;
}

pg::ScrubSchedule ScrubScheduleFor(const OsdConfig& c) {
  pg::ScrubSchedule s;
  s.min_interval = c.osd_scrub_min_interval;
  s.deep_interval = c.osd_deep_scrub_interval;
  s.sleep = c.osd_scrub_sleep;
  s.max_scrubs = static_cast<int>(c.osd_max_scrubs);
  s.auto_repair = c.osd_scrub_auto_repair;
  s.nice = static_cast<int>(c.osd_recovery_nice);
  return s;
}

store::DeviceFaults DeviceFaultsFor(const OsdConfig& c) {
  const auto ranges = [](const std::string& text) {
    store::FaultRanges out;
    Result<ByteRanges> parsed = ParseByteRanges(text);
    if (parsed.ok()) {
      out.all = parsed->all;
      out.ranges = std::move(parsed->ranges);
    }
    return out;
  };
  return store::DeviceFaults{ranges(c.bdev_inject_read_eio), ranges(c.bdev_inject_write_eio),
                             c.bdev_inject_stall_ms};
}

void ApplyLiveOptions(const OsdConfig& c, const LiveTargets& t) {
  if (t.log != nullptr) {
    Result<spdlog::level::level_enum> level = ParseLogLevel(c.log_level);
    if (level.ok()) t.log->set_level(*level);
  }
  if (t.primary != nullptr) t.primary->Tune(PrimaryTunablesFor(c));
  if (t.pulls != nullptr) {
    t.pulls->Tune(std::max(1, static_cast<int>(c.osd_recovery_max_active)),
                  c.osd_recovery_max_chunk);
  }
  if (t.scrubs != nullptr) t.scrubs->Retune(ScrubScheduleFor(c));
  if (t.membership != nullptr) {
    t.membership->SetDownOutInterval(c.mon_osd_down_out_interval);
    t.membership->SetFailurePolicy(c.mon_osd_min_down_reporters, c.mon_osd_reporter_subtree_level);
  }
  if (t.device != nullptr) t.device->SetFaults(DeviceFaultsFor(c));
  if (t.device_watch != nullptr) {
    t.device_watch->SetTimeouts(c.osd_op_thread_timeout, c.osd_op_thread_suicide_timeout);
  }
}

}  // namespace ec::osd::daemon
