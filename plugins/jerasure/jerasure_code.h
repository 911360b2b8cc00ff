// JerasureCode: what the seven techniques of the jerasure plugin share, with the semantics of
// Ceph's ErasureCodeJerasure (src/erasure-code/jerasure/ErasureCodeJerasure.{h,cc}).
//
// Profile (init): keys read by every technique, in Ceph's order, defaults written back:
//   technique  forced to this code's technique name
//   mapping    optional D/_/c string; its length must be k+m, else
//              "mapping X maps N chunks instead of the expected K and will be ignored" (EINVAL)
//   k, m, w    per-technique defaults (see jerasure_plugin.h), then "k=K must be >= 2" and
//              "m=M must be >= 1" (EINVAL); an unparsable integer gives Ceph's
//              "could not convert ..." message (EINVAL)
//   crush-root / crush-failure-domain / crush-device-class: base defaults, written on success
// then the technique's own keys and checks (ParseTechnique). Like Ceph, every check runs and every
// message is reported (joined by '\n'); the first error's errno is returned. On failure the code
// is unusable and get_profile() is unchanged. init(get_profile()) gives the same code.
//
// Chunk ids and pieces: data piece i is chunk id chunk_index(i), parity j is chunk_index(k+j);
// without a mapping they are the same numbers. encode_chunks/decode_chunks translate ids to
// pieces once and the technique code only sees pieces. (Ceph's legacy jerasure encode_chunks
// took chunk ids 0..k-1 as the data whatever the mapping; with a mapping its bytes differ.)
//
// Buffers (encode_chunks/decode_chunks): all buffers have one non-zero length that satisfies the
// technique (CheckChunkLength: any length for w=8 Reed-Solomon, a multiple of w/8 for w=16/32,
// a multiple of w*packetsize for bit-matrix codes); any pointer alignment is accepted. Errors are
// EINVAL with a message naming the chunk or the rule; jerasure is never called with arguments it
// would assert on.
//   encode_chunks: `in` holds data chunks by id (an absent data chunk is zeros, parity ids in
//     `in` are ignored); `out` holds parity buffers (a parity id absent from `out` is computed
//     into scratch and dropped); a data id in `out` is EINVAL.
//   decode_chunks: rebuilds every chunk of `out` from the chunks of `in`; every id of `want` must
//     be in `in` or `out`. A data chunk found in neither is treated as lost when the other
//     chunks are enough (k of them), so the answer is right whatever it holds; only when fewer
//     than k real chunks are given is it taken as zeros (Ceph's rule for absent data shards).
//     EIO when the chunks cannot rebuild `out`.
//
// Thread safety: init() is not thread safe; after it, every const method may run concurrently
// (decode caches are internally locked).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ec/erasure_code.h"

namespace ec::jerasure {

// Ceph's LARGEST_VECTOR_WORDSIZE: the alignment unit of chunk sizes.
inline constexpr unsigned kLargestVectorWordSize = 16;

// Ceph's prime table for liberation-family checks (primes up to 257).
bool IsPrime(int value);

// Accumulates init() errors the way Ceph accumulates messages in `ss` and ORs error codes.
class InitErrors {
 public:
  void Add(const Status& s);
  void Add(int errno_value, std::string message);
  bool ok() const { return code_ == 0; }
  // The first error's code with every message joined by '\n'; OK if nothing was added.
  Status ToStatus() const;

 private:
  int code_ = 0;
  std::string message_;
};

class JerasureCode : public ErasureCode {
 public:
  // Ceph's DEFAULT_K / DEFAULT_M / DEFAULT_W strings of a technique.
  struct Defaults {
    const char* k;
    const char* m;
    const char* w;
  };
  // k, m, w as parsed from the profile, before they are committed to the code.
  struct Params {
    int k = 0;
    int m = 0;
    int w = 0;
  };

  Status init(Profile& profile) final;
  unsigned get_chunk_size(unsigned stripe_width) const final;
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const final;
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const final;
  // The base decode, except that fewer than k chunks is EIO when a wanted chunk is missing (as
  // Ceph's legacy decode: every chunk not given is lost, never assumed to be zeros).
  Status decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                std::size_t chunk_size) const final;

  const std::string& technique() const { return technique_; }
  const Defaults& defaults() const { return defaults_; }
  int w() const { return w_; }
  bool per_chunk_alignment() const { return per_chunk_alignment_; }
  // The unit get_chunk_size rounds to (Ceph's get_alignment): the whole stripe's unit, or the
  // chunk's unit when per_chunk_alignment() is set.
  virtual unsigned get_alignment() const = 0;

 protected:
  JerasureCode(std::string technique, Defaults defaults)
      : technique_(std::move(technique)), defaults_(defaults) {}

  // The technique's own keys and checks (Ceph's parse override), after k/m/w/mapping. May change
  // `params` (reverting to defaults as Ceph does); must record every problem in `errors`.
  virtual void ParseTechnique(Profile& profile, Params& params, InitErrors* errors) = 0;
  // Builds matrices and schedules from k_, m_, w_ (Ceph's prepare). Errors: EINVAL when jerasure
  // cannot build the code for these parameters.
  virtual Status Prepare() = 0;
  // EINVAL when `len` is not a chunk length this technique can process.
  virtual Status CheckChunkLength(std::size_t len) const = 0;
  // parity[j] = row j of the code applied to data[0..k). Lengths were checked.
  virtual Status EncodePieces(std::size_t len, const std::uint8_t* const* data,
                              std::uint8_t* const* parity) const = 0;
  // Rebuilds pieces `targets` (in [0,k+m)) into `outputs` from `pieces` (k+m pointers, nullptr =
  // unavailable, at least k available). EIO when the available pieces cannot rebuild them.
  virtual Status DecodePieces(std::size_t len, const std::uint8_t* const* pieces,
                              const std::vector<int>& targets,
                              std::uint8_t* const* outputs) const = 0;

  int k() const { return static_cast<int>(k_); }
  int m() const { return static_cast<int>(m_); }

  int w_ = 0;
  bool per_chunk_alignment_ = false;

 private:
  std::string technique_;
  Defaults defaults_;
};

}  // namespace ec::jerasure
