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
//   - kDecode from every set of k available shards (at most kMaxHelperSets of them: beyond that
//     only the two sets above), which includes the k cheapest by the model and the one with the
//     local shards;
//   - one lost chunk of a code with sub-chunk repair: every larger set that the code repairs from
//     natively (kSubChunkRepair, partial repair of the range's sub-chunks), within the same bound.
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

// Helper sets tried per kind of plan before only the code's choices are tried.
inline constexpr std::size_t kMaxHelperSets = 256;

// The price of `plan` for shard bytes [pos, end) of `want`, set into plan->cost; `also` (the
// request's also_read) joins each shard's extents before it is priced. Errors: PlanRuns'.
Status PricePlan(const ErasureCodeInterface& code, const StripeLayout& layout, const ShardSet& want,
                 std::uint64_t pos, std::uint64_t end,
                 const std::map<int, std::vector<Extent>>& also, const ReadCostModel& model,
                 RepairPlan* plan);

// The candidates (see the file comment), priced, cheapest first (ties: the order above). Errors:
// EIO when no plan exists (the code's message, e.g. "need 4 chunks to decode, only 3
// available"); the code's planning errors.
Result<std::vector<RepairPlan>> PricedCandidates(const ErasureCodeInterface& code,
                                                 const StripeLayout& layout, const ShardSet& want,
                                                 const std::map<int, int>& costs, std::uint64_t pos,
                                                 std::uint64_t end,
                                                 const std::map<int, std::vector<Extent>>& also,
                                                 const ReadCostModel& model);

}  // namespace ec::recovery
