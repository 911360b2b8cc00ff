#include "osd/daemon/cluster_membership.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <vector>

#include "cluster/etcd/http_connection.h"
#include "cluster/liveness/liveness_keys.h"
#include "cluster/map/map_store.h"

namespace ec::osd::daemon {
namespace {

bool IsWildcard(const std::string& addr) {
  return addr == "0.0.0.0" || addr == "::" || addr == "[::]";
}

std::string HostName(const OsdConfig& c) {
  if (!c.host.empty()) return c.host;
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  return buf;
}

}  // namespace

Result<etcd::ClientOptions> EtcdOptionsFor(const OsdConfig& c) {
  // One TLS context and one etcd identity per daemon: its parts (the membership, the auth
  // database, the central config, the reports) share one token, so a daemon's start costs etcd
  // one password check (bcrypt), not one per part.
  static std::mutex mu;
  static std::map<std::vector<std::string>, etcd::ClientOptions> made;
  std::vector<std::string> key = {c.etcd_endpoints,    std::to_string(c.etcd_op_timeout.count()),
                                  c.etcd_ca_file,      c.etcd_cert_file,
                                  c.etcd_key_file,     c.etcd_user,
                                  c.etcd_password_file};
  std::lock_guard lock(mu);
  if (auto it = made.find(key); it != made.end()) return it->second;
  auto options = etcd::MakeClientOptions({c.etcd_endpoints,
                                          c.etcd_op_timeout,
                                          {c.etcd_ca_file, c.etcd_cert_file, c.etcd_key_file},
                                          c.etcd_user,
                                          c.etcd_password_file});
  if (options.ok()) made.emplace(std::move(key), *options);
  return options;
}

ClusterMembership::ClusterMembership(std::shared_ptr<spdlog::logger> log, Gauge* epoch_gauge,
                                     cluster::MapHolder* maps)
    : log_(std::move(log)), epoch_gauge_(epoch_gauge), maps_(maps) {}

Result<std::unique_ptr<ClusterMembership>> ClusterMembership::Start(
    const OsdConfig& c, std::uint16_t port, const std::string& store_uuid, MetricsRegistry* metrics,
    cluster::MapHolder* maps, std::shared_ptr<spdlog::logger> log, msg::ClientAuth auth) {
  auto client_options = EtcdOptionsFor(c);
  if (!client_options.ok()) return client_options.status();
  if (IsWildcard(c.public_addr))
    return Status::Invalid("public_addr " + c.public_addr +
                           " is a wildcard; in a cluster the OSD needs an address others can "
                           "reach: set public_addr to one");
  const etcd::ClientOptions& client = *client_options;
  const std::string addr = c.public_addr.find(':') != std::string::npos
                               ? fmt::format("[{}]:{}", c.public_addr, port)
                               : fmt::format("{}:{}", c.public_addr, port);
  std::unique_ptr<ClusterMembership> m(new ClusterMembership(
      log, &metrics->GetGauge("ecstore_osd_map_epoch", "Epoch of the newest cluster map seen"),
      maps));
  auto logline = [log](const std::string& line) { log->info("{}", line); };

  cluster::RegistrationOptions ro;
  ro.osd_id = c.osd_id;
  ro.addr = addr;
  ro.host = HostName(c);
  ro.uuid = store_uuid;
  ro.network_bandwidth = c.osd_network_bandwidth;
  ro.prefix = c.etcd_prefix;
  ro.grace = c.osd_heartbeat_grace;
  // A daemon that cannot reach etcd says so and exits rather than hang (twice the grace, >= 5 s).
  ro.boot_timeout =
      std::max<std::chrono::milliseconds>(2 * c.osd_heartbeat_grace, std::chrono::seconds(5));
  ro.log = logline;
  ro.max_markdown_count = c.osd_max_markdown_count;
  ro.max_markdown_period = c.osd_max_markdown_period;
  // Booting again after a wrong markdown waits until enough peers answer (heartbeat.h).
  ro.may_boot = [p = m.get()] {
    const Heartbeat* h = p->heartbeat_ptr_.load();
    return h == nullptr || h->Healthy();
  };
  m->osd_id_ = c.osd_id;
  auto reg = cluster::OsdRegistration::Start(client, ro);
  if (!reg.ok())
    return Status::Error(reg.status().code(), "cannot join the cluster at " + c.etcd_endpoints +
                                                  ": " + reg.status().message());
  m->registration_ = std::move(*reg);
  // The lease lives its TTL (the grace in whole seconds, at least 2) from a little before renewal.
  m->grace_ = std::chrono::seconds(cluster::LeaseTtlSeconds(c.osd_heartbeat_grace));

  // Follow the map from the boot's epoch on.
  etcd::Client loader(client);
  cluster::MapStore store(&loader, c.etcd_prefix);
  auto initial = store.Load();
  if (!initial.ok()) {
    m->registration_->Stop(true);
    return Status::Error(initial.status().code(),
                         "cannot read the cluster map: " + initial.status().message());
  }
  m->OnMap(*initial);
  m->watcher_ = std::make_unique<cluster::MapWatcher>(
      client, c.etcd_prefix, *initial,
      [p = m.get()](const cluster::ClusterMap& map) { p->OnMap(map); },
      [p = m.get()](const Status& st) {
        p->log_->warn("cluster map watch: {}", st.message());
        std::lock_guard<std::mutex> lock(p->mu_);
        p->watch_error_ = st.message();
      });

  HeartbeatOptions ho;
  ho.osd_id = c.osd_id;
  ho.prefix = c.etcd_prefix;
  ho.grace = c.osd_heartbeat_grace;
  ho.interval = HeartbeatInterval(c.osd_heartbeat_interval, c.osd_heartbeat_grace);
  ho.auth = std::move(auth);
  ho.lease = [r = m->registration_.get()]() -> std::int64_t {
    const auto s = r->state();
    return s.up ? s.lease : 0;
  };
  auto hb = Heartbeat::Start(client, ho, maps, metrics, log);
  if (!hb.ok()) {
    m->Stop();
    return hb.status();
  }
  m->heartbeat_ = std::move(*hb);
  m->heartbeat_ptr_ = m->heartbeat_.get();

  if (c.osd_mon_role) {
    cluster::MonitorOptions mo;
    mo.name = fmt::format("osd.{}", c.osd_id);
    mo.prefix = c.etcd_prefix;
    mo.grace = c.osd_heartbeat_grace;
    mo.down_out_interval = c.mon_osd_down_out_interval;
    mo.min_down_reporters = c.mon_osd_min_down_reporters;
    auto subtree = cluster::ParseReporterSubtree(c.mon_osd_reporter_subtree_level);
    if (subtree.ok()) mo.reporter_subtree = *subtree;
    mo.log = logline;
    auto mon = cluster::Monitor::Start(client, mo);
    if (!mon.ok()) {
      m->Stop();
      return mon.status();
    }
    m->monitor_ = std::move(*mon);
  }
  return m;
}

ClusterMembership::~ClusterMembership() {
  Stop();
}

void ClusterMembership::OnMap(const cluster::ClusterMap& map) {
  epoch_received_ms_ = cluster::WallClockMs();
  epoch_ = map.epoch;
  epoch_gauge_->Set(map.epoch);
  maps_->Set(map);
  log_->debug("cluster map epoch {}", map.epoch);
  // Down in the map while the registration believes it is up: it looks now, not at its next
  // renewal (a lost lease, or Ceph's "wrongly marked me down").
  if (registration_) {
    const auto it = map.osds.find(osd_id_);
    if (it != map.osds.end() && !it->second.up && registration_->state().up) registration_->Kick();
  }
}

void ClusterMembership::Stop() {
  // The reports go first (they are bound to the lease revoked below anyway).
  if (heartbeat_) heartbeat_->Stop();
  // Down in the map first, so that nobody sends more work here while the rest shuts down.
  if (registration_) registration_->Stop(true);
  if (monitor_) monitor_->Stop(true);
  if (watcher_) watcher_->Stop();
}

void ClusterMembership::SetDownOutInterval(std::chrono::milliseconds interval) {
  if (!monitor_) return;
  Status st = monitor_->SetDownOutInterval(interval);
  if (!st.ok()) log_->warn("mon_osd_down_out_interval: {}", st.message());
}

void ClusterMembership::SetFailurePolicy(int min_down_reporters, const std::string& subtree_level) {
  if (!monitor_) return;
  auto subtree = cluster::ParseReporterSubtree(subtree_level);
  if (!subtree.ok()) {
    log_->warn("{}", subtree.status().message());
    return;
  }
  Status st = monitor_->SetFailurePolicy(min_down_reporters, *subtree);
  if (!st.ok()) log_->warn("mon_osd_min_down_reporters: {}", st.message());
}

bool ClusterMembership::gave_up() const {
  return registration_ && registration_->state().gave_up;
}

bool ClusterMembership::MayServe(std::chrono::milliseconds margin) const {
  if (!registration_) return false;
  const auto s = registration_->state();
  if (!s.up || epoch_.load() < s.boot_epoch) return false;
  return std::chrono::steady_clock::now() - s.lease_renewed < grace_ - margin;
}

void ClusterMembership::Hold(bool held, const std::string& why) {
  if (registration_) registration_->Hold(held, why);
}

nlohmann::json ClusterMembership::StatusJson() const {
  nlohmann::json j;
  j["epoch"] = epoch_.load();
  j["epoch_received_ms"] = epoch_received_ms_.load();
  if (registration_) {
    const auto s = registration_->state();
    j["up"] = s.up;
    j["held"] = s.held;
    j["boots"] = s.boots;
    j["lease"] = s.lease;
    j["markdowns"] = s.markdowns;
    j["waiting_healthy"] = s.waiting_healthy;
    j["gave_up"] = s.gave_up;
    j["last_error"] = s.last_error;
  }
  j["mon_leader"] = mon_leader();
  if (heartbeat_) j["heartbeat"] = heartbeat_->StatusJson();
  std::lock_guard<std::mutex> lock(mu_);
  j["watch_error"] = watch_error_;
  return j;
}

}  // namespace ec::osd::daemon
