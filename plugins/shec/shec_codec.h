// ShecCodec: one SHEC(k, m, c) code over GF(2^w) working on pieces (data 0..k-1, parity
// k..k+m-1): its coding matrix (shec_matrix.h), encode, and decode along the plan of SHEC's
// recovery search (shec_search.h).
//
// How the arithmetic runs:
//   w=8      on ISA-L (ec::gf::MatrixCodec): encode with the coding matrix; a decode is one
//            ISA-L pass of a small matrix that maps the plan's sources straight to the targets
//            (missing data solved through the plan's inverse, missing parity re-encoded from it).
//   w=16/32  with jerasure (jerasure_matrix_encode / jerasure_matrix_dotprod) on 16-byte aligned
//            regions (words are little-endian w/8-byte integers, as in Ceph).
// Decode programs are cached per (targets, available) pattern in an LRU of kDecodeLruCapacity.
//
// Thread safety: after Create, every method may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/gf.h"
#include "ec/lru_cache.h"
#include "plugins/shec/shec_matrix.h"
#include "plugins/shec/shec_search.h"

namespace ec::shec {

// Ceph's shec keeps the same number of decoding tables as its isa plugin.
inline constexpr std::size_t kDecodeLruCapacity = 2516;

class ShecCodec {
 public:
  // Builds the code. Preconditions (checked by ErasureCodeShec::init): 0 < c <= m <= k <= 12,
  // k + m <= 20. Errors: those of CodingMatrix.
  static Result<std::shared_ptr<const ShecCodec>> Create(Technique technique, int k, int m, int c,
                                                         int w);

  Technique technique() const { return technique_; }
  int k() const { return k_; }
  int m() const { return m_; }
  int c() const { return c_; }
  int w() const { return w_; }
  // The m x k coding matrix (row-major), zeros outside each parity's window.
  const std::vector<int>& matrix() const { return matrix_; }
  MatrixView view() const { return {k_, m_, w_, &matrix_}; }

  // parity[j] = row j applied to data[0..k). Precondition: len is a multiple of w/8 and at most
  // INT32_MAX (the caller checks).
  void Encode(std::size_t len, const std::uint8_t* const* data, std::uint8_t* const* parity) const;

  // Rebuilds the pieces `targets` (distinct, in [0, k+m), none available) into `outputs` from
  // `pieces` (k+m pointers, nullptr = not available). Only the pieces of the plan are read.
  // Errors: EIO when the available pieces cannot rebuild the targets. Same length precondition.
  Status Decode(std::size_t len, const std::uint8_t* const* pieces, const std::vector<int>& targets,
                std::uint8_t* const* outputs) const;

  // Number of decode programs cached (for tests).
  std::size_t cached_programs() const { return programs_.size(); }

 private:
  // targets[t] = sum over s of coefficients[t * sources.size() + s] * piece sources[s].
  struct Program {
    std::vector<int> sources;
    std::vector<int> coefficients;
    std::unique_ptr<gf::MatrixCodec> codec;  // w=8
  };

  ShecCodec(Technique technique, int k, int m, int c, int w, std::vector<int> matrix);
  Result<std::shared_ptr<const Program>> ProgramFor(const std::vector<int>& targets,
                                                    const std::vector<bool>& available) const;
  Result<Program> BuildProgram(const std::vector<int>& targets,
                               const std::vector<bool>& available) const;
  int Mul(int a, int b) const;

  Technique technique_;
  int k_;
  int m_;
  int c_;
  int w_;
  std::vector<int> matrix_;
  std::unique_ptr<gf::MatrixCodec> encoder_;  // w=8
  mutable LruCache<std::string, Program> programs_;
};

}  // namespace ec::shec
