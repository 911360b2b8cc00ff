// Internal to the client library (rados.cc: connect, open, reads, writes, lists; rados_meta.cc:
// the object metadata calls): Rados::Impl, which finds each object's primary from the map and
// runs an operation there with the retries rados.h describes. rados.h is the contract.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "cluster/client/rados.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/map/map_holder.h"
#include "cluster/map/map_store.h"
#include "cluster/map/map_watcher.h"
#include "cluster/map/object_locator.h"
#include "msg/peer_clients.h"

namespace ec::cluster::client {
namespace detail {

using Clock = std::chrono::steady_clock;

// Nothing reached the OSD: any operation may be sent again.
inline bool NotSent(const Status& s) {
  return s.code() == ECONNREFUSED;
}

// The OSD may have executed it (EINPROGRESS: the primary could not undo a partial write, which a
// later resolve may complete; osd/pg/object_io.h).
inline bool Ambiguous(const Status& s) {
  return s.code() == ETIMEDOUT || s.code() == ECONNRESET || s.code() == EPIPE ||
         s.code() == EINPROGRESS;
}

inline Status CheckName(const std::string& object) {
  if (object.empty()) return Status::Invalid("empty object name");
  if (object.size() > kMaxObjectNameLen) {
    return Status::Error(ENAMETOOLONG, fmt::format("object name of {} bytes, above the limit of {}",
                                                   object.size(), kMaxObjectNameLen));
  }
  return Status::OK();
}

}  // namespace detail

class Rados::Impl {
  using Clock = detail::Clock;

 public:
  Impl(ClientOptions options, etcd::ClientOptions etcd)
      : options_(std::move(options)),
        etcd_options_(etcd),
        etcd_(etcd),
        store_(&etcd_, options_.etcd_prefix),
        // One io thread for every OSD: an operation's completion starts the next one to another
        // OSD on the same thread, without a wake-up of that OSD's own thread (a context switch
        // per operation; completions never block, rados.h).
        peers_(msg::PeerOptions{options_.name, std::chrono::milliseconds(3000),
                                options_.attempt_timeout, 1, 1, msg::TrafficClass::kClient, 0, true,
                                msg::ClientAuth{options_.auth, options_.name, options_.key}}),
        pool_(static_cast<std::size_t>(std::max(1, options_.async_threads))) {}

  ~Impl() {
    DrainAsync();  // their retries run on the pool: before it stops
    pool_.join();
    if (watcher_) watcher_->Stop();
    peers_.CloseAll();
  }

  Status Start() {
    auto map = store_.Load();
    if (!map.ok()) {
      return map.status().WithPrefix("cannot read the cluster map from etcd at " +
                                     options_.etcd_endpoints);
    }
    maps_.Set(*map);
    watcher_ = std::make_unique<MapWatcher>(
        etcd_options_, options_.etcd_prefix, *map, [this](const ClusterMap& m) { maps_.Set(m); },
        [](const Status&) {});
    return Status::OK();
  }

  std::shared_ptr<const ClusterMap> map() const { return maps_.Get(); }

  Result<std::shared_ptr<const ObjectLocator>> Locator() {
    auto map = maps_.Get();
    std::lock_guard lock(mu_);
    if (!locator_ || locator_->map().epoch != map->epoch) {
      auto made = ObjectLocator::Make(map);
      if (!made.ok()) return made.status();
      locator_ = std::move(made).value();
    }
    return locator_;
  }

  // A newer map than `epoch`: from the watcher within `wait`, else read from etcd.
  void Refresh(std::int64_t epoch, std::chrono::milliseconds wait) {
    auto m = maps_.WaitForEpoch(epoch + 1, wait);
    if (m->epoch > epoch) return;
    auto loaded = store_.Load();
    if (loaded.ok()) maps_.Set(*loaded);
  }

  // Sends `op` to the primary of (pool, object) -- or of (pool, pg) when object is null --
  // retrying as the header says.
  using Op = std::function<Status(msg::OsdClient& osd, std::uint64_t epoch)>;
  // One try started; `tried` is called once with its status, from any thread, without blocking.
  using AsyncOp =
      std::function<void(msg::OsdClient& osd, std::uint64_t epoch, std::function<void(Status)>)>;

  // Where an operation is in its retries.
  struct Tries {
    Clock::time_point start;
    Clock::time_point deadline;
    int attempt = 0;
    Status last;
  };
  Tries NewTries() const {
    const auto now = Clock::now();
    return Tries{now, now + options_.op_timeout, 0, Status::OK()};
  }

  Status Run(std::int64_t pool, const std::string* object, std::uint32_t pg, bool retry_ambiguous,
             const Op& op, bool* was_ambiguous = nullptr) {
    return Continue(pool, object, pg, retry_ambiguous, op, was_ambiguous, NewTries());
  }

  // Run's loop, from try t.attempt on.
  Status Continue(std::int64_t pool, const std::string* object, std::uint32_t pg,
                  bool retry_ambiguous, const Op& op, bool* was_ambiguous, Tries t) {
    for (;; ++t.attempt) {
      if (t.attempt > 0 && Clock::now() >= t.deadline) {
        const double secs = std::chrono::duration<double>(Clock::now() - t.start).count();
        return Status::Error(t.last.code() == 0 ? ETIMEDOUT : t.last.code(),
                             fmt::format("gave up after {:.1f} s: {}", secs, t.last.message()));
      }
      auto locator = Locator();
      if (!locator.ok()) return locator.status();
      const ClusterMap& map = (*locator)->map();
      auto loc = object ? (*locator)->LocateObject(pool, *object) : (*locator)->LocatePg(pool, pg);
      if (!loc.ok()) return loc.status();
      if (loc->primary == kItemNone) {
        t.last = Status::Retryable(EAGAIN, "pg " + loc->pgid + " has no OSD up");
        maps_.WaitForEpoch(map.epoch + 1, WaitOf(t));
        continue;
      }
      auto osd = peers_.Get(loc->primary, map.osds.at(loc->primary).addr);
      if (!osd.ok()) return osd.status();
      Status s = op(**osd, static_cast<std::uint64_t>(map.epoch));
      if (s.ok()) return s;
      Status result;
      if (!Retry(s, loc->primary, map.epoch, retry_ambiguous, was_ambiguous, t, &result)) {
        return result;
      }
    }
  }

  // After a try at osd.`primary` with the map at `epoch` failed with `s`: true to try again
  // (having waited as the failure asks), false with the final status in *result.
  bool Retry(const Status& s, int primary, std::int64_t epoch, bool retry_ambiguous,
             bool* was_ambiguous, Tries& t, Status* result) {
    t.last = s.WithPrefix("osd." + std::to_string(primary));
    if (detail::Ambiguous(s)) {
      if (was_ambiguous) *was_ambiguous = true;
      if (!retry_ambiguous) {
        *result = t.last;
        return false;
      }
    }
    const auto wait = WaitOf(t);
    if (s.code() == ESTALE && s.is_retryable()) {
      Refresh(epoch, std::chrono::milliseconds(200));
    } else if (detail::NotSent(s) || detail::Ambiguous(s)) {
      // The OSD is going down: its down mark is a new epoch.
      maps_.WaitForEpoch(epoch + 1, wait);
    } else if (s.is_retryable()) {
      std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
          std::chrono::milliseconds(20 << std::min(t.attempt, 4)), wait));
    } else {
      *result = s;
      return false;
    }
    return true;
  }

  static std::chrono::milliseconds WaitOf(const Tries& t) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(t.deadline - Clock::now());
    return std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(1000));
  }

  // Run without blocking the caller: the first try is sent from the calling thread and its reply
  // handled on the connection's io thread; a try that must be retried continues Run's loop on
  // the pool (its waits block). `done` runs exactly once (see IoCtx's Aio* contract).
  void RunAsync(std::int64_t pool, std::string object, bool retry_ambiguous, AsyncOp op,
                std::function<void(Status)> done) {
    BeginAsync();
    auto finish = [this, done = std::move(done)](Status s) {
      done(std::move(s));
      EndAsync();
    };
    auto locator = Locator();
    if (!locator.ok()) return finish(locator.status());
    const ClusterMap& map = (*locator)->map();
    auto loc = (*locator)->LocateObject(pool, object);
    if (!loc.ok()) return finish(loc.status());
    Result<std::shared_ptr<msg::OsdClient>> osd = Status::Retryable(EAGAIN, "no primary");
    if (loc->primary != kItemNone) osd = peers_.Get(loc->primary, map.osds.at(loc->primary).addr);
    if (!osd.ok()) {
      // No primary now, or no client for it: the synchronous loop waits for the map.
      boost::asio::post(pool_, [this, pool, object = std::move(object), retry_ambiguous,
                                op = std::move(op), finish = std::move(finish)]() mutable {
        finish(Run(pool, &object, 0, retry_ambiguous, SyncOf(op)));
      });
      return;
    }
    const int primary = loc->primary;
    const std::int64_t epoch = map.epoch;
    AsyncOp first = op;
    first(**osd, static_cast<std::uint64_t>(epoch),
          [this, pool, object = std::move(object), retry_ambiguous, op = std::move(op),
           finish = std::move(finish), primary, epoch, t = NewTries()](Status s) mutable {
            if (s.ok()) return finish(std::move(s));
            boost::asio::post(
                pool_, [this, pool, object = std::move(object), retry_ambiguous, op = std::move(op),
                        finish = std::move(finish), primary, epoch, t, s = std::move(s)]() mutable {
                  Status result;
                  if (!Retry(s, primary, epoch, retry_ambiguous, nullptr, t, &result)) {
                    return finish(std::move(result));
                  }
                  ++t.attempt;
                  finish(Continue(pool, &object, 0, retry_ambiguous, SyncOf(op), nullptr, t));
                });
          });
  }

  static Op SyncOf(AsyncOp op) {
    return [op = std::move(op)](msg::OsdClient& osd, std::uint64_t epoch) {
      std::promise<Status> p;
      auto f = p.get_future();
      op(osd, epoch, [&p](Status s) { p.set_value(std::move(s)); });
      return f.get();
    };
  }

  void BeginAsync() {
    std::lock_guard lock(async_mu_);
    ++async_inflight_;
  }
  void EndAsync() {
    std::lock_guard lock(async_mu_);
    if (--async_inflight_ == 0) async_idle_.notify_all();
  }
  // Until every RunAsync has called its `done`.
  void DrainAsync() {
    std::unique_lock lock(async_mu_);
    async_idle_.wait(lock, [this] { return async_inflight_ == 0; });
  }

  template <typename Fn>
  auto Async(Fn fn) -> std::future<decltype(fn())> {
    using R = decltype(fn());
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(fn));
    auto fut = task->get_future();
    boost::asio::post(pool_, [task] { (*task)(); });
    return fut;
  }

  msg::CallOptions Call() const {
    msg::CallOptions c;
    c.timeout = options_.attempt_timeout;
    return c;
  }
  // A write's start_within_ms (msg/messages.h): half of a try's time, so that a try this client
  // gives up on (and reports failed) is not begun later by its primary, and one begun in time
  // has the other half to finish.
  std::uint32_t StartWithinMs() const {
    const auto ms = options_.attempt_timeout.count() / 2;
    return static_cast<std::uint32_t>(std::clamp<std::int64_t>(ms, 1, UINT32_MAX));
  }

  // --- Direct reads (see the header) ---
  struct Direct {
    int osd = 0;
    std::string addr;
    std::uint32_t shard = 0;
    std::int64_t epoch = 0;
    std::string pgid;
  };
  static std::string BackoffKey(const std::string& pgid, int osd) {
    return pgid + "/" + std::to_string(osd);
  }
  // Where a direct read of bytes [offset, offset + length) of (pool, object) goes: the OSD of the
  // one data shard holding them, from this client's map; nullopt to read through the primary.
  std::optional<Direct> DirectTarget(std::int64_t pool, const std::string& object,
                                     std::uint64_t offset, std::uint64_t length) {
    if (length == 0) return std::nullopt;  // to the end: only the primary knows where that is
    auto locator = Locator();
    if (!locator.ok()) return std::nullopt;
    const ClusterMap& map = (*locator)->map();
    auto p = map.pools.find(pool);
    if (p == map.pools.end() || p->second.data_chunks.empty() || p->second.stripe_unit == 0) {
      return std::nullopt;
    }
    const std::uint64_t su = p->second.stripe_unit;
    const std::uint64_t width = su * p->second.data_chunks.size();
    const std::uint64_t in_stripe = offset % width;
    if (length > su || in_stripe % su > su - length) return std::nullopt;  // more than a chunk
    const int chunk = p->second.data_chunks[in_stripe / su];
    auto loc = (*locator)->LocateObject(pool, object);
    if (!loc.ok() || loc->up_count() != static_cast<int>(loc->acting.size()) || chunk < 0 ||
        chunk >= static_cast<int>(loc->acting.size())) {
      return std::nullopt;
    }
    const int osd = loc->acting[static_cast<std::size_t>(chunk)];
    // The primary serves a read of its own shard at once anyway (no sub-read).
    if (osd == loc->primary) return std::nullopt;
    auto o = map.osds.find(osd);
    if (o == map.osds.end() || o->second.addr.empty()) return std::nullopt;
    // The table of backoffs only while one may still run (most reads never look).
    const auto now = Clock::now();
    if (now.time_since_epoch().count() < backoff_latest_.load(std::memory_order_relaxed)) {
      std::lock_guard lock(direct_mu_);
      auto b = backoff_.find(BackoffKey(loc->pgid, osd));
      if (b != backoff_.end() && now < b->second) return std::nullopt;
    }
    return Direct{osd, o->second.addr, static_cast<std::uint32_t>(chunk), map.epoch,
                  std::move(loc->pgid)};
  }

  // One direct read try; `done` once, with the bytes or why not (the PG then backs off).
  void DirectAsync(const Direct& d, std::int64_t pool, const std::string& object,
                   std::uint64_t offset, std::uint64_t length,
                   std::function<void(Result<Buffer>)> done) {
    auto osd = peers_.Get(d.osd, d.addr);
    if (!osd.ok()) {
      BackOff(d.pgid, d.osd);
      return done(osd.status());
    }
    msg::ObjDirectReadRequest r;
    r.pool = static_cast<std::uint64_t>(pool);
    r.epoch = static_cast<std::uint64_t>(d.epoch);
    r.object = object;
    r.shard = d.shard;
    r.offset = offset;
    r.length = length;
    msg::CallOptions c;
    c.timeout = std::min(options_.direct_read_timeout, options_.attempt_timeout);
    (*osd)->ObjDirectReadAsync(
        std::move(r),
        [this, pgid = d.pgid, osd_id = d.osd, done = std::move(done)](Result<Buffer> got) {
          if (got.ok()) {
            direct_served_.fetch_add(1, std::memory_order_relaxed);
          } else {
            direct_refused_.fetch_add(1, std::memory_order_relaxed);
            BackOff(pgid, osd_id);
          }
          done(std::move(got));
        },
        c);
  }

  void BackOff(const std::string& pgid, int osd) {
    const auto now = Clock::now();
    const auto until = now + kDirectBackoff;
    std::lock_guard lock(direct_mu_);
    if (backoff_.size() > 4096) {
      std::erase_if(backoff_, [&](const auto& e) { return e.second < now; });
    }
    backoff_[BackoffKey(pgid, osd)] = until;
    if (until.time_since_epoch().count() > backoff_latest_.load(std::memory_order_relaxed)) {
      backoff_latest_.store(until.time_since_epoch().count(), std::memory_order_relaxed);
    }
  }

  DirectReadCounts direct_counts() const {
    return DirectReadCounts{direct_served_.load(), direct_refused_.load()};
  }

  ClientOptions options_;
  etcd::ClientOptions etcd_options_;
  etcd::Client etcd_;
  MapStore store_;
  MapHolder maps_;
  std::unique_ptr<MapWatcher> watcher_;
  msg::PeerClients peers_;
  std::mutex mu_;
  std::shared_ptr<const ObjectLocator> locator_;
  std::mutex async_mu_;
  std::condition_variable async_idle_;
  std::uint64_t async_inflight_ = 0;
  std::mutex direct_mu_;
  // "pgid/osd" -> until when reads of the PG's shard on that OSD go through the primary
  std::map<std::string, Clock::time_point> backoff_;
  std::atomic<Clock::rep> backoff_latest_{0};  // the latest end of any backoff set
  std::atomic<std::uint64_t> direct_served_{0};
  std::atomic<std::uint64_t> direct_refused_{0};
  boost::asio::thread_pool pool_;
};

}  // namespace ec::cluster::client
