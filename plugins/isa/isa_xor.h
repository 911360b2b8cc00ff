// XOR parity: what Ceph's isa plugin computes when m == 1, and its single-erasure fast path.
//
// Thread safety: pure functions over caller-owned memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ec::isa {

// dest[b] = sources[0][b] ^ ... ^ sources[n-1][b] for b in [0, len).
// Uses ISA-L xor_gen when every pointer is 32-byte aligned and len is a multiple of 32 (the
// library's SIMD contract), a portable word loop otherwise; both give the same bytes.
// Preconditions: n >= 1, len <= INT_MAX, dest does not overlap any source. n == 1 copies.
void XorRegions(const std::uint8_t* const* sources, int n, std::uint8_t* dest, std::size_t len);

// The obviously-correct byte loop XorRegions is tested against.
void XorRegionsReference(const std::uint8_t* const* sources, int n, std::uint8_t* dest,
                         std::size_t len);

}  // namespace ec::isa
