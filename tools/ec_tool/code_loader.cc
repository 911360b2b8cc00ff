#include "tools/ec_tool/code_loader.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <limits>

#include "ec/plugin.h"

namespace ec::tools::ec_tool {

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

std::uint64_t ParseSize(std::string_view text, std::uint64_t max) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 19) return 0;
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < digits; ++i)
    value = value * 10 + static_cast<std::uint64_t>(text[i] - '0');
  std::string unit;
  for (char c : text.substr(digits))
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const char* const kPrefixes = "kmgtpe";
  int shift = 0;
  if (!unit.empty() && unit != "b") {
    const char* p = std::strchr(kPrefixes, unit[0]);
    const std::string rest = unit.substr(1);
    if (p == nullptr || unit[0] == '\0' ||
        !(rest.empty() || rest == "b" || rest == "i" || rest == "ib")) {
      return 0;
    }
    shift = 10 * static_cast<int>(p - kPrefixes + 1);
  }
  if (value > (max >> shift)) return 0;
  return value << shift;
}

ec::Result<ec::StripeLayout> MakeStripeLayout(const ec::ErasureCodeInterface& code,
                                              std::string_view stripe_unit_text) {
  const std::uint64_t su = ParseSize(stripe_unit_text, std::numeric_limits<std::uint64_t>::max());
  if (su == 0) return ec::Status::Invalid("invalid stripe unit");
  return ec::StripeLayout::Make(code, su);
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

}  // namespace ec::tools::ec_tool
