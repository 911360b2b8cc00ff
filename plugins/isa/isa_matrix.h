// The coding matrices of Ceph's isa plugin, as ISA-L generates them.
//
// A matrix here is the m x k block of coding rows, row-major: parity j (chunk k+j) is
// sum_i M[j*k+i] * data_i over GF(2^8) with polynomial 0x11D. The identity block of the systematic
// code is implied and not stored.
//   reed_sol_van (ISA-L gf_gen_rs_matrix):     M[j][i] = (2^j)^i, so row 0 is all ones,
//                                              row 1 = 1,2,4,8,..., row 2 = 1,4,16,64,...
//   cauchy       (ISA-L gf_gen_cauchy1_matrix): M[j][i] = 1 / ((k+j) XOR i)
// Neither is what Ceph computes parity with when m == 1: Ceph then uses a plain XOR for both
// techniques, i.e. the all-ones row (see EffectiveCodingMatrix).
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace ec::isa {

enum class Technique { kReedSolVan, kCauchy };

// "reed_sol_van" / "cauchy", the profile spelling.
std::string_view TechniqueName(Technique technique);
// The technique a profile value names; nullopt for anything else (including "").
std::optional<Technique> ParseTechnique(std::string_view name);

// The m x k coding rows ISA-L generates for (k, m). Preconditions: k >= 1, m >= 1, k + m <= 256
// (beyond that the generators index outside GF(2^8)); violating them aborts.
std::vector<std::uint8_t> IsaCodingMatrix(Technique technique, int k, int m);

// The rows the plugin really computes parity with: IsaCodingMatrix, except the single all-ones
// row when m == 1 (Ceph's XOR parity). Same preconditions.
std::vector<std::uint8_t> EffectiveCodingMatrix(Technique technique, int k, int m);

}  // namespace ec::isa
