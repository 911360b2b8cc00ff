// ReadCostModel: what a read plan costs, so that the repair engine can choose the cheapest plan
// for a degraded read (issue 14: "degraded reads at the least cost").
//
//   cost = weight_net * network bytes + weight_dev * device bytes
//
//   network bytes  the bytes every helper that is NOT local sends (a shard held by the caller
//                  itself, e.g. the primary OSD, crosses no network);
//   device bytes   the bytes every helper's store reads from its device: the helper's extents,
//                  merged, each rounded out to whole device blocks (4 KiB: what the store reads),
//                  blocks shared by two extents counted once. Local helpers count here too.
//
// A plan asks each helper for one request of merged extents (see shard_source.h), so a helper's
// price is the price of that extent list. Example (block 4096): a remote helper sending extents
// [100, 300) and [4000, 4200) costs 400 network bytes and 8192 device bytes (blocks 0 and 1).
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "recovery/read_plan.h"

namespace ec::recovery {

struct ReadCostModel {
  double weight_net = 1.0;            // per byte over the network (>= 0, finite)
  double weight_dev = 1.0;            // per byte read from a device (>= 0, finite)
  std::uint64_t device_block = 4096;  // device reads are rounded out to these blocks (>= 1)
  ShardSet local;                     // shards held by the caller: no network cost
  // Shard -> the bytes it stores, for shards kept without padding (Fast EC): extents past that
  // are zeros nobody reads or sends, priced as nothing. A shard not listed is priced whole.
  std::map<int, std::uint64_t> stored;
};

// Errors: EINVAL "read cost model: ..." for a negative or non-finite weight or a block of 0.
Status CheckModel(const ReadCostModel& model);

// The price of one plan (or one helper).
struct ReadCost {
  std::uint64_t net_bytes = 0;
  std::uint64_t device_bytes = 0;
  double total = 0;  // weight_net * net_bytes + weight_dev * device_bytes
  bool operator==(const ReadCost&) const = default;
};

// One helper's extents (any order; overlapping or adjacent ones are merged first): the bytes it
// sends (`net_bytes`, whether or not it is local) and the device bytes for `block`-byte blocks.
// `total` is left 0. Precondition: block >= 1.
ReadCost PriceExtents(std::vector<Extent> extents, std::uint64_t block);

// The price of reading `reads` (helper shard -> its extents) under `model`: network bytes of the
// non-local helpers, device bytes of all, and the weighted total. Precondition: CheckModel(model).
ReadCost PriceReads(const ReadCostModel& model, const std::map<int, std::vector<Extent>>& reads);

// Shard `id`'s extents under `model`: PriceExtents of their parts below what it stores
// (model.stored), the whole extents when it is not listed.
ReadCost PriceHelper(const ReadCostModel& model, int id, std::vector<Extent> extents);

// Adds `helper` (priced by PriceExtents) to `sum` as shard `id` under `model` (total updated).
void AddHelperCost(const ReadCostModel& model, int id, const ReadCost& helper, ReadCost* sum);

}  // namespace ec::recovery
