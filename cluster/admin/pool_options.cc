// osd pool get NAME OPTION | osd pool set NAME OPTION VALUE: the pool options the map keeps, with
// Ceph's names, output and refusals. min_size can change, and a replicated pool's size (as Ceph:
// copies added or dropped); pg_num is fixed (placement has no PG split or merge), an erasure
// pool's size is its code's k+m, allow_ec_optimizations is fixed at creation (the objects' layout
// depends on it), the profile is the pool's for life (as Ceph). ec_min_object_size (issue 30, an
// erasure pool's small-object class) can change: it applies to objects as they are next written.
#include <algorithm>
#include <cerrno>
#include <charconv>

#include "cluster/admin/commands.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

constexpr const char* kGettable[] = {"size",
                                     "min_size",
                                     "pg_num",
                                     "pgp_num",
                                     "erasure_code_profile",
                                     "allow_ec_optimizations",
                                     "ec_min_object_size"};

// Options that only an erasure pool has: Ceph's EACCES "pool 'p' is not a erasure pool: variable
// not applicable" for a replicated one, which `get all` leaves out.
bool ErasureOnly(const std::string& option) {
  return option == "erasure_code_profile" || option == "allow_ec_optimizations" ||
         option == "ec_min_object_size";
}

// The value of `option` of `pool` as JSON (number, string or bool) for Ceph's get.
nlohmann::json OptionValue(const Pool& pool, const PoolGeometry& g, const std::string& option) {
  if (option == "size") return g.size;
  if (option == "min_size") return pool.min_size;
  if (option == "pg_num" || option == "pgp_num") return pool.pg_num;
  if (option == "erasure_code_profile") return pool.profile;
  if (option == "ec_min_object_size") return pool.ec_min_object_size;
  return pool.ec_optimizations;  // allow_ec_optimizations
}

std::string PlainValue(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

bool Gettable(const std::string& option) {
  for (const char* o : kGettable) {
    if (option == o) return true;
  }
  return false;
}

// Ceph: "size: 6" per option (all: every one, in Ceph's order); JSON {"pool","pool_id",OPTION}.
CommandResult PoolGet(const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf("osd pool get");
  if (args.size() != 2) return UsageError("expected NAME OPTION", usage);
  const std::string& name = args[0];
  const std::string& option = args[1];
  if (option != "all" && !Gettable(option)) {
    return ErrorResult(Status::Invalid("invalid pool option '" + option + "'; expected one of " +
                                       "size, min_size, pg_num, pgp_num, erasure_code_profile, "
                                       "allow_ec_optimizations, ec_min_object_size, all"));
  }
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  const Pool* pool = map->FindPool(name);
  if (pool == nullptr) return ErrorResult(Status::NotFound("unrecognized pool '" + name + "'"));
  Result<PoolGeometry> g = GeometryOfPool(*map, *pool);
  if (!g.ok()) return ErrorResult(g.status());
  const bool replicated = pool->type == PoolType::kReplicated;
  if (replicated && ErasureOnly(option)) {
    return ErrorResult(Status::Error(
        EACCES, "pool '" + pool->name + "' is not a erasure pool: variable not applicable"));
  }
  nlohmann::json j = {{"pool", pool->name}, {"pool_id", pool->id}};
  std::string out;
  for (const char* o : kGettable) {
    if (option != "all" && option != o) continue;
    if (replicated && ErasureOnly(o)) continue;
    const nlohmann::json v = OptionValue(*pool, *g, o);
    j[o] = v;
    out += std::string(o) + ": " + PlainValue(v) + "\n";
  }
  if (ctx.format != Format::kPlain) return Success(DumpJson(j, ctx.format));
  return Success(out);
}

Result<int> ParseInt(const std::string& option, const std::string& text) {
  int v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    return Status::Invalid("error parsing integer value '" + text + "' for " + option);
  }
  return v;
}

// `osd pool set NAME size N [--yes-i-really-mean-it]`. An erasure pool: EPERM (its size is its
// profile's k+m). A replicated pool: Ceph's checks and messages (EINVAL "error parsing integer
// value", "pool size must be between 1 and 10"; EPERM for 1 without the flag), then one epoch
// with the new size and min_size lowered to it when above ("set pool 3 size to 2"). Every PG then
// places N copies: the OSDs of new positions pull theirs from one other copy, moved positions are
// backfilled, and a dropped position's copies stay where they were, unused. ENOENT for an unknown
// pool.
CommandResult SetSize(const std::string& name, const std::string& value, bool size_one_ok,
                      const AdminContext& ctx) {
  Result<int> size = ParseInt("size", value);
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    const Pool* pool = map.FindPool(name);
    if (pool == nullptr) return Status::NotFound("unrecognized pool '" + name + "'");
    if (pool->type != PoolType::kReplicated) {
      return Status::Error(
          EPERM, "can not change the size of an erasure-coded pool: it is the profile's k+m");
    }
    if (!size.ok()) return size.status();
    if (*size < 1 || *size > kMaxReplicatedSize) {
      return Status::Invalid("pool size must be between 1 and " +
                             std::to_string(kMaxReplicatedSize));
    }
    if (*size == 1 && !size_one_ok) return SizeOneRefused();
    Plan plan;
    plan.err = "set pool " + std::to_string(pool->id) + " size to " + value;
    if (pool->size == *size) return plan;
    Pool changed = *pool;
    changed.size = *size;
    changed.min_size = std::min(changed.min_size, *size);
    plan.changes.push_back(MapChange::PutPool(std::move(changed)));
    return plan;
  });
}

// `osd pool set NAME ec_min_object_size BYTES`: an erasure pool's objects written smaller than
// BYTES are kept as m+1 copies (0: none). EINVAL for a value that is not a whole number of bytes in
// 0..kMaxEcMinObjectSize, or for a replicated pool (every object there is copies already); ENOENT
// for an unknown pool. "set pool 3 ec_min_object_size to 16384" as Ceph's other options.
CommandResult SetEcMinObjectSize(const std::string& name, const std::string& value,
                                 const AdminContext& ctx) {
  std::uint64_t bytes = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
  const bool parsed = !value.empty() && ec == std::errc() && end == value.data() + value.size();
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    const Pool* pool = map.FindPool(name);
    if (pool == nullptr) return Status::NotFound("unrecognized pool '" + name + "'");
    if (pool->type != PoolType::kErasure) {
      return Status::Invalid("pool '" + name +
                             "' is replicated: ec_min_object_size applies to erasure-coded pools "
                             "only (every object of a replicated pool is kept as copies)");
    }
    if (!parsed) {
      return Status::Invalid("error parsing integer value '" + value + "' for ec_min_object_size");
    }
    if (bytes > kMaxEcMinObjectSize) {
      return Status::Invalid("ec_min_object_size must be between 0 and " +
                             std::to_string(kMaxEcMinObjectSize) + " bytes");
    }
    Plan plan;
    plan.err = "set pool " + std::to_string(pool->id) + " ec_min_object_size to " + value;
    if (pool->ec_min_object_size == bytes) return plan;
    Pool changed = *pool;
    changed.ec_min_object_size = bytes;
    plan.changes.push_back(MapChange::PutPool(std::move(changed)));
    return plan;
  });
}

// Ceph's messages: "set pool 1 min_size to 5" (stderr); EINVAL "pool min_size must be between
// K and size, which is set to SIZE" (Ceph's OSDMonitor for erasure pools); EPERM or EINVAL for
// options that cannot change here.
CommandResult PoolSet(const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf("osd pool set");
  const bool sure = args.size() == 4 && args[3] == kSizeOneFlag;
  if (args.size() != 3 && !sure) return UsageError("expected NAME OPTION VALUE", usage);
  const std::string& name = args[0];
  const std::string& option = args[1];
  const std::string& value = args[2];
  if (option == "size") return SetSize(name, value, sure, ctx);
  if (option == "ec_min_object_size") return SetEcMinObjectSize(name, value, ctx);
  if (option == "pg_num" || option == "pgp_num") {
    return ErrorResult(Status::Error(EPERM, "can not change " + option +
                                                ": placement here has no PG split or merge; create "
                                                "a new pool with the wanted pg_num"));
  }
  if (option == "allow_ec_optimizations") {
    return ErrorResult(Status::Invalid(
        "allow_ec_optimizations is fixed at pool creation: objects already stored depend on it"));
  }
  if (option == "erasure_code_profile") {
    return ErrorResult(Status::Error(
        EPERM,
        "can not change the erasure_code_profile of a pool: its objects are encoded with "
        "it"));
  }
  if (option != "min_size") {
    return ErrorResult(
        Status::Invalid("unrecognized variable '" + option +
                        "'; only min_size, size and ec_min_object_size can be set here"));
  }
  Result<int> min_size = ParseInt(option, value);
  if (!min_size.ok()) return ErrorResult(min_size.status());
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    const Pool* pool = map.FindPool(name);
    if (pool == nullptr) return Status::NotFound("unrecognized pool '" + name + "'");
    Result<PoolGeometry> g = GeometryOfPool(map, *pool);
    if (!g.ok()) return g.status();
    // Ceph's bounds: k for an erasure pool (fewer cannot decode), 1 for a replicated one.
    if (*min_size < g->k || *min_size > g->size) {
      return Status::Invalid("pool min_size must be between " + std::to_string(g->k) +
                             " and size, which is set to " + std::to_string(g->size));
    }
    Plan plan;
    plan.err = "set pool " + std::to_string(pool->id) + " min_size to " + value;
    if (pool->min_size == *min_size) return plan;
    Pool changed = *pool;
    changed.min_size = *min_size;
    plan.changes.push_back(MapChange::PutPool(std::move(changed)));
    return plan;
  });
}

}  // namespace

CommandResult RunPoolOptionCommand(const std::string& sub, const Words& args,
                                   const AdminContext& ctx) {
  if (sub == "get") return PoolGet(args, ctx);
  return PoolSet(args, ctx);
}

}  // namespace ec::cluster::admin
