#include "recovery/repair_engine.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "ec/stripe_codec.h"
#include "recovery/plan_choice.h"
#include "recovery/repair_plan.h"

namespace ec::recovery {

std::string JoinShards(const ShardSet& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

std::uint64_t RepairStats::bytes_read() const {
  std::uint64_t n = 0;
  for (const auto& [id, h] : helpers) n += h.bytes;
  return n;
}

std::uint64_t RepairStats::requests() const {
  std::uint64_t n = 0;
  for (const auto& [id, h] : helpers) n += h.requests;
  return n;
}

std::uint64_t RepairStats::extents() const {
  std::uint64_t n = 0;
  for (const auto& [id, h] : helpers) n += h.extents;
  return n;
}

ShardSet RepairStats::helpers_read() const {
  ShardSet ids;
  for (const auto& [id, h] : helpers)
    if (h.requests > h.failed_requests) ids.insert(id);
  return ids;
}

namespace {

// Part of a run inside one batch.
struct Piece {
  const RunPlan* run;
  std::uint64_t first_stripe;
  std::uint64_t stripes;
};

// The parts of the active plan's runs inside the batch of stripes [s0, s_end).
std::vector<Piece> BatchPieces(const ActivePlan& active, std::uint64_t s0, std::uint64_t s_end) {
  std::vector<Piece> pieces;
  for (const RunPlan& rp : active.runs) {
    const std::uint64_t a = std::max(rp.run.first_stripe, s0);
    const std::uint64_t b = std::min(rp.run.first_stripe + rp.run.stripes, s_end);
    if (a < b) pieces.push_back({&rp, a, b - a});
  }
  return pieces;
}

// The plan's extents of shard `h` in one batch (every piece's, in shard order, merged where
// adjacent): what its ONE request carries before any also_read. `bases` (if given) receives the
// offset of each piece's bytes in the helper's buffer. Returns the bytes they hold.
std::uint64_t PlanExtents(const RepairPlan& p, const std::vector<Piece>& pieces, int h,
                          std::size_t c, std::size_t sub, std::vector<Extent>& extents,
                          std::vector<std::size_t>* bases) {
  std::uint64_t bytes = 0;
  for (const Piece& piece : pieces) {
    if (bases) bases->push_back(static_cast<std::size_t>(bytes));
    auto bps = piece.run->bytes_per_stripe.find(h);
    if (bps == piece.run->bytes_per_stripe.end()) continue;
    if (p.kind == RepairPlan::Kind::kDirect) {  // exactly the wanted bytes
      for (std::uint64_t s = piece.first_stripe; s < piece.first_stripe + piece.stripes; ++s)
        AppendExtent(extents, {s * c + piece.run->run.offset, piece.run->run.length});
    } else {
      AppendRangeExtents(extents, piece.run->reads.at(h), c, sub, piece.first_stripe,
                         piece.stripes);
    }
    bytes += bps->second * piece.stripes;
  }
  return bytes;
}

}  // namespace

RepairEngine::RepairEngine(ErasureCodeInterfaceRef code, StripeLayout layout,
                           RepairEngineOptions options)
    : code_(std::move(code)), layout_(std::move(layout)), options_(options) {}

namespace {

Status Exhausted(const ShardSet& want, const std::map<int, Status>& failed, const Status& why) {
  std::string text = "cannot rebuild shard(s) " + JoinShards(want) + ": helper(s) failed: ";
  bool first = true, all_retryable = true;
  for (const auto& [id, s] : failed) {
    text += (first ? "" : ", ") + std::to_string(id) + " (" + s.message() + ")";
    first = false;
    all_retryable = all_retryable && s.is_retryable();
  }
  text += "; the other available shards are not enough (" + why.message() + ")";
  return all_retryable ? Status::Retryable(EIO, text) : Status::IOError(text);
}

}  // namespace

namespace {

// Everything a plan depends on, as bytes: the key of the plan cache.
std::string PlanKey(const RepairRequest& r) {
  std::string key;
  auto put = [&key](std::uint64_t v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(r.want.size());
  for (int id : r.want) put(static_cast<std::uint64_t>(id));
  put(r.available.size());
  for (const auto& [id, cost] : r.available) {
    put(static_cast<std::uint64_t>(id));
    put(static_cast<std::uint64_t>(cost));
  }
  put(r.stripes);
  put(r.offset);
  put(r.length);
  put(r.cost ? 1 : 0);
  if (r.cost) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &r.cost->weight_net, sizeof bits);
    put(bits);
    std::memcpy(&bits, &r.cost->weight_dev, sizeof bits);
    put(bits);
    put(r.cost->device_block);
    put(r.cost->local.size());
    for (int id : r.cost->local) put(static_cast<std::uint64_t>(id));
    put(r.cost->stored.size());
    for (const auto& [id, stored] : r.cost->stored) {
      put(static_cast<std::uint64_t>(id));
      put(stored);
    }
  }
  put(r.also_read.size());
  for (const auto& [id, extents] : r.also_read) {
    put(static_cast<std::uint64_t>(id));
    put(extents.size());
    for (const Extent& e : extents) {
      put(e.offset);
      put(e.length);
    }
  }
  return key;
}

}  // namespace

Result<RepairPlan> RepairEngine::Plan(const RepairRequest& request) const {
  std::uint64_t end = 0;
  EC_RETURN_IF_ERROR(CheckRequest(layout_, request, &end));
  std::string key = PlanKey(request);
  {
    std::lock_guard lock(cache_->mu);
    auto hit = cache_->plans.find(key);
    if (hit != cache_->plans.end()) return hit->second;
  }
  auto plan = Choose(request, request.available, request.offset, end);
  if (!plan.ok()) return plan;  // errors are not remembered: they are the rare case
  std::lock_guard lock(cache_->mu);
  if (cache_->plans.size() >= PlanCache::kMaxPlans) cache_->plans.clear();
  cache_->plans.emplace(std::move(key), *plan);
  return plan;
}

Result<std::vector<RepairPlan>> RepairEngine::Candidates(const RepairRequest& request) const {
  std::uint64_t end = 0;
  EC_RETURN_IF_ERROR(CheckRequest(layout_, request, &end));
  return PricedCandidates(*code_, layout_, request.want, request.available, request.offset, end,
                          request.also_read, request.cost.value_or(ReadCostModel{}));
}

Result<RepairPlan> RepairEngine::Choose(const RepairRequest& request,
                                        const std::map<int, int>& costs, std::uint64_t pos,
                                        std::uint64_t end) const {
  if (!request.cost) return MakePlan(*code_, layout_, request.want, costs);
  // After a failure the also_read bytes may be read already (a later batch) or given up.
  std::map<int, std::vector<Extent>> also;
  if (pos == request.offset)
    for (const auto& [id, extents] : request.also_read)
      if (costs.count(id)) also.emplace(id, extents);
  auto plans =
      PricedCandidates(*code_, layout_, request.want, costs, pos, end, also, *request.cost);
  if (!plans.ok()) return plans.status();
  return std::move(plans->front());
}

Status RepairEngine::Run(const RepairRequest& request, ShardSource& source, const RebuiltSink& sink,
                         RepairStats* stats_out, const RepairPlan* first) const {
  RepairStats local;
  RepairStats& stats = stats_out ? *stats_out : local;
  stats = RepairStats{};
  std::uint64_t end = 0;
  EC_RETURN_IF_ERROR(CheckRequest(layout_, request, &end));
  const std::size_t c = layout_.chunk_size();
  const std::size_t sub = layout_.sub_chunk_size();
  const ShardSourceLimits limits = source.limits();
  std::map<int, int> costs = request.available;
  std::uint64_t pos = request.offset;

  auto plan = first != nullptr ? Result<RepairPlan>(*first) : Choose(request, costs, pos, end);
  if (!plan.ok()) return plan.status();
  ++stats.plans;
  auto active = PlanRuns(*code_, layout_, std::move(*plan), request.want, pos, end, limits,
                         options_.batch_bytes);
  if (!active.ok()) return active.status();

  const StripeCodec codec(*code_, layout_);
  std::map<int, Buffer> inputs;   // per helper: this batch's extents, back to back
  std::map<int, Buffer> outputs;  // per rebuilt shard: whole chunks of the batch's stripes
  std::vector<ShardReadRequest> requests;
  // also_read not delivered yet (until the first batch is), and for the shards that have some:
  // the merged request's raw bytes, the plan's own extents, the also_read bytes.
  std::map<int, std::vector<Extent>> also = request.also_read;
  std::map<int, Buffer> raw, also_out;
  std::map<int, std::vector<Extent>> plan_extents;
  // What each request of a batch carries: the plan's extents, those merged with also_read's, or
  // (when the merged request would break the source's limits) part of also_read's alone.
  enum class Carries { kPlan, kMerged, kAlsoPart };
  std::vector<Carries> carries;
  while (pos < end) {
    const RepairPlan& p = active->plan;
    const std::uint64_t s0 = pos / c;
    const std::uint64_t last = (end - 1) / c;
    const std::uint64_t s_end = std::min(last + 1, s0 + active->stripes_per_batch);
    const std::uint64_t batch_end = std::min<std::uint64_t>(end, s_end * c);

    const std::vector<Piece> pieces = BatchPieces(*active, s0, s_end);

    // One request per helper: every piece's extents, in shard order, merged where adjacent.
    requests.clear();
    carries.clear();
    std::map<int, std::vector<std::size_t>> bases;  // helper -> offset of each piece's bytes
    const ShardSet& plan_readers = p.kind == RepairPlan::Kind::kDirect ? request.want : p.helpers;
    ShardSet readers = plan_readers;
    for (const auto& [id, extents] : also) readers.insert(id);
    for (const int h : readers) {
      ShardReadRequest req;
      req.shard = h;
      const std::uint64_t bytes =
          plan_readers.count(h) ? PlanExtents(p, pieces, h, c, sub, req.extents, &bases[h]) : 0;
      Buffer& in = inputs[h];
      if (in.size() < bytes) in = Buffer::Allocate(static_cast<std::size_t>(bytes), false);
      if (auto extra = also.find(h); extra != also.end()) {
        // One request for both: the union of the plan's extents and the caller's.
        std::vector<Extent> all = req.extents;
        all.insert(all.end(), extra->second.begin(), extra->second.end());
        std::vector<Extent> merged = MergeExtents(std::move(all));
        std::uint64_t raw_bytes = 0, also_bytes = 0;
        for (const Extent& e : merged) raw_bytes += e.length;
        for (const Extent& e : extra->second) also_bytes += e.length;
        if (raw_bytes == 0) continue;
        if ((limits.max_extents == 0 || merged.size() <= limits.max_extents) &&
            (limits.max_bytes == 0 || raw_bytes <= limits.max_bytes)) {
          plan_extents[h] = std::move(req.extents);
          req.extents = std::move(merged);
          Buffer& r = raw[h];
          if (r.size() < raw_bytes)
            r = Buffer::Allocate(static_cast<std::size_t>(raw_bytes), false);
          req.destination = {r.data(), static_cast<std::size_t>(raw_bytes)};
          requests.push_back(std::move(req));
          carries.push_back(Carries::kMerged);
          continue;
        }
        // Too big for one request: the plan's as usual, the caller's cut to the limits.
        Buffer& out = also_out[h];
        if (out.size() < also_bytes)
          out = Buffer::Allocate(static_cast<std::size_t>(also_bytes), false);
        for (ShardReadRequest& part : SplitToLimits(
                 h, extra->second, {out.data(), static_cast<std::size_t>(also_bytes)}, limits)) {
          requests.push_back(std::move(part));
          carries.push_back(Carries::kAlsoPart);
        }
      }
      if (bytes == 0) continue;
      req.destination = {in.data(), static_cast<std::size_t>(bytes)};
      requests.push_back(std::move(req));
      carries.push_back(Carries::kPlan);
    }
    const std::vector<Status> results = ReadAll(source, requests);
    bool failed = false;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      HelperStats& h = stats.helpers[requests[i].shard];
      ++h.requests;
      h.extents += requests[i].extents.size();
      const int id = requests[i].shard;
      if (results[i].ok()) {
        h.bytes += requests[i].destination.size();
        if (auto extra = also.find(id); carries[i] == Carries::kMerged && extra != also.end()) {
          GatherExtents(requests[i].extents, raw[id].data(), plan_extents[id], inputs[id].data());
          std::uint64_t n = 0;
          for (const Extent& e : extra->second) n += e.length;
          Buffer& out = also_out[id];
          if (out.size() < n) out = Buffer::Allocate(static_cast<std::size_t>(n), false);
          GatherExtents(requests[i].extents, raw[id].data(), extra->second, out.data());
        }
      } else {
        ++h.failed_requests;
        // A failed read of also_read bytes alone needs no new plan: they are just left out.
        if (carries[i] != Carries::kAlsoPart && plan_readers.count(id)) failed = true;
        stats.failed.emplace(id, results[i]);
        costs.erase(id);
        also.erase(id);
        also_out.erase(id);
      }
    }
    if (failed) {
      // Plan again without the failed helpers and retry this batch.
      auto again = Choose(request, costs, pos, end);
      if (!again.ok()) return Exhausted(request.want, stats.failed, again.status());
      ++stats.plans;
      active = PlanRuns(*code_, layout_, std::move(*again), request.want, pos, end, limits,
                        options_.batch_bytes);
      if (!active.ok()) return active.status();
      continue;
    }

    // Decode every piece into whole-chunk positions of the output buffers.
    const std::size_t batch_stripes = static_cast<std::size_t>(s_end - s0);
    RebuiltBytes rebuilt{pos, batch_end - pos, {}};
    for (int w : request.want) {
      if (p.kind == RepairPlan::Kind::kDirect) {
        rebuilt.shards[w] = {inputs[w].data(), static_cast<std::size_t>(rebuilt.length)};
      } else if (p.helpers.count(w)) {
        rebuilt.shards[w] = {inputs[w].data() + (pos - s0 * c),
                             static_cast<std::size_t>(rebuilt.length)};
      } else {
        Buffer& out = outputs[w];
        if (out.size() < batch_stripes * c) out = Buffer::Allocate(batch_stripes * c, false);
        rebuilt.shards[w] = {out.data() + (pos - s0 * c), static_cast<std::size_t>(rebuilt.length)};
      }
    }
    for (std::size_t i = 0; i < pieces.size() && p.kind != RepairPlan::Kind::kDirect; ++i) {
      const Piece& piece = pieces[i];
      std::map<int, ConstColumn> in;
      for (const auto& [h, bps] : piece.run->bytes_per_stripe) {
        const std::byte* base = bps == 0 ? nullptr : inputs[h].data() + bases[h][i];
        in[h] = {base, bps};
      }
      const std::size_t out_at = static_cast<std::size_t>(piece.first_stripe - s0) * c;
      Status st;
      if (p.kind == RepairPlan::Kind::kDecode) {
        std::map<int, Column> out;
        for (int w : request.want)
          if (!p.helpers.count(w)) out[w] = {outputs[w].data() + out_at, c};
        st = codec.Decode(request.want, in, out, piece.stripes);
      } else {
        const int lost = *request.want.begin();
        const SubChunkRange range = piece.run->range;
        Column out{outputs[lost].data() + out_at + static_cast<std::size_t>(range.first) * sub, c};
        st = codec.Repair(lost, range, piece.run->reads, p.native, in, out, piece.stripes);
      }
      if (!st.ok()) return st.WithPrefix("failed to decode");
    }
    for (const auto& [id, extents] : also) {
      std::uint64_t n = 0;
      for (const Extent& e : extents) n += e.length;
      rebuilt.also_read[id] = {n == 0 ? nullptr : also_out[id].data(), static_cast<std::size_t>(n)};
    }
    EC_RETURN_IF_ERROR(sink(rebuilt));
    also.clear();
    ++stats.batches;
    stats.stripes += s_end - s0;
    pos = batch_end;
  }
  return Status::OK();
}

Result<FirstBatch> RepairEngine::PlanFirstBatch(const RepairRequest& request,
                                                const RepairPlan& plan,
                                                const ShardSourceLimits& limits) const {
  std::uint64_t end = 0;
  EC_RETURN_IF_ERROR(CheckRequest(layout_, request, &end));
  if (!request.also_read.empty()) {
    return Status::Invalid("PlanFirstBatch: a request with also_read");
  }
  FirstBatch out;
  if (request.offset >= end) {
    out.whole = true;  // nothing to read
    return out;
  }
  const std::size_t c = layout_.chunk_size();
  auto active = PlanRuns(*code_, layout_, plan, request.want, request.offset, end, limits,
                         options_.batch_bytes);
  if (!active.ok()) return active.status();
  // As Run() cuts its first batch.
  const std::uint64_t s0 = request.offset / c;
  const std::uint64_t last = (end - 1) / c;
  const std::uint64_t s_end = std::min(last + 1, s0 + active->stripes_per_batch);
  const std::vector<Piece> pieces = BatchPieces(*active, s0, s_end);
  const RepairPlan& p = active->plan;
  const ShardSet& readers = p.kind == RepairPlan::Kind::kDirect ? request.want : p.helpers;
  for (const int h : readers) {
    std::vector<Extent> extents;
    if (PlanExtents(p, pieces, h, c, layout_.sub_chunk_size(), extents, nullptr) == 0) continue;
    out.reads.emplace(h, std::move(extents));
  }
  out.whole = s_end == last + 1;
  return out;
}

Result<RepairEngine::Rebuilt> RepairEngine::Rebuild(const RepairRequest& request,
                                                    ShardSource& source,
                                                    const RepairPlan* first) const {
  std::uint64_t end = 0;
  EC_RETURN_IF_ERROR(CheckRequest(layout_, request, &end));
  Rebuilt result;
  for (int w : request.want) {
    result.shards[w] = Buffer::Allocate(static_cast<std::size_t>(end - request.offset), false);
  }
  Status s = Run(
      request, source,
      [&](const RebuiltBytes& batch) {
        for (const auto& [w, bytes] : batch.shards) {
          std::memcpy(result.shards[w].data() + (batch.offset - request.offset), bytes.data(),
                      bytes.size());
        }
        for (const auto& [id, bytes] : batch.also_read) {
          Buffer copy = Buffer::Allocate(bytes.size(), false);
          if (!bytes.empty()) std::memcpy(copy.data(), bytes.data(), bytes.size());
          result.also_read[id] = std::move(copy);
        }
        return Status::OK();
      },
      &result.stats, first);
  if (!s.ok()) return s;
  return result;
}

}  // namespace ec::recovery
