#include "osd/store/superblock.h"

#include <cstring>
#include <random>

#include "common/codec.h"
#include "common/crc32c.h"
#include "osd/store/aligned_buffer.h"

namespace ec::osd::store {
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
  Encoder w(block.first(kCrcOffset + 4));
  w.Raw(std::string_view(kMagic, sizeof(kMagic)));
  w.U32(version);
  w.U32(static_cast<std::uint32_t>(kBlockSize));
  w.Raw(std::as_bytes(std::span(uuid)));
  w.U64(device_size);
  w.U64(journal_block);
  w.U64(journal_blocks);
  w.U32(Crc32c(block.first(kCrcOffset)));
}

Result<Superblock> Superblock::Decode(std::span<const std::byte> block) {
  if (block.size() < kBlockSize) return Status::Invalid("superblock buffer too small");
  if (std::memcmp(block.data(), kMagic, sizeof(kMagic)) != 0) {
    return Status::Invalid("not an ecstore device: no ecstore superblock magic at block 0");
  }
  Decoder r(block.first(kCrcOffset + 4));
  Superblock sb;
  std::uint32_t bs = 0, crc = 0;
  // The fields lie within the first kCrcOffset + 4 bytes of a block already checked to be whole,
  // so these reads cannot fail; r.ok() keeps that promise checked.
  r.Skip(sizeof(kMagic), "magic") && r.U32(&sb.version, "version") && r.U32(&bs, "block size") &&
      r.Raw(std::as_writable_bytes(std::span(sb.uuid)), "uuid") &&
      r.U64(&sb.device_size, "device size") && r.U64(&sb.journal_block, "journal block") &&
      r.U64(&sb.journal_blocks, "journal blocks") && r.U32(&crc, "crc");
  if (!r.ok()) return r.status().WithPrefix("superblock");
  if (crc != Crc32c(block.first(kCrcOffset))) {
    return Status::DataLoss("ecstore superblock crc32c mismatch at block 0");
  }
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

}  // namespace ec::osd::store
