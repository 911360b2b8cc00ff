// The Reed-Solomon techniques of the jerasure plugin: reed_sol_van and reed_sol_r6_op.
//
// Matrices come from jerasure (reed_sol_vandermonde_coding_matrix, reed_sol_r6_coding_matrix),
// so parity bytes are Ceph's. How they are applied:
//   w=8      on ISA-L through ec::gf::MatrixCodec (same GF(2^8)/0x11D arithmetic as jerasure,
//            several times faster); decode tables are cached per erasure pattern in its LRU.
//   w=16/32  with jerasure itself (jerasure_matrix_encode / reed_sol_r6_encode and
//            jerasure_matrix_decode), on 16-byte aligned copies when a caller's buffer is not
//            aligned (gf-complete asserts on misaligned regions).
// Chunk lengths: any for w=8, a multiple of w/8 for w=16/32.
//
// Profile keys (beyond those of JerasureCode):
//   reed_sol_van   w in {8,16,32}, else "ReedSolomonVandermonde: w=W must be one of {8, 16, 32} :
//                  revert to 8"; jerasure-per-chunk-alignment (bool, default false).
//   reed_sol_r6_op m must be 2 ("ReedSolomonRAID6: m=M must be 2 for RAID6: revert to 2");
//                  w in {8,16,32} ("ReedSolomonRAID6: w=W must be one of {8, 16, 32} : revert
//                  to 8"). jerasure-per-chunk-alignment is not read (as in Ceph).
// Prepare fails with EINVAL when k+m exceeds 2^w (jerasure cannot build the matrix).
//
// Thread safety: as JerasureCode.
#pragma once

#include <memory>
#include <vector>

#include "ec/gf.h"
#include "plugins/jerasure/jerasure_code.h"

namespace ec::jerasure {

class ReedSolomonCode : public JerasureCode {
 public:
  unsigned get_alignment() const override;
  // Matrix codes over GF(2^w) on w/8-byte words.
  std::size_t get_minimum_granularity() const override { return static_cast<std::size_t>(w_) / 8; }

  // The m x k coding matrix as jerasure built it.
  const std::vector<int>& matrix() const { return matrix_; }
  // The ISA-L codec (w=8 only), nullptr otherwise.
  const gf::MatrixCodec* matrix_codec() const { return codec_.get(); }

 protected:
  using JerasureCode::JerasureCode;

  // Returns jerasure's m x k matrix (malloc'ed), or nullptr if it cannot be built.
  virtual int* BuildMatrix() const = 0;
  // Encodes with jerasure for w=16/32 on aligned buffers.
  virtual void JerasureEncode(char** data, char** coding, int len) const;

  Status Prepare() override;
  Status CheckChunkLength(std::size_t len) const override;
  Status EncodePieces(std::size_t len, const std::uint8_t* const* data,
                      std::uint8_t* const* parity) const override;
  Status DecodePieces(std::size_t len, const std::uint8_t* const* pieces,
                      const std::vector<int>& targets, std::uint8_t* const* outputs) const override;

  std::vector<int> matrix_;
  std::unique_ptr<gf::MatrixCodec> codec_;
};

class ReedSolomonVandermonde : public ReedSolomonCode {
 public:
  ReedSolomonVandermonde() : ReedSolomonCode("reed_sol_van", {"7", "3", "8"}) {}

 protected:
  void ParseTechnique(Profile& profile, Params& params, InitErrors* errors) override;
  int* BuildMatrix() const override;
};

class ReedSolomonRaid6 : public ReedSolomonCode {
 public:
  ReedSolomonRaid6() : ReedSolomonCode("reed_sol_r6_op", {"7", "2", "8"}) {}

 protected:
  void ParseTechnique(Profile& profile, Params& params, InitErrors* errors) override;
  int* BuildMatrix() const override;
  void JerasureEncode(char** data, char** coding, int len) const override;
};

}  // namespace ec::jerasure
