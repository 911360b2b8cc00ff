// The two CLAY algorithms, compiled into Programs (clay_program.h):
//
// Layered decode (encode is the case "erased = the parity nodes"): planes are processed by
// increasing "intersection score", the number of erased nodes that are dots in the plane. In each
// plane the uncoupled values U of k+nu known nodes are computed from coupled values C (pair
// transform, or U = C for dots), the per-plane MDS code gives U of the erased nodes, and pair
// solves give their C. A known node whose partner is erased needs the partner's C from a plane of
// lower score, which is why the order matters.
//
// Repair of one lost node N = (x0, y0) from d helpers: only the planes where N is a dot (digit y0
// = x0, Z/q of them) are touched. In such a plane the q nodes of N's group and the aloof nodes
// (real nodes that are neither helper nor lost) are the m unknowns of the MDS code; the others
// give U from C. C_N in a repair plane is U_N; C_N in plane z' (digit y0 = x != x0) comes from
// the pair (node (x, y0) at the repair plane, N at z'). Aloof nodes are solved layer by layer
// like erasures. A partial repair wants only some sub-chunks of N: it touches only the repair
// planes they map to (plus, with aloof nodes, the planes those depend on), and every helper
// sends only the sub-chunks those planes read.
//
// Thread safety: builders are pure functions; the results are immutable.
#pragma once

#include <memory>
#include <vector>

#include "ec/erasure_code_interface.h"
#include "plugins/clay/clay_layout.h"
#include "plugins/clay/clay_program.h"

namespace ec::clay {

// Both builders emit fused linear steps when the sub-codes are byte-wise linear (pair.linear() and
// mds.linear()), sub-code calls otherwise; the bytes are the same.
//
// Layered decode program. Slots: node j's chunk is slot j (erased nodes' chunks are outputs, and
// scratch when unbound), node j's U is slot nodes()+j (scratch). Virtual nodes read as zeros.
// `erased` are real nodes, 1 <= |erased| <= m. With `direct_dots` the per-plane solves write the
// erased nodes' dots straight into their chunks (no copy afterwards, but one kernel call per
// plane: better for large sub-chunks). With `fold_pairs` (linear codes) the pair transform of a
// known node whose partner is known too is folded into the per-plane solve (clay_emit.h,
// PlaneTerms) instead of being a step that writes its U. Errors: EIO when too many are erased.
Result<std::shared_ptr<const Program>> BuildLayeredProgram(const ClayLayout& layout,
                                                           const PairCode& pair, const MdsCode& mds,
                                                           const std::vector<int>& erased,
                                                           bool direct_dots, bool fold_pairs);

// What a repair needs from each helper and how to compute it.
struct RepairProgram {
  int lost_chunk = -1;
  SubChunkRange want{0, 0};       // sub-chunks of the lost chunk it rebuilds
  std::vector<int> helpers;       // chunk ids, ascending
  SubChunkPlan reads;             // helper chunk id -> ranges to read, ascending and merged
  std::vector<int> read_counts;   // per helper (same order as `helpers`): sub-chunks read
  long long sub_chunks_read = 0;  // sum of read_counts
  // Slots: helper node j's compact buffer is slot j (the sub-chunks of `reads`, concatenated in
  // order), slot nodes()+j is scratch, slot 2*nodes() the output (want.second sub-chunks).
  Program program;
};

// With `fold_pairs` (linear codes) the pair transforms of helpers whose partner is a helper (or
// virtual) are folded into the per-plane solves, as in BuildLayeredProgram.
//
// Builds the repair of sub-chunks [want.first, want.first+want.second) of `lost_chunk` from the
// chunks `helpers`. Requirements (EINVAL otherwise): |helpers| = d, lost_chunk not among them,
// every other real chunk of its group among them, ids in range, want inside [0, q^t).
Result<std::shared_ptr<const RepairProgram>> BuildRepairProgram(
    const ClayLayout& layout, const PairCode& pair, const MdsCode& mds, int lost_chunk,
    const ShardSet& helpers, SubChunkRange want, bool fold_pairs);

}  // namespace ec::clay
