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

// Every chunk the layers can rebuild from `known`, with `known`.
ShardSet Closure(const std::vector<LayerShape>& layers, ShardSet known) {
  for (bool changed = true; changed;) {
    changed = false;
    for (const LayerShape& layer : layers) {
      unsigned have = 0;
      for (int id : layer.chunks) have += known.count(id) ? 1 : 0;
      if (have < layer.k || have == layer.chunks.size()) continue;
      known.insert(layer.chunks.begin(), layer.chunks.end());
      changed = true;
    }
  }
  return known;
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

  int n = 0;
  for (const LayerShape& layer : layers)
    for (int id : layer.chunks) n = std::max(n, id + 1);
  for (int id : want) n = std::max(n, id + 1);
  constexpr long long kNever = std::numeric_limits<long long>::max();

  ShardSet reads, obtained;  // chunks chosen to be read; chunks read or rebuilt so far
  for (int id : want) {
    if (have.count(id)) reads.insert(id);
  }
  obtained = Closure(layers, reads);
  for (int target : want) {
    if (obtained.count(target)) continue;
    // The cheapest way to obtain every chunk (Bellman-Ford over the layers): an available chunk
    // costs its read (nothing once chosen), a lost one the k cheapest other chunks of a layer that
    // holds it. Costs are never negative, so the choices form no cycle; on a tie the later layer
    // (a local one, found first) stays.
    std::vector<long long> cost(static_cast<std::size_t>(n), kNever);
    std::vector<int> via(static_cast<std::size_t>(n), -1);
    std::vector<std::vector<int>> inputs(static_cast<std::size_t>(n));
    for (const auto& [id, c] : available) cost[static_cast<std::size_t>(id)] = c;
    for (int id : obtained) cost[static_cast<std::size_t>(id)] = 0;
    for (bool changed = true; changed;) {
      changed = false;
      for (int i = static_cast<int>(layers.size()) - 1; i >= 0; --i) {
        const LayerShape& layer = layers[static_cast<std::size_t>(i)];
        for (int id : layer.chunks) {
          std::vector<std::pair<long long, int>> order;
          for (int other : layer.chunks)
            if (other != id && cost[static_cast<std::size_t>(other)] != kNever)
              order.emplace_back(cost[static_cast<std::size_t>(other)], other);
          if (order.size() < layer.k) continue;
          std::sort(order.begin(), order.end());
          long long sum = 0;
          for (unsigned j = 0; j < layer.k; ++j) sum += order[j].first;
          if (sum >= cost[static_cast<std::size_t>(id)]) continue;
          cost[static_cast<std::size_t>(id)] = sum;
          via[static_cast<std::size_t>(id)] = i;
          inputs[static_cast<std::size_t>(id)].clear();
          for (unsigned j = 0; j < layer.k; ++j)
            inputs[static_cast<std::size_t>(id)].push_back(order[j].second);
          changed = true;
        }
      }
    }
    if (cost[static_cast<std::size_t>(target)] == kNever) {
      return ScheduleDecode(layers, have, want).status();  // its EIO names what cannot be rebuilt
    }
    // Expand the choice: chunks that are rebuilt bring their own inputs, down to reads.
    std::vector<int> stack = {target};
    ShardSet expanded;
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (obtained.count(id) || !expanded.insert(id).second) continue;
      if (via[static_cast<std::size_t>(id)] < 0) {
        reads.insert(id);
        continue;
      }
      for (int input : inputs[static_cast<std::size_t>(id)]) stack.push_back(input);
    }
    // Everything the reads rebuild comes free for the next wanted chunk.
    obtained = Closure(layers, reads);
  }
  return reads;
}

}  // namespace ec::lrc
