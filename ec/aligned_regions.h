// AlignedRegions: 16-byte aligned pointers for jerasure / gf-complete region calls over caller
// buffers of one length.
//
// gf-complete's region multiply (under jerasure_matrix_encode, jerasure_matrix_dotprod, ...)
// asserts unless source and destination are aligned alike, while ErasureCodeInterface accepts
// buffers at any address. Every plugin that hands caller buffers to jerasure (jerasure, shec)
// passes them through one AlignedRegions per call:
//   Input(p)    p itself when it is 16-byte aligned, else an aligned copy of its `len` bytes;
//   Output(p)   p itself when aligned, else an aligned scratch area that CopyBack() copies to p;
//   Scratch()   an aligned area of `len` bytes whose contents are dropped (or, given `dest`,
//               copied to it by CopyBack()).
// An aligned caller pointer costs nothing; a misaligned one costs one copy of `len` bytes.
//
// Preconditions: every pointer passed in covers at least `len` bytes (the length given to the
// constructor). Nothing is checked: callers validate chunk lengths before they get here.
// Ownership: the object owns the copies and scratch areas; the pointers it returns stay valid
// until it is destroyed. Caller buffers stay the caller's. CopyBack() must be called after the
// region call and before the object goes away, or misaligned outputs are not written.
// Thread safety: none; one object per call, on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "ec/buffer.h"

namespace ec {

class AlignedRegions {
 public:
  // gf-complete's requirement for region operations (SSE loads of 16 bytes).
  static constexpr std::size_t kAlignment = 16;

  explicit AlignedRegions(std::size_t len) : len_(len) {}

  // A pointer to `len` bytes equal to p's, aligned to kAlignment. jerasure takes char* even for
  // inputs it only reads, hence the non-const result.
  char* Input(const std::uint8_t* p) {
    if (Aligned(p)) return reinterpret_cast<char*>(const_cast<std::uint8_t*>(p));
    Buffer copy = Buffer::Copy(AsBytes(p, len_));
    char* q = reinterpret_cast<char*>(copy.udata());
    held_.push_back(std::move(copy));
    return q;
  }

  // Where to write `len` bytes meant for p: p itself when aligned, else scratch copied back.
  char* Output(std::uint8_t* p) {
    if (Aligned(p)) return reinterpret_cast<char*>(p);
    return Scratch(p);
  }

  // An aligned area of `len` bytes (uninitialised) whose contents are dropped (dest == nullptr)
  // or copied to `dest` by CopyBack().
  char* Scratch(std::uint8_t* dest = nullptr) {
    Buffer area = Buffer::Allocate(len_, false);
    char* q = reinterpret_cast<char*>(area.udata());
    if (dest != nullptr) copy_back_.emplace_back(dest, area.udata());
    held_.push_back(std::move(area));
    return q;
  }

  // Copies every scratch area that stands for a caller output back to that output.
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

}  // namespace ec
