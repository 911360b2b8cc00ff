// osd stat | down | ok-to-stop | perf: the OSDs' state as operators check it before and during
// maintenance, with Ceph's output.
#include <algorithm>
#include <cerrno>
#include <set>

#include "cluster/admin/commands.h"
#include "cluster/admin/pg_view.h"
#include "cluster/admin/status_report.h"
#include "cluster/map/osd_stats.h"

namespace ec::cluster::admin {
namespace {

// Ceph's OSDMap::print_summary: "6 osds: 6 up (since 2m), 6 in (since 2m); epoch: e42", then
// "flags noout" on a line of its own when flags are set. JSON: the osdmap object of `status`.
CommandResult OsdStat(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'osd stat' takes no arguments", UsageOf("osd stat"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  Result<StatusReport> report = BuildStatusReport(*map, map->fsid);
  if (!report.ok()) return ErrorResult(report.status());
  const StatusReport& r = *report;
  if (ctx.format != Format::kPlain) {
    return Success(DumpJson({{"epoch", r.epoch},
                             {"num_osds", r.num_osds},
                             {"num_up_osds", r.num_up_osds},
                             {"osd_up_since", r.osd_up_since},
                             {"num_in_osds", r.num_in_osds},
                             {"osd_in_since", r.osd_in_since},
                             {"num_remapped_pgs", 0}},
                            ctx.format));
  }
  const std::int64_t now = NowMs(ctx) / 1000;
  std::string out = std::to_string(r.num_osds) + " osds: " + std::to_string(r.num_up_osds) + " up";
  if (r.num_up_osds > 0) out += " (since " + ShortAge(now - r.osd_up_since) + ")";
  out += ", " + std::to_string(r.num_in_osds) + " in";
  if (r.num_in_osds > 0 && r.osd_in_since > 0) {
    out += " (since " + ShortAge(now - r.osd_in_since) + ")";
  }
  out += "; epoch: e" + std::to_string(r.epoch) + "\n";
  if (!r.osd_flags.empty()) out += "flags " + r.osd_flags + "\n";
  return Success(out);
}

// Marks the OSDs down in the map (Ceph's "marked down osd.1. "). A live OSD sees it and boots
// again (cluster/liveness/osd_registration.h: "wrongly marked me down"); a dead one stays down.
CommandResult OsdDown(const Words& args, const AdminContext& ctx) {
  if (args.empty()) return UsageError("missing ID", UsageOf("osd down"));
  Result<std::vector<int>> ids = ParseOsdIds(args);
  if (!ids.ok()) return ErrorResult(ids.status());
  const std::int64_t now = NowMs(ctx);
  return ChangeMap(ctx, [&](const ClusterMap& map) -> Result<Plan> {
    EC_RETURN_IF_ERROR(AllExist(map, *ids));
    Plan plan;
    for (int id : *ids) {
      const std::string osd = "osd." + std::to_string(id);
      if (!map.osds.at(id).up) {
        plan.err += osd + " is already down. ";
        continue;
      }
      plan.changes.push_back(MapChange::OsdDown(id, now));
      plan.err += "marked down " + osd + ". ";
    }
    return plan;
  });
}

std::string IdList(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

// Whether stopping the OSDs leaves every PG they hold with at least min_size shards up (Ceph's
// ok-to-stop: a PG of theirs that would go below min_size, or is below it already, is
// "offline"; PGs on none of them are not looked at).
CommandResult OsdOkToStop(const Words& args, const AdminContext& ctx) {
  if (args.empty()) return UsageError("missing ID", UsageOf("osd ok-to-stop"));
  Result<std::vector<int>> ids = ParseOsdIds(args);
  if (!ids.ok()) return ErrorResult(ids.status());
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  Status exist = AllExist(*map, *ids);
  if (!exist.ok()) return ErrorResult(exist);
  Result<std::vector<PgView>> pgs = ViewPgs(*map, {});
  if (!pgs.ok()) return ErrorResult(pgs.status());
  const std::set<int> stopping(ids->begin(), ids->end());
  std::uint64_t ok = 0, not_ok = 0;
  nlohmann::json degraded = nlohmann::json::array();
  nlohmann::json inactive = nlohmann::json::array();
  for (const PgView& v : *pgs) {
    const Pool& pool = map->pools.at(v.pool_id);
    const bool touched = std::any_of(v.acting.begin(), v.acting.end(),
                                     [&](int osd) { return stopping.count(osd) != 0; });
    if (!touched) continue;
    int up_after = 0;
    for (int osd : v.up) {
      if (osd != kItemNone && stopping.count(osd) == 0) ++up_after;
    }
    if (v.size == 0 || up_after < pool.min_size) {
      ++not_ok;
      inactive.push_back(v.pgid);
    } else {
      ++ok;
      if (up_after < v.size) degraded.push_back(v.pgid);
    }
  }
  nlohmann::json j = {
      {"ok_to_stop", not_ok == 0}, {"osds", *ids}, {"num_ok_pgs", ok}, {"num_not_ok_pgs", not_ok}};
  if (not_ok > 0) {
    j["bad_become_inactive"] = std::move(inactive);
    CommandResult r = ErrorResult(Status::Error(EBUSY, "unsafe to stop osd(s) at this time (" +
                                                           std::to_string(not_ok) +
                                                           " PGs are or would become offline)"));
    if (ctx.format != Format::kPlain) r.out = DumpJson(j, ctx.format);
    return r;
  }
  const std::size_t n_degraded = degraded.size();
  j["ok_become_degraded"] = std::move(degraded);
  std::string err = "OSD(s) " + IdList(*ids) +
                    " are ok to stop without reducing availability or risking data, provided "
                    "there are no other concurrent failures or interventions.";
  err += "\n" + std::to_string(n_degraded) +
         " PGs are likely to be degraded (but remain available) as a result.";
  return Success(
      DumpJson(j, ctx.format == Format::kJsonPretty ? Format::kJsonPretty : Format::kJson), err);
}

// Ceph's table, OSDs by id descending: "osd  commit_latency(ms)  apply_latency(ms)"; the up OSDs
// of the map with the perf_stat of their last osdstats report (0 without one). JSON: Ceph's
// {"osdstats":{"osd_perf_infos":[{"id":N,"perf_stats":{"commit_latency_ms",...}}]}}.
CommandResult OsdPerf(const Words& args, const AdminContext& ctx) {
  if (!args.empty()) return UsageError("'osd perf' takes no arguments", UsageOf("osd perf"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  std::map<int, cluster::OsdStatsReport> perf;
  if (ctx.store->client() != nullptr) {
    auto loaded = LoadOsdStats(*ctx.store->client(), ctx.store->prefix());
    if (!loaded.ok()) return ErrorResult(FromStore(ctx, loaded.status()));
    perf = std::move(loaded).value();
  }
  TextTable t;
  t.AddColumn("osd", TextTable::Align::kRight);
  t.AddColumn("commit_latency(ms)", TextTable::Align::kRight);
  t.AddColumn("apply_latency(ms)", TextTable::Align::kRight);
  nlohmann::json infos = nlohmann::json::array();
  for (auto it = map->osds.rbegin(); it != map->osds.rend(); ++it) {
    if (!it->second.up) continue;
    auto p = perf.find(it->first);
    const double commit = p == perf.end() ? 0 : p->second.perf.commit_latency_ms;
    const double apply = p == perf.end() ? 0 : p->second.perf.apply_latency_ms;
    // Ceph prints whole milliseconds; JSON also gives nanoseconds.
    const auto ms = [](double v) { return static_cast<std::int64_t>(v + 0.5); };
    const auto ns = [](double v) { return static_cast<std::int64_t>(v * 1e6 + 0.5); };
    t.AddRow({std::to_string(it->first), std::to_string(ms(commit)), std::to_string(ms(apply))});
    infos.push_back({{"id", it->first},
                     {"perf_stats",
                      {{"commit_latency_ms", ms(commit)},
                       {"apply_latency_ms", ms(apply)},
                       {"commit_latency_ns", ns(commit)},
                       {"apply_latency_ns", ns(apply)}}}});
  }
  if (ctx.format != Format::kPlain) {
    return Success(DumpJson({{"osdstats", {{"osd_perf_infos", std::move(infos)}}}}, ctx.format));
  }
  return Success(t.Render());
}

}  // namespace

CommandResult RunOsdStateCommand(const std::string& sub, const Words& args,
                                 const AdminContext& ctx) {
  if (sub == "stat") return OsdStat(args, ctx);
  if (sub == "down") return OsdDown(args, ctx);
  if (sub == "ok-to-stop") return OsdOkToStop(args, ctx);
  if (sub == "perf") return OsdPerf(args, ctx);
  return UnknownCommand(Prefixed({"osd"}, Words{sub}));
}

}  // namespace ec::cluster::admin
