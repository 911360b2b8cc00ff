// ClayProgram: a CLAY computation (encode, layered decode, repair) compiled once per erasure or
// repair pattern into a flat list of kernel calls on sub-chunk runs, then run on many stripes.
//
// Why: CLAY works plane by plane (sub-chunk by sub-chunk) and Ceph pays per sub-chunk for
// bufferlist juggling, allocations and one scalar-plugin call each. Here a builder emits the
// elementary steps of the algorithm (one sub-chunk each), sorts the steps of a phase (steps of one
// phase are independent of each other) and merges neighbours whose operands are all adjacent
// in memory into one longer kernel call. The result depends only on the pattern, not on the
// sub-chunk size, so it is cached; running it is a loop of ISA-L calls, with no allocation.
//
// Steps: copies, and for byte-wise linear sub-codes "linear" steps out_j = sum_i M[j][i] in_i
// over GF(2^8) with the matrix M stored once per program (ec_encode_data with tables made at
// build time); pair transforms, per-plane solves and the lost chunk's final solves are all such
// steps, and several can be fused into one. For bit-matrix sub-codes the steps stay semantic
// (a pair-value solve, a per-plane MDS solve) and call the sub-codes.
//
// Operands are (slot, position): a slot is a buffer bound at run time (a caller's chunk, a
// helper's compact buffer of sub-chunks, a scratch area), the position counts sub-chunks from its
// start. The special slot kZeroSlot reads as zeros and ignores positions.
//
// Thread safety: a finished Program is immutable and may be run by many threads at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "plugins/clay/clay_scalar.h"

namespace ec::clay {

inline constexpr std::uint16_t kZeroSlot = 0xFFFF;

struct Ref {
  std::uint16_t slot = 0;
  std::uint32_t pos = 0;
};

enum class OpKind : std::uint8_t {
  kCopy,    // out0 = in0
  kZero,    // out0 = 0
  kLinear,  // out = tables[param] applied to in (ISA-L)
  kPair,    // pair-value solve through the pft sub-code: param = known | target << 4
  kMds,     // per-plane solve through the mds sub-code: solves[param]
};

struct Op {
  OpKind kind = OpKind::kCopy;
  std::uint16_t n_in = 0;
  std::uint16_t n_out = 0;
  std::uint32_t param = 0;
  std::uint32_t count = 1;  // sub-chunks
  std::uint32_t ref = 0;    // refs[ref .. ref+n_in) are inputs, then n_out outputs
};

// The matrix of a kLinear step, prepared for the GFNI kernel (clay_gfni.h) and for ISA-L. On CPUs
// with GFNI every step runs on `affine`. Otherwise it runs on ISA-L's tables, where rows that are
// all ones (the first parity row of the Vandermonde codes) are plain XORs, which cost a fraction
// of a table multiply; in steps with 3 or more inputs where they are half the rows or more, they
// run apart (see XorRows) on long runs.
struct LinearTable {
  std::vector<std::uint64_t> affine;       // GfniMatrix of every cell, row-major (GFNI CPUs only)
  std::vector<std::uint8_t> tables;        // every row
  std::vector<int> xor_rows;               // rows of all ones to run as XOR (may be empty)
  std::vector<int> other_rows;             // the others, in order
  std::vector<std::uint8_t> other_tables;  // tables of other_rows (when xor_rows is not empty)
};

struct Program {
  std::vector<Op> ops;
  std::vector<Ref> refs;
  std::vector<LinearTable> tables;                            // of kLinear
  std::vector<std::shared_ptr<const MdsCode::Solve>> solves;  // of kMds
  // Per slot, the sub-chunks of scratch it needs when the caller does not bind it (0: the caller
  // must bind it).
  std::vector<std::uint32_t> scratch_sub_chunks;
  std::uint32_t max_count = 0;        // longest op, in sub-chunks
  std::uint32_t zero_sub_chunks = 0;  // longest read of kZeroSlot, in sub-chunks
};

class ProgramBuilder {
 public:
  explicit ProgramBuilder(int num_slots);

  // Declares that `slot` is scratch of `sub_chunks` sub-chunks unless the caller binds it.
  void SetScratch(int slot, std::uint32_t sub_chunks);
  // Registers a sub-code solve for Mds(); returns its index.
  std::uint32_t AddSolve(std::shared_ptr<const MdsCode::Solve> solve);

  void Copy(Ref out, Ref in);
  void Zero(Ref out);
  // out_j = sum_i coef[j * in.size() + i] * in_i. Inputs with an all-zero column are dropped;
  // an output whose row is zero becomes a Zero step.
  void Linear(const std::vector<Ref>& in, const std::vector<Ref>& out,
              const std::vector<std::uint8_t>& coef);
  // Semantic steps for bit-matrix sub-codes (see PairCode::Solve and MdsCode::Run).
  void Pair(unsigned known, unsigned target, Ref in0, Ref in1, Ref out0, Ref out1 = Ref{});
  void Mds(std::uint32_t solve, const std::vector<Ref>& in, const std::vector<Ref>& out);

  // Closes a phase: the steps emitted since the last call are independent of each other; they
  // are sorted and merged into as few kernel calls as possible. Later phases run after it.
  void EndPhase();
  Program Finish();

 private:
  void Add(OpKind kind, std::uint32_t param, const Ref* in, int n_in, const Ref* out, int n_out);

  Program program_;
  std::map<std::string, std::uint32_t> table_index_;  // matrix bytes -> index in tables
  std::vector<Op> pending_;
  std::vector<Ref> pending_refs_;
};

// Runs `program` with sub-chunks of `sub_chunk_size` bytes. `slots[i]` is the base of slot i
// (already bound or scratch); `zeros` holds at least zero_sub_chunks sub-chunks of zeros; `spare`
// max_count sub-chunks of scratch (bit-matrix sub-codes only).
Status RunProgram(const Program& program, const PairCode& pair, const MdsCode& mds,
                  std::size_t sub_chunk_size, std::uint8_t* const* slots, const std::uint8_t* zeros,
                  std::uint8_t* spare);

}  // namespace ec::clay
