#include "plugins/clay/clay_scratch.h"

#include <cstdlib>
#include <cstring>
#include <new>

namespace ec::clay {

namespace {

struct Region {
  std::uint8_t* data = nullptr;
  std::size_t size = 0;
  ~Region() { std::free(data); }
  // Grows to at least `bytes`; `zero` fills new memory with zeros.
  std::uint8_t* Ensure(std::size_t bytes, bool zero) {
    if (bytes <= size) return data;
    std::size_t want = (bytes + 4095) & ~std::size_t{4095};
    void* p = std::aligned_alloc(64, want);
    if (p == nullptr) throw std::bad_alloc();
    std::free(data);
    data = static_cast<std::uint8_t*>(p);
    size = want;
    if (zero) std::memset(data, 0, size);
    return data;
  }
};

thread_local Region t_work;
thread_local Region t_zeros;

}  // namespace

ScratchLease::ScratchLease(std::size_t bytes) {
  if (bytes > kKeepLimit) {
    void* p = std::aligned_alloc(64, (bytes + 63) & ~std::size_t{63});
    if (p == nullptr) throw std::bad_alloc();
    owned_ = static_cast<std::uint8_t*>(p);
    data_ = owned_;
  } else {
    data_ = t_work.Ensure(bytes == 0 ? 64 : bytes, false);
  }
}

ScratchLease::~ScratchLease() {
  std::free(owned_);
}

const std::uint8_t* ScratchLease::Zeros(std::size_t bytes) {
  return t_zeros.Ensure(bytes == 0 ? 64 : bytes, true);
}

}  // namespace ec::clay
