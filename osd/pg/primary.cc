#include "osd/pg/primary.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <unordered_map>

#include "osd/daemon/op_dispatch.h"
#include "osd/net/peer_clients.h"
#include "osd/pg/object_io.h"
#include "osd/pg/write_plan.h"

namespace ec::osd::pg {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxCachedObjects = 1 << 20;

struct CachedState {
  std::int64_t epoch = 0;
  ObjectState state;
};

std::string CacheKey(std::uint64_t pool, const std::string& object) {
  return std::to_string(pool) + "/" + object;
}

}  // namespace

class Primary::Impl {
 public:
  Impl(const cluster::MapHolder* map, MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> log,
       PrimaryOptions options)
      : map_(map),
        metrics_(metrics),
        log_(log ? std::move(log) : spdlog::default_logger()),
        options_(std::move(options)),
        codecs_(options_.plugin_dir),
        peers_(net::PeerOptions{fmt::format("osd.{}", options_.osd_id),
                                std::chrono::milliseconds(3000), options_.subop_timeout, 2, 2}),
        dispatcher_(options_.threads, 0, nullptr, nullptr) {}

  ~Impl() {
    dispatcher_.Join();
    peers_.CloseAll();
  }

  void Handle(net::Request request, std::shared_ptr<net::Responder> responder) {
    const std::size_t key = KeyOf(request.body);
    dispatcher_.Post(key, [this, req = std::move(request), r = std::move(responder)]() mutable {
      Run(req, *r);
    });
  }

 private:
  static std::size_t KeyOf(const net::RequestBody& body) {
    return std::visit(
        [](const auto& b) -> std::size_t {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, net::ObjWriteRequest> ||
                        std::is_same_v<T, net::ObjReadRequest> ||
                        std::is_same_v<T, net::ObjStatRequest> ||
                        std::is_same_v<T, net::ObjRemoveRequest>) {
            return std::hash<std::string>()(CacheKey(b.pool, b.object));
          } else if constexpr (std::is_same_v<T, net::ObjListRequest>) {
            return std::hash<std::string>()(std::to_string(b.pool) + "#" + std::to_string(b.pg));
          } else {
            return 0;
          }
        },
        body);
  }

  // The map to serve a request of a client at `epoch` with, and the locator for it.
  Result<std::shared_ptr<const cluster::ObjectLocator>> Locator(std::uint64_t client_epoch) {
    auto map = map_->Get();
    if (static_cast<std::int64_t>(client_epoch) > map->epoch) {
      map = map_->WaitForEpoch(static_cast<std::int64_t>(client_epoch), options_.map_wait);
    }
    std::lock_guard lock(locator_mu_);
    if (!locator_ || locator_->map().epoch != map->epoch) {
      auto made = cluster::ObjectLocator::Make(map);
      if (!made.ok()) return made.status();
      locator_ = std::move(made).value();
    }
    return locator_;
  }

  // The PG's location when this OSD is its primary; Retryable ESTALE otherwise.
  Result<cluster::PgLocation> CheckPrimary(const cluster::ObjectLocator& locator,
                                           std::uint64_t pool, const std::string* object,
                                           std::uint32_t pg) {
    auto loc = object ? locator.LocateObject(static_cast<std::int64_t>(pool), *object)
                      : locator.LocatePg(static_cast<std::int64_t>(pool), pg);
    if (!loc.ok()) return loc.status();
    if (loc->primary != options_.osd_id) {
      return Status::Retryable(
          ESTALE, fmt::format("osd.{} is not the primary of pg {} at epoch {} (the primary is {})",
                              options_.osd_id, loc->pgid, locator.map().epoch,
                              loc->primary == cluster::kItemNone
                                  ? std::string("none: no OSD of the PG is up")
                                  : "osd." + std::to_string(loc->primary)));
    }
    return loc;
  }

  // Clients of the up positions of `loc` in `map`.
  Result<std::map<int, std::shared_ptr<net::OsdClient>>> Clients(const cluster::ClusterMap& map,
                                                                 const cluster::PgLocation& loc) {
    std::map<int, std::shared_ptr<net::OsdClient>> out;
    for (std::size_t p = 0; p < loc.up.size(); ++p) {
      const int osd = loc.up[p];
      if (osd == cluster::kItemNone) continue;
      auto it = map.osds.find(osd);
      if (it == map.osds.end()) continue;
      auto client = peers_.Get(osd, it->second.addr);
      if (!client.ok()) {
        log_->warn("pg {}: {}", loc.pgid, client.status().message());
        continue;
      }
      out[static_cast<int>(p)] = std::move(client).value();
    }
    return out;
  }

  std::uint64_t NextVersion(std::int64_t epoch) {
    return (static_cast<std::uint64_t>(epoch) << 32) | (++sequence_ & 0xffffffffu);
  }

  std::optional<ObjectState> Cached(const std::string& key, std::int64_t epoch) {
    std::lock_guard lock(cache_mu_);
    auto it = cache_.find(key);
    if (it == cache_.end() || it->second.epoch != epoch) return std::nullopt;
    return it->second.state;
  }
  void Remember(const std::string& key, std::int64_t epoch, const ObjectState& st) {
    std::lock_guard lock(cache_mu_);
    if (cache_.size() >= kMaxCachedObjects) cache_.clear();
    cache_[key] = CachedState{epoch, st};
  }
  void Forget(const std::string& key) {
    std::lock_guard lock(cache_mu_);
    cache_.erase(key);
  }

  // Everything an object operation needs, ready: location, codec, clients, state.
  struct Prepared {
    std::shared_ptr<const cluster::ObjectLocator> locator;
    cluster::PgLocation loc;
    std::shared_ptr<const PoolCodec> codec;
    ObjectIo io;
    ObjectState state;
    std::string key;
    std::string pool_name;
  };

  Result<Prepared> Prepare(std::uint64_t pool, std::uint64_t epoch, const std::string& object,
                           bool write) {
    Prepared p;
    if (object.size() > cluster::kMaxObjectNameLen) {
      return Status::Error(
          ENAMETOOLONG, fmt::format("object name of {} bytes, above the limit of {}", object.size(),
                                    cluster::kMaxObjectNameLen));
    }
    auto locator = Locator(epoch);
    if (!locator.ok()) return locator.status();
    p.locator = *locator;
    auto loc = CheckPrimary(*p.locator, pool, &object, 0);
    if (!loc.ok()) return loc.status();
    // A write waits for min_size shards up (the map changing), as Ceph's PG does.
    const auto deadline = Clock::now() + options_.min_size_wait;
    while (write && loc->up_count() < loc->min_size) {
      const auto left = deadline - Clock::now();
      if (left <= Clock::duration::zero()) {
        return Status::Error(EAGAIN, fmt::format("pg {} has {} shard(s) up, fewer than min_size "
                                                 "{}; gave up after {} s",
                                                 loc->pgid, loc->up_count(), loc->min_size,
                                                 options_.min_size_wait.count() / 1000.0));
      }
      const std::int64_t now_epoch = p.locator->map().epoch;
      map_->WaitForEpoch(now_epoch + 1,
                         std::chrono::duration_cast<std::chrono::milliseconds>(left));
      locator = Locator(0);
      if (!locator.ok()) return locator.status();
      p.locator = *locator;
      loc = CheckPrimary(*p.locator, pool, &object, 0);
      if (!loc.ok()) return loc.status();
    }
    p.loc = std::move(loc).value();
    const cluster::ClusterMap& map = p.locator->map();
    const cluster::Pool& pool_entry = map.pools.at(static_cast<std::int64_t>(pool));
    p.pool_name = pool_entry.name;
    auto codec = codecs_.Get(map, pool_entry);
    if (!codec.ok()) return codec.status();
    p.codec = *codec;
    auto clients = Clients(map, p.loc);
    if (!clients.ok()) return clients.status();
    p.io.loc = &p.loc;
    p.io.codec = p.codec.get();
    p.io.object = object;
    p.io.clients = std::move(clients).value();
    for (std::size_t i = 0; i < p.loc.acting.size(); ++i) {
      if (p.loc.acting[i] == options_.osd_id) p.io.self_position = static_cast<int>(i);
    }
    p.io.timeout = options_.subop_timeout;
    p.io.store = options_.store;
    p.io.cost.weight_net = options_.read_weight_net;
    p.io.cost.weight_dev = options_.read_weight_dev;
    p.key = CacheKey(pool, object);
    auto cached = Cached(p.key, map.epoch);
    if (cached) {
      p.state = *cached;
    } else {
      auto st = ResolveObject(p.io);
      if (!st.ok()) return st.status();
      p.state = HealStale(p.io, *st, options_.max_object_size);
      if (p.state.stale.size() != st->stale.size())
        CountHealed(p.pool_name, st->stale.size() - p.state.stale.size());
      Remember(p.key, map.epoch, p.state);
    }
    return p;
  }

  // The Prepared's ObjectIo points into the Prepared itself: fix it after a move.
  static void Fix(Prepared& p) { p.io.loc = &p.loc; }

  void CountHealed(const std::string& pool, std::uint64_t shards) {
    metrics_
        ->GetCounter(
            "ecstore_pool_shards_healed_total",
            "Stale shards rewritten at their object's version when the object was accessed",
            {{"pool", pool}})
        .Inc(shards);
  }

  void CountOp(const std::string& pool, const char* op) {
    metrics_
        ->GetCounter("ecstore_pool_ops_total", "Object operations served as primary",
                     {{"pool", pool}, {"op", op}})
        .Inc();
  }

  void Run(const net::Request& req, net::Responder& responder) {
    std::visit(
        [&](const auto& b) {
          using T = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<T, net::ObjWriteRequest>) {
            (void)responder.Send(Write(b, req.payload));
          } else if constexpr (std::is_same_v<T, net::ObjReadRequest>) {
            Read(b, responder);
          } else if constexpr (std::is_same_v<T, net::ObjStatRequest>) {
            (void)responder.Send(Stat(b));
          } else if constexpr (std::is_same_v<T, net::ObjRemoveRequest>) {
            (void)responder.Send(Remove(b));
          } else if constexpr (std::is_same_v<T, net::ObjListRequest>) {
            (void)responder.Send(List(b));
          } else {
            (void)responder.SendError(Status::Invalid("not an object request"));
          }
        },
        req.body);
  }

  net::ObjWriteReply Write(const net::ObjWriteRequest& r, const Buffer& data) {
    net::ObjWriteReply reply;
    auto p = Prepare(r.pool, r.epoch, r.object, true);
    if (!p.ok()) {
      reply.status = p.status();
      return reply;
    }
    Fix(*p);
    CountOp(p->pool_name, "write");
    auto plan = PlanWrite(p->codec->layout, p->state.exists, p->state.size, r.mode, r.offset,
                          data.size(), options_.max_object_size);
    if (!plan.ok()) {
      reply.status = plan.status();
      return reply;
    }
    const std::uint64_t version = NextVersion(p->locator->map().epoch);
    if (version <= p->state.version) {
      Forget(p->key);
      reply.status = Status::Retryable(
          ESTALE, fmt::format("object {} is at version {}, newer than this OSD's map", r.object,
                              p->state.version));
      return reply;
    }
    auto next = WriteObject(p->io, p->state, *plan, data, version, p->loc.min_size);
    if (!next.ok()) {
      Forget(p->key);
      reply.status = next.status();
      return reply;
    }
    Remember(p->key, p->locator->map().epoch, *next);
    if (next->delta) {
      metrics_
          ->GetCounter("ecstore_pool_delta_writes_total",
                       "Small overwrites that updated parity by delta", {{"pool", p->pool_name}})
          .Inc();
    }
    reply.version = next->version;
    reply.object_size = next->size;
    return reply;
  }

  void Read(const net::ObjReadRequest& r, net::Responder& responder) {
    auto p = Prepare(r.pool, r.epoch, r.object, false);
    if (!p.ok()) {
      (void)responder.SendError(p.status());
      return;
    }
    Fix(*p);
    CountOp(p->pool_name, "read");
    const std::uint64_t length = r.length == 0 ? UINT64_MAX : r.length;
    auto got = ReadObject(p->io, p->state, r.offset, length);
    if (!got.ok()) {
      // A shard that failed may have changed under the cached state: ask again next time.
      Forget(p->key);
      (void)responder.SendError(got.status());
      return;
    }
    if (got->degraded) {
      const Labels labels{{"pool", p->pool_name}};
      metrics_->GetCounter("ecstore_pool_degraded_reads_total", "Reads that rebuilt data", labels)
          .Inc();
      metrics_
          ->GetCounter("ecstore_pool_degraded_read_network_bytes_total",
                       "Bytes degraded reads fetched from other OSDs", labels)
          .Inc(got->network_bytes);
      metrics_
          ->GetCounter("ecstore_pool_degraded_read_device_bytes_total",
                       "Device bytes (4 KiB blocks) degraded reads made the OSDs read", labels)
          .Inc(got->device_bytes);
    }
    net::ObjReadReply reply;
    reply.version = p->state.version;
    reply.object_size = p->state.size;
    reply.degraded = got->degraded;
    reply.network_bytes = got->network_bytes;
    reply.device_bytes = got->device_bytes;
    std::vector<Buffer> payload;
    payload.push_back(std::move(got->bytes));
    (void)responder.Send(std::move(reply), std::move(payload));
  }

  net::ObjStatReply Stat(const net::ObjStatRequest& r) {
    net::ObjStatReply reply;
    auto p = Prepare(r.pool, r.epoch, r.object, false);
    if (!p.ok()) {
      reply.status = p.status();
      return reply;
    }
    CountOp(p->pool_name, "stat");
    if (!p->state.exists) {
      reply.status =
          Status::NotFound(fmt::format("object {} does not exist in pg {}", r.object, p->loc.pgid));
      return reply;
    }
    reply.version = p->state.version;
    reply.size = p->state.size;
    return reply;
  }

  net::ObjRemoveReply Remove(const net::ObjRemoveRequest& r) {
    net::ObjRemoveReply reply;
    auto p = Prepare(r.pool, r.epoch, r.object, true);
    if (!p.ok()) {
      reply.status = p.status();
      return reply;
    }
    Fix(*p);
    CountOp(p->pool_name, "remove");
    const std::uint64_t version = NextVersion(p->locator->map().epoch);
    if (p->state.exists && version <= p->state.version) {
      Forget(p->key);
      reply.status = Status::Retryable(ESTALE, "object version newer than this OSD's map");
      return reply;
    }
    auto next = RemoveObject(p->io, p->state, version, p->loc.min_size);
    if (!next.ok()) {
      if (next.status().code() != ENOENT) Forget(p->key);
      reply.status = next.status();
      return reply;
    }
    Remember(p->key, p->locator->map().epoch, *next);
    reply.version = next->version;
    return reply;
  }

  net::ObjListReply List(const net::ObjListRequest& r) {
    net::ObjListReply reply;
    auto locator = Locator(r.epoch);
    if (!locator.ok()) {
      reply.status = locator.status();
      return reply;
    }
    auto loc = CheckPrimary(**locator, r.pool, nullptr, r.pg);
    if (!loc.ok()) {
      reply.status = loc.status();
      return reply;
    }
    auto clients = Clients((*locator)->map(), *loc);
    if (!clients.ok()) {
      reply.status = clients.status();
      return reply;
    }
    // The union of the shards' lists: an object is listed when any up shard has it (a shard that
    // missed a write may lack it; one in the middle of a create may have it first).
    std::set<std::string> names;
    for (const auto& [pos, client] : *clients) {
      std::string cursor;
      for (;;) {
        net::ListRequest lr;
        lr.collection = loc->collection;
        lr.cursor = cursor;
        lr.max_entries = 1024;
        net::CallOptions call;
        call.timeout = options_.subop_timeout;
        auto page = client->List(std::move(lr), call);
        if (!page.ok()) break;  // a missing collection or a dead OSD: the others list
        for (const net::ListEntry& e : page->entries) names.insert(e.object);
        if (page->end) break;
        cursor = page->next_cursor;
      }
    }
    auto it = names.upper_bound(r.cursor);
    while (it != names.end() && reply.objects.size() < r.max_entries) {
      reply.objects.push_back(*it++);
    }
    reply.end = it == names.end();
    reply.next_cursor = reply.end ? std::string() : reply.objects.back();
    return reply;
  }

  const cluster::MapHolder* map_;
  MetricsRegistry* metrics_;
  std::shared_ptr<spdlog::logger> log_;
  PrimaryOptions options_;
  PoolCodecs codecs_;
  net::PeerClients peers_;
  std::atomic<std::uint64_t> sequence_{0};
  std::mutex locator_mu_;
  std::shared_ptr<const cluster::ObjectLocator> locator_;
  std::mutex cache_mu_;
  std::unordered_map<std::string, CachedState> cache_;
  OpDispatcher dispatcher_;  // last: joined first, while everything it uses is alive
};

Primary::Primary(const cluster::MapHolder* map, MetricsRegistry* metrics,
                 std::shared_ptr<spdlog::logger> log, PrimaryOptions options)
    : impl_(std::make_unique<Impl>(map, metrics, std::move(log), std::move(options))) {}

Primary::~Primary() = default;

void Primary::Handle(net::Request request, std::shared_ptr<net::Responder> responder) {
  impl_->Handle(std::move(request), std::move(responder));
}

}  // namespace ec::osd::pg
