// Scratch memory for CLAY calls. A call asks once for the bytes it needs (uncoupled values, chunks
// nobody asked for) and gets a region from a pool shared by the plugin's calls, returned when the
// lease ends, so warm calls allocate nothing. Regions above kKeepLimit are freed after the call.
//
// Why a pool and not thread_local: the plugin is a dlopen'ed library, and LeakSanitizer's thread
// scan crashes on the dynamic TLS of such a library once it is unloaded (seen with GCC 12 when the
// GFNI path leased scratch on the main thread).
//
// Thread safety: leases may be taken from any threads at once; a region is valid until its lease
// is destroyed. Zeros() may be called from any thread; its memory stays valid while the plugin is
// loaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace ec::clay {

class ScratchLease {
 public:
  // At least `bytes` of writable, 64-byte aligned memory (contents unspecified).
  explicit ScratchLease(std::size_t bytes);
  ~ScratchLease();
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;

  std::uint8_t* data() { return data_; }

  // At least `bytes` of zeros, 64-byte aligned, shared by every call (never written).
  static const std::uint8_t* Zeros(std::size_t bytes);

  // Regions larger than this are not kept between calls.
  static constexpr std::size_t kKeepLimit = std::size_t{64} << 20;

  struct Region;

 private:
  std::uint8_t* data_ = nullptr;
  Region* region_ = nullptr;       // from the pool (returned by the destructor)
  std::uint8_t* owned_ = nullptr;  // a one-off region (too large to keep)
};

}  // namespace ec::clay
