#include "bench/ec_bench/bench_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace ecbench {

namespace {

std::size_t g_cold_bytes = std::size_t{128} << 20;

void FillPseudoRandom(std::byte* p, std::size_t n) {
  // xorshift64*: fast, and incompressible enough that no code takes a shortcut on the data.
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    const std::uint64_t v = x * 0x2545F4914F6CDD1Dull;
    std::memcpy(p + i, &v, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<std::byte>(i * 131);
}

}  // namespace

const char* WorkingSetName(WorkingSet set) {
  return set == WorkingSet::kWarm ? "warm" : "cold";
}

std::size_t ColdBytes() {
  return g_cold_bytes;
}

void SetColdBytes(std::size_t bytes) {
  g_cold_bytes = bytes;
}

Layout Layout::Make(int chunks, std::size_t chunk, WorkingSet set) {
  Layout l;
  l.chunks = chunks;
  l.chunk = chunk;
  l.stride = (chunk + kChunkAlign - 1) / kChunkAlign * kChunkAlign;
  l.stripes = 1;
  if (set == WorkingSet::kCold)
    l.stripes = std::max<std::size_t>(2, ColdBytes() / l.stripe_bytes());
  return l;
}

std::string Layout::Describe() const {
  return "n=" + std::to_string(chunks) + ",chunk=" + std::to_string(chunk) +
         ",stripes=" + std::to_string(stripes);
}

Arena& Arena::Data() {
  static Arena* arena = new Arena();
  return *arena;
}

Arena& Arena::Scratch() {
  static Arena* arena = new Arena();
  return *arena;
}

void Arena::Reserve(std::size_t bytes) {
  if (bytes <= buffer_.size()) return;
  // Grow in one step to the cold size at least, so that the arena is filled once per process.
  const std::size_t size = std::max(bytes, ColdBytes());
  buffer_ = ec::Buffer();
  buffer_ = ec::Buffer::Allocate(size, false);
  FillPseudoRandom(buffer_.data(), size);
  parity_owner_.clear();
}

}  // namespace ecbench
