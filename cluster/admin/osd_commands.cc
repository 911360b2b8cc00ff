// osd tree | out | in | rm | dump | map: the OSDs of the map and where an object lives; the
// dispatch of the other osd commands (flag_commands.cc, osd_state_commands.cc).
#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "cluster/admin/commands.h"
#include "cluster/admin/status_report.h"
#include "cluster/map/pool_geometry.h"
#include "common/config.h"

namespace ec::cluster::admin {

Result<int> ParseOsdId(const std::string& text) {
  std::string digits = text.rfind("osd.", 0) == 0 ? text.substr(4) : text;
  int id = -1;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || id < 0) {
    return Status::Invalid("invalid osd id '" + text + "'");
  }
  return id;
}

Result<std::vector<int>> ParseOsdIds(const Words& args) {
  std::vector<int> ids;
  for (const std::string& a : args) {
    Result<int> id = ParseOsdId(a);
    if (!id.ok()) return id.status();
    if (std::find(ids.begin(), ids.end(), *id) == ids.end()) ids.push_back(*id);
  }
  return ids;
}

Status AllExist(const ClusterMap& map, const std::vector<int>& ids) {
  std::string missing;
  for (int id : ids) {
    if (map.osds.count(id) == 0) missing += "osd." + std::to_string(id) + " does not exist. ";
  }
  if (!missing.empty()) missing.pop_back();
  return missing.empty() ? Status::OK() : Status::NotFound(missing);
}

constexpr int kJsonItemNone = 2147483647;  // how Ceph's JSON shows CRUSH_ITEM_NONE

int PrimaryOf(const std::vector<int>& osds) {
  for (int o : osds) {
    if (o != kItemNone) return o;
  }
  return -1;
}

nlohmann::json JsonOsds(const std::vector<int>& osds) {
  nlohmann::json j = nlohmann::json::array();
  for (int o : osds) j.push_back(o == kItemNone ? kJsonItemNone : o);
  return j;
}

namespace {

CommandResult OsdInOut(bool in, const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf(in ? "osd in" : "osd out");
  if (args.empty()) return UsageError("missing ID", usage);
  Result<std::vector<int>> ids = ParseOsdIds(args);
  if (!ids.ok()) return ErrorResult(ids.status());
  const std::int64_t now = NowMs(ctx);
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    EC_RETURN_IF_ERROR(AllExist(map, *ids));
    Plan plan;
    for (int id : *ids) {
      const std::string osd = "osd." + std::to_string(id);
      if (map.osds.at(id).in == in) {
        plan.err += osd + " is already " + (in ? "in" : "out") + ". ";
        continue;
      }
      plan.changes.push_back(in ? MapChange::OsdIn(id, now) : MapChange::OsdOut(id, false));
      plan.err += std::string("marked ") + (in ? "in " : "out ") + osd + ". ";
    }
    return plan;
  });
}

CommandResult OsdRm(const Words& args, const AdminContext& ctx) {
  if (args.empty()) return UsageError("missing ID", UsageOf("osd rm"));
  Result<std::vector<int>> ids = ParseOsdIds(args);
  if (!ids.ok()) return ErrorResult(ids.status());
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    EC_RETURN_IF_ERROR(AllExist(map, *ids));
    Plan plan;
    for (int id : *ids) {
      // The map refuses an OSD that is up (EBUSY); the whole set then writes nothing.
      plan.changes.push_back(MapChange::RemoveOsd(id));
      plan.err += (plan.err.empty() ? "removed osd." : ", osd.") + std::to_string(id);
    }
    return plan;
  });
}

// The CRUSH-like hierarchy Ceph's tree shows: one root "default" (id -1), a host bucket per host
// name (ids -2, -3, ... in name order), the OSDs under their host.
struct Tree {
  std::map<std::string, std::vector<int>> hosts;  // host -> OSD ids
  std::map<std::string, int> host_ids;
};

Tree MakeTree(const ClusterMap& map) {
  Tree t;
  for (const auto& [id, osd] : map.osds) t.hosts[osd.host].push_back(id);
  int next = -2;
  for (const auto& [host, ids] : t.hosts) t.host_ids[host] = next--;
  return t;
}

CommandResult OsdTree(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'osd tree' takes no arguments", UsageOf("osd tree"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  const Tree tree = MakeTree(*map);
  double total = 0;
  std::map<std::string, double> host_weight;
  for (const auto& [id, osd] : map->osds) {
    total += osd.weight;
    host_weight[osd.host] += osd.weight;
  }
  if (ctx.format != Format::kPlain) {
    nlohmann::json nodes = nlohmann::json::array();
    nlohmann::json root_children = nlohmann::json::array();
    for (const auto& [host, id] : tree.host_ids) root_children.push_back(id);
    nodes.push_back({{"id", -1},
                     {"name", "default"},
                     {"type", "root"},
                     {"type_id", 11},
                     {"children", root_children}});
    for (const auto& [host, ids] : tree.hosts) {
      nodes.push_back({{"id", tree.host_ids.at(host)},
                       {"name", host},
                       {"type", "host"},
                       {"type_id", 1},
                       {"pool_weights", nlohmann::json::object()},
                       {"children", ids}});
    }
    for (const auto& [host, ids] : tree.hosts) {
      for (int id : ids) {
        const OsdEntry& o = map->osds.at(id);
        nodes.push_back({{"id", id},
                         {"device_class", ""},
                         {"name", "osd." + std::to_string(id)},
                         {"type", "osd"},
                         {"type_id", 0},
                         {"crush_weight", o.weight},
                         {"depth", 2},
                         {"pool_weights", nlohmann::json::object()},
                         {"exists", 1},
                         {"status", o.up ? "up" : "down"},
                         {"reweight", o.in ? 1.0 : 0.0},
                         {"primary_affinity", 1.0}});
      }
    }
    return Success(DumpJson({{"nodes", nodes}, {"stray", nlohmann::json::array()}}, ctx.format));
  }
  TextTable t;
  using A = TextTable::Align;
  t.AddColumn("ID", A::kRight);
  t.AddColumn("CLASS", A::kRight);
  t.AddColumn("WEIGHT", A::kRight);
  t.AddColumn("TYPE NAME", A::kLeft);
  t.AddColumn("STATUS", A::kRight);
  t.AddColumn("REWEIGHT", A::kRight);
  t.AddColumn("PRI-AFF", A::kRight);
  t.AddRow({"-1", "", FixedWeight(total), "root default", "", "", ""});
  for (const auto& [host, ids] : tree.hosts) {
    t.AddRow({std::to_string(tree.host_ids.at(host)), "", FixedWeight(host_weight[host]),
              "    host " + host, "", "", ""});
    for (int id : ids) {
      const OsdEntry& o = map->osds.at(id);
      t.AddRow({std::to_string(id), "", FixedWeight(o.weight), "        osd." + std::to_string(id),
                o.up ? "up" : "down", o.in ? FixedWeight(1.0) : "0",
                FixedWeight(1.0)});  // Ceph: "0" when out
    }
  }
  return Success(t.Render());
}

nlohmann::json OsdJson(const OsdEntry& o) {
  return {{"osd", o.id},
          {"uuid", o.uuid},
          {"up", o.up ? 1 : 0},
          {"in", o.in ? 1 : 0},
          {"weight", o.in ? 1.0 : 0.0},
          {"crush_weight", o.weight},
          {"host", o.host},
          {"public_addr", o.addr},
          {"up_stamp_ms", o.up_stamp_ms},
          {"down_stamp_ms", o.down_stamp_ms},
          {"auto_out", o.auto_out},
          {"network_bandwidth", o.network_bandwidth}};
}

CommandResult OsdDump(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'osd dump' takes no arguments", UsageOf("osd dump"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  if (ctx.format != Format::kPlain) {
    nlohmann::json profiles = nlohmann::json::object();
    for (const auto& [name, p] : map->profiles) {
      nlohmann::json keys = nlohmann::json::object();
      for (const auto& [k, v] : p.profile) keys[k] = v;
      profiles[name] = keys;
    }
    nlohmann::json pools = nlohmann::json::array();
    for (const auto& [id, p] : map->pools) {
      Result<PoolGeometry> g = GeometryOfPool(*map, p);
      pools.push_back({{"pool", id},
                       {"pool_name", p.name},
                       {"type", PoolTypeNumber(p)},
                       {"size", g.ok() ? g->size : 0},
                       {"erasure_code_profile", p.profile},
                       {"pg_num", p.pg_num},
                       {"stripe_unit", p.stripe_unit},
                       {"min_size", p.min_size},
                       {"flags_names", PoolFlagNames(p)}});
    }
    nlohmann::json osds = nlohmann::json::array();
    for (const auto& [id, o] : map->osds) osds.push_back(OsdJson(o));
    nlohmann::json flags_set = nlohmann::json::array();
    for (std::string_view f : kOsdFlags) {
      if (map->HasFlag(f)) flags_set.push_back(std::string(f));
    }
    return Success(DumpJson({{"epoch", map->epoch},
                             {"flags", map->FlagsText()},
                             {"flags_set", std::move(flags_set)},
                             {"pool_max", map->pool_max},
                             {"max_osd", map->osds.empty() ? 0 : map->osds.rbegin()->first + 1},
                             {"pools", pools},
                             {"osds", osds},
                             {"erasure_code_profiles", profiles}},
                            ctx.format));
  }
  std::string out = "epoch " + std::to_string(map->epoch) + "\n";
  out += "flags " + map->FlagsText() + "\n";
  out += "pool_max " + std::to_string(map->pool_max) + "\n";
  for (const auto& [id, p] : map->pools) {
    // Ceph's words for a replicated pool: "replicated size 3 min_size 2".
    const std::string size =
        p.type == PoolType::kReplicated ? " size " + std::to_string(p.size) : "";
    out += "pool " + std::to_string(id) + " '" + p.name + "' " + PoolKindText(p) + size +
           " min_size " + std::to_string(p.min_size) + " pg_num " + std::to_string(p.pg_num) +
           PoolFlagsText(p) + " stripe_unit " + std::to_string(p.stripe_unit) + PoolOptionsText(p) +
           "\n";
  }
  for (const auto& [id, o] : map->osds) {
    out += "osd." + std::to_string(id) + (o.up ? " up  " : " down") + (o.in ? " in " : " out") +
           " weight " + FixedWeight(o.weight) + " host " + o.host + " " +
           (o.addr.empty() ? "-" : o.addr) +
           (o.network_bandwidth != 0 ? " bandwidth " + FormatBandwidth(o.network_bandwidth) : "") +
           "\n";
  }
  return Success(out);
}

CommandResult OsdMap(const Words& args, const AdminContext& ctx) {
  if (args.size() != 2) return UsageError("expected POOL OBJECT", UsageOf("osd map"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  const Pool* pool = map->FindPool(args[0]);
  if (pool == nullptr) {
    return ErrorResult(Status::NotFound("pool " + args[0] + " does not exist"));
  }
  Result<PoolPlacement> pp = PlacementOf(*map, *pool);
  if (!pp.ok()) return ErrorResult(pp.status());
  Result<Placement> placement = PlacementFor(*map);
  if (!placement.ok()) return ErrorResult(placement.status());
  Result<std::uint32_t> pg = ObjectToPg(*pp, args[1]);
  if (!pg.ok()) return ErrorResult(pg.status());
  Result<std::uint32_t> raw = ObjectRawHash(*pp, args[1]);
  if (!raw.ok()) return ErrorResult(raw.status());
  Result<std::vector<int>> acting = placement->Place(*pp, *pg);
  if (!acting.ok()) return ErrorResult(acting.status());
  // acting: the OSDs placement gives the PG (down ones included); up: those of them that are up.
  // The primary of both is the first up OSD (-1: none), as no OSD can act for a down one.
  const std::vector<int> up = placement->UpSet(*acting);
  const int primary = PrimaryOf(up);
  const std::string pgid = PgName(pool->id, *pg);
  const std::string raw_pgid = PgName(pool->id, *raw);
  if (ctx.format != Format::kPlain) {
    return Success(DumpJson({{"epoch", map->epoch},
                             {"pool", pool->name},
                             {"pool_id", pool->id},
                             {"objname", args[1]},
                             {"raw_pgid", raw_pgid},
                             {"pgid", pgid},
                             {"up", JsonOsds(up)},
                             {"up_primary", primary},
                             {"acting", JsonOsds(*acting)},
                             {"acting_primary", primary}},
                            ctx.format));
  }
  const std::string p = ", p" + std::to_string(primary) + ")";
  return Success("osdmap e" + std::to_string(map->epoch) + " pool '" + pool->name + "' (" +
                 std::to_string(pool->id) + ") object '" + args[1] + "' -> pg " + raw_pgid + " (" +
                 pgid + ") -> up (" + OsdList(up) + p + " acting (" + OsdList(*acting) + p + "\n");
}

}  // namespace

CommandResult RunOsdCommand(const Words& words, const AdminContext& ctx) {
  const std::string sub = words.empty() ? "" : words[0];
  const Words args = Tail(words, 1);
  if (sub == "tree") return OsdTree(args, ctx);
  if (sub == "out") return OsdInOut(false, args, ctx);
  if (sub == "in") return OsdInOut(true, args, ctx);
  if (sub == "rm") return OsdRm(args, ctx);
  if (sub == "dump") return OsdDump(args, ctx);
  if (sub == "map") return OsdMap(args, ctx);
  if (sub == "set" || sub == "unset") return RunOsdFlagCommand(sub == "set", args, ctx);
  if (sub == "stat" || sub == "down" || sub == "ok-to-stop" || sub == "perf") {
    return RunOsdStateCommand(sub, args, ctx);
  }
  return UnknownCommand(Prefixed({"osd"}, words));
}

}  // namespace ec::cluster::admin
