#include "osd/daemon/runtime_config.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "osd/daemon/cluster_membership.h"

namespace ec::osd::daemon {
namespace {

// The order of Ceph's sources, lowest first.
int Rank(const std::string& level) {
  if (level == "default") return 0;
  if (level == "file") return 1;
  if (level == "mon") return 2;
  return 3;  // cmdline
}

// `overrides` with {level, value} in its place by rank (replacing one of the same level).
std::vector<std::pair<std::string, std::string>> WithOverride(
    std::vector<std::pair<std::string, std::string>> overrides, const std::string& level,
    const std::string& value) {
  std::erase_if(overrides, [&](const auto& o) { return o.first == level; });
  auto at = std::find_if(overrides.begin(), overrides.end(),
                         [&](const auto& o) { return Rank(o.first) > Rank(level); });
  overrides.insert(at, {level, value});
  return overrides;
}

std::string Describe(const OsdConfig::Source& s) {
  return fmt::format("{} ({})", s.value.empty() ? "''" : s.value, s.origin);
}

}  // namespace

Result<cluster::ConfigDb> LoadStartupSettings(const OsdConfig& file_config) {
  Result<etcd::ClientOptions> options = EtcdOptionsFor(file_config);
  if (!options.ok()) return options.status();
  const etcd::Client client(*options);
  return cluster::LoadConfigDb(client, file_config.etcd_prefix);
}

RuntimeConfig::RuntimeConfig(std::string file_text, std::string file_name, int osd_id,
                             std::vector<ConfigOverride> overrides, OsdConfig started,
                             std::vector<MonSetting> started_mon, Hooks hooks,
                             std::shared_ptr<spdlog::logger> log)
    : file_text_(std::move(file_text)),
      file_name_(std::move(file_name)),
      osd_id_(osd_id),
      overrides_(std::move(overrides)),
      started_(std::move(started)),
      hooks_(std::move(hooks)),
      log_(log ? std::move(log) : spdlog::default_logger()),
      in_force_(started_),
      last_mon_(std::move(started_mon)) {
  LogOnce(started_.mon_ignored, &logged_ignored_, "ignored");
}

void RuntimeConfig::LogOnce(const std::vector<std::string>& lines, std::set<std::string>* seen,
                            const char* what) {
  for (const std::string& line : lines) {
    if (seen->count(line) == 0) log_->warn("config: {}: {}", what, line);
  }
  *seen = std::set<std::string>(lines.begin(), lines.end());
}

void RuntimeConfig::Update(const std::vector<MonSetting>& mon) {
  if (mon == last_mon_) return;
  last_mon_ = mon;
  Result<OsdConfig> resolved = ParseOsdConfig(file_text_, file_name_, osd_id_, overrides_, mon);
  if (!resolved.ok()) {
    if (resolved.status().message() != logged_failure_) {
      log_->warn("config: the cluster's settings do not resolve; keeping those in force: {}",
                 resolved.status().message());
      logged_failure_ = resolved.status().message();
    }
    return;
  }
  logged_failure_.clear();
  LogOnce(resolved->mon_ignored, &logged_ignored_, "ignored");
  OsdConfig next = std::move(resolved).value();
  std::map<std::string, std::pair<std::string, std::string>> pending;
  std::vector<std::string> changes, pending_lines;
  bool report_changed = false;
  {
    std::lock_guard lock(mu_);
    for (const OptionSpec& spec : OsdOptionTable()) {
      const std::string name(spec.name);
      OsdConfig::Source& want = next.effective.at(name);
      if (spec.update == OptionUpdate::kLive) {
        const OsdConfig::Source& now = in_force_.effective.at(name);
        if (want.value != now.value) {
          changes.push_back(fmt::format("{} = {}, was {}", name, Describe(want), Describe(now)));
        }
        continue;
      }
      const OsdConfig::Source& start = started_.effective.at(name);
      if (want.value != start.value) {
        pending[name] = {want.level, want.value};
        pending_lines.push_back(fmt::format("{} = {} cannot change at runtime: running with {}",
                                            name, Describe(want), Describe(start)));
      }
      want = start;
    }
    report_changed = next.effective != in_force_.effective || pending != pending_;
    in_force_ = next;
    pending_ = std::move(pending);
  }
  for (const std::string& c : changes) log_->info("config: {}", c);
  LogOnce(pending_lines, &logged_pending_, "at the next start");
  if (!changes.empty() && hooks_.apply) hooks_.apply(next);
  if (report_changed) Publish();
}

void RuntimeConfig::Publish() {
  if (!hooks_.publish) return;
  Status st = hooks_.publish(Report());
  if (!st.ok()) log_->warn("config: publishing the running config: {}", st.message());
}

cluster::RunningConfig RuntimeConfig::Report() const {
  cluster::RunningConfig r;
  r.osd = osd_id_;
  r.stamp_ms = hooks_.now_ms ? hooks_.now_ms()
                             : std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
  std::lock_guard lock(mu_);
  for (const OptionSpec& spec : OsdOptionTable()) {
    const std::string name(spec.name);
    const OsdConfig::Source& s = in_force_.effective.at(name);
    cluster::RunningOption o{name, s.value, s.level, s.overrides, false};
    if (auto p = pending_.find(name); p != pending_.end()) {
      o.overrides = WithOverride(std::move(o.overrides), p->second.first, p->second.second);
      o.ignores_mon = true;
    }
    r.options.push_back(std::move(o));
  }
  return r;
}

nlohmann::json RuntimeConfig::StatusJson() const {
  nlohmann::json out = nlohmann::json::object();
  std::lock_guard lock(mu_);
  for (const auto& [name, s] : in_force_.effective) {
    out[name] = {{"value", s.value}, {"origin", s.origin}, {"source", s.level}};
    if (auto p = pending_.find(name); p != pending_.end()) out[name]["pending"] = p->second.second;
  }
  return out;
}

}  // namespace ec::osd::daemon
