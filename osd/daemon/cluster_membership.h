// ClusterMembership: what an ec-osd does in a cluster (etcd_endpoints set): it registers and holds
// its liveness lease (cluster/liveness/osd_registration.h), stands as a monitor candidate when
// osd_mon_role is set (cluster/liveness/monitor.h), follows the cluster map
// (cluster/map/map_watcher.h), recording each epoch it receives and when, and pings its peers,
// reporting those that do not answer (heartbeat.h). A map that says this OSD is down while it
// holds its lease wakes the registration at once; it boots again when its heartbeat is healthy,
// and when it was marked down so more than osd_max_markdown_count times within
// osd_max_markdown_period, gave_up() turns true and the daemon exits (as Ceph's OSD does).
//
// Start fails (and the daemon exits 1) when the endpoints do not parse, public_addr is a wildcard
// (the map needs an address others can reach), or the boot is refused (another store's id, a
// daemon of this id still alive: osd_registration.h) or cannot reach etcd within twice the grace
// (at least 5 s). Once started, losing etcd does not stop the daemon: it serves with its last map
// and the pieces retry.
//
// Thread safety: Start/Stop from the main thread; StatusJson and the gauge from any.
#pragma once

#include <spdlog/logger.h>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "cluster/liveness/monitor.h"
#include "cluster/liveness/osd_registration.h"
#include "cluster/map/map_holder.h"
#include "cluster/map/map_watcher.h"
#include "common/config.h"
#include "common/metrics.h"
#include "common/status.h"
#include "osd/daemon/heartbeat.h"

namespace ec::osd::daemon {

// The etcd client of a daemon's configuration (etcd_endpoints, etcd_op_timeout, the TLS files,
// etcd_user and etcd_password_file): made once per distinct settings in the process and shared
// (one TLS context, one etcd token). Errors: etcd::MakeClientOptions's, e.g. EINVAL
// "etcd_endpoints '...': <why>" when they do not parse (or are empty).
Result<etcd::ClientOptions> EtcdOptionsFor(const OsdConfig& c);

class ClusterMembership {
 public:
  // `port` is the messenger's actual port; `store_uuid` the store's superblock uuid. Every map
  // received goes to `maps` (borrowed: it must outlive the membership), where the PG primary
  // reads it. `auth` is how the heartbeat's ping connections authenticate (the daemon's osd.N
  // key with auth_cluster_required = cephx; osd_auth.h).
  static Result<std::unique_ptr<ClusterMembership>> Start(
      const OsdConfig& config, std::uint16_t port, const std::string& store_uuid,
      MetricsRegistry* metrics, cluster::MapHolder* maps, std::shared_ptr<spdlog::logger> log,
      msg::ClientAuth auth = {});
  ~ClusterMembership();  // Stop()

  // A clean leave: marks this OSD down in the map (one epoch), resigns the monitor role, stops
  // following the map. Idempotent.
  void Stop();

  // A new mon_osd_down_out_interval for this OSD's monitor candidate (none without osd_mon_role:
  // nothing to do). Thread safety: any thread.
  void SetDownOutInterval(std::chrono::milliseconds interval);
  // New mon_osd_min_down_reporters and mon_osd_reporter_subtree_level for the monitor candidate
  // (a bad level is logged and ignored). Thread safety: any thread.
  void SetFailurePolicy(int min_down_reporters, const std::string& subtree_level);

  // The registration stopped booting again: marked down while alive too often (above).
  // Thread safety: any thread.
  bool gave_up() const;

  // Out of the map while `held` (the device watchdog: device_watch.h), back in when released
  // (OsdRegistration::Hold). Thread safety: any thread.
  void Hold(bool held, const std::string& why);

  // {"epoch", "epoch_received_ms", "up", "held", "boots", "lease", "markdowns",
  // "waiting_healthy", "gave_up", "mon_leader", "last_error", "heartbeat": {...}} for /status.
  nlohmann::json StatusJson() const;
  std::int64_t epoch() const { return epoch_.load(); }
  // Whether this OSD's monitor candidate is the elected leader now (false without osd_mon_role).
  bool mon_leader() const { return monitor_ && monitor_->is_leader(); }

  // Whether this OSD may act on its map as a PG primary: its liveness lease was renewed less than
  // the grace minus `margin` ago (so the monitor cannot have marked it down meanwhile, as after a
  // SIGSTOP past the grace), and its map is at least the one in which it last booted. A primary
  // that answers while this is false may act on a map in which it is no longer primary.
  // Thread safety: any thread.
  bool MayServe(std::chrono::milliseconds margin) const;

 private:
  ClusterMembership(std::shared_ptr<spdlog::logger> log, Gauge* epoch_gauge,
                    cluster::MapHolder* maps);
  void OnMap(const cluster::ClusterMap& map);

  std::shared_ptr<spdlog::logger> log_;
  Gauge* epoch_gauge_;
  std::atomic<std::int64_t> epoch_{0};
  std::atomic<std::int64_t> epoch_received_ms_{0};
  std::chrono::milliseconds grace_{0};
  std::unique_ptr<cluster::OsdRegistration> registration_;
  std::unique_ptr<cluster::Monitor> monitor_;
  std::unique_ptr<cluster::MapWatcher> watcher_;
  std::unique_ptr<Heartbeat> heartbeat_;
  // The heartbeat for the registration's thread, which may ask before heartbeat_ is set.
  std::atomic<const Heartbeat*> heartbeat_ptr_{nullptr};
  int osd_id_ = 0;
  mutable std::mutex mu_;
  std::string watch_error_;
  cluster::MapHolder* maps_;  // borrowed
};

}  // namespace ec::osd::daemon
