// RuntimeConfig: ec-osd's options while it runs, as the cluster's central config changes
// (`ec-admin config set`; cluster/config/config_db.h).
//
// At start the daemon resolves its options once from ecstore.conf, etcd's settings (read with
// LoadStartupSettings) and --set (common/config.h gives the precedence). Afterwards each new
// state of etcd's settings (cluster/config/config_watcher.h) goes to Update, which resolves the
// file's text as read at start (the file is not read again, as Ceph's daemons do not), the new
// settings and --set again, and compares with what is in force:
//   - a live option (OptionUpdate::kLive) that changed takes its new value at once: `apply` gets
//     the configuration in force (it must read only live options from it: component_options.h
//     says where each goes) and each change is logged ("config: osd_max_backfills = 4 (mon osd),
//     was 1 (default)");
//   - a restart-only option keeps the value it started with; the new one is logged once and
//     reported ("ignores":"mon" with the new value among the overrides, running_config.h) until
//     the next start, which takes it;
//   - a setting that cannot apply (an unknown option, a bad value, an option only the file may
//     set) is logged once as ignored (a bad value in etcd never stops or changes the daemon); a
//     resolution that fails as a whole (a string whose $variable does not expand) changes
//     nothing and is logged.
// Each Update that changes what is reported publishes the running config (`publish`), as does
// Publish() at start, so that `ec-admin config show osd.N` shows it.
//
// Thread safety: Update and Publish from one thread at a time (the watcher's, or main before the
// watcher starts); Report and StatusJson from any thread.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "cluster/config/config_db.h"
#include "cluster/config/running_config.h"
#include "cluster/etcd/etcd_client.h"
#include "common/config.h"
#include "common/status.h"

namespace spdlog {
class logger;
}

namespace ec::osd::daemon {

// The settings of the cluster's central config for a daemon starting with `file_config` (its
// etcd_endpoints, etcd_prefix, etcd_op_timeout). Errors: EtcdOptionsFor's, etcd's.
Result<cluster::ConfigDb> LoadStartupSettings(const OsdConfig& file_config);

class RuntimeConfig {
 public:
  struct Hooks {
    // The configuration in force after a live option changed (read only live options).
    std::function<void(const OsdConfig&)> apply;
    // Publishes the running config; null: nothing is published (an OSD outside a cluster).
    std::function<Status(const cluster::RunningConfig&)> publish;
    // Wall clock in ms for the report's stamp; null: the system clock.
    std::function<std::int64_t()> now_ms;
  };

  // `file_text` and `file_name`: ecstore.conf as read at start ("" and "(no config file)"
  // without one); `overrides` the --set options; `started` the configuration the daemon started
  // with (resolved from these and `started_mon`, etcd's settings at start).
  RuntimeConfig(std::string file_text, std::string file_name, int osd_id,
                std::vector<ConfigOverride> overrides, OsdConfig started,
                std::vector<MonSetting> started_mon, Hooks hooks,
                std::shared_ptr<spdlog::logger> log);

  // A new state of etcd's settings (see the header).
  void Update(const std::vector<MonSetting>& mon);
  // Publishes the report now (at start). Errors are logged.
  void Publish();

  // What `config show` shows: every option in the table's order (running_config.h).
  cluster::RunningConfig Report() const;
  // /status's "config": {"name": {"value", "origin", "source"[, "pending"]}} (origin as
  // OsdConfig::Source::origin; pending: a restart-only option's new value, for the next start).
  nlohmann::json StatusJson() const;

 private:
  // Logs each of `lines` not logged by the previous call with this `seen` set.
  void LogOnce(const std::vector<std::string>& lines, std::set<std::string>* seen,
               const char* what);

  const std::string file_text_;
  const std::string file_name_;
  const int osd_id_;
  const std::vector<ConfigOverride> overrides_;
  const OsdConfig started_;
  const Hooks hooks_;
  const std::shared_ptr<spdlog::logger> log_;

  mutable std::mutex mu_;  // guards in_force_ and pending_
  // What is in force: effective holds the restart-only options as the daemon started; so do
  // their typed fields only in started_ (in_force_'s hold the newest values, unused).
  OsdConfig in_force_;
  // Restart-only option -> the source (Ceph's level) and value it would have at a start now.
  std::map<std::string, std::pair<std::string, std::string>> pending_;

  // Update's own (one thread at a time).
  std::vector<MonSetting> last_mon_;
  std::set<std::string> logged_ignored_;
  std::set<std::string> logged_pending_;
  std::string logged_failure_;
};

}  // namespace ec::osd::daemon
