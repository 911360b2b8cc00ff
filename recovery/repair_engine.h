// RepairEngine: rebuilds shards (or a byte range of them) from the other shards, reading the least
// the code needs. One engine for every caller: `ec-tool decode` / `ec-tool repair` (shard files),
// and the OSD's degraded reads and recovery (OSDs over the network, through a ShardSource).
//
//   want + available shards (with costs)
//     -> plan: helpers = minimum_to_decode_with_cost(want, costs), then per stripe the sub-chunks
//        to read (minimum_to_decode(want, helpers); for one lost chunk of a code with sub-chunk
//        repair, minimum_to_repair(lost, the sub-chunks the byte range needs, helpers))
//     -> per batch of stripes: the merged extents of each helper, ONE request per helper (the
//        first batch also carries RepairRequest::also_read, merged into the same requests)
//     -> decode (StripeCodec: decode_chunks, or repair_sub_chunks for CLAY)
//     -> the rebuilt bytes, batch after batch, to the caller's sink
//   A helper whose request fails is dropped and the engine plans again with the others (RS-style
//   reads when too few remain for a CLAY repair), retrying the same batch; when no plan remains
//   the call fails naming every failed helper.
//
// Choosing a plan: without a cost model (RepairRequest::cost unset), the helpers are the code's
// minimum_to_decode_with_cost over the request's integer costs (today's behaviour). With one, the
// engine prices candidate plans for the request's actual byte range and stripes and takes the
// cheapest (recovery/read_cost.h: weight_net * network bytes + weight_dev * device bytes, device
// reads rounded out to 4 KiB blocks, local shards free of network): the direct read when every
// wanted shard is available, kDecode from k-shard sets (the code's choices, the k cheapest by the
// model, every k-subset of a small code), and, for one lost chunk of CLAY, native repair sets.
// Candidates() lists them with their costs; plan_choice.h says exactly which are tried.
//
// Kinds of plans (RepairPlan::Kind):
//   kDirect          every wanted shard is available: read exactly the wanted bytes;
//   kDecode          read whole chunks of k helpers and decode (any code; every stripe of the range
//                    whole, so a partial first/last stripe still reads whole chunks);
//   kSubChunkRepair  one lost chunk rebuilt from sub-chunks of d helpers (CLAY: d*C/q per whole
//                    stripe). With the code's repair_sub_chunks ("native") only the sub-chunks
//                    that the byte range touches are rebuilt, and helpers send only what those
//                    need (partial repair); without it whole chunks are rebuilt.
//
// Threads: Run() works on the calling thread and returns when done; the source's completions may
// arrive on other threads (the engine waits for all of them before it touches or frees a
// buffer, also on errors). The sink runs on the calling thread. An engine is immutable: several
// threads may Run() on one engine at once (each with its own source unless the source allows
// sharing).
// Buffers: the engine owns its read and output buffers (reused from batch to batch); the bytes a
// sink sees are valid only during that sink call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"
#include "recovery/read_cost.h"
#include "recovery/shard_source.h"

namespace ec::recovery {

inline constexpr std::uint64_t kToTheEnd = std::numeric_limits<std::uint64_t>::max();

struct RepairRequest {
  ShardSet want;                     // chunk ids to rebuild (or read, when available)
  std::map<int, int> available;      // chunk id -> cost of reading that whole chunk (>= 0)
  std::uint64_t stripes = 0;         // the object's stripes: every shard is stripes * C bytes
  std::uint64_t offset = 0;          // shard bytes [offset, offset + length) of each wanted shard
  std::uint64_t length = kToTheEnd;  // kToTheEnd: up to stripes * C
  // With a model: the least-cost plan for this range (see "Choosing a plan" above); without one,
  // the code's choice from `available`'s costs (what ec-tool and osd_shard_source callers get).
  std::optional<ReadCostModel> cost = std::nullopt;
  // Extents of other available shards (not wanted) that the caller wants read too, e.g. the
  // direct part of an object read: they go in the same request as the plan's reads of that shard
  // (ONE request per shard, extents merged), in the first batch; a plan is priced with them
  // (shared bytes and blocks once). Each shard's bytes reach the sink back to back, in the
  // order of its extents, in RebuiltBytes::also_read of the first batch. A shard whose request
  // fails is left out there (and is in RepairStats::failed). Nothing is read for an empty range.
  std::map<int, std::vector<Extent>> also_read = {};
};

// What a call read, per helper shard (all counts include retried batches).
struct HelperStats {
  std::uint64_t requests = 0;         // requests sent to this helper
  std::uint64_t extents = 0;          // merged extents in them
  std::uint64_t bytes = 0;            // bytes of the requests that succeeded
  std::uint64_t failed_requests = 0;  // requests that failed (the helper is then dropped)
};

struct RepairStats {
  std::map<int, HelperStats> helpers;  // chunk id -> counters (every helper ever asked)
  std::map<int, Status> failed;        // helpers dropped after a failure, with their error
  std::uint64_t stripes = 0;           // stripes whose bytes were delivered
  std::uint64_t batches = 0;           // batches delivered
  std::uint64_t plans = 0;             // plans made: 1 + the re-plans after failures

  std::uint64_t bytes_read() const;
  std::uint64_t requests() const;
  std::uint64_t extents() const;
  // The helpers read successfully at least once, ascending.
  ShardSet helpers_read() const;
};

struct RepairPlan {
  enum class Kind { kDirect, kDecode, kSubChunkRepair };
  Kind kind = Kind::kDecode;
  ShardSet helpers;     // the chunks minimum_to_decode_with_cost chose
  SubChunkPlan reads;   // what a whole stripe reads from each helper
  bool native = false;  // kSubChunkRepair through the code's repair_sub_chunks (partial repair)
  std::uint64_t bytes_per_stripe = 0;  // sum over helpers for a whole stripe
  // The price of reading the request's whole range with this plan (one request per helper);
  // set only when the request has a cost model (Plan(), Candidates()), zero otherwise.
  ReadCost cost;
};

// What Run() reads in its first batch (PlanFirstBatch).
struct FirstBatch {
  std::map<int, std::vector<Extent>> reads;  // shard -> the extents of its ONE request, in order
  bool whole =
      false;  // the first batch is the whole range: without a failure, nothing else is read
};

// One batch of results: shard bytes [offset, offset + length) of every wanted shard.
struct RebuiltBytes {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::map<int, std::span<const std::byte>> shards;  // wanted chunk id -> its bytes
  // First batch only: RepairRequest::also_read shard -> its extents' bytes, back to back.
  std::map<int, std::span<const std::byte>> also_read = {};
};
// Returns OK to go on; an error stops the call and is returned by Run().
using RebuiltSink = std::function<Status(const RebuiltBytes&)>;

struct RepairEngineOptions {
  // Bytes of stripe width per batch (at least one stripe per batch): large reads, bounded memory.
  std::size_t batch_bytes = std::size_t{16} << 20;
};

class RepairEngine {
 public:
  // `code` is shared (kept alive by the engine); `layout` must be StripeLayout::Make(*code, ...).
  RepairEngine(ErasureCodeInterfaceRef code, StripeLayout layout, RepairEngineOptions options = {});

  const StripeLayout& layout() const { return layout_; }

  // The plan Run() would start with, before any read. Errors: EINVAL for a bad request (no shard
  // wanted, ids out of range, a range past the end of the shards, a negative cost, an also_read
  // shard that is wanted or not available or an extent past its end); EIO when the
  // available shards cannot rebuild `want` (the code's message, e.g. "need 4 chunks to decode,
  // only 3 available").
  // With a cost model: the cheapest of Candidates(request), with its cost. Also EINVAL for a bad
  // model (CheckModel). Remembered: the same request again gets the same plan without pricing
  // the candidates again. Thread-safe.
  Result<RepairPlan> Plan(const RepairRequest& request) const;

  // Every candidate plan for the request, priced under its model (the default model when it has
  // none: every shard remote, weights 1 and 1, 4 KiB blocks), cheapest first: what Plan() chooses
  // from, for tests and counters. Errors: those of Plan().
  Result<std::vector<RepairPlan>> Candidates(const RepairRequest& request) const;

  // The requests Run(request, source) sends in its first batch when its first plan is `plan`
  // (what Plan(request) returns: Run() chooses the same) and source.limits() is `limits`: per
  // shard, exactly the extents of its one request. For callers that fetch those bytes ahead,
  // e.g. for many objects in one request per helper (osd/pg's batched recovery), and serve them
  // to Run() through a ShardSource. Errors: those of Plan(); EINVAL for a request with also_read;
  // PlanRuns' (a stripe that does not fit one request within `limits`).
  Result<FirstBatch> PlanFirstBatch(const RepairRequest& request, const RepairPlan& plan,
                                    const ShardSourceLimits& limits) const;

  // Rebuilds the request's range of every wanted shard, calling `sink` once per batch in shard
  // order. `stats` (if given) is filled also when the call fails. Errors: those of Plan();
  // EIO (Retryable when every failure was) "cannot rebuild shard(s) W: helper(s) failed: i (<its
  // error>), ...; the other available shards are not enough (<the code's message>)"; the
  // sink's error; the code's decode errors (prefixed "failed to decode: ").
  // `first` (may be null): what Plan(request) returned for this very request, to start with
  // instead of planning again (Run() would choose the same); replanning after a failed helper is
  // unchanged.
  Status Run(const RepairRequest& request, ShardSource& source, const RebuiltSink& sink,
             RepairStats* stats = nullptr, const RepairPlan* first = nullptr) const;

  // Run() into memory: the request's bytes of every wanted shard (length bytes each), and the
  // stats. Meant for ranges that fit in memory (degraded reads, tests).
  struct Rebuilt {
    std::map<int, Buffer> shards;
    std::map<int, Buffer> also_read;  // the also_read shards that were read, as in RebuiltBytes
    RepairStats stats;
  };
  Result<Rebuilt> Rebuild(const RepairRequest& request, ShardSource& source,
                          const RepairPlan* first = nullptr) const;

 private:
  // The plan for `request` from the shards in `costs` (its available ones minus failed helpers),
  // priced for the shard bytes [pos, end) still to read.
  Result<RepairPlan> Choose(const RepairRequest& request, const std::map<int, int>& costs,
                            std::uint64_t pos, std::uint64_t end) const;

  // Plan()'s answers by request: a plan is a pure function of the request (and this engine's code
  // and layout), and degraded reads of objects of one shape ask the same question over and over
  // (pricing the candidates costs tens of microseconds). Shared by copies of the engine; cleared
  // when it holds kMaxPlans.
  struct PlanCache {
    static constexpr std::size_t kMaxPlans = 4096;
    std::mutex mu;
    std::unordered_map<std::string, RepairPlan> plans;
  };

  ErasureCodeInterfaceRef code_;
  StripeLayout layout_;
  RepairEngineOptions options_;
  std::shared_ptr<PlanCache> cache_ = std::make_shared<PlanCache>();
};

// "0,2,5"
std::string JoinShards(const ShardSet& ids);

}  // namespace ec::recovery
