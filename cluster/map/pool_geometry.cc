#include "cluster/map/pool_geometry.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace ec::cluster {
namespace {

Result<int> IntKey(const ec::Profile& profile, const std::string& key) {
  auto it = profile.find(key);
  if (it == profile.end()) return Status::Invalid("profile has no '" + key + "'");
  int value = 0;
  const char* b = it->second.data();
  const char* e = b + it->second.size();
  auto [p, ec] = std::from_chars(b, e, value);
  if (ec != std::errc() || p != e || value < 0) {
    return Status::Invalid("profile key " + key + "=" + it->second + " is not a number");
  }
  return value;
}

}  // namespace

Result<PoolGeometry> GeometryOf(const ec::Profile& profile) {
  PoolGeometry g;
  auto plugin = profile.find("plugin");
  auto mapping = profile.find("mapping");
  const bool lrc = plugin != profile.end() && plugin->second == "lrc";
  // An explicit lrc profile (mapping + layers): lrc's init writes k=m=l=-1 ("not set") into it.
  auto l = profile.find("l");
  if (lrc && mapping != profile.end() && (l == profile.end() || l->second == "-1")) {
    g.size = static_cast<int>(mapping->second.size());
    g.k = static_cast<int>(std::count(mapping->second.begin(), mapping->second.end(), 'D'));
  } else {
    Result<int> k = IntKey(profile, "k");
    if (!k.ok()) return k.status();
    Result<int> m = IntKey(profile, "m");
    if (!m.ok()) return m.status();
    g.k = *k;
    g.size = *k + *m;
    if (lrc) {
      Result<int> l = IntKey(profile, "l");
      if (!l.ok()) return l.status();
      if (*l == 0) return Status::Invalid("profile key l=0 is not valid");
      g.size += (*k + *m) / *l;
    }
  }
  if (g.k < 1 || g.size < g.k || g.size > kMaxPoolSize) {
    return Status::Invalid("profile gives k=" + std::to_string(g.k) + " and " +
                           std::to_string(g.size) + " chunks, outside 1.." +
                           std::to_string(kMaxPoolSize));
  }
  auto domain = profile.find("crush-failure-domain");
  if (domain != profile.end()) {
    Result<FailureDomain> d = ParseFailureDomain(domain->second);
    if (!d.ok()) return d.status();
    g.failure_domain = *d;
  }
  return g;
}

Result<PoolGeometry> GeometryOfPool(const ClusterMap& map, const Pool& pool) {
  if (pool.type == PoolType::kReplicated) {
    if (pool.size < 1 || pool.size > kMaxPoolSize) {
      return Status::Invalid("pool " + pool.name + " has size " + std::to_string(pool.size));
    }
    PoolGeometry g;
    g.k = 1;
    g.size = pool.size;
    g.failure_domain = FailureDomain::kHost;
    return g;
  }
  auto profile = map.profiles.find(pool.profile);
  if (profile == map.profiles.end()) {
    return Status::NotFound("erasure-code-profile " + pool.profile + " does not exist");
  }
  Result<PoolGeometry> g = GeometryOf(profile->second.profile);
  if (!g.ok()) return g.status().WithPrefix("erasure-code-profile " + pool.profile);
  return g;
}

Result<PoolPlacement> PlacementOf(const ClusterMap& map, const Pool& pool) {
  Result<PoolGeometry> g = GeometryOfPool(map, pool);
  if (!g.ok()) return g.status();
  PoolPlacement p;
  p.pool_id = pool.id;
  p.pg_num = pool.pg_num;
  p.size = g->size;
  p.failure_domain = g->failure_domain;
  return p;
}

Result<Placement> PlacementFor(const ClusterMap& map) {
  std::vector<OsdInfo> osds;
  osds.reserve(map.osds.size());
  for (const auto& [id, osd] : map.osds) osds.push_back(osd.ToOsdInfo());
  return Placement::Create(std::move(osds));
}

std::string PgName(std::int64_t pool_id, std::uint32_t pg) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%x", pg);
  return std::to_string(pool_id) + "." + buf;
}

std::optional<PgId> ParsePgId(std::string_view text) {
  const std::size_t dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view pool = text.substr(0, dot);
  const std::string_view pg = text.substr(dot + 1);
  const auto digits = [](std::string_view s, std::string_view set) {
    return !s.empty() && s.find_first_not_of(set) == std::string_view::npos;
  };
  if (!digits(pool, "0123456789") || !digits(pg, "0123456789abcdefABCDEF")) return std::nullopt;
  PgId id;
  auto [pool_end, pool_ec] = std::from_chars(pool.data(), pool.data() + pool.size(), id.pool);
  auto [pg_end, pg_ec] = std::from_chars(pg.data(), pg.data() + pg.size(), id.pg, 16);
  if (pool_ec != std::errc() || pool_end != pool.data() + pool.size() || pg_ec != std::errc() ||
      pg_end != pg.data() + pg.size()) {
    return std::nullopt;
  }
  return id;
}

std::string OsdList(const std::vector<int>& osds) {
  std::string out = "[";
  for (std::size_t i = 0; i < osds.size(); ++i) {
    if (i > 0) out += ",";
    out += osds[i] == kItemNone ? std::string("NONE") : std::to_string(osds[i]);
  }
  return out + "]";
}

}  // namespace ec::cluster
