#include "plugins/clay/clay_gfni.h"

#include <array>
#include <cstdlib>
#include <utility>

#include "ec/gf.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ec::clay {

std::uint64_t GfniMatrix(std::uint8_t c) {
  std::uint64_t matrix = 0;
  for (int bit = 0; bit < 8; ++bit) {
    std::uint64_t row = 0;
    for (int from = 0; from < 8; ++from)
      row |= static_cast<std::uint64_t>((gf::Mul(c, static_cast<std::uint8_t>(1u << from)) >> bit) &
                                        1u)
             << from;
    matrix |= row << (8 * (7 - bit));
  }
  return matrix;
}

void ReferenceCombine(std::size_t len, int n_in, int n_out, const std::uint8_t* coef,
                      const std::uint8_t* const* in, std::uint8_t* const* out) {
  for (std::size_t b = 0; b < len; ++b) {
    for (int j = 0; j < n_out; ++j) {
      std::uint8_t sum = 0;
      for (int i = 0; i < n_in; ++i) sum ^= gf::Mul(coef[j * n_in + i], in[i][b]);
      out[j][b] = sum;
    }
  }
}

#if defined(__x86_64__)

bool GfniAvailable() {
  static const bool available =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("gfni") &&
      std::getenv("ECSTORE_CLAY_NO_GFNI") == nullptr;
  return available;
}

namespace {

#define EC_GFNI_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,gfni")))

// Adds M * v to acc for one coefficient. The branches depend only on the matrix, so they are
// predicted perfectly across the blocks of a call.
EC_GFNI_TARGET inline __m512i MulAdd(__m512i acc, __m512i v, std::uint64_t m) {
  if (m == kGfniIdentity) return _mm512_xor_si512(acc, v);
  return _mm512_xor_si512(acc, _mm512_gf2p8affine_epi64_epi8(v, _mm512_set1_epi64(m), 0));
}

// N outputs (rows `m[j * n_in]`) of the combination, kept in registers over 128-byte blocks, then
// 64-byte blocks with a masked tail. The tail multiplies by every matrix, zero and identity too:
// CLAY's steps on short sub-chunks are mostly this loop, and there the tests and branches per
// coefficient cost more than the vector work they save.
template <int N>
EC_GFNI_TARGET void CombineRows(std::size_t len, int n_in, const std::uint64_t* m,
                                const std::uint8_t* const* in, std::uint8_t* const* out) {
  if (len <= 32) {
    // Sub-chunks of 32 bytes (CLAY with many planes and small stripe units): a 256-bit vector
    // costs half a 512-bit one on CPUs that split 512-bit operations in two (AMD Zen 4).
    const __mmask32 mask = len == 32 ? ~__mmask32{0} : (__mmask32{1} << len) - 1;
    __m256i acc[N];
    for (int j = 0; j < N; ++j) acc[j] = _mm256_setzero_si256();
    for (int i = 0; i < n_in; ++i) {
      const __m256i v = _mm256_maskz_loadu_epi8(mask, in[i]);
      for (int j = 0; j < N; ++j) {
        acc[j] = _mm256_xor_si256(
            acc[j], _mm256_gf2p8affine_epi64_epi8(v, _mm256_set1_epi64x(m[j * n_in + i]), 0));
      }
    }
    for (int j = 0; j < N; ++j) _mm256_mask_storeu_epi8(out[j], mask, acc[j]);
    return;
  }
  std::size_t pos = 0;
  for (; pos + 128 <= len; pos += 128) {
    __m512i lo[N], hi[N];
    for (int j = 0; j < N; ++j) lo[j] = hi[j] = _mm512_setzero_si512();
    for (int i = 0; i < n_in; ++i) {
      const __m512i v0 = _mm512_loadu_si512(in[i] + pos);
      const __m512i v1 = _mm512_loadu_si512(in[i] + pos + 64);
      for (int j = 0; j < N; ++j) {
        const std::uint64_t mj = m[j * n_in + i];
        if (mj == kGfniZero) continue;
        lo[j] = MulAdd(lo[j], v0, mj);
        hi[j] = MulAdd(hi[j], v1, mj);
      }
    }
    for (int j = 0; j < N; ++j) {
      _mm512_storeu_si512(out[j] + pos, lo[j]);
      _mm512_storeu_si512(out[j] + pos + 64, hi[j]);
    }
  }
  for (; pos < len; pos += 64) {
    const std::size_t left = len - pos;
    const __mmask64 mask = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
    __m512i acc[N];
    for (int j = 0; j < N; ++j) acc[j] = _mm512_setzero_si512();
    for (int i = 0; i < n_in; ++i) {
      const __m512i v = _mm512_maskz_loadu_epi8(mask, in[i] + pos);
      for (int j = 0; j < N; ++j) {
        acc[j] = _mm512_xor_si512(
            acc[j], _mm512_gf2p8affine_epi64_epi8(v, _mm512_set1_epi64(m[j * n_in + i]), 0));
      }
    }
    for (int j = 0; j < N; ++j) _mm512_mask_storeu_epi8(out[j] + pos, mask, acc[j]);
  }
}

using CombineFn = void (*)(std::size_t, int, const std::uint64_t*, const std::uint8_t* const*,
                           std::uint8_t* const*);

template <std::size_t... N>
constexpr std::array<CombineFn, sizeof...(N)> CombineTable(std::index_sequence<N...>) {
  return {&CombineRows<static_cast<int>(N) + 1>...};
}

// Up to 8 outputs per pass: 16 accumulators plus the inputs fit the 32 vector registers. Wider
// steps read their inputs once per 8 outputs.
constexpr int kMaxRows = 8;
constexpr auto kCombineRows = CombineTable(std::make_index_sequence<kMaxRows>());

}  // namespace

void GfniCombine(std::size_t len, int n_in, int n_out, const std::uint64_t* matrices,
                 const std::uint8_t* const* in, std::uint8_t* const* out) {
  for (int j0 = 0; j0 < n_out; j0 += kMaxRows) {
    const int rows = n_out - j0 < kMaxRows ? n_out - j0 : kMaxRows;
    const std::uint64_t* m = matrices + static_cast<std::size_t>(j0) * n_in;
    std::uint8_t* const* o = out + j0;
    kCombineRows[rows - 1](len, n_in, m, in, o);
  }
}

#else

bool GfniAvailable() {
  return false;
}

void GfniCombine(std::size_t, int, int, const std::uint64_t*, const std::uint8_t* const*,
                 std::uint8_t* const*) {}

#endif

}  // namespace ec::clay
