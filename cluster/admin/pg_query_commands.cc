// pg stat | dump | ls | ls-by-pool | PGID query: the PGs as the map places them and as their
// primaries reported them (pg_view.h: the same state `status` counts), with the scrub stamps of
// their scrub records, in Ceph's shapes. Counts Ceph has and these reports do not carry (bytes,
// log lengths, versions) are left out rather than shown as 0.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>

#include "cluster/admin/commands.h"
#include "cluster/admin/pg_view.h"
#include "cluster/map/pg_state.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"

namespace ec::cluster::admin {
namespace {

// What every query shows: the map, each PG's view, and the scrub records by pgid.
struct PgData {
  ClusterMap map;
  std::map<int, PgStatsReport> stats;  // the views point into it
  std::map<std::string, ScrubResult> scrubs;
  std::vector<PgView> pgs;
};

// The map, then the reports and scrub records (an etcd hiccup on those leaves them out: the
// states then follow the map alone, as `status` does).
Result<std::unique_ptr<PgData>> LoadPgData(const AdminContext& ctx) {
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return map.status();
  auto d = std::make_unique<PgData>();
  d->map = std::move(map).value();
  if (ctx.store->client() != nullptr) {
    auto stats = LoadPgStats(*ctx.store->client(), ctx.store->prefix());
    if (stats.ok()) d->stats = std::move(stats).value();
    auto scrubs = LoadScrubResults(*ctx.store->client(), ctx.store->prefix());
    if (scrubs.ok()) d->scrubs = std::move(scrubs).value();
  }
  Result<std::vector<PgView>> pgs = ViewPgs(d->map, d->stats);
  if (!pgs.ok()) return pgs.status();
  d->pgs = std::move(pgs).value();
  return d;
}

// Ceph's utime_t text, "2026-01-02T03:04:05.678000+0000"; "0.000000" for never (0).
std::string Stamp(std::int64_t ms) {
  if (ms <= 0) return "0.000000";
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03d000+0000", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

std::int64_t Count(const PgView& v, std::int64_t PgStat::*field) {
  return v.stat != nullptr ? v.stat->*field : 0;
}
// The primary's own view (missing shards, degraded, unfound) only for the PG's current interval.
std::int64_t Current(const PgView& v, std::int64_t PgStat::*field) {
  return v.stat != nullptr && v.current ? v.stat->*field : 0;
}

const ScrubResult* ScrubOf(const PgData& d, const PgView& v) {
  auto it = d.scrubs.find(v.pgid);
  return it == d.scrubs.end() ? nullptr : &it->second;
}

// One PG as Ceph's pg_stat_t JSON (the fields these reports carry).
nlohmann::json PgJson(const PgData& d, const PgView& v) {
  const ScrubResult* scrub = ScrubOf(d, v);
  const int primary = PrimaryOf(v.up);
  return {{"pgid", v.pgid},
          {"state", v.state},
          {"up", JsonOsds(v.up)},
          {"acting", JsonOsds(v.acting)},
          {"up_primary", primary},
          {"acting_primary", primary},
          {"last_scrub_stamp", Stamp(scrub ? scrub->last_scrub_ms : 0)},
          {"last_deep_scrub_stamp", Stamp(scrub ? scrub->last_deep_scrub_ms : 0)},
          {"stat_sum",
           {{"num_objects", Count(v, &PgStat::objects)},
            {"num_objects_missing", Current(v, &PgStat::missing)},
            {"num_objects_degraded", Current(v, &PgStat::degraded)},
            {"num_objects_misplaced", Current(v, &PgStat::misplaced)},
            {"num_objects_unfound", Current(v, &PgStat::unfound)},
            {"num_objects_recovered", Current(v, &PgStat::recovered)},
            {"num_bytes_recovered", Current(v, &PgStat::recovered_bytes)}}}};
}

nlohmann::json BriefJson(const PgView& v) {
  const int primary = PrimaryOf(v.up);
  return {{"pgid", v.pgid},
          {"state", v.state},
          {"up", JsonOsds(v.up)},
          {"up_primary", primary},
          {"acting", JsonOsds(v.acting)},
          {"acting_primary", primary}};
}

// "[1,2,NONE]p1", as Ceph's pg ls shows up and acting sets.
std::string WithPrimary(const std::vector<int>& osds, int primary) {
  return OsdList(osds) + "p" + std::to_string(primary);
}

std::string PgTable(const PgData& d, const std::vector<const PgView*>& pgs) {
  TextTable t;
  using A = TextTable::Align;
  t.AddColumn("PG", A::kLeft);
  t.AddColumn("OBJECTS", A::kRight);
  t.AddColumn("DEGRADED", A::kRight);
  t.AddColumn("MISPLACED", A::kRight);
  t.AddColumn("UNFOUND", A::kRight);
  t.AddColumn("STATE", A::kLeft);
  t.AddColumn("UP", A::kLeft);
  t.AddColumn("ACTING", A::kLeft);
  t.AddColumn("SCRUB_STAMP", A::kLeft);
  t.AddColumn("DEEP_SCRUB_STAMP", A::kLeft);
  for (const PgView* v : pgs) {
    const ScrubResult* scrub = ScrubOf(d, *v);
    const int primary = PrimaryOf(v->up);
    t.AddRow({v->pgid, std::to_string(Count(*v, &PgStat::objects)),
              std::to_string(Current(*v, &PgStat::degraded)),
              std::to_string(Current(*v, &PgStat::misplaced)),
              std::to_string(Current(*v, &PgStat::unfound)), v->state, WithPrimary(v->up, primary),
              WithPrimary(v->acting, primary), Stamp(scrub ? scrub->last_scrub_ms : 0),
              Stamp(scrub ? scrub->last_deep_scrub_ms : 0)});
  }
  return t.Render();
}

// State words to filter by (a PG matches when its state has any of them, as Ceph's pg ls).
Result<std::uint64_t> StateMask(const Words& words) {
  std::uint64_t mask = 0;
  for (const std::string& w : words) {
    std::optional<std::uint64_t> f =
        w.find('+') == std::string::npos ? ParsePgState(w) : std::nullopt;
    if (!f || *f == 0) return Status::Invalid("unknown pg state '" + w + "'");
    mask |= *f;
  }
  return mask;
}

bool Matches(const PgView& v, std::uint64_t mask) {
  if (mask == 0) return true;
  return v.flags.has_value() && (*v.flags & mask) != 0;
}

CommandResult ListPgs(const PgData& d, std::optional<std::int64_t> pool, std::uint64_t mask,
                      const AdminContext& ctx) {
  std::vector<const PgView*> pgs;
  for (const PgView& v : d.pgs) {
    if ((!pool || v.pool_id == *pool) && Matches(v, mask)) pgs.push_back(&v);
  }
  if (ctx.format != Format::kPlain) {
    nlohmann::json list = nlohmann::json::array();
    for (const PgView* v : pgs) list.push_back(PgJson(d, *v));
    return Success(DumpJson({{"pg_ready", true}, {"pg_stats", std::move(list)}}, ctx.format));
  }
  return Success(pgs.empty() ? "" : PgTable(d, pgs));
}

// "32 pgs: 30 active+clean, 2 active+undersized+degraded; 120 objects" (Ceph's one line, with
// the object counts these reports carry in place of its byte counts).
CommandResult PgStatCommand(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'pg stat' takes no arguments", UsageOf("pg stat"));
  Result<std::unique_ptr<PgData>> d = LoadPgData(ctx);
  if (!d.ok()) return ErrorResult(d.status());
  std::map<std::string, std::uint64_t> by_state;
  std::int64_t objects = 0, degraded = 0, misplaced = 0, unfound = 0;
  for (const PgView& v : (*d)->pgs) {
    ++by_state[v.state];
    objects += Count(v, &PgStat::objects);
    degraded += Current(v, &PgStat::degraded);
    misplaced += Current(v, &PgStat::misplaced);
    unfound += Current(v, &PgStat::unfound);
  }
  std::vector<std::pair<std::string, std::uint64_t>> states(by_state.begin(), by_state.end());
  std::stable_sort(states.begin(), states.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (ctx.format != Format::kPlain) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [name, n] : states) list.push_back({{"name", name}, {"num", n}});
    return Success(DumpJson({{"pg_ready", true},
                             {"pg_summary",
                              {{"num_pg_by_state", std::move(list)},
                               {"num_pgs", (*d)->pgs.size()},
                               {"num_objects", objects},
                               {"num_objects_degraded", degraded},
                               {"num_objects_misplaced", misplaced},
                               {"num_objects_unfound", unfound}}}},
                            ctx.format));
  }
  std::string out = std::to_string((*d)->pgs.size()) + " pgs: ";
  bool first = true;
  for (const auto& [name, n] : states) {
    out += (first ? "" : ", ") + std::to_string(n) + " " + name;
    first = false;
  }
  out += "; " + std::to_string(objects) + " objects";
  if (degraded > 0) out += "; " + std::to_string(degraded) + " objects degraded";
  if (misplaced > 0) out += "; " + std::to_string(misplaced) + " objects misplaced";
  if (unfound > 0) out += "; " + std::to_string(unfound) + " objects unfound";
  return Success(out + "\n");
}

CommandResult PgDump(const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf("pg dump");
  if (args.size() > 1) return UsageError("too many arguments", usage);
  const std::string what = args.empty() ? "all" : args[0];
  if (what != "all" && what != "pgs" && what != "pgs_brief") {
    return UsageError("unknown dump '" + what + "' (expected all, pgs or pgs_brief)", usage);
  }
  Result<std::unique_ptr<PgData>> d = LoadPgData(ctx);
  if (!d.ok()) return ErrorResult(d.status());
  const PgData& data = **d;
  if (ctx.format != Format::kPlain) {
    nlohmann::json list = nlohmann::json::array();
    for (const PgView& v : data.pgs) {
      list.push_back(what == "pgs_brief" ? BriefJson(v) : PgJson(data, v));
    }
    if (what == "all") {
      return Success(DumpJson(
          {{"pg_ready", true},
           {"pg_map", {{"last_osdmap_epoch", data.map.epoch}, {"pg_stats", std::move(list)}}}},
          ctx.format));
    }
    return Success(DumpJson({{"pg_ready", true}, {"pg_stats", std::move(list)}}, ctx.format));
  }
  if (what == "pgs_brief") {
    TextTable t;
    using A = TextTable::Align;
    t.AddColumn("PG_STAT", A::kLeft);
    t.AddColumn("STATE", A::kLeft);
    t.AddColumn("UP", A::kLeft);
    t.AddColumn("UP_PRIMARY", A::kRight);
    t.AddColumn("ACTING", A::kLeft);
    t.AddColumn("ACTING_PRIMARY", A::kRight);
    for (const PgView& v : data.pgs) {
      const std::string primary = std::to_string(PrimaryOf(v.up));
      t.AddRow({v.pgid, v.state, OsdList(v.up), primary, OsdList(v.acting), primary});
    }
    return Success(data.pgs.empty() ? "" : t.Render());
  }
  std::vector<const PgView*> all;
  for (const PgView& v : data.pgs) all.push_back(&v);
  std::string out;
  if (what == "all") out = "last_osdmap_epoch " + std::to_string(data.map.epoch) + "\n";
  if (!all.empty()) out += PgTable(data, all);
  return Success(out);
}

// Ceph prints `pg query` as JSON whatever the format (pretty in plain mode).
CommandResult PgQuery(const std::string& text, const AdminContext& ctx) {
  const std::optional<PgId> id = ParsePgId(text);
  if (!id) return ErrorResult(Status::Invalid("invalid pgid '" + text + "'"));
  Result<std::unique_ptr<PgData>> d = LoadPgData(ctx);
  if (!d.ok()) return ErrorResult(d.status());
  const std::string pgid = PgName(id->pool, id->pg);
  for (const PgView& v : (*d)->pgs) {
    if (v.pgid != pgid) continue;
    const nlohmann::json stats = PgJson(**d, v);
    nlohmann::json j = {{"state", v.state},
                        {"epoch", (*d)->map.epoch},
                        {"up", stats["up"]},
                        {"acting", stats["acting"]},
                        {"up_primary", stats["up_primary"]},
                        {"acting_primary", stats["acting_primary"]},
                        {"info", {{"pgid", pgid}, {"stats", stats}}}};
    return Success(DumpJson(j, ctx.format == Format::kJson ? Format::kJson : Format::kJsonPretty));
  }
  return ErrorResult(Status::NotFound("pgid '" + pgid + "' does not exist"));
}

}  // namespace

std::optional<CommandResult> RunPgQueryCommand(const Words& words, const AdminContext& ctx) {
  const std::string sub = words.empty() ? "" : words[0];
  const Words args = Tail(words, 1);
  if (sub == "stat") return PgStatCommand(args, ctx);
  if (sub == "dump") return PgDump(args, ctx);
  if (sub == "ls" || sub == "ls-by-pool") {
    std::optional<std::int64_t> pool;
    Words states = args;
    if (sub == "ls-by-pool") {
      if (args.empty()) return UsageError("missing POOL", UsageOf("pg ls-by-pool"));
      Result<ClusterMap> map = LoadMap(ctx);
      if (!map.ok()) return ErrorResult(map.status());
      const Pool* p = map->FindPool(args[0]);
      if (p == nullptr)
        return ErrorResult(Status::NotFound("pool '" + args[0] + "' does not exist"));
      pool = p->id;
      states = Tail(args, 1);
    }
    Result<std::uint64_t> mask = StateMask(states);
    if (!mask.ok()) return ErrorResult(mask.status());
    Result<std::unique_ptr<PgData>> d = LoadPgData(ctx);
    if (!d.ok()) return ErrorResult(d.status());
    return ListPgs(**d, pool, *mask, ctx);
  }
  if (words.size() == 2 && words[1] == "query") return PgQuery(words[0], ctx);
  return std::nullopt;
}

}  // namespace ec::cluster::admin
