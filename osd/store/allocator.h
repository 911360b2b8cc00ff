// Allocator: which 4 KiB blocks of the device are in use, one bit per block. Block 0 (the
// superblock) is always in use. The bitmap is persisted in segments of kSegmentBlocks bits; every
// change marks its segment dirty so that a transaction can put exactly the changed segments in its
// metadata batch.
//
// Allocation is next-fit from a moving cursor, so that consecutive writes land in consecutive
// blocks; a request that no single free run satisfies is served from several runs.
//
// Thread safety: none; the store serialises all use under its own lock.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::osd::store {

// A run of `count` device blocks starting at block `block`.
struct BlockRun {
  std::uint64_t block = 0;
  std::uint64_t count = 0;
  bool operator==(const BlockRun&) const = default;
};

class Allocator {
 public:
  static constexpr std::uint64_t kSegmentBlocks = 4096;  // 512 bytes of bitmap per segment

  // A bitmap for `num_blocks` blocks, all free but block 0.
  explicit Allocator(std::uint64_t num_blocks);

  std::uint64_t num_blocks() const { return num_blocks_; }
  std::uint64_t free_blocks() const { return free_; }

  // Marks `n` free blocks used and returns them as runs in device order of allocation.
  // Errors: ENOSPC "no space" when fewer than `n` blocks are free (nothing is allocated).
  Result<std::vector<BlockRun>> Allocate(std::uint64_t n);
  // Marks the run free. Precondition: every block of it is in use and inside the device.
  void Release(BlockRun run);
  // Marks the run used (rebuilding from metadata). Returns false, changing nothing, if a block is
  // already used or out of range.
  bool MarkUsed(BlockRun run);
  bool IsUsed(std::uint64_t block) const;

  // Persistence: the bitmap as segments. DecodeSegment errors: EINVAL for a wrong length.
  std::uint64_t num_segments() const;
  std::string EncodeSegment(std::uint64_t segment) const;
  Status DecodeSegment(std::uint64_t segment, std::string_view bytes);
  // Segments changed since the last call; clears the record.
  std::set<std::uint64_t> TakeDirtySegments();

  // Blocks whose state differs between the two bitmaps, as runs (at most `limit` runs).
  static std::vector<BlockRun> Diff(const Allocator& a, const Allocator& b, std::size_t limit);

 private:
  void Set(std::uint64_t block, bool used);

  std::uint64_t num_blocks_;
  std::uint64_t free_ = 0;
  std::uint64_t cursor_ = 1;
  std::vector<std::uint64_t> words_;
  std::set<std::uint64_t> dirty_;
};

}  // namespace ec::osd::store
