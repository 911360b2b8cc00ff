// Placement: where an object's shards live, as a pure function of the cluster map.
//
//   object name --HashBytes(pool)--> 64-bit hash --StableMod(pg_num)--> PG
//   (pool, PG) --straw2 draws, "indep" rounds--> acting set: size = k+m OSD ids, shard i on
//                                                position i, kItemNone (-1) where none fits
//
// Straw2, as in CRUSH: at position r and attempt t, every OSD with weight > 0 draws
//   draw = log2(u) / weight,  u = (hash(pool, pg, r, t, osd id) >> 32 + 1) / 2^32 in (0, 1]
// and the highest draw wins (ties: the lower OSD id). The winner is OSD i with probability
// weight_i / sum of weights, and adding or removing one OSD changes only the draws it wins or
// loses. log2 is the fixed-point NegLog2Fixed (placement_hash.h), so results are bit-identical
// everywhere.
//
// Rounds, as CRUSH's "indep" mode for erasure-coded pools: in round t = 0, 1, ... every position
// still empty draws with attempt t; the winner is rejected if it is out or if its failure domain
// (the OSD itself, or its host) already holds a position. Rejecting an out OSD instead of removing
// it from the draw keeps every other position's draws unchanged, and filling all positions in
// round 0 before any retry means a position that has to move re-draws against the positions
// already placed, instead of bumping them: marking one OSD out moves (almost) only its shards.
// After kPlacementTries rounds, a position still empty takes the best draw among the OSDs that fit
// (a bounded last pass, so a map with most of its weight out still fills).
//
// Failure domain host: OSDs are drawn directly and rejected when their host is taken (not hosts
// first, then an OSD): a host's weight never enters the draw, so a change to one OSD does not
// perturb the positions of the other OSDs of its host.
//
// Contract: at most min(size, number of distinct domains with an in OSD of weight > 0) positions
// are filled; the others are kItemNone. No OSD and (domain host) no host appears twice. Out OSDs
// and OSDs of weight 0 hold nothing. up/down does not change placement (Ceph's acting set); UpSet
// marks the positions whose OSD is down as kItemNone. Every call ends: the work is bounded by
// kPlacementTries * size * (number of OSDs) draws.
//
// Thread safety: Placement is immutable after Create; const methods may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::cluster {

inline constexpr int kItemNone = -1;        // Ceph's CRUSH_ITEM_NONE: no OSD at this position
inline constexpr int kPlacementTries = 50;  // CRUSH's choose_total_tries default
inline constexpr int kMaxPoolSize = 64;     // the largest k+m a pool may have

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
  std::vector<double> DrawWeights(int size) const;

  std::vector<OsdInfo> osds_;         // sorted by id
  std::vector<int> osd_domain_host_;  // per OSD: index of its host
  // OSDs with weight > 0 (the ones that draw), as indexes into osds_.
  std::vector<int> candidates_;
  int host_count_ = 0;
};

}  // namespace ec::cluster
