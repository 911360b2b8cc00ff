// object_io.h "Reads": a degraded read whose lost shard's bytes come through a repair chain
// (repair_chain.h) rather than from every helper at once.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>

#include "osd/pg/object_io.h"
#include "osd/pg/object_io_internal.h"
#include "recovery/stored_shard_source.h"

namespace ec::osd::pg::object_io_detail {
namespace {

// Shard `lost`'s bytes [offset, offset + bytes.size()) from memory (what a chain rebuilt), every
// other shard from `inner`. A request for bytes of `lost` outside that range fails EIO.
// Completions: the memory requests' on the calling thread, before ReadAsync returns; the others
// on the inner source's threads. `inner` and `bytes` are borrowed.
class RebuiltShardSource final : public recovery::ShardSource {
 public:
  RebuiltShardSource(recovery::ShardSource* inner, int lost, std::uint64_t offset,
                     std::span<const std::byte> bytes)
      : inner_(inner), lost_(lost), offset_(offset), bytes_(bytes) {}

  recovery::ShardSourceLimits limits() const override { return inner_->limits(); }

  void ReadAsync(std::span<const recovery::ShardReadRequest> requests, Completion done) override {
    std::vector<recovery::ShardReadRequest> others;
    std::vector<std::size_t> index;  // others[j] is requests[index[j]]
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].shard == lost_) continue;
      others.push_back(requests[i]);
      index.push_back(i);
    }
    if (!others.empty()) {
      // The inner source's completions may run after this returns: the copies live with them.
      auto shared = std::make_shared<std::vector<recovery::ShardReadRequest>>(std::move(others));
      auto map = std::make_shared<std::vector<std::size_t>>(std::move(index));
      inner_->ReadAsync(
          *shared, [shared, map, done](std::size_t j, Status s) { done((*map)[j], std::move(s)); });
    }
    for (std::size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].shard == lost_) done(i, Copy(requests[i]));
    }
  }

 private:
  Status Copy(const recovery::ShardReadRequest& r) const {
    std::byte* dest = r.destination.data();
    std::size_t room = r.destination.size();
    for (const recovery::Extent& e : r.extents) {
      if (e.offset < offset_ || e.offset - offset_ > bytes_.size() ||
          e.length > bytes_.size() - (e.offset - offset_) || e.length > room) {
        return Status::IOError(fmt::format("shard {} bytes [{}, +{}): the chain rebuilt [{}, +{})",
                                           lost_, e.offset, e.length, offset_, bytes_.size()));
      }
      std::memcpy(dest, bytes_.data() + (e.offset - offset_), e.length);
      dest += e.length;
      room -= e.length;
    }
    return Status::OK();
  }

  recovery::ShardSource* inner_;
  int lost_;
  std::uint64_t offset_;
  std::span<const std::byte> bytes_;
};

// What a direct repair of the lost bytes `slices` cover adds on this OSD's link to the read's own
// extents (`range`), per helper position: the helpers' extents of `plan` for them (their stored
// parts; this OSD's own shard `self` free) that the range does not read anyway. The direct read's
// engine may choose other helpers than `plan` (it prices this OSD's shard at nothing): an
// estimate for the rule, never a count.
std::map<int, std::uint64_t> DirectRepairBytes(const recovery::PipelinePlan& plan,
                                               const std::vector<recovery::PipelineSlice>& slices,
                                               const std::vector<ShardExtent>& range, int self,
                                               const std::map<int, std::uint64_t>& sizes) {
  std::map<int, std::uint64_t> out;
  for (std::size_t i = 0; i < plan.stages().size(); ++i) {
    const int p = plan.stages()[i].chunk;
    if (p == self) continue;
    std::uint64_t& bytes = out[p];
    auto sized = sizes.find(p);
    const std::uint64_t stored =
        sized == sizes.end() ? std::numeric_limits<std::uint64_t>::max() : sized->second;
    for (const recovery::PipelineSlice& slice : slices) {
      for (const recovery::Extent& e : plan.StageExtents(i, slice)) {
        const std::uint64_t lo = e.offset;
        const std::uint64_t hi = std::min(e.offset + e.length, stored);
        if (lo >= hi) continue;
        std::uint64_t own = 0;
        for (const ShardExtent& r : range) {
          if (r.shard != p) continue;
          const std::uint64_t a = std::max(lo, r.offset);
          const std::uint64_t b = std::min(hi, r.offset + r.length);
          if (a < b) own += b - a;
        }
        bytes += hi - lo - std::min(own, hi - lo);
      }
    }
  }
  return out;
}

}  // namespace

ChainAttempt ReadThroughChain(const ObjectIo& io, const ObjectState& state,
                              const recovery::ObjectReadRequest& request,
                              recovery::ShardSource& primary,
                              const std::map<int, std::uint64_t>& sizes) {
  ChainAttempt a;
  if (io.chain == nullptr || io.chain->mode == RepairPipeline::kOff || io.chain->plans == nullptr ||
      io.codec->replicated || io.codec->form != msg::ObjectForm::kErasure ||
      state.form != msg::ObjectForm::kErasure) {
    return a;
  }
  const ChainReads& chain = *io.chain;
  const StripeLayout& layout = io.codec->layout;
  auto extents = layout.data_extents(request.offset, request.length);
  if (!extents.ok()) return a;
  // The one lost data shard the range needs, and the span of its bytes it needs.
  int lost = -1;
  std::uint64_t lo = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t hi = 0;
  for (const ShardExtent& e : *extents) {
    if (e.length == 0 || request.available.count(e.shard) != 0) continue;
    // Two lost: the direct read rebuilds both from one set of helper reads.
    if (lost >= 0 && lost != e.shard) return a;
    lost = e.shard;
    lo = std::min(lo, e.offset);
    hi = std::max(hi, e.offset + e.length);
  }
  if (lost < 0) return a;
  // [lo, hi) of the lost shard: contiguous, as the range is.
  const std::uint64_t needed = hi - lo;
  ChainRepairOptions options = chain.options;
  if (options.timeout.count() <= 0) options.timeout = io.timeout;
  if (!ChainLongEnough(needed, options)) return a;

  ChainRepairTarget t;
  t.code = io.codec->code.get();
  t.layout = &layout;
  t.pool = static_cast<std::uint64_t>(io.loc->pool_id);
  t.epoch = io.epoch;
  t.collection = io.loc->collection;
  t.object = io.object;
  t.lost = lost;
  t.version = state.version;
  t.object_size = state.size;
  t.versions = state.versions;
  t.offset = lo;
  t.length = needed;
  for (const auto& [p, cost] : request.available) {
    auto link = io.clients.find(p);
    if (p == lost || link == io.clients.end() ||
        static_cast<std::size_t>(p) >= io.loc->acting.size()) {
      continue;
    }
    msg::OsdClient* client = link->second->remote();
    if (client == nullptr && p != io.self_position) continue;
    t.helpers[p] = ChainHelper{io.loc->acting[static_cast<std::size_t>(p)], client};
  }
  if (io.self_position >= 0 && t.helpers.count(io.self_position) != 0) {
    t.first_hop = io.self_position;
  }
  if (chain.mode == RepairPipeline::kAuto) {
    std::vector<int> positions;
    for (const auto& [p, helper] : t.helpers) positions.push_back(p);
    auto plan = chain.plans->Get(*t.code, layout, lost, positions);
    if (!plan.ok()) return a;
    auto slices = ChainSlicesFor(**plan, lo, needed, options);
    if (!slices.ok()) return a;
    ChainCost cost;
    for (const recovery::PipelineSlice& slice : *slices)
      cost.chain_bytes += (*plan)->PartialBytes(slice);
    cost.direct = DirectRepairBytes(**plan, *slices, *extents, io.self_position, sizes);
    cost.first_hop = t.first_hop;
    if (chain.map != nullptr) {
      const std::shared_ptr<const cluster::ClusterMap> map = chain.map->Get();
      auto bandwidth = [&](int osd) -> std::uint64_t {
        auto it = map->osds.find(osd);
        return it == map->osds.end() ? 0 : it->second.network_bandwidth;
      };
      cost.requester_bandwidth = bandwidth(chain.osd_id);
      for (const auto& [p, helper] : t.helpers) cost.bandwidth[p] = bandwidth(helper.osd);
    }
    if (!ChainPaysOff(**plan, cost, options)) return a;
  }

  Buffer rebuilt = Buffer::Allocate(needed, false);
  ChainRepairStats stats;
  Status s = RepairByChain(t, options, chain.plans, chain.metrics, rebuilt.span(), &stats);
  if (s.code() == EOPNOTSUPP) return a;  // not pipelinable: no chain for this code
  a.tried = true;
  if (!s.ok()) {
    a.failure = s;
    return a;
  }
  // The read itself, with the rebuilt shard as a local one (no network, least cost): the data
  // shards' extents directly, the lost one's from memory.
  recovery::ObjectReadRequest req = request;
  req.available[lost] = 0;
  recovery::ReadCostModel model = request.cost.value_or(recovery::ReadCostModel{});
  model.local.insert(lost);
  req.cost = model;
  RebuiltShardSource from_chain(&primary, lost, lo, rebuilt.span());
  recovery::StoredShardSource source(&from_chain, sizes);
  auto got = recovery::ReadObjectRange(*io.codec->engine, source, req);
  if (!got.ok()) {
    a.failure = got.status().WithPrefix("the read after the chain");
    return a;
  }
  ReadOutcome out;
  out.bytes = std::move(got->bytes);
  out.degraded = true;
  out.chained = true;
  out.chain_bytes = stats.network_bytes;
  for (const auto& [p, why] : got->stats.failed) {
    if (why.is_data_loss()) out.corrupt.push_back(p);
  }
  out.network_bytes = got->cost.net_bytes + stats.network_bytes;
  out.device_bytes = got->cost.device_bytes + stats.device_bytes;
  a.outcome = std::move(out);
  return a;
}

}  // namespace ec::osd::pg::object_io_detail
