// Buffer: a reference-counted, 64-byte aligned byte region and a slice of it (in the spirit of
// Ceph's bufferptr). Encode allocates one region for all chunks of a stripe and hands out slices,
// so no chunk is copied twice and every chunk starts on a SIMD-friendly boundary.
//
// Ownership: copies of a Buffer share the region; the region is freed with the last copy.
// Thread safety: the reference count is atomic (std::shared_ptr); the bytes themselves are not
// synchronised: writers must not race with readers of the same bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

namespace ec {

inline constexpr std::size_t kBufferAlignment = 64;

class Buffer {
 public:
  Buffer() = default;

  // A new region of `size` bytes, zero-filled when `zero` is true. Aborts only if memory is
  // exhausted (like operator new).
  static Buffer Allocate(std::size_t size, bool zero = true);
  // A new region holding a copy of `bytes`.
  static Buffer Copy(std::span<const std::byte> bytes);

  std::byte* data() { return base_ ? base_.get() + offset_ : nullptr; }
  const std::byte* data() const { return base_ ? base_.get() + offset_ : nullptr; }
  unsigned char* udata() { return reinterpret_cast<unsigned char*>(data()); }
  const unsigned char* udata() const { return reinterpret_cast<const unsigned char*>(data()); }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  std::span<std::byte> span() { return {data(), size_}; }
  std::span<const std::byte> span() const { return {data(), size_}; }
  operator std::span<const std::byte>() const { return span(); }  // NOLINT

  // A view of [offset, offset+length) sharing this region. The range must lie inside this
  // slice (checked: an out-of-range request yields an empty Buffer).
  Buffer Slice(std::size_t offset, std::size_t length) const;

  // True when data() is aligned to `alignment` bytes.
  bool IsAligned(std::size_t alignment) const {
    return reinterpret_cast<std::uintptr_t>(data()) % alignment == 0;
  }

 private:
  std::shared_ptr<std::byte[]> base_;
  std::size_t offset_ = 0;
  std::size_t size_ = 0;
};

inline std::span<const std::byte> AsBytes(const void* p, std::size_t n) {
  return {static_cast<const std::byte*>(p), n};
}

}  // namespace ec
