// The SHEC coding matrix (Ceph's shec "shingled" Reed-Solomon): jerasure's Vandermonde RS(k, m)
// coding matrix over GF(2^w) with some coefficients set to zero, so that each parity covers a
// window ("shingle") of about c*k/m consecutive data chunks, wrapping around. A lost data chunk
// can then be rebuilt from one parity and the few data chunks of its window instead of k chunks.
//
// The parities are split into two groups: m1 rows with windows of c1 shingles and m2 = m - m1
// rows with c2 = c - c1. Row r of a group of `rows` rows and `c` shingles keeps columns
// [r*k/rows, (r+c)*k/rows) modulo k (every column when c == rows) and zeroes the others.
//   technique=single:   m1 = c1 = 0 (one group of m rows).
//   technique=multiple: the (m1, c1) with c1 <= c/2 that minimises RecoveryCost (the first one
//                       found when several tie, trying c1 = 0.. then m1 = 0..).
// Example k=4 m=3 c=2 (multiple): rows 1111 / 1100 / 0011 (non-zero pattern).
//
// Thread safety: pure functions (jerasure's matrix builder is called under a lock).
#pragma once

#include <vector>

#include "common/status.h"

namespace ec::shec {

enum class Technique { kSingle, kMultiple };

// "single" / "multiple".
const char* TechniqueName(Technique t);

// How the m parities are split (see above).
struct Shingles {
  int m1 = 0;
  int c1 = 0;
  int m2 = 0;
  int c2 = 0;
};

// The split for `technique`. Preconditions: 0 < c <= m <= k.
Shingles ChooseShingles(Technique technique, int k, int m, int c);

// Ceph's "recovery efficiency" of a split times (k + m): the sum of every parity's window width
// plus, for each data chunk, the narrowest window covering it (a huge penalty when none does).
// Lower is cheaper recovery. Returns -1 for a split that cannot exist (m1 < c1, m2 < c2, or a
// group with no rows but shingles). Exact integers: Ceph compares the same sums divided by k+m.
long RecoveryCost(int k, int m1, int m2, int c1, int c2);

// The m x k coding matrix (row-major) of SHEC(k, m, c) over GF(2^w), w in {8, 16, 32}.
// Errors: EINVAL when w is not one of those or jerasure cannot build RS(k, m) in GF(2^w).
Result<std::vector<int>> CodingMatrix(Technique technique, int k, int m, int c, int w);

}  // namespace ec::shec
