// crc32c (Castagnoli, RFC 3720's iSCSI checksum): the one checksum of every ecstore format, on disk
// (a 4 KiB block, a superblock, a journal record) and on the wire (frame headers and payloads).
// Computed with ISA-L's crc32_iscsi, with the standard initial value and final xor 0xFFFFFFFF:
// Crc32c("123456789") == 0xE3069283, Crc32c of nothing == 0.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ec {

std::uint32_t Crc32c(std::span<const std::byte> bytes);

// Continues a crc32c over the next piece: Crc32cExtend(Crc32c(a), b) == Crc32c(a ++ b), and
// Crc32cExtend(0, b) == Crc32c(b).
std::uint32_t Crc32cExtend(std::uint32_t crc, std::span<const std::byte> bytes);

}  // namespace ec
