// ClearUpperVectorState(): call after every ISA-L kernel (ec_encode_data, xor_gen).
//
// Why: ISA-L's AVX / AVX2 / AVX-512 kernels return without `vzeroupper` (checked in 2.30:
// gf_*vect_dot_prod_avx2, ec_encode_data_avx2, xor_gen_avx). The dirty upper halves of the vector
// registers then slow down the caller's SSE code (an AVX-SSE transition penalty). On the CI's AMD
// EPYC this measured ~120 ns per call: a k=4 m=2 encode of 64-byte chunks went from 16 ns
// (ISA-L alone) to 140 ns with two small memsets after it, and back to 19 ns with this.
//
// Thread safety: touches only the calling thread's registers.
#pragma once

namespace ec {

inline void ClearUpperVectorState() {
#if defined(__x86_64__)
  static const bool has_avx = __builtin_cpu_supports("avx");
  if (has_avx) {
    // vzeroupper keeps the low 128 bits; the clobbers stop a compiler that keeps 256-bit values
    // in these registers (an -mavx build) from relying on them across the instruction.
    asm volatile("vzeroupper" ::
                     : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                       "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
  }
#endif
}

}  // namespace ec
