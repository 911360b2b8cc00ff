#include "osd/store/checksum.h"

#include <isa-l/crc.h>

namespace ec::store {

std::uint32_t Crc32c(std::span<const std::byte> bytes) {
  // crc32_iscsi neither pre- nor post-inverts; the standard crc32c does both.
  auto* p = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(bytes.data()));
  return ~crc32_iscsi(p, static_cast<int>(bytes.size()), 0xFFFFFFFFu);
}

}  // namespace ec::store
