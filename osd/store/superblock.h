// Superblock: the first 4 KiB block of a store's device. It says that the device belongs to an
// ecstore store (magic), which one (uuid, also kept in the metadata database so that a device and
// a database from different stores are never paired), the on-disk format version and the size
// the store was made with, and where its commit journal lies (journal.h). It is protected by its
// own crc32c.
//
//   offset 0  magic "ECSTORE\0" | 8 version u32 | 12 block size u32 | 16 uuid[16] |
//          32 device size u64 | 40 journal first block u64 | 48 journal blocks u64 |
//          56 crc32c of bytes [0, 56) u32 | zero padding to 4096
//
// Version 1 (no journal) was never released; it is refused like any other unknown version.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "common/status.h"

namespace ec::osd::store {

inline constexpr std::uint32_t kFormatVersion = 2;

struct Superblock {
  std::array<std::uint8_t, 16> uuid{};
  std::uint32_t version = kFormatVersion;
  std::uint64_t device_size = 0;
  // The commit journal's ring: blocks [journal_block, journal_block + journal_blocks); 0 blocks:
  // no journal (commits sync RocksDB instead).
  std::uint64_t journal_block = 0;
  std::uint64_t journal_blocks = 0;

  // A new superblock with a random uuid.
  static Superblock Generate(std::uint64_t device_size);
  std::string UuidString() const;
  // Writes the layout above into `block` (4096 bytes).
  void Encode(std::span<std::byte> block) const;
  // Errors: EINVAL "not an ecstore device" when the magic is absent (a foreign or blank device),
  // DataLoss when the magic is present but the crc fails, EINVAL for an unsupported version or
  // block size.
  static Result<Superblock> Decode(std::span<const std::byte> block);
};

}  // namespace ec::osd::store
