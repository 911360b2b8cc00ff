// GF(2^8) linear combinations (polynomial 0x11D, the field of jerasure and ISA-L) on AVX-512 with
// GFNI: out_j = sum_i M[j][i] * in_i over len-byte buffers, in one pass over the inputs.
//
// Why: a CLAY step is a small dense matrix (a pair transform fused with a per-plane solve), often
// with coefficients 0 and 1. ISA-L 2.30's kernels multiply with two PSHUFB table lookups per
// coefficient and treat 1 like any other value; GFNI's affine instruction multiplies by a
// constant in one instruction, and here a 1 is a plain XOR and a 0 costs nothing. CLAY does about
// twice RS's multiplies per byte; this is what lets it run near RS's speed.
//
// A multiplication by c is linear over GF(2), so it is an 8x8 bit matrix, which is the operand
// GF2P8AFFINEQB takes (GfniMatrix). The instruction's own GF2P8MULB uses the AES polynomial
// 0x11B and cannot be used.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ec::clay {

// The affine operand of "multiply by c": byte 7-i holds row i (the input bits that make bit i of
// the product).
std::uint64_t GfniMatrix(std::uint8_t c);

// GfniMatrix(1) and GfniMatrix(0), which GfniCombine runs as XOR and skips.
inline constexpr std::uint64_t kGfniIdentity = 0x0102040810204080ULL;
inline constexpr std::uint64_t kGfniZero = 0;

// True when this CPU has AVX-512F, AVX-512BW, AVX-512VL and GFNI (GfniCombine may run) and the
// environment has no ECSTORE_CLAY_NO_GFNI, which lets the tests (and a suspicious operator) run
// the ISA-L path on a GFNI machine. Read once per process.
bool GfniAvailable();

// out_j = sum_i M[j][i] in_i, j < n_out, i < n_in, over len bytes; `matrices` holds
// GfniMatrix(M[j][i]) at [j * n_in + i]. Any length and alignment. Outputs must not overlap
// inputs. Precondition: GfniAvailable(), n_in >= 1, n_out >= 1.
void GfniCombine(std::size_t len, int n_in, int n_out, const std::uint64_t* matrices,
                 const std::uint8_t* const* in, std::uint8_t* const* out);

// The reference: the same sum byte by byte with gf::Mul, from the coefficients
// (coef[j * n_in + i] = M[j][i]). For tests.
void ReferenceCombine(std::size_t len, int n_in, int n_out, const std::uint8_t* coef,
                      const std::uint8_t* const* in, std::uint8_t* const* out);

}  // namespace ec::clay
