// ErasureCodeIsa: Ceph's isa erasure code (ErasureCodeIsaDefault), byte-identical to it: same
// profile keys, defaults, limits and messages, same chunk size, same parity bytes.
//
// Profile (defaults are written back into the profile by init):
//   technique  reed_sol_van (default, inserted only when the key is absent) | cauchy
//              anything else, "" included: ENOENT "technique=T is not a valid coding technique.
//              Choose one of the following: reed_sol_van,cauchy" (two spaces after the period)
//   k          data chunks, default 7          m   parity chunks, default 3
//   mapping    optional, Ceph's D/_ string; must have k+m characters here (see below)
//   crush-root / crush-failure-domain / crush-device-class: ErasureCode defaults
// Validation, in Ceph's order; every failure is EINVAL and all messages found are reported,
// one per line, like Ceph's ostream:
//   "could not convert k=V to int because ERR, set to default 7"     (same for m)
//   "k=K must be >= 2" / "m=M must be >= 1"
//   "isa: m=M should be less/equal than 32 : revert to m=32"
//   reed_sol_van only (outside these limits the Vandermonde matrix is not MDS):
//     "Vandermonde: m=M should be less/equal than 32 : revert to k=32"   (k > 32; Ceph prints m)
//     "Vandermonde: m=M should be less than 5 to guarantee an MDS codec: revert to m=4"
//     "Vandermonde: k=K should be less than 22 to guarantee an MDS codec with m=4: revert to k=21"
//   ecstore additions (Ceph accepts these and then misbehaves):
//     "isa: k+m=N should be less/equal than 256 for a cauchy matrix over GF(2^8)"
//     "mapping=S maps N chunks instead of the expected K+M" (the number k+m)
//
// Codes: reed_sol_van uses ISA-L's gf_gen_rs_matrix, cauchy gf_gen_cauchy1_matrix (isa_matrix.h);
// m == 1 is plain XOR parity for both. Chunk size = roundup(ceil(stripe_width / k), 32).
//
// Chunk ids: data piece i is chunk id chunk_index(i), parity j is chunk_index(k+j); without a
// mapping that is the identity. All maps below are keyed by chunk id.
//
// Thread safety: after init(), every const method may run concurrently. Codes made by one plugin
// share their codecs (IsaTableCache); the codec's decode-table LRU is internally locked.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ec/erasure_code.h"
#include "ec/gf.h"
#include "plugins/isa/isa_matrix.h"
#include "plugins/isa/isa_table_cache.h"

namespace ec {

class ErasureCodeIsa final : public ErasureCode {
 public:
  static constexpr const char* kDefaultK = "7";
  static constexpr const char* kDefaultM = "3";
  static constexpr int kMaxK = 32;  // Vandermonde only
  static constexpr int kMaxM = 32;
  // EC_ISA_ADDRESS_ALIGNMENT: chunk sizes are multiples of this.
  static constexpr unsigned kChunkAlignment = 32;

  // `tables` is shared by the codes of one plugin; nullptr gives this code a private one.
  explicit ErasureCodeIsa(std::shared_ptr<isa::IsaTableCache> tables = nullptr);

  // See the file comment. On error the code is unusable until a later init() succeeds.
  Status init(Profile& profile) override;

  // roundup(ceil(stripe_width / k), 32); 0 for 0.
  unsigned get_chunk_size(unsigned stripe_width) const override;
  // Byte-wise GF(2^8): each parity byte is a combination of the data bytes at its offset.
  std::size_t get_minimum_granularity() const override { return 1; }

  // `in`: data chunk ids only; a data chunk that is absent is taken as zeros (no buffer is needed
  // for it). `out`: parity chunk ids only; parity chunks that are absent are computed into
  // scratch and dropped, so a caller may ask for a subset. Every buffer has the same length,
  // 1 .. INT_MAX bytes; any alignment works (32-byte aligned buffers are fastest).
  // Errors: EINVAL (message names the chunk) for an id out of range, a parity id in `in`, a data
  // id in `out`, unequal or zero lengths, or a length over INT_MAX. Nothing is written then.
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override;

  // Rebuilds every chunk that has a buffer in `out` from the chunks in `in`. A chunk in neither
  // map is simply unavailable (unlike Ceph Tentacle, a missing data chunk is NOT assumed to be
  // zeros: ErasureCode::decode only allocates the wanted chunks, and guessing zeros would then
  // return wrong bytes). Sources are the first k available pieces in piece order, as in Ceph.
  // Errors: EINVAL for ids out of range, an id in both maps, a wanted id in neither map, or bad
  // lengths; EIO when fewer than k chunks are in `in`. `out` contents are unspecified after an
  // error.
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override;

  // Valid after a successful init().
  isa::Technique technique() const { return technique_; }
  // The m x k rows parity is computed with (all ones when m == 1).
  const std::vector<std::uint8_t>& coding_matrix() const { return codec_->coding(); }
  // The shared codec (decode-table cache statistics for tests).
  const gf::MatrixCodec& codec() const { return *codec_; }

 private:
  Status parse(Profile& profile);
  Status check_lengths(const ConstChunkSpans& in, const ChunkSpans& out, std::size_t* len) const;
  bool xor_decodes(int target) const;

  std::shared_ptr<isa::IsaTableCache> tables_;
  isa::Technique technique_ = isa::Technique::kReedSolVan;
  std::shared_ptr<const gf::MatrixCodec> codec_;
};

}  // namespace ec
