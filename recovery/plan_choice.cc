#include "recovery/plan_choice.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "recovery/repair_plan.h"

namespace ec::recovery {

namespace {

// The extents one helper reads for the runs of `active` (the same for every stripe of a run).
std::vector<Extent> HelperExtents(const ActivePlan& active, const StripeLayout& layout, int id) {
  const std::uint64_t c = layout.chunk_size();
  std::vector<Extent> extents;
  for (const RunPlan& rp : active.runs) {
    if (active.plan.kind == RepairPlan::Kind::kDirect) {
      for (std::uint64_t s = rp.run.first_stripe; s < rp.run.first_stripe + rp.run.stripes; ++s)
        AppendExtent(extents, {s * c + rp.run.offset, rp.run.length});
      continue;
    }
    auto it = rp.reads.find(id);
    if (it == rp.reads.end()) continue;
    AppendRangeExtents(extents, it->second, c, layout.sub_chunk_size(), rp.run.first_stripe,
                       rp.run.stripes);
  }
  return extents;
}

// What a helper reads in each run, as a key: helpers with equal keys read equal extents.
std::string ReadsKey(const ActivePlan& active, int id) {
  if (active.plan.kind == RepairPlan::Kind::kDirect) return "direct";
  std::string key;
  for (const RunPlan& rp : active.runs) {
    key += '|';
    auto it = rp.reads.find(id);
    if (it == rp.reads.end()) continue;
    for (const auto& [first, count] : it->second)
      key += std::to_string(first) + "+" + std::to_string(count) + ",";
  }
  return key;
}

// Calls `f` with every subset of `ids` of `size` elements, in lexicographic order, while it
// returns true.
void ForEachSubset(const std::vector<int>& ids, std::size_t size,
                   const std::function<bool(const ShardSet&)>& f) {
  if (size > ids.size()) return;
  std::vector<std::size_t> at(size);
  for (std::size_t i = 0; i < size; ++i) at[i] = i;
  while (true) {
    ShardSet set;
    for (std::size_t i : at) set.insert(ids[i]);
    if (!f(set)) return;
    std::size_t i = size;
    while (i > 0 && at[i - 1] == ids.size() - size + i - 1) --i;
    if (i == 0) return;
    ++at[i - 1];
    for (std::size_t j = i; j < size; ++j) at[j] = at[j - 1] + 1;
  }
}

}  // namespace

Status PricePlan(const ErasureCodeInterface& code, const StripeLayout& layout, const ShardSet& want,
                 std::uint64_t pos, std::uint64_t end,
                 const std::map<int, std::vector<Extent>>& also, const ReadCostModel& model,
                 RepairPlan* plan) {
  auto active =
      PlanRuns(code, layout, *plan, want, pos, end, {}, std::numeric_limits<std::size_t>::max());
  if (!active.ok()) return active.status();
  ShardSet readers;
  if (plan->kind == RepairPlan::Kind::kDirect) {
    readers = want;
  } else {
    for (const RunPlan& rp : active->runs)
      for (const auto& [id, bytes] : rp.bytes_per_stripe)
        if (bytes > 0) readers.insert(id);
  }
  std::map<std::string, ReadCost> priced;  // ReadsKey -> the helper's price
  ReadCost sum;
  for (const auto& [id, extents] : also) {
    std::vector<Extent> all =
        readers.count(id) ? HelperExtents(*active, layout, id) : std::vector<Extent>{};
    all.insert(all.end(), extents.begin(), extents.end());
    AddHelperCost(model, id, PriceExtents(std::move(all), model.device_block), &sum);
  }
  for (int id : readers) {
    if (also.count(id)) continue;
    const std::string key = ReadsKey(*active, id);
    auto it = priced.find(key);
    if (it == priced.end())
      it = priced.emplace(key, PriceExtents(HelperExtents(*active, layout, id), model.device_block))
               .first;
    AddHelperCost(model, id, it->second, &sum);
  }
  plan->cost = sum;
  return Status::OK();
}

Result<std::vector<RepairPlan>> PricedCandidates(const ErasureCodeInterface& code,
                                                 const StripeLayout& layout, const ShardSet& want,
                                                 const std::map<int, int>& costs, std::uint64_t pos,
                                                 std::uint64_t end,
                                                 const std::map<int, std::vector<Extent>>& also,
                                                 const ReadCostModel& model) {
  EC_RETURN_IF_ERROR(CheckModel(model));
  std::vector<RepairPlan> plans;
  auto add = [&](Result<RepairPlan> plan) -> Status {
    if (!plan.ok()) return plan.status();
    for (const RepairPlan& p : plans)
      if (p.kind == plan->kind && p.helpers == plan->helpers && p.native == plan->native)
        return Status::OK();
    plans.push_back(std::move(*plan));
    return Status::OK();
  };
  std::vector<int> ids;
  for (const auto& [id, cost] : costs) ids.push_back(id);
  const ShardSet available(ids.begin(), ids.end());
  if (std::includes(available.begin(), available.end(), want.begin(), want.end())) {
    EC_RETURN_IF_ERROR(add(MakePlanFrom(code, layout, want, want)));
  } else {
    // The code's own choices: from the request's costs, then from the model's.
    Status first = add(MakePlan(code, layout, want, costs));
    if (!first.ok() && first.code() == EIO) return first;  // too few shards: no plan at all
    std::map<int, int> modelled;
    const double scale = 1000 / std::max({model.weight_net + model.weight_dev, 1e-9});
    for (int id : ids) {
      const double w =
          model.local.count(id) ? model.weight_dev : model.weight_net + model.weight_dev;
      modelled[id] = static_cast<int>(std::lround(w * scale));
    }
    (void)add(MakePlan(code, layout, want, modelled));
    std::size_t tried = 0;
    ForEachSubset(ids, layout.k(), [&](const ShardSet& set) {
      (void)add(MakePlanFrom(code, layout, want, set));
      return ++tried < kMaxHelperSets;
    });
    if (want.size() == 1 && layout.sub_chunk_count() > 1) {
      tried = 0;
      for (std::size_t size = layout.k() + 1; size <= ids.size() && tried < kMaxHelperSets;
           ++size) {
        ForEachSubset(ids, size, [&](const ShardSet& set) {
          auto plan = MakePlanFrom(code, layout, want, set);
          if (plan.ok() && plan->kind == RepairPlan::Kind::kSubChunkRepair && plan->native)
            (void)add(std::move(plan));
          return ++tried < kMaxHelperSets;
        });
      }
    }
    if (plans.empty()) return first;
  }
  for (RepairPlan& p : plans)
    EC_RETURN_IF_ERROR(PricePlan(code, layout, want, pos, end, also, model, &p));
  std::stable_sort(plans.begin(), plans.end(), [](const RepairPlan& a, const RepairPlan& b) {
    return a.cost.total < b.cost.total;
  });
  return plans;
}

}  // namespace ec::recovery
