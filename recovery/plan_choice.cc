#include "recovery/plan_choice.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <tuple>

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

std::uint64_t Binomial(std::size_t n, std::size_t k) {
  if (k > n) return 0;
  std::uint64_t r = 1;
  for (std::size_t i = 1; i <= k; ++i) r = r * (n - k + i) / i;  // exact at every step
  return r;
}

// kDecode from the k shards that are cheapest one by one. A decode reads the same extents of
// every helper (whole chunks of the covering stripes), so its price is a sum of what each helper
// adds (after locality and what its also_read extents cost anyway) and these k make the cheapest
// decode of an MDS code.
Result<RepairPlan> CheapestDecode(const ErasureCodeInterface& code, const StripeLayout& layout,
                                  const ShardSet& want, const std::vector<int>& ids,
                                  std::uint64_t pos, std::uint64_t end,
                                  const std::map<int, std::vector<Extent>>& also,
                                  const ReadCostModel& model) {
  if (ids.size() < layout.k() || pos >= end) return Status::Error(EOPNOTSUPP, "no decode");
  const std::uint64_t c = layout.chunk_size();
  const std::uint64_t first = pos / c, last = (end - 1) / c;
  std::vector<std::tuple<double, int, int>> order;  // price, not wanted, id
  for (int id : ids) {
    // What reading the chunks adds to what the shard's also_read costs anyway.
    std::vector<Extent> extents{{first * c, (last - first + 1) * c}};
    ReadCost with, without;
    if (auto it = also.find(id); it != also.end()) {
      extents.insert(extents.end(), it->second.begin(), it->second.end());
      AddHelperCost(model, id, PriceHelper(model, id, it->second), &without);
    }
    AddHelperCost(model, id, PriceHelper(model, id, std::move(extents)), &with);
    order.emplace_back(with.total - without.total, want.count(id) ? 0 : 1, id);
  }
  std::sort(order.begin(), order.end());
  ShardSet set;
  for (std::size_t i = 0; i < layout.k(); ++i) set.insert(std::get<2>(order[i]));
  auto plan = MakePlanFrom(code, layout, want, set);
  if (plan.ok() && plan->kind != RepairPlan::Kind::kDecode)
    return Status::Error(EOPNOTSUPP, "not a decode");
  return plan;
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
    AddHelperCost(model, id, PriceHelper(model, id, std::move(all)), &sum);
  }
  for (int id : readers) {
    if (also.count(id)) continue;
    // Helpers with the same reads and the same stored length cost the same.
    auto stored = model.stored.find(id);
    const std::string key =
        ReadsKey(*active, id) + "/" +
        (stored == model.stored.end() ? std::string("whole") : std::to_string(stored->second));
    auto it = priced.find(key);
    if (it == priced.end())
      it = priced.emplace(key, PriceHelper(model, id, HelperExtents(*active, layout, id))).first;
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
    // The code's choice leaning to its sub-chunk repair (CLAY repairs from its lost chunk's group
    // and the cheapest others when every cost is nearly equal): local shards first.
    std::map<int, int> leaning;
    for (int id : ids) leaning[id] = model.local.count(id) ? 1000 : 1001;
    (void)add(MakePlan(code, layout, want, leaning));
    (void)add(CheapestDecode(code, layout, want, ids, pos, end, also, model));
    // Small codes: every set (a brute force, cheap there).
    if (Binomial(ids.size(), layout.k()) <= kExhaustiveSets) {
      ForEachSubset(ids, layout.k(), [&](const ShardSet& set) {
        (void)add(MakePlanFrom(code, layout, want, set));
        return true;
      });
    }
    if (want.size() == 1 && layout.sub_chunk_count() > 1) {
      std::uint64_t sets = 0;
      for (std::size_t size = layout.k() + 1; size <= ids.size(); ++size)
        sets += Binomial(ids.size(), size);
      for (std::size_t size = layout.k() + 1; size <= ids.size() && sets <= kExhaustiveSets;
           ++size) {
        ForEachSubset(ids, size, [&](const ShardSet& set) {
          auto plan = MakePlanFrom(code, layout, want, set);
          if (plan.ok() && plan->kind == RepairPlan::Kind::kSubChunkRepair && plan->native)
            (void)add(std::move(plan));
          return true;
        });
      }
    }
    if (plans.empty()) return first;
  }
  for (RepairPlan& p : plans)
    EC_RETURN_IF_ERROR(PricePlan(code, layout, want, pos, end, also, model, &p));
  // Equal prices: the plan with fewer requests to other holders wins. Each is a message each way
  // and a device I/O; where bytes cost the same, those are what the read waits for.
  auto requests = [&model](const RepairPlan& p) {
    std::size_t n = 0;
    for (int id : p.helpers) n += model.local.count(id) == 0 ? 1 : 0;
    return n;
  };
  std::stable_sort(plans.begin(), plans.end(), [&](const RepairPlan& a, const RepairPlan& b) {
    if (a.cost.total != b.cost.total) return a.cost.total < b.cost.total;
    return requests(a) < requests(b);
  });
  return plans;
}

}  // namespace ec::recovery
