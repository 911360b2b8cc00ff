#include "plugins/lrc/lrc_code.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "ec/plugin.h"

namespace ec {

namespace {

// The sub-code's chunk id of its piece `j` (data pieces first, then parities).
int SubId(const ErasureCodeInterface& code, std::size_t j) {
  const std::vector<int>& mapping = code.get_chunk_mapping();
  return j < mapping.size() ? mapping[j] : static_cast<int>(j);
}

}  // namespace

ErasureCodeLrc::ErasureCodeLrc(std::string directory) : directory_(std::move(directory)) {}

Status ErasureCodeLrc::init_layers(const std::vector<lrc::LayerSpec>& specs,
                                   std::vector<Layer>* layers) const {
  PluginRegistry& registry = PluginRegistry::instance();
  for (const lrc::LayerSpec& spec : specs) {
    Layer layer;
    layer.chunks_map = spec.chunks_map;
    layer.profile = spec.profile;
    for (std::size_t i = 0; i < spec.chunks_map.size(); ++i) {
      if (spec.chunks_map[i] == 'D') layer.data.push_back(static_cast<int>(i));
      if (spec.chunks_map[i] == 'c') layer.coding.push_back(static_cast<int>(i));
    }
    Profile& p = layer.profile;
    if (!p.count("k")) p["k"] = std::to_string(layer.data.size());
    if (!p.count("m")) p["m"] = std::to_string(layer.coding.size());
    if (!p.count("plugin")) p["plugin"] = "jerasure";
    if (!p.count("technique")) p["technique"] = "reed_sol_van";
    const std::string plugin = p["plugin"];
    if (plugin != "jerasure" && plugin != "isa") {
      return Status::Invalid("layer '" + layer.chunks_map + "' uses plugin=" + plugin +
                             ": lrc layers must be jerasure or isa codes");
    }
    EC_RETURN_IF_ERROR(registry.factory(plugin, directory_, p, &layer.code));
    layers->push_back(std::move(layer));
  }
  return Status::OK();
}

Status ErasureCodeLrc::check_layers(const std::string& mapping,
                                    const std::vector<Layer>& layers) const {
  const std::size_t n = mapping.size();
  std::vector<int> computed_by(n, -1);
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& layer = layers[i];
    const std::string what = "layer " + std::to_string(i) + " '" + layer.chunks_map + "'";
    if (layer.code->get_data_chunk_count() != layer.data.size() ||
        layer.code->get_chunk_count() != layer.data.size() + layer.coding.size()) {
      return Status::Invalid(what + " has " + std::to_string(layer.data.size()) + " D and " +
                             std::to_string(layer.coding.size()) +
                             " c but its profile makes a code of k=" +
                             std::to_string(layer.code->get_data_chunk_count()) +
                             " m=" + std::to_string(layer.code->get_coding_chunk_count()));
    }
    for (int id : layer.coding) {
      const auto pos = static_cast<std::size_t>(id);
      if (mapping[pos] == 'D') {
        return Status::Invalid(what + " computes chunk " + std::to_string(id) +
                               ", a data chunk of mapping " + mapping);
      }
      if (computed_by[pos] >= 0) {
        return Status::Invalid(what + " computes chunk " + std::to_string(id) + ", which layer " +
                               std::to_string(computed_by[pos]) + " computes already");
      }
      computed_by[pos] = static_cast<int>(i);
    }
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    for (int id : layers[i].data) {
      const int by = computed_by[static_cast<std::size_t>(id)];
      if (by > static_cast<int>(i)) {
        return Status::Invalid("layer " + std::to_string(i) + " '" + layers[i].chunks_map +
                               "' reads chunk " + std::to_string(id) + " before layer " +
                               std::to_string(by) + " computes it");
      }
    }
  }
  return Status::OK();
}

Status ErasureCodeLrc::init(Profile& profile) {
  bool generated = false;
  std::vector<lrc::RuleStep> steps = {{"chooseleaf", "host", 0}};
  EC_RETURN_IF_ERROR(lrc::ParseKml(profile, &generated, &steps));
  parse_mapping(profile);
  EC_RETURN_IF_ERROR(lrc::ParseRuleSteps(profile, &steps));
  Result<std::vector<lrc::LayerSpec>> specs = lrc::ParseLayers(profile);
  if (!specs.ok()) return specs.status();
  const std::string description = profile.at("layers");
  std::vector<Layer> layers;
  EC_RETURN_IF_ERROR(init_layers(*specs, &layers));

  auto mapping_it = profile.find("mapping");
  if (mapping_it == profile.end()) {
    return lrc::LrcStatus(lrc::LrcError::kMapping,
                          "the 'mapping' profile is missing from " + ProfileToString(profile));
  }
  const std::string mapping = mapping_it->second;
  const auto data_count = static_cast<unsigned>(std::count(mapping.begin(), mapping.end(), 'D'));
  if (layers.empty()) {
    return lrc::LrcStatus(
        lrc::LrcError::kLayersCount,
        "layers parameter has 0 which is less than the minimum of one. " + description);
  }
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string& map = layers[i].chunks_map;
    if (map.size() != mapping.size()) {
      return lrc::LrcStatus(lrc::LrcError::kMappingSize,
                            "the first element of the array at position " + std::to_string(i) +
                                " (starting from zero)  is the string '" + map +
                                " found in the layers parameter " + description +
                                ". It is expected to be " + std::to_string(mapping.size()) +
                                " characters long but is " + std::to_string(map.size()) +
                                " characters long instead ");
    }
  }
  if (data_count == 0) return Status::Invalid("mapping " + mapping + " has no data chunk ('D')");
  EC_RETURN_IF_ERROR(check_layers(mapping, layers));

  if (generated) {
    profile.erase("mapping");
    profile.erase("layers");
  }
  EC_RETURN_IF_ERROR(init_base(profile));
  k_ = data_count;
  m_ = static_cast<unsigned>(mapping.size()) - data_count;
  layers_ = std::move(layers);
  shapes_.clear();
  for (const Layer& layer : layers_) {
    lrc::LayerShape shape;
    shape.chunks = layer.data;
    shape.chunks.insert(shape.chunks.end(), layer.coding.begin(), layer.coding.end());
    shape.k = static_cast<unsigned>(layer.data.size());
    shapes_.push_back(std::move(shape));
  }
  rule_steps_ = std::move(steps);
  profile_ = profile;
  return Status::OK();
}

std::size_t ErasureCodeLrc::get_minimum_granularity() const {
  // Each layer's parity windows hold for its own chunks; chained, windows of the lcm hold for all.
  std::size_t g = 1;
  for (const Layer& layer : layers_) {
    const std::size_t lg = layer.code->get_minimum_granularity();
    if (lg == 0) return 0;
    g = std::lcm(g, lg);
  }
  return layers_.empty() ? 0 : g;
}

unsigned ErasureCodeLrc::get_chunk_size(unsigned stripe_width) const {
  return layers_.empty() ? 0 : layers_.front().code->get_chunk_size(stripe_width);
}

Result<SubChunkPlan> ErasureCodeLrc::minimum_to_decode(const ShardSet& want,
                                                       const ShardSet& available) const {
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(available, "available"));
  std::map<int, int> costs;
  for (int id : available) costs[id] = 1;
  Result<ShardSet> reads = lrc::ChooseReads(shapes_, want, costs);
  if (!reads.ok()) return reads.status();
  SubChunkPlan plan;
  for (int id : *reads) plan[id] = {{0, 1}};
  return plan;
}

Result<ShardSet> ErasureCodeLrc::cheapest_to_decode(const ShardSet& want,
                                                    const std::map<int, int>& available) const {
  return lrc::ChooseReads(shapes_, want, available);
}

Status ErasureCodeLrc::encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const {
  std::size_t length = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &length));
  const unsigned n = get_chunk_count();
  std::map<int, std::span<const std::byte>> known;
  for (const auto& [id, span] : in)
    if (piece_index(id) < static_cast<int>(k_)) known[id] = span;
  for (const auto& [id, span] : out) {
    if (piece_index(id) < static_cast<int>(k_)) {
      return Status::Invalid("encode_chunks: chunk " + std::to_string(id) +
                             " is a data chunk, not a parity");
    }
  }
  // Parity buffers: the caller's, or scratch for those it does not want.
  std::map<int, std::span<std::byte>> parity;
  Buffer scratch =
      Buffer::Allocate(length * (n - k_ - std::min<std::size_t>(out.size(), n - k_)), false);
  std::size_t used = 0;
  for (unsigned i = k_; i < n; ++i) {
    const int id = chunk_index(i);
    auto it = out.find(id);
    if (it != out.end()) {
      parity[id] = it->second;
    } else {
      parity[id] = std::span<std::byte>(scratch.data() + used * length, length);
      ++used;
    }
  }
  // A chunk no layer computes is zeros (a profile may leave one out).
  std::vector<bool> computed(n, false);
  for (const Layer& layer : layers_)
    for (int id : layer.coding) computed[static_cast<std::size_t>(id)] = true;
  for (auto& [id, span] : parity)
    if (!computed[static_cast<std::size_t>(id)]) std::memset(span.data(), 0, span.size());

  for (const Layer& layer : layers_) {
    ConstChunkSpans sub_in;
    ChunkSpans sub_out;
    for (std::size_t j = 0; j < layer.data.size(); ++j) {
      auto it = known.find(layer.data[j]);
      if (it != known.end()) sub_in[SubId(*layer.code, j)] = it->second;
    }
    for (std::size_t j = 0; j < layer.coding.size(); ++j)
      sub_out[SubId(*layer.code, layer.data.size() + j)] = parity.at(layer.coding[j]);
    Status s = layer.code->encode_chunks(sub_in, sub_out);
    if (!s.ok()) return s.WithPrefix("lrc layer '" + layer.chunks_map + "'");
    for (int id : layer.coding) known[id] = parity.at(id);
  }
  return Status::OK();
}

Status ErasureCodeLrc::decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                                     const ChunkSpans& out) const {
  std::size_t length = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &length));
  for (int id : want) {
    if (!in.count(id) && !out.count(id)) {
      return Status::Invalid("decode_chunks: wanted chunk " + std::to_string(id) +
                             " has no buffer");
    }
  }
  ShardSet known, targets;
  for (const auto& [id, span] : in) known.insert(id);
  for (const auto& [id, span] : out) targets.insert(id);
  auto steps = lrc::ScheduleDecode(shapes_, known, targets);
  if (!steps.ok()) return steps.status();

  std::map<int, std::span<const std::byte>> have(in.begin(), in.end());
  std::map<int, std::span<std::byte>> dest(out.begin(), out.end());
  std::size_t extra = 0;
  for (const lrc::LayerStep& step : *steps)
    for (int id : step.rebuilt)
      if (!dest.count(id)) ++extra;
  Buffer scratch = Buffer::Allocate(length * extra, false);
  std::size_t used = 0;
  for (const lrc::LayerStep& step : *steps) {
    for (int id : step.rebuilt) {
      if (!dest.count(id))
        dest[id] = std::span<std::byte>(scratch.data() + length * used++, length);
    }
  }

  for (const lrc::LayerStep& step : *steps) {
    const Layer& layer = layers_[static_cast<std::size_t>(step.layer)];
    const std::vector<int>& chunks = shapes_[static_cast<std::size_t>(step.layer)].chunks;
    ShardSet sub_want;
    ConstChunkSpans sub_in;
    ChunkSpans sub_out;
    for (std::size_t j = 0; j < chunks.size(); ++j) {
      const int id = chunks[j];
      const int sub = SubId(*layer.code, j);
      if (step.inputs.count(id)) {
        sub_in[sub] = have.at(id);
      } else {
        sub_out[sub] = dest.at(id);
        sub_want.insert(sub);
      }
    }
    Status s = layer.code->decode_chunks(sub_want, sub_in, sub_out);
    if (!s.ok()) return s.WithPrefix("lrc layer '" + layer.chunks_map + "'");
    for (int id : step.rebuilt) have[id] = dest.at(id);
  }
  return Status::OK();
}

}  // namespace ec
