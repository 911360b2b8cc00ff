#include "plugins/isa/isa_matrix.h"

#include <isa-l/erasure_code.h>

#include <cstdlib>

namespace ec::isa {

std::string_view TechniqueName(Technique technique) {
  return technique == Technique::kCauchy ? "cauchy" : "reed_sol_van";
}

std::optional<Technique> ParseTechnique(std::string_view name) {
  if (name == "reed_sol_van") return Technique::kReedSolVan;
  if (name == "cauchy") return Technique::kCauchy;
  return std::nullopt;
}

std::vector<std::uint8_t> IsaCodingMatrix(Technique technique, int k, int m) {
  if (k < 1 || m < 1 || k + m > 256) std::abort();
  // ISA-L builds the whole (k+m) x k generator, identity on top; keep the coding rows only.
  std::vector<std::uint8_t> full(static_cast<std::size_t>(k + m) * k);
  if (technique == Technique::kCauchy) {
    gf_gen_cauchy1_matrix(full.data(), k + m, k);
  } else {
    gf_gen_rs_matrix(full.data(), k + m, k);
  }
  return std::vector<std::uint8_t>(full.begin() + static_cast<std::ptrdiff_t>(k) * k, full.end());
}

std::vector<std::uint8_t> EffectiveCodingMatrix(Technique technique, int k, int m) {
  if (m == 1) {
    if (k < 1 || k + m > 256) std::abort();
    return std::vector<std::uint8_t>(static_cast<std::size_t>(k), 1);
  }
  return IsaCodingMatrix(technique, k, m);
}

}  // namespace ec::isa
