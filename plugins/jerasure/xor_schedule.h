// XorSchedule: a bit-matrix code turned into a list of packet copies and XORs, and the loop that
// runs it over whole chunks.
//
// A bit-matrix with `rows` x w bit-rows and k x w bit-columns maps k input pieces to `rows`
// output pieces. Every piece is a sequence of blocks of w*packetsize bytes; packet x of a block
// is bytes [x*packetsize, (x+1)*packetsize). Output packet (r, l) is the XOR of the input packets
// (j, x) whose bit is set in bit-row r*w+l, column j*w+x. The operations are jerasure's smart
// schedule (jerasure_smart_bitmatrix_to_schedule, which reuses already computed output packets),
// copied into a compact vector; a bit-row without any set bit (jerasure would leave the packet
// untouched) is zero-filled instead.
//
// Pointers passed to Run: `inputs[0..k)` then `outputs[0..rows)`, every region `len` bytes,
// `len` a multiple of w*packetsize (checked by the caller). Any alignment.
//
// Thread safety: a built schedule is immutable; Run may be called concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/status.h"

namespace ec::jerasure {

class XorSchedule {
 public:
  // Builds the schedule of `bitmatrix` (rows*w x k*w ints, 0/1). Errors: EINVAL if jerasure
  // cannot build it.
  static Result<XorSchedule> Build(int k, int rows, int w, int packetsize, const int* bitmatrix);

  void Run(std::size_t len, const std::uint8_t* const* inputs, std::uint8_t* const* outputs) const;

  std::size_t operation_count() const { return ops_.size(); }

 private:
  // Run's loop, compiled for AVX2 and for the baseline (xor_schedule.cc). A free function rather
  // than Run itself: clang refuses to make a function multiversioned after a call to it was seen
  // (another file of the same unity build calling Run first).
  friend void RunXorSchedule(const XorSchedule& s, std::size_t len,
                             const std::uint8_t* const* inputs, std::uint8_t* const* outputs);

  struct Op {
    int src;  // index into inputs (< k) or outputs (k + r)
    int dst;  // k + output index
    std::size_t src_offset;
    std::size_t dst_offset;
    bool xor_into;
  };

  int k_ = 0;
  int rows_ = 0;
  std::size_t packetsize_ = 0;
  std::size_t block_ = 0;
  std::vector<Op> ops_;
  std::vector<std::pair<int, std::size_t>> zero_packets_;  // (k + output index, offset)
};

}  // namespace ec::jerasure
