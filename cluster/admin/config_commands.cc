// config set|get|rm|dump|help: the cluster's central config in etcd (cluster/config/config_db.h)
// with Ceph's syntax, checks, messages and JSON (its ConfigMonitor's). `config show` is in
// config_show_commands.cc.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <optional>

#include "cluster/admin/commands.h"
#include "cluster/config/config_db.h"

namespace ec::cluster::admin {
namespace {

// Sections in Ceph's order: global, osd, then osd.N by id.
std::int64_t SectionRank(const std::string& who) {
  if (who == "global") return -2;
  if (who == "osd") return -1;
  return std::strtoll(who.c_str() + 4, nullptr, 10);
}

// The sections whose settings apply to `who`, lowest precedence first.
std::vector<std::string> SectionsOf(const std::string& who) {
  if (who == "global") return {"global"};
  if (who == "osd") return {"global", "osd"};
  return {"global", "osd", who};
}

// What `config dump` and `config get` show of a stored setting's option: its canonical name, its
// level, and whether a running daemon applies a change ("unknown" and false for a name no option
// has: Ceph's stray options).
struct OptionFacts {
  std::string name;
  std::string level;
  bool runtime = false;
};

OptionFacts FactsOf(const std::string& name) {
  const OptionSpec* spec = FindOsdOption(name);
  if (spec == nullptr) return {NormaliseOptionName(name), "unknown", false};
  return {std::string(spec->name), std::string(OptionLevelName(spec->level)),
          spec->update == OptionUpdate::kLive};
}

// Ceph's indentation of WHO in `config dump`.
std::string IndentWho(const std::string& who) {
  if (who == "global") return who;
  return (who == "osd" ? "  " : "    ") + who;
}

TextTable SettingsTable() {
  TextTable t;
  for (const char* h : {"WHO", "MASK", "LEVEL", "OPTION", "VALUE", "RO"}) {
    t.AddColumn(h, TextTable::Align::kLeft);
  }
  return t;
}

Result<ConfigDb> LoadDb(const AdminContext& ctx) {
  if (ctx.store->client() == nullptr) return Status::Invalid("no etcd client");
  Result<ConfigDb> db = LoadConfigDb(*ctx.store->client(), ctx.store->prefix());
  if (!db.ok()) return FromStore(ctx, db.status());
  return db;
}

// The keys that are not settings, named on stderr (Ceph drops them; an operator should see them).
std::string BadKeys(const ConfigDb& db) {
  std::string err;
  for (const std::string& b : db.bad) err += "ignored key " + b + "\n";
  return err;
}

std::string Trimmed(const std::string& s) {
  const std::size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

CommandResult ConfigSet(const Words& args, const AdminContext& ctx) {
  if (args.size() != 3) return UsageError("expected WHO NAME VALUE", UsageOf("config set"));
  const std::string& who = args[0];
  const std::string value = Trimmed(args[2]);
  Result<const OptionSpec*> spec = CheckConfigSet(who, args[1], value);
  if (!spec.ok()) return ErrorResult(spec.status());
  if (ctx.store->client() == nullptr) return ErrorResult(Status::Invalid("no etcd client"));
  Status put = PutConfig(*ctx.store->client(), ctx.store->prefix(), who, (*spec)->name, value);
  if (!put.ok()) return ErrorResult(FromStore(ctx, put));
  // Ceph stores an option that cannot change at runtime without a word; ecstore says when it
  // applies.
  if ((*spec)->update == OptionUpdate::kRestart) {
    const bool one = who.find('.') != std::string::npos;
    return Success("", fmt::format("{} is stored for {} but cannot change at runtime: {} at {} "
                                   "next start",
                                   (*spec)->name, who, one ? who + " takes it" : "daemons take it",
                                   one ? "its" : "their"));
  }
  return Success("");
}

CommandResult ConfigRm(const Words& args, const AdminContext& ctx) {
  if (args.size() != 2) return UsageError("expected WHO NAME", UsageOf("config rm"));
  if (!IsConfigSection(args[0])) {
    return ErrorResult(
        Status::Invalid("unrecognized config target '" + args[0] + "' (global, osd or osd.N)"));
  }
  if (ctx.store->client() == nullptr) return ErrorResult(Status::Invalid("no etcd client"));
  // Any name: a setting of an option this version does not know can be removed too.
  const OptionSpec* spec = FindOsdOption(args[1]);
  const std::string name = spec != nullptr ? std::string(spec->name) : args[1];
  Status del = DeleteConfig(*ctx.store->client(), ctx.store->prefix(), args[0], name);
  if (!del.ok()) return ErrorResult(FromStore(ctx, del));
  return Success("");
}

CommandResult ConfigDump(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'config dump' takes no arguments", UsageOf("config dump"));
  Result<ConfigDb> db = LoadDb(ctx);
  if (!db.ok()) return ErrorResult(db.status());
  std::vector<MonSetting> settings = db->settings;
  std::stable_sort(settings.begin(), settings.end(), [](const MonSetting& a, const MonSetting& b) {
    return std::make_pair(SectionRank(a.who), a.name) < std::make_pair(SectionRank(b.who), b.name);
  });
  if (ctx.format != Format::kPlain) {
    nlohmann::json out = nlohmann::json::array();
    for (const MonSetting& s : settings) {
      const OptionFacts f = FactsOf(s.name);
      out.push_back({{"section", s.who},
                     {"name", f.name},
                     {"value", s.value},
                     {"level", f.level},
                     {"can_update_at_runtime", f.runtime},
                     {"mask", ""}});
    }
    return Success(DumpJson(out, ctx.format), BadKeys(*db));
  }
  TextTable t = SettingsTable();
  for (const MonSetting& s : settings) {
    const OptionFacts f = FactsOf(s.name);
    t.AddRow({IndentWho(s.who), "", f.level, f.name, s.value, f.runtime ? "" : "*"});
  }
  return Success(t.Render(), BadKeys(*db));
}

// The option's default for `who` (an id-based default counts the id of osd.N).
std::string DefaultFor(const OptionSpec& spec, const std::string& who) {
  if (!spec.add_osd_id || who.rfind("osd.", 0) != 0) return std::string(spec.default_value);
  return std::to_string(std::strtoll(std::string(spec.default_value).c_str(), nullptr, 10) +
                        SectionRank(who));
}

CommandResult ConfigGet(const Words& args, const AdminContext& ctx) {
  if (args.empty() || args.size() > 2) {
    return UsageError("expected WHO [NAME]", UsageOf("config get"));
  }
  const std::string& who = args[0];
  if (!IsConfigSection(who)) {
    return ErrorResult(Status::Invalid("unrecognized entity '" + who + "'"));
  }
  const OptionSpec* spec = nullptr;
  if (args.size() == 2) {
    spec = FindOsdOption(args[1]);
    if (spec == nullptr) {
      return ErrorResult(
          Status::NotFound("unrecognized key '" + NormaliseOptionName(args[1]) + "'"));
    }
    if (spec->update == OptionUpdate::kFileOnly) {
      return ErrorResult(
          Status::Invalid(std::string(spec->name) + " is special and cannot be stored by the mon"));
    }
  }
  Result<ConfigDb> db = LoadDb(ctx);
  if (!db.ok()) return ErrorResult(db.status());
  // Option -> the setting in force for `who` (the most specific section), as Ceph's entity map.
  std::map<std::string, MonSetting> in_force;
  for (const std::string& section : SectionsOf(who)) {
    for (const MonSetting& s : db->settings) {
      if (s.who == section) in_force[FactsOf(s.name).name] = s;
    }
  }
  if (spec != nullptr) {
    auto it = in_force.find(std::string(spec->name));
    return Success((it != in_force.end() ? it->second.value : DefaultFor(*spec, who)) + "\n");
  }
  if (ctx.format != Format::kPlain) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [name, s] : in_force) {
      out[name] = {{"value", s.value},
                   {"section", s.who},
                   {"mask", nlohmann::json::object()},
                   {"can_update_at_runtime", FactsOf(name).runtime}};
    }
    return Success(DumpJson(out, ctx.format));
  }
  TextTable t = SettingsTable();
  for (const auto& [name, s] : in_force) {
    const OptionFacts f = FactsOf(name);
    t.AddRow({s.who, "", f.level, name, s.value, f.runtime ? "" : "*"});
  }
  return Success(t.Render());
}

// Ceph's Option::print, and its JSON.
CommandResult ConfigHelp(const Words& args, const AdminContext& ctx) {
  if (args.size() != 1) return UsageError("expected NAME", UsageOf("config help"));
  const OptionSpec* spec = FindOsdOption(args[0]);
  if (spec == nullptr) {
    return ErrorResult(Status::NotFound("configuration option '" + NormaliseOptionName(args[0]) +
                                        "' not recognized"));
  }
  const bool ranged = spec->type == OptionType::kInt || spec->type == OptionType::kSize ||
                      spec->type == OptionType::kDuration || spec->type == OptionType::kBandwidth;
  const auto bound = [&](std::int64_t v) {
    if (spec->type == OptionType::kSize) return FormatSize(static_cast<std::uint64_t>(v));
    if (spec->type == OptionType::kBandwidth) {
      return FormatBandwidth(static_cast<std::uint64_t>(v));
    }
    if (spec->type == OptionType::kDuration) return fmt::format("{}s", v / 1000.0);
    return std::to_string(v);
  };
  const std::string def = spec->add_osd_id ? std::string(spec->default_value) + " + $id"
                                           : std::string(spec->default_value);
  if (ctx.format != Format::kPlain) {
    nlohmann::json j = {{"name", spec->name},
                        {"type", OptionTypeName(spec->type)},
                        {"level", OptionLevelName(spec->level)},
                        {"desc", spec->description},
                        {"default", def},
                        {"can_update_at_runtime", spec->update == OptionUpdate::kLive},
                        {"applies", OptionUpdateName(spec->update)}};
    if (ranged) {
      j["min"] = bound(spec->min);
      j["max"] = bound(spec->max);
    }
    if (spec->type == OptionType::kEnum) j["enum_values"] = spec->choices;
    return Success(DumpJson(j, ctx.format));
  }
  std::string out =
      fmt::format("{} - {}\n  ({}, {})\n  Default: {}\n", spec->name, spec->description,
                  OptionTypeName(spec->type), OptionLevelName(spec->level), def);
  if (spec->type == OptionType::kEnum)
    out += fmt::format("  Possible values:  {}\n", spec->choices);
  if (ranged)
    out += fmt::format("  Minimum: {}\n  Maximum: {}\n", bound(spec->min), bound(spec->max));
  out += fmt::format("  Can update at runtime: {}\n",
                     spec->update == OptionUpdate::kLive ? "true" : "false");
  if (spec->update == OptionUpdate::kFileOnly) out += "  Set only in ecstore.conf or by --set\n";
  return Success(out);
}

}  // namespace

namespace {

// The value the cluster's config sets for `option` in [global], or nullopt (none, or etcd
// cannot say: the file's value stands then).
std::optional<std::string> ClusterGlobalValue(const AdminContext& ctx, const char* option) {
  if (ctx.store->client() == nullptr) return std::nullopt;
  auto kv = ctx.store->client()->Get(ConfigKey(ctx.store->prefix(), "global", option));
  if (!kv.ok()) return std::nullopt;
  return kv->value;
}

// An integer option of the cluster's config in lo..hi, else `fallback`.
int PoolDefaultInt(const AdminContext& ctx, const char* option, int lo, int hi, int fallback) {
  const std::optional<std::string> v = ClusterGlobalValue(ctx, option);
  int n = 0;
  if (!v || v->empty()) return fallback;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  return ec == std::errc() && p == v->data() + v->size() && n >= lo && n <= hi ? n : fallback;
}

}  // namespace

bool PoolDefaultEcOptimizations(const AdminContext& ctx) {
  const std::optional<std::string> v =
      ClusterGlobalValue(ctx, "osd_pool_default_flag_ec_optimizations");
  if (!v) return ctx.osd_pool_default_flag_ec_optimizations;
  Result<bool> b = ParseBool(*v);
  return b.ok() ? *b : ctx.osd_pool_default_flag_ec_optimizations;
}

int PoolDefaultSize(const AdminContext& ctx) {
  return PoolDefaultInt(ctx, "osd_pool_default_size", 1, kMaxReplicatedSize,
                        ctx.osd_pool_default_size);
}

int PoolDefaultMinSize(const AdminContext& ctx, int size) {
  const int set = PoolDefaultInt(ctx, "osd_pool_default_min_size", 0, kMaxReplicatedSize,
                                 ctx.osd_pool_default_min_size);
  return set == 0 ? size - size / 2 : std::min(set, size);
}

CommandResult RunConfigCommand(const Words& words, const AdminContext& ctx) {
  const std::string sub = words.empty() ? "" : words[0];
  const Words args = Tail(words, 1);
  if (sub == "set") return ConfigSet(args, ctx);
  if (sub == "get") return ConfigGet(args, ctx);
  if (sub == "rm") return ConfigRm(args, ctx);
  if (sub == "dump") return ConfigDump(args, ctx);
  if (sub == "help") return ConfigHelp(args, ctx);
  if (sub == "show" || sub == "show-with-defaults") {
    return RunConfigShowCommand(sub == "show-with-defaults", args, ctx);
  }
  return UnknownCommand(Prefixed({"config"}, words));
}

}  // namespace ec::cluster::admin
