#include "recovery/repair_plan.h"

#include <algorithm>
#include <limits>
#include <string>

#include "recovery/read_plan.h"

namespace ec::recovery {

Status CheckRequest(const StripeLayout& layout, const RepairRequest& r, std::uint64_t* end) {
  const int n = static_cast<int>(layout.chunk_count());
  if (r.want.empty()) return Status::Invalid("no shard to rebuild");
  for (int id : r.want) {
    if (id < 0 || id >= n) {
      return Status::Invalid("wanted shard " + std::to_string(id) + " is out of range [0," +
                             std::to_string(n) + ")");
    }
  }
  for (const auto& [id, cost] : r.available) {
    if (id < 0 || id >= n) {
      return Status::Invalid("available shard " + std::to_string(id) + " is out of range [0," +
                             std::to_string(n) + ")");
    }
    if (cost < 0) {
      return Status::Invalid("shard " + std::to_string(id) + " has a negative cost");
    }
  }
  const std::uint64_t c = layout.chunk_size();
  if (r.stripes > std::numeric_limits<std::uint64_t>::max() / c) {
    return Status::Invalid(std::to_string(r.stripes) + " stripes are too many");
  }
  const std::uint64_t shard = r.stripes * c;
  if (r.offset > shard || (r.length != kToTheEnd && r.length > shard - r.offset)) {
    return Status::Invalid("byte range " + std::to_string(r.offset) + "+" +
                           (r.length == kToTheEnd ? std::string("end") : std::to_string(r.length)) +
                           " is outside the shards (" + std::to_string(shard) + " bytes)");
  }
  for (const auto& [id, extents] : r.also_read) {
    if (!r.available.count(id) || r.want.count(id)) {
      return Status::Invalid("also_read shard " + std::to_string(id) +
                             " is not an available shard other than the wanted ones");
    }
    for (const Extent& e : extents) {
      if (e.offset > shard || e.length > shard - e.offset) {
        return Status::Invalid("also_read extent " + std::to_string(e.offset) + "+" +
                               std::to_string(e.length) + " of shard " + std::to_string(id) +
                               " is outside the shards (" + std::to_string(shard) + " bytes)");
      }
    }
  }
  *end = r.length == kToTheEnd ? shard : r.offset + r.length;
  return Status::OK();
}

Result<RepairPlan> MakePlan(const ErasureCodeInterface& code, const StripeLayout& layout,
                            const ShardSet& want, const std::map<int, int>& costs) {
  auto helpers = code.minimum_to_decode_with_cost(want, costs);
  if (!helpers.ok()) return helpers.status();
  return MakePlanFrom(code, layout, want, *helpers);
}

Result<RepairPlan> MakePlanFrom(const ErasureCodeInterface& code, const StripeLayout& layout,
                                const ShardSet& want, const ShardSet& helpers) {
  auto reads = code.minimum_to_decode(want, helpers);
  if (!reads.ok()) return reads.status();
  const int z = static_cast<int>(layout.sub_chunk_count());
  EC_RETURN_IF_ERROR(CheckPlan(*reads, layout.sub_chunk_count()));
  RepairPlan plan;
  plan.helpers = helpers;
  plan.reads = std::move(*reads);
  bool whole = true;
  for (const auto& [id, ranges] : plan.reads) {
    if (!plan.helpers.count(id)) {
      return Status::IOError("the code's plan reads chunk " + std::to_string(id) +
                             ", which it did not choose as a helper");
    }
    if (ranges.size() != 1 || ranges.front() != SubChunkRange{0, z}) whole = false;
  }
  Result<SubChunkPlan> native = Status::Error(EOPNOTSUPP, "");
  if (want.size() == 1 && z > 1) {
    native = code.minimum_to_repair(*want.begin(), {0, z}, plan.helpers);
    if (native.ok()) EC_RETURN_IF_ERROR(CheckPlan(*native, layout.sub_chunk_count()));
  }
  if (std::includes(plan.helpers.begin(), plan.helpers.end(), want.begin(), want.end())) {
    plan.kind = RepairPlan::Kind::kDirect;
    plan.reads.clear();
    for (int id : want) plan.reads[id] = {{0, z}};
  } else if (native.ok()) {
    // The code's own sub-chunk repair (what repair_sub_chunks takes); for CLAY the same reads as
    // minimum_to_decode.
    for (const auto& [id, ranges] : *native) {
      if (!plan.helpers.count(id)) {
        return Status::IOError("the code's sub-chunk repair reads chunk " + std::to_string(id) +
                               ", which it did not choose as a helper");
      }
    }
    plan.kind = RepairPlan::Kind::kSubChunkRepair;
    plan.native = true;
    plan.reads = std::move(*native);
  } else if (!whole) {
    if (want.size() != 1) {
      return Status::IOError("the code plans part of a chunk for several wanted chunks");
    }
    plan.kind = RepairPlan::Kind::kSubChunkRepair;
  } else {
    plan.kind = RepairPlan::Kind::kDecode;
  }
  const std::size_t sub = layout.sub_chunk_size();
  for (const auto& [id, ranges] : plan.reads) {
    for (const auto& [first, count] : ranges) plan.bytes_per_stripe += std::uint64_t(count) * sub;
  }
  return plan;
}

Result<ActivePlan> PlanRuns(const ErasureCodeInterface& code, const StripeLayout& layout,
                            RepairPlan plan, const ShardSet& want, std::uint64_t pos,
                            std::uint64_t end, const ShardSourceLimits& limits,
                            std::size_t batch_bytes) {
  ActivePlan active;
  auto runs = layout.chunk_runs(pos, end - pos);
  if (!runs.ok()) return runs.status();
  const std::size_t c = layout.chunk_size();
  const std::size_t sub = layout.sub_chunk_size();
  const int z = static_cast<int>(layout.sub_chunk_count());
  std::uint64_t max_ranges = 1, max_bytes = 1;
  std::map<std::pair<int, int>, SubChunkPlan> partial_plans;  // per sub-chunk range
  for (const ChunkRun& run : *runs) {
    RunPlan rp;
    rp.run = run;
    switch (plan.kind) {
      case RepairPlan::Kind::kDirect:
        for (int id : want) rp.bytes_per_stripe[id] = run.length;
        break;
      case RepairPlan::Kind::kDecode:
        rp.reads = plan.reads;
        break;
      case RepairPlan::Kind::kSubChunkRepair:
        rp.range = {0, z};
        rp.reads = plan.reads;
        if (plan.native && run.length != c) {
          rp.range = layout.sub_chunks_of(run.offset, run.length);
          auto it = partial_plans.find(rp.range);
          if (it == partial_plans.end()) {
            auto reads = code.minimum_to_repair(*want.begin(), rp.range, plan.helpers);
            if (!reads.ok()) return reads.status();
            EC_RETURN_IF_ERROR(CheckPlan(*reads, layout.sub_chunk_count()));
            for (const auto& [id, ranges] : *reads) {
              if (!plan.helpers.count(id)) {
                return Status::IOError("the code's partial repair reads chunk " +
                                       std::to_string(id) + ", which is not a helper");
              }
            }
            it = partial_plans.emplace(rp.range, std::move(*reads)).first;
          }
          rp.reads = it->second;
        }
        break;
    }
    for (const auto& [id, ranges] : rp.reads) {
      std::size_t bytes = 0;
      for (const auto& [first, count] : ranges) bytes += static_cast<std::size_t>(count) * sub;
      rp.bytes_per_stripe[id] = bytes;
      max_ranges = std::max<std::uint64_t>(max_ranges, ranges.size());
    }
    for (const auto& [id, bytes] : rp.bytes_per_stripe)
      max_bytes = std::max<std::uint64_t>(max_bytes, bytes);
    active.runs.push_back(std::move(rp));
  }
  std::uint64_t spb = std::max<std::uint64_t>(1, batch_bytes / layout.stripe_width());
  if (limits.max_extents != 0) {
    if (limits.max_extents < max_ranges) {
      return Status::Invalid("one stripe needs " + std::to_string(max_ranges) +
                             " extents of a helper, more than the source takes in one request (" +
                             std::to_string(limits.max_extents) + ")");
    }
    spb = std::min(spb, limits.max_extents / max_ranges);
  }
  if (limits.max_bytes != 0) {
    if (limits.max_bytes < max_bytes) {
      return Status::Invalid("one stripe needs " + std::to_string(max_bytes) +
                             " bytes of a helper, more than the source takes in one request (" +
                             std::to_string(limits.max_bytes) + ")");
    }
    spb = std::min(spb, limits.max_bytes / max_bytes);
  }
  active.stripes_per_batch = spb;
  active.plan = std::move(plan);
  return active;
}

}  // namespace ec::recovery
