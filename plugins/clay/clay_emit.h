// Helpers the two program builders share: which of (C_A, C_B, U_A, U_B) a vertex is, emitting a
// pair solve in either form (linear step or sub-code call), and the terms and coefficients of the
// fused per-plane steps of linear programs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "ec/gf.h"
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

// One input of a fused per-plane step: `scale` times the value at `ref` is (a summand of) the
// uncoupled value of the solve's source number `source`.
struct Term {
  int source;
  Ref ref;
  std::uint8_t scale;
};

// The terms of plane z's fused solve, in `sources` order, for the sources whose uncoupled value
// is not known to be zero: a dot's U is its C. A real source's U is either read from U(s, z),
// computed by an earlier step, or, when fold_pair(s, p) says so for its partner p (whose C must
// then be known), folded in: U(s, z) = a C(s, z) + b C(p, zp), two terms and no step of its own.
// A virtual source has C = 0, so its U is a multiple of its partner p's known value in the
// partner plane: C(p, zp), or U(p, zp) when partner_known_by_u(p) (a repair's aloof nodes, whose U
// an earlier level solved). A virtual source paired with a virtual node has U = 0 and no term.
// `C(node, z)` and `U(node, z)` give the refs of a node's coupled / uncoupled value.
//
// Folding costs more multiplies per output (2 per folded source and output against 2 per pair
// plus 1 per output) but no pass that writes U and reads it back, and far fewer kernel calls:
// with small sub-chunks the calls are most of the time.
template <typename CRef, typename URef, typename KnownByU, typename FoldPair>
std::vector<Term> PlaneTerms(const ClayLayout& layout, const PairCode& pair,
                             const std::vector<int>& sources, int z, CRef C, URef U,
                             KnownByU partner_known_by_u, FoldPair fold_pair) {
  std::vector<Term> terms;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const int s = sources[i];
    const int source = static_cast<int>(i);
    if (layout.is_dot(s, z)) {
      if (!layout.is_virtual(s)) terms.push_back({source, C(s, z), 1});
    } else if (!layout.is_virtual(s)) {
      const int p = layout.partner_node(s, z);
      if (!fold_pair(s, p)) {
        terms.push_back({source, U(s, z), 1});
        continue;
      }
      const PairSides sides(layout, s, p);
      terms.push_back(
          {source, C(s, z), PairCoefficient(pair, sides.u_self, sides.c_self, sides.c_other)});
      if (!layout.is_virtual(p)) {
        terms.push_back({source, C(p, layout.partner_plane(s, z)),
                         PairCoefficient(pair, sides.u_self, sides.c_other, sides.c_self)});
      }
    } else {
      const int p = layout.partner_node(s, z);
      if (layout.is_virtual(p)) continue;
      const PairSides sides(layout, s, p);
      const int zp = layout.partner_plane(s, z);
      if (partner_known_by_u(p)) {
        terms.push_back(
            {source, U(p, zp), PairCoefficient(pair, sides.u_self, sides.u_other, sides.c_self)});
      } else {
        terms.push_back(
            {source, C(p, zp), PairCoefficient(pair, sides.u_self, sides.c_other, sides.c_self)});
      }
    }
  }
  return terms;
}

// Row `target` (an index into solve.targets) of the solve's matrix over `terms` instead of its
// sources, times `scale`: the coefficients of one output of a fused per-plane step.
inline std::vector<std::uint8_t> TermRow(const MdsCode::Solve& solve, int target,
                                         const std::vector<Term>& terms, std::uint8_t scale = 1) {
  const std::size_t columns = solve.sources.size();
  std::vector<std::uint8_t> row(terms.size(), 0);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::size_t cell = static_cast<std::size_t>(target) * columns + terms[i].source;
    row[i] = gf::Mul(scale, gf::Mul(terms[i].scale, solve.coef[cell]));
  }
  return row;
}

}  // namespace ec::clay
