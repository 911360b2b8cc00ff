// ErasureCodeClay: read planning (Ceph's plans, cost-based plans) and repair.
#include <algorithm>
#include <array>
#include <tuple>

#include "plugins/clay/clay_code.h"

namespace ec {

namespace {

template <typename Map>
ShardSet Keys(const Map& by_id) {
  ShardSet keys;
  for (const auto& [id, value] : by_id) keys.insert(id);
  return keys;
}

// The k cheapest chunks of `costs` other than `excluded` (cost, then id); empty if too few.
std::vector<int> Cheapest(const std::map<int, int>& costs, std::size_t count, int excluded) {
  std::vector<std::pair<int, int>> order;
  for (const auto& [id, cost] : costs)
    if (id != excluded) order.emplace_back(cost, id);
  if (order.size() < count) return {};
  std::sort(order.begin(), order.end());
  std::vector<int> ids;
  for (std::size_t i = 0; i < count; ++i) ids.push_back(order[i].second);
  return ids;
}

// The cheapest repair set of `lost`: every other real chunk of its group (a repair cannot do
// without them), then the cheapest other chunks of `costs` up to d helpers.
// Precondition: layout.is_repair({lost}, keys of costs).
ShardSet CheapestRepairSet(const clay::ClayLayout& layout, int lost,
                           const std::map<int, int>& costs) {
  ShardSet helpers;
  for (int peer : layout.group_peers(lost)) helpers.insert(peer);
  std::map<int, int> others;
  for (const auto& [id, cost] : costs)
    if (!helpers.count(id)) others[id] = cost;
  for (int id : Cheapest(others, layout.d() - helpers.size(), lost)) helpers.insert(id);
  return helpers;
}

// Sub-chunk repair needs exactly d helpers, among them every other real chunk of lost's group.
Status CheckRepairSet(const clay::ClayLayout& layout, int lost, const ShardSet& helpers) {
  if (helpers.size() == static_cast<std::size_t>(layout.d()) && layout.is_repair({lost}, helpers))
    return Status::OK();
  return Status::Error(
      EOPNOTSUPP, "clay repairs chunk " + std::to_string(lost) + " from sub-chunks only with d=" +
                      std::to_string(layout.d()) + " helpers that include its group");
}

}  // namespace

Result<SubChunkPlan> ErasureCodeClay::minimum_to_decode(const ShardSet& want,
                                                        const ShardSet& available) const {
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(available, "available"));
  if (layout_.is_repair(want, available)) {
    SubChunkPlan plan = layout_.minimum_to_repair(*want.begin(), available);
    if (can_repair(*want.begin(), Keys(plan))) return plan;
  }
  auto plan = ErasureCode::minimum_to_decode(want, available);
  if (!plan.ok() || std::includes(available.begin(), available.end(), want.begin(), want.end()))
    return plan;
  auto chosen = decodable_set(Keys(*plan), std::vector<int>(available.begin(), available.end()));
  if (!chosen.ok()) return chosen.status();
  const std::vector<SubChunkRange> whole = {{0, layout_.sub_chunk_count()}};
  SubChunkPlan decodable;
  for (int id : *chosen) decodable[id] = whole;
  return decodable;
}

Result<ShardSet> ErasureCodeClay::decodable_set(const ShardSet& chosen,
                                                const std::vector<int>& preference) const {
  // The layered decode's sources are the virtual nodes and the known ones (clay_layered.cc).
  std::vector<int> fixed;
  for (int j = layout_.k(); j < layout_.k() + layout_.nu(); ++j) fixed.push_back(j);
  auto determines = [&](const std::vector<int>& chunks) {
    std::vector<int> sources = fixed;
    for (int id : chunks) sources.push_back(layout_.node_of_chunk(id));
    std::sort(sources.begin(), sources.end());
    return mds_.Determines(sources);
  };
  if (determines(std::vector<int>(chosen.begin(), chosen.end()))) return chosen;
  std::vector<int> known;
  for (int id : preference) known.push_back(layout_.node_of_chunk(id));
  auto nodes = mds_.ChooseSources(fixed, known);
  if (!nodes.ok())
    return Status::IOError("clay cannot decode from any " + std::to_string(k_) +
                           " of the available chunks (its per-plane code is not MDS)");
  ShardSet ids;
  for (int id : preference)
    if (std::binary_search(nodes->begin(), nodes->end(), layout_.node_of_chunk(id))) ids.insert(id);
  return ids;
}

// A per-plane code that is not MDS (scalar_mds=shec) cannot decode every erasure pattern that a
// sub-chunk repair needs (the lost chunk's whole group in each plane): for such a chunk the plans
// fall back to a whole decode, which it can do (Ceph would plan the repair and fail to decode).
bool ErasureCodeClay::can_repair(int lost, const ShardSet& helpers) const {
  return plan_repair(lost, {0, layout_.sub_chunk_count()}, helpers).ok();
}

Result<ShardSet> ErasureCodeClay::cheapest_to_decode(const ShardSet& want,
                                                     const std::map<int, int>& available) const {
  auto base = [&]() -> Result<ShardSet> {
    auto chosen = ErasureCode::cheapest_to_decode(want, available);
    if (!chosen.ok()) return chosen;
    // The base class's order: cost, then wanted first, then id.
    std::vector<std::tuple<int, int, int>> order;
    for (const auto& [id, cost] : available) order.emplace_back(cost, want.count(id) ? 0 : 1, id);
    std::sort(order.begin(), order.end());
    std::vector<int> preference;
    for (const auto& entry : order) preference.push_back(std::get<2>(entry));
    return decodable_set(*chosen, preference);
  };
  if (!layout_.is_repair(want, Keys(available))) return base();
  const int lost = *want.begin();
  const ShardSet repair = CheapestRepairSet(layout_, lost, available);
  long long repair_cost = 0;
  for (int id : repair) repair_cost += available.at(id);
  const std::vector<int> decode = Cheapest(available, k_, lost);
  if (!can_repair(lost, repair)) return base();
  long long decode_cost = 0;
  for (int id : decode) decode_cost += available.at(id);
  // A repair reads 1/q of each helper, a decode all of k chunks.
  if (decode.empty() || repair_cost <= static_cast<long long>(layout_.q()) * decode_cost)
    return repair;
  auto decodable = base();
  return decodable.ok() ? decodable : Result<ShardSet>(repair);
}

Result<std::shared_ptr<const clay::RepairProgram>> ErasureCodeClay::plan_repair(
    int lost_chunk, SubChunkRange want, const ShardSet& helpers) const {
  std::string key = std::to_string(lost_chunk) + ":" + std::to_string(want.first) + "+" +
                    std::to_string(want.second) + ":";
  for (int h : helpers) key += std::to_string(h) + ",";
  if (auto hit = caches_->repair.Get(key)) return hit;
  auto built =
      clay::BuildRepairProgram(layout_, pair_, mds_, lost_chunk, helpers, want, fold_pairs());
  if (!built.ok()) return built.status();
  caches_->repair.Put(key, *built);
  return *built;
}

Status ErasureCodeClay::repair(const clay::RepairProgram& plan, const ConstChunkSpans& helper_data,
                               std::size_t chunk_size, std::span<std::byte> out) const {
  EC_RETURN_IF_ERROR(check_chunk_length(chunk_size));
  const std::size_t sub = chunk_size / layout_.sub_chunk_count();
  if (out.size() != static_cast<std::size_t>(plan.want.second) * sub) {
    return Status::Invalid("repair output has " + std::to_string(out.size()) + " bytes, expected " +
                           std::to_string(plan.want.second) + " sub-chunks of " +
                           std::to_string(sub));
  }
  if (helper_data.size() != plan.helpers.size()) {
    return Status::Invalid("repair got " + std::to_string(helper_data.size()) +
                           " helper buffers, the plan has " + std::to_string(plan.helpers.size()) +
                           " helpers");
  }
  std::array<std::uint8_t*, 2 * clay::ClayLayout::kMaxNodes + 2> slots{};
  for (std::size_t i = 0; i < plan.helpers.size(); ++i) {
    const int h = plan.helpers[i];
    auto it = helper_data.find(h);
    if (it == helper_data.end())
      return Status::Invalid("repair: no buffer for helper chunk " + std::to_string(h));
    const std::size_t expect = static_cast<std::size_t>(plan.read_counts[i]) * sub;
    if (it->second.size() != expect) {
      return Status::Invalid("helper chunk " + std::to_string(h) + " has " +
                             std::to_string(it->second.size()) + " bytes, the plan reads " +
                             std::to_string(plan.read_counts[i]) + " sub-chunks of " +
                             std::to_string(sub) + " = " + std::to_string(expect) + " bytes");
    }
    slots[layout_.node_of_chunk(h)] =
        const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(it->second.data()));
  }
  slots[2 * layout_.nodes()] = reinterpret_cast<std::uint8_t*>(out.data());
  return run(plan.program, sub, slots.data());
}

Result<SubChunkPlan> ErasureCodeClay::minimum_to_repair(int lost, SubChunkRange want,
                                                        const ShardSet& helpers) const {
  EC_RETURN_IF_ERROR(check_ids({lost}, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(helpers, "helper"));
  EC_RETURN_IF_ERROR(CheckRepairSet(layout_, lost, helpers));
  auto program = plan_repair(lost, want, helpers);
  if (!program.ok()) return program.status();
  return (*program)->reads;
}

Status ErasureCodeClay::repair_sub_chunks(int lost, SubChunkRange want,
                                          const ConstChunkSpans& helper_data,
                                          std::size_t chunk_size, std::span<std::byte> out) const {
  ShardSet helpers;
  for (const auto& [id, span] : helper_data) helpers.insert(id);
  EC_RETURN_IF_ERROR(check_ids({lost}, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(helpers, "helper"));
  EC_RETURN_IF_ERROR(CheckRepairSet(layout_, lost, helpers));
  auto program = plan_repair(lost, want, helpers);
  if (!program.ok()) return program.status();
  return repair(**program, helper_data, chunk_size, out);
}

Result<ClayReadPlan> ErasureCodeClay::plan_read(int chunk, SubChunkRange want,
                                                const std::map<int, int>& available,
                                                std::size_t chunk_size) const {
  const int z = layout_.sub_chunk_count();
  EC_RETURN_IF_ERROR(check_ids({chunk}, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(Keys(available), "available"));
  if (want.second < 1 || want.first < 0 || want.first > z - want.second) {
    return Status::Invalid("sub-chunk range (" + std::to_string(want.first) + "," +
                           std::to_string(want.second) + ") is not inside [0," + std::to_string(z) +
                           ")");
  }
  const std::size_t sub = chunk_size / z;
  auto finish = [&](ClayReadPlan plan) {
    plan.chunk = chunk;
    plan.want = want;
    plan.sub_chunks_read = 0;
    plan.cost = 0;
    for (const auto& [id, ranges] : plan.reads) {
      const int count = clay::CountSubChunks(ranges);
      plan.sub_chunks_read += count;
      plan.cost += static_cast<std::uint64_t>(std::max(available.at(id), 0)) * count;
    }
    plan.bytes_read = static_cast<std::uint64_t>(plan.sub_chunks_read) * sub;
    return plan;
  };
  if (available.count(chunk)) {
    ClayReadPlan direct;
    direct.kind = ClayReadPlan::Kind::kDirect;
    direct.reads[chunk] = {want};
    return finish(std::move(direct));
  }
  std::vector<ClayReadPlan> candidates;
  if (std::vector<int> ids = Cheapest(available, k_, chunk); !ids.empty()) {
    ClayReadPlan decode;
    decode.kind = ClayReadPlan::Kind::kDecode;
    for (int id : ids) decode.reads[id] = {{0, z}};
    candidates.push_back(finish(std::move(decode)));
  }
  if (layout_.is_repair({chunk}, Keys(available))) {
    const ShardSet helpers = CheapestRepairSet(layout_, chunk, available);
    // A per-plane code that cannot decode the repair's pattern (see can_repair) leaves the decode.
    auto program = plan_repair(chunk, want, helpers);
    if (program.ok()) {
      ClayReadPlan repair;
      repair.kind =
          want.second == z ? ClayReadPlan::Kind::kRepair : ClayReadPlan::Kind::kPartialRepair;
      repair.reads = (*program)->reads;
      repair.repair = *program;
      candidates.push_back(finish(std::move(repair)));
    } else if (candidates.empty()) {
      return program.status();
    }
  }
  if (candidates.empty()) {
    return Status::IOError("chunk " + std::to_string(chunk) + " cannot be rebuilt from " +
                           std::to_string(available.size()) + " available chunks (need " +
                           std::to_string(k_) + ")");
  }
  auto rank = [](const ClayReadPlan& p) {
    return std::tuple(p.cost, p.sub_chunks_read, p.kind == ClayReadPlan::Kind::kDecode);
  };
  return *std::min_element(
      candidates.begin(), candidates.end(),
      [&](const ClayReadPlan& a, const ClayReadPlan& b) { return rank(a) < rank(b); });
}

}  // namespace ec
