#include "cluster/liveness/failure_reporter.h"

#include <algorithm>
#include <cerrno>

#include "cluster/liveness/liveness_keys.h"
#include "common/thread_name.h"

namespace ec::cluster {

FailureReporter::FailureReporter(const etcd::ClientOptions& client, FailureReporterOptions options)
    : options_(std::move(options)),
      client_(client),
      refresh_(std::max<std::chrono::milliseconds>(options_.grace / 3,
                                                   std::chrono::milliseconds(100))) {}

Result<std::unique_ptr<FailureReporter>> FailureReporter::Start(const etcd::ClientOptions& client,
                                                                FailureReporterOptions options) {
  if (options.osd_id < 0) return Status::Invalid("osd id must be >= 0");
  if (options.prefix.empty()) return Status::Invalid("cluster map prefix must not be empty");
  if (options.grace.count() < 1) return Status::Invalid("osd_heartbeat_grace must be positive");
  std::unique_ptr<FailureReporter> r(new FailureReporter(client, std::move(options)));
  r->thread_ = std::thread([p = r.get()] {
    NameCurrentThread("failure-reports");
    p->Run();
  });
  return r;
}

FailureReporter::~FailureReporter() {
  Stop();
}

void FailureReporter::Log(const std::string& line) const {
  if (options_.log) options_.log(line);
}

void FailureReporter::Set(std::vector<WantedReport> wanted, std::int64_t lease) {
  std::map<int, WantedReport> next;
  if (lease != 0) {
    for (const WantedReport& w : wanted) next.emplace(w.target, w);
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (next == wanted_ && lease == lease_) return;
    wanted_ = std::move(next);
    lease_ = lease;
    changed_ = true;
  }
  cv_.notify_all();
}

FailureReporter::State FailureReporter::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

void FailureReporter::Run() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait_for(lock, refresh_, [&] { return stopping_ || changed_; });
      if (stopping_) return;
      changed_ = false;
    }
    Reconcile();
  }
}

void FailureReporter::Reconcile() {
  std::map<int, WantedReport> wanted;
  std::int64_t lease = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    wanted = wanted_;
    lease = lease_;
  }
  const auto now = std::chrono::steady_clock::now();
  std::string error;
  std::int64_t puts = 0, deletes = 0;
  for (auto it = written_.begin(); it != written_.end();) {
    if (wanted.contains(it->first)) {
      ++it;
      continue;
    }
    auto d = client_.DeleteRange(
        etcd::DeleteRequest{FailureKey(options_.prefix, it->first, options_.osd_id), ""});
    if (!d.ok()) {
      error = d.status().message();
      ++it;
      continue;
    }
    ++deletes;
    Log("osd." + std::to_string(options_.osd_id) + ": failure report of osd." +
        std::to_string(it->first) + " withdrawn");
    it = written_.erase(it);
  }
  for (const auto& [target, w] : wanted) {
    const auto it = written_.find(target);
    const bool fresh = it != written_.end() && it->second.report == w &&
                       it->second.lease == lease && now - it->second.at < refresh_;
    if (fresh) continue;
    FailureReport r;
    r.target = target;
    r.reporter = options_.osd_id;
    r.target_up_stamp_ms = w.target_up_stamp_ms;
    r.failed_since_ms = w.failed_since_ms;
    r.stamp_ms = WallClockMs();
    auto put = client_.Put(etcd::PutRequest{FailureKey(options_.prefix, target, options_.osd_id),
                                            EncodeFailure(r), lease});
    if (!put.ok()) {
      // Not written (an expired lease is ENOENT): tried again at the next round.
      error = put.status().message();
      continue;
    }
    ++puts;
    if (it == written_.end())
      Log("osd." + std::to_string(options_.osd_id) + ": reported osd." + std::to_string(target) +
          " failed to the monitor (no reply for " +
          std::to_string((r.stamp_ms - r.failed_since_ms) / 1000) + " s)");
    written_[target] = Written{w, lease, now};
  }
  std::lock_guard<std::mutex> lock(mu_);
  state_.written.clear();
  for (const auto& [target, w] : written_) state_.written.push_back(target);
  state_.puts += puts;
  state_.deletes += deletes;
  state_.last_error = error;
}

void FailureReporter::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (const auto& [target, w] : written_)
    (void)client_.DeleteRange(
        etcd::DeleteRequest{FailureKey(options_.prefix, target, options_.osd_id), ""});
  written_.clear();
}

}  // namespace ec::cluster
