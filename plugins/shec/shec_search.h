// SHEC's search for the cheapest way to rebuild chunks (Ceph's shec_make_decoding_matrix, the
// heart of SHEC's cheaper recovery). Pure functions of the coding matrix.
//
// Chunk ids: data 0..k-1, parity k..k+m-1 (SHEC has no mapping).
//
// The search: a wanted parity that is missing makes its window's data chunks wanted (it is
// re-encoded from them). Every subset P of the available parities (in the order of the bit masks
// 0 .. 2^m-1) defines a square system when it works out:
//   columns = data chunks that are wanted and missing, plus every column some parity of P covers;
//   rows    = the parities of P, plus the available data chunks of those columns;
// the system is usable when #rows == #columns and the rows x columns submatrix is invertible.
// The plan is the usable system with the fewest rows; ties go to the first mask found, and once
// a plan with e parities is found, subsets of more than e parities are no longer tried (Ceph's
// order, which fixes which chunks are read). When nothing is missing the plan is empty.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"

namespace ec::shec {

// The coding matrix a search runs on.
struct MatrixView {
  int k = 0;
  int m = 0;
  int w = 8;
  const std::vector<int>* coding = nullptr;  // m x k, row-major
  int at(int parity, int column) const {
    return (*coding)[static_cast<std::size_t>(parity) * k + column];
  }
};

struct RecoveryPlan {
  // Chunk ids of the system's rows: available data chunks first, then parities, ascending.
  std::vector<int> rows;
  // Data chunk ids of the system's columns, ascending (same count as rows).
  std::vector<int> columns;
  // The rows x columns inverse (row-major; entry [i][j] multiplies rows[j] to give columns[i]).
  std::vector<int> inverse;
  // Wanted ids after the missing-parity extension (data chunks added), as a k+m mask.
  std::vector<bool> want;
  // Chunks to read: the rows, the wanted available data chunks, and each wanted available parity
  // that covers a data chunk not wanted (one covering only wanted data is rebuilt instead).
  ShardSet minimum;
};

// Inverts the n x n matrix `in` over GF(2^w) into *out; false when singular.
bool InvertOver(int w, const std::vector<int>& in, int n, std::vector<int>* out);

// The plan for rebuilding `want` from `available` (masks of k+m entries).
// Errors: EIO when no usable system exists (the chunks cannot rebuild `want`).
Result<RecoveryPlan> FindRecovery(const MatrixView& matrix, const std::vector<bool>& want,
                                  const std::vector<bool>& available);

// Like FindRecovery, but among every usable system picks the one whose `minimum` has the least
// total cost (`cost` by chunk id; every available chunk has one); equal costs keep FindRecovery's
// answer. Errors as FindRecovery.
Result<RecoveryPlan> FindCheapestRecovery(const MatrixView& matrix, const std::vector<bool>& want,
                                          const std::vector<bool>& available,
                                          const std::map<int, int>& cost);

}  // namespace ec::shec
