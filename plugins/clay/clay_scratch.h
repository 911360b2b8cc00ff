// Per-thread scratch memory for CLAY calls. A call asks once for the bytes it needs (uncoupled
// values, chunks nobody asked for) and gets a region that is reused by the next call on the same
// thread, so warm calls allocate nothing. Regions above kKeepLimit are freed after the call.
//
// Thread safety: each thread has its own Scratch; a region is valid until the owning Lease is
// destroyed. One Lease at a time per thread (CLAY calls do not nest).
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

  // At least `bytes` of zeros, 64-byte aligned, shared by the thread's calls (never written).
  static const std::uint8_t* Zeros(std::size_t bytes);

  // Regions larger than this are not kept between calls.
  static constexpr std::size_t kKeepLimit = std::size_t{64} << 20;

 private:
  std::uint8_t* data_ = nullptr;
  std::uint8_t* owned_ = nullptr;  // a one-off region (too large to keep)
};

}  // namespace ec::clay
