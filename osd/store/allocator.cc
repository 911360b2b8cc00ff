#include "osd/store/allocator.h"

#include "common/codec.h"

namespace ec::osd::store {

Allocator::Allocator(std::uint64_t num_blocks)
    : num_blocks_(num_blocks), free_(num_blocks), words_((num_blocks + 63) / 64, 0) {
  // Bits past the end are kept set so that the scan never hands them out.
  for (std::uint64_t b = num_blocks; b < words_.size() * 64; ++b) {
    words_[b / 64] |= std::uint64_t{1} << (b % 64);
  }
  if (num_blocks > 0) Set(0, true);
  dirty_.clear();
}

bool Allocator::IsUsed(std::uint64_t block) const {
  return (words_[block / 64] >> (block % 64)) & 1;
}

void Allocator::Set(std::uint64_t block, bool used) {
  std::uint64_t bit = std::uint64_t{1} << (block % 64);
  std::uint64_t& w = words_[block / 64];
  if (((w & bit) != 0) == used) return;
  if (used) {
    w |= bit;
    --free_;
  } else {
    w &= ~bit;
    ++free_;
  }
  dirty_.insert(block / kSegmentBlocks);
}

Result<std::vector<BlockRun>> Allocator::Allocate(std::uint64_t n) {
  if (n > free_) {
    return Status::Error(ENOSPC, "no space: need " + std::to_string(n) + " blocks of 4 KiB, " +
                                     std::to_string(free_) + " free");
  }
  std::vector<BlockRun> runs;
  std::uint64_t need = n;
  std::uint64_t b = cursor_ < num_blocks_ ? cursor_ : 1;
  std::uint64_t scanned = 0;
  while (need > 0 && scanned < num_blocks_) {
    if (b >= num_blocks_) b = 0;
    if (b % 64 == 0 && words_[b / 64] == ~std::uint64_t{0}) {
      std::uint64_t step = std::min<std::uint64_t>(64, num_blocks_ - b);
      b += step;
      scanned += step;
      continue;
    }
    if (!IsUsed(b)) {
      Set(b, true);
      if (!runs.empty() && runs.back().block + runs.back().count == b) {
        ++runs.back().count;
      } else {
        runs.push_back(BlockRun{b, 1});
      }
      --need;
    }
    ++b;
    ++scanned;
  }
  cursor_ = b;
  return runs;
}

void Allocator::Release(BlockRun run) {
  for (std::uint64_t b = run.block; b < run.block + run.count; ++b) Set(b, false);
}

bool Allocator::MarkUsed(BlockRun run) {
  if (run.block >= num_blocks_ || run.count > num_blocks_ - run.block) return false;
  for (std::uint64_t b = run.block; b < run.block + run.count; ++b) {
    if (IsUsed(b)) return false;
  }
  for (std::uint64_t b = run.block; b < run.block + run.count; ++b) Set(b, true);
  return true;
}

std::uint64_t Allocator::num_segments() const {
  return (num_blocks_ + kSegmentBlocks - 1) / kSegmentBlocks;
}

std::string Allocator::EncodeSegment(std::uint64_t segment) const {
  constexpr std::uint64_t kWords = kSegmentBlocks / 64;
  std::string out;
  out.reserve(kWords * 8);
  Encoder w(out);
  std::uint64_t first = segment * kWords;
  for (std::uint64_t i = 0; i < kWords; ++i) {
    w.U64(first + i < words_.size() ? words_[first + i] : 0);
  }
  return out;
}

Status Allocator::DecodeSegment(std::uint64_t segment, std::string_view bytes) {
  constexpr std::uint64_t kWords = kSegmentBlocks / 64;
  if (bytes.size() != kWords * 8 || segment >= num_segments()) {
    return Status::Invalid("allocator segment " + std::to_string(segment) + " has a bad size");
  }
  std::uint64_t first = segment * kWords;
  Decoder in(bytes);
  for (std::uint64_t i = 0; i < kWords && first + i < words_.size(); ++i) {
    std::uint64_t w = 0;
    // The size was checked above: this read cannot run out.
    if (!in.U64(&w, "allocator word")) return in.status();
    for (std::uint64_t bit = 0; bit < 64; ++bit) {
      std::uint64_t b = (first + i) * 64 + bit;
      if (b >= num_blocks_) break;
      Set(b, (w >> bit) & 1);
    }
  }
  return Status::OK();
}

std::set<std::uint64_t> Allocator::TakeDirtySegments() {
  std::set<std::uint64_t> out;
  out.swap(dirty_);
  return out;
}

std::vector<BlockRun> Allocator::Diff(const Allocator& a, const Allocator& b, std::size_t limit) {
  std::vector<BlockRun> out;
  std::uint64_t n = std::min(a.num_blocks_, b.num_blocks_);
  for (std::uint64_t blk = 0; blk < n && out.size() <= limit; ++blk) {
    if (blk % 64 == 0 && a.words_[blk / 64] == b.words_[blk / 64]) {
      blk += 63;
      continue;
    }
    if (a.IsUsed(blk) == b.IsUsed(blk)) continue;
    if (!out.empty() && out.back().block + out.back().count == blk) {
      ++out.back().count;
    } else {
      out.push_back(BlockRun{blk, 1});
    }
  }
  if (out.size() > limit) out.resize(limit);
  return out;
}

}  // namespace ec::osd::store
