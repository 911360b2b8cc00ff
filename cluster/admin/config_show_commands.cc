// config show|show-with-defaults osd.N: the values a running OSD uses, with their source, as it
// reports them (cluster/config/running_config.h), in the layout and JSON of Ceph's manager.
#include <fmt/format.h>

#include <cstdlib>

#include "cluster/admin/commands.h"
#include "cluster/config/running_config.h"
#include "common/config.h"

namespace ec::cluster::admin {
namespace {

// Ceph's OVERRIDES cell: the other sources, highest first, a value equal to the one in force
// in parentheses: "file[2],(default[4])".
std::string OverridesText(const RunningOption& o) {
  std::string out;
  for (auto it = o.overrides.rbegin(); it != o.overrides.rend(); ++it) {
    std::string one = it->first + "[" + it->second + "]";
    if (it->second == o.value) one = "(" + one + ")";
    out += (out.empty() ? "" : ",") + one;
  }
  return out;
}

// A word on stderr when the report may not be what the OSD uses now.
std::string Staleness(const ClusterMap& map, const RunningConfig& c, std::int64_t now_ms) {
  auto osd = map.osds.find(c.osd);
  const std::int64_t age = std::max<std::int64_t>(0, (now_ms - c.stamp_ms) / 1000);
  if (osd == map.osds.end() || !osd->second.up) {
    return fmt::format("osd.{} is down: the values it reported {}s ago\n", c.osd, age);
  }
  if (c.stamp_ms < osd->second.up_stamp_ms) {
    return fmt::format("osd.{} has not reported since it started: the values of its previous run\n",
                       c.osd);
  }
  return "";
}

}  // namespace

CommandResult RunConfigShowCommand(bool with_defaults, const Words& args, const AdminContext& ctx) {
  const std::string usage = UsageOf(with_defaults ? "config show-with-defaults" : "config show");
  if (args.empty() || args.size() > (with_defaults ? 1u : 2u)) {
    return UsageError(with_defaults ? "expected WHO" : "expected WHO [NAME]", usage);
  }
  const std::string& who = args[0];
  if (who.rfind("osd.", 0) != 0 || !IsConfigSection(who)) {
    return ErrorResult(Status::Invalid("invalid daemon name '" + who + "': use osd.<id>"));
  }
  const int id = static_cast<int>(std::strtol(who.c_str() + 4, nullptr, 10));
  if (ctx.store->client() == nullptr) return ErrorResult(Status::Invalid("no etcd client"));
  Result<ClusterMap> map = LoadMap(ctx);
  if (!map.ok()) return ErrorResult(map.status());
  Result<RunningConfig> c = LoadRunningConfig(*ctx.store->client(), ctx.store->prefix(), id);
  if (!c.ok()) {
    if (c.status().code() == ENOENT) {
      return ErrorResult(Status::NotFound("no config state for daemon " + who));
    }
    return ErrorResult(FromStore(ctx, c.status()));
  }
  const std::string note = Staleness(*map, *c, NowMs(ctx));
  if (args.size() == 2) {
    const OptionSpec* spec = FindOsdOption(args[1]);
    const std::string name = spec != nullptr ? std::string(spec->name) : args[1];
    for (const RunningOption& o : c->options) {
      if (o.name == name) return Success(o.value + "\n", note);
    }
    return ErrorResult(Status::NotFound("unrecognized key '" + NormaliseOptionName(name) + "'"));
  }
  std::vector<const RunningOption*> shown;
  for (const RunningOption& o : c->options) {
    // `show` lists what is not at its default (and a value the daemon ignores); Ceph's manager
    // keeps the non-default values its daemons report.
    if (with_defaults || o.source != "default" || o.ignores_mon) shown.push_back(&o);
  }
  if (ctx.format != Format::kPlain) {
    nlohmann::json out = nlohmann::json::array();
    for (const RunningOption* o : shown) out.push_back(RunningOptionJson(*o));
    return Success(DumpJson(out, ctx.format), note);
  }
  TextTable t;
  for (const char* h : {"NAME", "VALUE", "SOURCE", "OVERRIDES", "IGNORES"}) {
    t.AddColumn(h, TextTable::Align::kLeft);
  }
  for (const RunningOption* o : shown) {
    t.AddRow({o->name, o->value, o->source, OverridesText(*o), o->ignores_mon ? "mon" : ""});
  }
  return Success(t.Render(), note);
}

}  // namespace ec::cluster::admin
