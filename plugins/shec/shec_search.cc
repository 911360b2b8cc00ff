#include "plugins/shec/shec_search.h"

#include <cstdint>
#include <string>

#include "ec/gf.h"

extern "C" {
#include <jerasure.h>
}

namespace ec::shec {

namespace {

// The square system of the parities in `mask`, or false when it is not square.
bool BuildSystem(const MatrixView& mx, const std::vector<bool>& want,
                 const std::vector<bool>& available, unsigned mask, std::vector<int>* rows,
                 std::vector<int>* columns) {
  const int k = mx.k;
  std::vector<bool> in_rows(static_cast<std::size_t>(k + mx.m), false);
  std::vector<bool> in_columns(static_cast<std::size_t>(k), false);
  for (int j = 0; j < k; ++j) {
    if (want[j] && !available[j]) in_columns[j] = true;
  }
  for (int p = 0; p < mx.m; ++p) {
    if (!(mask & (1u << p))) continue;
    in_rows[k + p] = true;
    for (int j = 0; j < k; ++j) {
      if (mx.at(p, j) == 0) continue;
      in_columns[j] = true;
      if (available[j]) in_rows[j] = true;
    }
  }
  rows->clear();
  columns->clear();
  for (int i = 0; i < k + mx.m; ++i)
    if (in_rows[i]) rows->push_back(i);
  for (int j = 0; j < k; ++j)
    if (in_columns[j]) columns->push_back(j);
  return rows->size() == columns->size();
}

bool ParitiesAvailable(const MatrixView& mx, const std::vector<bool>& available, unsigned mask) {
  for (int p = 0; p < mx.m; ++p) {
    if ((mask & (1u << p)) && !available[mx.k + p]) return false;
  }
  return true;
}

// Inverts the rows x columns submatrix; false when singular.
bool InvertSystem(const MatrixView& mx, const std::vector<int>& rows,
                  const std::vector<int>& columns, std::vector<int>* inverse) {
  const int n = static_cast<int>(rows.size());
  std::vector<int> sub(static_cast<std::size_t>(n) * n);
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const int id = rows[r];
      sub[static_cast<std::size_t>(r) * n + c] =
          id < mx.k ? (id == columns[c] ? 1 : 0) : mx.at(id - mx.k, columns[c]);
    }
  }
  return InvertOver(mx.w, sub, n, inverse);
}

// Missing wanted parities make the data chunks of their window wanted.
std::vector<bool> ExtendWant(const MatrixView& mx, const std::vector<bool>& want,
                             const std::vector<bool>& available) {
  std::vector<bool> extended = want;
  for (int p = 0; p < mx.m; ++p) {
    if (!want[mx.k + p] || available[mx.k + p]) continue;
    for (int j = 0; j < mx.k; ++j)
      if (mx.at(p, j) != 0) extended[j] = true;
  }
  return extended;
}

void FillMinimum(const MatrixView& mx, const std::vector<bool>& available, RecoveryPlan* plan) {
  plan->minimum.clear();
  plan->minimum.insert(plan->rows.begin(), plan->rows.end());
  for (int j = 0; j < mx.k; ++j)
    if (plan->want[j] && available[j]) plan->minimum.insert(j);
  for (int p = 0; p < mx.m; ++p) {
    const int id = mx.k + p;
    if (!plan->want[id] || !available[id] || plan->minimum.count(id)) continue;
    for (int j = 0; j < mx.k; ++j) {
      if (mx.at(p, j) != 0 && !plan->want[j]) {
        plan->minimum.insert(id);
        break;
      }
    }
  }
}

long CostOf(const ShardSet& chunks, const std::map<int, int>& cost) {
  long total = 0;
  for (int id : chunks) {
    auto it = cost.find(id);
    if (it != cost.end()) total += it->second;
  }
  return total;
}

}  // namespace

bool InvertOver(int w, const std::vector<int>& in, int n, std::vector<int>* out) {
  out->assign(static_cast<std::size_t>(n) * n, 0);
  if (n == 0) return true;
  if (w == 8) {
    std::vector<std::uint8_t> a(in.begin(), in.end()), b(a.size());
    if (!gf::InvertMatrix(a.data(), b.data(), n)) return false;
    out->assign(b.begin(), b.end());
    return true;
  }
  std::vector<int> copy = in;  // jerasure_invert_matrix destroys its input
  return jerasure_invert_matrix(copy.data(), out->data(), n, w) == 0;
}

Result<RecoveryPlan> FindRecovery(const MatrixView& mx, const std::vector<bool>& want,
                                  const std::vector<bool>& available) {
  RecoveryPlan plan;
  plan.want = ExtendWant(mx, want, available);
  bool found = false;
  std::size_t best_rows = static_cast<std::size_t>(mx.k) + 1;
  int best_parities = mx.k + 1;
  std::vector<int> rows, columns, inverse;
  for (unsigned mask = 0; mask < (1u << mx.m); ++mask) {
    const int parities = __builtin_popcount(mask);
    if (parities > best_parities) continue;
    if (!ParitiesAvailable(mx, available, mask)) continue;
    if (!BuildSystem(mx, plan.want, available, mask, &rows, &columns)) continue;
    if (rows.empty()) {
      // Nothing to solve: every wanted chunk (after the extension) is available.
      plan.rows.clear();
      plan.columns.clear();
      plan.inverse.clear();
      found = true;
      break;
    }
    if (rows.size() >= best_rows) continue;
    if (!InvertSystem(mx, rows, columns, &inverse)) continue;
    plan.rows = rows;
    plan.columns = columns;
    plan.inverse = inverse;
    best_rows = rows.size();
    best_parities = parities;
    found = true;
  }
  if (!found) {
    return Status::IOError("shec: the available chunks cannot rebuild the wanted ones");
  }
  FillMinimum(mx, available, &plan);
  return plan;
}

Result<RecoveryPlan> FindCheapestRecovery(const MatrixView& mx, const std::vector<bool>& want,
                                          const std::vector<bool>& available,
                                          const std::map<int, int>& cost) {
  Result<RecoveryPlan> first = FindRecovery(mx, want, available);
  if (!first.ok()) return first;
  RecoveryPlan best = std::move(*first);
  if (best.rows.empty()) return best;
  long best_cost = CostOf(best.minimum, cost);
  RecoveryPlan candidate;
  candidate.want = best.want;
  for (unsigned mask = 1; mask < (1u << mx.m); ++mask) {
    if (!ParitiesAvailable(mx, available, mask)) continue;
    if (!BuildSystem(mx, candidate.want, available, mask, &candidate.rows, &candidate.columns)) {
      continue;
    }
    FillMinimum(mx, available, &candidate);
    const long c = CostOf(candidate.minimum, cost);
    if (c >= best_cost) continue;
    if (!InvertSystem(mx, candidate.rows, candidate.columns, &candidate.inverse)) continue;
    best = candidate;
    best_cost = c;
  }
  return best;
}

}  // namespace ec::shec
