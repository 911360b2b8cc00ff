#include "recovery/object_read.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace ec::recovery {

namespace {

void Merge(const RepairStats& from, RepairStats* into) {
  for (const auto& [id, h] : from.helpers) {
    HelperStats& to = into->helpers[id];
    to.requests += h.requests;
    to.extents += h.extents;
    to.bytes += h.bytes;
    to.failed_requests += h.failed_requests;
  }
  for (const auto& [id, s] : from.failed) into->failed.emplace(id, s);
  into->stripes += from.stripes;
  into->batches += from.batches;
  into->plans += from.plans;
}

// Copies shard bytes `bytes` (extent `e` of data shard e.shard) to their object positions in
// `out`, which holds object bytes from `base`.
void Scatter(const StripeLayout& layout, const ShardExtent& e, const std::byte* bytes,
             std::uint64_t base, std::byte* out) {
  const std::uint64_t c = layout.chunk_size();
  std::uint64_t x = e.offset;
  const std::uint64_t end = e.offset + e.length;
  while (x < end) {
    const std::uint64_t n = std::min(end, (x / c + 1) * c) - x;
    const std::uint64_t at = *layout.object_offset(e.shard, x);  // a data shard: never fails
    std::memcpy(out + (at - base), bytes + (x - e.offset), n);
    x += n;
  }
}

}  // namespace

Result<ObjectRead> ReadObjectRange(const RepairEngine& engine, ShardSource& source,
                                   const ObjectReadRequest& request) {
  const StripeLayout& layout = engine.layout();
  if (request.offset > request.object_size ||
      request.length > request.object_size - request.offset) {
    return Status::Invalid("read of " + std::to_string(request.offset) + "+" +
                           std::to_string(request.length) + " past the end of an object of " +
                           std::to_string(request.object_size) + " bytes");
  }
  if (request.cost) EC_RETURN_IF_ERROR(CheckModel(*request.cost));
  auto extents = layout.data_extents(request.offset, request.length);
  if (!extents.ok()) return extents.status();
  ObjectRead result;
  result.bytes = Buffer::Allocate(static_cast<std::size_t>(request.length), false);
  std::map<int, int> available = request.available;

  // Every available covering data shard: one request with exactly its extent, all in one round.
  std::vector<ShardReadRequest> requests;
  std::vector<ShardExtent> asked;
  std::vector<Buffer> buffers;
  for (const ShardExtent& e : *extents) {
    if (!available.count(e.shard)) continue;
    buffers.push_back(Buffer::Allocate(static_cast<std::size_t>(e.length), false));
    requests.push_back(
        {e.shard, {{e.offset, e.length}}, {buffers.back().data(), buffers.back().size()}});
    asked.push_back(e);
  }
  const std::vector<Status> results = ReadAll(source, requests);
  std::map<int, std::vector<Extent>> direct_reads;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    HelperStats& h = result.stats.helpers[asked[i].shard];
    ++h.requests;
    ++h.extents;
    if (results[i].ok()) {
      h.bytes += asked[i].length;
      result.direct[asked[i].shard] = asked[i];
      direct_reads[asked[i].shard] = {{asked[i].offset, asked[i].length}};
      Scatter(layout, asked[i], buffers[i].data(), request.offset, result.bytes.data());
    } else {
      // A failed (e.g. corrupt) shard is just another lost shard.
      ++h.failed_requests;
      result.stats.failed.emplace(asked[i].shard, results[i]);
      available.erase(asked[i].shard);
    }
  }
  if (request.cost) result.cost = PriceReads(*request.cost, direct_reads);

  // Every lost covering data shard: the engine rebuilds exactly its extent.
  const std::uint64_t stripes = layout.stripes_of(request.object_size);
  for (const ShardExtent& e : *extents) {
    if (result.direct.count(e.shard)) continue;
    RepairRequest repair{{e.shard}, available, stripes, e.offset, e.length, request.cost};
    auto plan = engine.Plan(repair);
    if (!plan.ok()) {
      if (!result.stats.failed.empty() && plan.status().code() == EIO) {
        std::string text = "cannot read object bytes " + std::to_string(request.offset) + "+" +
                           std::to_string(request.length) + ": shard(s) failed: ";
        bool first = true;
        for (const auto& [id, s] : result.stats.failed) {
          text += (first ? "" : ", ") + std::to_string(id) + " (" + s.message() + ")";
          first = false;
        }
        return Status::IOError(text + "; " + plan.status().message());
      }
      return plan.status();
    }
    auto rebuilt = engine.Rebuild(repair, source);
    if (!rebuilt.ok()) return rebuilt.status();
    Merge(rebuilt->stats, &result.stats);
    Scatter(layout, e, rebuilt->shards.at(e.shard).data(), request.offset, result.bytes.data());
    result.cost.net_bytes += plan->cost.net_bytes;
    result.cost.device_bytes += plan->cost.device_bytes;
    result.cost.total += plan->cost.total;
    result.rebuilt[e.shard] = std::move(*plan);
  }
  return result;
}

}  // namespace ec::recovery
