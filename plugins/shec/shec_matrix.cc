#include "plugins/shec/shec_matrix.h"

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>

extern "C" {
#include <reed_sol.h>
}

namespace ec::shec {

namespace {

// First column kept by row `r` of a group of `rows` rows with `c` shingles over k columns, and
// the (unwrapped) end of its window; the window is [begin, end) modulo k.
int WindowBegin(int r, int rows, int k) {
  return r * k / rows;
}
int WindowEnd(int r, int rows, int c, int k) {
  return (r + c) * k / rows;
}

// Adds one group's share of RecoveryCost and lowers narrowest[] for the columns it covers.
long GroupCost(int k, int rows, int c, std::vector<long>* narrowest) {
  long sum = 0;
  for (int r = 0; r < rows; ++r) {
    const int begin = WindowBegin(r, rows, k);
    const int end = WindowEnd(r, rows, c, k);
    const long width = end - begin;
    // At least one column, all k when the window wraps onto itself.
    int col = begin % k;
    do {
      (*narrowest)[col] = std::min((*narrowest)[col], width);
      col = (col + 1) % k;
    } while (col != end % k);
    sum += width;
  }
  return sum;
}

// Zeroes, in each row of a group starting at matrix row `first_row`, the columns outside its
// window.
void ZeroOutsideWindows(std::vector<int>* matrix, int k, int first_row, int rows, int c) {
  for (int r = 0; r < rows; ++r) {
    const int keep_end = WindowEnd(r, rows, c, k) % k;
    const int keep_begin = WindowBegin(r, rows, k) % k;
    for (int col = keep_end; col != keep_begin; col = (col + 1) % k) {
      (*matrix)[static_cast<std::size_t>(first_row + r) * k + col] = 0;
    }
  }
}

}  // namespace

const char* TechniqueName(Technique t) {
  return t == Technique::kSingle ? "single" : "multiple";
}

long RecoveryCost(int k, int m1, int m2, int c1, int c2) {
  if (m1 < c1 || m2 < c2) return -1;
  if ((m1 == 0 && c1 != 0) || (m2 == 0 && c2 != 0)) return -1;
  constexpr long kUncovered = 100000000;  // Ceph's penalty for a data chunk no parity covers
  std::vector<long> narrowest(static_cast<std::size_t>(k), kUncovered);
  long sum = GroupCost(k, m1, c1, &narrowest) + GroupCost(k, m2, c2, &narrowest);
  for (long n : narrowest) sum += n;
  return sum;
}

Shingles ChooseShingles(Technique technique, int k, int m, int c) {
  if (technique == Technique::kSingle) return {0, 0, m, c};
  Shingles best{0, 0, m, c};
  long best_cost = -1;
  for (int c1 = 0; c1 <= c / 2; ++c1) {
    for (int m1 = 0; m1 <= m; ++m1) {
      const int c2 = c - c1;
      const int m2 = m - m1;
      if (m1 < c1 || m2 < c2) continue;
      // Every group with rows needs shingles and the other way round.
      if ((m1 == 0) != (c1 == 0) || (m2 == 0) != (c2 == 0)) continue;
      const long cost = RecoveryCost(k, m1, m2, c1, c2);
      if (cost < 0) continue;
      if (best_cost < 0 || cost < best_cost) {
        best_cost = cost;
        best = {m1, c1, m2, c2};
      }
    }
  }
  return best;
}

Result<std::vector<int>> CodingMatrix(Technique technique, int k, int m, int c, int w) {
  if (w != 8 && w != 16 && w != 32) {
    return Status::Invalid("shec: w=" + std::to_string(w) + " must be one of {8, 16, 32}");
  }
  int* raw = nullptr;
  {
    // jerasure's builders touch gf-complete's lazily created fields.
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    raw = reed_sol_vandermonde_coding_matrix(k, m, w);
  }
  if (raw == nullptr) {
    return Status::Invalid("shec: cannot build the RS(" + std::to_string(k) + ", " +
                           std::to_string(m) + ") matrix in GF(2^" + std::to_string(w) + ")");
  }
  std::vector<int> matrix(raw, raw + static_cast<std::size_t>(m) * k);
  std::free(raw);
  const Shingles s = ChooseShingles(technique, k, m, c);
  ZeroOutsideWindows(&matrix, k, 0, s.m1, s.c1);
  ZeroOutsideWindows(&matrix, k, s.m1, s.m2, s.c2);
  return matrix;
}

}  // namespace ec::shec
