#include "cluster/liveness/osd_registration.h"

#include <unistd.h>

#include <cerrno>

#include "cluster/liveness/liveness_keys.h"
#include "common/thread_name.h"

namespace ec::cluster {
namespace {

// Errors worth another try later: etcd unreachable or busy, or a concurrent change.
bool Transient(const Status& st) {
  switch (st.code()) {
    case ECONNREFUSED:
    case ETIMEDOUT:
    case ECONNRESET:
    case EHOSTUNREACH:
    case EAGAIN:
    case ECANCELED:
    case ENOENT:  // the lease expired between grant and use
      return true;
    default:
      return false;
  }
}

}  // namespace

OsdRegistration::OsdRegistration(const etcd::ClientOptions& client, RegistrationOptions options)
    : options_(std::move(options)),
      client_(client),
      store_(&client_, options_.prefix),
      ttl_seconds_(LeaseTtlSeconds(options_.grace)) {}

Result<std::unique_ptr<OsdRegistration>> OsdRegistration::Start(const etcd::ClientOptions& client,
                                                                RegistrationOptions options) {
  if (options.osd_id < 0) return Status::Invalid("osd id must be >= 0");
  if (options.host.empty()) return Status::Invalid("osd host must not be empty");
  if (options.uuid.empty()) return Status::Invalid("osd store uuid must not be empty");
  if (options.prefix.empty()) return Status::Invalid("cluster map prefix must not be empty");
  if (options.max_markdown_count < 1) return Status::Invalid("osd_max_markdown_count must be >= 1");
  std::unique_ptr<OsdRegistration> r(new OsdRegistration(client, std::move(options)));
  EC_RETURN_IF_ERROR(r->Boot(std::chrono::steady_clock::now() + r->options_.boot_timeout));
  r->thread_ = std::thread([p = r.get()] {
    NameCurrentThread("registration");
    p->Run();
  });
  return r;
}

OsdRegistration::~OsdRegistration() {
  Stop(true);
}

void OsdRegistration::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void OsdRegistration::SetError(const Status& st) {
  std::lock_guard<std::mutex> lock(mu_);
  state_.last_error = st.ok() ? std::string() : st.message();
}

OsdRegistration::State OsdRegistration::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  State s = state_;
  s.lease_renewed = lease_renewed_;
  return s;
}

Status OsdRegistration::BootOnce(bool* retry_later) {
  *retry_later = true;
  const std::string name = "osd." + std::to_string(options_.osd_id);
  // The lease lives its TTL from when etcd granted it, which is after this.
  const auto granted_at = std::chrono::steady_clock::now();
  auto grant = client_.LeaseGrantTtl(ttl_seconds_);
  if (!grant.ok()) return grant.status();
  const std::int64_t lease = grant->id;
  const std::string key = AliveKey(options_.prefix, options_.osd_id);
  AliveValue mine{options_.osd_id, options_.uuid, options_.addr,
                  static_cast<std::int64_t>(::getpid())};
  Status last;
  // The map's record of the id first: a store that is not the one that booted as this id is
  // refused at once, whether that other daemon is alive or not.
  auto entry =
      client_.Range(etcd::RangeRequest{OsdKey(options_.prefix, options_.osd_id), {}, 0, 0});
  if (!entry.ok()) {
    (void)client_.LeaseRevoke(lease);
    return entry.status();
  }
  if (!entry->kvs.empty()) {
    ClusterMap one;
    bool is_map_key = false;
    Status st = ApplyKey(options_.prefix, entry->kvs.front(), false, &one, &is_map_key);
    if (st.ok()) {
      const std::string& uuid = one.osds.at(options_.osd_id).uuid;
      if (!uuid.empty() && uuid != options_.uuid)
        st = Status::Error(EEXIST, name + " belongs to another store (uuid " + uuid +
                                       "); this one is " + options_.uuid);
    }
    if (!st.ok()) {
      (void)client_.LeaseRevoke(lease);
      *retry_later = false;
      return st;
    }
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto range = client_.Range(etcd::RangeRequest{key, {}, 0, 0});
    if (!range.ok()) {
      last = range.status();
      break;
    }
    TxnGuard guard;
    std::int64_t old_lease = 0;
    if (range->kvs.empty()) {
      guard.compares.push_back(etcd::Compare::Number(key, etcd::Compare::Target::kCreate, 0));
    } else {
      const etcd::KeyValue& kv = range->kvs.front();
      auto held = DecodeAlive(key, kv.value);
      if (!held.ok() || held->uuid != options_.uuid) {
        (void)client_.LeaseRevoke(lease);
        if (!held.ok()) return held.status();
        return Status::Error(EEXIST, name + " is already up at " + held->addr + " (pid " +
                                         std::to_string(held->pid) + ", store uuid " + held->uuid +
                                         ")");
      }
      // A previous daemon of this very store: it is dead, since this process holds the store.
      guard.compares.push_back(
          etcd::Compare::Number(key, etcd::Compare::Target::kMod, kv.mod_revision));
      old_lease = kv.lease;
    }
    guard.ops.push_back(etcd::TxnOp::Put(key, EncodeAlive(mine), lease));
    auto map =
        store_.Apply({MapChange::OsdBoot(options_.osd_id, options_.addr, options_.host,
                                         options_.uuid, WallClockMs(), options_.network_bandwidth)},
                     guard);
    if (map.ok()) {
      if (old_lease != 0 && old_lease != lease) (void)client_.LeaseRevoke(old_lease);
      std::lock_guard<std::mutex> lock(mu_);
      state_.up = true;
      state_.lease = lease;
      state_.boot_epoch = map->epoch;
      ++state_.boots;
      state_.last_error.clear();
      lease_renewed_ = granted_at;
      Log(name + " booted: up in the cluster map at epoch " + std::to_string(map->epoch) +
          " (lease " + std::to_string(lease) + ", ttl " + std::to_string(ttl_seconds_) + " s)");
      return Status::OK();
    }
    last = map.status();
    if (last.code() != ECANCELED) break;  // the alive key changed under us: look again
  }
  (void)client_.LeaseRevoke(lease);
  *retry_later = Transient(last);
  return last;
}

Status OsdRegistration::Boot(std::chrono::steady_clock::time_point deadline) {
  // Another daemon's alive key gets the grace (and a second) to expire before we give up.
  const auto conflict_deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(ttl_seconds_ + 1);
  while (true) {
    bool retry = false;
    Status st = BootOnce(&retry);
    if (st.ok()) return st;
    const auto now = std::chrono::steady_clock::now();
    const bool conflict = st.code() == EEXIST && retry;
    if (!retry || now >= (conflict ? conflict_deadline : deadline)) return st;
    Log("boot of osd." + std::to_string(options_.osd_id) + " not done yet: " + st.message());
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, std::chrono::milliseconds(500), [&] { return stopping_; }))
      return Status::Error(ECANCELED, "stopped");
  }
}

void OsdRegistration::Kick() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    kicked_ = true;
  }
  cv_.notify_all();
}

void OsdRegistration::MarkedDownWhileAlive() {
  const std::string osd = "osd." + std::to_string(options_.osd_id);
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  state_.up = false;
  markdowns_.push_back(now);
  while (!markdowns_.empty() && now - markdowns_.front() > options_.max_markdown_period)
    markdowns_.pop_front();
  state_.markdowns = static_cast<int>(markdowns_.size());
  Log(osd + ": the map wrongly marked me down (its lease is alive): Monitor daemon marked " + osd +
      " down, but it is still running");
  if (state_.markdowns > options_.max_markdown_count) {
    state_.gave_up = true;
    state_.waiting_healthy = false;
    Log(osd + ": marked down " + std::to_string(state_.markdowns) + " > osd_max_markdown_count " +
        std::to_string(options_.max_markdown_count) + " in the last " +
        std::to_string(options_.max_markdown_period.count() / 1000) +
        " s (osd_max_markdown_period): not booting again, shutting down");
    return;
  }
  state_.waiting_healthy = true;
  said_waiting_ = false;
  // A renewal period of backoff, then the boot once the peers answer.
  boot_not_before_ = now + std::chrono::milliseconds(ttl_seconds_ * 1000 / 3);
}

void OsdRegistration::Run() {
  const auto period = std::chrono::milliseconds(ttl_seconds_ * 1000 / 3);
  const std::string key = OsdKey(options_.prefix, options_.osd_id);
  while (true) {
    State now;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // Renew at a third of the TTL; when down, try to boot again at the same pace.
      if (cv_.wait_for(lock, period, [&] { return stopping_ || kicked_; }) && stopping_) return;
      kicked_ = false;
      now = state_;
    }
    // Neither renewed nor booted until released (Hold), nor ever again once it gave up.
    if (now.held || now.gave_up) continue;
    if (now.up) {
      // Stamped before it is sent: etcd renews the lease at some moment after this (a keepalive
      // may wait seconds at a member for a new leader), never before.
      const auto sent = std::chrono::steady_clock::now();
      auto ttl = client_.LeaseKeepAlive(now.lease);
      if (ttl.ok() && *ttl > 0) {
        std::lock_guard<std::mutex> lock(mu_);
        lease_renewed_ = sent;
        state_.last_error.clear();
      } else if ((ttl.ok() && *ttl <= 0) || ttl.status().code() == ENOENT) {
        std::lock_guard<std::mutex> lock(mu_);
        state_.up = false;
        Log("osd." + std::to_string(options_.osd_id) + ": lease " + std::to_string(now.lease) +
            " expired; booting again");
      } else {
        std::lock_guard<std::mutex> lock(mu_);
        state_.last_error = ttl.status().message();
        if (std::chrono::steady_clock::now() - lease_renewed_ >
            std::chrono::seconds(ttl_seconds_)) {
          state_.up = false;
          Log("osd." + std::to_string(options_.osd_id) + ": lease not renewed for " +
              std::to_string(ttl_seconds_) + " s (" + ttl.status().message() + "); booting again");
        }
      }
      if (state().up) {
        // The map may say down while the lease lives (someone else wrote it): boot again, as
        // Ceph's OSD does when wrongly marked down.
        auto kv = client_.Range(etcd::RangeRequest{key, {}, 0, 0});
        if (kv.ok()) {
          ClusterMap one;
          bool is_map_key = false;
          bool down = kv->kvs.empty();
          if (!down && ApplyKey(options_.prefix, kv->kvs.front(), false, &one, &is_map_key).ok())
            down = !one.osds.at(options_.osd_id).up;
          if (down) MarkedDownWhileAlive();
        }
      }
    }
    if (const State s = state(); !s.up && !s.held && !s.gave_up) {
      if (s.waiting_healthy) {
        if (std::chrono::steady_clock::now() < boot_not_before_) continue;
        if (options_.may_boot && !options_.may_boot()) {
          if (!said_waiting_)
            Log("osd." + std::to_string(options_.osd_id) +
                ": not booting again until enough of its peers answer its heartbeats");
          said_waiting_ = true;
          continue;
        }
      }
      bool retry = false;
      Status st = BootOnce(&retry);
      if (!st.ok()) {
        SetError(st);
        Log("boot of osd." + std::to_string(options_.osd_id) + " failed: " + st.message());
      } else {
        std::lock_guard<std::mutex> lock(mu_);
        state_.waiting_healthy = false;
      }
    }
  }
}

void OsdRegistration::Hold(bool held, const std::string& why) {
  std::int64_t revoke = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_.held == held || stopping_) return;
    state_.held = held;
    if (held && state_.up) revoke = state_.lease;
    if (held) state_.up = false;
  }
  const std::string osd = "osd." + std::to_string(options_.osd_id);
  if (held) {
    // Revoked rather than left to expire: the monitor marks the OSD down now, not a grace later.
    if (revoke != 0) (void)client_.LeaseRevoke(revoke);
    Log(osd + ": leaving the map (lease revoked, marked down) until released: " + why);
  } else {
    Log(osd + ": released (" + why + "); booting again within a third of the grace");
  }
}

void OsdRegistration::Stop(bool mark_down) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  const State s = state();
  if (!mark_down || s.lease == 0) return;
  TxnGuard guard;
  guard.compares.push_back(etcd::Compare::Number(AliveKey(options_.prefix, options_.osd_id),
                                                 etcd::Compare::Target::kLease, s.lease));
  auto map = store_.Apply({MapChange::OsdDown(options_.osd_id, WallClockMs())}, guard);
  if (map.ok()) {
    Log("osd." + std::to_string(options_.osd_id) + " marked itself down at epoch " +
        std::to_string(map->epoch));
  } else {
    Log("osd." + std::to_string(options_.osd_id) +
        " could not mark itself down: " + map.status().message());
  }
  (void)client_.LeaseRevoke(s.lease);
}

}  // namespace ec::cluster
