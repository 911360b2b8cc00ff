// ErasureCode: the base class plugins derive from. It implements the parts of the interface that
// are the same for every code, with Ceph's semantics (ErasureCode.cc):
//   - profile storage and the crush-* defaults,
//   - chunk mapping (`mapping=`),
//   - minimum_to_decode (want if available, else the first k available chunks, whole),
//   - minimum_to_decode_with_cost: its input checks and the "every wanted chunk is available"
//     answer for every plugin; the choice among the rest is cheapest_to_decode(), which plugins
//     override (the base, unlike Ceph, really picks the k cheapest chunks),
//   - encode (padding into one aligned allocation, then encode_chunks),
//   - decode (sharing present chunks, allocating missing ones, then decode_chunks),
//   - decode_concat.
// A scalar plugin implements init(), get_chunk_size(), encode_chunks() and decode_chunks();
// k_ and m_ must be set by init().
//
// Thread safety: as ErasureCodeInterface (const methods are safe concurrently after init).
#pragma once

#include <string>
#include <vector>

#include "ec/erasure_code_interface.h"

namespace ec {

class ErasureCode : public ErasureCodeInterface {
 public:
  // Ceph's SIMD_ALIGN. Buffers ec allocates are aligned to kBufferAlignment (64), more than this.
  static constexpr unsigned kSimdAlign = 32;

  const Profile& get_profile() const override { return profile_; }
  unsigned get_chunk_count() const override { return k_ + m_; }
  unsigned get_data_chunk_count() const override { return k_; }
  unsigned get_coding_chunk_count() const override { return get_chunk_count() - k_; }
  unsigned get_sub_chunk_count() const override { return 1; }
  const std::vector<int>& get_chunk_mapping() const override { return chunk_mapping_; }

  Result<SubChunkPlan> minimum_to_decode(const ShardSet& want,
                                         const ShardSet& available) const override;
  // EINVAL (check_ids) for a wanted or available id that is not a chunk id of this code; `want`
  // itself when every wanted chunk is available; otherwise cheapest_to_decode(). Final, so that
  // every plugin answers bad input and the trivial case alike.
  Result<ShardSet> minimum_to_decode_with_cost(const ShardSet& want,
                                               const std::map<int, int>& available) const final;
  Status encode(const ShardSet& want, std::span<const std::byte> in,
                ChunkMap* encoded) const override;
  Status decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                std::size_t chunk_size) const override;
  Status decode_concat(const ShardSet& want, const ChunkMap& chunks, Buffer* out) const override;

  // Chunk id of data piece / parity `i` (0 <= i < chunk count).
  int chunk_index(unsigned i) const {
    return chunk_mapping_.size() > i ? chunk_mapping_[i] : static_cast<int>(i);
  }
  // Data piece / parity index of chunk id `id` (inverse of chunk_index).
  int piece_index(int id) const;

 protected:
  // Base init: reads crush-root, crush-failure-domain, crush-device-class (with Ceph's defaults)
  // into the profile. Plugins call it from init() and then parse their own keys.
  Status init_base(Profile& profile);
  // Ceph's to_mapping: positions of 'D' first, then every other position, in order. No-op
  // without `mapping`. Plugins check the resulting size against k+m themselves (Ceph's message
  // differs per plugin).
  void parse_mapping(const Profile& profile);
  // EINVAL "<what> chunk id N is out of range [0,n)" unless every id is a chunk id of this code.
  Status check_ids(const ShardSet& ids, const char* what) const;
  // The least-cost set of chunks of `available` (id -> cost) that rebuilds `want`. Called by
  // minimum_to_decode_with_cost only with valid ids and at least one wanted chunk missing from
  // `available`. The base is for MDS codes: the k cheapest chunks (on equal cost a wanted chunk
  // first, then the lower id); EIO when fewer than k are available. Plugins whose codes are not
  // MDS, or that can read less, override it and keep the same errors (EIO when `available`
  // cannot rebuild `want`).
  virtual Result<ShardSet> cheapest_to_decode(const ShardSet& want,
                                              const std::map<int, int>& available) const;
  // "k=K must be >= 2", "m=M must be >= 1".
  static Status sanity_check_k_m(int k, int m);
  // Common check for encode_chunks / decode_chunks buffers: same non-zero length, ids in range,
  // `out` not overlapping `in`. On success *length is the common length.
  Status check_buffers(const ConstChunkSpans& in, const ChunkSpans& out, std::size_t* length) const;
  // Decode path for codes whose decode needs every chunk to have the same length.
  Status decode_full(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded) const;

  Profile profile_;
  unsigned k_ = 0;
  unsigned m_ = 0;
  std::vector<int> chunk_mapping_;
  std::string rule_root_;
  std::string rule_failure_domain_;
  std::string rule_device_class_;
};

}  // namespace ec
