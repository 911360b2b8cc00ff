// Heartbeat: an OSD's pings of its peers and its failure reports (issue 31: an OSD that reaches
// etcd but not the other OSDs keeps its lease, so only its peers can tell that it is cut off).
//
// Who is pinged: every OSD up in the map but this one, not only those it shares PGs with. Ceph
// pings the OSDs it shares PGs with, topped up to osd_heartbeat_min_peers (10) others, so on a
// cluster of up to 11 OSDs it pings them all too; ecstore's clusters are that small, and one ping
// per peer per interval (a 0-byte Ping request and its reply on a connection of their own) costs
// little beside the data path. The peers come from the map the daemon follows (MapHolder).
//
// How: a thread of its own ("heartbeat") wakes every `interval` (osd_heartbeat_interval, at most a
// quarter of the grace), sends a Ping to each peer that has none in flight (each ping times out
// after the grace), and looks at the answers: a peer that has left a ping unanswered for longer
// than the grace (heartbeat_peers.h; a peer frozen for less never is) is logged as Ceph logs it
// ("heartbeat_check: no reply from osd.N since ...") and, while this OSD is up (its registration
// holds a lease and the map says up), reported to the monitor: FailureReporter
// (cluster/liveness/failure_reporter.h) writes <prefix>failure/N/<self> bound to this OSD's lease
// on its own thread, and removes it when N answers again, goes down or boots again, or when this
// OSD is down itself. The pings go through clients of their own (one io thread, "heartbeat-io"),
// never the PG primary's connections, the messenger's server threads or the PG workers; the peer
// answers a Ping on the thread that read it (osd/shard/osd_service.cc).
//
// Bounds: at most one ping in flight per peer, each with a timeout of the grace (connect included:
// at most 3 s or the grace); etcd is never called on this thread. A ping that fails or times out
// closes that peer's connection, and the next ping opens a new one: after a partition heals, the
// pings do not wait for TCP's backed-off retransmissions on the old connection.
//
// Healthy(): at least a third of the peers answer (Ceph's osd_heartbeat_min_healthy_ratio): the
// registration asks it before booting again after being marked down while alive.
//
// Thread safety: Start/Stop from one thread; Healthy, StatusJson from any.
#pragma once

#include <spdlog/logger.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/liveness/failure_reporter.h"
#include "cluster/map/map_holder.h"
#include "common/metrics.h"
#include "common/status.h"
#include "msg/client.h"
#include "msg/io_threads.h"
#include "msg/peer_clients.h"
#include "osd/daemon/heartbeat_peers.h"

namespace ec::osd::daemon {

struct HeartbeatOptions {
  int osd_id = 0;
  std::string prefix = "/ecstore/";
  std::chrono::milliseconds grace{20000};    // osd_heartbeat_grace
  std::chrono::milliseconds interval{5000};  // the ping period (>= 10 ms)
  // The lease this OSD's reports are bound to while it is up in its own view; 0 while it is not
  // (then nothing is reported). Called on the heartbeat thread; must not block.
  std::function<std::int64_t()> lease;
  // How the ping connections authenticate (the daemon's osd.N key with auth_cluster_required =
  // cephx): an OSD with cephx refuses an unauthenticated connection, so pings without it would
  // all fail and every peer would be reported.
  msg::ClientAuth auth;
};

// min(osd_heartbeat_interval, grace / 4), at least 100 ms: the interval Heartbeat runs at.
std::chrono::milliseconds HeartbeatInterval(std::chrono::milliseconds configured,
                                            std::chrono::milliseconds grace);

class Heartbeat {
 public:
  // Starts the thread and the reporter. `maps` and `metrics` are borrowed (they must outlive it).
  // Errors: EINVAL for bad options (no lease function, an interval below 10 ms), the reporter's.
  static Result<std::unique_ptr<Heartbeat>> Start(const etcd::ClientOptions& etcd,
                                                  HeartbeatOptions options,
                                                  const cluster::MapHolder* maps,
                                                  MetricsRegistry* metrics,
                                                  std::shared_ptr<spdlog::logger> log);
  ~Heartbeat();  // Stop()
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  // Ends the thread, closes the ping clients and withdraws this OSD's reports. Idempotent.
  void Stop();

  bool Healthy() const;

  // {"interval_ms", "peers", "failing": [ids], "reported": [ids], "healthy"} for /status.
  nlohmann::json StatusJson() const;

 private:
  // What the ping callbacks share with the thread; they may outlive a Stop.
  struct Shared {
    mutable std::mutex mu;
    HeartbeatPeers peers;
    std::set<int> broken;  // peers whose last ping failed: their connection is made anew
    explicit Shared(std::chrono::milliseconds grace) : peers(grace) {}
  };
  struct PeerConnection {
    std::string addr;
    std::shared_ptr<msg::OsdClient> client;
  };
  // The client of `peer` (made, or made anew for a new address). Errors: OsdClient::Create's.
  Result<std::shared_ptr<msg::OsdClient>> ClientOf(const HeartbeatPeer& peer);

  Heartbeat(HeartbeatOptions options, const cluster::MapHolder* maps, MetricsRegistry* metrics,
            std::shared_ptr<spdlog::logger> log);
  void Run();
  void Tick();

  const HeartbeatOptions options_;
  const cluster::MapHolder* maps_;
  std::shared_ptr<spdlog::logger> log_;
  std::shared_ptr<Shared> shared_;
  std::shared_ptr<msg::IoThreads> io_;         // the ping clients' one io thread
  std::map<int, PeerConnection> connections_;  // the thread's (and Stop's, after the join)
  std::unique_ptr<cluster::FailureReporter> reporter_;
  Gauge* peers_gauge_;
  Gauge* failing_gauge_;
  Counter* reports_counter_;

  std::map<int, std::int64_t> failing_;  // the thread's: failing peers, since (wall ms)
  std::set<int> reported_;               // the thread's: peers given to the reporter
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool stopped_ = false;
  nlohmann::json status_;  // under mu_
  std::thread thread_;
};

}  // namespace ec::osd::daemon
