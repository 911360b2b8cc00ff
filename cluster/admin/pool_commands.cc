// osd pool create|ls|rm: Ceph's OSDMonitor rules and messages, for erasure and replicated pools.
#include <charconv>
#include <limits>
#include <optional>

#include "cluster/admin/commands.h"
#include "cluster/map/pool_geometry.h"
#include "ec/stripe_layout.h"

namespace ec::cluster::admin {
namespace {

constexpr std::uint32_t kDefaultStripeUnit = 4096;  // Ceph's osd_pool_erasure_code_stripe_unit
constexpr const char* kDefaultProfileName = "default";
constexpr const char* kPoolRmFlag = "--yes-i-really-really-mean-it";
constexpr const char* kReplicatedRule = "replicated_rule";  // Ceph's default rule, the only one

bool AllDigits(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// A PG count: decimal digits. Errors: EINVAL when not a number; ERANGE outside 1..kMaxPgNum
// (Ceph's message and errno).
Result<std::uint32_t> ParsePgNum(const std::string& name, const std::string& text) {
  if (!AllDigits(text)) {
    return Status::Invalid("invalid " + name + " '" + text + "': not a number");
  }
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || v == 0 || v > kMaxPgNum) {
    return Status::Error(ERANGE, "'" + name +
                                     "' must be greater than 0 and less than or equal to " +
                                     std::to_string(kMaxPgNum));
  }
  return static_cast<std::uint32_t>(v);
}

// Ceph's default erasure-code profile, created with the first pool that asks for it.
EcProfile CephDefaultProfile() {
  return EcProfile{kDefaultProfileName,
                   {{"k", "2"}, {"m", "2"}, {"plugin", "jerasure"}, {"technique", "reed_sol_van"}}};
}

// The pool `name` would be on `profile`: size and min_size from the loaded code, the stripe unit
// checked against its chunk size (Ceph's prepare_pool_stripe_width and normalize_profile rule).
Result<Pool> DesignPool(const std::string& name, std::uint32_t pg_num, const EcProfile& profile,
                        const AdminContext& ctx) {
  ec::Profile normalised = profile.profile;
  Result<ErasureCodeInterfaceRef> code = MakeCode(normalised, ctx);
  if (!code.ok()) {
    return Status::Invalid("erasure-code-profile " + profile.name + ": " + code.status().message());
  }
  Result<std::uint32_t> su = StripeUnitOf(profile.profile, kDefaultStripeUnit);
  if (!su.ok()) return su.status();
  const unsigned k = (*code)->get_data_chunk_count();
  const unsigned chunks = (*code)->get_chunk_count();
  EC_RETURN_IF_ERROR(CheckStripeUnit(**code, *su));
  Result<PoolGeometry> g = GeometryOf(profile.profile);
  if (!g.ok()) return g.status().WithPrefix("erasure-code-profile " + profile.name);
  if (g->size != static_cast<int>(chunks)) {
    return Status::Invalid("erasure-code-profile " + profile.name + ": the plugin makes " +
                           std::to_string(chunks) + " chunks, the profile's keys say " +
                           std::to_string(g->size));
  }
  Pool pool;
  pool.name = name;
  pool.profile = profile.name;
  pool.pg_num = pg_num;
  pool.stripe_unit = *su;
  const unsigned m = chunks - k;
  pool.min_size = static_cast<int>(m > 1 ? k + 1 : k);
  pool.ec_optimizations = PoolDefaultEcOptimizations(ctx);
  // Where each data piece lives, for clients' direct reads (cluster_map.h Pool::data_chunks).
  Result<StripeLayout> layout = StripeLayout::Make(**code, *su);
  if (!layout.ok()) return layout.status().WithPrefix("erasure-code-profile " + profile.name);
  pool.data_chunks = layout->data_ids();
  return pool;
}

// A replicated pool (issue 30): `size` copies (Ceph's "pool size must be between 1 and 10"; 1
// only with --yes-i-really-mean-it, as Ceph's mon_allow_pool_size_one), min_size from the
// config, the default stripe unit (each 4 KiB of an object a "stripe" of the repetition code,
// osd/pg/README.md), data chunk 0.
Result<Pool> DesignReplicatedPool(const std::string& name, std::uint32_t pg_num, int size,
                                  bool size_one_ok, const AdminContext& ctx) {
  if (size < 1 || size > kMaxReplicatedSize) {
    return Status::Invalid("pool size must be between 1 and " + std::to_string(kMaxReplicatedSize));
  }
  if (size == 1 && !size_one_ok) return SizeOneRefused();
  Pool pool;
  pool.name = name;
  pool.type = PoolType::kReplicated;
  pool.size = size;
  pool.pg_num = pg_num;
  pool.stripe_unit = kDefaultStripeUnit;
  pool.min_size = PoolDefaultMinSize(ctx, size);
  pool.data_chunks = {0};
  return pool;
}

// What follows `replicated`: [RULE] [--size N] [--yes-i-really-mean-it], in any order.
struct ReplicatedArgs {
  std::optional<int> size;
  bool size_one_ok = false;
};
Result<ReplicatedArgs> ParseReplicatedArgs(const Words& args, std::size_t i,
                                           const std::string& usage) {
  ReplicatedArgs out;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string value;
    if (a == "--size" && i + 1 < args.size()) {
      value = args[++i];
    } else if (a.starts_with("--size=")) {
      value = a.substr(7);
    } else if (a == kSizeOneFlag) {
      out.size_one_ok = true;
      continue;
    } else if (a == kReplicatedRule) {
      continue;
    } else if (!a.starts_with("-")) {
      return Status::NotFound("specified rule " + a + " doesn't exist (the one rule here is " +
                              kReplicatedRule + ": one copy per host)");
    } else {
      return Status::Invalid("invalid command: unexpected '" + a + "'; usage: " + usage);
    }
    int n = 0;
    auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec != std::errc() || p != value.data() + value.size()) {
      return Status::Invalid("error parsing integer value '" + value + "' for size");
    }
    out.size = n;
  }
  return out;
}

CommandResult PoolCreate(const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf("osd pool create");
  if (args.size() < 2) return UsageError("missing NAME or PG_NUM", usage);
  const std::string name = args[0];
  Result<std::uint32_t> pg_num = ParsePgNum("pg_num", args[1]);
  if (!pg_num.ok()) return ErrorResult(pg_num.status());
  std::size_t i = 2;
  if (i < args.size() && AllDigits(args[i])) {
    Result<std::uint32_t> pgp = ParsePgNum("pgp_num", args[i]);
    if (!pgp.ok()) return ErrorResult(pgp.status());
    if (*pgp != *pg_num) {
      return ErrorResult(Status::Invalid("'pgp_num' must equal 'pg_num' (" +
                                         std::to_string(*pg_num) +
                                         "): placement here always uses every PG"));
    }
    ++i;
  }
  const std::string type = i < args.size() ? args[i++] : "replicated";  // Ceph's default type
  if (type == "replicated" || type.starts_with("--")) {
    if (type != "replicated") --i;  // `create p 8 --size 2`: replicated, Ceph's default
    Result<ReplicatedArgs> r = ParseReplicatedArgs(args, i, usage);
    if (!r.ok()) return ErrorResult(r.status());
    return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
      Plan plan;
      if (map.FindPool(name) != nullptr) {
        plan.err = "pool '" + name + "' already exists";
        return plan;
      }
      Result<Pool> pool = DesignReplicatedPool(
          name, *pg_num, r->size ? *r->size : PoolDefaultSize(ctx), r->size_one_ok, ctx);
      if (!pool.ok()) return pool.status();
      plan.changes.push_back(MapChange::PutPool(*pool));
      plan.err = "pool '" + name + "' created";
      return plan;
    });
  }
  if (type != "erasure") {
    return UsageError("pool type '" + type + "' (expected erasure or replicated)", usage);
  }
  const std::string profile_name = i < args.size() ? args[i++] : kDefaultProfileName;
  if (i < args.size()) return UsageError("too many arguments", usage);

  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    Plan plan;
    if (map.FindPool(name) != nullptr) {
      plan.err = "pool '" + name + "' already exists";
      return plan;
    }
    auto found = map.profiles.find(profile_name);
    EcProfile profile;
    if (found != map.profiles.end()) {
      profile = found->second;
    } else if (profile_name == kDefaultProfileName) {
      profile = CephDefaultProfile();
      plan.changes.push_back(MapChange::PutProfile(profile));
    } else {
      return Status::NotFound("erasure-code-profile " + profile_name + " does not exist");
    }
    Result<Pool> pool = DesignPool(name, *pg_num, profile, ctx);
    if (!pool.ok()) return pool.status();
    plan.changes.push_back(MapChange::PutPool(*pool));
    plan.err = "pool '" + name + "' created";
    return plan;
  });
}

nlohmann::json PoolJson(const ClusterMap& map, const Pool& pool) {
  int size = 0;
  int k = 0;
  Result<PoolGeometry> g = GeometryOfPool(map, pool);
  if (g.ok()) {
    size = g->size;
    k = g->k;
  }
  const bool replicated = pool.type == PoolType::kReplicated;
  return {{"pool_id", pool.id},
          {"pool_name", pool.name},
          {"type", PoolTypeNumber(pool)},
          {"size", size},
          {"min_size", pool.min_size},
          {"pg_num", pool.pg_num},
          {"pg_placement_num", pool.pg_num},
          {"erasure_code_profile", pool.profile},
          {"flags_names", PoolFlagNames(pool)},
          {"ec_min_object_size", pool.ec_min_object_size},
          // Ceph's stripe_width: 0 for a replicated pool.
          {"stripe_width", replicated ? 0 : static_cast<std::uint64_t>(k) * pool.stripe_unit}};
}

CommandResult PoolLs(const Words& args, const AdminContext& ctx) {
  const bool detail = args.size() == 1 && args[0] == "detail";
  if (!args.empty() && !detail) return UsageError("unexpected arguments", UsageOf("osd pool ls"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  if (ctx.format != Format::kPlain) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& [id, pool] : map->pools) {
      if (detail) {
        j.push_back(PoolJson(*map, pool));
      } else {
        j.push_back(pool.name);
      }
    }
    return Success(DumpJson(j, ctx.format));
  }
  std::string out;
  for (const auto& [id, pool] : map->pools) {
    if (!detail) {
      out += pool.name + "\n";
      continue;
    }
    const nlohmann::json p = PoolJson(*map, pool);
    out += "pool " + std::to_string(id) + " '" + pool.name + "' " + PoolKindText(pool) + " size " +
           p["size"].dump() + " min_size " + std::to_string(pool.min_size) + " pg_num " +
           std::to_string(pool.pg_num) + " pgp_num " + std::to_string(pool.pg_num) +
           PoolFlagsText(pool) + " stripe_width " + p["stripe_width"].dump() +
           PoolOptionsText(pool) + "\n";
  }
  return Success(out);
}

CommandResult PoolRm(const Words& args, const AdminContext& ctx) {
  if (args.empty()) return UsageError("missing NAME", UsageOf("osd pool rm"));
  const std::string name = args[0];
  const bool confirmed = args.size() == 3 && args[1] == name && args[2] == kPoolRmFlag;
  if (!confirmed) {
    if (args.size() > 3) return UsageError("too many arguments", UsageOf("osd pool rm"));
    return ErrorResult(Status::Error(
        EPERM, "WARNING: this will *PERMANENTLY DESTROY* all data stored in pool " + name +
                   ".  If you are *ABSOLUTELY CERTAIN* that is what you want, pass the pool name "
                   "*twice*, followed by " +
                   kPoolRmFlag + "."));
  }
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    Plan plan;
    if (map.FindPool(name) == nullptr) {
      plan.err = "pool '" + name + "' does not exist";
      return plan;
    }
    plan.changes.push_back(MapChange::RemovePool(name));
    plan.err = "pool '" + name + "' removed";
    return plan;
  });
}

}  // namespace

std::string PoolFlagNames(const Pool& pool) {
  return pool.ec_optimizations ? "ec_optimizations" : "";
}

std::string PoolFlagsText(const Pool& pool) {
  const std::string names = PoolFlagNames(pool);
  return names.empty() ? "" : " flags " + names;
}

std::string PoolOptionsText(const Pool& pool) {
  if (pool.ec_min_object_size == 0) return "";
  return " ec_min_object_size " + std::to_string(pool.ec_min_object_size);
}

Status SizeOneRefused() {
  return Status::Error(EPERM,
                       "WARNING: setting pool size 1 could lead to data loss without recovery. If "
                       "you are *ABSOLUTELY CERTAIN* that is what you want, pass the flag " +
                           std::string(kSizeOneFlag) + ".");
}

std::string PoolKindText(const Pool& pool) {
  if (pool.type == PoolType::kReplicated) return "replicated";
  return "erasure profile " + pool.profile;
}

int PoolTypeNumber(const Pool& pool) {
  return pool.type == PoolType::kReplicated ? 1 : 3;
}

CommandResult RunPoolCommand(const Words& words, const AdminContext& ctx) {
  const std::string sub = words.empty() ? "" : words[0];
  const Words args = Tail(words, 1);
  if (sub == "create") return PoolCreate(args, ctx);
  if (sub == "ls") return PoolLs(args, ctx);
  if (sub == "rm" || sub == "delete") return PoolRm(args, ctx);
  if (sub == "get" || sub == "set") return RunPoolOptionCommand(sub, args, ctx);
  return UnknownCommand(Prefixed({"osd", "pool"}, words));
}

}  // namespace ec::cluster::admin
