#include "osd/store/aligned_buffer.h"

#include <cstdlib>
#include <cstring>
#include <utility>

namespace ec::osd::store {

AlignedBuffer::AlignedBuffer(std::size_t size) : AlignedBuffer(size, Uninitialized{}) {
  if (data_ != nullptr) std::memset(data_, 0, size_);
}

AlignedBuffer::AlignedBuffer(std::size_t size, Uninitialized) : size_(RoundUpToBlock(size)) {
  if (size_ == 0) return;
  void* p = std::aligned_alloc(kBlockSize, size_);
  if (p == nullptr) std::abort();
  data_ = static_cast<std::byte*>(p);
}

AlignedBuffer::~AlignedBuffer() {
  std::free(data_);
}

AlignedBuffer::AlignedBuffer(AlignedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace ec::osd::store
