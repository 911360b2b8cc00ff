// The least-cost choice of the repair engine (internal to recovery/, see repair_engine.h and
// read_cost.h): the candidate plans for a request, each priced for the request's actual byte
// range under a ReadCostModel, cheapest first.
//
// Candidates, for `want` from the shards in `costs`:
//   - every wanted shard available: the direct read alone (it reads exactly the wanted bytes,
//     which every other plan also needs to decode them);
//   - the set the code chooses from the request's costs (today's plan, minimum_to_decode_with_cost)
//     and from costs derived from the model (local shards cheaper), which for CLAY is its own
//     repair-vs-decode choice;
//   - the code's choice leaning to sub-chunk repair (local shards first, all costs nearly
//     equal): for CLAY, its repair set (the lost chunk's group and the cheapest others up to d);
//   - kDecode from the k shards that are cheapest one by one (a decode reads the same extents of
//     every helper, so a decode's price is a sum over helpers and this set is the cheapest for an
//     MDS code, local shards and shards read for also_read first);
//   - small codes (at most kExhaustiveSets sets): kDecode from every k-subset and every larger
//     set that the code repairs from natively (one lost chunk, kSubChunkRepair, partial repair).
// Plans are priced as Run() reads them for bytes [pos, end): one request per helper with its
// merged extents over the whole range (batches cut only at stripe boundaries).
//
// Thread safety: pure functions of their arguments (the code's const methods).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"
#include "recovery/read_cost.h"
#include "recovery/repair_engine.h"

namespace ec::recovery {

// Helper sets of one kind tried one by one when there are at most this many (k=4 m=2: 5 decode
// sets and 1 repair set); beyond, only the choices above (a plan is made per degraded read).
inline constexpr std::uint64_t kExhaustiveSets = 16;

// The price of `plan` for shard bytes [pos, end) of `want`, set into plan->cost; `also` (the
// request's also_read) joins each shard's extents before it is priced. Errors: PlanRuns'.
Status PricePlan(const ErasureCodeInterface& code, const StripeLayout& layout, const ShardSet& want,
                 std::uint64_t pos, std::uint64_t end,
                 const std::map<int, std::vector<Extent>>& also, const ReadCostModel& model,
                 RepairPlan* plan);

// The candidates (see the file comment), priced, cheapest first (ties: fewer helpers that are
// not local, then the order above). Errors:
// EIO when no plan exists (the code's message, e.g. "need 4 chunks to decode, only 3
// available"); the code's planning errors.
Result<std::vector<RepairPlan>> PricedCandidates(const ErasureCodeInterface& code,
                                                 const StripeLayout& layout, const ShardSet& want,
                                                 const std::map<int, int>& costs, std::uint64_t pos,
                                                 std::uint64_t end,
                                                 const std::map<int, std::vector<Extent>>& also,
                                                 const ReadCostModel& model);

}  // namespace ec::recovery
