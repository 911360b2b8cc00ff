#include "cluster/placement/placement.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "cluster/placement/placement_hash.h"

namespace ec::cluster {
namespace {

// Seeds that keep the object hash and the draw hash apart ("objname", "straw2").
constexpr std::uint64_t kObjectSeed = 0x6F626A6E616D65ULL;
constexpr std::uint64_t kDrawSeed = 0x7374726177320000ULL;

}  // namespace

Result<FailureDomain> ParseFailureDomain(std::string_view name) {
  if (name == "osd") return FailureDomain::kOsd;
  if (name == "host") return FailureDomain::kHost;
  return Status::Invalid("unknown crush-failure-domain '" + std::string(name) +
                         "' (expected osd or host)");
}

std::string_view FailureDomainName(FailureDomain domain) {
  return domain == FailureDomain::kOsd ? "osd" : "host";
}

Status ValidatePool(const PoolPlacement& pool) {
  if (pool.pool_id < 0) return Status::Invalid("pool id " + std::to_string(pool.pool_id) + " < 0");
  if (pool.pg_num == 0) return Status::Invalid("pg_num must be >= 1");
  if (pool.size < 1 || pool.size > kMaxPoolSize) {
    return Status::Invalid("pool size " + std::to_string(pool.size) + " is outside 1.." +
                           std::to_string(kMaxPoolSize));
  }
  return Status::OK();
}

Result<std::uint32_t> ObjectRawHash(const PoolPlacement& pool, std::string_view object_name) {
  EC_RETURN_IF_ERROR(ValidatePool(pool));
  const std::uint64_t seed =
      HashCombine(Mix64(kObjectSeed), static_cast<std::uint64_t>(pool.pool_id));
  return static_cast<std::uint32_t>(HashBytes(seed, object_name));
}

Result<std::uint32_t> ObjectToPg(const PoolPlacement& pool, std::string_view object_name) {
  auto raw = ObjectRawHash(pool, object_name);
  if (!raw.ok()) return raw.status();
  return StableMod(*raw, pool.pg_num);
}

Result<Placement> Placement::Create(std::vector<OsdInfo> osds) {
  std::sort(osds.begin(), osds.end(),
            [](const OsdInfo& a, const OsdInfo& b) { return a.id < b.id; });
  Placement p;
  std::map<std::string, int> hosts;
  for (std::size_t i = 0; i < osds.size(); ++i) {
    const OsdInfo& o = osds[i];
    const std::string name = "osd." + std::to_string(o.id);
    if (o.id < 0) return Status::Invalid(name + ": id must be >= 0");
    if (i > 0 && osds[i - 1].id == o.id) return Status::Invalid(name + ": duplicate id");
    if (o.host.empty()) return Status::Invalid(name + ": empty host");
    if (!std::isfinite(o.weight) || o.weight < 0) {
      return Status::Invalid(name + ": weight must be finite and >= 0");
    }
    auto [it, inserted] = hosts.emplace(o.host, static_cast<int>(hosts.size()));
    (void)inserted;
    p.osd_domain_host_.push_back(it->second);
    if (o.weight > 0) p.candidates_.push_back(static_cast<int>(i));
  }
  p.host_count_ = static_cast<int>(hosts.size());
  p.osds_ = std::move(osds);
  return p;
}

// Picking `size` distinct OSDs by weighted draws (sampling without replacement) under-serves heavy
// OSDs: an OSD of weight share s is in a PG with probability below size * s (and never above 1).
// With Hajek's approximation of that sampling, P(in) = 1 - exp(-c * w), drawing with
// w' = -log(1 - size * s) makes P(in) = size * s. The share is over every OSD of weight > 0, in or
// out, so marking an OSD out changes no draw.
std::vector<double> Placement::DrawWeights(int size) const {
  std::vector<double> w(osds_.size(), 0);
  double total = 0;
  for (int idx : candidates_) total += osds_[idx].weight;
  for (int idx : candidates_) {
    const double p = static_cast<double>(size) * osds_[idx].weight / total;
    // 1 - p as a 32-bit fraction, at least 2^-32: an OSD due more than one shard per PG draws as
    // one due a shard in every PG.
    const double q = p >= 1 ? 0 : (1 - p) * 4294967296.0;
    const std::uint32_t u32 = q < 1 ? 0 : static_cast<std::uint32_t>(std::min(q - 1, 4294967295.0));
    w[idx] = static_cast<double>(NegLog2Fixed(u32));
    if (w[idx] <= 0) w[idx] = 1;  // p below 2^-32: the smallest weight that draws at all
  }
  return w;
}

Result<std::vector<int>> Placement::Place(const PoolPlacement& pool, std::uint32_t pg) const {
  EC_RETURN_IF_ERROR(ValidatePool(pool));
  if (pg >= pool.pg_num) {
    return Status::Invalid("pg " + std::to_string(pg) + " >= pg_num " +
                           std::to_string(pool.pg_num));
  }
  const bool by_host = pool.failure_domain == FailureDomain::kHost;
  auto domain_of = [&](int idx) { return by_host ? osd_domain_host_[idx] : idx; };
  std::vector<char> domain_used(by_host ? host_count_ : osds_.size(), 0);

  // Positions that can be filled: one per distinct domain holding an in OSD of weight > 0.
  int fillable = 0;
  {
    std::vector<char> seen(domain_used.size(), 0);
    for (int idx : candidates_) {
      if (!osds_[idx].in || seen[domain_of(idx)]) continue;
      seen[domain_of(idx)] = 1;
      ++fillable;
    }
  }
  const int target = std::min(pool.size, fillable);

  const std::uint64_t pg_seed =
      HashCombine(HashCombine(Mix64(kDrawSeed), static_cast<std::uint64_t>(pool.pool_id)), pg);
  // Straw2 score of OSD osds_[idx] for position r: -log2(u) / weight, lower is better (it is
  // minus the straw2 draw log2(u) / weight).
  const std::vector<double> draw_weight = DrawWeights(pool.size);
  struct Pair {
    double score;
    int r;
    int idx;
  };
  std::vector<Pair> pairs;
  pairs.reserve(static_cast<std::size_t>(pool.size) * candidates_.size());
  for (int r = 0; r < pool.size; ++r) {
    const std::uint64_t seed = HashCombine(pg_seed, static_cast<std::uint64_t>(r));
    for (int idx : candidates_) {
      const OsdInfo& o = osds_[idx];
      const std::uint64_t h = HashCombine(seed, static_cast<std::uint64_t>(o.id));
      pairs.push_back({static_cast<double>(NegLog2Fixed(static_cast<std::uint32_t>(h >> 32))) /
                           draw_weight[idx],
                       r, idx});
    }
  }
  // Ties (of probability ~2^-30) go to the lower position, then the lower OSD id (candidates_ is
  // in id order).
  std::sort(pairs.begin(), pairs.end(), [&](const Pair& a, const Pair& b) {
    if (a.score != b.score) return a.score < b.score;
    if (a.r != b.r) return a.r < b.r;
    return a.idx < b.idx;
  });

  // Phase 1, over every OSD of weight > 0, in or out: the greedy matching of positions to OSDs in
  // score order (a pair is taken when its position, its OSD and its domain are all free).
  std::vector<int> out(pool.size, -1);  // indexes into osds_ while placing
  std::vector<char> osd_used(osds_.size(), 0);
  for (const Pair& p : pairs) {
    if (out[p.r] >= 0 || osd_used[p.idx] || domain_used[domain_of(p.idx)]) continue;
    out[p.r] = p.idx;
    osd_used[p.idx] = 1;
    domain_used[domain_of(p.idx)] = 1;
  }
  // Phase 2: a position matched to an out OSD (or to none) takes its best-scoring OSD among those
  // that are in, unmatched and in a free domain. Phase 1 did not look at in/out, so marking an OSD
  // out changes phase 1 not at all and moves only the positions it held.
  std::fill(domain_used.begin(), domain_used.end(), 0);
  int placed = 0;
  for (int r = 0; r < pool.size; ++r) {
    if (out[r] >= 0 && !osds_[out[r]].in) out[r] = -1;
    if (out[r] >= 0) {
      domain_used[domain_of(out[r])] = 1;
      ++placed;
    }
  }
  if (placed < target) {
    for (const Pair& p : pairs) {
      if (placed >= target) break;
      if (out[p.r] >= 0 || osd_used[p.idx] || !osds_[p.idx].in || domain_used[domain_of(p.idx)]) {
        continue;
      }
      out[p.r] = p.idx;
      osd_used[p.idx] = 1;
      domain_used[domain_of(p.idx)] = 1;
      ++placed;
    }
  }

  std::vector<int> acting(pool.size, kItemNone);
  for (int r = 0; r < pool.size; ++r) {
    if (out[r] >= 0) acting[r] = osds_[out[r]].id;
  }
  return acting;
}

std::vector<int> Placement::UpSet(const std::vector<int>& acting) const {
  std::vector<int> up = acting;
  for (int& id : up) {
    if (id == kItemNone) continue;
    auto it = std::lower_bound(osds_.begin(), osds_.end(), id,
                               [](const OsdInfo& o, int v) { return o.id < v; });
    if (it == osds_.end() || it->id != id || !it->up) id = kItemNone;
  }
  return up;
}

}  // namespace ec::cluster
