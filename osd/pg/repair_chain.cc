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
#include "recovery/read_cost.h"

namespace ec::osd::pg {
namespace {

// Writes what a finished partial of `slice` holds of the lost shard's bytes [offset, offset +
// out.size()) into `out` (a CLAY slice may hold bytes on either side of the range: dropped).
Status ScatterPartial(const recovery::PipelinePlan& plan, const recovery::PipelineSlice& slice,
                      std::span<const std::byte> partial, std::uint64_t offset,
                      std::span<std::byte> out) {
  std::size_t pos = 0;
  const std::uint64_t end = offset + out.size();
  for (const recovery::Extent& e : plan.OutputExtents(slice)) {
    if (e.length > partial.size() - pos) {
      return Status::IOError(fmt::format("partial extent [{}, +{}) past the partial's {} bytes",
                                         e.offset, e.length, partial.size()));
    }
    const std::uint64_t lo = std::max(e.offset, offset);
    const std::uint64_t hi = std::min(e.offset + e.length, end);
    if (lo < hi) {
      std::memcpy(out.data() + (lo - offset), partial.data() + pos + (lo - e.offset), hi - lo);
    }
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

Result<std::vector<recovery::PipelineSlice>> ChainSlicesFor(const recovery::PipelinePlan& plan,
                                                            std::uint64_t offset,
                                                            std::uint64_t length,
                                                            const ChainRepairOptions& options) {
  const std::uint64_t c = plan.chunk_size();
  if (length == 0 || c == 0 || offset > std::numeric_limits<std::uint64_t>::max() - length) {
    return Status::Invalid(fmt::format("no chain slices for [{}, +{})", offset, length));
  }
  // slice_bytes is the partial's size: spread over the wanted sub-chunks (CLAY(10,4,13)
  // rebuilds 256 of them per stripe).
  const std::uint64_t wanted = plan.want().second > 0 ? plan.want().second : plan.sub_chunk_count();
  const std::uint64_t per =
      std::max<std::uint64_t>(64, options.slice_bytes / std::max<std::uint64_t>(1, wanted));
  const std::uint64_t end = offset + length;
  if (plan.sub_chunk_count() != 1 || (offset % c == 0 && end % c == 0)) {
    const std::uint64_t first = offset / c;
    return plan.Slices(first, (end - 1) / c + 1 - first, per);
  }
  // One sub-chunk per chunk: pieces of chunks at the ends, whole chunks of stripes between (as
  // Slices cuts them: several stripes per slice when a chunk is below a slice, else pieces of
  // each chunk of `piece` bytes).
  const std::uint64_t piece = std::max<std::uint64_t>(64, per / 64 * 64);
  std::vector<recovery::PipelineSlice> out;
  for (std::uint64_t pos = offset; pos < end;) {
    const std::uint64_t stripe = pos / c;
    const std::uint64_t in = pos % c;
    if (in == 0 && end - pos >= c && c < piece) {
      const std::uint64_t n = std::min(piece / c, (end - pos) / c);
      out.push_back({stripe, n, 0, static_cast<std::size_t>(c)});
      pos += n * c;
    } else {
      const std::uint64_t len = std::min({c - in, end - pos, piece});
      out.push_back({stripe, 1, static_cast<std::size_t>(in), static_cast<std::size_t>(len)});
      pos += len;
    }
  }
  return out;
}

bool ChainLongEnough(std::uint64_t lost_bytes, const ChainRepairOptions& options) {
  return lost_bytes >= options.slice_bytes;
}

std::vector<int> ChainOrder(const recovery::PipelinePlan& plan, int first_hop) {
  std::vector<int> order;
  for (const recovery::PipelineStage& stage : plan.stages()) {
    if (stage.chunk == first_hop)
      order.insert(order.begin(), stage.chunk);
    else
      order.push_back(stage.chunk);
  }
  return order;
}

bool ChainPaysOff(const recovery::PipelinePlan& plan, const ChainCost& cost,
                  const ChainRepairOptions& options, recovery::LinkCostEstimate* estimate) {
  auto bandwidth = [&](int position) -> std::uint64_t {
    auto it = cost.bandwidth.find(position);
    return it == cost.bandwidth.end() ? 0 : it->second;
  };
  recovery::LinkCostInput in;
  in.requester_bandwidth = cost.requester_bandwidth;
  for (const auto& [position, bytes] : cost.direct) {
    if (bytes > 0) in.direct.push_back({bandwidth(position), bytes});
  }
  for (int position : ChainOrder(plan, cost.first_hop)) {
    in.chain.push_back(position == cost.first_hop ? cost.requester_bandwidth : bandwidth(position));
  }
  in.chain_bytes = cost.chain_bytes;
  in.slice_bytes = options.slice_bytes;
  const recovery::LinkCostEstimate e = recovery::EstimateRepairLinks(in);
  if (estimate != nullptr) *estimate = e;
  return e.chain && ChainLongEnough(cost.chain_bytes, options);
}

Result<std::shared_ptr<const recovery::PipelinePlan>> ChainPlans::Get(
    const ErasureCodeInterface& code, const StripeLayout& layout, int lost,
    const std::vector<int>& helpers) {
  // The code's normalised profile and the layout's geometry name the code, not its address: a
  // pool removed and another made could get a new code object at the same address, and a plan
  // of the old code must never serve the new one.
  std::string code_key = fmt::format("{}/", layout.chunk_size());
  for (const auto& [name, value] : code.get_profile()) {
    code_key += fmt::format("{}={};", name, value);
  }
  const std::string key = fmt::format("{}/{}/{}", code_key, lost, fmt::join(helpers, ","));
  recovery::PipelineRequest request;
  request.lost = lost;
  for (int h : helpers) request.available[h] = 1;
  {
    std::unique_lock lock(mu_);
    checked_cv_.wait(lock, [&] { return checking_.count(code_key) == 0; });
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      if (!it->second.plan) return it->second.why;
      return it->second.plan;
    }
    // The repair at the pool's chunk size checks the code's implementation at that size, once
    // per code and size (its cost grows with the chunk: a chain's every hop paid ~140 ms of CPU
    // for each new lost chunk and helper set of RS(10,4) with 4 MiB chunks, which made the first
    // degraded reads through chains seconds long on 2 cores). Each plan's own coefficients are
    // still derived and checked by the small probes.
    request.check_layout = checked_.count(code_key) == 0;
    if (request.check_layout) checking_.insert(code_key);
  }
  auto plan = recovery::PipelinePlan::Make(code, layout, request);
  Entry entry;
  if (plan.ok()) {
    entry.plan = std::make_shared<const recovery::PipelinePlan>(std::move(plan).value());
  } else {
    entry.why = plan.status();
  }
  std::lock_guard lock(mu_);
  if (request.check_layout) {
    ++layout_checks_;
    checking_.erase(code_key);
    checked_cv_.notify_all();
  }
  if (plan.ok() && request.check_layout) {
    if (checked_.size() >= 256) checked_.clear();
    checked_.insert(code_key);
  }
  // Failures are kept too (a code that is not pipelinable, too few helpers): Make is a pure
  // function of its key, and probing a code costs up to ~15 ms (CLAY(10,4,13)), which every large
  // degraded read with osd_repair_pipeline=on would pay again otherwise.
  if (plans_.size() >= 256) plans_.clear();  // a bound, not a policy: plans are cheap to remake
  plans_[key] = entry;
  if (!entry.plan) return entry.why;
  return entry.plan;
}

std::size_t ChainPlans::layout_checks() const {
  std::lock_guard lock(mu_);
  return layout_checks_;
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
  std::uint64_t device = 0;  // the hops' device bytes for the slices received
};

// The device bytes the hops of `plan` read for `slice` (their stored parts, in 4 KiB blocks).
std::uint64_t HopDeviceBytes(const recovery::PipelinePlan& plan,
                             const recovery::PipelineSlice& slice,
                             const recovery::ReadCostModel& stored) {
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < plan.stages().size(); ++i) {
    bytes += recovery::PriceHelper(stored, plan.stages()[i].chunk, plan.StageExtents(i, slice))
                 .device_bytes;
  }
  return bytes;
}

}  // namespace

Status RepairByChain(const ChainRepairTarget& target, const ChainRepairOptions& options,
                     ChainPlans* plans, MetricsRegistry* metrics, std::span<std::byte> out,
                     ChainRepairStats* stats) {
  if (target.code == nullptr || target.layout == nullptr || plans == nullptr || target.lost < 0 ||
      target.version == 0) {
    return Status::Invalid("a repair chain needs a code, a layout, a lost shard and a version");
  }
  const StripeLayout& layout = *target.layout;
  const std::uint64_t shard = layout.padded_shard_size(target.object_size);
  const std::uint64_t out_offset = target.length == 0 ? 0 : target.offset;
  const std::uint64_t length = target.length == 0 ? shard : target.length;
  if (out_offset > shard || length > shard - out_offset) {
    return Status::Invalid(
        fmt::format("bytes [{}, +{}) of a shard of {}", out_offset, length, shard));
  }
  if (out.size() != length) {
    return Status::Invalid(
        fmt::format("{} bytes for [{}, +{}) of the shard", out.size(), out_offset, length));
  }
  std::map<int, ChainHelper> usable = target.helpers;
  recovery::ReadCostModel stored;  // prices the hops' reads (ChainRepairStats::device_bytes)
  for (unsigned p = 0; p < layout.chunk_count(); ++p) {
    stored.stored[static_cast<int>(p)] =
        layout.stored_size(target.object_size, static_cast<int>(p));
  }
  std::vector<recovery::PipelineSlice> pending;  // slices not received yet
  bool sliced = false;
  Status last;
  for (int chain = 0; chain < std::max(options.max_chains, 1); ++chain) {
    std::vector<int> positions;
    for (const auto& [position, helper] : usable) {
      if ((helper.client != nullptr || position == target.first_hop) && position != target.lost) {
        positions.push_back(position);
      }
    }
    auto made = plans->Get(*target.code, layout, target.lost, positions);
    if (!made.ok()) {
      if (last.ok()) return made.status();
      return last.WithPrefix(fmt::format("no chain left ({})", made.status().message()));
    }
    const recovery::PipelinePlan& plan = **made;
    if (!sliced && length > 0) {  // (an empty object: nothing to rebuild)
      auto cut = ChainSlicesFor(plan, out_offset, length, options);
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
    // ChainOrder: the plan's order, but first_hop first (hops find their stage by shard: any
    // order works; ChainPaysOff priced this one).
    std::vector<const recovery::PipelineStage*> order;
    for (int position : ChainOrder(plan, target.first_hop)) {
      for (const recovery::PipelineStage& stage : plan.stages()) {
        if (stage.chunk == position) order.push_back(&stage);
      }
    }
    for (const recovery::PipelineStage* stage : order) {
      // Make() plans only from the positions it was given: each stage has its helper.
      auto helper = usable.find(stage->chunk);
      if (helper == usable.end()) {
        return Status::IOError(fmt::format("the plan names shard {}, not a helper", stage->chunk));
      }
      base.hops.push_back({static_cast<std::uint32_t>(stage->chunk), helper->second.osd,
                           ChainStageFingerprint(*stage)});
    }
    if (base.hops.empty()) return Status::IOError("a plan without stages");
    const std::uint32_t last_hop = static_cast<std::uint32_t>(base.hops.size() - 1);
    const int window = options.window > 0 ? options.window : static_cast<int>(base.hops.size()) + 1;
    base.hop = last_hop;
    base.timeout_ms = static_cast<std::uint32_t>(std::clamp<std::int64_t>(
        options.timeout.count(), 1, std::numeric_limits<std::int32_t>::max()));
    msg::OsdClient* first = usable.find(order.back()->chunk)->second.client;
    if (first == nullptr) {
      return Status::Invalid(
          fmt::format("a chain of shard {} alone: the requester's own", order.back()->chunk));
    }
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
          [run, &plan, &stored, slice = pending[i], out_offset, out, &got,
           i](Result<msg::ChainResult> res) {
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
              s = ScatterPartial(plan, slice, res->partial.span(), out_offset, out);
            }
            const std::uint64_t device = s.ok() ? HopDeviceBytes(plan, slice, stored) : 0;
            std::lock_guard lock(run->mu);
            if (s.ok()) {
              got[i] = 1;
              run->received += bytes;
              run->device += device;
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
      stats->device_bytes += run->device;
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
