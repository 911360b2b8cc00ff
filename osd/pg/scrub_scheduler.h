// ScrubScheduler: when the PGs this OSD is primary of are scrubbed (issue 16 item 2), with Ceph's
// options and meanings:
//   - on request: `ec-admin pg scrub|deep-scrub|repair PGID` leaves a request in etcd
//     (cluster/map/scrub_record.h); the PG's primary runs it and deletes it when done (a request
//     for a PG that is not active+clean waits until it is; one for a PG this OSD is not primary
//     of stays for the OSD that is);
//   - on schedule: an active+clean PG is deep-scrubbed when its last deep scrub is older than
//     osd_deep_scrub_interval, else scrubbed when its last scrub is older than
//     osd_scrub_min_interval (a PG never scrubbed counts from when this OSD first served it);
//   - the map's flags noscrub and nodeep-scrub (`ec-admin osd set`) stop new scheduled scrubs of
//     their kind (a PG due for a deep scrub under nodeep-scrub gets a scrub if one is due);
//     requested scrubs still run, as in Ceph; scrubs running go on to their end;
//   - at most osd_max_scrubs at once; osd_scrub_sleep between objects; osd_scrub_auto_repair
//     makes every scrub repair what it finds. Scrubs yield to client operations (primary.h).
// Every result is published (the PG's scrub record, read by `ec-admin health detail`, `ec-admin
// -s` and `ec-rados list-inconsistent-obj`) and given to the primary for its PG states.
//
// The etcd side is behind Hooks, so that tests can drive the schedule in-process.
// Thread safety: its own thread (and one per scrub running); Stop (or the destructor) joins them
// and waits for running scrubs to end. Hooks are called on those threads. Retune from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/map/scrub_record.h"
#include "common/status.h"
#include "osd/pg/pg_table.h"
#include "osd/pg/primary.h"

namespace spdlog {
class logger;
}

namespace ec::osd::pg {

struct ScrubSchedule {
  std::chrono::milliseconds min_interval{std::chrono::hours(24)};       // osd_scrub_min_interval
  std::chrono::milliseconds deep_interval{std::chrono::hours(24 * 7)};  // osd_deep_scrub_interval
  std::chrono::milliseconds sleep{0};                                   // osd_scrub_sleep
  int max_scrubs = 1;                                                   // osd_max_scrubs
  bool auto_repair = false;                                             // osd_scrub_auto_repair
  // The nice value of the threads running scrubs (ec-osd gives osd_recovery_nice): their
  // checksums and parity checks get the CPU after client operations (0: unchanged).
  int nice = 0;
  std::chrono::milliseconds poll{1000};   // how often requests and due PGs are looked for
  std::chrono::milliseconds retry{5000};  // a PG whose scrub failed is not tried again sooner
};

class ScrubScheduler {
 public:
  struct Hooks {
    // The PGs this OSD is primary of, with their states (Primary::Health).
    std::function<std::map<std::string, PgHealth>()> health;
    std::function<Result<cluster::ScrubResult>(const std::string& pgid, const ScrubRun& run)> scrub;
    // The pending requests, by pgid; and the deletion of one once served.
    std::function<Result<std::map<std::string, cluster::ScrubRequest>>()> requests;
    std::function<Status(const std::string& pgid)> request_done;
    // The published results (read once, at start), and the publication of a new one.
    std::function<Result<std::map<std::string, cluster::ScrubResult>>()> results;
    std::function<Status(const cluster::ScrubResult& result)> publish;
    // A result the primary should know of (Primary::NoteScrubResult).
    std::function<void(const cluster::ScrubResult& result)> note;
    // Whether a scheduled scrub of this kind may start now (false under the map's noscrub or
    // nodeep-scrub); null: always. kScrub and kDeepScrub are asked (a repair is only requested).
    std::function<bool(cluster::ScrubKind kind)> may_schedule;
  };

  ScrubScheduler(ScrubSchedule schedule, Hooks hooks, std::shared_ptr<spdlog::logger> log);
  ~ScrubScheduler();
  ScrubScheduler(const ScrubScheduler&) = delete;
  ScrubScheduler& operator=(const ScrubScheduler&) = delete;
  void Stop();

  // Takes `schedule`'s intervals, sleep, max_scrubs (at least 1) and auto_repair from the next
  // pass on (osd_scrub_* changed at runtime); scrubs running keep theirs. nice, poll and retry
  // stay as constructed.
  void Retune(const ScrubSchedule& schedule);

 private:
  struct Stamps {
    // When the PG was last scrubbed / deep-scrubbed, or, never having been, when this OSD first
    // served it (what the intervals count from).
    std::chrono::system_clock::time_point scrub, deep;
    std::int64_t deep_ms = 0;  // the last real deep scrub, as records carry it (0: never)
  };
  void Loop();
  // One pass: reaps finished scrubs, then starts requested and due ones within max_scrubs.
  void Pass();
  void Finish(const std::string& pgid, bool requested, const ScrubRun& run,
              Result<cluster::ScrubResult> result);

  ScrubSchedule schedule_;
  Hooks hooks_;
  std::shared_ptr<spdlog::logger> log_;
  bool loaded_ = false;  // the published results were read
  std::map<std::string, Stamps> stamps_;
  std::map<std::string, std::chrono::steady_clock::time_point> retry_after_;
  std::map<std::string, std::future<void>> running_;  // pgid -> its scrub
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<bool> cancel_{false};  // set by Stop: running scrubs end
  std::thread thread_;
};

}  // namespace ec::osd::pg
