#include "recovery/read_plan.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ec::recovery {

std::vector<Extent> StoredParts(const std::vector<Extent>& extents, std::uint64_t stored) {
  std::vector<Extent> out;
  for (const Extent& e : extents) {
    const std::uint64_t keep =
        e.offset >= stored ? 0 : std::min<std::uint64_t>(e.length, stored - e.offset);
    if (keep > 0) out.push_back({e.offset, keep});
  }
  return out;
}

Status CheckPlan(const SubChunkPlan& plan, unsigned sub_chunk_count) {
  for (const auto& [shard, ranges] : plan) {
    long next_free = 0;  // first sub-chunk index a following range may use
    for (auto [first, count] : ranges) {
      if (first < next_free || count <= 0 ||
          static_cast<long>(first) + count > static_cast<long>(sub_chunk_count)) {
        return Status::Invalid("plan for shard " + std::to_string(shard) + " has a bad range (" +
                               std::to_string(first) + "," + std::to_string(count) + ")");
      }
      next_free = static_cast<long>(first) + count;
    }
  }
  return Status::OK();
}

void AppendExtent(std::vector<Extent>& extents, Extent e) {
  if (e.length == 0) return;
  if (!extents.empty() && extents.back().offset + extents.back().length == e.offset) {
    extents.back().length += e.length;
  } else {
    extents.push_back(e);
  }
}

std::vector<Extent> MergeExtents(std::vector<Extent> extents) {
  std::sort(extents.begin(), extents.end(),
            [](const Extent& a, const Extent& b) { return a.offset < b.offset; });
  std::vector<Extent> merged;
  for (const Extent& e : extents) {
    if (e.length == 0) continue;
    if (!merged.empty() && e.offset <= merged.back().offset + merged.back().length) {
      merged.back().length =
          std::max(merged.back().offset + merged.back().length, e.offset + e.length) -
          merged.back().offset;
    } else {
      merged.push_back(e);
    }
  }
  return merged;
}

void GatherExtents(const std::vector<Extent>& merged, const std::byte* raw,
                   const std::vector<Extent>& wanted, std::byte* out) {
  std::vector<std::uint64_t> starts;  // where each merged extent's bytes start in raw
  std::uint64_t at = 0;
  for (const Extent& m : merged) {
    starts.push_back(at);
    at += m.length;
  }
  for (const Extent& w : wanted) {
    if (w.length == 0) continue;
    auto it = std::upper_bound(merged.begin(), merged.end(), w.offset,
                               [](std::uint64_t off, const Extent& m) { return off < m.offset; });
    const std::size_t i = static_cast<std::size_t>(it - merged.begin()) - 1;
    std::memcpy(out, raw + starts[i] + (w.offset - merged[i].offset), w.length);
    out += w.length;
  }
}

void AppendRangeExtents(std::vector<Extent>& extents, const std::vector<SubChunkRange>& ranges,
                        std::uint64_t chunk_size, std::uint64_t sub_chunk_size,
                        std::uint64_t first_stripe, std::uint64_t stripes) {
  for (std::uint64_t s = first_stripe; s < first_stripe + stripes; ++s) {
    for (auto [first, count] : ranges) {
      AppendExtent(extents, {s * chunk_size + static_cast<std::uint64_t>(first) * sub_chunk_size,
                             static_cast<std::uint64_t>(count) * sub_chunk_size});
    }
  }
}

Result<std::vector<ShardRead>> PlanShardReads(const SubChunkPlan& plan, std::uint64_t chunk_size,
                                              unsigned sub_chunk_count, std::uint64_t first_stripe,
                                              std::uint64_t stripes) {
  if (sub_chunk_count == 0 || chunk_size == 0 || chunk_size % sub_chunk_count != 0) {
    return Status::Invalid("chunk size " + std::to_string(chunk_size) +
                           " is not a multiple of the sub-chunk count " +
                           std::to_string(sub_chunk_count));
  }
  EC_RETURN_IF_ERROR(CheckPlan(plan, sub_chunk_count));
  const std::uint64_t sub = chunk_size / sub_chunk_count;
  std::vector<ShardRead> reads;
  for (const auto& [shard, ranges] : plan) {
    ShardRead read;
    read.shard = shard;
    for (auto [first, count] : ranges)
      read.bytes_per_stripe += static_cast<std::uint64_t>(count) * sub;
    AppendRangeExtents(read.extents, ranges, chunk_size, sub, first_stripe, stripes);
    reads.push_back(std::move(read));
  }
  return reads;
}

}  // namespace ec::recovery
