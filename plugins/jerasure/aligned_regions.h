// AlignedRegions: hands jerasure/gf-complete 16-byte aligned pointers for caller buffers of one
// length. gf-complete's region multiply asserts unless source and destination are aligned alike;
// an aligned caller pointer is passed through, any other is replaced by an aligned copy (inputs)
// or an aligned scratch area copied back by CopyBack() (outputs).
//
// Not thread safe; one object per call. The pointers it returns live as long as the object.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "ec/buffer.h"

namespace ec::jerasure {

class AlignedRegions {
 public:
  static constexpr std::size_t kAlignment = 16;

  explicit AlignedRegions(std::size_t len) : len_(len) {}

  char* Input(const std::uint8_t* p) {
    if (Aligned(p)) return reinterpret_cast<char*>(const_cast<std::uint8_t*>(p));
    Buffer copy = Buffer::Copy(AsBytes(p, len_));
    char* q = reinterpret_cast<char*>(copy.udata());
    held_.push_back(std::move(copy));
    return q;
  }

  char* Output(std::uint8_t* p) {
    if (Aligned(p)) return reinterpret_cast<char*>(p);
    return Scratch(p);
  }

  // An aligned area whose contents are dropped (dest == nullptr) or copied to `dest`.
  char* Scratch(std::uint8_t* dest = nullptr) {
    Buffer area = Buffer::Allocate(len_, false);
    char* q = reinterpret_cast<char*>(area.udata());
    if (dest != nullptr) copy_back_.emplace_back(dest, area.udata());
    held_.push_back(std::move(area));
    return q;
  }

  void CopyBack() {
    for (const auto& [dest, src] : copy_back_) std::memcpy(dest, src, len_);
  }

 private:
  static bool Aligned(const void* p) {
    return reinterpret_cast<std::uintptr_t>(p) % kAlignment == 0;
  }

  std::size_t len_;
  std::vector<Buffer> held_;
  std::vector<std::pair<std::uint8_t*, const std::uint8_t*>> copy_back_;
};

}  // namespace ec::jerasure
