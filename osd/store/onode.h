// Onode: the metadata of one object as kept in RocksDB: its size, its attributes, and for each
// 4 KiB logical block that holds data, the device block storing it and that block's crc32c.
// Logical blocks without an entry are holes and read as zeros. Invariant: the bytes of the last
// block past `size` are zero, and no block lies wholly past `size`.
//
// Encoding (little endian): u64 size | u32 attr count | (u32 len, key, u32 len, value)* |
// u32 run count | (u64 logical block, u64 device block, u32 count, count x u32 crc32c)*
// where a run is a stretch of consecutive logical blocks stored in consecutive device blocks.
//
// Thread safety: plain value.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "osd/store/allocator.h"

namespace ec::osd::store {

struct BlockRef {
  std::uint64_t device_block = 0;
  std::uint32_t crc = 0;
  bool operator==(const BlockRef&) const = default;
};

struct Onode {
  std::uint64_t size = 0;
  std::map<std::uint64_t, BlockRef> blocks;  // logical block -> where it is
  std::map<std::string, std::string> attrs;

  bool operator==(const Onode&) const = default;

  std::string Encode() const;
  // Errors: DataLoss "corrupt object metadata" when the bytes are truncated or inconsistent.
  static Result<Onode> Decode(std::string_view bytes);
  // The device blocks in use, merged into runs.
  std::vector<BlockRun> DeviceRuns() const;
};

// RocksDB key layout, all under single-letter prefixes:
//   "S"                      store identity (uuid, block count)
//   "A" + u64 big endian     allocator bitmap segment
//   "C" + collection         a collection (empty value)
//   "O" + collection + "\0" + name   an object's Onode
//   "W" + u64 big endian     a deferred write: u32 count | (u64 device block, 4096 bytes)*
namespace keys {
inline constexpr std::string_view kIdentity = "S";
inline constexpr char kAllocPrefix = 'A';
inline constexpr char kCollectionPrefix = 'C';
inline constexpr char kObjectPrefix = 'O';
inline constexpr char kDeferredPrefix = 'W';
std::string AllocSegment(std::uint64_t segment);
std::string Deferred(std::uint64_t seq);
std::string Collection(std::string_view coll);
std::string Object(std::string_view coll, std::string_view name);
// Prefix of every object key of `coll`.
std::string ObjectPrefix(std::string_view coll);
}  // namespace keys

}  // namespace ec::osd::store
