// RepetitionCode: the code of a replicated pool (issue 30). k = 1 data chunk and m = copies - 1
// "parity" chunks that are byte-for-byte copies of it: every chunk holds the whole stripe, so every
// shard holds the whole object.
//
//   stripe   |<-- stripe_width = C -->|      (k = 1: the stripe is one chunk)
//   chunks   | chunk 0 | chunk 1 | ... | chunk copies-1 |     each a copy of the stripe
//   shards   shard i = the object's bytes, for every i
//
// With it a replicated pool is the erasure-code machinery unchanged (osd/pg: versions, undo
// records, peering, recovery, backfill, scrub, PG states): minimum_to_decode of a lost chunk names
// ONE other chunk (the base's k cheapest chunks, k = 1: the cheapest replica), and decode is a
// copy of it: recovery reads one copy of the bytes and does no arithmetic. It is an MDS code of
// distance `copies`, so a deep scrub (recovery/shard_consistency.h) names the odd replica out when
// copies >= 3 (with 2 copies a mismatch is found but not located).
//
// It is not a plugin and is not in the plugin registry: no erasure-code profile reaches it
// (`plugin=replicated` is an unknown plugin); only a pool whose map record says "replicated"
// gets one (osd/pg/pool_codecs.h). Its profile, for messages, is {"plugin": "replicated",
// "size": N}.
//
// Chunk sizes: any stripe width is its own chunk size (no alignment), and every byte of a copy
// depends only on the same byte of the data (get_minimum_granularity() == 1), so a shard without
// padding stores exactly the object's bytes (ec/stripe_layout.h Padding::kNone).
//
// Errors: init and MakeRepetitionCode: EINVAL "size=N must be between 1 and 64" (or not a number);
// encode/decode as ErasureCodeInterface (EINVAL for bad buffers, EIO with no chunk to copy from).
// Thread safety: as ErasureCodeInterface: immutable after init.
#pragma once

#include "ec/erasure_code.h"

namespace ec {

class RepetitionCode : public ErasureCode {
 public:
  // The most copies a code may have (a pool is limited further: cluster/map).
  static constexpr unsigned kMaxCopies = 64;

  // Reads "size" (the number of copies, 1..kMaxCopies) from `profile`; writes back "plugin" =
  // "replicated" and the crush-* defaults.
  Status init(Profile& profile) override;
  // The stripe width itself: a chunk is the whole stripe.
  unsigned get_chunk_size(unsigned stripe_width) const override { return stripe_width; }
  std::size_t get_minimum_granularity() const override { return 1; }
  // Copies the data chunk (id 0; zeros when absent) into every output.
  Status encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const override;
  // Copies any one input chunk into every output. EIO when `in` is empty.
  Status decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                       const ChunkSpans& out) const override;
};

// A repetition code of `copies` chunks, initialised. Errors: init's.
Result<ErasureCodeInterfaceRef> MakeRepetitionCode(unsigned copies);

}  // namespace ec
