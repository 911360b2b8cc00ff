#include "cluster/liveness/monitor.h"

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "cluster/liveness/liveness_keys.h"
#include "common/thread_name.h"

namespace ec::cluster {
namespace {

// Guards per change set; etcd allows 128 operations and compares per txn, so down/out changes go
// in groups of this many OSDs.
constexpr std::size_t kOsdsPerTxn = 32;

}  // namespace

Monitor::Monitor(const etcd::ClientOptions& client, MonitorOptions options)
    : options_(std::move(options)),
      client_(client),
      store_(&client_, options_.prefix),
      ttl_seconds_(LeaseTtlSeconds(options_.grace)),
      tick_(std::clamp<std::chrono::milliseconds>(
          options_.grace / 4, std::chrono::milliseconds(100), std::chrono::milliseconds(1000))),
      down_out_ms_(options_.down_out_interval.count()),
      min_down_reporters_(options_.min_down_reporters),
      reporter_subtree_(options_.reporter_subtree) {}

Result<std::unique_ptr<Monitor>> Monitor::Start(const etcd::ClientOptions& client,
                                                MonitorOptions options) {
  if (options.name.empty()) return Status::Invalid("monitor name must not be empty");
  if (options.prefix.empty()) return Status::Invalid("cluster map prefix must not be empty");
  if (options.down_out_interval.count() < 0)
    return Status::Invalid("mon_osd_down_out_interval must be >= 0");
  if (options.min_down_reporters < 1)
    return Status::Invalid("mon_osd_min_down_reporters must be >= 1");
  std::unique_ptr<Monitor> m(new Monitor(client, std::move(options)));
  m->thread_ = std::thread([p = m.get()] {
    NameCurrentThread("monitor");
    p->Run();
  });
  return m;
}

Monitor::~Monitor() {
  Stop(true);
}

void Monitor::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

Status Monitor::SetDownOutInterval(std::chrono::milliseconds interval) {
  if (interval.count() < 0) return Status::Invalid("mon_osd_down_out_interval must be >= 0");
  down_out_ms_.store(interval.count());
  return Status::OK();
}

Status Monitor::SetFailurePolicy(int min_down_reporters, ReporterSubtree subtree) {
  if (min_down_reporters < 1) return Status::Invalid("mon_osd_min_down_reporters must be >= 1");
  min_down_reporters_.store(min_down_reporters);
  reporter_subtree_.store(subtree);
  return Status::OK();
}

Monitor::State Monitor::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  State s = state_;
  s.leader = leader_.load();
  return s;
}

void Monitor::Run() {
  while (true) {
    Tick();
    std::unique_lock<std::mutex> lock(mu_);
    if (cv_.wait_for(lock, tick_, [&] { return stopping_; })) return;
  }
}

void Monitor::Tick() {
  // Keep our election lease alive (or get one).
  const auto now = std::chrono::steady_clock::now();
  if (lease_ != 0) {
    auto ttl = client_.LeaseKeepAlive(lease_);
    if (ttl.ok() && *ttl > 0) {
      lease_renewed_ = now;
    } else if ((ttl.ok() && *ttl <= 0) || ttl.status().code() == ENOENT) {
      if (leader_.exchange(false))
        Log(options_.name + ": lost the monitor lease; no longer leader");
      lease_ = 0;
    } else {
      // Not renewed for its TTL, the lease may have expired and another candidate lead: stop
      // acting as leader. The lease is kept, though: etcd could not expire it if it lost its
      // quorum (or was down), and extends every lease when it is back; renewed then, it makes
      // this candidate leader again at once rather than after the TTL (Campaign finds the key
      // on it).
      if (now - lease_renewed_ > std::chrono::seconds(ttl_seconds_) && leader_.exchange(false))
        Log(options_.name + ": monitor lease not renewed for its TTL; no longer leader");
      std::lock_guard<std::mutex> lock(mu_);
      state_.last_error = ttl.status().message();
      return;
    }
  }
  if (lease_ == 0) {
    auto grant = client_.LeaseGrantTtl(ttl_seconds_);
    if (!grant.ok()) {
      std::lock_guard<std::mutex> lock(mu_);
      state_.last_error = grant.status().message();
      return;
    }
    lease_ = grant->id;
    lease_renewed_ = now;
  }
  if (!leader_.load() && !Campaign()) return;
  Lead();
}

bool Monitor::Campaign() {
  etcd::TxnRequest txn;
  const std::string key = LeaderKey(options_.prefix);
  txn.compare.push_back(etcd::Compare::Number(key, etcd::Compare::Target::kCreate, 0));
  txn.success.push_back(
      etcd::TxnOp::Put(key, EncodeLeader({options_.name, WallClockMs()}), lease_));
  txn.failure.push_back(etcd::TxnOp::Range(key));
  auto reply = client_.Txn(txn);
  if (!reply.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    state_.last_error = reply.status().message();
    return false;
  }
  if (!reply->succeeded) {
    // Ours already (a reply lost earlier)? Then we lead.
    const auto& kvs =
        reply->responses.empty() ? std::vector<etcd::KeyValue>{} : reply->responses[0].range.kvs;
    if (kvs.empty() || kvs[0].lease != lease_) return false;
  }
  leader_ = true;
  Log(options_.name + ": elected monitor leader");
  return true;
}

void Monitor::Lead() {
  auto range = client_.GetPrefix(options_.prefix);
  if (!range.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    state_.last_error = range.status().message();
    return;
  }
  // Still the leader at this revision?
  const std::string leader_key = LeaderKey(options_.prefix);
  const std::string alive_prefix = AlivePrefix(options_.prefix);
  bool still_leader = false;
  std::set<std::string> alive;
  for (const etcd::KeyValue& kv : range->kvs) {
    if (kv.key == leader_key) still_leader = kv.lease == lease_;
    if (kv.key.compare(0, alive_prefix.size(), alive_prefix) == 0) alive.insert(kv.key);
  }
  if (!still_leader) {
    leader_ = false;
    Log(options_.name + ": no longer monitor leader");
    return;
  }
  auto map = DecodeMap(options_.prefix, *range);
  if (!map.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    state_.last_error = map.status().message();
    return;
  }
  const std::int64_t now_ms = WallClockMs();
  // noout (`ec-admin osd set noout`): down OSDs stay in; once unset, those down for longer than
  // the interval go out at the next tick.
  const bool noout = map->HasFlag("noout");
  const std::int64_t out_after_ms = down_out_ms_.load();
  std::vector<int> down, out;
  for (const auto& [id, o] : map->osds) {
    const bool has_alive = alive.contains(AliveKey(options_.prefix, id));
    if (o.up && !has_alive) down.push_back(id);
    if (!o.up && o.in && !has_alive && !noout && out_after_ms > 0 && o.down_stamp_ms > 0 &&
        now_ms - o.down_stamp_ms >= out_after_ms)
      out.push_back(id);
  }
  auto apply = [&](const std::vector<int>& ids, bool mark_down) {
    for (std::size_t at = 0; at < ids.size(); at += kOsdsPerTxn) {
      TxnGuard guard;
      guard.compares.push_back(
          etcd::Compare::Number(leader_key, etcd::Compare::Target::kLease, lease_));
      std::vector<MapChange> changes;
      std::string names;
      for (std::size_t i = at; i < std::min(ids.size(), at + kOsdsPerTxn); ++i) {
        guard.compares.push_back(etcd::Compare::Number(AliveKey(options_.prefix, ids[i]),
                                                       etcd::Compare::Target::kCreate, 0));
        changes.push_back(mark_down ? MapChange::OsdDown(ids[i], now_ms)
                                    : MapChange::OsdOut(ids[i], /*automatic=*/true));
        names += (names.empty() ? "osd." : ", osd.") + std::to_string(ids[i]);
      }
      auto applied = store_.Apply(changes, guard);
      std::lock_guard<std::mutex> lock(mu_);
      if (!applied.ok()) {
        // ECANCELED: an OSD booted meanwhile, or we were deposed; the next tick sees which.
        state_.last_error = applied.status().message();
        continue;
      }
      state_.last_error.clear();
      (mark_down ? state_.marked_down : state_.marked_out) +=
          static_cast<std::int64_t>(changes.size());
      Log(options_.name + ": marked " + names + (mark_down ? " down" : " out") + " at epoch " +
          std::to_string(applied->epoch));
    }
  };
  apply(down, true);
  apply(out, false);
  // The lease's verdicts first: those OSDs are down when the reports are weighed.
  for (int id : down) map->osds.at(id).up = false;
  MarkFailed(*range, std::move(map).value(), now_ms);
}

void Monitor::MarkFailed(const etcd::RangeResponse& range, ClusterMap map, std::int64_t now_ms) {
  const std::string failure_prefix = FailurePrefix(options_.prefix);
  std::vector<FailureReport> reports;
  const std::string osd_prefix = options_.prefix + "osd/";
  std::map<std::string, std::int64_t> osd_revision;  // each OSD record's mod_revision as read
  std::string bad;
  for (const etcd::KeyValue& kv : range.kvs) {
    if (kv.key.compare(0, failure_prefix.size(), failure_prefix) == 0) {
      auto r = DecodeFailure(options_.prefix, kv.key, kv.value);
      if (r.ok()) {
        reports.push_back(*r);
      } else {
        bad = r.status().message();
      }
    } else if (kv.key.compare(0, osd_prefix.size(), osd_prefix) == 0) {
      osd_revision[kv.key] = kv.mod_revision;
    }
  }
  if (!bad.empty()) {
    std::lock_guard<std::mutex> lock(mu_);
    state_.last_error = bad;
  }
  if (reports.empty()) {
    held_.clear();
    return;
  }
  FailurePolicy policy;
  policy.min_down_reporters = min_down_reporters_.load();
  policy.subtree = reporter_subtree_.load();
  policy.grace = options_.grace;
  const FailureDecision decision = DecideFailures(map, reports, now_ms, policy);
  std::set<int> held;
  for (const FailureVerdict& v : decision.held) {
    held.insert(v.target);
    if (!held_.contains(v.target))
      Log(options_.name + ": " + DescribeVerdict(map, v, policy) +
          ", but not marked down: fewer than " +
          std::to_string(static_cast<int>(policy.min_up_ratio * 100)) +
          "% of the OSDs would be up (mon_osd_min_up_ratio)");
  }
  held_ = std::move(held);
  if (decision.down.empty()) return;
  for (std::size_t at = 0; at < decision.down.size(); at += kOsdsPerTxn) {
    TxnGuard guard;
    guard.compares.push_back(
        etcd::Compare::Number(LeaderKey(options_.prefix), etcd::Compare::Target::kLease, lease_));
    std::vector<MapChange> changes;
    for (std::size_t i = at; i < std::min(decision.down.size(), at + kOsdsPerTxn); ++i) {
      const int id = decision.down[i].target;
      const std::string key = OsdKey(options_.prefix, id);
      guard.compares.push_back(
          etcd::Compare::Number(key, etcd::Compare::Target::kMod, osd_revision[key]));
      changes.push_back(MapChange::OsdDown(id, now_ms));
    }
    auto applied = store_.Apply(changes, guard);
    std::lock_guard<std::mutex> lock(mu_);
    if (!applied.ok()) {
      // ECANCELED: a reported OSD booted again meanwhile, or we were deposed.
      state_.last_error = applied.status().message();
      continue;
    }
    state_.last_error.clear();
    state_.marked_down += static_cast<std::int64_t>(changes.size());
    state_.marked_down_by_reports += static_cast<std::int64_t>(changes.size());
    for (std::size_t i = at; i < std::min(decision.down.size(), at + kOsdsPerTxn); ++i)
      Log(options_.name + ": " + DescribeVerdict(map, decision.down[i], policy) +
          ": marked down at epoch " + std::to_string(applied->epoch));
  }
}

void Monitor::Stop(bool resign) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (resign && lease_ != 0) (void)client_.LeaseRevoke(lease_);
  leader_ = false;
}

}  // namespace ec::cluster
