#include "osd/pg/pull_service.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <vector>

#include "common/thread_name.h"
#include "common/thread_nice.h"
#include "msg/peer_clients.h"
#include "osd/pg/osd_shard_source.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/pull_job.h"
#include "osd/pg/pull_object.h"
#include "osd/pg/pull_prefetch.h"

namespace ec::osd::pg {

class PullService::Impl {
 public:
  Impl(shard::ShardService* shards, const cluster::MapHolder* map, MetricsRegistry* metrics,
       std::shared_ptr<spdlog::logger> log, PullOptions options)
      : shards_(shards),
        map_(map),
        metrics_(metrics),
        log_(log ? std::move(log) : spdlog::default_logger()),
        options_(std::move(options)),
        codecs_(options_.plugin_dir),
        peers_(msg::PeerOptions{fmt::format("osd.{}-recovery", options_.osd_id),
                                std::chrono::milliseconds(3000), options_.helper_timeout, 2, 2,
                                msg::TrafficClass::kBackground, options_.nice, false,
                                options_.auth}),
        puller_(shards_, &options_, &stopping_, plans(), metrics_),
        pool_(static_cast<std::size_t>(std::clamp(options_.threads, 1, 256))) {
    options_.max_active = std::max(options_.max_active, 1);
    options_.cost.local.clear();
    if (options_.chain.timeout.count() <= 0) options_.chain.timeout = options_.helper_timeout;
    Tune(options_.max_active, options_.batch_bytes);
    Status niced = NiceEveryThread(
        static_cast<std::size_t>(std::clamp(options_.threads, 1, 256)), options_.nice,
        [this](std::function<void()> fn) { boost::asio::post(pool_, std::move(fn)); });
    if (!niced.ok()) log_->warn("recovery pulls run at the clients' priority: {}", niced.message());
    NameEveryThread(static_cast<std::size_t>(std::clamp(options_.threads, 1, 256)), "pull",
                    [this](std::function<void()> fn) { boost::asio::post(pool_, std::move(fn)); });
  }

  void Tune(int max_active, std::uint64_t batch_bytes) {
    max_active_.store(std::max(max_active, 1), std::memory_order_relaxed);
    batch_bytes_.store(batch_bytes, std::memory_order_relaxed);
  }

  ~Impl() {
    stopping_.store(true);
    pool_.join();  // every posted task has run, so every request has been answered
    peers_.CloseAll();
  }

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

  void Pull(msg::SubPullRequest request, msg::Callback<msg::SubPullReply> done) {
    boost::asio::post(pool_, [this, r = std::move(request), d = std::move(done)]() mutable {
      Start(std::move(r), std::move(d));
    });
  }

 private:
  void Start(msg::SubPullRequest request, msg::Callback<msg::SubPullReply> done) {
    auto job = std::make_shared<PullJob>();
    job->request = std::move(request);
    job->done = std::move(done);
    Status s =
        stopping_.load() ? Status::Error(ECANCELED, "the OSD is shutting down") : Prepare(*job);
    if (!s.ok()) {
      log_->warn("osd.{}: pull of pool {} shard {} ({} objects) refused: {}", options_.osd_id,
                 job->request.pool, job->request.shard, job->request.objects.size(), s.message());
      msg::SubPullReply reply;
      reply.status = std::move(s);
      job->done(std::move(reply));
      return;
    }
    job->results.resize(job->request.objects.size());
    StartWindow(job, 0);
  }

  // The first window: fetched here, then run. Runs on a worker.
  void StartWindow(const std::shared_ptr<PullJob>& job, std::size_t first) {
    if (first == job->results.size()) return Reply(*job);
    std::vector<PrefetchedObject> reads;
    const std::size_t end = Fetch(*job, first, &reads);
    RunWindow(job, first, end, std::move(reads));
  }

  // Fetches the window from `first` on (pull_prefetch.h): its end, and what was fetched for each
  // of its objects.
  std::size_t Fetch(const PullJob& job, std::size_t first, std::vector<PrefetchedObject>* reads) {
    const std::size_t n = job.results.size();
    const std::uint64_t batch_bytes = batch_bytes_.load(std::memory_order_relaxed);
    // A chain reads the helpers itself (repair_chain.h): fetching ahead would read them twice
    // (with auto, PrefetchWindow leaves out the objects that will go through a chain).
    const bool chained = options_.repair_pipeline == RepairPipeline::kOn &&
                         job.request.mode == msg::SubPullMode::kRebuild;
    if (stopping_.load() || batch_bytes == 0 || chained) {
      // Shutting down: every object is answered ECANCELED, nothing to fetch. No batching: each
      // object reads its helpers itself.
      reads->assign(n - first, {});
      return n;
    }
    const auto fetch_started = std::chrono::steady_clock::now();
    const PrefetchCounts counts =
        PrefetchWindow(job, first, *shards_, options_, batch_bytes, reads);
    for (PrefetchedObject& o : *reads) {
      if (!o.reads.empty()) o.fetch_started = fetch_started;
    }
    if (counts.requests > 0) {
      metrics_
          ->GetCounter("ecstore_recovery_read_batches_total",
                       "Batched helper reads (SubReadBatch) this OSD sent for its pulls",
                       {{"pool", job.pool_name}})
          .Inc(counts.requests);
    }
    return counts.end;
  }

  // Runs the objects of window [first, end), up to max_active at once, and meanwhile fetches the
  // next window on this thread, so that the network of one window overlaps the decoding of the
  // other. Whichever ends second (the fetch, or the window's last object) starts the next
  // window; after the last window its last object answers.
  void RunWindow(const std::shared_ptr<PullJob>& job, std::size_t first, std::size_t end,
                 std::vector<PrefetchedObject> reads) {
    const std::size_t n = job->results.size();
    {
      std::lock_guard lock(job->mu);
      job->window_first = first;
      job->window_end = end;
      job->next = first;
      job->finished = first;
      job->prefetched = std::move(reads);
      job->window_done = false;
      job->ahead_ready = false;
    }
    const std::size_t starts = std::min<std::size_t>(
        end - first, static_cast<std::size_t>(max_active_.load(std::memory_order_relaxed)));
    for (std::size_t i = 0; i < starts; ++i) PostNext(job);
    if (end == n) return;
    std::vector<PrefetchedObject> next;
    const std::size_t next_end = Fetch(*job, end, &next);
    {
      std::lock_guard lock(job->mu);
      if (!job->window_done) {
        job->ahead_ready = true;
        job->ahead_end = next_end;
        job->ahead = std::move(next);
        return;
      }
    }
    RunWindow(job, end, next_end, std::move(next));
  }

  // Claims the window's next object and runs it on a worker; the task that finishes the window's
  // last object goes on with the next window (if fetched already) or answers (after the last).
  void PostNext(const std::shared_ptr<PullJob>& job) {
    std::size_t i = 0;
    PrefetchedObject ahead;
    {
      std::lock_guard lock(job->mu);
      if (job->next == job->window_end) return;
      i = job->next++;
      ahead = std::move(job->prefetched[i - job->window_first]);
    }
    boost::asio::post(pool_, [this, job, i, ahead = std::move(ahead)]() mutable {
      job->results[i] = PullObject(*job, job->request.objects[i], std::move(ahead));
      enum class Then { kNext, kReply, kWindow, kNothing } then = Then::kNext;
      std::size_t first = 0, end = 0;
      std::vector<PrefetchedObject> reads;
      {
        std::lock_guard lock(job->mu);
        if (++job->finished == job->window_end) {
          if (job->window_end == job->results.size()) {
            then = Then::kReply;
          } else if (job->ahead_ready) {
            then = Then::kWindow;
            first = job->window_end;
            end = job->ahead_end;
            reads = std::move(job->ahead);
          } else {
            job->window_done = true;  // the fetch of the next window starts it when done
            then = Then::kNothing;
          }
        }
      }
      switch (then) {
        case Then::kNext:
          return PostNext(job);
        case Then::kReply:
          return Reply(*job);
        case Then::kWindow:
          return RunWindow(job, first, end, std::move(reads));
        case Then::kNothing:
          return;
      }
    });
  }

  void Reply(PullJob& job) {
    msg::SubPullReply reply;
    reply.results = std::move(job.results);
    auto done = std::move(job.done);
    done(std::move(reply));
  }

  Status Prepare(PullJob& job) {
    const msg::SubPullRequest& r = job.request;
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
    const bool copy = r.mode == msg::SubPullMode::kCopy;
    job.plans = plans();
    auto self = map->osds.find(options_.osd_id);
    if (self != map->osds.end()) job.bandwidth[options_.osd_id] = self->second.network_bandwidth;
    std::set<std::uint32_t> seen;
    std::vector<std::string> left_out;
    for (const msg::SubPullHelper& h : r.helpers) {
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
      if (osd != map->osds.end()) job.bandwidth[h.osd] = osd->second.network_bandwidth;
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
      msg::OsdShardSource::Holder holder{client->get(),
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

  msg::SubPullResult PullObject(const PullJob& job, const msg::SubPullObject& o,
                                PrefetchedObject ahead) {
    msg::SubPullResult result;
    result.object = o.object;
    const auto started = ahead.fetch_started.value_or(std::chrono::steady_clock::now());
    result.status = puller_.Pull(job, o, std::move(ahead), &result);
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
    // With one pull at a time (osd_max_backfills=1, osd_recovery_max_active=1) an object's
    // observation is the time its repair takes alone (bench/recovery_netns.sh reads _sum/_count).
    metrics_
        ->GetHistogram("ecstore_recovery_pull_seconds",
                       "Wall time of each object this OSD pulled (helpers' reads or a repair "
                       "chain, decoding, writing), by result",
                       {{"pool", job.pool_name}, {"result", ok ? "ok" : "failed"}})
        .ObserveDuration(std::chrono::steady_clock::now() - started);
    totals_.Add(result.network_bytes, result.device_bytes, result.rebuilt_bytes, ok);
    return result;
  }

  shard::ShardService* shards_;
  const cluster::MapHolder* map_;
  MetricsRegistry* metrics_;
  std::shared_ptr<spdlog::logger> log_;
  PullOptions options_;
  // PullOptions::max_active and batch_bytes as tuned now (PullService::Tune); options_'s are the
  // values it started with.
  std::atomic<int> max_active_{1};
  std::atomic<std::uint64_t> batch_bytes_{0};
  PoolCodecs codecs_;
  msg::PeerClients peers_;
  std::atomic<bool> stopping_{false};
  ChainPlans own_plans_;  // when options_.plans is null
  ChainPlans* plans() { return options_.plans != nullptr ? options_.plans : &own_plans_; }
  ObjectPuller puller_;
  boost::asio::thread_pool pool_;  // last: joined first, while everything it uses is alive
};

PullService::PullService(shard::ShardService* shards, const cluster::MapHolder* map,
                         MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> log,
                         PullOptions options)
    : impl_(std::make_unique<Impl>(shards, map, metrics, std::move(log), std::move(options))) {}

PullService::~PullService() = default;

void PullService::Pull(msg::SubPullRequest request, msg::Callback<msg::SubPullReply> done) {
  impl_->Pull(std::move(request), std::move(done));
}

void PullService::Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
  if (!std::holds_alternative<msg::SubPullRequest>(request.body)) {
    (void)responder->SendError(Status::Invalid("the pull service serves SubPull only"));
    return;
  }
  Pull(std::get<msg::SubPullRequest>(std::move(request.body)),
       [r = std::move(responder)](Result<msg::SubPullReply> reply) {
         if (reply.ok()) {
           (void)r->Send(std::move(reply).value());
         } else {
           (void)r->SendError(reply.status());
         }
       });
}

void PullService::Tune(int max_active, std::uint64_t batch_bytes) {
  impl_->Tune(max_active, batch_bytes);
}

PullTotals PullService::Totals() const {
  const auto& t = impl_->totals_;
  return {t.network.load(std::memory_order_relaxed), t.device.load(std::memory_order_relaxed),
          t.rebuilt.load(std::memory_order_relaxed), t.objects_ok.load(std::memory_order_relaxed)};
}

}  // namespace ec::osd::pg
