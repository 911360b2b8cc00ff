#include "tools/ec_tool/code_loader.h"

#include <algorithm>
#include <cerrno>
#include <limits>

#include "ec/plugin.h"

namespace ectool {

std::string PluginDirectory(const std::string& override_dir) {
  return override_dir.empty() ? ec::PluginRegistry::default_directory() : override_dir;
}

ec::Result<LoadedCode> LoadCode(std::string_view profile_text, const std::string& plugin_dir) {
  ec::Result<ec::Profile> parsed = ec::ParseProfile(profile_text);
  if (!parsed.ok()) return parsed.status().WithPrefix("invalid profile");
  auto plugin = parsed->find("plugin");
  if (plugin == parsed->end() || plugin->second.empty()) {
    return ec::Status::Invalid("invalid profile: plugin not specified");
  }
  std::string name = plugin->second;
  return LoadCode(name, std::move(parsed.value()), plugin_dir);
}

ec::Result<LoadedCode> LoadCode(const std::string& plugin, ec::Profile profile,
                                const std::string& plugin_dir) {
  LoadedCode loaded;
  ec::Status s = ec::PluginRegistry::instance().factory(plugin, plugin_dir, profile, &loaded.code);
  if (!s.ok()) return s.WithPrefix("invalid profile");
  loaded.profile = std::move(profile);
  return loaded;
}

std::size_t ParsePositive(std::string_view text, std::size_t max) {
  if (text.empty() || text.size() > 19) return 0;
  std::size_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return 0;
    value = value * 10 + static_cast<std::size_t>(c - '0');
  }
  return value <= max ? value : 0;
}

ec::Result<StripeLayout> MakeStripeLayout(const ec::ErasureCodeInterface& code,
                                          std::string_view stripe_unit_text) {
  StripeLayout layout;
  layout.k = code.get_data_chunk_count();
  layout.chunk_count = code.get_chunk_count();
  constexpr std::size_t kMaxWidth = std::numeric_limits<unsigned>::max();
  std::size_t su = ParsePositive(stripe_unit_text, std::numeric_limits<std::size_t>::max());
  if (su == 0) return ec::Status::Invalid("invalid stripe unit");
  if (layout.k == 0 || su > kMaxWidth / layout.k) {
    return ec::Status::Invalid("invalid stripe unit: k * stripe_unit is too large");
  }
  layout.stripe_unit = su;
  layout.stripe_width = su * layout.k;
  const std::size_t chunk = code.get_chunk_size(static_cast<unsigned>(layout.stripe_width));
  if (chunk != su) {
    return ec::Status::Invalid("invalid stripe unit: the plugin rounds it up to " +
                               std::to_string(chunk));
  }

  // Data piece i lives in chunk mapping[i]; the remaining entries are the parities, in order.
  const std::vector<int>& mapping = code.get_chunk_mapping();
  std::vector<int> order(layout.chunk_count);
  for (unsigned i = 0; i < layout.chunk_count; ++i) {
    order[i] = i < mapping.size() ? mapping[i] : static_cast<int>(i);
  }
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned i = 0; i < layout.chunk_count; ++i) {
    if (sorted[i] != static_cast<int>(i)) {
      return ec::Status::Invalid("the plugin's chunk mapping is not a permutation of 0.." +
                                 std::to_string(layout.chunk_count - 1));
    }
  }
  layout.data_ids.assign(order.begin(), order.begin() + layout.k);
  layout.parity_ids.assign(order.begin() + layout.k, order.end());
  return layout;
}

ec::Result<ec::ShardSet> ParseShardList(std::string_view text, unsigned chunk_count) {
  ec::ShardSet shards;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view piece = text.substr(pos, end - pos);
    pos = end + 1;
    if (piece.empty()) continue;
    bool digits = piece.size() <= 9 && std::all_of(piece.begin(), piece.end(),
                                                   [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      return ec::Status::Invalid("invalid shard '" + std::string(piece) + "': not a number");
    }
    int id = std::stoi(std::string(piece));
    if (static_cast<unsigned>(id) >= chunk_count) {
      return ec::Status::Invalid("invalid shard " + std::to_string(id) + ": out of range [0," +
                                 std::to_string(chunk_count) + ")");
    }
    shards.insert(id);
  }
  if (shards.empty()) return ec::Status::Invalid("no shard given");
  return shards;
}

}  // namespace ectool
