#include "osd/pg/pull_prefetch.h"

#include <fmt/format.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "msg/client.h"
#include "osd/pg/pull_object.h"

namespace ec::osd::pg {
namespace {

// One read to fetch: object index in the window, the helper's position and its extents.
struct Planned {
  std::size_t object = 0;
  int shard = 0;
  std::vector<recovery::Extent> extents;
  std::uint64_t bytes = 0;
};

// The reads the pull of `o` will make first (nothing when it needs none, or when they are not
// known ahead).
std::vector<Planned> PlanObject(const PullJob& job, std::size_t index, shard::ShardService& shards,
                                const PullOptions& options,
                                const recovery::ShardSourceLimits& limits) {
  const msg::SubPullObject& o = job.request.objects[index];
  auto needed = NeedsPull(shards, job, o);
  if (!needed.ok() || !*needed) return {};
  const std::uint64_t shard_size = job.codec->layout.shard_size(o.object_size);
  if (shard_size == 0) return {};
  std::vector<Planned> out;
  if (job.request.mode == msg::SubPullMode::kCopy) {
    // Copy reads the shard as SplitToLimits cuts it: one request when it fits.
    if (job.copy_from.empty() || (limits.max_bytes != 0 && shard_size > limits.max_bytes)) {
      return {};
    }
    out.push_back({index, static_cast<int>(job.request.shard), {{0, shard_size}}, shard_size});
    return out;
  }
  if (job.holders.empty()) return {};
  const recovery::RepairRequest rr = RebuildRequest(job, o, options);
  auto plan = job.codec->engine->Plan(rr);
  if (!plan.ok()) return {};
  auto first = job.codec->engine->PlanFirstBatch(rr, *plan, limits);
  if (!first.ok() || !first->whole) return {};
  for (auto& [shard, extents] : first->reads) {
    std::uint64_t bytes = 0;
    for (const recovery::Extent& e : extents) bytes += e.length;
    out.push_back({index, shard, std::move(extents), bytes});
  }
  return out;
}

// The encoded size of one item in a SubReadBatch request (messages.cc's layout).
std::uint64_t ItemHeaderBytes(const std::string& collection, const std::string& object,
                              std::size_t extents) {
  return 4 + collection.size() + 4 + object.size() + 4 + 8 + 4 + 16 * extents;
}

}  // namespace

PrefetchCounts PrefetchWindow(const PullJob& job, std::size_t first, shard::ShardService& shards,
                              const PullOptions& options,
                              std::vector<std::vector<PrefetchedRead>>* reads) {
  const std::vector<msg::SubPullObject>& objects = job.request.objects;
  const recovery::ShardSourceLimits limits = HelperLimits();
  PrefetchCounts counts;
  std::vector<Planned> planned;
  std::uint64_t window_bytes = 0;
  std::size_t end = first;
  for (; end < objects.size(); ++end) {
    std::vector<Planned> reads = PlanObject(job, end, shards, options, limits);
    std::uint64_t bytes = 0;
    for (const Planned& p : reads) bytes += p.bytes;
    if (end > first && window_bytes + bytes > options.batch_bytes) break;
    window_bytes += bytes;
    if (!reads.empty()) ++counts.objects;
    for (Planned& p : reads) planned.push_back(std::move(p));
  }
  counts.end = end;
  counts.bytes = window_bytes;
  reads->assign(end - first, {});
  if (planned.empty()) return counts;

  // Per helper (by position; kCopy: the first copy source), its reads in request order, cut
  // into requests within the protocol's limits.
  const bool copy = job.request.mode == msg::SubPullMode::kCopy;
  struct Batch {
    const msg::OsdShardSource::Holder* holder = nullptr;
    msg::SubReadBatchRequest request;
    std::vector<std::size_t> reads;  // index in `planned` of each item
    std::uint64_t bytes = 0;
    std::uint64_t header = 4;
  };
  const msg::Limits wire;
  std::map<int, std::vector<Batch>> batches;  // position -> its requests
  for (std::size_t i = 0; i < planned.size(); ++i) {
    const Planned& p = planned[i];
    const msg::SubPullObject& o = objects[p.object];
    const msg::OsdShardSource::Holder* holder =
        copy ? &job.copy_from.front() : &job.holders.at(p.shard);
    std::vector<Batch>& mine = batches[p.shard];
    const std::uint64_t header =
        ItemHeaderBytes(job.request.collection, o.object, p.extents.size());
    if (mine.empty() || mine.back().request.items.size() >= wire.max_batch_items ||
        mine.back().bytes + p.bytes > wire.max_payload_len ||
        mine.back().header + header > wire.max_header_len) {
      mine.emplace_back();
      mine.back().holder = holder;
    }
    Batch& b = mine.back();
    msg::SubReadBatchItem item;
    item.collection = job.request.collection;
    item.object = o.object;
    item.shard = static_cast<std::uint32_t>(p.shard);
    item.expect_version = o.version;
    for (const recovery::Extent& e : p.extents) item.extents.push_back({e.offset, e.length});
    b.request.items.push_back(std::move(item));
    b.reads.push_back(i);
    b.bytes += p.bytes;
    b.header += header;
  }

  // Every batch in flight at once; the replies land in `got`, one per planned read.
  std::vector<PrefetchedRead> got(planned.size());
  std::mutex mu;
  std::condition_variable cv;
  std::size_t left = 0;
  for (auto& [position, list] : batches) left += list.size();
  counts.requests = left;
  for (auto& [position, list] : batches) {
    for (Batch& b : list) {
      msg::CallOptions call;
      call.timeout = options.helper_timeout;
      const msg::OsdShardSource::Holder* holder = b.holder;
      const std::vector<std::size_t>* reads = &b.reads;
      holder->client->ReadBatchAsync(
          std::move(b.request),
          [&, holder, reads](Result<std::vector<msg::ReadBatchItem>> reply) {
            for (std::size_t k = 0; k < reads->size(); ++k) {
              const Planned& p = planned[(*reads)[k]];
              PrefetchedRead& r = got[(*reads)[k]];
              r.shard = p.shard;
              r.extents = p.extents;
              if (!reply.ok()) {
                r.status = reply.status().WithPrefix(holder->name);
                continue;
              }
              msg::ReadBatchItem& item = (*reply)[k];
              if (!item.status.ok()) {
                r.status = item.status.WithPrefix(holder->name);
                continue;
              }
              // As OsdShardSource: a shard that ends before an extent is an error, never short.
              for (std::size_t e = 0; e < p.extents.size() && r.status.ok(); ++e) {
                if (item.extents[e].size() != p.extents[e].length) {
                  r.status = Status::Error(
                      ENODATA, fmt::format("{}: shard {} ends before byte {}", holder->name,
                                           p.shard, p.extents[e].offset + p.extents[e].length));
                }
              }
              if (r.status.ok()) r.bytes = std::move(item.extents);
            }
            std::lock_guard lock(mu);
            if (--left == 0) cv.notify_all();
          },
          call);
    }
  }
  {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return left == 0; });
  }
  for (std::size_t i = 0; i < planned.size(); ++i) {
    if (!got[i].status.ok()) ++counts.failed_items;
    (*reads)[planned[i].object - first].push_back(std::move(got[i]));
  }
  return counts;
}

}  // namespace ec::osd::pg
