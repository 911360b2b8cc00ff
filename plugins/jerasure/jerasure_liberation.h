// The RAID-6 bit-matrix techniques of the jerasure plugin: liberation, blaum_roth, liber8tion.
//
// Bit-matrices: liberation_coding_bitmatrix(k, w), blaum_roth_coding_bitmatrix(k, w),
// liber8tion_coding_bitmatrix(k); run as bit-matrix codes (see bitmatrix_code.h).
//
// Profile keys (beyond those of JerasureCode): packetsize (int, default 2048).
// jerasure-per-chunk-alignment is not read (as in Ceph): the alignment is always
// k*w*packetsize*4, or k*w*packetsize*16 when w*packetsize*4 is not a multiple of 16.
// Checks, with Ceph's messages (EINVAL):
//   liberation (k=2 m=2 w=7)  "k=K must be less than or equal to w=W"
//                             "w=W must be greater than two and be prime"
//                             "packetsize=0 must be set"
//                             "packetsize=P must be a multiple of sizeof(int) = 4"
//   blaum_roth (k=2 m=2 w=7)  as liberation, but "w=W must be greater than two and w+1 must be
//                             prime"; w=7 is accepted for Firefly compatibility (w+1 = 8 is not
//                             prime: that code is not MDS, some double erasures fail with EIO).
//   liber8tion (k=2 m=2 w=8)  "liber8tion: m=M must be 2 for liber8tion: revert to 2",
//                             "liber8tion: w=W must be 8 for liber8tion: revert to 8", k <= w,
//                             packetsize set (no multiple-of-4 rule).
// After a failed liberation-family check, as Ceph does: "reverting to k=2, w=W0,
// packetsize=2048" and k, w, packetsize are reset to those defaults in the profile.
// Additionally (Ceph would read past jerasure's bit-matrix or overflow): m must be 1 or 2 for
// liberation and blaum_roth ("m=M must be less than or equal to 2"), packetsize must not be
// negative ("packetsize=P must be a positive integer").
//
// Thread safety: as JerasureCode.
#pragma once

#include "plugins/jerasure/bitmatrix_code.h"

namespace ec::jerasure {

class Liberation : public BitmatrixCode {
 public:
  Liberation() : Liberation("liberation", {"2", "2", "7"}) {}
  unsigned get_alignment() const override { return StripeAlignment(); }

 protected:
  using BitmatrixCode::BitmatrixCode;

  void ParseTechnique(Profile& profile, Params& params, InitErrors* errors) override;
  int* BuildBitmatrix() const override;

  virtual bool CheckW(int w, InitErrors* errors) const;
  bool CheckK(const Params& params, InitErrors* errors) const;
  bool CheckPacketsizeSet(InitErrors* errors) const;
  bool CheckPacketsizeMultiple(InitErrors* errors) const;
  void RevertToDefaults(Profile& profile, Params& params, InitErrors* errors);
};

class BlaumRoth : public Liberation {
 public:
  BlaumRoth() : Liberation("blaum_roth", {"2", "2", "7"}) {}

 protected:
  bool CheckW(int w, InitErrors* errors) const override;
  int* BuildBitmatrix() const override;
};

class Liber8tion : public Liberation {
 public:
  Liber8tion() : Liberation("liber8tion", {"2", "2", "8"}) {}

 protected:
  void ParseTechnique(Profile& profile, Params& params, InitErrors* errors) override;
  int* BuildBitmatrix() const override;
};

}  // namespace ec::jerasure
