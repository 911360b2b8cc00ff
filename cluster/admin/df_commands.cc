// `df [detail]` and `osd df`: capacity as Ceph prints it, from the map and the OSDs' and PG
// primaries' reports (capacity.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cluster/admin/capacity.h"
#include "cluster/admin/commands.h"
#include "cluster/admin/progress_report.h"

namespace ec::cluster::admin {

Result<ClusterUsage> LoadUsage(const AdminContext& ctx) {
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return map.status();
  std::map<int, PgStatsReport> pgs;
  std::map<int, OsdStatsReport> osds;
  if (ctx.store->client() != nullptr) {
    auto p = LoadPgStats(*ctx.store->client(), ctx.store->prefix());
    if (!p.ok()) return FromStore(ctx, p.status());
    pgs = std::move(p).value();
    auto o = LoadOsdStats(*ctx.store->client(), ctx.store->prefix());
    if (!o.ok()) return FromStore(ctx, o.status());
    osds = std::move(o).value();
  }
  return BuildUsage(*map, pgs, osds);
}

namespace {

using A = TextTable::Align;

// Ceph's two-decimal percentages ("1.00"; below 0.01 "0").
std::string Percent(double value) {
  if (value < 0.01) return "0";  // Ceph's percentify
  return fmt::format("{:.2f}", value);
}

std::string RenderDf(const ClusterUsage& u, bool detail) {
  TextTable raw;
  for (const char* h : {"CLASS", "SIZE", "AVAIL", "USED", "RAW USED", "%RAW USED"}) {
    raw.AddColumn(h, std::string(h) == "CLASS" ? A::kLeft : A::kRight);
  }
  const std::vector<std::string> totals = {HumanBytes(u.total), HumanBytes(u.avail),
                                           HumanBytes(u.used), HumanBytes(u.used),
                                           Percent(u.UsedPercent())};
  std::vector<std::string> ssd = {"ssd"}, total = {"TOTAL"};
  ssd.insert(ssd.end(), totals.begin(), totals.end());
  total.insert(total.end(), totals.begin(), totals.end());
  raw.AddRow(ssd);
  raw.AddRow(total);

  TextTable pools;
  std::vector<std::pair<const char*, A>> cols = {
      {"POOL", A::kLeft},     {"ID", A::kRight},   {"PGS", A::kRight},   {"STORED", A::kRight},
      {"OBJECTS", A::kRight}, {"USED", A::kRight}, {"%USED", A::kRight}, {"MAX AVAIL", A::kRight},
  };
  if (detail) {
    cols.push_back({"QUOTA OBJECTS", A::kRight});
    cols.push_back({"QUOTA BYTES", A::kRight});
    cols.push_back({"DIRTY", A::kRight});
    cols.push_back({"USED COMPR", A::kRight});
    cols.push_back({"UNDER COMPR", A::kRight});
  }
  for (const auto& [h, a] : cols) pools.AddColumn(h, a);
  for (const PoolUsage& p : u.pools) {
    std::vector<std::string> row = {p.name,
                                    std::to_string(p.id),
                                    std::to_string(p.pg_num),
                                    HumanBytes(p.stored),
                                    std::to_string(p.objects),
                                    HumanBytes(p.used),
                                    Percent(100.0 * p.percent_used),
                                    HumanBytes(p.max_avail)};
    if (detail) {
      for (const char* cell : {"N/A", "N/A", "N/A", "0 B", "0 B"}) row.push_back(cell);
    }
    pools.AddRow(std::move(row));
  }
  return "--- RAW STORAGE ---\n" + raw.Render() + " \n--- POOLS ---\n" + pools.Render();
}

nlohmann::json DfJson(const ClusterUsage& u, bool detail) {
  const double ratio =
      u.total == 0 ? 0.0 : static_cast<double>(u.used) / static_cast<double>(u.total);
  nlohmann::json stats = {{"total_bytes", u.total},
                          {"total_avail_bytes", u.avail},
                          {"total_used_bytes", u.used},
                          {"total_used_raw_bytes", u.used},
                          {"total_used_raw_ratio", ratio},
                          {"num_osds", u.osds.size()},
                          {"num_per_pool_osds", u.osds.size()},
                          {"num_per_pool_omap_osds", u.osds.size()}};
  nlohmann::json by_class = {{"ssd",
                              {{"total_bytes", u.total},
                               {"total_avail_bytes", u.avail},
                               {"total_used_bytes", u.used},
                               {"total_used_raw_bytes", u.used},
                               {"total_used_raw_ratio", ratio}}}};
  nlohmann::json pools = nlohmann::json::array();
  for (const PoolUsage& p : u.pools) {
    nlohmann::json s = {{"stored", p.stored},
                        {"objects", p.objects},
                        {"kb_used", (p.used + 1023) / 1024},
                        {"bytes_used", p.used},
                        {"percent_used", p.percent_used},
                        {"max_avail", p.max_avail}};
    if (detail) {
      s["quota_objects"] = 0;
      s["quota_bytes"] = 0;
      s["dirty"] = 0;
      s["rd"] = p.io.rd;
      s["rd_bytes"] = p.io.rd_bytes;
      s["wr"] = p.io.wr;
      s["wr_bytes"] = p.io.wr_bytes;
      s["compress_bytes_used"] = 0;
      s["compress_under_bytes"] = 0;
      s["stored_raw"] = p.used;
    }
    pools.push_back({{"name", p.name}, {"id", p.id}, {"stats", std::move(s)}});
  }
  return {{"stats", std::move(stats)},
          {"stats_by_class", std::move(by_class)},
          {"pools", std::move(pools)}};
}

std::string KiB(std::int64_t bytes) {
  return HumanBytes(static_cast<std::uint64_t>(std::max<std::int64_t>(bytes, 0)));
}

std::string RenderOsdDf(const ClusterUsage& u) {
  TextTable t;
  for (const char* h : {"ID", "CLASS", "WEIGHT", "REWEIGHT", "SIZE", "RAW USE", "DATA", "OMAP",
                        "META", "AVAIL", "%USE", "VAR", "PGS", "STATUS"}) {
    t.AddColumn(h, std::string(h) == "STATUS" ? A::kLeft : A::kRight);
  }
  std::uint64_t data = 0, omap = 0, meta = 0;
  double min_var = 0, max_var = 0, dev = 0;
  bool first = true;
  for (const OsdUsage& o : u.osds) {
    const OsdStatfs& f = o.statfs;
    t.AddRow({std::to_string(o.id), "ssd", FixedWeight(o.weight), FixedWeight(o.reweight),
              KiB(f.total), KiB(f.used()), KiB(f.data), KiB(f.omap), KiB(f.meta), KiB(f.available),
              Percent(o.utilization), fmt::format("{:.2f}", o.var), std::to_string(o.pgs),
              o.up ? "up" : "down"});
    if (o.up && o.reported) {
      data += static_cast<std::uint64_t>(f.data);
      omap += static_cast<std::uint64_t>(f.omap);
      meta += static_cast<std::uint64_t>(f.meta);
      min_var = first ? o.var : std::min(min_var, o.var);
      max_var = first ? o.var : std::max(max_var, o.var);
      const double d = o.utilization - u.UsedPercent();
      dev += d * d;
      first = false;
    }
  }
  std::size_t counted = 0;
  for (const OsdUsage& o : u.osds) counted += o.up && o.reported ? 1 : 0;
  t.AddRow({"", "", "", "TOTAL", HumanBytes(u.total), HumanBytes(u.used), HumanBytes(data),
            HumanBytes(omap), HumanBytes(meta), HumanBytes(u.avail), Percent(u.UsedPercent()), "",
            "", ""});
  const double stddev = counted == 0 ? 0.0 : std::sqrt(dev / static_cast<double>(counted));
  return t.Render() +
         fmt::format("MIN/MAX VAR: {:.2f}/{:.2f}  STDDEV: {:.2f}\n", min_var, max_var, stddev);
}

nlohmann::json OsdDfJson(const ClusterUsage& u) {
  nlohmann::json nodes = nlohmann::json::array();
  std::uint64_t data = 0, omap = 0, meta = 0;
  for (const OsdUsage& o : u.osds) {
    const OsdStatfs& f = o.statfs;
    const auto kb = [](std::int64_t b) { return std::max<std::int64_t>(b, 0) / 1024; };
    nodes.push_back({{"id", o.id},
                     {"device_class", "ssd"},
                     {"name", "osd." + std::to_string(o.id)},
                     {"type", "osd"},
                     {"type_id", 0},
                     {"crush_weight", o.weight},
                     {"depth", 2},
                     {"pool_weights", nlohmann::json::object()},
                     {"reweight", o.reweight},
                     {"kb", kb(f.total)},
                     {"kb_used", kb(f.used())},
                     {"kb_used_data", kb(f.data)},
                     {"kb_used_omap", kb(f.omap)},
                     {"kb_used_meta", kb(f.meta)},
                     {"kb_avail", kb(f.available)},
                     {"utilization", o.utilization},
                     {"var", o.var},
                     {"pgs", o.pgs},
                     {"status", o.up ? "up" : "down"}});
    if (o.up && o.reported) {
      data += static_cast<std::uint64_t>(f.data);
      omap += static_cast<std::uint64_t>(f.omap);
      meta += static_cast<std::uint64_t>(f.meta);
    }
  }
  nlohmann::json summary = {{"total_kb", u.total / 1024},
                            {"total_kb_used", u.used / 1024},
                            {"total_kb_used_data", data / 1024},
                            {"total_kb_used_omap", omap / 1024},
                            {"total_kb_used_meta", meta / 1024},
                            {"total_kb_avail", u.avail / 1024},
                            {"average_utilization", u.UsedPercent()}};
  return {{"nodes", std::move(nodes)},
          {"stray", nlohmann::json::array()},
          {"summary", std::move(summary)}};
}

}  // namespace

CommandResult RunDfCommand(const Words& words, const AdminContext& ctx) {
  const bool detail = words.size() == 1 && words[0] == "detail";
  if (!words.empty() && !detail) return UsageError("'df' takes only 'detail'", UsageOf("df"));
  Result<ClusterUsage> u = LoadUsage(ctx);
  if (!u.ok()) return ErrorResult(u.status());
  if (ctx.format != Format::kPlain) return Success(DumpJson(DfJson(*u, detail), ctx.format));
  return Success(RenderDf(*u, detail));
}

CommandResult RunOsdDfCommand(const Words& words, const AdminContext& ctx) {
  if (!words.empty()) return UsageError("'osd df' takes no arguments", UsageOf("osd df"));
  Result<ClusterUsage> u = LoadUsage(ctx);
  if (!u.ok()) return ErrorResult(u.status());
  if (ctx.format != Format::kPlain) return Success(DumpJson(OsdDfJson(*u), ctx.format));
  return Success(RenderOsdDf(*u));
}

}  // namespace ec::cluster::admin
