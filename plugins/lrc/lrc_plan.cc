#include "plugins/lrc/lrc_plan.h"

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>

namespace ec::lrc {

namespace {

std::string Describe(const ShardSet& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return "{" + out + "}";
}

bool Contains(const ShardSet& set, const ShardSet& subset) {
  return std::includes(set.begin(), set.end(), subset.begin(), subset.end());
}

}  // namespace

Result<std::vector<LayerStep>> ScheduleDecode(const std::vector<LayerShape>& layers,
                                              const ShardSet& known_in, const ShardSet& targets) {
  ShardSet known = known_in;
  std::vector<LayerStep> steps;
  // Every layer that applies, last layer first, until the targets are known or nothing changes.
  bool progress = true;
  while (!Contains(known, targets) && progress) {
    progress = false;
    for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
      const LayerShape& layer = layers[static_cast<std::size_t>(i)];
      LayerStep step{i, {}, {}};
      for (int id : layer.chunks) (known.count(id) ? step.inputs : step.rebuilt).insert(id);
      if (step.rebuilt.empty() || step.inputs.size() < layer.k) continue;
      known.insert(step.rebuilt.begin(), step.rebuilt.end());
      steps.push_back(std::move(step));
      progress = true;
      if (Contains(known, targets)) break;
    }
  }
  if (!Contains(known, targets)) {
    ShardSet missing;
    std::set_difference(targets.begin(), targets.end(), known.begin(), known.end(),
                        std::inserter(missing, missing.end()));
    return Status::IOError("not enough chunks in " + Describe(known_in) + " to read " +
                           Describe(targets) + ": cannot rebuild " + Describe(missing));
  }
  // Keep only the steps whose chunks are needed, walking back from the targets: a step is needed
  // when it rebuilds a needed chunk, and then its inputs that were rebuilt are needed too.
  ShardSet needed;
  std::set_difference(targets.begin(), targets.end(), known_in.begin(), known_in.end(),
                      std::inserter(needed, needed.end()));
  std::vector<LayerStep> kept;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    bool useful = false;
    for (int id : it->rebuilt) useful = useful || needed.count(id);
    if (!useful) continue;
    for (int id : it->inputs)
      if (!known_in.count(id)) needed.insert(id);
    kept.push_back(*it);
  }
  std::reverse(kept.begin(), kept.end());
  return kept;
}

Result<ShardSet> ChooseReads(const std::vector<LayerShape>& layers, const ShardSet& want,
                             const std::map<int, int>& available) {
  ShardSet have;
  for (const auto& [id, cost] : available) have.insert(id);
  if (Contains(have, want)) return want;

  // Each missing wanted chunk from one layer of available chunks.
  ShardSet reads, covered;
  for (int id : want)
    if (have.count(id)) reads.insert(id);
  bool all_covered = true;
  for (int id : want) {
    if (have.count(id) || covered.count(id)) continue;
    long long best_cost = std::numeric_limits<long long>::max();
    int best = -1;
    std::vector<int> best_reads;
    for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
      const LayerShape& layer = layers[static_cast<std::size_t>(i)];
      if (std::find(layer.chunks.begin(), layer.chunks.end(), id) == layer.chunks.end()) continue;
      std::vector<std::tuple<long long, int>> order;  // cost (0 when already read), id
      for (int c : layer.chunks) {
        auto it = available.find(c);
        if (it != available.end()) order.emplace_back(reads.count(c) ? 0 : it->second, c);
      }
      if (order.size() < layer.k) continue;
      std::sort(order.begin(), order.end());
      long long cost = 0;
      for (unsigned j = 0; j < layer.k; ++j) cost += std::get<0>(order[j]);
      if (cost < best_cost) {  // strict: on a tie the later layer, found first, stays
        best_cost = cost;
        best = i;
        best_reads.clear();
        for (unsigned j = 0; j < layer.k; ++j) best_reads.push_back(std::get<1>(order[j]));
      }
    }
    if (best < 0) {
      all_covered = false;
      break;
    }
    reads.insert(best_reads.begin(), best_reads.end());
    const auto& chunks = layers[static_cast<std::size_t>(best)].chunks;
    covered.insert(chunks.begin(), chunks.end());
  }
  if (all_covered) return reads;

  // Chained repairs: every available chunk that a needed step reads.
  auto steps = ScheduleDecode(layers, have, want);
  if (!steps.ok()) return steps.status();
  ShardSet chosen;
  for (int id : want)
    if (have.count(id)) chosen.insert(id);
  for (const LayerStep& step : *steps)
    for (int id : step.inputs)
      if (have.count(id)) chosen.insert(id);
  return chosen;
}

}  // namespace ec::lrc
