// Placement: where an object's shards live, as a pure function of the cluster map.
//
//   object name --HashBytes(pool)--> 64-bit hash --StableMod(pg_num)--> PG
//   (pool, PG) --straw2 scores, greedy matching--> acting set: size = k+m OSD ids, shard i on
//                                                  position i, kItemNone (-1) where none fits
//
// Straw2, as in CRUSH: for position r every OSD of weight > 0 (in or out) draws
//   draw = log2(u) / w',  u = ((hash(pool, pg, r, osd id) >> 32) + 1) / 2^32 in (0, 1]
// where w' is the OSD's draw weight (below). A higher draw is better; log2 is the fixed-point
// NegLog2Fixed (placement_hash.h) and the division an IEEE double division, so results are
// bit-identical everywhere.
//
// Phase 1 (matching): all (position, OSD) pairs, best draw first (ties: lower position, then lower
// OSD id); a pair is taken when its position, its OSD and its failure domain (the OSD, or its host)
// are all still free. In/out is not looked at, so marking an OSD out changes nothing here.
// Phase 2 (out rejected after the draw, as CRUSH rejects an out item and retries): a position
// matched to an out OSD, or to none, takes its best pair among the OSDs that are in, unmatched
// and in a free domain. So marking one OSD out moves exactly the shards it held (tested: 1.0000x,
// no other shard moves, both domains).
//
// Draw weight: choosing `size` distinct OSDs by weighted draws under-serves heavy OSDs (an OSD of
// weight share s is in a PG with probability below size * s). With Hajek's approximation of
// sampling without replacement, P(in) = 1 - exp(-c w'), so w' = -log2(1 - size * s) gives P(in)
// close to size * s (tested: every OSD within 1.6% of its weight share). s is the share of the
// total weight of every OSD of weight > 0, in or out, so that out changes no draw; an OSD due more
// than one shard per PG (size * s >= 1) draws as one due a shard in every PG.
//
// Failure domain host: OSDs are drawn directly and a pair is refused when its host is taken (not
// hosts first, then an OSD): a host's weight never enters the draw, so marking out an OSD or
// changing it does not perturb the draws of the other OSDs of its host.
//
// Adding an OSD changes draws (its own, and through the total weight every w' a little), and a
// position it takes frees the OSD that held it, which may take another position: adding moves
// more than the optimum (measured in placement_test.cc and README.md: 1.03x on 48 OSDs, up to
// 1.27x on 12 OSDs with size 6, up to 1.66x under domain host).
//
// Contract: exactly min(size, number of distinct domains with an in OSD of weight > 0) positions
// are filled; the others are kItemNone. No OSD and (domain host) no host appears twice. Out OSDs
// and OSDs of weight 0 hold nothing. up/down does not change placement (Ceph's acting set); UpSet
// marks the positions whose OSD is down as kItemNone. Work per PG: size * (OSDs of weight > 0)
// draws and one sort of those pairs; no loop depends on the draws, so every call ends.
//
// Thread safety: Placement is immutable after Create; const methods may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::cluster {

inline constexpr int kItemNone = -1;     // Ceph's CRUSH_ITEM_NONE: no OSD at this position
inline constexpr int kMaxPoolSize = 64;  // the largest k+m a pool may have

struct OsdInfo {
  int id = 0;         // >= 0, unique in the map
  std::string host;   // non-empty; the failure domain under FailureDomain::kHost
  double weight = 0;  // finite, >= 0, any unit (CRUSH: 1.0 per TiB); 0 holds nothing
  bool in = true;     // out OSDs hold nothing
  bool up = true;     // does not change placement; see UpSet
};

// Ceph's crush-failure-domain profile key: "osd" or "host".
enum class FailureDomain { kOsd, kHost };
// Errors: EINVAL "unknown crush-failure-domain 'X' (expected osd or host)".
Result<FailureDomain> ParseFailureDomain(std::string_view name);
std::string_view FailureDomainName(FailureDomain domain);

struct PoolPlacement {
  std::int64_t pool_id = 0;  // >= 0
  std::uint32_t pg_num = 1;  // >= 1
  int size = 1;              // k + m, 1..kMaxPoolSize
  FailureDomain failure_domain = FailureDomain::kHost;
};

// Errors: EINVAL naming the field for pool_id < 0, pg_num 0, size outside 1..kMaxPoolSize.
Status ValidatePool(const PoolPlacement& pool);

// object -> PG: StableMod(HashBytes(Mix64(pool_id + kGolden64), name), pg_num). Growing pg_num
// splits PGs (ceph_stable_mod): an object keeps its PG or moves to a PG numbered >= the old
// pg_num. Errors: ValidatePool's.
Result<std::uint32_t> ObjectToPg(const PoolPlacement& pool, std::string_view object_name);

// The object's raw placement seed before the modulo, as Ceph's "raw pg" (`ceph osd map` prints
// pool.<hex>): the low 32 bits of the object hash, which are all StableMod looks at for any
// 32-bit pg_num, so ObjectToPg(pool, name) == StableMod(ObjectRawHash(pool, name), pg_num).
// Errors: ValidatePool's.
Result<std::uint32_t> ObjectRawHash(const PoolPlacement& pool, std::string_view object_name);

class Placement {
 public:
  // Validates and indexes the OSDs (their order does not matter). Errors: EINVAL naming the OSD
  // for a negative or duplicate id, an empty host, a weight that is negative or not finite.
  static Result<Placement> Create(std::vector<OsdInfo> osds);

  // The acting set of (pool, pg): pool.size OSD ids, kItemNone where nothing fits (see the
  // contract above). Errors: ValidatePool's, EINVAL for pg >= pg_num.
  Result<std::vector<int>> Place(const PoolPlacement& pool, std::uint32_t pg) const;

  // The up set: `acting` with every OSD that is down (or not in this map) replaced by kItemNone.
  std::vector<int> UpSet(const std::vector<int>& acting) const;

  const std::vector<OsdInfo>& osds() const { return osds_; }

 private:
  Placement() = default;
  // Per OSD index: its draw weight w' for a pool of `size` (0 for weight 0).
  std::vector<double> DrawWeights(int size) const;

  std::vector<OsdInfo> osds_;         // sorted by id
  std::vector<int> osd_domain_host_;  // per OSD: index of its host
  // OSDs with weight > 0 (the ones that draw), as indexes into osds_.
  std::vector<int> candidates_;
  int host_count_ = 0;
};

}  // namespace ec::cluster
