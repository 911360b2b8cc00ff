// ChainService: a hop of a pipelined repair (repair_chain.h has the contract and the flow).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <limits>

#include "common/thread_name.h"
#include "common/thread_nice.h"
#include "msg/peer_clients.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/repair_chain.h"
#include "osd/pg/repair_chain_internal.h"

namespace ec::osd::pg {
namespace {

using ChainClock = std::chrono::steady_clock;

}  // namespace

// --- A hop. ---

class ChainService::Impl {
 public:
  Impl(shard::ShardService* shards, const cluster::MapHolder* map, MetricsRegistry* metrics,
       std::shared_ptr<spdlog::logger> log, ChainServiceOptions options)
      : shards_(shards),
        map_(map),
        metrics_(metrics),
        log_(log ? std::move(log) : spdlog::default_logger()),
        options_(std::move(options)),
        codecs_(options_.plugin_dir),
        peers_(msg::PeerOptions{fmt::format("osd.{}-chain", options_.osd_id),
                                std::chrono::milliseconds(3000), std::chrono::milliseconds(10000),
                                1, 2, msg::TrafficClass::kBackground, options_.nice, false,
                                options_.auth}),
        threads_(static_cast<std::size_t>(std::clamp(options_.threads, 1, 64))),
        pool_(threads_),
        bytes_in_(ChainBytes(*metrics_, "hop", "in")),
        bytes_out_(ChainBytes(*metrics_, "hop", "out")),
        stages_ok_(ChainStages(*metrics_, true)),
        stages_failed_(ChainStages(*metrics_, false)) {
    auto post = [this](std::function<void()> fn) { boost::asio::post(pool_, std::move(fn)); };
    Status niced = NiceEveryThread(threads_, options_.nice, post);
    if (!niced.ok()) log_->warn("repair chains run at the clients' priority: {}", niced.message());
    NameEveryThread(threads_, "chain", post);
  }

  // No new hop starts; the calls to predecessors in flight end (each has a deadline), then the
  // workers finish what was posted.
  void Stop() {
    {
      std::unique_lock lock(calls_mu_);
      stopping_.store(true);
      calls_done_.wait(lock, [&] { return calls_ == 0; });
    }
    pool_.join();
    peers_.CloseAll();
  }

  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
    auto* r = std::get_if<msg::SubRepairChainRequest>(&request.body);
    if (r == nullptr) {
      (void)responder->SendError(Status::Invalid("the chain service serves SubRepairChain only"));
      return;
    }
    if (stopping_.load()) {
      (void)responder->Send(
          msg::SubRepairChainReply{Status::Error(ECANCELED, "the OSD is shutting down"), -1, 0});
      return;
    }
    boost::asio::post(pool_, [this, req = std::move(*r), responder = std::move(responder),
                              start = ChainClock::now()]() { Serve(req, responder, start); });
  }

 private:
  // One hop being served: its read and its predecessor's partial, whichever comes second
  // finishing it.
  struct Hop {
    msg::SubRepairChainRequest request;
    std::shared_ptr<msg::Responder> responder;
    std::shared_ptr<const recovery::PipelinePlan> plan;
    std::shared_ptr<const PoolCodec> codec;
    std::size_t stage = 0;
    recovery::PipelineSlice slice;
    std::mutex mu;
    int waiting = 1;
    Status read_status;
    Buffer mine;
    Status up_status;
    int up_failed = -1;
    Buffer partial;
  };

  void Reply(Hop& hop, Status s, int failed) {
    stages_failed_.Inc();
    log_->warn("osd.{}: repair chain hop {} of {}/{} shard {} failed: {}", options_.osd_id,
               hop.request.hop, hop.request.collection, hop.request.object, hop.request.lost,
               s.message());
    (void)hop.responder->Send(msg::SubRepairChainReply{std::move(s), failed, 0});
  }

  void Serve(const msg::SubRepairChainRequest& request,
             const std::shared_ptr<msg::Responder>& responder, ChainClock::time_point start) {
    auto hop = std::make_shared<Hop>();
    hop->request = request;
    hop->responder = responder;
    const int me = static_cast<int>(request.hop);
    Status s = request.hop < request.hops.size()
                   ? Prepare(*hop)
                   : Status::Invalid(fmt::format("hop {} of {}", request.hop, request.hops.size()));
    if (!s.ok()) return Reply(*hop, std::move(s), me);
    if (request.hop > 0) {
      hop->waiting = 2;
      AskPredecessor(hop, start);
    }
    ReadMine(*hop);
    Arrive(hop);
  }

  // The map, the code, the plan and the slice: everything checked before any read.
  Status Prepare(Hop& hop) {
    const msg::SubRepairChainRequest& r = hop.request;
    auto map = map_->Get();
    const auto wanted = static_cast<std::int64_t>(
        std::min<std::uint64_t>(r.epoch, std::numeric_limits<std::int64_t>::max()));
    if (wanted > map->epoch) map = map_->WaitForEpoch(wanted, options_.map_wait);
    if (wanted > map->epoch) {
      return Status::Retryable(ESTALE, fmt::format("osd.{} has map epoch {}, the chain is of {}",
                                                   options_.osd_id, map->epoch, r.epoch));
    }
    auto pool = map->pools.find(static_cast<std::int64_t>(r.pool));
    if (r.pool > static_cast<std::uint64_t>(INT64_MAX) || pool == map->pools.end()) {
      return Status::NotFound(
          fmt::format("pool {} does not exist at epoch {}", r.pool, map->epoch));
    }
    auto codec = codecs_.Get(*map, pool->second);
    if (!codec.ok()) return codec.status();
    hop.codec = std::move(codec).value();
    if (hop.codec->replicated) return Status::Invalid("a replicated pool's objects are copied");
    const std::uint32_t n = hop.codec->layout.chunk_count();
    std::vector<int> positions;
    for (const msg::SubRepairChainHop& h : r.hops) {
      if (h.shard >= n) {
        return Status::Invalid(fmt::format("hop at shard {}: the pool has {}", h.shard, n));
      }
      positions.push_back(static_cast<int>(h.shard));
    }
    if (r.lost >= n) return Status::Invalid(fmt::format("lost shard {} of {}", r.lost, n));
    std::sort(positions.begin(), positions.end());
    auto plan =
        plans_->Get(*hop.codec->code, hop.codec->layout, static_cast<int>(r.lost), positions);
    if (!plan.ok()) return plan.status();
    hop.plan = std::move(plan).value();
    const std::uint32_t mine = r.hops[r.hop].shard;
    const auto& stages = hop.plan->stages();
    auto it = std::find_if(stages.begin(), stages.end(),
                           [&](const auto& st) { return st.chunk == static_cast<int>(mine); });
    if (stages.size() != r.hops.size() || it == stages.end()) {
      return Status::Error(
          EPROTO, fmt::format("the plan here has {} stages for {} hops{}", stages.size(),
                              r.hops.size(), it == stages.end() ? ", none at this shard" : ""));
    }
    if (ChainStageFingerprint(*it) != r.hops[r.hop].fingerprint) {
      return Status::Error(
          EPROTO, fmt::format("stage of shard {}: another plan than the "
                              "requester's (fingerprint {:#x}, asked {:#x})",
                              mine, ChainStageFingerprint(*it), r.hops[r.hop].fingerprint));
    }
    hop.stage = static_cast<std::size_t>(it - stages.begin());
    hop.slice = {r.first_stripe, r.stripes, static_cast<std::size_t>(r.offset),
                 static_cast<std::size_t>(r.length)};
    if (r.offset > SIZE_MAX || r.length > SIZE_MAX) return Status::Invalid("slice out of range");
    EC_RETURN_IF_ERROR(hop.plan->CheckSlice(hop.slice));
    if (r.first_stripe + r.stripes > hop.codec->layout.stripes_of(r.object_size)) {
      return Status::Invalid(fmt::format("stripes [{}, +{}) past the object's {}", r.first_stripe,
                                         r.stripes, hop.codec->layout.stripes_of(r.object_size)));
    }
    if (hop.plan->PartialBytes(hop.slice) > kMaxChainPartialBytes ||
        hop.plan->InputBytes(hop.stage, hop.slice) > kMaxChainPartialBytes) {
      return Status::Error(EMSGSIZE,
                           fmt::format("slice of {} partial bytes: at most {}",
                                       hop.plan->PartialBytes(hop.slice), kMaxChainPartialBytes));
    }
    return Status::OK();
  }

  void AskPredecessor(const std::shared_ptr<Hop>& hop, ChainClock::time_point start) {
    const msg::SubRepairChainRequest& r = hop->request;
    const int prev = static_cast<int>(r.hop) - 1;
    const msg::SubRepairChainHop& h = r.hops[static_cast<std::size_t>(prev)];
    // Its share of the deadline: prev+1 of the hop+1 shares this hop got, minus the time spent.
    const auto spent =
        std::chrono::duration_cast<std::chrono::milliseconds>(ChainClock::now() - start).count();
    const std::int64_t budget =
        static_cast<std::int64_t>(r.timeout_ms) * (prev + 1) / (prev + 2) - spent;
    auto fail = [&](Status s) {
      std::lock_guard lock(hop->mu);
      hop->up_status = std::move(s);
      hop->up_failed = prev;
      --hop->waiting;
    };
    if (budget <= 0) {
      return fail(Status::Retryable(ETIMEDOUT, "no time left for the rest of the chain"));
    }
    {
      std::lock_guard lock(calls_mu_);
      if (stopping_.load()) return fail(Status::Error(ECANCELED, "the OSD is shutting down"));
      ++calls_;
    }
    auto map = map_->Get();
    auto osd = map->osds.find(h.osd);
    if (osd == map->osds.end() || !osd->second.up || osd->second.addr.empty()) {
      return fail(Status::Error(EHOSTUNREACH, fmt::format("osd.{} is not up", h.osd)));
    }
    auto client = peers_.Get(h.osd, osd->second.addr);
    if (!client.ok()) {
      EndCall();
      return fail(client.status());
    }
    msg::SubRepairChainRequest up = r;
    up.hop = static_cast<std::uint32_t>(prev);
    up.timeout_ms = static_cast<std::uint32_t>(budget);
    msg::CallOptions call;
    call.timeout = std::chrono::milliseconds(budget);
    const std::uint64_t expect = hop->plan->PartialBytes(hop->slice);
    (*client)->SubRepairChainAsync(
        std::move(up),
        [this, hop, prev, expect, osd_id = h.osd, shard = h.shard](Result<msg::ChainResult> res) {
          Status s;
          int failed = prev;
          Buffer partial;
          if (!res.ok()) {
            s = res.status().WithPrefix(fmt::format("osd.{} (shard {})", osd_id, shard));
          } else if (!res->status.ok()) {
            s = res->status;
            if (res->failed_hop >= 0 && res->failed_hop <= prev) failed = res->failed_hop;
          } else if (res->partial.size() != expect) {
            s = Status::Error(EBADMSG, fmt::format("osd.{} sent a partial of {} bytes, {} expected",
                                                   osd_id, res->partial.size(), expect));
          } else {
            partial = std::move(res->partial);
            bytes_in_.Inc(partial.size());
          }
          {
            std::lock_guard lock(hop->mu);
            hop->up_status = std::move(s);
            hop->up_failed = failed;
            hop->partial = std::move(partial);
          }
          Arrive(hop);
          EndCall();  // after Arrive's post: Stop joins the workers only once this is done
        },
        call);
  }

  void EndCall() {
    std::lock_guard lock(calls_mu_);
    if (--calls_ == 0) calls_done_.notify_all();
  }

  // This hop's input for the slice: its stored extents, zeros past what the object's size gives
  // its shard (never stored, never read).
  void ReadMine(Hop& hop) {
    const msg::SubRepairChainRequest& r = hop.request;
    const std::uint32_t shard = r.hops[r.hop].shard;
    const std::uint64_t want_version = ChainHopVersion(r.versions, r.version, shard);
    const std::uint64_t stored =
        hop.codec->layout.stored_size(r.object_size, static_cast<int>(shard));
    Buffer mine = Buffer::Allocate(hop.plan->InputBytes(hop.stage, hop.slice), true);
    std::vector<store::Extent> asked;
    std::vector<std::uint64_t> at;  // where each asked extent goes in `mine`
    std::uint64_t pos = 0;
    for (const recovery::Extent& e : hop.plan->StageExtents(hop.stage, hop.slice)) {
      if (e.offset < stored) {
        asked.push_back({e.offset, std::min(e.length, stored - e.offset)});
        at.push_back(pos);
      }
      pos += e.length;
    }
    Status s;
    std::uint64_t version = 0;
    if (asked.empty()) {
      auto state = shards_->StateNow(msg::SubStateRequest{r.collection, r.object, shard});
      if (!state.ok()) {
        s = state.status();
      } else if (state->state != msg::ShardState::kPresent) {
        s = Status::NotFound(
            fmt::format("shard {}/{}#{} is absent", r.collection, r.object, shard));
      } else {
        version = state->version;
      }
    } else {
      auto got = shards_->ReadNow(r.collection, r.object, shard, asked);
      if (!got.ok()) {
        s = got.status();
      } else {
        version = got->version;
        for (std::size_t i = 0; s.ok() && i < asked.size(); ++i) {
          if (i >= got->extents.size() || got->extents[i].size() != asked[i].length) {
            s =
                Status::IOError(fmt::format("shard {}/{}#{} holds less than the object's size "
                                            "gives it ({} bytes)",
                                            r.collection, r.object, shard, stored));
          } else {
            std::memcpy(mine.data() + at[i], got->extents[i].data(), asked[i].length);
          }
        }
      }
    }
    if (s.ok() && version != want_version) {
      s = Status::Error(ESTALE, fmt::format("shard {}/{}#{} is at version {}, the chain is of {}",
                                            r.collection, r.object, shard, version, want_version));
    }
    std::lock_guard lock(hop.mu);
    hop.read_status = s.ok() ? s : s.WithPrefix(fmt::format("osd.{}", options_.osd_id));
    hop.mine = std::move(mine);
  }

  void Arrive(const std::shared_ptr<Hop>& hop) {
    {
      std::lock_guard lock(hop->mu);
      if (--hop->waiting > 0) return;
    }
    // The last of the two: the partial is computed on a worker, not on a messenger thread.
    boost::asio::post(pool_, [this, hop] { Finish(*hop); });
  }

  void Finish(Hop& hop) {
    const int me = static_cast<int>(hop.request.hop);
    if (!hop.read_status.ok()) return Reply(hop, hop.read_status, me);
    if (!hop.up_status.ok()) return Reply(hop, hop.up_status, hop.up_failed);
    const std::uint64_t bytes = hop.plan->PartialBytes(hop.slice);
    if (hop.request.hop == 0) hop.partial = Buffer::Allocate(bytes, true);
    Status s = recovery::ApplyStage(hop.plan->stages()[hop.stage], hop.slice, hop.mine.span(),
                                    hop.partial.span());
    if (!s.ok()) return Reply(hop, std::move(s), me);
    stages_ok_.Inc();
    bytes_out_.Inc(bytes);
    std::vector<Buffer> payload;
    payload.push_back(std::move(hop.partial));
    (void)hop.responder->Send(msg::SubRepairChainReply{Status::OK(), -1, hop.request.version},
                              std::move(payload));
  }

  shard::ShardService* shards_;
  const cluster::MapHolder* map_;
  MetricsRegistry* metrics_;
  std::shared_ptr<spdlog::logger> log_;
  ChainServiceOptions options_;
  PoolCodecs codecs_;
  ChainPlans own_plans_;  // when options_.plans is null
  ChainPlans* plans_ = options_.plans != nullptr ? options_.plans : &own_plans_;
  msg::PeerClients peers_;
  std::atomic<bool> stopping_{false};
  std::mutex calls_mu_;  // guards calls_ and the change of stopping_
  std::condition_variable calls_done_;
  int calls_ = 0;  // calls to predecessors in flight
  std::size_t threads_;
  boost::asio::thread_pool pool_;
  Counter& bytes_in_;
  Counter& bytes_out_;
  Counter& stages_ok_;
  Counter& stages_failed_;
};

ChainService::ChainService(shard::ShardService* shards, const cluster::MapHolder* map,
                           MetricsRegistry* metrics, std::shared_ptr<spdlog::logger> log,
                           ChainServiceOptions options)
    : impl_(std::make_unique<Impl>(shards, map, metrics, std::move(log), std::move(options))) {}

ChainService::~ChainService() {
  impl_->Stop();
}

void ChainService::Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) {
  impl_->Handle(std::move(request), std::move(responder));
}

}  // namespace ec::osd::pg
