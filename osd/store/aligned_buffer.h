// AlignedBuffer: an owned byte region whose start and length are multiples of the device block
// (4 KiB), as O_DIRECT requires. Move-only; freed when the owner goes away.
//
// Thread safety: none of its own; one buffer is used by one thread at a time (the device reads
// or writes it only inside a Submit call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ec::osd::store {

inline constexpr std::size_t kBlockSize = 4096;

inline constexpr std::uint64_t RoundUpToBlock(std::uint64_t n) {
  return (n + kBlockSize - 1) / kBlockSize * kBlockSize;
}
inline constexpr std::uint64_t RoundDownToBlock(std::uint64_t n) {
  return n / kBlockSize * kBlockSize;
}

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  // A region of RoundUpToBlock(size) bytes aligned to kBlockSize, zero-filled. Aborts only if
  // memory is exhausted (like operator new).
  explicit AlignedBuffer(std::size_t size);
  // The same without the zero fill, for a buffer the caller overwrites entirely before use.
  struct Uninitialized {};
  AlignedBuffer(std::size_t size, Uninitialized);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& other) noexcept;
  AlignedBuffer& operator=(AlignedBuffer&& other) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::span<std::byte> span() { return {data_, size_}; }
  std::span<const std::byte> span() const { return {data_, size_}; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ec::osd::store
