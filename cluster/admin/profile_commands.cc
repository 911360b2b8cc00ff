// osd erasure-code-profile set|get|ls|rm: Ceph's OSDMonitor rules and messages.
#include <limits>

#include "cluster/admin/commands.h"
#include "cluster/placement/placement.h"
#include "common/config.h"
#include "ec/plugin.h"

namespace ec::cluster::admin {
namespace {

// Ceph's osd_pool_default_erasure_code_profile: what a `set` starts from unless it names another
// plugin.
ec::Profile DefaultProfile() {
  return {{"plugin", "jerasure"}, {"technique", "reed_sol_van"}, {"k", "2"}, {"m", "2"}};
}

// The profile a `set` proposes: Ceph's parse_erasure_code_profile (the user's keys over the
// default profile when the plugin is the default's, the user's keys alone otherwise), then
// normalised by the plugin and checked as Ceph's normalize_profile does.
Result<ec::Profile> ProposedProfile(const Words& pairs, bool force, const AdminContext& ctx) {
  ec::Profile user;
  for (const std::string& pair : pairs) {
    const std::size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("invalid profile argument '" + pair + "': expected key=value");
    }
    user[pair.substr(0, eq)] = pair.substr(eq + 1);
  }
  ec::Profile profile = DefaultProfile();
  auto plugin = user.find("plugin");
  if (plugin != user.end() && plugin->second != profile["plugin"]) {
    profile = user;
  } else {
    for (const auto& [k, v] : user) profile[k] = v;
  }
  auto domain = profile.find("crush-failure-domain");
  if (domain != profile.end()) {
    Result<FailureDomain> d = ParseFailureDomain(domain->second);
    if (!d.ok()) return d.status();
  }
  Result<ErasureCodeInterfaceRef> code = MakeCode(profile, ctx);
  if (!code.ok()) return code.status();
  if (profile.count("stripe_unit") > 0) {
    Result<std::uint32_t> su = StripeUnitOf(profile, 0);
    if (!su.ok()) return su.status();
    EC_RETURN_IF_ERROR(CheckStripeUnit(**code, *su));
    if (*su % 4096 != 0 && !force) {
      return Status::Invalid(
          "stripe_unit should be a multiple of 4096 bytes for best performance.use --force to "
          "override this check");
    }
  }
  return profile;
}

CommandResult ProfileSet(const Words& args, const AdminContext& ctx) {
  bool force = false;
  Words rest;
  for (const std::string& a : args) {
    if (a == "--force" || a == "--yes-i-really-mean-it") {
      force = true;
    } else {
      rest.push_back(a);
    }
  }
  if (rest.empty()) return UsageError("missing NAME", UsageOf("osd erasure-code-profile set"));
  const std::string name = rest[0];
  Result<ec::Profile> proposed = ProposedProfile(Tail(rest, 1), force, ctx);
  if (!proposed.ok()) return ErrorResult(proposed.status());
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    Plan plan;
    auto existing = map.profiles.find(name);
    if (existing != map.profiles.end()) {
      // Compared after normalising, as Ceph does: a profile stored before the plugin added its
      // defaults equals the same profile set again.
      ec::Profile current = existing->second.profile;
      if (!MakeCode(current, ctx).ok()) current = existing->second.profile;
      if (current == *proposed || existing->second.profile == *proposed) return plan;
      if (!force) {
        return Status::Error(
            EPERM, "will not override erasure code profile " + name +
                       " because the existing profile " + ec::ProfileToString(current) +
                       " is different from the proposed profile " + ec::ProfileToString(*proposed));
      }
    }
    plan.changes.push_back(MapChange::PutProfile(EcProfile{name, *proposed}));
    return plan;
  });
}

CommandResult ProfileGet(const Words& args, const AdminContext& ctx) {
  if (args.size() != 1) return UsageError("expected NAME", UsageOf("osd erasure-code-profile get"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  auto it = map->profiles.find(args[0]);
  if (it == map->profiles.end()) {
    return ErrorResult(Status::NotFound("unknown erasure code profile '" + args[0] + "'"));
  }
  if (ctx.format != Format::kPlain) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : it->second.profile) j[k] = v;
    return Success(DumpJson(j, ctx.format));
  }
  std::string out;
  for (const auto& [k, v] : it->second.profile) out += k + "=" + v + "\n";
  return Success(out);
}

CommandResult ProfileLs(const Words& args, const AdminContext& ctx) {
  if (!args.empty())
    return UsageError("'ls' takes no arguments", UsageOf("osd erasure-code-profile ls"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  if (ctx.format != Format::kPlain) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& [name, p] : map->profiles) j.push_back(name);
    return Success(DumpJson(j, ctx.format));
  }
  std::string out;
  for (const auto& [name, p] : map->profiles) out += name + "\n";
  return Success(out);
}

CommandResult ProfileRm(const Words& args, const AdminContext& ctx) {
  if (args.size() != 1) return UsageError("expected NAME", UsageOf("osd erasure-code-profile rm"));
  const std::string name = args[0];
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    Plan plan;
    if (map.profiles.count(name) == 0) {
      plan.err = "erasure-code-profile " + name + " does not exist";
      return plan;
    }
    // The map refuses it with EBUSY when a pool uses it.
    plan.changes.push_back(MapChange::RemoveProfile(name));
    return plan;
  });
}

}  // namespace

Result<ErasureCodeInterfaceRef> MakeCode(ec::Profile& profile, const AdminContext& ctx) {
  auto plugin = profile.find("plugin");
  if (plugin == profile.end() || plugin->second.empty()) {
    return Status::Invalid(
        "cannot determine the erasure code plugin because there is no 'plugin' entry in the "
        "erasure_code_profile " +
        ec::ProfileToString(profile));
  }
  const std::string dir =
      ctx.plugin_dir.empty() ? ec::PluginRegistry::default_directory() : ctx.plugin_dir;
  const std::string name = plugin->second;
  ErasureCodeInterfaceRef code;
  Status s = ec::PluginRegistry::instance().factory(name, dir, profile, &code);
  if (!s.ok()) return Status::Invalid(s.message());
  return code;
}

Result<std::uint32_t> StripeUnitOf(const ec::Profile& profile, std::uint32_t fallback) {
  auto it = profile.find("stripe_unit");
  if (it == profile.end()) return fallback;
  Result<std::uint64_t> v = ec::ParseSize(it->second);
  if (!v.ok()) {
    return Status::Invalid("could not parse stripe_unit '" + it->second +
                           "': " + v.status().message());
  }
  if (*v > std::numeric_limits<std::uint32_t>::max()) {
    return Status::Invalid("could not parse stripe_unit '" + it->second + "': too large");
  }
  return static_cast<std::uint32_t>(*v);
}

Status CheckStripeUnit(const ErasureCodeInterface& code, std::uint32_t stripe_unit) {
  const unsigned k = code.get_data_chunk_count();
  if (stripe_unit == 0 || stripe_unit > std::numeric_limits<unsigned>::max() / k) {
    return Status::Invalid("stripe_unit " + std::to_string(stripe_unit) + " is out of range");
  }
  const unsigned chunk = code.get_chunk_size(stripe_unit * k);
  if (chunk != stripe_unit) {
    return Status::Invalid("stripe_unit " + std::to_string(stripe_unit) +
                           " does not match ec profile alignment. Would be padded to " +
                           std::to_string(chunk));
  }
  return Status::OK();
}

CommandResult RunProfileCommand(const Words& words, const AdminContext& ctx) {
  const std::string sub = words.empty() ? "" : words[0];
  const Words args = Tail(words, 1);
  if (sub == "set") return ProfileSet(args, ctx);
  if (sub == "get") return ProfileGet(args, ctx);
  if (sub == "ls") return ProfileLs(args, ctx);
  if (sub == "rm") return ProfileRm(args, ctx);
  return UnknownCommand(Prefixed({"osd", "erasure-code-profile"}, words));
}

}  // namespace ec::cluster::admin
