#include "cluster/placement/placement_hash.h"

#include <bit>

namespace ec::cluster {

std::uint64_t HashBytes(std::uint64_t seed, std::string_view bytes) {
  std::uint64_t h = seed ^ (static_cast<std::uint64_t>(bytes.size()) * kGolden64);
  std::size_t i = 0;
  while (i < bytes.size()) {
    std::uint64_t block = 0;
    // Little-endian by construction, whatever the host byte order.
    for (unsigned b = 0; b < 8 && i < bytes.size(); ++b, ++i) {
      block |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * b);
    }
    h = Mix64(h + block + kGolden64);
  }
  return Mix64(h);
}

std::uint64_t NegLog2Fixed(std::uint32_t u32) {
  constexpr unsigned kFrac = 30;
  const std::uint64_t x = static_cast<std::uint64_t>(u32) + 1;      // in [1, 2^32]
  const unsigned n = static_cast<unsigned>(std::bit_width(x)) - 1;  // floor(log2 x), 0..32
  // Mantissa y / 2^30 in [1, 2).
  std::uint64_t y = n <= kFrac ? x << (kFrac - n) : x >> (n - kFrac);
  std::uint64_t frac = 0;
  for (unsigned bit = 0; bit < kFrac; ++bit) {
    y = (y * y) >> kFrac;  // y < 2^31, so y * y < 2^62: no overflow
    frac <<= 1;
    if (y >= (std::uint64_t{2} << kFrac)) {
      y >>= 1;
      frac |= 1;
    }
  }
  const std::uint64_t log2x = (static_cast<std::uint64_t>(n) << kFrac) | frac;
  return (std::uint64_t{32} << kFrac) - log2x;
}

std::uint32_t StableMod(std::uint64_t x, std::uint32_t b) {
  std::uint64_t mask = std::bit_ceil(static_cast<std::uint64_t>(b)) - 1;
  if ((x & mask) < b) return static_cast<std::uint32_t>(x & mask);
  return static_cast<std::uint32_t>(x & (mask >> 1));
}

}  // namespace ec::cluster
