#include "cluster/client/rados.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/http_connection.h"
#include "cluster/map/map_holder.h"
#include "cluster/map/map_store.h"
#include "cluster/map/map_watcher.h"
#include "cluster/map/object_locator.h"
#include "common/config.h"
#include "msg/peer_clients.h"

namespace ec::cluster::client {
namespace {

using Clock = std::chrono::steady_clock;

Buffer Copy(std::span<const std::byte> data) {
  Buffer b = Buffer::Allocate(data.size(), false);
  if (!data.empty()) std::memcpy(const_cast<std::byte*>(b.data()), data.data(), data.size());
  return b;
}

// Nothing reached the OSD: any operation may be sent again.
bool NotSent(const Status& s) {
  return s.code() == ECONNREFUSED;
}

// The OSD may have executed it (EINPROGRESS: the primary could not undo a partial write, which a
// later resolve may complete; osd/pg/object_io.h).
bool Ambiguous(const Status& s) {
  return s.code() == ETIMEDOUT || s.code() == ECONNRESET || s.code() == EPIPE ||
         s.code() == EINPROGRESS;
}

Status CheckName(const std::string& object) {
  if (object.empty()) return Status::Invalid("empty object name");
  if (object.size() > kMaxObjectNameLen) {
    return Status::Error(ENAMETOOLONG, fmt::format("object name of {} bytes, above the limit of {}",
                                                   object.size(), kMaxObjectNameLen));
  }
  return Status::OK();
}

msg::ObjWriteRequest WriteRequestOf(std::int64_t pool, std::uint64_t epoch,
                                    const std::string& object, msg::ObjWriteMode mode,
                                    std::uint64_t offset) {
  msg::ObjWriteRequest r;
  r.pool = static_cast<std::uint64_t>(pool);
  r.epoch = epoch;
  r.object = object;
  r.mode = mode;
  r.offset = mode == msg::ObjWriteMode::kWrite ? offset : 0;
  return r;
}

msg::ObjReadRequest ReadRequestOf(std::int64_t pool, std::uint64_t epoch, const std::string& object,
                                  std::uint64_t offset, std::uint64_t length) {
  msg::ObjReadRequest r;
  r.pool = static_cast<std::uint64_t>(pool);
  r.epoch = epoch;
  r.object = object;
  r.offset = offset;
  r.length = length;
  return r;
}

ReadResult DirectResult(Buffer data) {
  ReadResult out;
  out.device_bytes = data.size();
  out.data = std::move(data);
  out.direct = true;
  return out;
}

void TakeRead(msg::ObjReadResult&& got, ReadResult* out) {
  out->data = std::move(got.data);
  out->version = got.version;
  out->object_size = got.object_size;
  out->degraded = got.degraded;
  out->network_bytes = got.network_bytes;
  out->device_bytes = got.device_bytes;
}

}  // namespace

Result<ClientOptions> ClientOptionsFromConfig(const std::string& path) {
  auto c = ec::LoadClientConfig(path);
  if (!c.ok()) return c.status();
  ClientOptions o;
  o.etcd_endpoints = c->etcd_endpoints;
  o.etcd_prefix = c->etcd_prefix;
  o.etcd_op_timeout = c->etcd_op_timeout;
  return o;
}

class Rados::Impl {
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
                                options_.attempt_timeout, 1, 1, msg::TrafficClass::kClient, 0,
                                true}),
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
    if (Ambiguous(s)) {
      if (was_ambiguous) *was_ambiguous = true;
      if (!retry_ambiguous) {
        *result = t.last;
        return false;
      }
    }
    const auto wait = WaitOf(t);
    if (s.code() == ESTALE && s.is_retryable()) {
      Refresh(epoch, std::chrono::milliseconds(200));
    } else if (NotSent(s) || Ambiguous(s)) {
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

Rados::Rados(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Rados::~Rados() = default;

Result<std::unique_ptr<Rados>> Rados::Connect(ClientOptions options) {
  auto endpoints = etcd::ParseEndpoints(options.etcd_endpoints);
  if (!endpoints.ok()) {
    return Status::Invalid("etcd_endpoints '" + options.etcd_endpoints +
                           "': " + endpoints.status().message());
  }
  etcd::ClientOptions eo;
  eo.endpoints = *endpoints;
  eo.timeout = options.etcd_op_timeout;
  auto impl = std::make_unique<Impl>(std::move(options), eo);
  EC_RETURN_IF_ERROR(impl->Start());
  return std::unique_ptr<Rados>(new Rados(std::move(impl)));
}

Result<IoCtx> Rados::OpenPool(const std::string& name) {
  auto map = impl_->map();
  const Pool* pool = map->FindPool(name);
  if (pool == nullptr) {
    impl_->Refresh(map->epoch, std::chrono::milliseconds(0));
    map = impl_->map();
    pool = map->FindPool(name);
  }
  if (pool == nullptr) return Status::NotFound("pool '" + name + "' does not exist");
  return IoCtx(this, pool->id, pool->name, impl_->options_.direct_reads);
}

std::shared_ptr<const ClusterMap> Rados::map() const {
  return impl_->map();
}

DirectReadCounts Rados::direct_reads() const {
  return impl_->direct_counts();
}

namespace {

Result<std::uint64_t> DoWrite(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                              msg::ObjWriteMode mode, const Buffer& data, std::uint64_t offset) {
  EC_RETURN_IF_ERROR(CheckName(object));
  std::uint64_t version = 0;
  // write and write_full put the same bytes at the same place: sending them twice is harmless.
  const bool idempotent = mode != msg::ObjWriteMode::kAppend;
  Status s = impl.Run(pool, &object, 0, idempotent, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjWrite(WriteRequestOf(pool, epoch, object, mode, offset), {data}, impl.Call());
    if (!got.ok()) return got.status();
    version = got->version;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return version;
}

}  // namespace

Result<std::uint64_t> IoCtx::Write(const std::string& object, std::span<const std::byte> data,
                                   std::uint64_t offset) {
  return DoWrite(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWrite, Copy(data), offset);
}

Result<std::uint64_t> IoCtx::WriteFull(const std::string& object, std::span<const std::byte> data) {
  return DoWrite(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWriteFull, Copy(data), 0);
}

Result<std::uint64_t> IoCtx::Append(const std::string& object, std::span<const std::byte> data) {
  return DoWrite(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kAppend, Copy(data), 0);
}

Result<ReadResult> IoCtx::Read(const std::string& object, std::uint64_t offset,
                               std::uint64_t length) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  if (auto d = direct_reads_ ? impl.DirectTarget(pool_id_, object, offset, length) : std::nullopt) {
    std::promise<Result<Buffer>> p;
    auto f = p.get_future();
    impl.DirectAsync(*d, pool_id_, object, offset, length,
                     [&p](Result<Buffer> got) { p.set_value(std::move(got)); });
    auto got = f.get();
    if (got.ok()) return DirectResult(std::move(got).value());
    // Refused or failed: through the primary, which can do everything a read needs.
  }
  ReadResult out;
  Status s = impl.Run(pool_id_, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjRead(ReadRequestOf(pool_id_, epoch, object, offset, length), impl.Call());
    if (!got.ok()) return got.status();
    TakeRead(std::move(got).value(), &out);
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<ObjectStat> IoCtx::Stat(const std::string& object) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  ObjectStat out;
  Status s = impl.Run(pool_id_, &object, 0, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjStat(msg::ObjStatRequest{static_cast<std::uint64_t>(pool_id_), epoch, object},
                           impl.Call());
    if (!got.ok()) return got.status();
    out.size = got->size;
    out.version = got->version;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Status IoCtx::Remove(const std::string& object) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  bool ambiguous = false;
  Status s = impl.Run(
      pool_id_, &object, 0, true,
      [&](msg::OsdClient& osd, std::uint64_t epoch) {
        return osd
            .ObjRemove(msg::ObjRemoveRequest{static_cast<std::uint64_t>(pool_id_), epoch, object},
                       impl.Call())
            .status();
      },
      &ambiguous);
  // The first try removed it and its reply was lost.
  if (ambiguous && s.code() == ENOENT) return Status::OK();
  return s;
}

Result<std::vector<std::string>> IoCtx::List() {
  Rados::Impl& impl = *rados_->impl_;
  auto map = impl.map();
  auto it = map->pools.find(pool_id_);
  if (it == map->pools.end()) {
    return Status::NotFound("pool '" + pool_name_ + "' does not exist");
  }
  std::vector<std::string> all;
  for (std::uint32_t pg = 0; pg < it->second.pg_num; ++pg) {
    std::string cursor;
    bool end = false;
    while (!end) {
      std::vector<std::string> page;
      Status s =
          impl.Run(pool_id_, nullptr, pg, true, [&](msg::OsdClient& osd, std::uint64_t epoch) {
            msg::ObjListRequest r;
            r.pool = static_cast<std::uint64_t>(pool_id_);
            r.epoch = epoch;
            r.pg = pg;
            r.cursor = cursor;
            r.max_entries = 1024;
            auto got = osd.ObjList(std::move(r), impl.Call());
            if (!got.ok()) return got.status();
            page = std::move(got->objects);
            cursor = got->next_cursor;
            end = got->end;
            return Status::OK();
          });
      if (!s.ok()) return s;
      all.insert(all.end(), page.begin(), page.end());
    }
  }
  return all;
}

std::future<Result<std::uint64_t>> IoCtx::WriteAsync(const std::string& object,
                                                     std::span<const std::byte> data,
                                                     std::uint64_t offset) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data), offset] {
        return DoWrite(*impl, pool, object, msg::ObjWriteMode::kWrite, data, offset);
      });
}

std::future<Result<std::uint64_t>> IoCtx::WriteFullAsync(const std::string& object,
                                                         std::span<const std::byte> data) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data)] {
        return DoWrite(*impl, pool, object, msg::ObjWriteMode::kWriteFull, data, 0);
      });
}

std::future<Result<std::uint64_t>> IoCtx::AppendAsync(const std::string& object,
                                                      std::span<const std::byte> data) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data)] {
        return DoWrite(*impl, pool, object, msg::ObjWriteMode::kAppend, data, 0);
      });
}

std::future<Result<ReadResult>> IoCtx::ReadAsync(const std::string& object, std::uint64_t offset,
                                                 std::uint64_t length) {
  IoCtx self = *this;
  return rados_->impl_->Async(
      [self, object, offset, length]() mutable { return self.Read(object, offset, length); });
}

std::future<Result<ObjectStat>> IoCtx::StatAsync(const std::string& object) {
  IoCtx self = *this;
  return rados_->impl_->Async([self, object]() mutable { return self.Stat(object); });
}

std::future<Status> IoCtx::RemoveAsync(const std::string& object) {
  IoCtx self = *this;
  return rados_->impl_->Async([self, object]() mutable { return self.Remove(object); });
}

namespace {

// The op of one write try, for RunAsync: *version is set when it succeeds.
Rados::Impl::AsyncOp WriteOp(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                             msg::ObjWriteMode mode, Buffer data, std::uint64_t offset,
                             std::shared_ptr<std::uint64_t> version) {
  return [&impl, pool, object, mode, data = std::move(data), offset, version](
             msg::OsdClient& osd, std::uint64_t epoch, std::function<void(Status)> tried) {
    osd.ObjWriteAsync(
        WriteRequestOf(pool, epoch, object, mode, offset), {data},
        [version, tried = std::move(tried)](Result<msg::ObjWriteResult> got) {
          if (got.ok()) *version = got->version;
          tried(got.ok() ? Status::OK() : got.status());
        },
        impl.Call());
  };
}

void AioWriteOf(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                msg::ObjWriteMode mode, Buffer data, std::uint64_t offset,
                IoCtx::Completion<std::uint64_t> done) {
  if (Status bad = CheckName(object); !bad.ok()) return done(bad);
  auto version = std::make_shared<std::uint64_t>(0);
  // As the synchronous forms: only an append is not sent again after an ambiguous failure.
  const bool idempotent = mode != msg::ObjWriteMode::kAppend;
  impl.RunAsync(pool, object, idempotent,
                WriteOp(impl, pool, object, mode, std::move(data), offset, version),
                [version, done = std::move(done)](Status s) {
                  if (!s.ok()) return done(std::move(s));
                  done(*version);
                });
}

}  // namespace

void IoCtx::AioWrite(const std::string& object, Buffer data, std::uint64_t offset,
                     Completion<std::uint64_t> done) {
  AioWriteOf(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWrite, std::move(data), offset,
             std::move(done));
}

void IoCtx::AioWriteFull(const std::string& object, Buffer data, Completion<std::uint64_t> done) {
  AioWriteOf(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kWriteFull, std::move(data), 0,
             std::move(done));
}

void IoCtx::AioAppend(const std::string& object, Buffer data, Completion<std::uint64_t> done) {
  AioWriteOf(*rados_->impl_, pool_id_, object, msg::ObjWriteMode::kAppend, std::move(data), 0,
             std::move(done));
}

namespace {

void AioReadThroughPrimary(Rados::Impl& impl, std::int64_t pool_id, const std::string& object,
                           std::uint64_t offset, std::uint64_t length,
                           IoCtx::Completion<ReadResult> done) {
  auto out = std::make_shared<ReadResult>();
  auto op = [&impl, pool = pool_id, object, offset, length, out](
                msg::OsdClient& osd, std::uint64_t epoch, std::function<void(Status)> tried) {
    osd.ObjReadAsync(
        ReadRequestOf(pool, epoch, object, offset, length),
        [out, tried = std::move(tried)](Result<msg::ObjReadResult> got) {
          if (!got.ok()) return tried(got.status());
          TakeRead(std::move(got).value(), out.get());
          tried(Status::OK());
        },
        impl.Call());
  };
  impl.RunAsync(pool_id, object, true, std::move(op), [out, done = std::move(done)](Status s) {
    if (!s.ok()) return done(std::move(s));
    done(std::move(*out));
  });
}

}  // namespace

void IoCtx::AioRead(const std::string& object, std::uint64_t offset, std::uint64_t length,
                    Completion<ReadResult> done) {
  if (Status bad = CheckName(object); !bad.ok()) return done(bad);
  Rados::Impl& impl = *rados_->impl_;
  auto d = direct_reads_ ? impl.DirectTarget(pool_id_, object, offset, length) : std::nullopt;
  if (!d) return AioReadThroughPrimary(impl, pool_id_, object, offset, length, std::move(done));
  // Counted as in flight from here, so that Rados's destructor waits for the fallback too.
  impl.BeginAsync();
  impl.DirectAsync(*d, pool_id_, object, offset, length,
                   [&impl, pool = pool_id_, object, offset, length,
                    done = std::move(done)](Result<Buffer> got) mutable {
                     if (got.ok()) {
                       done(DirectResult(std::move(got).value()));
                     } else {
                       AioReadThroughPrimary(impl, pool, object, offset, length, std::move(done));
                     }
                     impl.EndAsync();
                   });
}

}  // namespace ec::cluster::client
