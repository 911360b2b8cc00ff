// The Cauchy techniques of the jerasure plugin: cauchy_orig and cauchy_good.
//
// Matrices: cauchy_original_coding_matrix / cauchy_good_general_coding_matrix(k, m, w), expanded
// by jerasure_matrix_to_bitmatrix and run as bit-matrix codes (see bitmatrix_code.h).
//
// Profile keys (beyond those of JerasureCode), defaults k=7 m=3 w=8:
//   packetsize                    int, default 2048
//   jerasure-per-chunk-alignment  bool, default false
// Ceph does not restrict w here; this implementation additionally refuses what would crash
// jerasure: w outside 1..32 ("w=W must be between 1 and 32"), packetsize <= 0
// ("packetsize=P must be a positive integer"), k+m > 2^w (no Cauchy matrix exists; EINVAL from
// Prepare) and alignments that overflow 32 bits.
//
// Chunk alignment (get_chunk_size): per chunk, w*packetsize rounded up to 16; otherwise
// k*w*packetsize*4, or k*w*packetsize*16 when w*packetsize*4 is not a multiple of 16.
//
// Thread safety: as JerasureCode.
#pragma once

#include "plugins/jerasure/bitmatrix_code.h"

namespace ec::jerasure {

class CauchyCode : public BitmatrixCode {
 public:
  unsigned get_alignment() const override;

 protected:
  using BitmatrixCode::BitmatrixCode;

  // jerasure's m x k Cauchy matrix (malloc'ed) or nullptr.
  virtual int* BuildMatrix() const = 0;

  void ParseTechnique(Profile& profile, Params& params, InitErrors* errors) override;
  int* BuildBitmatrix() const override;
};

class CauchyOrig : public CauchyCode {
 public:
  CauchyOrig() : CauchyCode("cauchy_orig", {"7", "3", "8"}) {}

 protected:
  int* BuildMatrix() const override;
};

class CauchyGood : public CauchyCode {
 public:
  CauchyGood() : CauchyCode("cauchy_good", {"7", "3", "8"}) {}

 protected:
  int* BuildMatrix() const override;
};

}  // namespace ec::jerasure
