// ScrubScheduler with in-process hooks: which PGs it scrubs, when, how many at once, and what it
// publishes. The scrubs themselves are fakes that record their calls.
#include "osd/pg/scrub_scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ec::osd::pg {
namespace {

using std::chrono::milliseconds;
using SysClock = std::chrono::system_clock;

std::int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(SysClock::now().time_since_epoch()).count();
}

// The cluster the scheduler sees, and what it did.
struct World {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, PgHealth> health;
  std::map<std::string, cluster::ScrubRequest> requests;
  std::map<std::string, cluster::ScrubResult> published;
  std::map<std::string, cluster::ScrubResult> stored;  // what results() returns at start
  std::vector<std::pair<std::string, ScrubRun>> scrubs;
  std::vector<std::string> noted;
  int running = 0, max_running = 0;
  milliseconds scrub_time{0};
  Status fail;  // what scrubs return, when not OK

  ScrubScheduler::Hooks Hooks() {
    ScrubScheduler::Hooks h;
    h.health = [this] {
      std::lock_guard lock(mu);
      return health;
    };
    h.scrub = [this](const std::string& pgid, const ScrubRun& run) -> Result<cluster::ScrubResult> {
      {
        std::lock_guard lock(mu);
        scrubs.emplace_back(pgid, run);
        max_running = std::max(max_running, ++running);
      }
      cv.notify_all();
      std::this_thread::sleep_for(scrub_time);
      std::lock_guard lock(mu);
      --running;
      if (!fail.ok()) return fail;
      cluster::ScrubResult r;
      r.pgid = pgid;
      r.kind = run.kind;
      r.stamp_ms = r.last_scrub_ms = NowMs();
      if (run.kind != cluster::ScrubKind::kScrub) r.last_deep_scrub_ms = r.stamp_ms;
      return r;
    };
    h.requests = [this] {
      std::lock_guard lock(mu);
      return Result<std::map<std::string, cluster::ScrubRequest>>(requests);
    };
    h.request_done = [this](const std::string& pgid) {
      std::lock_guard lock(mu);
      requests.erase(pgid);
      return Status::OK();
    };
    h.results = [this] {
      std::lock_guard lock(mu);
      return Result<std::map<std::string, cluster::ScrubResult>>(stored);
    };
    h.publish = [this](const cluster::ScrubResult& r) {
      std::lock_guard lock(mu);
      published[r.pgid] = r;
      cv.notify_all();
      return Status::OK();
    };
    h.note = [this](const cluster::ScrubResult& r) {
      std::lock_guard lock(mu);
      noted.push_back(r.pgid);
    };
    return h;
  }

  template <typename Pred>
  bool WaitFor(Pred pred, milliseconds limit = milliseconds(5000)) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, limit, pred);
  }
};

PgHealth Clean() {
  PgHealth h;
  h.state = "active+clean";
  return h;
}

ScrubSchedule Fast() {
  ScrubSchedule s;
  s.poll = milliseconds(20);
  s.retry = milliseconds(50);
  return s;
}

TEST(ScrubScheduler, ServesARequestPublishesAndDeletesIt) {
  World w;
  w.health["1.0"] = Clean();
  w.health["1.1"] = Clean();
  w.requests["1.1"] = {cluster::ScrubKind::kRepair, NowMs()};
  ScrubScheduler s(Fast(), w.Hooks(), nullptr);
  ASSERT_TRUE(w.WaitFor([&] { return w.published.count("1.1") != 0; }));
  s.Stop();
  std::lock_guard lock(w.mu);
  EXPECT_TRUE(w.requests.empty());
  ASSERT_EQ(w.scrubs.size(), 1u);  // 1.0 is not due (intervals of a day and a week)
  EXPECT_EQ(w.scrubs[0].second.kind, cluster::ScrubKind::kRepair);
  EXPECT_EQ(w.published["1.1"].kind, cluster::ScrubKind::kRepair);
}

TEST(ScrubScheduler, ARequestWaitsUntilThePgIsClean) {
  World w;
  PgHealth degraded;
  degraded.state = "active+undersized+degraded";
  w.health["2.3"] = degraded;
  w.requests["2.3"] = {cluster::ScrubKind::kDeepScrub, NowMs()};
  ScrubScheduler s(Fast(), w.Hooks(), nullptr);
  std::this_thread::sleep_for(milliseconds(200));
  {
    std::lock_guard lock(w.mu);
    EXPECT_TRUE(w.scrubs.empty());
    EXPECT_EQ(w.requests.count("2.3"), 1u);
    w.health["2.3"] = Clean();
  }
  ASSERT_TRUE(w.WaitFor([&] { return w.published.count("2.3") != 0; }));
  s.Stop();
  std::lock_guard lock(w.mu);
  EXPECT_TRUE(w.requests.empty());
}

TEST(ScrubScheduler, RequestsForPgsOfOtherPrimariesAreLeftAlone) {
  World w;
  w.health["1.0"] = Clean();
  w.requests["1.7"] = {cluster::ScrubKind::kScrub, NowMs()};
  ScrubScheduler s(Fast(), w.Hooks(), nullptr);
  std::this_thread::sleep_for(milliseconds(200));
  s.Stop();
  std::lock_guard lock(w.mu);
  EXPECT_TRUE(w.scrubs.empty());
  EXPECT_EQ(w.requests.count("1.7"), 1u);
}

TEST(ScrubScheduler, DueScrubsFollowTheIntervalsAndTheStoredStamps) {
  World w;
  for (const char* pg : {"1.0", "1.1", "1.2"}) w.health[pg] = Clean();
  const std::int64_t now = NowMs();
  // 1.0: deep-scrubbed long ago -> deep; 1.1: scrubbed long ago, deep recently -> scrub;
  // 1.2: both recent -> nothing.
  w.stored["1.0"].last_scrub_ms = now - 10'000;
  w.stored["1.0"].last_deep_scrub_ms = now - 10'000;
  w.stored["1.1"].last_scrub_ms = now - 10'000;
  w.stored["1.1"].last_deep_scrub_ms = now - 1'000;
  w.stored["1.2"].last_scrub_ms = now;
  w.stored["1.2"].last_deep_scrub_ms = now;
  for (auto& [pgid, r] : w.stored) r.pgid = pgid;
  w.stored["1.2"].inconsistents.push_back({});  // noted at start for the primary's PG state
  ScrubSchedule sched = Fast();
  sched.min_interval = milliseconds(5'000);
  sched.deep_interval = milliseconds(8'000);
  sched.max_scrubs = 3;
  sched.auto_repair = true;
  ScrubScheduler s(sched, w.Hooks(), nullptr);
  ASSERT_TRUE(w.WaitFor([&] { return w.published.size() == 2; }));
  std::this_thread::sleep_for(milliseconds(100));
  s.Stop();
  std::lock_guard lock(w.mu);
  ASSERT_EQ(w.scrubs.size(), 2u);
  std::map<std::string, cluster::ScrubKind> kinds;
  for (const auto& [pgid, run] : w.scrubs) {
    kinds[pgid] = run.kind;
    EXPECT_TRUE(run.auto_repair);
    EXPECT_NE(run.cancel, nullptr);
  }
  EXPECT_EQ(kinds["1.0"], cluster::ScrubKind::kDeepScrub);
  EXPECT_EQ(kinds["1.1"], cluster::ScrubKind::kScrub);
  // A shallow scrub's record keeps the earlier deep scrub's stamp.
  EXPECT_EQ(w.published["1.1"].last_deep_scrub_ms, now - 1'000);
  EXPECT_EQ(w.noted.size(), 3u);
}

// Retune (osd_scrub_* changed at runtime): a PG that was not due under the old intervals is
// scrubbed from the next pass under the new ones, with the new sleep and auto_repair.
TEST(ScrubScheduler, RetuneTakesNewIntervalsFromTheNextPass) {
  World w;
  w.health["3.0"] = Clean();
  w.stored["3.0"].pgid = "3.0";
  w.stored["3.0"].last_scrub_ms = NowMs() - 10'000;
  w.stored["3.0"].last_deep_scrub_ms = NowMs() - 1'000;
  ScrubScheduler s(Fast(), w.Hooks(), nullptr);  // a day's interval: not due
  std::this_thread::sleep_for(milliseconds(150));
  {
    std::lock_guard lock(w.mu);
    EXPECT_TRUE(w.scrubs.empty());
  }
  ScrubSchedule now = Fast();
  now.min_interval = milliseconds(5'000);
  now.sleep = milliseconds(7);
  now.auto_repair = true;
  now.max_scrubs = 0;  // taken as 1
  s.Retune(now);
  ASSERT_TRUE(w.WaitFor([&] { return w.published.count("3.0") != 0; }));
  s.Stop();
  std::lock_guard lock(w.mu);
  ASSERT_EQ(w.scrubs.size(), 1u);
  EXPECT_EQ(w.scrubs[0].second.kind, cluster::ScrubKind::kScrub);
  EXPECT_EQ(w.scrubs[0].second.sleep, milliseconds(7));
  EXPECT_TRUE(w.scrubs[0].second.auto_repair);
}

// noscrub / nodeep-scrub (the map's flags, through may_schedule): no scheduled scrub of the kind
// starts while set (a PG due for a deep scrub under nodeep-scrub gets its scrub if one is due);
// requested ones still run; once cleared, the due ones start.
TEST(ScrubScheduler, FlagsStopScheduledScrubsOfTheirKindButNotRequests) {
  World w;
  for (const char* pg : {"2.0", "2.1", "2.2"}) w.health[pg] = Clean();
  const std::int64_t now = NowMs();
  for (const char* pg : {"2.0", "2.1"}) {  // both kinds due
    w.stored[pg].pgid = pg;
    w.stored[pg].last_scrub_ms = now - 10'000;
    w.stored[pg].last_deep_scrub_ms = now - 10'000;
  }
  w.requests["2.2"] = {cluster::ScrubKind::kDeepScrub, now};
  std::atomic<bool> noscrub{true}, nodeep{true};
  ScrubScheduler::Hooks hooks = w.Hooks();
  hooks.may_schedule = [&](cluster::ScrubKind kind) {
    return kind == cluster::ScrubKind::kDeepScrub ? !nodeep.load() : !noscrub.load();
  };
  ScrubSchedule sched = Fast();
  sched.min_interval = milliseconds(5'000);
  sched.deep_interval = milliseconds(8'000);
  sched.max_scrubs = 3;
  ScrubScheduler s(sched, std::move(hooks), nullptr);
  // The request runs; nothing else does, over many polls.
  ASSERT_TRUE(w.WaitFor([&] { return w.published.count("2.2") == 1; }));
  std::this_thread::sleep_for(milliseconds(200));
  {
    std::lock_guard lock(w.mu);
    ASSERT_EQ(w.scrubs.size(), 1u);
    EXPECT_EQ(w.scrubs[0].second.kind, cluster::ScrubKind::kDeepScrub);
  }
  // Only nodeep-scrub: the due PGs get shallow scrubs.
  noscrub = false;
  ASSERT_TRUE(w.WaitFor([&] { return w.published.size() == 3; }));
  {
    std::lock_guard lock(w.mu);
    EXPECT_EQ(w.published["2.0"].kind, cluster::ScrubKind::kScrub);
    EXPECT_EQ(w.published["2.1"].kind, cluster::ScrubKind::kScrub);
  }
  // Flags cleared: the deep scrubs, due all along, start.
  nodeep = false;
  ASSERT_TRUE(w.WaitFor([&] {
    return w.published["2.0"].kind == cluster::ScrubKind::kDeepScrub &&
           w.published["2.1"].kind == cluster::ScrubKind::kDeepScrub;
  }));
  s.Stop();
}

TEST(ScrubScheduler, AtMostMaxScrubsRunAtOnce) {
  World w;
  for (int i = 0; i < 6; ++i) {
    const std::string pg = "3." + std::to_string(i);
    w.health[pg] = Clean();
    w.requests[pg] = {cluster::ScrubKind::kDeepScrub, NowMs()};
  }
  w.scrub_time = milliseconds(60);
  ScrubSchedule sched = Fast();
  sched.max_scrubs = 2;
  ScrubScheduler s(sched, w.Hooks(), nullptr);
  ASSERT_TRUE(w.WaitFor([&] { return w.published.size() == 6; }));
  s.Stop();
  std::lock_guard lock(w.mu);
  EXPECT_EQ(w.max_running, 2);
  EXPECT_TRUE(w.requests.empty());
}

TEST(ScrubScheduler, AFailedScrubIsRetriedAndItsRequestKept) {
  World w;
  w.health["4.0"] = Clean();
  w.requests["4.0"] = {cluster::ScrubKind::kScrub, NowMs()};
  w.fail = Status::Retryable(EAGAIN, "pg 4.0 changed interval");
  ScrubScheduler s(Fast(), w.Hooks(), nullptr);
  ASSERT_TRUE(w.WaitFor([&] { return w.scrubs.size() >= 2; }));
  {
    std::lock_guard lock(w.mu);
    EXPECT_TRUE(w.published.empty());
    EXPECT_EQ(w.requests.count("4.0"), 1u);
    w.fail = Status::OK();
  }
  ASSERT_TRUE(w.WaitFor([&] { return w.published.count("4.0") != 0; }));
  s.Stop();
}

}  // namespace
}  // namespace ec::osd::pg
