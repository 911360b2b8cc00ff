#include "osd/pg/pull_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <cstring>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "osd/daemon/sub_ops.h"
#include "osd/net/osd_shard_source.h"
#include "osd/net/peer_clients.h"
#include "osd/pg/pool_codecs.h"
#include "recovery/repair_engine.h"

namespace ec::osd::pg {
namespace {

// Counts what the helpers' successful replies carried and what reading them cost the helpers'
// stores: every request, re-planned ones included, as the engine actually sent it.
class CountingSource final : public recovery::ShardSource {
 public:
  CountingSource(recovery::ShardSource* inner, std::uint64_t block)
      : inner_(inner), block_(block) {}

  recovery::ShardSourceLimits limits() const override { return inner_->limits(); }

  void ReadAsync(std::span<const recovery::ShardReadRequest> requests, Completion done) override {
    // `requests` stays valid until the last completion (the ShardSource contract).
    inner_->ReadAsync(requests, [this, requests, done = std::move(done)](std::size_t i, Status s) {
      if (s.ok()) {
        network_.fetch_add(requests[i].destination.size(), std::memory_order_relaxed);
        device_.fetch_add(recovery::PriceExtents(requests[i].extents, block_).device_bytes,
                          std::memory_order_relaxed);
      }
      done(i, std::move(s));
    });
  }

  std::uint64_t network_bytes() const { return network_.load(std::memory_order_relaxed); }
  std::uint64_t device_bytes() const { return device_.load(std::memory_order_relaxed); }

 private:
  recovery::ShardSource* inner_;
  std::uint64_t block_;
  std::atomic<std::uint64_t> network_{0};
  std::atomic<std::uint64_t> device_{0};
};

// Catches the shard service's reply to the local SubWrite.
class LocalResponder final : public net::Responder {
 public:
  LocalResponder(std::uint64_t tag, std::shared_ptr<std::promise<Status>> reply)
      : Responder(net::MsgType::kSubWrite, tag), reply_(std::move(reply)) {}
  ~LocalResponder() override {
    if (!sent()) reply_->set_value(Status::IOError("the shard service dropped the write"));
  }

 private:
  Status Deliver(net::ReplyBody body, std::vector<Buffer>) override {
    reply_->set_value(net::StatusOf(body));
    return Status::OK();
  }
  std::shared_ptr<std::promise<Status>> reply_;
};

// One SubPull being served.
struct Job {
  net::SubPullRequest request;
  std::shared_ptr<net::Responder> responder;
  std::shared_ptr<const PoolCodec> codec;
  std::string pool_name;
  // Rebuild helpers: position -> its OSD. Copy sources (kCopy: helpers at the pulled position),
  // in the request's order.
  std::map<int, net::OsdShardSource::Holder> holders;
  std::vector<net::OsdShardSource::Holder> copy_from;
  std::vector<std::shared_ptr<net::OsdClient>> clients;  // keeps the holders' clients alive
  std::string left_out;                                  // helpers not usable, for messages

  std::mutex mu;  // guards next and finished; results[i] is written by the object's task only
  std::size_t next = 0;
  std::size_t finished = 0;
  std::vector<net::SubPullResult> results;
};

bool AllStale(const std::map<int, Status>& failed) {
  if (failed.empty()) return false;
  return std::all_of(failed.begin(), failed.end(),
                     [](const auto& f) { return f.second.code() == ESTALE; });
}

}  // namespace

class PullService::Impl {
 public:
  Impl(store::ObjectStore* store, const cluster::MapHolder* map, MetricsRegistry* metrics,
       std::shared_ptr<spdlog::logger> log, PullOptions options)
      : store_(store),
        map_(map),
        metrics_(metrics),
        log_(log ? std::move(log) : spdlog::default_logger()),
        options_(std::move(options)),
        codecs_(options_.plugin_dir),
        peers_(net::PeerOptions{fmt::format("osd.{}-recovery", options_.osd_id),
                                std::chrono::milliseconds(3000), options_.helper_timeout, 2, 2}),
        pool_(static_cast<std::size_t>(std::clamp(options_.threads, 1, 256))) {
    options_.max_active = std::max(options_.max_active, 1);
    options_.cost.local.clear();
    auto listed = store_->ListCollections();
    if (listed.ok()) collections_.insert(listed->begin(), listed->end());
  }

  ~Impl() {
    stopping_.store(true);
    pool_.join();  // every posted task has run, so every request has been answered
    peers_.CloseAll();
  }

  void Attach(net::RequestHandler* shard_service) { shard_service_ = shard_service; }

  // What the registry's counters above count, over every pool (PullService::Totals).
  struct Totals {
    std::atomic<std::uint64_t> network{0}, device{0}, rebuilt{0}, objects_ok{0};
    void Add(std::uint64_t n, std::uint64_t d, std::uint64_t r, bool ok) {
      network.fetch_add(n, std::memory_order_relaxed);
      device.fetch_add(d, std::memory_order_relaxed);
      rebuilt.fetch_add(r, std::memory_order_relaxed);
      if (ok) objects_ok.fetch_add(1, std::memory_order_relaxed);
    }
  } totals_;

  void Handle(net::Request request, std::shared_ptr<net::Responder> responder) {
    if (!std::holds_alternative<net::SubPullRequest>(request.body)) {
      (void)responder->SendError(Status::Invalid("the pull service serves SubPull only"));
      return;
    }
    boost::asio::post(pool_, [this, req = std::move(request), r = std::move(responder)]() mutable {
      Start(std::get<net::SubPullRequest>(std::move(req.body)), std::move(r));
    });
  }

 private:
  void Start(net::SubPullRequest request, std::shared_ptr<net::Responder> responder) {
    auto job = std::make_shared<Job>();
    job->request = std::move(request);
    job->responder = std::move(responder);
    Status s =
        stopping_.load() ? Status::Error(ECANCELED, "the OSD is shutting down") : Prepare(*job);
    if (!s.ok()) {
      log_->warn("osd.{}: pull of pool {} shard {} ({} objects) refused: {}", options_.osd_id,
                 job->request.pool, job->request.shard, job->request.objects.size(), s.message());
      net::SubPullReply reply;
      reply.status = std::move(s);
      (void)job->responder->Send(std::move(reply));
      return;
    }
    job->results.resize(job->request.objects.size());
    if (job->results.empty()) return Reply(*job);
    const std::size_t first = std::min<std::size_t>(job->results.size(), options_.max_active);
    for (std::size_t i = 0; i < first; ++i) PostNext(job);
  }

  // Claims the job's next object and runs it on a worker; the task that finishes the last object
  // answers.
  void PostNext(const std::shared_ptr<Job>& job) {
    std::size_t i = 0;
    {
      std::lock_guard lock(job->mu);
      if (job->next == job->results.size()) return;
      i = job->next++;
    }
    boost::asio::post(pool_, [this, job, i] {
      job->results[i] = PullObject(*job, job->request.objects[i]);
      bool last = false;
      {
        std::lock_guard lock(job->mu);
        last = ++job->finished == job->results.size();
      }
      if (last) return Reply(*job);
      PostNext(job);
    });
  }

  void Reply(Job& job) {
    net::SubPullReply reply;
    reply.results = std::move(job.results);
    (void)job.responder->Send(std::move(reply));
    job.responder.reset();
  }

  Status Prepare(Job& job) {
    const net::SubPullRequest& r = job.request;
    auto map = map_->Get();
    const auto wanted = static_cast<std::int64_t>(
        std::min<std::uint64_t>(r.epoch, std::numeric_limits<std::int64_t>::max()));
    if (wanted > map->epoch) map = map_->WaitForEpoch(wanted, options_.map_wait);
    if (wanted > map->epoch) {
      return Status::Retryable(
          ESTALE, fmt::format("osd.{} has map epoch {}, the pull is of epoch {}", options_.osd_id,
                              map->epoch, r.epoch));
    }
    auto pool = map->pools.find(static_cast<std::int64_t>(r.pool));
    if (r.pool > static_cast<std::uint64_t>(INT64_MAX) || pool == map->pools.end()) {
      return Status::NotFound(
          fmt::format("pool {} does not exist at epoch {}", r.pool, map->epoch));
    }
    job.pool_name = pool->second.name;
    auto codec = codecs_.Get(*map, pool->second);
    if (!codec.ok()) return codec.status();
    job.codec = std::move(codec).value();
    const unsigned n = job.codec->layout.chunk_count();
    if (r.shard >= n) {
      return Status::Invalid(
          fmt::format("shard {} out of range: pool {} has {} shards", r.shard, job.pool_name, n));
    }
    if (r.collection.empty()) return Status::Invalid("a pull needs a collection");
    const bool copy = r.mode == net::SubPullMode::kCopy;
    std::set<std::uint32_t> seen;
    std::vector<std::string> left_out;
    for (const net::SubPullHelper& h : r.helpers) {
      if (h.shard >= n) {
        return Status::Invalid(fmt::format("helper osd.{} at shard {}: pool {} has {} shards",
                                           h.osd, h.shard, job.pool_name, n));
      }
      // kCopy: the helpers at `shard` are copy sources, any others rebuild helpers to fall back
      // on. kRebuild: a helper holding the very shard makes no sense.
      const bool source = h.shard == r.shard;
      if (source && !copy) {
        return Status::Invalid(
            fmt::format("helper osd.{} holds shard {}, the one to rebuild", h.osd, h.shard));
      }
      if (!source && !seen.insert(h.shard).second) {
        return Status::Invalid(fmt::format("two helpers for shard {}", h.shard));
      }
      auto osd = map->osds.find(h.osd);
      if (osd == map->osds.end() || osd->second.addr.empty() || !osd->second.up) {
        left_out.push_back(fmt::format("osd.{} (shard {}): {}", h.osd, h.shard,
                                       osd == map->osds.end() ? "not in the map"
                                       : osd->second.up       ? "no address"
                                                              : "down"));
        continue;
      }
      auto client = peers_.Get(h.osd, osd->second.addr);
      if (!client.ok()) {
        left_out.push_back(
            fmt::format("osd.{} (shard {}): {}", h.osd, h.shard, client.status().message()));
        continue;
      }
      net::OsdShardSource::Holder holder{client->get(),
                                         fmt::format("osd.{} (shard {})", h.osd, h.shard)};
      job.clients.push_back(std::move(client).value());
      if (source) {
        job.copy_from.push_back(std::move(holder));
      } else {
        job.holders[static_cast<int>(h.shard)] = std::move(holder);
      }
    }
    if (!left_out.empty()) {
      job.left_out = fmt::format("{}", fmt::join(left_out, ", "));
      log_->warn("osd.{}: pull of {} shard {}: helpers left out: {}", options_.osd_id, r.collection,
                 r.shard, job.left_out);
    }
    return Status::OK();
  }

  net::SubPullResult PullObject(const Job& job, const net::SubPullObject& o) {
    net::SubPullResult result;
    result.object = o.object;
    result.status = Pull(job, o, &result);
    const bool ok = result.status.ok();
    if (!ok) {
      log_->warn("osd.{}: pull of {}/{} shard {} at version {} failed: {}", options_.osd_id,
                 job.request.collection, o.object, job.request.shard, o.version,
                 result.status.message());
    }
    const Labels pool{{"pool", job.pool_name}};
    metrics_
        ->GetCounter("ecstore_recovery_network_bytes_total",
                     "Bytes this OSD received from helpers to rebuild or copy shards", pool)
        .Inc(result.network_bytes);
    metrics_
        ->GetCounter("ecstore_recovery_helper_device_bytes_total",
                     "Device bytes (4 KiB blocks) the helpers read for this OSD's pulls", pool)
        .Inc(result.device_bytes);
    metrics_
        ->GetCounter("ecstore_recovery_rebuilt_bytes_total",
                     "Shard bytes this OSD rebuilt or copied and wrote", pool)
        .Inc(result.rebuilt_bytes);
    metrics_
        ->GetCounter("ecstore_recovery_objects_total", "Objects this OSD pulled, by result",
                     {{"pool", job.pool_name}, {"result", ok ? "ok" : "failed"}})
        .Inc();
    totals_.Add(result.network_bytes, result.device_bytes, result.rebuilt_bytes, ok);
    return result;
  }

  Status Pull(const Job& job, const net::SubPullObject& o, net::SubPullResult* result) {
    const net::SubPullRequest& r = job.request;
    if (stopping_.load()) return Status::Error(ECANCELED, "the OSD is shutting down");
    if (o.version == 0 || o.version <= o.prev_version) {
      return Status::Invalid(fmt::format("object {}: version {} is not above prev_version {}",
                                         o.object, o.version, o.prev_version));
    }
    // Reading the helpers is the expensive part: skip it when the write could not apply anyway.
    // The write checks again (the shard may change meanwhile).
    auto local = ReadSubState(*store_, net::SubStateRequest{r.collection, o.object, r.shard});
    if (!local.ok()) return local.status();
    if (local->version == o.version) return Status::OK();  // pulled before (a retried pull)
    if (local->version != o.prev_version) {
      return Status::Error(
          ESTALE,
          fmt::format("shard {}/{}#{} is at version {}, the pull of version {} expects {}",
                      r.collection, o.object, r.shard, local->version, o.version, o.prev_version));
    }
    const std::uint64_t shard_size = job.codec->layout.shard_size(o.object_size);
    Buffer data = Buffer::Allocate(shard_size, false);
    if (shard_size > 0) {
      Status s;
      if (r.mode == net::SubPullMode::kCopy) {
        s = Copy(job, o, data, result);
        // The shard's old holder failed (it died, or lost the shard): decode it if the request
        // named helpers for that.
        if (!s.ok() && !job.holders.empty()) {
          Status rebuilt = Rebuild(job, o, data, result);
          s = rebuilt.ok() ? rebuilt : rebuilt.WithPrefix("copy failed (" + s.message() + ")");
        }
      } else {
        s = Rebuild(job, o, data, result);
      }
      if (!s.ok()) {
        if (!job.left_out.empty()) return s.WithPrefix("helpers left out: " + job.left_out);
        return s;
      }
    }
    EC_RETURN_IF_ERROR(Write(job, o, shard_size, std::move(data)));
    result->rebuilt_bytes = shard_size;
    return Status::OK();
  }

  Status Rebuild(const Job& job, const net::SubPullObject& o, Buffer& data,
                 net::SubPullResult* result) const {
    const net::SubPullRequest& r = job.request;
    net::OsdShardSource::Options so;
    so.collection = r.collection;
    so.object = o.object;
    so.shards = job.holders;
    so.call.timeout = options_.helper_timeout;
    so.expect_version = o.version;
    net::OsdShardSource remote(std::move(so));
    CountingSource counted(&remote, options_.cost.device_block);

    const int want = static_cast<int>(r.shard);
    recovery::RepairRequest rr;
    rr.want = {want};
    for (const auto& [position, holder] : job.holders) rr.available[position] = 1;
    rr.stripes = job.codec->layout.stripes_of(o.object_size);
    rr.cost = options_.cost;
    std::byte* out = data.data();
    const std::uint64_t size = data.size();
    recovery::RepairStats stats;
    Status s = job.codec->engine->Run(
        rr, counted,
        [&](const recovery::RebuiltBytes& b) -> Status {
          const std::span<const std::byte> bytes = b.shards.at(want);
          if (b.offset > size || bytes.size() > size - b.offset) {
            return Status::IOError(fmt::format("rebuilt bytes [{}, +{}) past shard size {}",
                                               b.offset, bytes.size(), size));
          }
          std::memcpy(out + b.offset, bytes.data(), bytes.size());
          return Status::OK();
        },
        &stats);
    result->network_bytes += counted.network_bytes();
    result->device_bytes += counted.device_bytes();
    // Helpers at another version than the object's: this OSD was asked with an outdated view, which
    // the primary settles (ESTALE), unlike helpers that are down or broken (EIO).
    if (!s.ok() && AllStale(stats.failed)) return Status::Error(ESTALE, s.message());
    return s;
  }

  Status Copy(const Job& job, const net::SubPullObject& o, Buffer& data,
              net::SubPullResult* result) const {
    const net::SubPullRequest& r = job.request;
    const int shard = static_cast<int>(r.shard);
    if (job.copy_from.empty()) {
      return Status::IOError(fmt::format("no helper to copy shard {} of {} from", shard, o.object));
    }
    Status last;
    for (const net::OsdShardSource::Holder& from : job.copy_from) {
      net::OsdShardSource::Options so;
      so.collection = r.collection;
      so.object = o.object;
      so.shards[shard] = from;
      so.call.timeout = options_.helper_timeout;
      so.expect_version = o.version;
      net::OsdShardSource remote(std::move(so));
      CountingSource counted(&remote, options_.cost.device_block);
      const std::vector<recovery::ShardReadRequest> requests =
          recovery::SplitToLimits(shard, {{0, data.size()}}, data.span(), counted.limits());
      const std::vector<Status> got = recovery::ReadAll(counted, requests);
      result->network_bytes += counted.network_bytes();
      result->device_bytes += counted.device_bytes();
      auto failed = std::find_if(got.begin(), got.end(), [](const Status& s) { return !s.ok(); });
      if (failed == got.end()) return Status::OK();
      last = *failed;
    }
    return last;
  }

  Status Write(const Job& job, const net::SubPullObject& o, std::uint64_t shard_size, Buffer data) {
    net::SubWriteRequest w;
    w.collection = job.request.collection;
    w.object = o.object;
    w.shard = job.request.shard;
    w.version = o.version;
    w.prev_version = o.prev_version;
    w.kind = net::SubWriteKind::kFull;
    w.object_size = o.object_size;
    w.shard_size = shard_size;
    if (shard_size > 0) w.extents.push_back({0, shard_size});
    if (shard_service_ != nullptr) {
      // On the shard's strand of the shard service, after (or before) the primary's SubWrites of
      // the same shard, never in between: see "Ordering" in the header.
      auto reply = std::make_shared<std::promise<Status>>();
      auto replied = reply->get_future();
      const std::uint64_t tag = next_tag_.fetch_add(1);
      net::Request request;
      request.tag = tag;
      request.body = std::move(w);
      request.payload = std::move(data);
      request.peer = "pull";
      shard_service_->Handle(std::move(request),
                             std::make_shared<LocalResponder>(tag, std::move(reply)));
      return replied.get();
    }
    // As OsdService does: the collection is created by the write that first needs it, in its own
    // transaction; EEXIST when another write created it meanwhile.
    bool create = false;
    {
      std::lock_guard lock(collections_mu_);
      create = collections_.count(w.collection) == 0;
    }
    Status s = ApplySubWrite(*store_, w, data, create);
    if (create && s.code() == EEXIST) s = ApplySubWrite(*store_, w, data, false);
    if (s.ok()) {
      std::lock_guard lock(collections_mu_);
      collections_.insert(w.collection);
    }
    return s;
  }

  store::ObjectStore* store_;
  const cluster::MapHolder* map_;
  MetricsRegistry* metrics_;
  std::shared_ptr<spdlog::logger> log_;
  PullOptions options_;
  PoolCodecs codecs_;
  net::PeerClients peers_;
  net::RequestHandler* shard_service_ = nullptr;
  std::atomic<std::uint64_t> next_tag_{1};
  std::atomic<bool> stopping_{false};
  std::mutex collections_mu_;
  std::set<std::string, std::less<>> collections_;
  boost::asio::thread_pool pool_;  // last: joined first, while everything it uses is alive
};

PullService::PullService(store::ObjectStore* store, const cluster::MapHolder* map,
                         MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> log,
                         PullOptions options)
    : impl_(std::make_unique<Impl>(store, map, metrics, std::move(log), std::move(options))) {}

PullService::~PullService() = default;

void PullService::AttachShardService(net::RequestHandler* shard_service) {
  impl_->Attach(shard_service);
}

void PullService::Handle(net::Request request, std::shared_ptr<net::Responder> responder) {
  impl_->Handle(std::move(request), std::move(responder));
}

PullTotals PullService::Totals() const {
  const auto& t = impl_->totals_;
  return {t.network.load(std::memory_order_relaxed), t.device.load(std::memory_order_relaxed),
          t.rebuilt.load(std::memory_order_relaxed), t.objects_ok.load(std::memory_order_relaxed)};
}

}  // namespace ec::osd::pg
