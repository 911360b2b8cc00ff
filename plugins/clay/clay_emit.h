// Helpers the two program builders share: which of (C_A, C_B, U_A, U_B) a vertex is, emitting a
// pair solve in either form (linear step or sub-code call), and the coefficients of fused steps.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "plugins/clay/clay_layout.h"
#include "plugins/clay/clay_program.h"
#include "plugins/clay/clay_scalar.h"

namespace ec::clay {

// The pair-value bits of a vertex of `self` paired with a vertex of `other` (same group).
struct PairSides {
  PairSides(const ClayLayout& layout, int self, int other) {
    const bool self_is_a = layout.x_of(self) > layout.x_of(other);
    c_self = self_is_a ? kCA : kCB;
    c_other = self_is_a ? kCB : kCA;
    u_self = self_is_a ? kUA : kUB;
    u_other = self_is_a ? kUB : kUA;
  }
  unsigned c_self, c_other, u_self, u_other;
};

struct PairVal {
  unsigned bit;
  Ref ref;
};

// Emits "the targets from the two known values" of one pair: a Linear step when `linear`, a
// sub-code pair solve otherwise. Operands in any order.
inline void EmitPair(ProgramBuilder& b, const PairCode& pair, bool linear, PairVal known0,
                     PairVal known1, PairVal target0,
                     std::optional<PairVal> target1 = std::nullopt) {
  if (known0.bit > known1.bit) std::swap(known0, known1);
  if (target1 && target0.bit > target1->bit) std::swap(target0, *target1);
  const unsigned known = known0.bit | known1.bit;
  const unsigned target = target0.bit | (target1 ? target1->bit : 0u);
  if (!linear) {
    b.Pair(known, target, known0.ref, known1.ref, target0.ref, target1 ? target1->ref : Ref{});
    return;
  }
  std::vector<Ref> out = {target0.ref};
  if (target1) out.push_back(target1->ref);
  b.Linear({known0.ref, known1.ref}, out, pair.Coefficients(known, target));
}

// Linear codes: the coefficient of known value `from` in `to`, when `to` is computed from the
// known pair {from, with}.
inline std::uint8_t PairCoefficient(const PairCode& pair, unsigned to, unsigned from,
                                    unsigned with) {
  const std::vector<std::uint8_t> row = pair.Coefficients(from | with, to);
  return row[from < with ? 0 : 1];
}

// One input of a fused per-plane step: `scale` times the value at `ref` is the uncoupled value of
// the solve's source number `source`.
struct Term {
  int source;
  Ref ref;
  std::uint8_t scale;
};

}  // namespace ec::clay
