#include "cluster/client/rados.h"

#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/http_connection.h"
#include "cluster/map/map_holder.h"
#include "cluster/map/map_store.h"
#include "cluster/map/map_watcher.h"
#include "cluster/map/object_locator.h"
#include "osd/daemon/config.h"
#include "osd/net/peer_clients.h"

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

}  // namespace

Result<ClientOptions> ClientOptionsFromConfig(const std::string& path) {
  auto c = osd::LoadClientConfig(path);
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
        peers_(net::PeerOptions{options_.name, std::chrono::milliseconds(3000),
                                options_.attempt_timeout, 1, 2}),
        pool_(static_cast<std::size_t>(std::max(1, options_.async_threads))) {}

  ~Impl() {
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
  using Op = std::function<Status(net::OsdClient& osd, std::uint64_t epoch)>;
  Status Run(std::int64_t pool, const std::string* object, std::uint32_t pg, bool retry_ambiguous,
             const Op& op, bool* was_ambiguous = nullptr) {
    const auto start = Clock::now();
    const auto deadline = start + options_.op_timeout;
    Status last;
    for (int attempt = 0;; ++attempt) {
      if (attempt > 0 && Clock::now() >= deadline) {
        const double secs = std::chrono::duration<double>(Clock::now() - start).count();
        return Status::Error(last.code() == 0 ? ETIMEDOUT : last.code(),
                             fmt::format("gave up after {:.1f} s: {}", secs, last.message()));
      }
      auto locator = Locator();
      if (!locator.ok()) return locator.status();
      const ClusterMap& map = (*locator)->map();
      auto loc = object ? (*locator)->LocateObject(pool, *object) : (*locator)->LocatePg(pool, pg);
      if (!loc.ok()) return loc.status();
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      const auto wait =
          std::clamp(left, std::chrono::milliseconds(1), std::chrono::milliseconds(1000));
      if (loc->primary == kItemNone) {
        last = Status::Retryable(EAGAIN, "pg " + loc->pgid + " has no OSD up");
        maps_.WaitForEpoch(map.epoch + 1, wait);
        continue;
      }
      auto osd = peers_.Get(loc->primary, map.osds.at(loc->primary).addr);
      if (!osd.ok()) return osd.status();
      Status s = op(**osd, static_cast<std::uint64_t>(map.epoch));
      if (s.ok()) return s;
      last = s.WithPrefix("osd." + std::to_string(loc->primary));
      if (Ambiguous(s)) {
        if (was_ambiguous) *was_ambiguous = true;
        if (!retry_ambiguous) return last;
      }
      if (s.code() == ESTALE && s.is_retryable()) {
        Refresh(map.epoch, std::chrono::milliseconds(200));
      } else if (NotSent(s) || Ambiguous(s)) {
        // The OSD is going down: its down mark is a new epoch.
        maps_.WaitForEpoch(map.epoch + 1, wait);
      } else if (s.is_retryable()) {
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
            std::chrono::milliseconds(20 << std::min(attempt, 4)), wait));
      } else {
        return s;
      }
    }
  }

  template <typename Fn>
  auto Async(Fn fn) -> std::future<decltype(fn())> {
    using R = decltype(fn());
    auto task = std::make_shared<std::packaged_task<R()>>(std::move(fn));
    auto fut = task->get_future();
    boost::asio::post(pool_, [task] { (*task)(); });
    return fut;
  }

  net::CallOptions Call() const {
    net::CallOptions c;
    c.timeout = options_.attempt_timeout;
    return c;
  }

  ClientOptions options_;
  etcd::ClientOptions etcd_options_;
  etcd::Client etcd_;
  MapStore store_;
  MapHolder maps_;
  std::unique_ptr<MapWatcher> watcher_;
  net::PeerClients peers_;
  std::mutex mu_;
  std::shared_ptr<const ObjectLocator> locator_;
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
  return IoCtx(this, pool->id, pool->name);
}

std::shared_ptr<const ClusterMap> Rados::map() const {
  return impl_->map();
}

namespace {

Result<std::uint64_t> DoWrite(Rados::Impl& impl, std::int64_t pool, const std::string& object,
                              net::ObjWriteMode mode, const Buffer& data, std::uint64_t offset) {
  EC_RETURN_IF_ERROR(CheckName(object));
  std::uint64_t version = 0;
  // write and write_full put the same bytes at the same place: sending them twice is harmless.
  const bool idempotent = mode != net::ObjWriteMode::kAppend;
  Status s = impl.Run(pool, &object, 0, idempotent, [&](net::OsdClient& osd, std::uint64_t epoch) {
    net::ObjWriteRequest r;
    r.pool = static_cast<std::uint64_t>(pool);
    r.epoch = epoch;
    r.object = object;
    r.mode = mode;
    r.offset = mode == net::ObjWriteMode::kWrite ? offset : 0;
    auto got = osd.ObjWrite(std::move(r), {data}, impl.Call());
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
  return DoWrite(*rados_->impl_, pool_id_, object, net::ObjWriteMode::kWrite, Copy(data), offset);
}

Result<std::uint64_t> IoCtx::WriteFull(const std::string& object, std::span<const std::byte> data) {
  return DoWrite(*rados_->impl_, pool_id_, object, net::ObjWriteMode::kWriteFull, Copy(data), 0);
}

Result<std::uint64_t> IoCtx::Append(const std::string& object, std::span<const std::byte> data) {
  return DoWrite(*rados_->impl_, pool_id_, object, net::ObjWriteMode::kAppend, Copy(data), 0);
}

Result<ReadResult> IoCtx::Read(const std::string& object, std::uint64_t offset,
                               std::uint64_t length) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  ReadResult out;
  Status s = impl.Run(pool_id_, &object, 0, true, [&](net::OsdClient& osd, std::uint64_t epoch) {
    net::ObjReadRequest r;
    r.pool = static_cast<std::uint64_t>(pool_id_);
    r.epoch = epoch;
    r.object = object;
    r.offset = offset;
    r.length = length;
    auto got = osd.ObjRead(std::move(r), impl.Call());
    if (!got.ok()) return got.status();
    out.data = std::move(got->data);
    out.version = got->version;
    out.object_size = got->object_size;
    out.degraded = got->degraded;
    out.network_bytes = got->network_bytes;
    out.device_bytes = got->device_bytes;
    return Status::OK();
  });
  if (!s.ok()) return s;
  return out;
}

Result<ObjectStat> IoCtx::Stat(const std::string& object) {
  EC_RETURN_IF_ERROR(CheckName(object));
  Rados::Impl& impl = *rados_->impl_;
  ObjectStat out;
  Status s = impl.Run(pool_id_, &object, 0, true, [&](net::OsdClient& osd, std::uint64_t epoch) {
    auto got = osd.ObjStat(net::ObjStatRequest{static_cast<std::uint64_t>(pool_id_), epoch, object},
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
      [&](net::OsdClient& osd, std::uint64_t epoch) {
        return osd
            .ObjRemove(net::ObjRemoveRequest{static_cast<std::uint64_t>(pool_id_), epoch, object},
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
          impl.Run(pool_id_, nullptr, pg, true, [&](net::OsdClient& osd, std::uint64_t epoch) {
            net::ObjListRequest r;
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
        return DoWrite(*impl, pool, object, net::ObjWriteMode::kWrite, data, offset);
      });
}

std::future<Result<std::uint64_t>> IoCtx::WriteFullAsync(const std::string& object,
                                                         std::span<const std::byte> data) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data)] {
        return DoWrite(*impl, pool, object, net::ObjWriteMode::kWriteFull, data, 0);
      });
}

std::future<Result<std::uint64_t>> IoCtx::AppendAsync(const std::string& object,
                                                      std::span<const std::byte> data) {
  return rados_->impl_->Async(
      [impl = rados_->impl_.get(), pool = pool_id_, object, data = Copy(data)] {
        return DoWrite(*impl, pool, object, net::ObjWriteMode::kAppend, data, 0);
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

}  // namespace ec::cluster::client
