// BitmatrixCode: the bit-matrix techniques of the jerasure plugin (cauchy_orig, cauchy_good,
// liberation, blaum_roth, liber8tion) share this engine.
//
// Encode: the m*w x k*w coding bit-matrix comes from jerasure; its smart schedule is built once
// in init() and run over each block of w*packetsize bytes (the bytes of Ceph's
// jerasure_schedule_encode).
// Decode: Ceph calls jerasure_schedule_decode_lazy, which inverts a bit-matrix and schedules it
// on every call. Here the plan for one erasure pattern (the k source pieces: the first k
// available, in piece order, as jerasure picks them; and the pieces to rebuild) is built once
// and kept in a thread-safe LRU (kDecodeCacheCapacity entries). A lost data piece is its row
// block of the inverted source bit-matrix; a lost parity piece is its coding rows times that
// inverse. Any correct decode yields the same bytes, so Ceph compatibility is not at stake.
// Errors: EIO when the chosen sources do not determine the data (the bit-matrix is singular:
// possible only for non-MDS parameters such as blaum_roth w=7).
//
// Chunk lengths must be a multiple of w*packetsize (EINVAL otherwise).
//
// Thread safety: as JerasureCode.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "ec/lru_cache.h"
#include "plugins/jerasure/jerasure_code.h"
#include "plugins/jerasure/xor_schedule.h"

namespace ec::jerasure {

class BitmatrixCode : public JerasureCode {
 public:
  static constexpr std::size_t kDecodeCacheCapacity = 512;

  int packetsize() const { return packetsize_; }
  // The bit-matrix runs over each block of w*packetsize bytes on its own.
  std::size_t get_minimum_granularity() const override {
    return static_cast<std::size_t>(w_) * static_cast<std::size_t>(packetsize_);
  }
  // The m*w x k*w coding bit-matrix (row-major, 0/1).
  const std::vector<int>& bitmatrix() const { return bitmatrix_; }

  // Decode plans currently cached, and how many were built since init (a miss builds one).
  std::size_t cached_decode_schedules() const { return decode_cache_ ? decode_cache_->size() : 0; }
  std::uint64_t decode_schedules_built() const { return decode_built_.load(); }

 protected:
  BitmatrixCode(std::string technique, Defaults defaults)
      : JerasureCode(std::move(technique), defaults) {}

  // Returns jerasure's coding bit-matrix (malloc'ed, m*w x k*w), nullptr if it cannot be built.
  virtual int* BuildBitmatrix() const = 0;

  // Ceph's non-per-chunk alignment of bit-matrix codes: k*w*packetsize*sizeof(int), or
  // k*w*packetsize*16 when w*packetsize*sizeof(int) is not a multiple of 16.
  unsigned StripeAlignment() const;
  // EINVAL when k*w*packetsize*16 (the largest alignment) does not fit 32 bits.
  static void CheckSizes(const Params& params, int packetsize, InitErrors* errors);

  Status Prepare() override;
  Status CheckChunkLength(std::size_t len) const override;
  Status EncodePieces(std::size_t len, const std::uint8_t* const* data,
                      std::uint8_t* const* parity) const override;
  Status DecodePieces(std::size_t len, const std::uint8_t* const* pieces,
                      const std::vector<int>& targets, std::uint8_t* const* outputs) const override;

  int packetsize_ = 0;

 private:
  Result<std::shared_ptr<const XorSchedule>> DecodePlan(const std::vector<int>& sources,
                                                        const std::vector<int>& targets) const;

  std::vector<int> bitmatrix_;
  std::unique_ptr<XorSchedule> encode_schedule_;
  std::unique_ptr<LruCache<std::string, XorSchedule>> decode_cache_;  // new one per Prepare()
  mutable std::atomic<std::uint64_t> decode_built_{0};
};

}  // namespace ec::jerasure
