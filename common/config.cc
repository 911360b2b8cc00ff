// Loading an OsdConfig: Ceph-style INI text -> Boost.PropertyTree -> layered settings -> typed
// struct. PropertyTree's INI reader does the parsing; a light pass before it only does what that
// reader cannot: Ceph's option spellings ("osd data"), comments at the end of a line, quoted
// values, and remembering the line of every section and key for error messages.
#include "common/config.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <boost/property_tree/ini_parser.hpp>
#include <boost/property_tree/ptree.hpp>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace ec {
namespace {

constexpr std::size_t kMaxConfigBytes = 1 << 20;

// Layers in increasing precedence: the file's sections, etcd's (config.h: MonSetting), --set.
// A daemon's file layers are [global], [osd], [osd.N]; a client's [global], [client],
// [client.ID] (in the kOsd and kOsdId slots: its type's section and its own).
enum Layer { kGlobal, kOsd, kOsdId, kMonGlobal, kMonOsd, kMonOsdId, kOverride, kNumLayers };

// Ceph's name of a layer's source (`config show`'s SOURCE).
const char* LevelOf(int layer) {
  if (layer < kMonGlobal) return "file";
  return layer < kOverride ? "mon" : "cmdline";
}
// The osd_id of a client's configuration: only [global] applies.
constexpr int kClientId = -1;

struct Setting {
  std::string value;
  std::string origin;  // "[osd]", "--set", ...
  std::string where;   // "FILE:LINE: " or "--set: ", the prefix of error messages
};

using LayerMap = std::map<std::string, Setting, std::less<>>;

struct Prepared {
  std::string text;  // what PropertyTree reads; one output line per input line
  std::map<std::pair<std::string, std::string>, int> key_lines;
  std::map<std::string, int> section_lines;
};

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

std::string_view TrimBlanks(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

bool IsComment(std::string_view s) {
  return !s.empty() && (s[0] == '#' || s[0] == ';');
}

// Returns the osd id of "osd.N", -1 for "global"/"osd" style names, nullopt for anything else.
std::optional<int> SectionOsdId(std::string_view name) {
  if (name == "global" || name == "osd") return -1;
  if (name.substr(0, 4) != "osd." || name.size() == 4) return std::nullopt;
  std::string_view digits = name.substr(4);
  if (digits.size() > 1 && digits[0] == '0') return std::nullopt;
  int id = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec != std::errc() || p != digits.data() + digits.size() || id < 0) return std::nullopt;
  return id;
}

// Whether `name` is "client" or "client.ID" (ID: letters, digits, '_', '-', '.').
bool IsClientSection(std::string_view name) {
  if (name == "client") return true;
  if (name.substr(0, 7) != "client." || name.size() == 7) return false;
  return std::all_of(name.begin() + 7, name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
}

bool IsSection(std::string_view name) {
  return SectionOsdId(name).has_value() || IsClientSection(name);
}

constexpr std::string_view kSections = "[global], [osd], [osd.N], [client] or [client.ID]";

// A value without its trailing comment; a value in double quotes may hold '#' and ';' (and \" or
// \\ escapes).
Result<std::string> StripValue(std::string_view v) {
  v = TrimBlanks(v);
  if (v.empty() || v[0] != '"') {
    const std::size_t cut = v.find_first_of("#;");
    return std::string(TrimBlanks(v.substr(0, cut)));
  }
  std::string out;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) {
      out.push_back(v[++i]);
    } else if (v[i] == '"') {
      std::string_view rest = TrimBlanks(v.substr(i + 1));
      if (!rest.empty() && !IsComment(rest)) {
        return Status::Invalid("unexpected text after the closing quote");
      }
      return out;
    } else {
      out.push_back(v[i]);
    }
  }
  return Status::Invalid("unterminated quote");
}

Result<Prepared> Prenormalise(std::string_view text, std::string_view origin) {
  Prepared out;
  std::string current;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = TrimBlanks(text.substr(pos, nl - pos));
    pos = nl + 1;
    ++line_no;
    const std::string where = fmt::format("{}:{}: ", origin, line_no);
    if (line.empty() || IsComment(line)) {
      out.text += '\n';
      continue;
    }
    if (line[0] == '[') {
      const std::size_t end = line.find(']');
      if (end == std::string_view::npos) {  // PropertyTree reports it, with the line
        out.text.append(line).append("\n");
        continue;
      }
      std::string_view rest = TrimBlanks(line.substr(end + 1));
      if (!rest.empty() && !IsComment(rest)) {
        return Status::Invalid(where + "unexpected text after the section header");
      }
      current = std::string(TrimBlanks(line.substr(1, end - 1)));
      if (!IsSection(current)) {
        return Status::Invalid(
            fmt::format("{}unknown section [{}] (expected {})", where, current, kSections));
      }
      out.section_lines.emplace(current, line_no);
      out.text += fmt::format("[{}]\n", current);
      continue;
    }
    const std::size_t eq = line.find('=');
    if (eq == std::string_view::npos) {  // PropertyTree reports it
      out.text.append(line).append("\n");
      continue;
    }
    const std::string key = NormaliseOptionName(line.substr(0, eq));
    if (current.empty() && !key.empty()) {
      return Status::Invalid(
          fmt::format("{}option '{}' outside of a section ({})", where, key, kSections));
    }
    Result<std::string> value = StripValue(line.substr(eq + 1));
    if (!value.ok()) {
      return Status::Invalid(
          fmt::format("{}option '{}': {}", where, key, value.status().message()));
    }
    out.key_lines.emplace(std::make_pair(current, key), line_no);
    out.text += fmt::format("{}={}\n", key, *value);
  }
  return out;
}

// A validated value in each representation an option type needs.
struct Typed {
  std::int64_t i = 0;
  std::uint64_t u = 0;
  bool b = false;
  std::chrono::milliseconds d{0};
  std::string s;
};

Result<Typed> ParseTyped(const OptionSpec& spec, std::string_view text) {
  Typed t;
  // A file's line cannot hold them; a value from etcd or a command line must not either.
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return Status::Invalid("control characters are not allowed");
  }
  switch (spec.type) {
    case OptionType::kString:
      t.s = std::string(text);
      return t;
    case OptionType::kInt: {
      auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), t.i);
      if (ec != std::errc() || p != text.data() + text.size() || text.empty()) {
        return Status::Invalid("not an integer");
      }
      if (t.i < spec.min || t.i > spec.max) {
        return Status::Invalid(fmt::format("out of range [{}, {}]", spec.min, spec.max));
      }
      return t;
    }
    case OptionType::kSize: {
      Result<std::uint64_t> v = ParseSize(text);
      if (!v.ok()) return v.status();
      const auto min = static_cast<std::uint64_t>(spec.min);
      const auto max = static_cast<std::uint64_t>(spec.max);
      if (*v < min || *v > max) {
        return Status::Invalid(
            fmt::format("out of range [{}, {}]", FormatSize(min), FormatSize(max)));
      }
      t.u = *v;
      return t;
    }
    case OptionType::kBandwidth: {
      Result<std::uint64_t> v = ParseBandwidth(text);
      if (!v.ok()) return v.status();
      const auto min = static_cast<std::uint64_t>(spec.min);
      const auto max = static_cast<std::uint64_t>(spec.max);
      if (*v < min || *v > max) {
        return Status::Invalid(
            fmt::format("out of range [{}, {}]", FormatBandwidth(min), FormatBandwidth(max)));
      }
      t.u = *v;
      return t;
    }
    case OptionType::kBool: {
      Result<bool> v = ParseBool(text);
      if (!v.ok()) return v.status();
      t.b = *v;
      return t;
    }
    case OptionType::kDuration: {
      Result<std::chrono::milliseconds> v = ParseDuration(text);
      if (!v.ok()) return v.status();
      if (v->count() < spec.min || v->count() > spec.max) {
        return Status::Invalid(
            fmt::format("out of range [{}, {}] s", spec.min / 1000.0, spec.max / 1000.0));
      }
      t.d = *v;
      return t;
    }
    case OptionType::kRanges: {
      Result<ByteRanges> v = ParseByteRanges(text);
      if (!v.ok()) return v.status();
      t.s = std::string(text);
      return t;
    }
    case OptionType::kAddr: {
      const std::string s(text);
      std::array<unsigned char, 16> buf{};
      if (inet_pton(AF_INET, s.c_str(), buf.data()) != 1 &&
          inet_pton(AF_INET6, s.c_str(), buf.data()) != 1) {
        return Status::Invalid("not an IPv4 or IPv6 address");
      }
      t.s = s;
      return t;
    }
    case OptionType::kEnum: {
      std::string_view choices = spec.choices;
      while (!choices.empty()) {
        const std::size_t bar = choices.find('|');
        std::string_view choice = choices.substr(0, bar);
        if (choice == text) {
          t.s = std::string(choice);
          return t;
        }
        choices = bar == std::string_view::npos ? std::string_view() : choices.substr(bar + 1);
      }
      return Status::Invalid(fmt::format("expected one of {}", spec.choices));
    }
  }
  return Status::Invalid("unknown option type");
}

// Expands $var / ${var} in string options. `resolved` holds the final settings; `stack` the
// options being expanded, to refuse reference loops.
class Expander {
 public:
  Expander(const std::map<std::string, Setting>& settings, int osd_id, std::string client_id)
      : settings_(settings), osd_id_(osd_id), client_id_(std::move(client_id)) {}

  Result<std::string> Expand(const std::string& option) {
    if (auto it = done_.find(option); it != done_.end()) return it->second;
    if (std::find(stack_.begin(), stack_.end(), option) != stack_.end()) {
      std::string path;
      for (const std::string& s : stack_) path += "$" + s + " -> ";
      return Status::Invalid(fmt::format("reference loop {}${}", path, option));
    }
    stack_.push_back(option);
    Result<std::string> r = ExpandText(settings_.at(option).value);
    stack_.pop_back();
    if (!r.ok()) {
      // Named once, by the outermost option: the one whose value the caller asked for.
      if (!stack_.empty()) return r;
      return Status::Invalid(fmt::format("option '{}' (from {}): {}", option,
                                         settings_.at(option).origin, r.status().message()));
    }
    done_[option] = *r;
    return r;
  }

 private:
  Result<std::string> ExpandText(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '$') {
        out.push_back(text[i]);
        continue;
      }
      if (i + 1 < text.size() && text[i + 1] == '$') {
        out.push_back('$');
        ++i;
        continue;
      }
      std::string name;
      if (i + 1 < text.size() && text[i + 1] == '{') {
        const std::size_t close = text.find('}', i + 2);
        if (close == std::string_view::npos) return Status::Invalid("unterminated '${'");
        name = std::string(text.substr(i + 2, close - i - 2));
        i = close;
      } else {
        std::size_t j = i + 1;
        while (j < text.size() &&
               (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) {
          ++j;
        }
        name = std::string(text.substr(i + 1, j - i - 1));
        i = j - 1;
      }
      Result<std::string> v = Variable(name);
      if (!v.ok()) return v.status();
      out += *v;
    }
    return out;
  }

  Result<std::string> Variable(const std::string& name) {
    const bool client = osd_id_ == kClientId;
    if (name == "id") return client ? client_id_ : std::to_string(osd_id_);
    if (name == "type") return std::string(client ? "client" : "osd");
    if (name == "name") return client ? "client." + client_id_ : fmt::format("osd.{}", osd_id_);
    const OptionSpec* spec = FindOsdOption(name);
    if (name.empty() || spec == nullptr || spec->type != OptionType::kString) {
      return Status::Invalid(fmt::format("unknown variable '${}'", name));
    }
    return Expand(std::string(spec->name));
  }

  const std::map<std::string, Setting>& settings_;
  int osd_id_;
  std::string client_id_;  // a client's id ("admin" of client.admin)
  std::map<std::string, std::string> done_;
  std::vector<std::string> stack_;
};

Status AddSetting(LayerMap& layer, const OptionSpec* spec, std::string_view raw_name,
                  std::string value, std::string origin, std::string where) {
  if (spec == nullptr) {
    const std::string in = origin == "--set" ? "" : " in " + origin;
    return Status::Invalid(
        fmt::format("{}unknown option '{}'{}", where, NormaliseOptionName(raw_name), in));
  }
  if (Result<Typed> t = ParseTyped(*spec, value); !t.ok()) {
    const std::string in = origin == "--set" ? "" : " in " + origin;
    return Status::Invalid(fmt::format("{}bad value '{}' for option '{}'{}: {}", where, value,
                                       spec->name, in, t.status().message()));
  }
  layer[std::string(spec->name)] = Setting{std::move(value), std::move(origin), std::move(where)};
  return Status::OK();
}

Status ReadLayers(std::string_view text, std::string_view origin, int osd_id,
                  const std::string& client_id, std::array<LayerMap, kNumLayers>& layers) {
  Result<Prepared> prepared = Prenormalise(text, origin);
  if (!prepared.ok()) return prepared.status();
  boost::property_tree::ptree tree;
  try {
    std::istringstream in(prepared->text);
    boost::property_tree::ini_parser::read_ini(in, tree);
  } catch (const boost::property_tree::ini_parser_error& e) {
    return Status::Invalid(fmt::format("{}:{}: {}", origin, e.line(), e.message()));
  } catch (const std::exception& e) {
    return Status::Invalid(fmt::format("{}: {}", origin, e.what()));
  }
  for (const auto& [section, keys] : tree) {
    const bool client = osd_id == kClientId;
    Layer layer = kGlobal;
    bool applies = false;
    if (IsClientSection(section)) {
      // A client takes [client] and its own [client.ID]; a daemon neither.
      layer = section == "client" ? kOsd : kOsdId;
      applies = client && (layer == kOsd || section.substr(7) == client_id);
    } else {
      const std::optional<int> id = SectionOsdId(section);
      if (!id) return Status::Invalid(fmt::format("{}: unknown section [{}]", origin, section));
      layer = section == "global" ? kGlobal : section == "osd" ? kOsd : kOsdId;
      // A client takes only [global] of these.
      applies = client ? layer == kGlobal : (layer != kOsdId || *id == osd_id);
    }
    LayerMap ignored;
    for (const auto& [key, value] : keys) {
      const auto line = prepared->key_lines.find({section, key});
      const std::string where =
          fmt::format("{}:{}: ", origin, line == prepared->key_lines.end() ? 0 : line->second);
      EC_RETURN_IF_ERROR(AddSetting(applies ? layers[layer] : ignored, FindOsdOption(key), key,
                                    value.data(), fmt::format("[{}]", section), where));
    }
  }
  return Status::OK();
}

Result<OsdConfig> Resolve(const std::array<LayerMap, kNumLayers>& layers, int osd_id,
                          const std::string& client_id) {
  std::map<std::string, Setting> settings;
  std::map<std::string, OsdConfig::Source> sources;
  for (const OptionSpec& spec : OsdOptionTable()) {
    Setting s{std::string(spec.default_value), "default", ""};
    OsdConfig::Source source{"", "default", "default", {}};
    for (int l = kNumLayers - 1; l >= 0; --l) {
      auto it = layers[l].find(spec.name);
      if (it == layers[l].end()) continue;
      if (source.level == "default") {
        s = it->second;
        source.level = LevelOf(l);
      } else if (LevelOf(l) != source.level &&
                 (source.overrides.empty() || source.overrides.back().first != LevelOf(l))) {
        source.overrides.emplace_back(LevelOf(l), it->second.value);
      }
    }
    std::reverse(source.overrides.begin(), source.overrides.end());
    sources.emplace(std::string(spec.name), std::move(source));
    if (spec.add_osd_id && s.origin == "default") {
      Result<Typed> base = ParseTyped(spec, s.value);  // a constant of the table: always parses
      const std::int64_t v = (base.ok() ? base->i : 0) + osd_id;
      if (v > spec.max) {
        return Status::Invalid(fmt::format(
            "option '{}': the default {} + osd id {} = {} is out of range; set it explicitly",
            spec.name, spec.default_value, osd_id, v));
      }
      s.value = std::to_string(v);
    }
    settings.emplace(std::string(spec.name), std::move(s));
  }

  Expander expander(settings, osd_id, client_id);
  OsdConfig c;
  c.osd_id = osd_id;
  std::map<std::string, Typed> typed;
  for (const OptionSpec& spec : OsdOptionTable()) {
    const std::string name(spec.name);
    Setting& s = settings.at(name);
    std::string text = s.value;
    if (spec.type == OptionType::kString) {
      Result<std::string> e = expander.Expand(name);
      if (!e.ok()) return Status::Invalid(s.where + e.status().message());
      text = *e;
    }
    Result<Typed> t = ParseTyped(spec, text);
    if (!t.ok()) {  // only a default can get here; a table test keeps them valid
      return Status::Invalid(fmt::format("{}bad value '{}' for option '{}': {}", s.where, text,
                                         name, t.status().message()));
    }
    typed.emplace(name, *t);
    OsdConfig::Source& source = sources.at(name);
    source.value = text;
    source.origin = s.origin;
    c.effective[name] = std::move(source);
  }

  c.cluster = typed.at("cluster").s;
  c.osd_data = typed.at("osd_data").s;
  c.bluestore_block_path = typed.at("bluestore_block_path").s;
  c.osd_db_path = typed.at("osd_db_path").s;
  c.bluestore_block_size = typed.at("bluestore_block_size").u;
  c.bluestore_prefer_deferred_size = typed.at("bluestore_prefer_deferred_size").u;
  c.osd_journal_size = static_cast<std::uint64_t>(typed.at("osd_journal_size").i);
  c.osd_io_backend =
      typed.at("osd_io_backend").s == "sync" ? IoBackendKind::kSync : IoBackendKind::kUring;
  c.public_addr = typed.at("public_addr").s;
  c.osd_port = static_cast<std::uint16_t>(typed.at("osd_port").i);
  c.ms_max_message_size = typed.at("ms_max_message_size").u;
  c.ms_max_inflight_per_connection =
      static_cast<std::uint32_t>(typed.at("ms_max_inflight_per_connection").i);
  c.ms_async_op_threads = static_cast<std::uint32_t>(typed.at("ms_async_op_threads").i);
  c.osd_op_num_threads = static_cast<std::uint32_t>(typed.at("osd_op_num_threads").i);
  c.osd_inline_read_max_size = typed.at("osd_inline_read_max_size").u;
  c.osd_inline_write_max_size = typed.at("osd_inline_write_max_size").u;
  c.ms_handshake_timeout = typed.at("ms_handshake_timeout").d;
  c.ms_connection_idle_timeout = typed.at("ms_connection_idle_timeout").d;
  c.log_file = typed.at("log_file").s;
  c.log_level = typed.at("log_level").s;
  c.osd_metrics_enabled = typed.at("osd_metrics_enabled").b;
  c.osd_metrics_addr = typed.at("osd_metrics_addr").s;
  c.osd_metrics_port = static_cast<std::uint16_t>(typed.at("osd_metrics_port").i);
  c.etcd_endpoints = typed.at("etcd_endpoints").s;
  c.etcd_prefix = typed.at("etcd_prefix").s;
  c.etcd_op_timeout = typed.at("etcd_op_timeout").d;
  c.etcd_ca_file = typed.at("etcd_ca_file").s;
  c.etcd_cert_file = typed.at("etcd_cert_file").s;
  c.etcd_key_file = typed.at("etcd_key_file").s;
  c.etcd_user = typed.at("etcd_user").s;
  c.etcd_password_file = typed.at("etcd_password_file").s;
  c.auth_cluster_required = typed.at("auth_cluster_required").s;
  c.keyring = typed.at("keyring").s;
  c.host = typed.at("host").s;
  c.osd_heartbeat_grace = typed.at("osd_heartbeat_grace").d;
  c.osd_heartbeat_interval = typed.at("osd_heartbeat_interval").d;
  c.mon_osd_min_down_reporters = static_cast<int>(typed.at("mon_osd_min_down_reporters").i);
  c.mon_osd_reporter_subtree_level = typed.at("mon_osd_reporter_subtree_level").s;
  c.osd_max_markdown_count = static_cast<int>(typed.at("osd_max_markdown_count").i);
  c.osd_max_markdown_period = typed.at("osd_max_markdown_period").d;
  c.mon_osd_down_out_interval = typed.at("mon_osd_down_out_interval").d;
  c.osd_mon_role = typed.at("osd_mon_role").b;
  c.osd_pool_default_flag_ec_optimizations = typed.at("osd_pool_default_flag_ec_optimizations").b;
  c.osd_pool_default_size = static_cast<int>(typed.at("osd_pool_default_size").i);
  c.osd_pool_default_min_size = static_cast<int>(typed.at("osd_pool_default_min_size").i);
  c.osd_pg_op_threads = static_cast<std::uint32_t>(typed.at("osd_pg_op_threads").i);
  c.osd_subop_timeout = typed.at("osd_subop_timeout").d;
  c.osd_read_lease_ms = typed.at("osd_read_lease_ms").d;
  c.bdev_slow_op_ms = std::chrono::milliseconds(typed.at("bdev_slow_op_ms").i);
  c.osd_op_thread_timeout = typed.at("osd_op_thread_timeout").d;
  c.osd_op_thread_suicide_timeout = typed.at("osd_op_thread_suicide_timeout").d;
  c.bdev_inject_read_eio = typed.at("bdev_inject_read_eio").s;
  c.bdev_inject_write_eio = typed.at("bdev_inject_write_eio").s;
  c.bdev_inject_stall_ms = std::chrono::milliseconds(typed.at("bdev_inject_stall_ms").i);
  c.osd_min_size_wait = typed.at("osd_min_size_wait").d;
  c.osd_max_object_size = typed.at("osd_max_object_size").u;
  c.osd_max_backfills = static_cast<std::uint32_t>(typed.at("osd_max_backfills").i);
  c.osd_recovery_max_active = static_cast<std::uint32_t>(typed.at("osd_recovery_max_active").i);
  c.osd_recovery_sleep = typed.at("osd_recovery_sleep").d;
  c.osd_recovery_max_chunk = typed.at("osd_recovery_max_chunk").u;
  c.osd_recovery_max_bytes_per_sec = typed.at("osd_recovery_max_bytes_per_sec").u;
  c.osd_recovery_max_network_bytes_per_sec = typed.at("osd_recovery_max_network_bytes_per_sec").u;
  c.osd_recovery_nice = static_cast<std::uint32_t>(typed.at("osd_recovery_nice").i);
  c.osd_scrub_min_interval = typed.at("osd_scrub_min_interval").d;
  c.osd_deep_scrub_interval = typed.at("osd_deep_scrub_interval").d;
  c.osd_scrub_sleep = typed.at("osd_scrub_sleep").d;
  c.osd_max_scrubs = static_cast<std::uint32_t>(typed.at("osd_max_scrubs").i);
  c.osd_scrub_auto_repair = typed.at("osd_scrub_auto_repair").b;
  c.osd_recovery_op_threads = static_cast<std::uint32_t>(typed.at("osd_recovery_op_threads").i);
  c.osd_repair_pipeline = typed.at("osd_repair_pipeline").s;
  c.osd_network_bandwidth = typed.at("osd_network_bandwidth").u;
  c.osd_mon_report_interval = typed.at("osd_mon_report_interval").d;
  c.osd_read_cost_network_weight =
      static_cast<std::uint32_t>(typed.at("osd_read_cost_network_weight").i);
  c.osd_read_cost_device_weight =
      static_cast<std::uint32_t>(typed.at("osd_read_cost_device_weight").i);
  return c;
}

Result<OsdConfig> ParseLayers(std::string_view text, std::string_view origin, int osd_id,
                              const std::vector<ConfigOverride>& overrides,
                              const std::vector<MonSetting>& mon,
                              const std::string& client_id = "admin");
Result<OsdConfig> LoadConfigFile(const std::string& path, int osd_id,
                                 const std::vector<ConfigOverride>& overrides,
                                 const std::vector<MonSetting>& mon,
                                 const std::string& client_id = "admin");

}  // namespace

Result<ConfigOverride> ParseConfigOverride(std::string_view text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos || NormaliseOptionName(text.substr(0, eq)).empty()) {
    return Status::Invalid(fmt::format("bad --set '{}': expected name=value", text));
  }
  return ConfigOverride{NormaliseOptionName(text.substr(0, eq)),
                        std::string(TrimBlanks(text.substr(eq + 1)))};
}

Result<OsdConfig> ParseOsdConfig(std::string_view text, std::string_view origin, int osd_id,
                                 const std::vector<ConfigOverride>& overrides,
                                 const std::vector<MonSetting>& mon) {
  if (osd_id < 0) return Status::Invalid(fmt::format("bad osd id {}: must be >= 0", osd_id));
  return ParseLayers(text, origin, osd_id, overrides, mon);
}

bool IsConfigSection(std::string_view name) {
  return SectionOsdId(name).has_value();
}

Status CheckOptionValue(const OptionSpec& spec, std::string_view value) {
  Result<Typed> t = ParseTyped(spec, TrimBlanks(value));
  return t.ok() ? Status::OK() : t.status();
}

std::string ConfigPath(const std::string& flag) {
  if (!flag.empty()) return flag;
  const char* env = std::getenv("EC_CONF");
  return env != nullptr ? std::string(env) : std::string();
}

Result<ClientConfig> LoadClientConfig(const std::string& path,
                                      const std::vector<ConfigOverride>& overrides,
                                      const std::string& client_name) {
  constexpr std::string_view kClientPrefix = "client.";
  if (client_name.size() <= kClientPrefix.size() ||
      client_name.compare(0, kClientPrefix.size(), kClientPrefix) != 0) {
    return Status::Invalid(fmt::format("bad client name '{}': expected client.ID", client_name));
  }
  auto all =
      LoadConfigFile(path, kClientId, overrides, {}, client_name.substr(kClientPrefix.size()));
  if (!all.ok()) return all.status();
  ClientConfig c;
  c.auth_cluster_required = std::move(all->auth_cluster_required);
  c.keyring = std::move(all->keyring);
  c.etcd_endpoints = std::move(all->etcd_endpoints);
  c.etcd_prefix = std::move(all->etcd_prefix);
  c.etcd_op_timeout = all->etcd_op_timeout;
  c.etcd_ca_file = std::move(all->etcd_ca_file);
  c.etcd_cert_file = std::move(all->etcd_cert_file);
  c.etcd_key_file = std::move(all->etcd_key_file);
  c.etcd_user = std::move(all->etcd_user);
  c.etcd_password_file = std::move(all->etcd_password_file);
  c.osd_pool_default_flag_ec_optimizations = all->osd_pool_default_flag_ec_optimizations;
  c.osd_pool_default_size = all->osd_pool_default_size;
  c.osd_pool_default_min_size = all->osd_pool_default_min_size;
  return c;
}

Result<OsdConfig> LoadOsdConfig(const std::string& path, int osd_id,
                                const std::vector<ConfigOverride>& overrides,
                                const std::vector<MonSetting>& mon) {
  if (osd_id < 0) return Status::Invalid(fmt::format("bad osd id {}: must be >= 0", osd_id));
  return LoadConfigFile(path, osd_id, overrides, mon);
}

namespace {

// The layer of etcd's settings for `who` that applies to daemon `osd_id` (a client takes
// "global" only); nullopt for another daemon's; EINVAL for a `who` that is none of these.
Result<std::optional<Layer>> MonLayer(const std::string& who, int osd_id) {
  const std::optional<int> id = SectionOsdId(who);
  if (!id) return Status::Invalid("not global, osd or osd.N");
  if (who == "global") return std::optional<Layer>(kMonGlobal);
  if (osd_id == kClientId) return std::optional<Layer>();
  if (who == "osd") return std::optional<Layer>(kMonOsd);
  return *id == osd_id ? std::optional<Layer>(kMonOsdId) : std::optional<Layer>();
}

// Adds etcd's settings for this daemon to their layers; one that cannot apply is named in
// `ignored` instead (never an error: a bad value in etcd must not stop a daemon).
void AddMonSettings(const std::vector<MonSetting>& mon, int osd_id,
                    std::array<LayerMap, kNumLayers>& layers, std::vector<std::string>& ignored) {
  for (const MonSetting& m : mon) {
    const std::string name = NormaliseOptionName(m.name);
    const std::string what = fmt::format("config {}/{} = '{}'", m.who, name, m.value);
    Result<std::optional<Layer>> layer = MonLayer(m.who, osd_id);
    if (!layer.ok()) {
      ignored.push_back(what + ": " + layer.status().message());
      continue;
    }
    if (!*layer) continue;  // another daemon's
    const OptionSpec* spec = FindOsdOption(name);
    if (spec == nullptr) {
      ignored.push_back(what + ": unknown option");
      continue;
    }
    if (spec->update == OptionUpdate::kFileOnly) {
      ignored.push_back(what + ": only ecstore.conf and --set may set it");
      continue;
    }
    const std::string value(TrimBlanks(m.value));
    if (Status st = CheckOptionValue(*spec, value); !st.ok()) {
      ignored.push_back(what + ": " + st.message());
      continue;
    }
    layers[**layer][std::string(spec->name)] =
        Setting{value, "mon " + m.who, fmt::format("config {}/{}: ", m.who, spec->name)};
  }
}

Result<OsdConfig> ParseLayers(std::string_view text, std::string_view origin, int osd_id,
                              const std::vector<ConfigOverride>& overrides,
                              const std::vector<MonSetting>& mon, const std::string& client_id) {
  std::array<LayerMap, kNumLayers> layers;
  EC_RETURN_IF_ERROR(ReadLayers(text, origin, osd_id, client_id, layers));
  std::vector<std::string> ignored;
  AddMonSettings(mon, osd_id, layers, ignored);
  for (const ConfigOverride& o : overrides) {
    EC_RETURN_IF_ERROR(
        AddSetting(layers[kOverride], FindOsdOption(o.name), o.name, o.value, "--set", "--set: "));
  }
  Result<OsdConfig> c = Resolve(layers, osd_id, client_id);
  if (c.ok()) c->mon_ignored = std::move(ignored);
  return c;
}

Result<std::string> ReadText(const std::string& path) {
  const auto fail = [&](int err) {
    return Status::Error(err, fmt::format("cannot read config {}: {}", path, std::strerror(err)));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(errno);
  std::string text;
  struct stat st {};
  int err = 0;
  if (::fstat(fd, &st) != 0) {
    err = errno;
  } else if (S_ISDIR(st.st_mode)) {
    err = EISDIR;
  } else {
    char buf[8192];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        err = errno;
        break;
      }
      if (n == 0) break;
      text.append(buf, static_cast<std::size_t>(n));
      if (text.size() > kMaxConfigBytes) {
        ::close(fd);
        return Status::Error(EFBIG, fmt::format("cannot read config {}: larger than {} bytes", path,
                                                kMaxConfigBytes));
      }
    }
  }
  ::close(fd);
  if (err != 0) return fail(err);
  return text;
}

Result<OsdConfig> LoadConfigFile(const std::string& path, int osd_id,
                                 const std::vector<ConfigOverride>& overrides,
                                 const std::vector<MonSetting>& mon, const std::string& client_id) {
  if (path.empty()) {
    return ParseLayers("", "(no config file)", osd_id, overrides, mon, client_id);
  }
  Result<std::string> text = ReadText(path);
  if (!text.ok()) return text.status();
  return ParseLayers(*text, path, osd_id, overrides, mon, client_id);
}

}  // namespace

Result<std::string> ReadConfigText(const std::string& path) {
  return ReadText(path);
}

}  // namespace ec
