#include "osd/daemon/heartbeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <ctime>

#include "cluster/liveness/liveness_keys.h"
#include "common/thread_name.h"

namespace ec::osd::daemon {
namespace {

using HeartbeatClock = std::chrono::steady_clock;

// The wall clock (ms since 1970) of steady time point `t`, through the present of both clocks.
std::int64_t WallMsOf(HeartbeatClock::time_point t) {
  const auto ago = std::chrono::duration_cast<std::chrono::milliseconds>(HeartbeatClock::now() - t);
  return cluster::WallClockMs() - ago.count();
}

std::string WallText(std::int64_t ms) {
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms % 1000);
}

}  // namespace

std::chrono::milliseconds HeartbeatInterval(std::chrono::milliseconds configured,
                                            std::chrono::milliseconds grace) {
  return std::max(std::min(configured, grace / 4), std::chrono::milliseconds(100));
}

Heartbeat::Heartbeat(HeartbeatOptions options, const cluster::MapHolder* maps,
                     MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> log)
    : options_(std::move(options)),
      maps_(maps),
      log_(std::move(log)),
      shared_(std::make_shared<Shared>(options_.grace)),
      peers_gauge_(&metrics->GetGauge("ecstore_osd_heartbeat_peers",
                                      "OSDs this one pings (every other OSD up in the map)")),
      failing_gauge_(&metrics->GetGauge(
          "ecstore_osd_heartbeat_failing_peers",
          "peers that have not answered this OSD's pings for osd_heartbeat_grace")),
      reports_counter_(&metrics->GetCounter(
          "ecstore_osd_failure_reports_total",
          "peers this OSD reported failed to the monitor (a report each time one fails)")) {}

Result<std::unique_ptr<Heartbeat>> Heartbeat::Start(const etcd::ClientOptions& etcd,
                                                    HeartbeatOptions options,
                                                    const cluster::MapHolder* maps,
                                                    MetricsRegistry* metrics,
                                                    std::shared_ptr<spdlog::logger> log) {
  if (!options.lease) return Status::Invalid("heartbeat: no lease function");
  if (options.interval < std::chrono::milliseconds(10))
    return Status::Invalid("heartbeat: interval below 10 ms");
  cluster::FailureReporterOptions ro;
  ro.osd_id = options.osd_id;
  ro.prefix = options.prefix;
  ro.grace = options.grace;
  ro.log = [log](const std::string& line) { log->info("{}", line); };
  auto reporter = cluster::FailureReporter::Start(etcd, std::move(ro));
  if (!reporter.ok()) return reporter.status();
  auto io = msg::IoThreads::Start(1, "heartbeat-io", 0, log);
  if (!io.ok()) return io.status();
  std::unique_ptr<Heartbeat> h(new Heartbeat(std::move(options), maps, metrics, std::move(log)));
  h->reporter_ = std::move(reporter).value();
  h->io_ = std::move(io).value();
  h->thread_ = std::thread([p = h.get()] {
    NameCurrentThread("heartbeat");
    p->Run();
  });
  return h;
}

Heartbeat::~Heartbeat() {
  Stop();
}

void Heartbeat::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  // Pings in flight end (ESHUTDOWN); their callbacks hold only a weak `shared_`.
  for (auto& [id, c] : connections_) c.client->Close();
  connections_.clear();
  if (reporter_) reporter_->Stop();
}

Result<std::shared_ptr<msg::OsdClient>> Heartbeat::ClientOf(const HeartbeatPeer& peer) {
  const auto it = connections_.find(peer.id);
  if (it != connections_.end() && it->second.addr == peer.addr) return it->second.client;
  if (it != connections_.end()) {
    it->second.client->Close();
    connections_.erase(it);
  }
  msg::ClientOptions co;
  Status st = msg::SplitHostPort(peer.addr, &co.host, &co.port);
  if (!st.ok()) return st;
  co.name = fmt::format("osd.{}-heartbeat", options_.osd_id);
  co.shared_io = io_;
  co.connect_timeout = std::min<std::chrono::milliseconds>(options_.grace, std::chrono::seconds(3));
  co.request_timeout = options_.grace;
  co.logger = log_;
  co.auth = options_.auth.mode;
  co.entity = options_.auth.entity;
  co.key = options_.auth.key;
  auto client = msg::OsdClient::Create(co);
  if (!client.ok()) return client.status();
  std::shared_ptr<msg::OsdClient> shared = std::move(client).value();
  connections_[peer.id] = PeerConnection{peer.addr, shared};
  return shared;
}

bool Heartbeat::Healthy() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->peers.Healthy(HeartbeatClock::now());
}

nlohmann::json Heartbeat::StatusJson() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

void Heartbeat::Run() {
  while (true) {
    Tick();
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, options_.interval, [&] { return stopping_; })) return;
  }
}

void Heartbeat::Tick() {
  const std::shared_ptr<const cluster::ClusterMap> map = maps_->Get();
  std::vector<HeartbeatPeer> peers;
  std::int64_t self_up_stamp = -1;  // -1: not up in the map
  for (const auto& [id, o] : map->osds) {
    if (!o.up) continue;
    if (id == options_.osd_id) {
      self_up_stamp = o.up_stamp_ms;
    } else if (!o.addr.empty()) {
      peers.push_back(HeartbeatPeer{id, o.addr, o.up_stamp_ms});
    }
  }
  auto now = HeartbeatClock::now();
  std::vector<HeartbeatPeer> due;
  std::set<int> broken;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->peers.SetPeers(peers, now);
    due = shared_->peers.TakeDuePings(now);
    broken.swap(shared_->broken);
  }
  // Connections of peers gone from the map, or whose last ping failed, are closed (not under
  // shared_->mu: closing runs the callbacks of their pings in flight).
  std::set<int> current;
  for (const HeartbeatPeer& p : peers) current.insert(p.id);
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (current.contains(it->first) && !broken.contains(it->first)) {
      ++it;
      continue;
    }
    it->second.client->Close();
    it = connections_.erase(it);
  }
  for (const HeartbeatPeer& p : due) {
    std::weak_ptr<Shared> weak = shared_;
    // `closed`: the ping ended because its connection was closed here (ESHUTDOWN), which
    // needs no new connection.
    auto done = [weak, id = p.id, stamp = p.up_stamp_ms, sent = now](bool ok, bool closed) {
      if (auto s = weak.lock()) {
        std::lock_guard<std::mutex> lock(s->mu);
        s->peers.PingDone(id, stamp, sent, HeartbeatClock::now(), ok);
        if (!ok && !closed) s->broken.insert(id);
      }
    };
    auto client = ClientOf(p);
    if (!client.ok()) {
      done(false, true);
      continue;
    }
    (*client)->PingAsync(
        {}, 0,
        [done](Result<Buffer> r) { done(r.ok(), !r.ok() && r.status().code() == ESHUTDOWN); },
        msg::CallOptions{options_.grace});
  }

  now = HeartbeatClock::now();
  std::vector<HeartbeatPeers::Failing> failing;
  bool healthy = true;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    failing = shared_->peers.FailingPeers(now);
    healthy = shared_->peers.Healthy(now);
  }
  // Each failing peer's since, as a wall clock, fixed when it is first seen failing (converting
  // it again each tick would move it by a millisecond and rewrite the report).
  std::map<int, std::int64_t> failing_now;
  std::vector<cluster::WantedReport> wanted;
  for (const HeartbeatPeers::Failing& f : failing) {
    const auto known = failing_.find(f.peer.id);
    const std::int64_t since_ms = known != failing_.end() ? known->second : WallMsOf(f.since);
    if (known == failing_.end())
      log_->warn("osd.{} heartbeat_check: no reply from osd.{} ({}) since {} (grace {} ms)",
                 options_.osd_id, f.peer.id, f.peer.addr, WallText(since_ms),
                 options_.grace.count());
    failing_now[f.peer.id] = since_ms;
    wanted.push_back(cluster::WantedReport{f.peer.id, f.peer.up_stamp_ms, since_ms});
  }
  for (const auto& [id, since_ms] : failing_) {
    if (failing_now.contains(id)) continue;
    const auto it = map->osds.find(id);
    const bool up = it != map->osds.end() && it->second.up;
    if (!up) {
      log_->info("osd.{} heartbeat_check: osd.{} is down in the map: no longer pinged",
                 options_.osd_id, id);
    } else {
      log_->info("osd.{} heartbeat_check: osd.{} answers again (or booted again)", options_.osd_id,
                 id);
    }
  }
  failing_ = std::move(failing_now);

  // Reports only while this OSD is up: in its own view (a lease) and in the map's.
  const std::int64_t lease = self_up_stamp >= 0 ? options_.lease() : 0;
  if (lease == 0) wanted.clear();
  std::set<int> reported;
  for (const cluster::WantedReport& w : wanted) {
    reported.insert(w.target);
    if (!reported_.contains(w.target)) reports_counter_->Inc();
  }
  reported_ = std::move(reported);
  reporter_->Set(wanted, lease);

  peers_gauge_->Set(static_cast<std::int64_t>(peers.size()));
  failing_gauge_->Set(static_cast<std::int64_t>(failing_.size()));
  nlohmann::json j;
  j["interval_ms"] = options_.interval.count();
  j["peers"] = peers.size();
  std::vector<int> failing_ids;
  for (const auto& [id, since_ms] : failing_) failing_ids.push_back(id);
  j["failing"] = failing_ids;
  j["reported"] = reported_;
  j["healthy"] = healthy;
  std::lock_guard<std::mutex> lock(mu_);
  status_ = std::move(j);
}

}  // namespace ec::osd::daemon
