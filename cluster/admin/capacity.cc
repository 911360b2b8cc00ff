#include "cluster/admin/capacity.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cluster/admin/pg_view.h"
#include "cluster/map/pool_geometry.h"

namespace ec::cluster::admin {
namespace {

std::uint64_t Count(std::int64_t v) {
  return v < 0 ? 0 : static_cast<std::uint64_t>(v);
}

// Raw bytes a pool may still take before the fullest of its OSDs reaches the full ratio, as Ceph's
// PGMap::get_rule_avail: min over the OSDs of headroom / share of the weight.
std::uint64_t RawAvail(const std::vector<OsdUsage>& osds) {
  double weight = 0;
  for (const OsdUsage& o : osds) {
    if (o.reweight > 0 && o.weight > 0 && o.up && o.reported) weight += o.weight;
  }
  if (weight <= 0) return 0;
  double min = std::numeric_limits<double>::infinity();
  for (const OsdUsage& o : osds) {
    if (!(o.reweight > 0 && o.weight > 0 && o.up && o.reported)) continue;
    const double full = kFullRatio * static_cast<double>(o.statfs.total);
    const double headroom = std::max(0.0, full - static_cast<double>(o.statfs.used()));
    min = std::min(min, headroom / (o.weight / weight));
  }
  return std::isfinite(min) ? static_cast<std::uint64_t>(min) : 0;
}

}  // namespace

double ClusterUsage::UsedPercent() const {
  return total == 0 ? 0.0 : 100.0 * static_cast<double>(used) / static_cast<double>(total);
}

Result<ClusterUsage> BuildUsage(const ClusterMap& map, const std::map<int, PgStatsReport>& pgs,
                                const std::map<int, OsdStatsReport>& osds) {
  ClusterUsage u;
  std::map<int, std::size_t> osd_index;
  for (const auto& [id, entry] : map.osds) {
    OsdUsage o;
    o.id = id;
    o.weight = entry.weight;
    o.reweight = entry.in ? 1.0 : 0.0;
    o.up = entry.up;
    auto report = osds.find(id);
    if (report != osds.end()) {
      o.reported = true;
      o.statfs = report->second.statfs;
    }
    if (o.up && o.reported) {
      u.total += Count(o.statfs.total);
      u.avail += Count(o.statfs.available);
      u.used += Count(o.statfs.used());
    }
    osd_index[id] = u.osds.size();
    u.osds.push_back(o);
  }
  for (const auto& [id, report] : osds) {
    auto entry = map.osds.find(id);
    if (entry == map.osds.end() || !entry->second.up) continue;
    u.rates.rd += report.rates.rd;
    u.rates.rd_bytes += report.rates.rd_bytes;
    u.rates.wr += report.rates.wr;
    u.rates.wr_bytes += report.rates.wr_bytes;
  }
  for (OsdUsage& o : u.osds) {
    if (o.statfs.total > 0) {
      o.utilization =
          100.0 * static_cast<double>(o.statfs.used()) / static_cast<double>(o.statfs.total);
    }
    const double cluster = u.UsedPercent();
    o.var = cluster > 0 ? o.utilization / cluster : 0.0;
  }

  Result<std::vector<PgView>> views = ViewPgs(map, pgs);
  if (!views.ok()) return views.status();
  std::map<std::int64_t, PoolUsage> pools;
  for (const auto& [id, pool] : map.pools) {
    PoolUsage& p = pools[id];
    p.id = id;
    p.name = pool.name;
    p.pg_num = pool.pg_num;
    Result<PoolGeometry> g = GeometryOfPool(map, pool);
    if (g.ok()) {
      p.k = g->k;
      p.size = g->size;
    }
  }
  for (const PgView& v : *views) {
    for (int osd : v.up) {
      auto at = osd_index.find(osd);
      if (at != osd_index.end()) ++u.osds[at->second].pgs;
    }
    if (v.stat == nullptr) continue;
    PoolUsage& p = pools[v.pool_id];
    const std::uint64_t objects = Count(v.stat->objects);
    p.stored += Count(v.stat->bytes);
    p.objects += objects;
    p.unfound += Count(v.stat->unfound);
    const std::uint64_t size = static_cast<std::uint64_t>(std::max(v.size, 0));
    const std::uint64_t up = static_cast<std::uint64_t>(std::max(v.up_count, 0));
    p.degraded += objects * (size - std::min(size, up));
    if (v.current)
      p.degraded +=
          Count(v.stat->missing) - std::min(Count(v.stat->misplaced), Count(v.stat->missing));
  }
  for (const auto& [osd, report] : osds) {
    for (const auto& [pool_id, io] : report.pools) {
      auto p = pools.find(pool_id);
      if (p == pools.end()) continue;  // a removed pool
      p->second.io.rd += io.rd;
      p->second.io.rd_bytes += io.rd_bytes;
      p->second.io.wr += io.wr;
      p->second.io.wr_bytes += io.wr_bytes;
    }
  }
  const std::uint64_t raw_avail = RawAvail(u.osds);
  for (auto& [id, p] : pools) {
    u.stored += p.stored;
    u.objects += p.objects;
    p.copies = p.objects * static_cast<std::uint64_t>(std::max(p.size, 0));
    if (p.k > 0 && p.size >= p.k) {
      const auto k = static_cast<double>(p.k);
      const auto size = static_cast<double>(p.size);
      p.used = static_cast<std::uint64_t>(std::ceil(static_cast<double>(p.stored) * size / k));
      p.max_avail = static_cast<std::uint64_t>(static_cast<double>(raw_avail) * k / size);
      const double avail_raw = static_cast<double>(p.max_avail) * size / k;
      p.avail_raw = static_cast<std::uint64_t>(avail_raw);
      const double used = static_cast<double>(p.used);
      p.percent_used = used + avail_raw > 0 ? used / (used + avail_raw) : 0.0;
    }
    u.pools.push_back(std::move(p));
  }
  return u;
}

}  // namespace ec::cluster::admin
