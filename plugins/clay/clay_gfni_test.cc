// The GFNI kernel against the byte-by-byte reference, on random matrices (with many 0 and 1
// coefficients, which the kernel treats apart), shapes, lengths and alignments (seed printed).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "ec/gf.h"
#include "plugins/clay/clay_gfni.h"
#include "tests/support/test_env.h"

namespace ec::clay {
namespace {

TEST(ClayGfni, MatrixIsMultiplication) {
  EXPECT_EQ(GfniMatrix(1), kGfniIdentity);
  EXPECT_EQ(GfniMatrix(0), kGfniZero);
  // Bit i of c*x is parity(row i & x), row i at byte 7-i.
  for (int c = 0; c < 256; ++c) {
    const std::uint64_t m = GfniMatrix(static_cast<std::uint8_t>(c));
    for (int x = 0; x < 256; ++x) {
      int product = 0;
      for (int bit = 0; bit < 8; ++bit) {
        const unsigned row = (m >> (8 * (7 - bit))) & 0xFF;
        product |= (__builtin_popcount(row & static_cast<unsigned>(x)) & 1) << bit;
      }
      ASSERT_EQ(product, gf::Mul(static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(x)))
          << "c=" << c << " x=" << x;
    }
  }
}

TEST(ClayGfni, MatchesReference) {
  if (!GfniAvailable()) {
    // Not a skip: without the instructions (or with ECSTORE_CLAY_NO_GFNI) the kernel must be
    // refused, and CLAY runs the ISA-L path that every other CLAY test covers. What is checked
    // here is that it was refused for one of those reasons, not by a broken detection.
#if defined(__x86_64__)
    const bool cpu = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                     __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("gfni");
#else
    const bool cpu = false;
#endif
    EXPECT_TRUE(!cpu || std::getenv("ECSTORE_CLAY_NO_GFNI") != nullptr)
        << "the CPU has GFNI and nothing turned it off, yet the kernel is refused";
    std::printf("GFNI kernel not used here (%s): the ISA-L path is what runs\n",
                cpu ? "ECSTORE_CLAY_NO_GFNI" : "no AVX-512BW + GFNI");
    return;
  }
  std::mt19937_64 rng(ectest::Seed() + 40);
  for (int round = 0; round < 400; ++round) {
    const int n_in = 1 + static_cast<int>(rng() % 24);
    const int n_out = 1 + static_cast<int>(rng() % 19);
    const std::size_t len = rng() % 4 == 0 ? rng() % 130 : rng() % 1500;
    std::vector<std::uint8_t> coef(static_cast<std::size_t>(n_in) * n_out);
    for (auto& c : coef) {
      const unsigned kind = rng() % 4;
      c = kind == 0 ? 0 : kind == 1 ? 1 : static_cast<std::uint8_t>(rng());
    }
    std::vector<std::uint64_t> affine;
    for (std::uint8_t c : coef) affine.push_back(GfniMatrix(c));
    std::vector<std::vector<std::uint8_t>> ins(n_in), fast(n_out), ref(n_out);
    std::vector<const std::uint8_t*> in_ptr;
    std::vector<std::uint8_t*> fast_ptr, ref_ptr;
    for (auto& v : ins) {
      const std::size_t shift = rng() % 64;
      v.resize(len + shift + 1);
      for (auto& b : v) b = static_cast<std::uint8_t>(rng());
      in_ptr.push_back(v.data() + shift);
    }
    for (int j = 0; j < n_out; ++j) {
      const std::size_t shift = rng() % 64;
      // A guard byte after the output proves that the masked tail writes nothing beyond len.
      fast[j].assign(len + shift + 1, 0xA5);
      ref[j].assign(len + shift + 1, 0xA5);
      fast_ptr.push_back(fast[j].data() + shift);
      ref_ptr.push_back(ref[j].data() + shift);
    }
    GfniCombine(len, n_in, n_out, affine.data(), in_ptr.data(), fast_ptr.data());
    ReferenceCombine(len, n_in, n_out, coef.data(), in_ptr.data(), ref_ptr.data());
    for (int j = 0; j < n_out; ++j)
      ASSERT_EQ(fast[j], ref[j]) << "round " << round << " n_in " << n_in << " n_out " << n_out
                                 << " len " << len << " output " << j;
  }
}

}  // namespace
}  // namespace ec::clay
