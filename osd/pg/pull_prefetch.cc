#include "osd/pg/pull_prefetch.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "common/fan_out.h"
#include "msg/client.h"
#include "msg/messages.h"
#include "osd/pg/osd_shard_source.h"
#include "osd/pg/pull_object.h"
#include "recovery/stored_shard_source.h"

namespace ec::osd::pg {
namespace {

// One read to fetch: object index in the window, the helper's position and its extents.
struct Planned {
  std::size_t object = 0;
  int shard = 0;
  std::vector<recovery::Extent> extents;
  std::uint64_t bytes = 0;
  std::uint64_t stored = 0;  // the bytes the helper's shard must hold
};

// Plans the pull of object `index` (kRebuild: its engine request and plan, into *prepared) and
// returns the reads it will make first (nothing when it needs none, or when they are not known
// ahead).
std::vector<Planned> PlanObject(const PullJob& job, std::size_t index, shard::ShardService& shards,
                                const PullOptions& options,
                                const recovery::ShardSourceLimits& limits,
                                PrefetchedObject* prepared) {
  const msg::SubPullObject& o = job.request.objects[index];
  auto needed = NeedsPull(shards, job, o);
  if (!needed.ok() || !*needed) return {};
  const PoolCodec& codec = CodecOf(*job.codec, o);
  const StripeLayout& layout = codec.layout;
  const int target = static_cast<int>(job.request.shard);
  // Nothing to read for a shard that stores nothing (without padding: past the object's data).
  if (layout.stored_size(o.object_size, target) == 0) return {};
  std::vector<Planned> out;
  if (job.request.mode == msg::SubPullMode::kCopy) {
    // Copy reads the shard as SplitToLimits cuts it: one request when it fits.
    const std::uint64_t stored = layout.stored_size(o.object_size, target);
    if (job.copy_from.empty() || (limits.max_bytes != 0 && stored > limits.max_bytes)) {
      return {};
    }
    out.push_back({index, target, {{0, stored}}, stored, stored});
    return out;
  }
  if (job.holders.empty()) return {};
  // osd_repair_pipeline=auto sends the shards its cost model chooses through a chain, which reads
  // the helpers itself (pull_object.h ChainChosen): nothing to fetch for those.
  if (options.repair_pipeline == RepairPipeline::kAuto) {
    auto chained = ChainChosen(job, o, options, job.plans);
    if (chained.ok() && *chained) return {};
  }
  recovery::RepairRequest rr = RebuildRequest(job, o, options);
  auto plan = codec.engine->Plan(rr);
  if (!plan.ok()) return {};
  auto first = codec.engine->PlanFirstBatch(rr, *plan, limits);
  // The object's pull starts from this plan whether or not its first batch is fetched here.
  prepared->request = std::move(rr);
  prepared->plan = std::move(plan).value();
  if (!first.ok() || !first->whole) return {};
  for (auto& [shard, extents] : first->reads) {
    // Exactly what the pull's StoredShardSource will ask this helper for: its stored parts.
    const std::uint64_t stored = layout.stored_size(o.object_size, shard);
    std::vector<recovery::Extent> parts = recovery::StoredParts(extents, stored);
    if (parts.empty()) continue;
    std::uint64_t bytes = 0;
    for (const recovery::Extent& e : parts) bytes += e.length;
    out.push_back({index, shard, std::move(parts), bytes, stored});
  }
  return out;
}

// The bytes of one read from its helper's reply (`reply`: the item, or the whole batch's error).
PrefetchedRead TakeItem(const Planned& p, const msg::OsdShardSource::Holder& holder,
                        const Result<std::vector<msg::ReadBatchItem>>& batch,
                        msg::ReadBatchItem* item) {
  PrefetchedRead r;
  r.shard = p.shard;
  r.extents = p.extents;
  if (!batch.ok()) {
    r.status = batch.status().WithPrefix(holder.name);
    return r;
  }
  if (!item->status.ok()) {
    r.status = item->status.WithPrefix(holder.name);
    return r;
  }
  if (item->object_size != p.stored) {
    r.status = msg::WrongShardLength(holder.name, p.shard, item->object_size, p.stored);
    return r;
  }
  // As OsdShardSource: a shard that ends before an extent is an error, never short.
  for (std::size_t e = 0; e < p.extents.size(); ++e) {
    if (item->extents[e].size() != p.extents[e].length) {
      r.status =
          Status::Error(ENODATA, fmt::format("{}: shard {} ends before byte {}", holder.name,
                                             p.shard, p.extents[e].offset + p.extents[e].length));
      return r;
    }
  }
  r.bytes = std::move(item->extents);
  return r;
}

}  // namespace

PrefetchCounts PrefetchWindow(const PullJob& job, std::size_t first, shard::ShardService& shards,
                              const PullOptions& options, std::uint64_t batch_bytes,
                              std::vector<PrefetchedObject>* window) {
  const std::vector<msg::SubPullObject>& objects = job.request.objects;
  const recovery::ShardSourceLimits limits = HelperLimits();
  PrefetchCounts counts;
  std::vector<Planned> planned;
  std::uint64_t window_bytes = 0;
  window->clear();
  std::size_t end = first;
  for (; end < objects.size(); ++end) {
    PrefetchedObject prepared;
    std::vector<Planned> reads = PlanObject(job, end, shards, options, limits, &prepared);
    std::uint64_t bytes = 0;
    for (const Planned& p : reads) bytes += p.bytes;
    if (end > first && window_bytes + bytes > batch_bytes) break;
    window_bytes += bytes;
    if (!reads.empty()) ++counts.objects;
    for (Planned& p : reads) planned.push_back(std::move(p));
    window->push_back(std::move(prepared));
  }
  counts.end = end;
  counts.bytes = window_bytes;
  if (planned.empty()) return counts;

  // Per helper (by position; kCopy: the first copy source), its reads in request order, cut
  // into requests within the protocol's limits.
  const bool copy = job.request.mode == msg::SubPullMode::kCopy;
  struct Batch {
    const msg::OsdShardSource::Holder* holder = nullptr;
    msg::SubReadBatchRequest request;
    std::vector<std::size_t> reads;  // index in `planned` of each item
    std::uint64_t bytes = 0;
    std::uint64_t header = msg::EncodedSize(msg::SubReadBatchRequest{});
  };
  const msg::Limits wire;
  std::map<int, std::vector<Batch>> batches;  // position -> its requests
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    const msg::SubPullObject& o = objects[p.object];
    const msg::OsdShardSource::Holder* holder =
        copy ? &job.copy_from.front() : &job.holders.at(p.shard);
    msg::SubReadBatchItem item;
    item.collection = job.request.collection;
    item.object = o.object;
    item.shard = static_cast<std::uint32_t>(p.shard);
    item.expect_version = PulledVersion(o, p.shard);
    for (const recovery::Extent& e : p.extents) item.extents.push_back({e.offset, e.length});
    const std::uint64_t header = msg::EncodedSize(item);
    std::vector<Batch>& mine = batches[p.shard];
    if (mine.empty() || mine.back().request.items.size() >= wire.max_batch_items ||
        mine.back().bytes + p.bytes > wire.max_payload_len ||
        mine.back().header + header > wire.max_header_len) {
      mine.emplace_back();
      mine.back().holder = holder;
    }
    Batch& b = mine.back();
    b.request.items.push_back(std::move(item));
    b.reads.push_back(i);
    b.bytes += p.bytes;
    b.header += header;
  }

  // Every batch in flight at once; each reply is taken apart here once all have arrived.
  std::vector<Batch*> sent;
  for (auto& [position, list] : batches) {
    for (Batch& b : list) sent.push_back(&b);
  }
  counts.requests = sent.size();
  auto replies = GatherAll<Result<std::vector<msg::ReadBatchItem>>>(
      sent.size(), [&](std::size_t i, auto done) {
        msg::CallOptions call;
        call.timeout = options.helper_timeout;
        sent[i]->holder->client->ReadBatchAsync(std::move(sent[i]->request), std::move(done), call);
      });
  std::vector<PrefetchedRead> got(planned.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const Batch& b = *sent[i];
    for (std::size_t k = 0; k < b.reads.size(); ++k) {
      msg::ReadBatchItem* item = replies[i].ok() ? &(*replies[i])[k] : nullptr;
      got[b.reads[k]] = TakeItem(planned[b.reads[k]], *b.holder, replies[i], item);
    }
  }
  for (std::size_t i = 0; i < planned.size(); ++i) {
    if (!got[i].status.ok()) ++counts.failed_items;
    (*window)[planned[i].object - first].reads.push_back(std::move(got[i]));
  }
  return counts;
}

}  // namespace ec::osd::pg
