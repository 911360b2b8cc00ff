// How many stripes encode and decode process at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ectool {

// Stripe bytes per batch: large enough that reads and writes are big, small enough that memory
// stays bounded whatever the file size.
inline constexpr std::size_t kBatchBytes = std::size_t{16} << 20;

inline std::uint64_t DivRoundUp(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

// At least one stripe, at most `stripes`.
inline std::size_t StripesPerBatch(std::size_t stripe_width, std::uint64_t stripes) {
  std::size_t batch = std::max<std::size_t>(1, kBatchBytes / stripe_width);
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(batch, std::max<std::uint64_t>(1, stripes)));
}

}  // namespace ectool
