#include "plugins/jerasure/jerasure_cauchy.h"

#include <cstdlib>

#include "ec/galois_fields.h"

extern "C" {
#include <cauchy.h>
#include <jerasure.h>
}

namespace ec::jerasure {

unsigned CauchyCode::get_alignment() const {
  if (!per_chunk_alignment_) return StripeAlignment();
  unsigned alignment = static_cast<unsigned>(w_) * static_cast<unsigned>(packetsize_);
  const unsigned modulo = alignment % kLargestVectorWordSize;
  if (modulo != 0) alignment += kLargestVectorWordSize - modulo;
  return alignment;
}

void CauchyCode::ParseTechnique(Profile& profile, Params& params, InitErrors* errors) {
  errors->Add(ProfileToInt("packetsize", profile, &packetsize_, "2048"));
  errors->Add(
      ProfileToBool("jerasure-per-chunk-alignment", profile, &per_chunk_alignment_, "false"));
  if (params.w < 1 || params.w > 32) {
    errors->Add(EINVAL, "w=" + std::to_string(params.w) + " must be between 1 and 32");
  }
  if (packetsize_ <= 0) {
    errors->Add(EINVAL,
                "packetsize=" + std::to_string(packetsize_) + " must be a positive integer");
  }
  CheckSizes(params, packetsize_, errors);
}

int* CauchyCode::BuildBitmatrix() const {
  if (!EnsureGaloisField(w_).ok()) return nullptr;
  int* matrix = BuildMatrix();
  if (matrix == nullptr) return nullptr;
  int* bitmatrix = jerasure_matrix_to_bitmatrix(k(), m(), w_, matrix);
  std::free(matrix);
  return bitmatrix;
}

int* CauchyOrig::BuildMatrix() const {
  return cauchy_original_coding_matrix(k(), m(), w_);
}

int* CauchyGood::BuildMatrix() const {
  return cauchy_good_general_coding_matrix(k(), m(), w_);
}

}  // namespace ec::jerasure
