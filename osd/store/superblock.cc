#include "osd/store/superblock.h"

#include <cstring>
#include <random>

#include "osd/store/aligned_buffer.h"
#include "osd/store/checksum.h"

namespace ec::store {
namespace {

constexpr char kMagic[8] = {'E', 'C', 'S', 'T', 'O', 'R', 'E', '\0'};
constexpr std::size_t kCrcOffset = 56;

}  // namespace

Superblock Superblock::Generate(std::uint64_t device_size) {
  Superblock sb;
  std::random_device rd;
  for (std::size_t i = 0; i < sb.uuid.size(); i += 4) {
    std::uint32_t v = rd();
    std::memcpy(sb.uuid.data() + i, &v, 4);
  }
  sb.uuid[6] = static_cast<std::uint8_t>((sb.uuid[6] & 0x0F) | 0x40);  // version 4
  sb.uuid[8] = static_cast<std::uint8_t>((sb.uuid[8] & 0x3F) | 0x80);  // variant 1
  sb.device_size = device_size;
  return sb;
}

std::string Superblock::UuidString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += kHex[uuid[i] >> 4];
    s += kHex[uuid[i] & 15];
  }
  return s;
}

void Superblock::Encode(std::span<std::byte> block) const {
  std::memset(block.data(), 0, block.size());
  auto* p = reinterpret_cast<unsigned char*>(block.data());
  std::uint32_t bs = kBlockSize;
  std::memcpy(p, kMagic, 8);
  std::memcpy(p + 8, &version, 4);
  std::memcpy(p + 12, &bs, 4);
  std::memcpy(p + 16, uuid.data(), 16);
  std::memcpy(p + 32, &device_size, 8);
  std::memcpy(p + 40, &journal_block, 8);
  std::memcpy(p + 48, &journal_blocks, 8);
  std::uint32_t crc = Crc32c(block.first(kCrcOffset));
  std::memcpy(p + kCrcOffset, &crc, 4);
}

Result<Superblock> Superblock::Decode(std::span<const std::byte> block) {
  if (block.size() < kBlockSize) return Status::Invalid("superblock buffer too small");
  const auto* p = reinterpret_cast<const unsigned char*>(block.data());
  if (std::memcmp(p, kMagic, 8) != 0) {
    return Status::Invalid("not an ecstore device: no ecstore superblock magic at block 0");
  }
  std::uint32_t crc = 0;
  std::memcpy(&crc, p + kCrcOffset, 4);
  if (crc != Crc32c(block.first(kCrcOffset))) {
    return Status::DataLoss("ecstore superblock crc32c mismatch at block 0");
  }
  Superblock sb;
  std::uint32_t bs = 0;
  std::memcpy(&sb.version, p + 8, 4);
  std::memcpy(&bs, p + 12, 4);
  std::memcpy(sb.uuid.data(), p + 16, 16);
  std::memcpy(&sb.device_size, p + 32, 8);
  std::memcpy(&sb.journal_block, p + 40, 8);
  std::memcpy(&sb.journal_blocks, p + 48, 8);
  if (sb.version != kFormatVersion) {
    return Status::Invalid("unsupported ecstore format version " + std::to_string(sb.version) +
                           " (this build reads version " + std::to_string(kFormatVersion) + ")");
  }
  if (bs != kBlockSize) {
    return Status::Invalid("unsupported block size " + std::to_string(bs) + " in superblock");
  }
  std::uint64_t blocks = sb.device_size / kBlockSize;
  if (sb.journal_blocks != 0 && (sb.journal_block == 0 || sb.journal_block > blocks ||
                                 sb.journal_blocks > blocks - sb.journal_block)) {
    return Status::Invalid("superblock names a journal outside the device (blocks " +
                           std::to_string(sb.journal_block) + " +" +
                           std::to_string(sb.journal_blocks) + ")");
  }
  return sb;
}

}  // namespace ec::store
