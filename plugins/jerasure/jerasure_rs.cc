#include "plugins/jerasure/jerasure_rs.h"

#include <cstdint>
#include <cstdlib>

#include "ec/aligned_regions.h"

extern "C" {
#include <jerasure.h>
#include <reed_sol.h>
}

namespace ec::jerasure {

namespace {

bool IsRsWordSize(int w) {
  return w == 8 || w == 16 || w == 32;
}

// jerasure allocates (k+m) x k ints for the Vandermonde construction: refuse sizes that cannot
// be meant (jerasure itself only refuses k+m > 2^w for w < 30).
constexpr long kMaxMatrixCells = 1L << 24;

}  // namespace

unsigned ReedSolomonCode::get_alignment() const {
  if (per_chunk_alignment_) return static_cast<unsigned>(w_) * kLargestVectorWordSize;
  const unsigned word_bytes = static_cast<unsigned>(w_) * sizeof(int);
  if (word_bytes % kLargestVectorWordSize != 0) {
    return k_ * static_cast<unsigned>(w_) * kLargestVectorWordSize;
  }
  return k_ * word_bytes;
}

Status ReedSolomonCode::Prepare() {
  codec_.reset();
  matrix_.clear();
  if (static_cast<long>(k() + m()) * k() > kMaxMatrixCells) {
    return Status::Invalid(technique() + ": k=" + std::to_string(k()) +
                           " and m=" + std::to_string(m()) + " are too large");
  }
  int* raw = BuildMatrix();
  if (raw == nullptr) {
    return Status::Invalid(
        technique() + ": cannot build a coding matrix for k=" + std::to_string(k()) +
        " m=" + std::to_string(m()) + " w=" + std::to_string(w_) + " (k+m must not exceed 2^w)");
  }
  matrix_.assign(raw, raw + m() * k());
  std::free(raw);
  if (w_ == 8) {
    std::vector<std::uint8_t> coding(matrix_.begin(), matrix_.end());
    codec_ = std::make_unique<gf::MatrixCodec>(k(), m(), std::move(coding));
  }
  return Status::OK();
}

Status ReedSolomonCode::CheckChunkLength(std::size_t len) const {
  const std::size_t word = static_cast<std::size_t>(w_) / 8;
  if (len % word != 0) {
    return Status::Invalid(technique() + ": chunk length " + std::to_string(len) +
                           " must be a multiple of " + std::to_string(word) +
                           " bytes (w=" + std::to_string(w_) + ")");
  }
  if (len > static_cast<std::size_t>(INT32_MAX)) {
    return Status::Invalid("chunk length " + std::to_string(len) + " is too large");
  }
  return Status::OK();
}

void ReedSolomonCode::JerasureEncode(char** data, char** coding, int len) const {
  jerasure_matrix_encode(k(), m(), w_, const_cast<int*>(matrix_.data()), data, coding, len);
}

Status ReedSolomonCode::EncodePieces(std::size_t len, const std::uint8_t* const* data,
                                     std::uint8_t* const* parity) const {
  if (codec_) {
    codec_->Encode(len, data, parity);
    return Status::OK();
  }
  AlignedRegions regions(len);
  std::vector<char*> d(k_), c(m_);
  for (int i = 0; i < k(); ++i) d[i] = regions.Input(data[i]);
  for (int j = 0; j < m(); ++j) c[j] = regions.Output(parity[j]);
  JerasureEncode(d.data(), c.data(), static_cast<int>(len));
  regions.CopyBack();
  return Status::OK();
}

Status ReedSolomonCode::DecodePieces(std::size_t len, const std::uint8_t* const* pieces,
                                     const std::vector<int>& targets,
                                     std::uint8_t* const* outputs) const {
  if (codec_) {
    return codec_->Decode(len, pieces, targets.data(), static_cast<int>(targets.size()), outputs);
  }
  // jerasure_matrix_decode rebuilds every erased piece: give each one a buffer.
  const int n = k() + m();
  AlignedRegions regions(len);
  std::vector<char*> ptrs(n, nullptr);
  for (std::size_t t = 0; t < targets.size(); ++t) ptrs[targets[t]] = regions.Output(outputs[t]);
  std::vector<int> erasures;
  for (int p = 0; p < n; ++p) {
    if (pieces[p] != nullptr) {
      ptrs[p] = regions.Input(pieces[p]);
      continue;
    }
    erasures.push_back(p);
    if (ptrs[p] == nullptr) ptrs[p] = regions.Scratch();
  }
  erasures.push_back(-1);
  if (jerasure_matrix_decode(k(), m(), w_, const_cast<int*>(matrix_.data()), 1, erasures.data(),
                             ptrs.data(), ptrs.data() + k(), static_cast<int>(len)) != 0) {
    return Status::IOError(technique() + ": jerasure_matrix_decode failed");
  }
  regions.CopyBack();
  return Status::OK();
}

void ReedSolomonVandermonde::ParseTechnique(Profile& profile, Params& params, InitErrors* errors) {
  if (!IsRsWordSize(params.w)) {
    errors->Add(EINVAL, "ReedSolomonVandermonde: w=" + std::to_string(params.w) +
                            " must be one of {8, 16, 32} : revert to " + defaults().w);
  }
  errors->Add(
      ProfileToBool("jerasure-per-chunk-alignment", profile, &per_chunk_alignment_, "false"));
}

int* ReedSolomonVandermonde::BuildMatrix() const {
  return reed_sol_vandermonde_coding_matrix(k(), m(), w_);
}

void ReedSolomonRaid6::ParseTechnique(Profile& /*profile*/, Params& params, InitErrors* errors) {
  if (params.m != 2) {
    errors->Add(EINVAL, "ReedSolomonRAID6: m=" + std::to_string(params.m) +
                            " must be 2 for RAID6: revert to 2");
  }
  if (!IsRsWordSize(params.w)) {
    errors->Add(EINVAL, "ReedSolomonRAID6: w=" + std::to_string(params.w) +
                            " must be one of {8, 16, 32} : revert to 8");
  }
}

int* ReedSolomonRaid6::BuildMatrix() const {
  return reed_sol_r6_coding_matrix(k(), w_);
}

void ReedSolomonRaid6::JerasureEncode(char** data, char** coding, int len) const {
  reed_sol_r6_encode(k(), w_, data, coding, len);
}

}  // namespace ec::jerasure
