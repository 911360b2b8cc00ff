#include "plugins/jerasure/xor_schedule.h"

#include <cstring>

extern "C" {
#include <jerasure.h>
}

namespace ec::jerasure {

namespace {

// dst ^= src over n bytes (distinct packets, never overlapping), 32 bytes per step with a GCC
// vector type so that it does not depend on the optimiser's vectorisation choices. Run's loop is
// compiled for AVX2 and for the baseline (target_clones) and picks one at load time.
using Bytes32 = std::uint8_t __attribute__((vector_size(32)));

inline void XorInto(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    Bytes32 a;
    Bytes32 b;
    std::memcpy(&a, dst + i, 32);
    std::memcpy(&b, src + i, 32);
    a ^= b;
    std::memcpy(dst + i, &a, 32);
  }
  for (; i < n; ++i) dst[i] ^= src[i];
}

}  // namespace

Result<XorSchedule> XorSchedule::Build(int k, int rows, int w, int packetsize,
                                       const int* bitmatrix) {
  if (k <= 0 || rows <= 0 || w <= 0 || packetsize <= 0 || bitmatrix == nullptr) {
    return Status::Invalid("invalid bit-matrix schedule parameters");
  }
  int** raw = jerasure_smart_bitmatrix_to_schedule(k, rows, w, const_cast<int*>(bitmatrix));
  if (raw == nullptr) return Status::Invalid("jerasure could not build a schedule");
  XorSchedule s;
  s.k_ = k;
  s.rows_ = rows;
  s.packetsize_ = static_cast<std::size_t>(packetsize);
  s.block_ = s.packetsize_ * static_cast<std::size_t>(w);
  for (int** op = raw; (*op)[0] >= 0; ++op) {
    const int* o = *op;
    s.ops_.push_back(Op{o[0], o[2], static_cast<std::size_t>(o[1]) * s.packetsize_,
                        static_cast<std::size_t>(o[3]) * s.packetsize_, o[4] != 0});
  }
  jerasure_free_schedule(raw);

  const int row_bits = k * w;
  for (int r = 0; r < rows * w; ++r) {
    const int* row = bitmatrix + static_cast<std::size_t>(r) * row_bits;
    bool any = false;
    for (int c = 0; c < row_bits && !any; ++c) any = row[c] != 0;
    if (!any) {
      s.zero_packets_.emplace_back(k + r / w, static_cast<std::size_t>(r % w) * s.packetsize_);
    }
  }
  return s;
}

__attribute__((target_clones("avx2", "default"))) void RunXorSchedule(
    const XorSchedule& s, std::size_t len, const std::uint8_t* const* inputs,
    std::uint8_t* const* outputs) {
  // Slot i < k reads inputs[i]; slot k + r is outputs[r] (read and written).
  std::vector<std::uint8_t*> slots(static_cast<std::size_t>(s.k_ + s.rows_));
  for (int i = 0; i < s.k_; ++i) slots[i] = const_cast<std::uint8_t*>(inputs[i]);
  for (int r = 0; r < s.rows_; ++r) slots[s.k_ + r] = outputs[r];
  for (std::size_t base = 0; base < len; base += s.block_) {
    for (const auto& [slot, offset] : s.zero_packets_) {
      std::memset(slots[slot] + base + offset, 0, s.packetsize_);
    }
    for (const XorSchedule::Op& op : s.ops_) {
      const std::uint8_t* src = slots[op.src] + base + op.src_offset;
      std::uint8_t* dst = slots[op.dst] + base + op.dst_offset;
      if (op.xor_into)
        XorInto(dst, src, s.packetsize_);
      else
        std::memcpy(dst, src, s.packetsize_);
    }
  }
}

void XorSchedule::Run(std::size_t len, const std::uint8_t* const* inputs,
                      std::uint8_t* const* outputs) const {
  RunXorSchedule(*this, len, inputs, outputs);
}

}  // namespace ec::jerasure
