// crc32c (Castagnoli, RFC 3720) over byte ranges, computed with ISA-L's crc32_iscsi. The store
// keeps one per 4 KiB block. Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <span>

namespace ec::store {

// The standard crc32c of `bytes` (initial value and final xor 0xFFFFFFFF): "123456789" gives
// 0xE3069283.
std::uint32_t Crc32c(std::span<const std::byte> bytes);

}  // namespace ec::store
