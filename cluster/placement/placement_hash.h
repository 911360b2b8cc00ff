// The fixed hashes and the fixed-point logarithm placement is built on. Everything here is integer
// arithmetic written out, so that a placement is the same on every machine, compiler and run (no
// std::hash, no libm): a change of any function here moves data and is caught by the known-answer
// tests in placement_test.cc.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

namespace ec::cluster {

// splitmix64's finalizer (Steele, Lea, Flood 2014): a bijection of 64-bit values with full
// avalanche. Mix64(0) == 0, so callers add a constant before mixing small values.
constexpr std::uint64_t Mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return x;
}

inline constexpr std::uint64_t kGolden64 = 0x9E3779B97F4A7C15ULL;

// Folds one more value into a running hash: Mix64(h + kGolden64 + Mix64(v + kGolden64)).
constexpr std::uint64_t HashCombine(std::uint64_t h, std::uint64_t v) {
  return Mix64(h + kGolden64 + Mix64(v + kGolden64));
}

// Hash of a byte string under a seed: h = seed ^ (len * kGolden64); for each 8-byte block, read
// little-endian (the last block zero-padded), h = Mix64(h + block + kGolden64); result Mix64(h).
std::uint64_t HashBytes(std::uint64_t seed, std::string_view bytes);

// -log2(u) in fixed point with 30 fraction bits (a value of 1 << 30 means 1.0), for
// u = (u32 + 1) / 2^32 in (0, 1]: 0 for u32 == 0xFFFFFFFF, at most 32 << 30. Computed by the
// bit-by-bit squaring method on a Q1.30 mantissa (30 squarings, each truncated), so it is exact
// to about 2^-28 and bit-identical everywhere.
std::uint64_t NegLog2Fixed(std::uint32_t u32);

// Ceph's stable mod: x mod b such that growing b splits buckets instead of reshuffling them.
// With mask = (smallest power of two >= b) - 1: (x & mask) if that is < b, else x & (mask >> 1).
// So when b grows from b0 to b1, a value either keeps its bucket or moves to a bucket >= b0 (a
// child of its old one: new & (old mask) == old bucket for power-of-two steps). b must be >= 1.
std::uint32_t StableMod(std::uint64_t x, std::uint32_t b);

}  // namespace ec::cluster
