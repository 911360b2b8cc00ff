// Pipelined repair on the OSDs (issue 33 item 2): the rebuilding OSD gets a lost shard's bytes
// from a chain of helpers (recovery/pipeline_plan.h), each adding its share to a partial, so that
// no link carries more than one chunk's bytes and the rebuilding OSD receives one chunk, not k.
//
// The message flow: a pull chain, requests upstream and bytes downstream in the replies.
//
//   requester --req(hop=n-1)--> H[n-1] --req(hop=n-2)--> ... --req(hop=0)--> H[0]
//   requester <--partial 0..n-1-- H[n-1] <--partial 0..n-2-- ... <--partial 0-- H[0]
//
// Every hop reads its own extents for the slice as soon as the request arrives, while asking its
// predecessor, so the device reads of a slice overlap along the chain; when both are done it
// applies its stage (partial ^= coef x mine, ApplyStage) and answers with the partial. The
// requester keeps several slices in flight (ChainRepairOptions::window), so hop i works on slice
// s+1 while hop i+1 sends slice s. Why a pull chain rather than a push chain (each hop a request
// to the next, the last one delivering to the requester): the result arrives as the reply to the
// requester's own request, so there is no second path into the requester to secure (no delivery
// to match to a chain, no late delivery from an abandoned chain writing into a buffer reused
// since); an error anywhere travels back the same way, naming the hop that failed; and a timeout
// is one deadline per request, shrinking along the chain (below).
//
// Deadlines: the requester gives the last hop `timeout`; hop h (0-based) gives its predecessor
// h/(h+1) of what it got, so each hop keeps timeout/n of margin for its own read, work and
// reply, and a stalled hop is reported (ETIMEDOUT, failed_hop = it) by its successor before the
// requester's own deadline passes.
//
// Authentication (issue 32): every link is an OSD-to-OSD connection that proves osd.N's key
// (the requester's through its PullService's clients, a hop's through ChainServiceOptions::auth)
// where the OSDs require cephx; the messenger refuses a SubRepairChain from any other entity
// (EACCES, msg/authorize.h) before the service sees it, so no client can inject a hop.
//
// Checks at each hop (ChainService): the request's epoch against the interval fence (OsdService,
// as SubPull) and its map (waits up to map_wait for it, else Retryable ESTALE), the pool and its
// code (ENOENT, EINVAL for positions outside the code), the plan it makes from the pool's code
// and the hops' positions (PipelinePlan::Make; EOPNOTSUPP for a code that is not pipelinable;
// EPROTO when a hop's stage does not match the requester's fingerprint), the slice
// (PipelinePlan::CheckSlice; EMSGSIZE for a partial above kMaxChainPartialBytes), its shard at
// the object's version (ESTALE at another; ENOENT absent; DataLoss on a checksum failure), its
// stored bytes the length the object's size gives (EIO when shorter), the predecessor's partial
// of exactly PartialBytes (EBADMSG). A failure is answered with failed_hop naming the hop at
// fault, its own index when it is its own.
//
// The requester (RepairByChain) checks every reply's version and length and writes nothing: it
// fills the caller's buffer (the whole shard, or the byte range a primary's degraded read needs:
// ChainRepairTarget::offset, length; the primary's own shard may be the first hop,
// ChainRepairTarget::first_hop), and the caller (ObjectPuller, osd/pg/pull_object.h) writes the
// shard as a direct kRebuild does (one SubWrite at the object's version, only if still at
// prev_version). On a failed or stalled slice it re-plans without the hop at fault and runs the
// slices not yet received through the new chain (up to max_chains chains); past that, or when no
// chain can be planned, it returns the error and the caller pulls directly.
//
// Counters (registry, Prometheus text): ecstore_repair_chain_bytes_total{role=hop,dir=in|out}:
// partial bytes this OSD received from a predecessor and sent back as a hop;
// ecstore_repair_chain_bytes_total{role=requester,dir=in}: the lost chunks' bytes it received for
// its own rebuilds and, as a primary, for its degraded reads (object_io.h "Reads");
// ecstore_repair_chain_stages_total{result=ok|failed}: hops served;
// ecstore_repair_chain_slices_total{result=ok|failed}: slices this OSD requested as requester;
// ecstore_osd_ops_total{op="sub_repair_chain"} and the other per-op metrics (OsdService).
//
// Throttles: a hop's work runs on the service's own niced workers (ChainServiceOptions::threads,
// nice), never on a messenger thread; the messenger bounds requests per connection
// (max_inflight). A hop holds its request while it waits for its predecessor; chains are acyclic
// in OSDs and every wait has a deadline, so crossing chains can only slow each other down.
//
// Thread safety: ChainService::Handle may be called from any thread; RepairByChain blocks its
// caller (a pull worker) until done and may run on several threads at once.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "cluster/map/map_holder.h"
#include "common/metrics.h"
#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"
#include "msg/client.h"
#include "msg/messages.h"
#include "msg/server.h"
#include "osd/shard/shard_service.h"
#include "recovery/link_cost.h"
#include "recovery/pipeline_plan.h"

namespace spdlog {
class logger;
}

namespace ec::osd::pg {

// The largest partial one hop computes (and the memory one hop holds per slice for it, twice).
inline constexpr std::uint64_t kMaxChainPartialBytes = std::uint64_t{4} << 20;

// The requester's digest of one stage: crc32c over its chunk, outputs, inputs and coefficients.
// Equal stages give equal digests on every OSD.
std::uint32_t ChainStageFingerprint(const recovery::PipelineStage& stage);

// PipelinePlan::Make for (lost, every sub-chunk, `helpers` at equal cost), made once per code
// (its normalised profile and chunk size) and helper set and kept, its failures too (Make probes
// the code: up to ~15 ms for CLAY(10,4,13)). Make's check at the pool's chunk size
// (PipelineRequest::check_layout, ~140 ms for RS(10,4) with 4 MiB chunks) runs for the first
// plan of each code and chunk size only: a Get that would run it while another thread runs it for
// the same code and size waits for that one (the first chains after an OSD starts ask a hop for
// several plans at once), then runs it only if that one failed. One ChainPlans per OSD serves its
// pulls, hops and degraded reads (PullOptions::plans). Thread safe. Errors: Make's (EOPNOTSUPP
// for a code that is not pipelinable, every time it is asked).
class ChainPlans {
 public:
  Result<std::shared_ptr<const recovery::PipelinePlan>> Get(const ErasureCodeInterface& code,
                                                            const StripeLayout& layout, int lost,
                                                            const std::vector<int>& helpers);
  // Plans made with Make's check at the pool's chunk size so far (tests).
  std::size_t layout_checks() const;

 private:
  struct Entry {
    std::shared_ptr<const recovery::PipelinePlan> plan;  // null: Make failed, with `why`
    Status why;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> plans_;
  std::set<std::string> checked_;   // codes and chunk sizes checked at that size by a plan made
  std::set<std::string> checking_;  // ... being checked by a Get now
  std::condition_variable checked_cv_;
  std::size_t layout_checks_ = 0;
};

// --- The requester's side. ---

struct ChainHelper {
  int osd = -1;
  msg::OsdClient* client = nullptr;  // borrowed; must outlive the call
};

struct ChainRepairOptions {
  // Bytes of the lost chunk per slice (a partial's size), spread over its sub-chunks
  // (PipelinePlan::Slices gets slice_bytes / sub-chunks, at least 64).
  std::uint64_t slice_bytes = 256 * 1024;
  // Slices in flight at once; 0: one per link of the chain plus one, so that every link carries
  // a slice while the requester takes the next (a slice takes one link-time per hop to come back:
  // with fewer in flight than links, links idle and the chain is that much slower, e.g. 2 of
  // RS(10,4)'s 10 links busy made a chain 5x a chunk's time).
  int window = 0;
  std::chrono::milliseconds timeout{10000};  // per slice, the whole chain's
  int max_chains = 2;                        // chains tried (each without the hops that failed)
};

// The slices RepairByChain asks the chains for to rebuild [offset, offset + length) of the lost
// shard with `plan` (one of ChainPlans'), in order, about options.slice_bytes of the lost chunk
// each (spread over its sub-chunks, at least 64 bytes of each). A code of one sub-chunk per chunk
// (Reed-Solomon, LRC, SHEC) rebuilds exactly the range: its first and last slices may be parts
// of a chunk. Any other (CLAY) rebuilds the whole chunks of the stripes the range touches: a
// slice of several stripes is whole sub-chunks, and a chunk's bytes are spread over every
// sub-chunk. A range of whole stripes is cut as PipelinePlan::Slices cuts it. Errors: EINVAL for
// an empty range, one past the plan's chunk arithmetic (offset + length overflowing).
Result<std::vector<recovery::PipelineSlice>> ChainSlicesFor(const recovery::PipelinePlan& plan,
                                                            std::uint64_t offset,
                                                            std::uint64_t length,
                                                            const ChainRepairOptions& options);

// --- When a chain is used (osd_repair_pipeline). ---

// Whether the repair of one lost shard's bytes goes through a chain of helpers instead of reading
// every helper directly, for a recovery pull of the lost shard (pull_service.h) and for a primary's
// degraded read that needs the lost shard's bytes (object_io.h "Reads"):
//   kOff   never;
//   kOn    pulls: whenever the code is pipelinable (PipelinePlan::Make succeeds); degraded reads:
//          when it is and the read needs at least one slice of the lost shard (ChainLongEnough):
//          a smaller read is a single slice passed through every hop in turn, slower than the
//          direct read for at most a slice saved on the primary's link;
//   kAuto  where ChainPaysOff says so: the chain is faster by the links' cost model
//          (recovery/link_cost.h) from the bandwidths the OSDs publish in the map
//          (osd_network_bandwidth), for a pull's whole shard, for the lost bytes a read needs, and
//          for a backfill's shard whose copy failed.
enum class RepairPipeline { kOff, kAuto, kOn };

// The size half of kAuto's rule: `lost_bytes`, the bytes of the lost shard to rebuild, are at
// least one slice (options.slice_bytes). Pure.
bool ChainLongEnough(std::uint64_t lost_bytes, const ChainRepairOptions& options);

// The positions of `plan`'s stages in the order RepairByChain chains them: the plan's order, but
// `first_hop` (a position of the plan, or -1: none) first. Pure.
std::vector<int> ChainOrder(const recovery::PipelinePlan& plan, int first_hop);

// What kAuto weighs for one repair (positions are the lost object's shard positions).
struct ChainCost {
  std::uint64_t requester_bandwidth = 0;   // bytes/s of the requester's link; 0: unknown
  std::map<int, std::uint64_t> bandwidth;  // position -> its OSD's bytes/s (absent, 0: unknown)
  std::map<int, std::uint64_t> direct;     // position -> bytes it sends in a direct repair
  std::uint64_t chain_bytes = 0;           // the lost bytes the chain brings (one partial)
  int first_hop = -1;                      // ChainRepairTarget::first_hop (-1: none)
};

// kAuto's rule, the one place it is decided (pulls, a backfill's fallback and degraded reads
// call it): recovery::EstimateRepairLinks over the direct repair's helpers (`cost.direct`, those
// sending 0 bytes left out) and the chain of ChainOrder(plan, cost.first_hop), cost.chain_bytes
// on every link, slices of options.slice_bytes: true when the chain is faster by
// recovery::kChainTimeMargin and brings at least one slice (ChainLongEnough). With every
// bandwidth unknown this is: D >= 2 x (C + n x slice) and C >= slice, D the direct bytes, C the
// chain's and n its hops (recovery/link_cost.h). A pull's direct bytes per helper are its stage's
// inputs over the object's stripes (up to the helper's stored bytes: RS a chunk per chunk, CLAY
// 1/q); a degraded read's are what the direct repair adds to the read's own extents on the
// primary's link (its own shard free). `estimate` (may be null) gets the model's times. Pure.
bool ChainPaysOff(const recovery::PipelinePlan& plan, const ChainCost& cost,
                  const ChainRepairOptions& options,
                  recovery::LinkCostEstimate* estimate = nullptr);

struct ChainRepairTarget {
  const ErasureCodeInterface* code = nullptr;  // the object's code and layout (borrowed)
  const StripeLayout* layout = nullptr;
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;
  std::string collection;
  std::string object;
  int lost = -1;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  msg::ShardVersions versions;
  std::map<int, ChainHelper> helpers;  // position -> its OSD (the positions usable as hops)
  // The lost shard's bytes to rebuild: [offset, offset + length) of the padded shard (a degraded
  // read's range of it); length 0: the whole padded shard (a pull's). ChainSlicesFor says what
  // the chains compute for it.
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  // A position of `helpers` put first in every chain that has it (-1: none): the requester's own
  // shard (a primary's degraded read), which its own ChainService serves as hop 0 when hop 1 asks
  // for it, so that the requester never sends itself a message. Its ChainHelper names this OSD
  // and may have no client: the requester asks only the last hop.
  int first_hop = -1;
};

struct ChainRepairStats {
  std::uint64_t network_bytes = 0;  // partial bytes received (one chunk's worth without retries)
  // What the hops' stores read for the slices received: each hop's stored extents of each slice
  // (one read per slice), rounded out to 4 KiB blocks (recovery::PriceHelper), as a degraded
  // read's device bytes are counted.
  std::uint64_t device_bytes = 0;
  int chains = 0;                     // chains started
  std::vector<std::string> failures;  // one line per failed chain: the hop at fault and why
};

// Rebuilds bytes [offset, offset + length) of shard `target.lost` (the whole padded shard,
// layout.padded_shard_size(object_size) bytes, when target.length is 0) through chains of
// `target.helpers`, slice by slice (ChainSlicesFor); `out` is those bytes (its size is the
// range's). OK: `out` holds the shard's bytes exactly as a direct repair gives them. Errors
// (nothing useful in `out`; the caller pulls or reads directly): EOPNOTSUPP for a code that is
// not pipelinable, Make's errors (EIO: too few helpers left), the last chain's error (ETIMEDOUT,
// ESTALE, ...: the message names the failures), EINVAL for a bad target (a range past the
// shard, `out` of another size, a chain whose only stage is first_hop). Helpers without a client,
// but first_hop, are left out. `plans` and `metrics` (may be null) are borrowed.
Status RepairByChain(const ChainRepairTarget& target, const ChainRepairOptions& options,
                     ChainPlans* plans, MetricsRegistry* metrics, std::span<std::byte> out,
                     ChainRepairStats* stats);

// --- A hop's side. ---

struct ChainServiceOptions {
  int osd_id = 0;
  std::string plugin_dir;                    // "" : the default plugin directory
  int threads = 2;                           // workers running hops (1..64)
  int nice = 0;                              // their nice value (osd_recovery_nice)
  std::chrono::milliseconds map_wait{2000};  // waiting for a request's newer epoch
  // How a hop authenticates to its predecessor (issue 32): the OSD's own osd.N key, as its
  // PullService's and Primary's connections do (mode none: it does not). Where the OSDs require
  // cephx, a hop without it cannot reach its predecessor and the requester falls back to a
  // direct pull.
  msg::ClientAuth auth;
  // The plans, shared with the OSD's other chain users (borrowed, must outlive the service;
  // null: the service keeps its own), as PullOptions::plans.
  ChainPlans* plans = nullptr;
};

// Serves SubRepairChain requests (OsdService routes them here, after its fence check).
class ChainService : public msg::RequestHandler {
 public:
  // `shards`, `map` and `metrics` are borrowed and must outlive the service. Starts the workers.
  ChainService(shard::ShardService* shards, const cluster::MapHolder* map, MetricsRegistry* metrics,
               std::shared_ptr<spdlog::logger> log, ChainServiceOptions options);
  // Stops taking work (new requests are answered ECANCELED), waits for the hops in flight.
  ~ChainService() override;
  ChainService(const ChainService&) = delete;
  ChainService& operator=(const ChainService&) = delete;

  // SubRepairChain requests only (others are answered EINVAL). Never blocks.
  void Handle(msg::Request request, std::shared_ptr<msg::Responder> responder) override;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::osd::pg
