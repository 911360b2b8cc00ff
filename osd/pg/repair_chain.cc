#include "osd/pg/repair_chain.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <limits>

#include "common/crc32c.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/repair_chain_internal.h"

namespace ec::osd::pg {
namespace {

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
      // Make() plans only from the positions it was given: each stage has its helper.
      auto helper = usable.find(stage.chunk);
      if (helper == usable.end()) {
        return Status::IOError(fmt::format("the plan names shard {}, not a helper", stage.chunk));
      }
      base.hops.push_back({static_cast<std::uint32_t>(stage.chunk), helper->second.osd,
                           ChainStageFingerprint(stage)});
    }
    if (base.hops.empty()) return Status::IOError("a plan without stages");
    const std::uint32_t last_hop = static_cast<std::uint32_t>(base.hops.size() - 1);
    base.hop = last_hop;
    base.timeout_ms = static_cast<std::uint32_t>(std::clamp<std::int64_t>(
        options.timeout.count(), 1, std::numeric_limits<std::int32_t>::max()));
    msg::OsdClient* first = usable.find(plan.stages().back().chunk)->second.client;
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

}  // namespace ec::osd::pg
