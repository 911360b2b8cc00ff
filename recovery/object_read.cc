#include "recovery/object_read.h"

#include <algorithm>
#include <cstring>
#include <limits>
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
  const std::uint64_t stripes = layout.stripes_of(request.object_size);

  // Rounds: the first reads every covering data shard in one request each (the lost ones
  // rebuilt by the engine in the same round); a direct read that fails makes its shard lost for
  // the next round.
  std::map<int, ShardExtent> left;  // data shard -> extent still to deliver
  for (const ShardExtent& e : *extents) left.emplace(e.shard, e);
  while (!left.empty()) {
    ShardSet lost;
    std::uint64_t lo = std::numeric_limits<std::uint64_t>::max(), hi = 0;
    std::map<int, std::vector<Extent>> direct;
    for (const auto& [id, e] : left) {
      if (available.count(id)) {
        direct[id] = {{e.offset, e.length}};
      } else {
        lost.insert(id);
        lo = std::min(lo, e.offset);
        hi = std::max(hi, e.offset + e.length);
      }
    }
    if (lost.empty()) {
      // Nothing to rebuild: the direct reads alone, one request per shard.
      // (Only an extent over the source's limits takes more than one request.)
      std::vector<ShardReadRequest> requests;
      std::map<int, Buffer> buffers;
      for (const auto& [id, ext] : direct) {
        Buffer& buffer = buffers[id];
        buffer = Buffer::Allocate(static_cast<std::size_t>(ext[0].length), false);
        for (ShardReadRequest& r :
             SplitToLimits(id, ext, {buffer.data(), buffer.size()}, source.limits()))
          requests.push_back(std::move(r));
      }
      const std::vector<Status> results = ReadAll(source, requests);
      ShardSet failed;
      for (std::size_t i = 0; i < requests.size(); ++i) {
        const int id = requests[i].shard;
        HelperStats& h = result.stats.helpers[id];
        ++h.requests;
        h.extents += requests[i].extents.size();
        if (results[i].ok()) {
          h.bytes += requests[i].destination.size();
        } else {
          // A failed (e.g. corrupt) shard is just another lost shard.
          ++h.failed_requests;
          result.stats.failed.emplace(id, results[i]);
          failed.insert(id);
        }
      }
      for (const auto& [id, buffer] : buffers) {
        if (failed.count(id)) {
          available.erase(id);
          continue;
        }
        Scatter(layout, left.at(id), buffer.data(), request.offset, result.bytes.data());
        result.direct[id] = left.at(id);
        left.erase(id);
      }
      if (request.cost) {
        std::map<int, std::vector<Extent>> done;
        for (const auto& [id, e] : result.direct)
          if (buffers.count(id) && !failed.count(id)) done[id] = {{e.offset, e.length}};
        const ReadCost c = PriceReads(*request.cost, done);
        result.cost.net_bytes += c.net_bytes;
        result.cost.device_bytes += c.device_bytes;
        result.cost.total += c.total;
      }
      continue;
    }
    // The lost shards' extents lie in the same stripes: rebuild their union in one engine call,
    // with the direct reads in the same requests.
    RepairRequest repair{lost, available, stripes, lo, hi - lo, request.cost, direct};
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
    auto rebuilt = engine.Rebuild(repair, source, &*plan);
    if (!rebuilt.ok()) return rebuilt.status();
    Merge(rebuilt->stats, &result.stats);
    for (int id : lost) {
      const ShardExtent& e = left.at(id);
      Scatter(layout, e, rebuilt->shards.at(id).data() + (e.offset - lo), request.offset,
              result.bytes.data());
      result.rebuilt[id] = *plan;
      left.erase(id);
    }
    for (const auto& [id, bytes] : rebuilt->also_read) {
      Scatter(layout, left.at(id), bytes.data(), request.offset, result.bytes.data());
      result.direct[id] = left.at(id);
      left.erase(id);
    }
    for (const auto& [id, s] : rebuilt->stats.failed) available.erase(id);
    result.cost.net_bytes += plan->cost.net_bytes;
    result.cost.device_bytes += plan->cost.device_bytes;
    result.cost.total += plan->cost.total;
  }
  return result;
}

}  // namespace ec::recovery
