#include "osd/pg/scrub_scheduler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "common/thread_name.h"
#include "common/thread_nice.h"

namespace ec::osd::pg {
namespace {

using SysClock = std::chrono::system_clock;

SysClock::time_point FromMs(std::int64_t ms) {
  return SysClock::time_point(std::chrono::milliseconds(ms));
}

bool Clean(const PgHealth& h) {
  return h.state.rfind("active+clean", 0) == 0;
}

}  // namespace

ScrubScheduler::ScrubScheduler(ScrubSchedule schedule, Hooks hooks,
                               std::shared_ptr<spdlog::logger> log)
    : schedule_(schedule),
      hooks_(std::move(hooks)),
      log_(log ? std::move(log) : spdlog::default_logger()) {
  if (schedule_.max_scrubs < 1) schedule_.max_scrubs = 1;
  thread_ = std::thread([this] {
    NameCurrentThread("scrub");
    Loop();
  });
}

ScrubScheduler::~ScrubScheduler() {
  Stop();
}

void ScrubScheduler::Retune(const ScrubSchedule& schedule) {
  std::lock_guard lock(mu_);  // every pass reads schedule_ under mu_
  schedule_.min_interval = schedule.min_interval;
  schedule_.deep_interval = schedule.deep_interval;
  schedule_.sleep = schedule.sleep;
  schedule_.max_scrubs = std::max(schedule.max_scrubs, 1);
  schedule_.auto_repair = schedule.auto_repair;
}

void ScrubScheduler::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cancel_ = true;
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (auto& [pgid, f] : running_) f.wait();
  running_.clear();
}

void ScrubScheduler::Loop() {
  for (;;) {
    Pass();
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, schedule_.poll, [&] { return stop_; });
    if (stop_) return;
  }
}

void ScrubScheduler::Pass() {
  // Reap the scrubs that ended (each published its result itself).
  for (auto it = running_.begin(); it != running_.end();) {
    if (it->second.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
      it = running_.erase(it);
    } else {
      ++it;
    }
  }
  const auto health = hooks_.health();
  const auto now = SysClock::now();
  if (!loaded_) {
    auto results = hooks_.results();
    if (results.ok()) {
      loaded_ = true;
      for (const auto& [pgid, r] : *results) {
        {
          std::lock_guard lock(mu_);
          // A stamp of 0 is "never": it counts from now, as for a PG never scrubbed at all (a
          // shallow scrub's record of a PG never deep-scrubbed would make a deep scrub due at
          // once).
          auto since = [&](std::int64_t ms) { return ms == 0 ? now : FromMs(ms); };
          stamps_[pgid] =
              Stamps{since(r.last_scrub_ms), since(r.last_deep_scrub_ms), r.last_deep_scrub_ms};
        }
        if (health.count(pgid) != 0) hooks_.note(r);
      }
    }
  }
  std::map<std::string, cluster::ScrubRequest> requests;
  auto asked = hooks_.requests();
  if (asked.ok()) requests = std::move(asked).value();

  const auto may = [&](cluster::ScrubKind kind) {
    return !hooks_.may_schedule || hooks_.may_schedule(kind);
  };
  const bool may_scrub = may(cluster::ScrubKind::kScrub);
  const bool may_deep = may(cluster::ScrubKind::kDeepScrub);
  // stamps_ and retry_after_ are shared with the scrubs' Finish.
  std::lock_guard lock(mu_);
  const auto steady_now = std::chrono::steady_clock::now();
  for (const auto& [pgid, h] : health) {
    if (static_cast<int>(running_.size()) >= schedule_.max_scrubs) break;
    if (running_.count(pgid) != 0 || !Clean(h)) continue;
    auto wait = retry_after_.find(pgid);
    if (wait != retry_after_.end()) {
      if (wait->second > steady_now) continue;
      retry_after_.erase(wait);
    }
    ScrubRun run;
    run.sleep = schedule_.sleep;
    run.cancel = &cancel_;
    run.auto_repair = schedule_.auto_repair;
    bool requested = false;
    auto req = requests.find(pgid);
    if (req != requests.end()) {
      run.kind = req->second.kind;
      requested = true;
    } else {
      // A PG never scrubbed counts from when this OSD first served it.
      auto [stamp, added] = stamps_.try_emplace(pgid, Stamps{now, now});
      if (may_deep && now - stamp->second.deep >= schedule_.deep_interval) {
        run.kind = cluster::ScrubKind::kDeepScrub;
      } else if (may_scrub && now - stamp->second.scrub >= schedule_.min_interval) {
        run.kind = cluster::ScrubKind::kScrub;
      } else {
        continue;
      }
    }
    log_->info("pg {}: {} {}", pgid, requested ? "requested" : "scheduled",
               cluster::ScrubKindName(run.kind));
    running_[pgid] = std::async(std::launch::async, [this, pgid = pgid, requested, run] {
      if (schedule_.nice != 0) {
        Status niced = NiceCurrentThread(schedule_.nice);
        if (!niced.ok()) log_->warn("scrub thread nice {}: {}", schedule_.nice, niced.message());
      }
      Finish(pgid, requested, run, hooks_.scrub(pgid, run));
    });
  }
}

void ScrubScheduler::Finish(const std::string& pgid, bool requested, const ScrubRun& run,
                            Result<cluster::ScrubResult> result) {
  if (!result.ok()) {
    log_->info("pg {}: {} not done: {}", pgid, cluster::ScrubKindName(run.kind),
               result.status().message());
    std::lock_guard lock(mu_);
    retry_after_[pgid] = std::chrono::steady_clock::now() + schedule_.retry;
    return;
  }
  cluster::ScrubResult r = std::move(result).value();
  {
    std::lock_guard lock(mu_);
    // A PG the passes have not seen yet (a requested scrub served first) counts from now.
    const auto now = SysClock::now();
    Stamps& s = stamps_.try_emplace(pgid, Stamps{now, now}).first->second;
    s.scrub = FromMs(r.last_scrub_ms);
    if (r.last_deep_scrub_ms != 0) {
      s.deep = FromMs(r.last_deep_scrub_ms);
      s.deep_ms = r.last_deep_scrub_ms;
    } else {
      // A shallow scrub keeps the previous deep scrub's stamp in the record (0: never).
      r.last_deep_scrub_ms = s.deep_ms;
    }
  }
  Status published = hooks_.publish(r);
  if (!published.ok()) {
    log_->warn("pg {}: publishing the {} result: {}", pgid, cluster::ScrubKindName(run.kind),
               published.message());
  }
  if (requested) {
    Status done = hooks_.request_done(pgid);
    if (!done.ok()) log_->warn("pg {}: deleting the scrub request: {}", pgid, done.message());
  }
}

}  // namespace ec::osd::pg
