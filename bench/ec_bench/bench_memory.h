// The memory ec-bench runs on: where the chunks of a configuration live, and the working sets.
//
// One process-wide arena of pseudo-random bytes holds every stripe a benchmark touches. A
// configuration with n = k+m chunks of C bytes lays stripe s out at offset s * n * stride and
// chunk i of it at + i * stride, where stride is C rounded up to 64 bytes (every chunk starts on
// a 64-byte boundary, as ec::Buffer chunks do):
//
//   arena  | stripe 0: chunk 0 | chunk 1 | ... | chunk n-1 | stripe 1: chunk 0 | ...
//
// Raw-library baselines and plugin benchmarks of the same (k, m, chunk, working set) therefore
// read the same bytes at the same addresses. Encode benchmarks overwrite the parity positions of
// their layout, so the arena only ever holds random bytes or parity of random bytes.
//
// Working sets:
//   warm  one stripe, used over and over: it stays in the caches as far as they hold it;
//   cold  as many stripes as fit in ColdBytes() (default 128 MiB, 4x this machine's 32 MiB L3;
//         at least 2), visited in turn, so every stripe has left the caches when it comes back.
//
// Thread safety: none; ec-bench runs one benchmark at a time on one thread.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "ec/buffer.h"

namespace ecbench {

inline constexpr std::size_t kChunkAlign = 64;

enum class WorkingSet { kWarm, kCold };
const char* WorkingSetName(WorkingSet set);

// Bytes a cold working set spans (all chunks of all its stripes).
std::size_t ColdBytes();
void SetColdBytes(std::size_t bytes);

struct Layout {
  int chunks = 0;          // chunks per stripe (k+m)
  std::size_t chunk = 0;   // bytes per chunk
  std::size_t stride = 0;  // chunk rounded up to kChunkAlign
  std::size_t stripes = 0;

  static Layout Make(int chunks, std::size_t chunk, WorkingSet set);
  std::size_t stripe_bytes() const { return stride * static_cast<std::size_t>(chunks); }
  std::size_t bytes() const { return stripe_bytes() * stripes; }
  std::size_t offset(std::size_t stripe, int i) const {
    return stripe * stripe_bytes() + static_cast<std::size_t>(i) * stride;
  }
  // "n=6,chunk=4096,stripes=1": part of the key that says whose parity the arena holds.
  std::string Describe() const;
};

class Arena {
 public:
  // The stripes of the running benchmark.
  static Arena& Data();
  // Scratch space: gathered sub-chunks of repair helpers, reference outputs.
  static Arena& Scratch();

  // Makes the arena at least `bytes` long. Growing reallocates, refills with pseudo-random bytes
  // and forgets the parity owner. Aborts (bad_alloc) when memory is exhausted.
  void Reserve(std::size_t bytes);

  std::byte* at(std::size_t offset) { return buffer_.data() + offset; }
  std::span<std::byte> span(std::size_t offset, std::size_t length) {
    return {buffer_.data() + offset, length};
  }
  // A Buffer sharing the arena's memory (for ChunkMap-based calls such as decode()).
  ec::Buffer Slice(std::size_t offset, std::size_t length) const {
    return buffer_.Slice(offset, length);
  }

  // Who computed the parity now in the arena: a code identity plus Layout::Describe(), or empty
  // when no parity is known to be consistent with the data. Decode benchmarks re-encode when it is
  // not theirs.
  const std::string& parity_owner() const { return parity_owner_; }
  void set_parity_owner(std::string owner) { parity_owner_ = std::move(owner); }

 private:
  ec::Buffer buffer_;
  std::string parity_owner_;
};

}  // namespace ecbench
