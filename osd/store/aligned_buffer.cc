#include "osd/store/aligned_buffer.h"

#include <cstdlib>
#include <cstring>
#include <utility>

namespace ec::store {

AlignedBuffer::AlignedBuffer(std::size_t size) : size_(RoundUpToBlock(size)) {
  if (size_ == 0) return;
  void* p = std::aligned_alloc(kBlockSize, size_);
  if (p == nullptr) std::abort();
  std::memset(p, 0, size_);
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

}  // namespace ec::store
