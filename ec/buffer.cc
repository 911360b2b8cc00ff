#include "ec/buffer.h"

#include <cstdint>
#include <cstdlib>
#include <new>

namespace ec {

namespace {
struct AlignedFree {
  void operator()(std::byte* p) const { std::free(p); }
};
}  // namespace

Buffer Buffer::Allocate(std::size_t size, bool zero) {
  Buffer b;
  // aligned_alloc wants a multiple of the alignment; round up, and never ask for 0 bytes.
  std::size_t rounded = (size + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
  if (rounded == 0) rounded = kBufferAlignment;
  auto* p = static_cast<std::byte*>(std::aligned_alloc(kBufferAlignment, rounded));
  if (p == nullptr) throw std::bad_alloc();
  if (zero) std::memset(p, 0, rounded);
  b.base_ = std::shared_ptr<std::byte[]>(p, AlignedFree());
  b.size_ = size;
  return b;
}

Buffer Buffer::Copy(std::span<const std::byte> bytes) {
  Buffer b = Allocate(bytes.size(), false);
  if (!bytes.empty()) std::memcpy(b.data(), bytes.data(), bytes.size());
  return b;
}

Buffer Buffer::Slice(std::size_t offset, std::size_t length) const {
  if (offset > size_ || length > size_ - offset) return Buffer();
  Buffer b = *this;
  b.offset_ = offset_ + offset;
  b.size_ = length;
  return b;
}

}  // namespace ec
