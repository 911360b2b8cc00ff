// The two scalar sub-codes of a CLAY code, and the solves CLAY runs on them.
//
// Ceph builds both through the plugin registry, with the profile's scalar_mds and technique and
// w=8: the pairwise transform `pft` is a (2,2) code and the per-plane code `mds` is a (k+nu, m)
// code. CLAY's bytes are whatever these codes compute, so ecstore creates them the same way.
//
// Speed: when a sub-code is a byte-wise linear code over GF(2^8) (every reed_sol_van and
// reed_sol_r6_op code, isa's cauchy), its coding matrix is read off once at init by encoding unit
// vectors (and checked on random data), and every solve then runs on ISA-L's ec_encode_data with
// tables prepared once. Bit-matrix techniques (jerasure cauchy_*, liber8tion) are linear over
// GF(2) only; for them every solve calls the sub-code's decode_chunks (slow but exact).
//
// Pair values: a pair of vertices (A at plane z_A, B at plane z_B, A the node with the larger x)
// has the 4-tuple (C_A, C_B, U_A, U_B) = pft chunks (0, 1, 2, 3): coupled values are the data
// and uncoupled values the parity of the (2,2) code. Any two of the four determine the others.
//
// Thread safety: after Init, all const methods may run concurrently (the sub-codes promise the
// same for their const methods).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"

namespace ec::clay {

// Bits of a pair-value mask.
inline constexpr unsigned kCA = 1u << 0;
inline constexpr unsigned kCB = 1u << 1;
inline constexpr unsigned kUA = 1u << 2;
inline constexpr unsigned kUB = 1u << 3;

// out_j = sum_i M[j][i] in_i for len-byte buffers, with ISA-L tables of M (ec_init_tables), on
// ISA-L's ec_encode_data (and leaves the CPU in the fast SSE state afterwards, see the .cc).
void ApplyTables(std::size_t len, int n_in, int n_out, const std::uint8_t* tables,
                 const std::uint8_t* const* in, std::uint8_t* const* out);

// out = in[0] ^ ... ^ in[n_in-1] over len bytes with ISA-L's xor_gen, which needs len a multiple
// of 32 and 32-byte aligned buffers. Returns false (and does nothing) otherwise, so the caller
// multiplies by ones instead; with out == nullptr it only tells whether the inputs qualify.
bool XorRows(std::size_t len, int n_in, const std::uint8_t* const* in, std::uint8_t* out);

// Reads the m x k coding matrix of a systematic code by encoding unit vectors, then checks it on
// random data. Returns true (and fills `matrix`, row-major, parity j = sum_i M[j*k+i] data_i) when
// the code is byte-wise linear over GF(2^8); false when it is not (bit-matrix codes).
// Errors: whatever encode_chunks of the code returns.
Result<bool> ProbeByteMatrix(const ErasureCodeInterface& code, int k, int m,
                             std::vector<std::uint8_t>* matrix);

class PairCode {
 public:
  // `code` must be a 2+2 code (checked). Errors: EINVAL when it is not, or from the probe.
  // `allow_matrix` false keeps every solve on the sub-code (the reference path, for tests).
  Status Init(ErasureCodeInterfaceRef code, bool allow_matrix = true);

  bool linear() const { return linear_; }
  // The 2x2 coding matrix: U_A = M[0] C_A + M[1] C_B, U_B = M[2] C_A + M[3] C_B (when linear()).
  const std::array<std::uint8_t, 4>& matrix() const { return matrix_; }
  // Alignment unit of the sub-code: get_chunk_size(1).
  unsigned alignment() const { return alignment_; }

  // Computes the values of `target` (1 or 2 bits, disjoint from `known`) from the two values of
  // `known` (2 bits). in[0], in[1] hold the known values in ascending bit order, out[] the targets
  // likewise. `spare` (len bytes) is scratch for the bit-matrix path, which always computes both
  // unknowns. Preconditions: masks valid, buffers of len bytes, out not overlapping in.
  Status Solve(unsigned known, unsigned target, std::size_t len, const std::uint8_t* const* in,
               std::uint8_t* const* out, std::uint8_t* spare) const;

  // The coefficients of that solve (linear() only): |target| rows of 2, row-major, each row
  // giving a target as a combination of the two known values (ascending bit order both ways).
  std::vector<std::uint8_t> Coefficients(unsigned known, unsigned target) const;

 private:
  ErasureCodeInterfaceRef code_;
  bool linear_ = false;
  unsigned alignment_ = 0;
  std::array<std::uint8_t, 4> matrix_{};
  // ISA-L tables per (known mask, target mask): 32 bytes x 2 sources x |target|.
  std::array<std::array<std::vector<std::uint8_t>, 16>, 16> coef_;
  std::array<std::array<std::vector<std::uint8_t>, 16>, 16> tables_;
};

class MdsCode {
 public:
  // A prepared solve: the uncoupled values of `targets` from those of `sources` (node numbers,
  // which are the sub-code's chunk ids).
  struct Solve {
    std::vector<int> sources;
    std::vector<int> targets;
    std::vector<std::uint8_t> coef;    // targets x sources matrix (linear codes only)
    std::vector<std::uint8_t> tables;  // its ISA-L tables
  };

  // `code` must have `data` data and `parity` parity chunks (checked). `allow_matrix` as for
  // PairCode::Init.
  Status Init(ErasureCodeInterfaceRef code, int data, int parity, bool allow_matrix = true);

  bool linear() const { return linear_; }
  int data() const { return data_; }
  int parity() const { return parity_; }
  const std::vector<std::uint8_t>& matrix() const { return matrix_; }

  // Whether the uncoupled values of data() distinct `sources` determine every node's. Always
  // true for an MDS code; a code that is not (SHEC) has singular data()-subsets. True as well
  // when the code's matrix is unknown (nothing to check: as for MDS codes).
  bool Determines(const std::vector<int>& sources) const;

  // The data() nodes a solve reads: every node of `fixed` (nodes known without a read, e.g.
  // virtual ones), then the earliest nodes of `known` (in its order) that with them Determine
  // every node. For an MDS code those are simply the first ones. Errors: EIO when no subset of
  // the known nodes does.
  Result<std::vector<int>> ChooseSources(const std::vector<int>& fixed,
                                         const std::vector<int>& known) const;

  // Prepares the solve. `sources` must be data() distinct nodes; `targets` distinct nodes not in
  // `sources`. Errors: EIO when the sources cannot determine the targets (singular sub-matrix).
  Result<std::shared_ptr<const Solve>> Prepare(const std::vector<int>& sources,
                                               const std::vector<int>& targets) const;

  // Runs `solve` on len-byte buffers: in[i] is source i, out[j] target j.
  Status Run(const Solve& solve, std::size_t len, const std::uint8_t* const* in,
             std::uint8_t* const* out) const;

 private:
  ErasureCodeInterfaceRef code_;
  bool linear_ = false;
  bool has_matrix_ = false;  // matrix_ is the code's (probed linear, whether or not used)
  int data_ = 0;
  int parity_ = 0;
  std::vector<std::uint8_t> matrix_;
};

}  // namespace ec::clay
