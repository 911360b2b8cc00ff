// OsdRegistration: an OSD's membership in the cluster map (issue 13, item 4).
//
// Start() boots the OSD: it takes an etcd lease of osd_heartbeat_grace (whole seconds, at least
// 2), then writes in ONE txn the OSD's liveness key <prefix>alive/<id> bound to that lease, the
// map change OsdBoot (up, address, host, store uuid; marked in again if it was auto-out) and the
// epoch bump. A background thread renews the lease every grace/3. While the lease lives the OSD
// is up; if the process dies or hangs, or cannot reach etcd, for longer than the grace, etcd
// deletes the key and the elected monitor (monitor.h) marks the OSD down in the map.
//
// Identity (Ceph refuses a second OSD with an id too):
//   - the map records the uuid of the store that booted as osd.N; another store claiming N is
//     refused: EEXIST "osd.N belongs to another store (uuid U); this one is V";
//   - an alive key held by another store's daemon: Start waits up to the grace (plus a second) for
//     it to expire, then EEXIST "osd.N is already up at ADDR (pid P, store uuid U)". A live
//     duplicate keeps renewing its lease, a dead one's key expires;
//   - an alive key of this same store is a previous daemon of this store that died (kill -9) and
//     was restarted before its lease expired: two daemons cannot hold one store open (the store
//     locks its metadata), so the key is taken over at once and the old lease revoked.
//
// After a lost lease (SIGSTOP past the grace, etcd unreachable past the grace) the thread boots
// again with a new lease. Errors reaching etcd are retried every renew period; state() tells.
//
// Marked down while its lease lives (the monitor on its peers' failure reports, or `ec-admin osd
// down`): the thread sees it at its next renewal, or at once after Kick() (the daemon kicks it
// when a map says so), logs Ceph's "wrongly marked me down", and boots again after a backoff of
// one renewal period once `may_boot` says so (the daemon's heartbeat: enough peers answer, as
// Ceph's OSD waits to be healthy, so that an OSD cut off from its peers does not flap up and down
// for as long as the partition lasts). Ceph's limit applies: marked down so more than
// max_markdown_count times within max_markdown_period, it stops booting (state().gave_up; the
// daemon then exits, as Ceph's OSD shuts down).
//
// Hold(true) takes the OSD out of the map while its daemon cannot serve (its device hangs:
// osd/daemon/device_watch.h), as Ceph's OSD stops answering heartbeats when an op thread is stuck:
// the lease is revoked at once (the monitor marks the OSD down and its PGs peer without it), and
// it is neither renewed nor taken again until Hold(false), after which the thread boots again at
// its next renewal period (a third of the grace).
//
// Stop(true) marks the OSD down in the map at once (an epoch) and revokes the lease, as a clean
// shutdown should; Stop(false) only stops the thread, which to the cluster looks like a crash
// (tests use it to stand in for kill -9).
//
// Thread safety: Start/Stop from one thread; state() from any.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/map/map_store.h"
#include "common/status.h"

namespace ec::cluster {

struct RegistrationOptions {
  int osd_id = 0;
  std::string addr;  // "ip:port" the OSD serves on
  std::string host;  // failure domain host; non-empty
  std::string uuid;  // the store's uuid; non-empty
  // osd_network_bandwidth: bytes/s of the host's link, published in the map at every boot
  // (OsdEntry::network_bandwidth); 0: unknown. At most kMaxNetworkBandwidth (the boot is refused
  // EINVAL above it).
  std::uint64_t network_bandwidth = 0;
  std::string prefix = "/ecstore/";
  std::chrono::milliseconds grace{20000};         // osd_heartbeat_grace
  std::chrono::milliseconds boot_timeout{30000};  // Start gives up after this (etcd unreachable)
  // osd_max_markdown_count, osd_max_markdown_period (above); count >= 1.
  int max_markdown_count = 5;
  std::chrono::milliseconds max_markdown_period{600000};
  // Asked (on the registration thread, which it must not block) before booting again after being
  // marked down while alive: whether this OSD may (its peers answer). Empty: always.
  std::function<bool()> may_boot;
  // Called (from the registration thread too) with one line about what happened: booted, lease
  // lost, etcd unreachable. May be empty.
  std::function<void(const std::string&)> log;
};

class OsdRegistration {
 public:
  // Boots (see above); returns once the boot txn is committed. Errors: EEXIST as above; EINVAL
  // for bad options; the map's and the client's errors when etcd refuses or cannot be reached
  // within boot_timeout (the last error is returned).
  static Result<std::unique_ptr<OsdRegistration>> Start(const etcd::ClientOptions& client,
                                                        RegistrationOptions options);
  ~OsdRegistration();  // Stop(true) if not stopped
  OsdRegistration(const OsdRegistration&) = delete;
  OsdRegistration& operator=(const OsdRegistration&) = delete;

  void Stop(bool mark_down);

  // See above. `why` is logged. Returns at once when the hold does not change; otherwise a held
  // OSD's lease is revoked on the caller's thread (one etcd call, at most the client's timeout).
  // Thread safety: any thread.
  void Hold(bool held, const std::string& why);

  // Looks at the map at once rather than at the next renewal (a map said this OSD is down).
  // Thread safety: any thread; never blocks.
  void Kick();

  struct State {
    bool up = false;               // the lease is believed alive
    std::int64_t lease = 0;        // current lease id
    std::int64_t boot_epoch = 0;   // epoch of the last boot txn
    int boots = 0;                 // boots so far (1 after Start)
    bool held = false;             // Hold(true): out of the map until released
    int markdowns = 0;             // marked down while alive, within max_markdown_period
    bool waiting_healthy = false;  // marked down while alive: boots again once may_boot says so
    bool gave_up = false;          // more than max_markdown_count markdowns: boots no more
    std::string last_error;        // empty when the last etcd call succeeded
    // When the request that last granted or renewed the lease was sent (steady clock): it lives at
    // least its TTL from then.
    std::chrono::steady_clock::time_point lease_renewed{};
  };
  State state() const;

 private:
  OsdRegistration(const etcd::ClientOptions& client, RegistrationOptions options);
  // One boot attempt: Ok, or a retryable error, or a final one (EEXIST, EINVAL, EBADMSG).
  Status BootOnce(bool* retry_later);
  Status Boot(std::chrono::steady_clock::time_point deadline);
  void Run();
  void Log(const std::string& line) const;
  void SetError(const Status& st);
  // The map says down while the lease lives: counts it, logs, and waits or gives up.
  void MarkedDownWhileAlive();

  const RegistrationOptions options_;
  etcd::Client client_;
  MapStore store_;
  const std::int64_t ttl_seconds_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool kicked_ = false;
  State state_;
  std::deque<std::chrono::steady_clock::time_point> markdowns_;  // within the period
  std::chrono::steady_clock::time_point boot_not_before_{};      // the backoff's end
  bool said_waiting_ = false;  // "waiting for ... peers" logged for this markdown
  std::chrono::steady_clock::time_point lease_renewed_;  // last successful grant/keepalive
  std::thread thread_;
  bool stopped_ = false;
};

}  // namespace ec::cluster
