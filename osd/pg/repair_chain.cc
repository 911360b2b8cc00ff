#include "osd/pg/repair_chain.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <set>

#include "common/crc32c.h"
#include "common/thread_name.h"
#include "common/thread_nice.h"
#include "msg/peer_clients.h"
#include "osd/pg/pool_codecs.h"

namespace ec::osd::pg {
namespace {

using ChainClock = std::chrono::steady_clock;

// The version position `position` of an object must be at (msg/messages.h "Versions").
std::uint64_t ChainHopVersion(const msg::ShardVersions& versions, std::uint64_t version,
                              std::uint32_t position) {
  if (position < versions.size()) return versions[position];
  return version;
}

// role "hop": partials received from a predecessor (in) and sent back (out); role "requester":
// the finished partials (the lost chunks' bytes) this OSD received for its own rebuilds.
Counter& ChainBytes(MetricsRegistry& m, const char* role, const char* dir) {
  return m.GetCounter("ecstore_repair_chain_bytes_total",
                      "Partial bytes of pipelined repairs this OSD received (in) and sent (out), "
                      "as a hop or as the rebuilding OSD (requester)",
                      {{"role", role}, {"dir", dir}});
}

Counter& ChainSlices(MetricsRegistry& m, bool ok) {
  return m.GetCounter("ecstore_repair_chain_slices_total",
                      "Slices of pipelined repairs this OSD requested, by result",
                      {{"result", ok ? "ok" : "failed"}});
}

Counter& ChainStages(MetricsRegistry& m, bool ok) {
  return m.GetCounter("ecstore_repair_chain_stages_total",
                      "Hops of pipelined repairs this OSD served, by result",
                      {{"result", ok ? "ok" : "failed"}});
}

// Writes a finished partial of `slice` into the lost shard's bytes.
Status ScatterPartial(const recovery::PipelinePlan& plan, const recovery::PipelineSlice& slice,
                      std::span<const std::byte> partial, std::span<std::byte> out) {
  std::size_t pos = 0;
  for (const recovery::Extent& e : plan.OutputExtents(slice)) {
    if (e.offset > out.size() || e.length > out.size() - e.offset ||
        e.length > partial.size() - pos) {
      return Status::IOError(fmt::format("partial extent [{}, +{}) past the shard's {} bytes",
                                         e.offset, e.length, out.size()));
    }
    std::memcpy(out.data() + e.offset, partial.data() + pos, e.length);
    pos += e.length;
  }
  return Status::OK();
}

}  // namespace

std::uint32_t ChainStageFingerprint(const recovery::PipelineStage& stage) {
  std::vector<std::byte> bytes;
  auto put = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<std::byte>(v >> (8 * i)));
  };
  put(static_cast<std::uint32_t>(stage.chunk));
  put(static_cast<std::uint32_t>(stage.outputs));
  put(static_cast<std::uint32_t>(stage.inputs.size()));
  for (int in : stage.inputs) put(static_cast<std::uint32_t>(in));
  for (std::uint8_t c : stage.coefficients) bytes.push_back(static_cast<std::byte>(c));
  return Crc32c(bytes);
}

Result<std::shared_ptr<const recovery::PipelinePlan>> ChainPlans::Get(
    const ErasureCodeInterface& code, const StripeLayout& layout, int lost,
    const std::vector<int>& helpers) {
  // The code object and the layout's geometry name the code: a pool's codec lives as long as
  // the pool (pool_codecs.h), and a new profile means a new code object.
  const std::string key = fmt::format("{}/{}/{}/{}", static_cast<const void*>(&code),
                                      layout.chunk_size(), lost, fmt::join(helpers, ","));
  {
    std::lock_guard lock(mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }
  recovery::PipelineRequest request;
  request.lost = lost;
  for (int h : helpers) request.available[h] = 1;
  auto plan = recovery::PipelinePlan::Make(code, layout, request);
  if (!plan.ok()) return plan.status();
  auto shared = std::make_shared<const recovery::PipelinePlan>(std::move(plan).value());
  std::lock_guard lock(mu_);
  if (plans_.size() >= 256) plans_.clear();  // a bound, not a policy: plans are cheap to remake
  plans_[key] = shared;
  return shared;
}

// --- The requester. ---

namespace {

// A slice's failure with no hop named by a reply: no reply, or a wrong one, from the last hop.
constexpr int kNoAnswer = -2;

// The slices of one chain in flight, shared with their completions.
struct ChainRun {
  std::mutex mu;
  std::condition_variable cv;
  int inflight = 0;
  Status error;
  int failed_hop = -1;
  std::uint64_t received = 0;
};

}  // namespace

Status RepairByChain(const ChainRepairTarget& target, const ChainRepairOptions& options,
                     ChainPlans* plans, MetricsRegistry* metrics, std::span<std::byte> out,
                     ChainRepairStats* stats) {
  if (target.code == nullptr || target.layout == nullptr || plans == nullptr || target.lost < 0 ||
      target.version == 0) {
    return Status::Invalid("a repair chain needs a code, a layout, a lost shard and a version");
  }
  const StripeLayout& layout = *target.layout;
  if (out.size() != layout.padded_shard_size(target.object_size)) {
    return Status::Invalid(fmt::format("{} bytes for a shard of {}", out.size(),
                                       layout.padded_shard_size(target.object_size)));
  }
  const std::uint64_t stripes = layout.stripes_of(target.object_size);
  std::map<int, ChainHelper> usable = target.helpers;
  std::vector<recovery::PipelineSlice> pending;  // slices not received yet
  bool sliced = false;
  Status last;
  const int window = std::max(options.window, 1);
  for (int chain = 0; chain < std::max(options.max_chains, 1); ++chain) {
    std::vector<int> positions;
    for (const auto& [position, helper] : usable) {
      if (helper.client != nullptr && position != target.lost) positions.push_back(position);
    }
    auto made = plans->Get(*target.code, layout, target.lost, positions);
    if (!made.ok()) {
      if (last.ok()) return made.status();
      return last.WithPrefix(fmt::format("no chain left ({})", made.status().message()));
    }
    const recovery::PipelinePlan& plan = **made;
    if (!sliced) {
      // slice_bytes is the partial's size: spread over the wanted sub-chunks (CLAY(10,4,13)
      // rebuilds 256 of them per stripe).
      const std::uint64_t wanted =
          plan.want().second > 0 ? plan.want().second : plan.sub_chunk_count();
      auto cut = plan.Slices(
          0, stripes,
          std::max<std::uint64_t>(64, options.slice_bytes / std::max<std::uint64_t>(1, wanted)));
      if (!cut.ok()) return cut.status();
      pending = std::move(cut).value();
      sliced = true;
      for (const auto& s : pending) {
        if (plan.PartialBytes(s) > kMaxChainPartialBytes) {
          return Status::Invalid(fmt::format("slice of {} bytes: at most {}", plan.PartialBytes(s),
                                             kMaxChainPartialBytes));
        }
      }
    }
    if (pending.empty()) return Status::OK();
    msg::SubRepairChainRequest base;
    base.pool = target.pool;
    base.epoch = target.epoch;
    base.collection = target.collection;
    base.object = target.object;
    base.lost = static_cast<std::uint32_t>(target.lost);
    base.version = target.version;
    base.object_size = target.object_size;
    base.versions = target.versions;
    for (const recovery::PipelineStage& stage : plan.stages()) {
      base.hops.push_back({static_cast<std::uint32_t>(stage.chunk), usable.at(stage.chunk).osd,
                           ChainStageFingerprint(stage)});
    }
    const std::uint32_t last_hop = static_cast<std::uint32_t>(base.hops.size() - 1);
    base.hop = last_hop;
    base.timeout_ms = static_cast<std::uint32_t>(std::clamp<std::int64_t>(
        options.timeout.count(), 1, std::numeric_limits<std::int32_t>::max()));
    msg::OsdClient* first = usable.at(plan.stages().back().chunk).client;
    msg::CallOptions call;
    // A hop's own error reply (naming who failed) must arrive before this call gives up.
    call.timeout = options.timeout + options.timeout / 10 + std::chrono::milliseconds(200);
    ++stats->chains;

    auto run = std::make_shared<ChainRun>();
    std::vector<char> got(pending.size(), 0);
    for (std::size_t i = 0; i < pending.size(); ++i) {
      {
        std::unique_lock lock(run->mu);
        run->cv.wait(lock, [&] { return run->inflight < window || !run->error.ok(); });
        if (!run->error.ok()) break;
        ++run->inflight;
      }
      msg::SubRepairChainRequest r = base;
      r.first_stripe = pending[i].first_stripe;
      r.stripes = pending[i].stripes;
      r.offset = pending[i].offset;
      r.length = pending[i].length;
      // `plan` (held by `made`), `out` and `got` outlive every completion: this call waits for
      // all of them below.
      first->SubRepairChainAsync(
          std::move(r),
          [run, &plan, slice = pending[i], out, &got, i](Result<msg::ChainResult> res) {
            Status s;
            int failed = kNoAnswer;
            std::uint64_t bytes = 0;
            if (!res.ok()) {
              s = res.status();
            } else if (!res->status.ok()) {
              s = res->status;
              failed = res->failed_hop;
            } else if (res->partial.size() != plan.PartialBytes(slice)) {
              s = Status::Error(
                  EBADMSG, fmt::format("a partial of {} bytes, {} expected", res->partial.size(),
                                       plan.PartialBytes(slice)));
            } else {
              bytes = res->partial.size();
              s = ScatterPartial(plan, slice, res->partial.span(), out);
            }
            std::lock_guard lock(run->mu);
            if (s.ok()) {
              got[i] = 1;
              run->received += bytes;
            } else if (run->error.ok()) {
              run->error = s;
              run->failed_hop = failed;
            }
            --run->inflight;
            run->cv.notify_all();
          },
          call);
    }
    Status error;
    int failed_hop = -1;
    {
      std::unique_lock lock(run->mu);
      run->cv.wait(lock, [&] { return run->inflight == 0; });
      error = run->error;
      failed_hop = run->failed_hop;
      stats->network_bytes += run->received;
    }
    std::vector<recovery::PipelineSlice> left;
    std::size_t ok_slices = 0;
    for (std::size_t i = 0; i < pending.size(); ++i) {
      if (got[i]) {
        ++ok_slices;
      } else {
        left.push_back(pending[i]);
      }
    }
    if (metrics != nullptr) {
      ChainBytes(*metrics, "requester", "in").Inc(run->received);
      ChainSlices(*metrics, true).Inc(ok_slices);
      if (!error.ok()) ChainSlices(*metrics, false).Inc();
    }
    pending = std::move(left);
    if (error.ok() && pending.empty()) return Status::OK();
    if (error.ok()) error = Status::IOError("slices left unanswered");
    // The hop at fault: the one the reply names, else the one this OSD asked (it did not answer,
    // or answered wrongly).
    // (-1: refused as a whole, by the map or the fence, which no other chain changes).
    const int blamed = failed_hop >= 0 && static_cast<std::size_t>(failed_hop) < base.hops.size()
                           ? failed_hop
                           : (failed_hop == kNoAnswer ? static_cast<int>(last_hop) : -1);
    const std::string who =
        blamed >= 0
            ? fmt::format("osd.{} (shard {})", base.hops[static_cast<std::size_t>(blamed)].osd,
                          base.hops[static_cast<std::size_t>(blamed)].shard)
            : std::string("the chain");
    stats->failures.push_back(fmt::format("chain {}: {}: {}", chain + 1, who, error.message()));
    last = Status::Error(error.code() == 0 ? EIO : error.code(),
                         fmt::format("{}", fmt::join(stats->failures, "; ")));
    if (blamed < 0) return last;  // refused as a whole (the map or the fence): no other chain helps
    usable.erase(static_cast<int>(base.hops[static_cast<std::size_t>(blamed)].shard));
  }
  return last;
}

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
                                1, 2, msg::TrafficClass::kBackground, options_.nice}),
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
        plans_.Get(*hop.codec->code, hop.codec->layout, static_cast<int>(r.lost), positions);
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
  ChainPlans plans_;
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
