// Planning for the repair engine (internal to recovery/, see repair_engine.h): checking a request,
// choosing helpers and the kind of plan, and cutting a byte range into runs of stripes that read
// the same sub-chunks, each with its reads per helper and the batch size the source allows.
//
// Thread safety: pure functions of their arguments (the code's const methods).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"
#include "recovery/repair_engine.h"
#include "recovery/shard_source.h"

namespace ec::recovery {

// How the stripes of one run (stripes that need the same chunk bytes) are read and rebuilt.
struct RunPlan {
  ChunkRun run;
  SubChunkRange range{0, 0};  // kSubChunkRepair: sub-chunks rebuilt per stripe
  SubChunkPlan reads;         // helper -> sub-chunk ranges per stripe (not for kDirect)
  std::map<int, std::size_t> bytes_per_stripe;  // helper -> bytes it sends per stripe
};

// A plan in force for shard bytes [pos, end), cut into runs, and the batch size it allows.
struct ActivePlan {
  RepairPlan plan;
  std::vector<RunPlan> runs;
  std::uint64_t stripes_per_batch = 1;
};

// Checks ids, costs and the byte range of `r`; *end receives the end of the range (exclusive).
// Errors: EINVAL with a message naming what is wrong.
Status CheckRequest(const StripeLayout& layout, const RepairRequest& r, std::uint64_t* end);

// The plan for `want` from `costs` (a request's available shards minus the failed ones). Errors:
// the code's (EIO when `costs` cannot rebuild `want`), EINVAL/EIO for a plan the code should not
// have made (ranges out of bounds, chunks it did not choose).
Result<RepairPlan> MakePlan(const ErasureCodeInterface& code, const StripeLayout& layout,
                            const ShardSet& want, const std::map<int, int>& costs);

// The plan for `want` read from exactly `helpers` (a set the caller chose, e.g. a candidate of
// the least-cost choice). Errors: the code's (EIO when `helpers` cannot rebuild `want`), and
// MakePlan's checks of the code's plan.
Result<RepairPlan> MakePlanFrom(const ErasureCodeInterface& code, const StripeLayout& layout,
                                const ShardSet& want, const ShardSet& helpers);

// Cuts shard bytes [pos, end) into runs and plans each (partial repair of the sub-chunks a partial
// stripe needs); sizes the batches to `batch_bytes` and the source's limits. Errors: the code's,
// EINVAL when one stripe does not fit in one request of the source.
Result<ActivePlan> PlanRuns(const ErasureCodeInterface& code, const StripeLayout& layout,
                            RepairPlan plan, const ShardSet& want, std::uint64_t pos,
                            std::uint64_t end, const ShardSourceLimits& limits,
                            std::size_t batch_bytes);

}  // namespace ec::recovery
