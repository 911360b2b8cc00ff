// PipelinePlan: repair of one lost chunk as a chain (or a tree) of helpers, each adding its share
// to a partial result and passing it on, slice by slice (repair pipelining: ECPipe, PPR, ParaRC).
// The requester then receives one chunk's bytes instead of k (Reed-Solomon) or d/q (CLAY) chunks.
//
//   direct repair:    helpers 1..k, each --> requester, which decodes (k or d/q chunks on its link)
//   pipelined repair: helper 1 --> helper 2 --> ... --> helper k --> requester  (one chunk per
//   link)
//                     partial_1 = c_1 * x_1;  partial_i = partial_{i-1} + c_i * x_i  (GF(2^8) sums)
//
// Why it is possible. Every code here rebuilds the bytes of a lost chunk as a GF(2^8)-linear
// function of what the helpers send, byte position by byte position: output sub-chunk o of the
// lost chunk, at byte b of the sub-chunk, is  XOR over helpers h and their input sub-chunks j of
// coef[h][o][j] * helper_h(sub-chunk j, byte b). Reed-Solomon over whole chunks (jerasure
// reed_sol_van / reed_sol_r6_op with w=8, isa), CLAY over the sub-chunks its repair reads (its
// pairwise transforms and its MDS code are byte-wise GF(2^8) maps), LRC over the local group,
// SHEC over its plan. The coefficients are not read out of the plugin (the interface does not
// expose them and the plugin ABI stays as it is): Make() derives them by running the code's own
// repair through the interface on probe inputs:
//   - zero probe: every helper byte 0 must give 0 (a linear map fixes 0);
//   - unit probes: helper h's input sub-chunk j all 0x01 bytes, everything else 0. A byte-wise
//     GF(2^8)-linear code gives, in output sub-chunk o, the same byte at every position: that byte
//     is coef[h][o][j]. A position-dependent output (a bit-matrix code with packets: jerasure's
//     cauchy_*, liberation, blaum_roth, liber8tion; a w=16 or w=32 word code) is refused;
//   - random probes: random bytes in every helper at once (additivity and homogeneity together,
//     at every position): the code's output must equal the sum the coefficients give, at the probe
//     chunk size and once at the layout's chunk size (so a code whose map changes with the size
//     is refused too).
// A code that fails any probe is "not pipelinable": EOPNOTSUPP, and the caller pulls directly.
// Soundness: the unit probes leave one candidate map (a byte-wise GF(2^8)-linear map is fixed by
// its coefficients), and the random probes check the code against it on inputs that are not unit
// vectors, at every byte position. For a code that computes with XORs (GF(2)-linear: every code
// here) and differs from the candidate by a map of GF(2)-rank r, one random probe misses the
// difference with probability 2^-r; a bit-matrix code differs in about every output bit (r in
// the thousands). Coefficients that fail a probe are never returned: the code is refused.
//
// The geometry. The plan rebuilds sub-chunks [want.first, +want.second) of chunk `lost` in every
// stripe (all of them for scalar codes, which have one sub-chunk). Each stage (helper) reads per
// stripe exactly the sub-chunks the direct repair reads (RepairEngine's plan for the same request:
// minimum_to_decode_with_cost, then minimum_to_repair for CLAY's sub-chunk repair, or
// minimum_to_decode), so the stages together read bytes_per_stripe() = the direct repair's bytes
// (d*C/q per stripe for CLAY, k*C for Reed-Solomon, l*C for LRC's local group).
// A slice is a byte range [offset, offset + length) of every sub-chunk, in `stripes` consecutive
// stripes from `first_stripe` (either part of one stripe's sub-chunks, or whole sub-chunks of
// several stripes). Its bytes are always laid out stripe after stripe, and within a stripe
// sub-chunk after sub-chunk in ascending index order, `length` bytes each:
//   - a stage's input for a slice: its input sub-chunks (PipelineStage::inputs) so laid out = the
//     bytes of StageExtents(stage, slice) read back to back (extents ascending in the shard);
//   - a partial (what a stage receives and sends on): the wanted sub-chunks of the lost chunk so
//     laid out = the bytes of OutputExtents(slice) of the lost shard; what the last stage sends
//     is the lost chunk's bytes there. With want = every sub-chunk and whole sub-chunks, a slice's
//     partial is the lost shard's bytes [first_stripe * C, (first_stripe + stripes) * C).
// Any slice can be computed on its own, in any order and on any stage, which is what lets the
// stages overlap (stage i works on slice s+1 while stage i+1 works on slice s).
//
// Errors are Status values: EINVAL for bad requests and slices (naming what is wrong),
// EOPNOTSUPP for a code that is not pipelinable ("not pipelinable: ..."), the code's own errors
// (EIO when the available chunks cannot rebuild the lost one).
// Thread safety: a PipelinePlan is an immutable value once made (it holds no reference to the code
// or the layout); ApplyStage and AddPartial are pure functions of their arguments. Nothing is
// cached between calls: every Make() probes the code again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"
#include "recovery/read_plan.h"

namespace ec::recovery {

struct PipelineRequest {
  int lost = -1;  // the chunk id to rebuild; it must not be in `available`
  // Its sub-chunks to rebuild in every stripe; a count of 0 means all of them. Only codes with
  // native sub-chunk repair (CLAY from a repair set) read less for fewer sub-chunks; the others
  // read what their decode reads and the plan keeps only the wanted sub-chunks' coefficients.
  SubChunkRange want{0, 0};
  std::map<int, int> available;  // chunk id -> cost of reading it (>= 0), as in RepairRequest
  // Also check the plan with one repair of a stripe of random bytes at the layout's own chunk
  // size (the coefficients are derived and checked at the code's smallest layout). That repair
  // costs the chunk size: ~140 ms for RS(10,4) with 4 MiB chunks, where the rest of Make takes
  // under 1 ms. A caller that has checked this code at this chunk size once (with another lost
  // chunk or helper set) may skip it: it tests the code's implementation at that size, not the
  // lost chunk's coefficients (osd/pg/repair_chain.h ChainPlans).
  bool check_layout = true;
};

// One helper's part of the plan.
struct PipelineStage {
  int chunk = -1;                    // the helper's chunk id
  std::vector<SubChunkRange> reads;  // the sub-chunk ranges it reads per stripe, ascending
  std::vector<int> inputs;           // `reads` expanded: its input sub-chunk indexes, ascending
  int outputs = 0;                   // sub-chunks of the partial per stripe (= want.second)
  // outputs x inputs.size(), row-major: partial sub-chunk o gets coefficients[o * inputs.size()
  // + j] times input sub-chunk inputs[j].
  std::vector<std::uint8_t> coefficients;
  // For ApplyStage: per input j, the partial sub-chunks with a nonzero coefficient and their
  // kernel tables (ec::gf::MulAddTables). Derived from `coefficients` by Make().
  struct Column {
    std::vector<int> rows;
    std::vector<std::uint8_t> tables;
  };
  std::vector<Column> columns;
};

// A slice of the repair: bytes [offset, offset + length) of every sub-chunk (chunk offsets
// within a sub-chunk of S bytes) in stripes [first_stripe, first_stripe + stripes). A valid slice
// (PipelinePlan::CheckSlice) has stripes >= 1 and length >= 1, lies within the sub-chunk, and
// covers whole sub-chunks (offset 0, length S) when it spans more than one stripe.
struct PipelineSlice {
  std::uint64_t first_stripe = 0;
  std::uint64_t stripes = 1;
  std::size_t offset = 0;
  std::size_t length = 0;
  bool operator==(const PipelineSlice&) const = default;
};

class PipelinePlan {
 public:
  // The pipelined repair of `request.lost` for chunks laid out by `layout` (which must be
  // StripeLayout::Make(code, ...)), with the helpers the direct repair would use for the same
  // available chunks and costs (RepairEngine without a cost model). The stages come in chain
  // order: cheapest first (then by chunk id); the last sends to the requester. The order is a
  // proposal: the partial sums do not depend on it, so a caller may reorder stages freely.
  // Probes the code (see the file comment): one repair of a minimum-size stripe per input
  // sub-chunk of every helper (4 for RS(4,2), 20 for CLAY(4,2,5), 832 for CLAY(10,4,13): about
  // 0.3 ms and 15 ms on the CI machine) and, with request.check_layout, one repair of one stripe
  // of the layout's chunk size.
  // Errors: EINVAL for a layout of another code (chunk or sub-chunk count), a lost id out of
  // range or available, an available id out of range, a negative cost, a want range outside
  // [0, sub_chunk_count); the code's errors (EIO when the available chunks cannot rebuild
  // `lost`); EIO for a plan of the code that reads chunks it did not choose or bad ranges;
  // EOPNOTSUPP "not pipelinable: ..." when the probes show the code's repair is not a byte-wise
  // GF(2^8)-linear map of the helpers' bytes.
  static Result<PipelinePlan> Make(const ErasureCodeInterface& code, const StripeLayout& layout,
                                   const PipelineRequest& request);

  int lost() const { return lost_; }
  SubChunkRange want() const { return want_; }
  std::size_t chunk_size() const { return chunk_size_; }
  std::size_t sub_chunk_size() const { return sub_chunk_size_; }
  unsigned sub_chunk_count() const { return sub_chunk_count_; }
  // True when the plan follows the code's sub-chunk repair (CLAY from a repair set); false when it
  // follows its decode (whole chunks, or what minimum_to_decode reads).
  bool native() const { return native_; }
  // The stages in chain order; every helper of the direct repair that reads anything appears
  // once.
  const std::vector<PipelineStage>& stages() const { return stages_; }
  // Bytes every stage together reads per stripe: what the direct repair reads.
  std::uint64_t bytes_per_stripe() const;

  // OK when `slice` is valid for this plan (see PipelineSlice); EINVAL naming what is wrong.
  Status CheckSlice(const PipelineSlice& slice) const;
  // The slices of stripes [first_stripe, first_stripe + stripes), in order, about `slice_bytes`
  // bytes of each sub-chunk each: when S >= slice_bytes, pieces of each stripe's sub-chunks of
  // slice_bytes rounded down to a multiple of 64 (at least 64; the last piece of a stripe is
  // shorter when S is not a multiple), else whole sub-chunks of max(1, slice_bytes / S) stripes
  // (the last slice takes the rest). Any other valid slices work as well: the cuts only keep the
  // kernels on aligned, cache-sized pieces. Errors: EINVAL for slice_bytes 0 or first_stripe +
  // stripes overflowing.
  Result<std::vector<PipelineSlice>> Slices(std::uint64_t first_stripe, std::uint64_t stripes,
                                            std::size_t slice_bytes) const;
  // Bytes of a stage's input and of a partial for `slice` (preconditions: a valid slice, a stage
  // index < stages().size()).
  std::uint64_t InputBytes(std::size_t stage, const PipelineSlice& slice) const;
  std::uint64_t PartialBytes(const PipelineSlice& slice) const;
  // The extents of stage `stage`'s shard holding its input for `slice`, ascending and merged (their
  // bytes back to back are its input, see the file comment). Preconditions as InputBytes.
  std::vector<Extent> StageExtents(std::size_t stage, const PipelineSlice& slice) const;
  // The extents of the lost shard that a finished partial of `slice` holds, likewise.
  std::vector<Extent> OutputExtents(const PipelineSlice& slice) const;

  // A tree of fan-in at most `fan_in` (>= 1; 1 is the chain) over the stages: parent[i] is the
  // stage that stage i sends its partial to, -1 for the root, which sends to the requester. A
  // parent always comes after its children (parent[i] > i), so running the stages in index order
  // runs children first. A node XORs its children's partials into its own (AddPartial) before or
  // after ApplyStage: the result is the same. fan_in 0 is taken as 1.
  std::vector<int> TreeParents(unsigned fan_in) const;

 private:
  int lost_ = -1;
  SubChunkRange want_{0, 0};
  std::size_t chunk_size_ = 0;
  std::size_t sub_chunk_size_ = 0;
  unsigned sub_chunk_count_ = 1;
  bool native_ = false;
  std::vector<PipelineStage> stages_;
};

// One stage's step over one slice: partial ^= sum over its inputs j of coefficients[o][j] * input
// j, for every partial sub-chunk o, byte by byte. `mine` is the stage's input for the slice and
// `partial` the partial received from its predecessor (zeros for the first stage), both laid out
// as the file comment says; `partial` is updated in place and is what the stage sends on. Works
// on any valid slice independently of every other slice. The caller owns both buffers; they must
// not overlap. Errors: EINVAL when mine.size() != slice.stripes * inputs.size() * slice.length or
// partial.size() != slice.stripes * outputs * slice.length (partial untouched), or a stage whose
// tables do not match its shape.
Status ApplyStage(const PipelineStage& stage, const PipelineSlice& slice,
                  std::span<const std::byte> mine, std::span<std::byte> partial);

// into ^= from (a tree node adding a child's partial). Errors: EINVAL when the sizes differ
// (`into` untouched).
Status AddPartial(std::span<const std::byte> from, std::span<std::byte> into);

}  // namespace ec::recovery
