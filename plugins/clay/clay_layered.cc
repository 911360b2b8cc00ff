// Layered decode and encode (see clay_engine.h).
#include <algorithm>

#include "plugins/clay/clay_emit.h"
#include "plugins/clay/clay_engine.h"

namespace ec::clay {

Result<std::shared_ptr<const Program>> BuildLayeredProgram(const ClayLayout& layout,
                                                           const PairCode& pair, const MdsCode& mds,
                                                           const std::vector<int>& erased,
                                                           bool direct_dots, bool fold_pairs) {
  const int n = layout.nodes();
  const int z_count = layout.sub_chunk_count();
  const bool linear = pair.linear() && mds.linear();
  if (erased.empty() || static_cast<int>(erased.size()) > layout.m()) {
    return Status::IOError("clay can rebuild 1 to " + std::to_string(layout.m()) + " chunks, not " +
                           std::to_string(erased.size()));
  }
  std::vector<char> is_erased(n, 0), is_source(n, 0);
  for (int e : erased) {
    if (e < 0 || e >= n || layout.is_virtual(e) || is_erased[e])
      return Status::Invalid("bad erased node " + std::to_string(e));
    is_erased[e] = 1;
  }
  // The per-plane code needs k+nu known nodes: the virtual ones (their C is zero), then the
  // lowest known ids that determine the erased ones (any for an MDS sub-code).
  std::vector<int> virtual_nodes, known;
  for (int j = layout.k(); j < layout.k() + layout.nu(); ++j) virtual_nodes.push_back(j);
  for (int j = 0; j < n; ++j)
    if (!is_erased[j] && !layout.is_virtual(j)) known.push_back(j);
  auto chosen = mds.ChooseSources(virtual_nodes, known);
  if (!chosen.ok()) return chosen.status();
  const std::vector<int> sources = std::move(*chosen);
  for (int s : sources) is_source[s] = 1;
  auto prepared = mds.Prepare(sources, erased);
  if (!prepared.ok()) return prepared.status();
  const MdsCode::Solve& solve = **prepared;

  ProgramBuilder b(2 * n);
  const std::uint32_t solve_index = b.AddSolve(*prepared);
  for (int e : erased) {
    b.SetScratch(e, z_count);
    b.SetScratch(n + e, z_count);
  }
  for (int s : sources)
    if (!layout.is_virtual(s) || !linear) b.SetScratch(n + s, z_count);

  auto C = [&](int node, int z) {
    return layout.is_virtual(node)
               ? Ref{kZeroSlot, 0}
               : Ref{static_cast<std::uint16_t>(node), static_cast<std::uint32_t>(z)};
  };
  auto U = [&](int node, int z) {
    return Ref{static_cast<std::uint16_t>(n + node), static_cast<std::uint32_t>(z)};
  };
  // U of source s in plane z (s not a dot) from its coupled value and its partner's.
  auto emit_u = [&](int s, int z, bool both) {
    const int p = layout.partner_node(s, z);
    const int zp = layout.partner_plane(s, z);
    const PairSides sides(layout, s, p);
    if (both) {
      EmitPair(b, pair, linear, {sides.c_self, C(s, z)}, {sides.c_other, C(p, zp)},
               {sides.u_self, U(s, z)}, PairVal{sides.u_other, U(p, zp)});
    } else {
      EmitPair(b, pair, linear, {sides.c_self, C(s, z)}, {sides.c_other, C(p, zp)},
               {sides.u_self, U(s, z)});
    }
  };

  std::vector<int> level(z_count, 0);
  int max_level = 0;
  for (int z = 0; z < z_count; ++z) {
    for (int e : erased) level[z] += layout.is_dot(e, z);
    max_level = std::max(max_level, level[z]);
  }

  // Uncoupled values that need nothing rebuilt. Dots need no step (U = C is read in place) and
  // in linear programs a virtual source's U (= a multiple of its partner's C) is folded into the
  // per-plane step, and so is a real source's when fold_pairs.
  for (int s : sources) {
    if (linear && (layout.is_virtual(s) || fold_pairs)) continue;
    for (int z = 0; z < z_count; ++z) {
      if (layout.is_dot(s, z)) continue;
      const int p = layout.partner_node(s, z);
      if (is_erased[p]) continue;
      const bool pair_of_sources = is_source[p] && !layout.is_virtual(p) && !layout.is_virtual(s);
      if (!pair_of_sources)
        emit_u(s, z, false);
      else if (layout.x_of(s) > layout.x_of(p))
        emit_u(s, z, true);  // computes the partner's U too
    }
  }
  b.EndPhase();

  std::vector<Ref> in, out;
  std::vector<std::uint8_t> coef;
  for (int current = 0; current <= max_level; ++current) {
    // U of sources whose partner was rebuilt at a lower level.
    for (int z = 0; z < z_count; ++z) {
      if (level[z] != current) continue;
      for (int s : sources) {
        if (layout.is_dot(s, z) || !is_erased[layout.partner_node(s, z)]) continue;
        if (!layout.is_virtual(s) || !linear) emit_u(s, z, false);
      }
    }
    b.EndPhase();
    // The per-plane solve.
    for (int z = 0; z < z_count; ++z) {
      if (level[z] != current) continue;
      in.clear();
      out.clear();
      for (int e : erased) out.push_back(direct_dots && layout.is_dot(e, z) ? C(e, z) : U(e, z));
      if (!linear) {
        for (int s : sources) in.push_back(layout.is_dot(s, z) ? C(s, z) : U(s, z));
        b.Mds(solve_index, in, out);
        continue;
      }
      // A virtual source's partner is known by its C: an erased partner is a dot in z, so its
      // plane is of a lower level, whose C values are rebuilt already.
      const std::vector<Term> terms = PlaneTerms(
          layout, pair, sources, z, C, U, [](int) { return false; },
          [&](int, int p) { return fold_pairs && !is_erased[p]; });
      coef.clear();
      for (std::size_t t = 0; t < erased.size(); ++t) {
        const std::vector<std::uint8_t> row = TermRow(solve, static_cast<int>(t), terms);
        coef.insert(coef.end(), row.begin(), row.end());
      }
      for (const Term& term : terms) in.push_back(term.ref);
      b.Linear(in, out, coef);
    }
    b.EndPhase();
    // Coupled values of the erased nodes.
    for (int z = 0; z < z_count; ++z) {
      if (level[z] != current) continue;
      for (int e : erased) {
        if (layout.is_dot(e, z)) {
          if (!direct_dots) b.Copy(C(e, z), U(e, z));
          continue;
        }
        const int p = layout.partner_node(e, z);
        const int zp = layout.partner_plane(e, z);
        const PairSides sides(layout, e, p);
        if (!is_erased[p]) {
          EmitPair(b, pair, linear, {sides.c_other, C(p, zp)}, {sides.u_self, U(e, z)},
                   {sides.c_self, C(e, z)});
        } else if (layout.x_of(e) > layout.x_of(p)) {
          // Both erased: solve the pair once, from the side with the larger x.
          EmitPair(b, pair, linear, {sides.u_self, U(e, z)}, {sides.u_other, U(p, zp)},
                   {sides.c_self, C(e, z)}, PairVal{sides.c_other, C(p, zp)});
        }
      }
    }
    b.EndPhase();
  }
  return std::make_shared<const Program>(b.Finish());
}

}  // namespace ec::clay
