#include "plugins/isa/isa_xor.h"

#include <isa-l/raid.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "ec/simd.h"

namespace ec::isa {

namespace {

constexpr std::size_t kXorGenAlignment = 32;
// Largest source count we hand to xor_gen in one call (sources + dest must fit the array).
constexpr int kMaxXorGenSources = 255;

bool Aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % kXorGenAlignment == 0;
}

void XorLoop(const std::uint8_t* const* sources, int n, std::uint8_t* dest, std::size_t len) {
  std::size_t b = 0;
  // Eight bytes at a time through memcpy (no alignment or aliasing assumptions), then the tail.
  for (; b + 8 <= len; b += 8) {
    std::uint64_t acc;
    std::memcpy(&acc, sources[0] + b, 8);
    for (int i = 1; i < n; ++i) {
      std::uint64_t w;
      std::memcpy(&w, sources[i] + b, 8);
      acc ^= w;
    }
    std::memcpy(dest + b, &acc, 8);
  }
  for (; b < len; ++b) {
    std::uint8_t acc = sources[0][b];
    for (int i = 1; i < n; ++i) acc ^= sources[i][b];
    dest[b] = acc;
  }
}

}  // namespace

void XorRegions(const std::uint8_t* const* sources, int n, std::uint8_t* dest, std::size_t len) {
  if (len == 0) return;
  if (n == 1) {
    std::memcpy(dest, sources[0], len);
    return;
  }
  bool simd = n <= kMaxXorGenSources && len % kXorGenAlignment == 0 && Aligned(dest);
  for (int i = 0; simd && i < n; ++i) simd = Aligned(sources[i]);
  if (simd) {
    std::array<void*, kMaxXorGenSources + 1> vects;
    // xor_gen reads the sources only; its signature just is not const-correct.
    for (int i = 0; i < n; ++i) vects[i] = const_cast<std::uint8_t*>(sources[i]);
    vects[n] = dest;
    const int rc = xor_gen(n + 1, static_cast<int>(len), vects.data());
    ClearUpperVectorState();
    if (rc == 0) return;
  }
  XorLoop(sources, n, dest, len);
}

void XorRegionsReference(const std::uint8_t* const* sources, int n, std::uint8_t* dest,
                         std::size_t len) {
  for (std::size_t b = 0; b < len; ++b) {
    std::uint8_t acc = 0;
    for (int i = 0; i < n; ++i) acc ^= sources[i][b];
    dest[b] = acc;
  }
}

}  // namespace ec::isa
