// ErasureCodeShec: Ceph's `plugin=shec` (ErasureCodeShec / ErasureCodeShecReedSolomonVandermonde),
// byte-compatible with Ceph's chunks (checked against ceph-erasure-code-corpus v0.92-988 and
// Ceph 16.2's own tool). SHEC is a systematic, non-MDS code: each parity covers a window of about
// c*k/m data chunks (shec_matrix.h), so a lost data chunk is rebuilt from one parity and its
// window instead of k chunks, at the price of tolerating only c arbitrary losses (some patterns of
// up to m losses are decodable too).
//
// Profile (init), Ceph's defaults, limits and messages:
//   technique  single | multiple (the factory inserts "multiple"; see shec_plugin.h)
//   k, m, c    all three or none (none: 4, 3, 2). Exactly one message, then EINVAL, for the first
//              check that fails:
//                "(k, m, c) must be choosed"            (some but not all given)
//                "could not convert k=Xto int"          (Ceph's text, no space; also m, c)
//                "k=K must be a positive number"        (also m, c)
//                "c=C must be less than or equal to m=M"
//                "k=K must be less than or equal to 12"
//                "k+m=N must be less than or equal to 20"
//                "m=M must be less than or equal to k=K"
//              followed by a line "(k, m, c)=(K, M, C) is not a valid parameter." (values as
//              parsed, 0 for ones not parsed, as Ceph prints them).
//   w          8 (default), 16 or 32; any other value, or one that is not an integer, silently
//              becomes 8 (Ceph only logs "w=W must be one of {8, 16, 32}").
//   crush-root / crush-failure-domain / crush-device-class: the base defaults.
// Unlike Ceph, init writes the values it uses back into the profile (k, m, c and w, w=8 in place
// of an ignored value), so get_profile() shows the code. `mapping` is ignored, as in Ceph.
//
// Chunk size: alignment k*w*4 bytes; chunk = roundup(stripe_width, alignment) / k.
//
// minimum_to_decode: want itself when every wanted chunk is available; otherwise SHEC's search
// (shec_search.h): the smallest square system of parities and data that rebuilds the wanted
// chunks, e.g. k=4 m=3 c=2 reads 3 chunks (not 4) to rebuild one lost data chunk. EIO when the
// available chunks cannot rebuild them, EINVAL for ids out of range. (Ceph's shec, given wanted
// chunks that are all available, drops a wanted parity whose window is entirely wanted and
// rebuilds it; here the interface's promise holds and it is read.)
// minimum_to_decode_with_cost: among SHEC's usable systems, the one whose chunks cost least;
// with equal costs the same set as minimum_to_decode (Ceph ignores the costs).
//
// encode_chunks / decode_chunks: buffers of one non-zero length, a multiple of w/8 bytes, any
// alignment. encode_chunks: an absent data chunk is zeros; an absent parity is computed into
// scratch and dropped. decode_chunks rebuilds every chunk of `out` from those of `in` only
// (fewer than k chunks suffice when they hold SHEC's plan); EIO when they cannot.
//
// Thread safety: init() is not thread safe; after it every const method may run concurrently.
#pragma once

#include <memory>
#include <string>

#include "ec/erasure_code.h"
#include "plugins/shec/shec_table_cache.h"

namespace ec {

class ErasureCodeShec final : public ErasureCode {
 public:
  static constexpr int kDefaultK = 4;
  static constexpr int kDefaultM = 3;
  static constexpr int kDefaultC = 2;
  static constexpr int kDefaultW = 8;

  // `tables` is shared by the codes of one plugin; nullptr gives this code its own.
  ErasureCodeShec(shec::Technique technique, std::shared_ptr<shec::ShecTableCache> tables);

  Status init(Profile& profile) override;
  unsigned get_chunk_size(unsigned stripe_width) const override;
  // Matrix codes over GF(2^w) on w/8-byte words.
  std::size_t get_minimum_granularity() const override { return static_cast<std::size_t>(w_) / 8; }
  Result<SubChunkPlan> minimum_to_decode(const ShardSet& want,
                                         const ShardSet& available) const override;
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override;
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override;

  shec::Technique technique() const { return technique_; }
  int c() const { return c_; }
  int w() const { return w_; }
  // k*w*4, Ceph's get_alignment().
  unsigned get_alignment() const;
  // The codec (matrix, arithmetic); nullptr before a successful init.
  const shec::ShecCodec* codec() const { return codec_.get(); }

 protected:
  // SHEC's cheapest usable system (shec::FindCheapestRecovery); EIO when there is none.
  Result<ShardSet> cheapest_to_decode(const ShardSet& want,
                                      const std::map<int, int>& available) const override;

 private:
  // Ceph's parse: k, m, c and w from the profile, with Ceph's messages.
  Status ParseParameters(Profile& profile, int* k, int* m, int* c, int* w) const;
  Status CheckLength(std::size_t len) const;

  shec::Technique technique_;
  std::shared_ptr<shec::ShecTableCache> tables_;
  std::shared_ptr<const shec::ShecCodec> codec_;
  int c_ = 0;
  int w_ = 0;
};

}  // namespace ec
