// Repair and partial repair of one lost chunk from sub-chunks of d helpers (see clay_engine.h).
#include <algorithm>

#include "plugins/clay/clay_emit.h"
#include "plugins/clay/clay_engine.h"

namespace ec::clay {

namespace {

std::vector<int> SortedUnique(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

int IndexOf(const std::vector<int>& sorted, int value) {
  return static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin());
}

Status CheckRequest(const ClayLayout& layout, int lost_chunk, const ShardSet& helpers,
                    SubChunkRange want) {
  const int chunks = layout.k() + layout.m();
  if (lost_chunk < 0 || lost_chunk >= chunks)
    return Status::Invalid("lost chunk " + std::to_string(lost_chunk) + " is out of range");
  if (helpers.size() != static_cast<std::size_t>(layout.d())) {
    return Status::Invalid("a clay repair needs exactly d=" + std::to_string(layout.d()) +
                           " helpers, got " + std::to_string(helpers.size()));
  }
  for (int h : helpers) {
    if (h < 0 || h >= chunks || h == lost_chunk)
      return Status::Invalid("helper " + std::to_string(h) + " is not a valid helper chunk");
  }
  for (int peer : layout.group_peers(lost_chunk)) {
    if (!helpers.count(peer)) {
      return Status::Invalid("a clay repair of chunk " + std::to_string(lost_chunk) +
                             " needs chunk " + std::to_string(peer) + " of its group as helper");
    }
  }
  const int z_count = layout.sub_chunk_count();
  if (want.second < 1 || want.first < 0 || want.first > z_count - want.second) {
    return Status::Invalid("sub-chunk range (" + std::to_string(want.first) + "," +
                           std::to_string(want.second) + ") is not inside [0," +
                           std::to_string(z_count) + ")");
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const RepairProgram>> BuildRepairProgram(
    const ClayLayout& layout, const PairCode& pair, const MdsCode& mds, int lost_chunk,
    const ShardSet& helpers, SubChunkRange want, bool fold_pairs) {
  EC_RETURN_IF_ERROR(CheckRequest(layout, lost_chunk, helpers, want));
  const int n = layout.nodes();
  const int q = layout.q();
  const int z_count = layout.sub_chunk_count();
  const bool linear = pair.linear() && mds.linear();
  const int want_end = want.first + want.second;
  const int lost = layout.node_of_chunk(lost_chunk);
  const int y0 = layout.y_of(lost);
  const int x0 = layout.x_of(lost);

  // In every touched plane the lost node's group and the aloof nodes are the m unknowns.
  std::vector<char> is_helper(n, 0), is_aloof(n, 0), is_erased(n, 0);
  for (int h : helpers) is_helper[layout.node_of_chunk(h)] = 1;
  std::vector<int> erased, sources;
  for (int j = 0; j < n; ++j) {
    const bool in_group = layout.y_of(j) == y0;
    is_aloof[j] = !in_group && !layout.is_virtual(j) && !is_helper[j];
    is_erased[j] = in_group || is_aloof[j];
    (is_erased[j] ? erased : sources).push_back(j);
  }
  if (static_cast<int>(sources.size()) != mds.data())
    return Status::Invalid("internal: repair pattern has the wrong number of known nodes");
  auto prepared = mds.Prepare(sources, erased);
  if (!prepared.ok()) return prepared.status();
  const MdsCode::Solve& solve = **prepared;
  auto target_row = [&](int node) {
    return static_cast<int>(std::find(erased.begin(), erased.end(), node) - erased.begin());
  };

  // Planes to solve: the repair planes the wanted sub-chunks map to, plus (aloof nodes) the
  // planes whose aloof U a known node's pair needs, recursively.
  std::vector<char> in_d(z_count, 0);
  std::vector<int> queue;
  for (int z = want.first; z < want_end; ++z) {
    const int r = layout.with_digit(z, y0, x0);
    if (!in_d[r]) {
      in_d[r] = 1;
      queue.push_back(r);
    }
  }
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const int z = queue[i];
    for (int s : sources) {
      if (layout.is_dot(s, z) || !is_aloof[layout.partner_node(s, z)]) continue;
      const int zp = layout.partner_plane(s, z);
      if (!in_d[zp]) {
        in_d[zp] = 1;
        queue.push_back(zp);
      }
    }
  }
  const std::vector<int> planes = SortedUnique(queue);

  // Per helper node: the planes it sends, sorted (its compact buffer, in this order).
  std::vector<std::vector<int>> sends(n);
  for (int j = 0; j < n; ++j) {
    if (!is_helper[j]) continue;
    std::vector<int>& mine = sends[j];
    const int xj = layout.x_of(j);
    const int yj = layout.y_of(j);
    if (yj == y0) {
      for (int z = want.first; z < want_end; ++z)
        if (layout.digit(z, y0) == xj) mine.push_back(layout.with_digit(z, y0, x0));
    } else {
      for (int z : planes) {
        mine.push_back(z);
        if (layout.digit(z, yj) != xj) continue;
        // j is the dot here: its group's other known nodes pair with j's vertex in z[yj := x].
        for (int x = 0; x < q; ++x) {
          const int other = yj * q + x;
          if (x != xj && !is_erased[other]) mine.push_back(layout.with_digit(z, yj, x));
        }
      }
    }
    mine = SortedUnique(std::move(mine));
  }

  auto program = std::make_shared<RepairProgram>();
  program->lost_chunk = lost_chunk;
  program->want = want;
  for (int h : helpers) {
    const int j = layout.node_of_chunk(h);
    program->helpers.push_back(h);
    program->reads[h] = PlanesToRanges(sends[j]);
    program->read_counts.push_back(static_cast<int>(sends[j].size()));
    program->sub_chunks_read += static_cast<long long>(sends[j].size());
  }

  const std::uint16_t out_slot = static_cast<std::uint16_t>(2 * n);
  ProgramBuilder b(2 * n + 1);
  const std::uint32_t solve_index = b.AddSolve(*prepared);
  for (int j = 0; j < n; ++j) b.SetScratch(n + j, static_cast<std::uint32_t>(planes.size()));
  auto C = [&](int node, int z) {
    if (layout.is_virtual(node)) return Ref{kZeroSlot, 0};
    return Ref{static_cast<std::uint16_t>(node),
               static_cast<std::uint32_t>(IndexOf(sends[node], z))};
  };
  auto U = [&](int node, int z) {
    return Ref{static_cast<std::uint16_t>(n + node),
               static_cast<std::uint32_t>(IndexOf(planes, z))};
  };
  auto out_ref = [&](int z) { return Ref{out_slot, static_cast<std::uint32_t>(z - want.first)}; };

  std::vector<int> level(z_count, 0);
  int max_level = 0;
  for (int z : planes) {
    for (int j = 0; j < n; ++j) level[z] += is_aloof[j] && layout.is_dot(j, z);
    max_level = std::max(max_level, level[z]);
  }

  std::vector<Ref> in, out;
  std::vector<std::uint8_t> coef;
  for (int current = 0; current <= max_level; ++current) {
    // Uncoupled values of the known nodes (dots are read in place; in linear programs a virtual
    // node's U is folded into the solve below).
    for (int z : planes) {
      if (level[z] != current) continue;
      for (int s : sources) {
        if (layout.is_dot(s, z)) continue;
        const int p = layout.partner_node(s, z);
        const int zp = layout.partner_plane(s, z);
        const PairSides sides(layout, s, p);
        if (layout.is_virtual(s)) {
          if (linear) continue;
          if (is_aloof[p]) {
            EmitPair(b, pair, false, {sides.c_self, C(s, z)}, {sides.u_other, U(p, zp)},
                     {sides.u_self, U(s, z)});
          } else {
            EmitPair(b, pair, false, {sides.c_self, C(s, z)}, {sides.c_other, C(p, zp)},
                     {sides.u_self, U(s, z)});
          }
        } else if (is_aloof[p]) {
          EmitPair(b, pair, linear, {sides.c_self, C(s, z)}, {sides.u_other, U(p, zp)},
                   {sides.u_self, U(s, z)});
        } else if (linear && fold_pairs) {
          continue;  // folded into the plane's solve (the partner is known by its C)
        } else if (!layout.is_virtual(p) && in_d[zp]) {
          // Both vertices are known helpers' and both U are needed: one step, from the A side.
          if (layout.x_of(s) > layout.x_of(p)) {
            EmitPair(b, pair, linear, {sides.c_self, C(s, z)}, {sides.c_other, C(p, zp)},
                     {sides.u_self, U(s, z)}, PairVal{sides.u_other, U(p, zp)});
          }
        } else {
          EmitPair(b, pair, linear, {sides.c_self, C(s, z)}, {sides.c_other, C(p, zp)},
                   {sides.u_self, U(s, z)});
        }
      }
    }
    b.EndPhase();
    // The per-plane solve. Linear programs fuse into it the lost chunk's sub-chunks that this
    // plane determines: C of the lost node here (a dot: C = U) and in z[y0 := x] via the pair of
    // node (x, y0).
    for (int z : planes) {
      if (level[z] != current) continue;
      in.clear();
      out.clear();
      if (!linear) {
        for (int s : sources) in.push_back(layout.is_dot(s, z) ? C(s, z) : U(s, z));
        for (int e : erased) out.push_back(U(e, z));
        b.Mds(solve_index, in, out);
        continue;
      }
      // An aloof partner is known by the U an earlier level solved; a helper by its C.
      const std::vector<Term> terms = PlaneTerms(
          layout, pair, sources, z, C, U, [&](int node) { return is_aloof[node] != 0; },
          [&](int, int p) { return fold_pairs && !is_aloof[p]; });
      // Rows: aloof U (needed by later levels), then the lost chunk's wanted sub-chunks.
      // Columns: the terms, then C of the lost node's real peers in this plane.
      std::vector<std::vector<std::uint8_t>> rows;
      auto solve_row = [&](int node, std::uint8_t scale) {
        return TermRow(solve, target_row(node), terms, scale);
      };
      if (current < max_level) {
        for (int e : erased) {
          if (!is_aloof[e]) continue;
          rows.push_back(solve_row(e, 1));
          out.push_back(U(e, z));
        }
      }
      std::vector<Ref> peer_refs;
      std::vector<std::pair<std::size_t, std::uint8_t>> peer_cells;  // (row, coefficient)
      for (int x = 0; x < q; ++x) {
        const int zx = layout.with_digit(z, y0, x);
        if (zx < want.first || zx >= want_end) continue;
        if (x == x0) {
          rows.push_back(solve_row(lost, 1));
          out.push_back(out_ref(zx));
          continue;
        }
        // C of the lost node in zx = alpha * C_peer(z) + beta * U_peer(z).
        const int peer = y0 * q + x;
        const PairSides sides(layout, peer, lost);
        rows.push_back(
            solve_row(peer, PairCoefficient(pair, sides.c_other, sides.u_self, sides.c_self)));
        out.push_back(out_ref(zx));
        if (!layout.is_virtual(peer)) {
          peer_refs.push_back(C(peer, z));
          peer_cells.emplace_back(rows.size() - 1,
                                  PairCoefficient(pair, sides.c_other, sides.c_self, sides.u_self));
        }
      }
      const std::size_t cols = terms.size() + peer_refs.size();
      coef.assign(rows.size() * cols, 0);
      for (std::size_t r = 0; r < rows.size(); ++r)
        std::copy(rows[r].begin(), rows[r].end(), coef.begin() + r * cols);
      for (std::size_t p = 0; p < peer_cells.size(); ++p)
        coef[peer_cells[p].first * cols + terms.size() + p] = peer_cells[p].second;
      for (const Term& term : terms) in.push_back(term.ref);
      in.insert(in.end(), peer_refs.begin(), peer_refs.end());
      b.Linear(in, out, coef);
    }
    b.EndPhase();
  }
  if (!linear) {
    for (int z = want.first; z < want_end; ++z) {
      const int x = layout.digit(z, y0);
      const int zr = layout.with_digit(z, y0, x0);
      if (x == x0) {
        b.Copy(out_ref(z), U(lost, z));
        continue;
      }
      // Node (x, y0) in the repair plane is paired with the lost node in plane z.
      const int peer = y0 * q + x;
      const PairSides sides(layout, peer, lost);
      EmitPair(b, pair, false, {sides.c_self, C(peer, zr)}, {sides.u_self, U(peer, zr)},
               {sides.c_other, out_ref(z)});
    }
    b.EndPhase();
  }
  program->program = b.Finish();
  return std::shared_ptr<const RepairProgram>(std::move(program));
}

}  // namespace ec::clay
