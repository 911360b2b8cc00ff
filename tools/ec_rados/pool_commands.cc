#include "tools/ec_rados/pool_commands.h"

#include <nlohmann/json.hpp>

#include "cluster/admin/capacity.h"
#include "cluster/admin/format.h"
#include "cluster/admin/progress_report.h"
#include "cluster/map/map_store.h"
#include "cluster/map/osd_stats.h"
#include "cluster/map/pg_stats.h"

namespace ec::tools::rados {
namespace {

using cluster::admin::HumanBytes;
using cluster::admin::TextTable;

}  // namespace

Result<std::string> LsPools(const etcd::Client& client, std::string_view prefix) {
  const cluster::MapStore store(&client, std::string(prefix));
  auto map = store.Load();
  if (!map.ok()) return map.status();
  std::string out;
  for (const auto& [id, pool] : map->pools) out += pool.name + "\n";
  return out;
}

Result<std::string> RadosDf(const etcd::Client& client, std::string_view prefix,
                            const std::string& pool, const std::string& format) {
  const cluster::MapStore store(&client, std::string(prefix));
  auto map = store.Load();
  if (!map.ok()) return map.status();
  if (!pool.empty() && map->FindPool(pool) == nullptr) {
    return Status::NotFound("pool '" + pool + "' does not exist");
  }
  auto pgs = cluster::LoadPgStats(client, prefix);
  if (!pgs.ok()) return pgs.status();
  auto osds = cluster::LoadOsdStats(client, prefix);
  if (!osds.ok()) return osds.status();
  auto usage = cluster::admin::BuildUsage(*map, *pgs, *osds);
  if (!usage.ok()) return usage.status();
  const auto s64 = [](std::int64_t v) { return static_cast<std::uint64_t>(v < 0 ? 0 : v); };

  if (format != "plain") {
    nlohmann::json pools = nlohmann::json::array();
    for (const cluster::admin::PoolUsage& p : usage->pools) {
      if (!pool.empty() && p.name != pool) continue;
      pools.push_back({{"name", p.name},
                       {"id", p.id},
                       {"size_bytes", p.used},
                       {"size_kb", (p.used + 1023) / 1024},
                       {"num_objects", p.objects},
                       {"num_object_clones", 0},
                       {"num_object_copies", p.copies},
                       {"num_objects_missing_on_primary", 0},
                       {"num_objects_unfound", p.unfound},
                       {"num_objects_degraded", p.degraded},
                       {"read_ops", s64(p.io.rd)},
                       {"read_bytes", s64(p.io.rd_bytes)},
                       {"write_ops", s64(p.io.wr)},
                       {"write_bytes", s64(p.io.wr_bytes)},
                       {"compress_bytes_used", 0},
                       {"compress_under_bytes", 0},
                       {"stored_data", p.stored},
                       {"stored_omap", 0}});
    }
    nlohmann::json j = {{"pools", std::move(pools)},
                        {"total_objects", usage->objects},
                        {"total_used", usage->used / 1024},
                        {"total_avail", usage->avail / 1024},
                        {"total_space", usage->total / 1024}};
    return cluster::admin::DumpJson(
        j, format == "json" ? cluster::admin::Format::kJson : cluster::admin::Format::kJsonPretty);
  }
  TextTable t;
  using A = TextTable::Align;
  t.AddColumn("POOL_NAME", A::kLeft);
  for (const char* h : {"USED", "OBJECTS", "CLONES", "COPIES", "MISSING_ON_PRIMARY", "UNFOUND",
                        "DEGRADED", "RD_OPS", "RD", "WR_OPS", "WR", "USED COMPR", "UNDER COMPR"}) {
    t.AddColumn(h, A::kRight);
  }
  for (const cluster::admin::PoolUsage& p : usage->pools) {
    if (!pool.empty() && p.name != pool) continue;
    t.AddRow({p.name, HumanBytes(p.used), std::to_string(p.objects), "0", std::to_string(p.copies),
              "0", std::to_string(p.unfound), std::to_string(p.degraded),
              std::to_string(s64(p.io.rd)), HumanBytes(s64(p.io.rd_bytes)),
              std::to_string(s64(p.io.wr)), HumanBytes(s64(p.io.wr_bytes)), "0 B", "0 B"});
  }
  return t.Render() + "\ntotal_objects    " + std::to_string(usage->objects) +
         "\ntotal_used       " + HumanBytes(usage->used) + "\ntotal_avail      " +
         HumanBytes(usage->avail) + "\ntotal_space      " + HumanBytes(usage->total) + "\n";
}

}  // namespace ec::tools::rados
