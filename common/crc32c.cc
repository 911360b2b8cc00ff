#include "common/crc32c.h"

#include <isa-l/crc.h>

#include <limits>

namespace ec {

std::uint32_t Crc32c(std::span<const std::byte> bytes) {
  return Crc32cExtend(0, bytes);
}

std::uint32_t Crc32cExtend(std::uint32_t crc, std::span<const std::byte> bytes) {
  // crc32_iscsi neither pre- nor post-inverts while the standard crc32c does both: undo the final
  // inversion of `crc` to continue it, and invert the result.
  auto* p = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(bytes.data()));
  std::size_t left = bytes.size();
  // crc32_iscsi takes an int length: feed anything larger in pieces.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  while (left > 0) {
    const std::size_t n = left < kPiece ? left : kPiece;
    crc = ~crc32_iscsi(p, static_cast<int>(n), ~crc);
    p += n;
    left -= n;
  }
  return crc;
}

}  // namespace ec
