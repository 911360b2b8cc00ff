#include "osd/pg/pull_object.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <future>
#include <limits>
#include <map>
#include <memory>

#include "osd/pg/osd_shard_source.h"
#include "osd/shard/shard_meta.h"
#include "recovery/prefetched_shard_source.h"
#include "recovery/read_cost.h"
#include "recovery/stored_shard_source.h"

namespace ec::osd::pg {
namespace {

// Counts what the helpers' successful replies carried and what reading them cost the helpers'
// stores: every request, re-planned ones included, as the engine actually sent it.
class CountingSource final : public recovery::ShardSource {
 public:
  CountingSource(recovery::ShardSource* inner, std::uint64_t block)
      : inner_(inner), block_(block) {}

  recovery::ShardSourceLimits limits() const override { return inner_->limits(); }

  void ReadAsync(std::span<const recovery::ShardReadRequest> requests, Completion done) override {
    // `requests` stays valid until the last completion (the ShardSource contract).
    inner_->ReadAsync(requests, [this, requests, done = std::move(done)](std::size_t i, Status s) {
      if (s.ok()) {
        network_.fetch_add(requests[i].destination.size(), std::memory_order_relaxed);
        device_.fetch_add(recovery::PriceExtents(requests[i].extents, block_).device_bytes,
                          std::memory_order_relaxed);
      }
      done(i, std::move(s));
    });
  }

  std::uint64_t network_bytes() const { return network_.load(std::memory_order_relaxed); }
  std::uint64_t device_bytes() const { return device_.load(std::memory_order_relaxed); }

 private:
  recovery::ShardSource* inner_;
  std::uint64_t block_;
  std::atomic<std::uint64_t> network_{0};
  std::atomic<std::uint64_t> device_{0};
};

// The prefetched entries over `inner`, and, once the reads are done, the bytes of those used.
class Prefetched {
 public:
  Prefetched(recovery::ShardSource* inner, std::vector<PrefetchedRead> reads) : source_(inner) {
    for (PrefetchedRead& r : reads) {
      // Sizes were checked against the extents when the batch reply was taken apart.
      (void)source_.Add(r.shard, std::move(r.extents), std::move(r.status), std::move(r.bytes));
    }
  }
  recovery::ShardSource& source() { return source_; }
  // Adds the used entries' bytes to `result`, priced as CountingSource prices a request.
  void Count(std::uint64_t block, msg::SubPullResult* result) const {
    for (const auto& used : source_.Used()) {
      result->network_bytes += used.bytes;
      result->device_bytes += recovery::PriceExtents(used.extents, block).device_bytes;
    }
  }

 private:
  recovery::PrefetchedShardSource source_;
};

// The chain's helpers of `job` for `o`: position -> its OSD and client (the holders of the
// request's helpers, positions of the code only; a kCopy's sources are not holders).
std::map<int, ChainHelper> ChainHelpers(const PullJob& job, const msg::SubPullObject& o) {
  const int chunks = static_cast<int>(CodecOf(*job.codec, o).layout.chunk_count());
  std::map<int, ChainHelper> helpers;
  for (const msg::SubPullHelper& h : job.request.helpers) {
    auto holder = job.holders.find(static_cast<int>(h.shard));
    if (holder == job.holders.end() || static_cast<int>(h.shard) >= chunks) continue;
    helpers[static_cast<int>(h.shard)] = ChainHelper{h.osd, holder->second.client};
  }
  return helpers;
}

std::uint64_t BandwidthOf(const PullJob& job, int osd) {
  auto it = job.bandwidth.find(osd);
  return it == job.bandwidth.end() ? 0 : it->second;
}

bool AllStale(const std::map<int, Status>& failed) {
  if (failed.empty()) return false;
  return std::all_of(failed.begin(), failed.end(),
                     [](const auto& f) { return f.second.code() == ESTALE; });
}

}  // namespace

recovery::ShardSourceLimits HelperLimits() {
  return msg::OsdShardSource(msg::OsdShardSource::Options{}).limits();
}

recovery::RepairRequest RebuildRequest(const PullJob& job, const msg::SubPullObject& o,
                                       const PullOptions& options) {
  const StripeLayout& layout = CodecOf(*job.codec, o).layout;
  const int chunks = static_cast<int>(layout.chunk_count());
  recovery::RepairRequest rr;
  rr.want = {static_cast<int>(job.request.shard)};
  // A small object's helpers are its copies only (its shards past them are empty).
  for (const auto& [position, holder] : job.holders) {
    if (position < chunks) rr.available[position] = 1;
  }
  rr.stripes = layout.stripes_of(o.object_size);
  rr.cost = options.cost;
  // Priced for what the helpers store: absent bytes (Fast EC) cost nothing.
  for (const auto& [position, holder] : job.holders) {
    if (position < chunks) rr.cost->stored[position] = layout.stored_size(o.object_size, position);
  }
  return rr;
}

Result<bool> ChainChosen(const PullJob& job, const msg::SubPullObject& o,
                         const PullOptions& options, ChainPlans* plans) {
  if (options.repair_pipeline == RepairPipeline::kOff || plans == nullptr ||
      o.form != msg::ObjectForm::kErasure) {
    return false;
  }
  if (options.repair_pipeline == RepairPipeline::kOn) return true;
  const PoolCodec& codec = CodecOf(*job.codec, o);
  const StripeLayout& layout = codec.layout;
  const std::map<int, ChainHelper> helpers = ChainHelpers(job, o);
  std::vector<int> positions;
  for (const auto& [position, helper] : helpers) positions.push_back(position);
  auto plan = plans->Get(*codec.code, layout, static_cast<int>(job.request.shard), positions);
  if (!plan.ok()) return plan.status();
  const recovery::PipelinePlan& p = **plan;
  const std::uint64_t stripes = layout.stripes_of(o.object_size);
  ChainCost cost;
  cost.requester_bandwidth = BandwidthOf(job, options.osd_id);
  cost.chain_bytes = layout.padded_shard_size(o.object_size);
  for (const recovery::PipelineStage& stage : p.stages()) {
    std::uint64_t per_stripe = 0;
    for (const auto& [first, count] : stage.reads) {
      per_stripe += static_cast<std::uint64_t>(count) * p.sub_chunk_size();
    }
    // A helper sends what it stores of its reads (StoredShardSource): absent bytes are zeros.
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t bytes =
        per_stripe > 0 && stripes > kMax / per_stripe ? kMax : per_stripe * stripes;
    cost.direct[stage.chunk] = std::min(bytes, layout.stored_size(o.object_size, stage.chunk));
    auto helper = helpers.find(stage.chunk);
    if (helper != helpers.end()) cost.bandwidth[stage.chunk] = BandwidthOf(job, helper->second.osd);
  }
  return ChainPaysOff(p, cost, options.chain);
}

Result<bool> NeedsPull(shard::ShardService& shards, const PullJob& job,
                       const msg::SubPullObject& o) {
  const msg::SubPullRequest& r = job.request;
  // The version this position is to be at (an object written in part has its positions at
  // several: msg/messages.h "Versions").
  const std::uint64_t want = PulledVersion(o, static_cast<int>(r.shard));
  if (r.mode == msg::SubPullMode::kRepair) {
    // The shard is at the version already; its bytes are what is wrong.
    if (want == 0 || o.prev_version != want) {
      return Status::Invalid(fmt::format("object {}: repair of version {} from prev_version {}",
                                         o.object, want, o.prev_version));
    }
    auto local = shards.StateNow(msg::SubStateRequest{r.collection, o.object, r.shard});
    if (!local.ok()) return local.status();
    if (local->state != msg::ShardState::kPresent || local->version != want) {
      return Status::Error(ESTALE,
                           fmt::format("shard {}/{}#{} is at version {}, the repair is "
                                       "of version {}",
                                       r.collection, o.object, r.shard, local->version, want));
    }
    return true;
  }
  if (want == 0 || want <= o.prev_version) {
    return Status::Invalid(fmt::format("object {}: version {} is not above prev_version {}",
                                       o.object, want, o.prev_version));
  }
  auto local = shards.StateNow(msg::SubStateRequest{r.collection, o.object, r.shard});
  if (!local.ok()) return local.status();
  if (local->version == want) return false;  // pulled before (a retried pull)
  if (local->version != o.prev_version) {
    return Status::Error(
        ESTALE, fmt::format("shard {}/{}#{} is at version {}, the pull of version {} expects {}",
                            r.collection, o.object, r.shard, local->version, want, o.prev_version));
  }
  return true;
}

ObjectPuller::ObjectPuller(shard::ShardService* shards, const PullOptions* options,
                           const std::atomic<bool>* stopping, ChainPlans* plans,
                           MetricsRegistry* metrics)
    : shards_(shards), options_(options), stopping_(stopping), plans_(plans), metrics_(metrics) {}

Status ObjectPuller::Pull(const PullJob& job, const msg::SubPullObject& o,
                          PrefetchedObject prefetched, msg::SubPullResult* result) {
  const msg::SubPullRequest& r = job.request;
  if (stopping_->load()) return Status::Error(ECANCELED, "the OSD is shutting down");
  // Reading the helpers is the expensive part: skip it when the write could not apply anyway.
  // The write checks again (the shard may change meanwhile).
  auto needed = NeedsPull(*shards_, job, o);
  if (!needed.ok()) return needed.status();
  if (!*needed) return Status::OK();
  // The engine rebuilds the padded shard; the shard stores what the object's data reaches in it
  // (all of it with padding), and only that is copied or written.
  const StripeLayout& layout = CodecOf(*job.codec, o).layout;
  const std::uint64_t stored = layout.stored_size(o.object_size, static_cast<int>(r.shard));
  Buffer data = Buffer::Allocate(layout.padded_shard_size(o.object_size), false);
  if (stored > 0) {
    Status s;
    if (r.mode == msg::SubPullMode::kCopy) {
      s = Copy(job, o, std::move(prefetched.reads), data, result);
      // The shard's old holder failed (it died, or lost the shard): decode it if the request
      // named helpers for that, through a chain first as a kRebuild would.
      if (!s.ok() && !job.holders.empty()) {
        Status rebuilt = RebuildByChain(job, o, data, result);
        if (!rebuilt.ok()) rebuilt = Rebuild(job, o, {}, data, result);
        s = rebuilt.ok() ? rebuilt : rebuilt.WithPrefix("copy failed (" + s.message() + ")");
      }
    } else {
      s = Status::Error(EOPNOTSUPP, "no chain");
      if (r.mode == msg::SubPullMode::kRebuild) s = RebuildByChain(job, o, data, result);
      if (!s.ok()) s = Rebuild(job, o, std::move(prefetched), data, result);
    }
    if (!s.ok()) {
      if (!job.left_out.empty()) return s.WithPrefix("helpers left out: " + job.left_out);
      return s;
    }
  }
  auto meta = ReadMeta(job, o);
  if (!meta.ok()) return meta.status();
  EC_RETURN_IF_ERROR(Write(job, o, stored,
                           stored == data.size() ? std::move(data) : data.Slice(0, stored), *meta));
  result->rebuilt_bytes = stored;
  return Status::OK();
}

Status ObjectPuller::Rebuild(const PullJob& job, const msg::SubPullObject& o,
                             PrefetchedObject prefetched, Buffer& data,
                             msg::SubPullResult* result) const {
  const msg::SubPullRequest& r = job.request;
  msg::OsdShardSource::Options so;
  so.collection = r.collection;
  so.object = o.object;
  so.shards = job.holders;
  so.call.timeout = options_->helper_timeout;
  so.expect_version = o.version;
  so.expect_versions = HelperVersions(o);
  const PoolCodec& codec = CodecOf(*job.codec, o);
  // Each helper holds what the object's size gives it; past that its bytes are zeros that are
  // neither read nor sent (the prefetch asked for the same stored parts).
  std::map<int, std::uint64_t> sizes;
  for (const auto& [position, holder] : job.holders) {
    sizes[position] = codec.layout.stored_size(o.object_size, position);
  }
  so.shard_sizes = sizes;
  msg::OsdShardSource remote(std::move(so));
  CountingSource counted(&remote, options_->cost.device_block);
  Prefetched ahead(&counted, std::move(prefetched.reads));
  recovery::StoredShardSource stored(&ahead.source(), std::move(sizes));

  const int want = static_cast<int>(r.shard);
  // The prefetch's request and plan when it made them (the same as building them here).
  const recovery::RepairRequest rr =
      prefetched.request ? *std::move(prefetched.request) : RebuildRequest(job, o, *options_);
  const recovery::RepairPlan* plan = prefetched.plan ? &*prefetched.plan : nullptr;
  std::byte* out = data.data();
  const std::uint64_t size = data.size();
  recovery::RepairStats stats;
  Status s = codec.engine->Run(
      rr, stored,
      [&](const recovery::RebuiltBytes& b) -> Status {
        const std::span<const std::byte> bytes = b.shards.at(want);
        if (b.offset > size || bytes.size() > size - b.offset) {
          return Status::IOError(fmt::format("rebuilt bytes [{}, +{}) past shard size {}", b.offset,
                                             bytes.size(), size));
        }
        std::memcpy(out + b.offset, bytes.data(), bytes.size());
        return Status::OK();
      },
      &stats, plan);
  result->network_bytes += counted.network_bytes();
  result->device_bytes += counted.device_bytes();
  ahead.Count(options_->cost.device_block, result);
  // Helpers at another version than the object's: this OSD was asked with an outdated view, which
  // the primary settles (ESTALE), unlike helpers that are down or broken (EIO).
  if (!s.ok() && AllStale(stats.failed)) return Status::Error(ESTALE, s.message());
  return s;
}

Status ObjectPuller::RebuildByChain(const PullJob& job, const msg::SubPullObject& o, Buffer& data,
                                    msg::SubPullResult* result) const {
  const msg::SubPullRequest& r = job.request;
  auto chosen = ChainChosen(job, o, *options_, plans_);
  if (!chosen.ok()) return chosen.status();
  if (!*chosen) return Status::Error(EOPNOTSUPP, "no chain: the direct pull is faster");
  const PoolCodec& codec = CodecOf(*job.codec, o);
  ChainRepairTarget t;
  t.code = codec.code.get();
  t.layout = &codec.layout;
  t.pool = r.pool;
  t.epoch = r.epoch;
  t.collection = r.collection;
  t.object = o.object;
  t.lost = static_cast<int>(r.shard);
  t.version = o.version;
  t.object_size = o.object_size;
  t.versions = o.versions;
  t.helpers = ChainHelpers(job, o);
  ChainRepairStats stats;
  Status s = RepairByChain(t, options_->chain, plans_, metrics_, data.span(), &stats);
  result->network_bytes += stats.network_bytes;
  result->device_bytes += stats.device_bytes;
  if (!s.ok() && s.code() != EOPNOTSUPP) {
    spdlog::warn("{}/{} shard {}: repair chain failed, pulling directly: {}", r.collection,
                 o.object, r.shard, s.message());
  }
  return s;
}

Status ObjectPuller::Copy(const PullJob& job, const msg::SubPullObject& o,
                          std::vector<PrefetchedRead> prefetched, Buffer& data,
                          msg::SubPullResult* result) const {
  const msg::SubPullRequest& r = job.request;
  const int shard = static_cast<int>(r.shard);
  // The bytes the shard stores (the head of `data`).
  const std::uint64_t stored = CodecOf(*job.codec, o).layout.stored_size(o.object_size, shard);
  if (job.copy_from.empty()) {
    return Status::IOError(fmt::format("no helper to copy shard {} of {} from", shard, o.object));
  }
  Status last;
  for (std::size_t from = 0; from < job.copy_from.size(); ++from) {
    msg::OsdShardSource::Options so;
    so.collection = r.collection;
    so.object = o.object;
    so.shards[shard] = job.copy_from[from];
    so.call.timeout = options_->helper_timeout;
    so.expect_version = PulledVersion(o, shard);
    so.shard_sizes[shard] = stored;
    msg::OsdShardSource remote(std::move(so));
    CountingSource counted(&remote, options_->cost.device_block);
    // What was fetched ahead came from the first source.
    Prefetched ahead(&counted, from == 0 ? std::move(prefetched) : std::vector<PrefetchedRead>{});
    const std::vector<recovery::ShardReadRequest> requests =
        recovery::SplitToLimits(shard, {{0, stored}}, data.span().first(stored), counted.limits());
    const std::vector<Status> got = recovery::ReadAll(ahead.source(), requests);
    result->network_bytes += counted.network_bytes();
    result->device_bytes += counted.device_bytes();
    ahead.Count(options_->cost.device_block, result);
    auto failed = std::find_if(got.begin(), got.end(), [](const Status& s) { return !s.ok(); });
    if (failed == got.end()) return Status::OK();
    last = *failed;
  }
  return last;
}

Result<msg::StatResult> ObjectPuller::ReadMeta(const PullJob& job,
                                               const msg::SubPullObject& o) const {
  const msg::SubPullRequest& r = job.request;
  // (position, holder): the helpers at the object's version (they hold its mtime), then the copy
  // sources and the other helpers (the object's xattrs; an mtime as old as their version).
  std::vector<std::pair<int, const msg::OsdShardSource::Holder*>> from;
  for (const auto& [position, holder] : job.holders) {
    if (PulledVersion(o, position) == o.version) from.emplace_back(position, &holder);
  }
  for (const auto& holder : job.copy_from) from.emplace_back(static_cast<int>(r.shard), &holder);
  for (const auto& [position, holder] : job.holders) {
    if (PulledVersion(o, position) != o.version) from.emplace_back(position, &holder);
  }
  msg::CallOptions call;
  call.timeout = options_->helper_timeout;
  std::vector<std::string> failed;
  for (const auto& [position, holder] : from) {
    auto got = holder->client->Stat(
        msg::StatRequest{r.collection, o.object, static_cast<std::uint32_t>(position)}, call);
    if (!got.ok()) {
      failed.push_back(holder->name + ": " + got.status().message());
    } else if (got->version != PulledVersion(o, position)) {
      failed.push_back(fmt::format("{}: at version {}", holder->name, got->version));
    } else {
      return got;
    }
  }
  return Status::IOError(fmt::format("object {}: no helper gave its metadata{}{}", o.object,
                                     failed.empty() ? "" : ": ", fmt::join(failed, "; ")));
}

Status ObjectPuller::Write(const PullJob& job, const msg::SubPullObject& o,
                           std::uint64_t shard_size, Buffer data, const msg::StatResult& meta) {
  msg::SubWriteRequest w;
  w.collection = job.request.collection;
  w.object = o.object;
  w.shard = job.request.shard;
  w.version = PulledVersion(o, static_cast<int>(job.request.shard));
  w.prev_version = o.prev_version;
  w.versions = o.versions;
  w.kind = job.request.mode == msg::SubPullMode::kRepair ? msg::SubWriteKind::kRepair
                                                         : msg::SubWriteKind::kFull;
  w.object_size = o.object_size;
  w.shard_size = shard_size;
  w.form = o.form;
  if (shard_size > 0) w.extents.push_back({0, shard_size});
  w.epoch = job.request.epoch;  // fenced as the primary's own writes (interval_fence.h)
  w.meta = msg::SubWriteMeta::kReplace;
  w.mtime = shard::DecimalAttr(meta.attrs, shard::kMtimeAttr);
  w.xattrs = shard::XattrsOf(meta.attrs);
  // On the shard's strand of the shard service, after (or before) the primary's SubWrites of the
  // same shard, never in between: see "Ordering" in pull_service.h.
  auto written = std::make_shared<std::promise<Status>>();
  auto done = written->get_future();
  shards_->SubWrite(std::move(w), std::move(data),
                    [written](Status s) { written->set_value(std::move(s)); });
  return done.get();
}

}  // namespace ec::osd::pg
