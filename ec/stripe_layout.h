// StripeLayout: where every byte of an object goes, for one code and one stripe unit.
//
//   object     |<------------------------- object_size bytes --------------------------->|
//   stripes    |<-- stripe 0: stripe_width = k * C -->|<-- stripe 1 -->| ... | last, zero-padded
//   pieces     stripe s = | piece 0 | piece 1 | ... | piece k-1 |       (C = chunk_size bytes each)
//   chunks     piece i of every stripe is chunk id data_ids[i]; the code computes the m parity
//              chunks, parity j being chunk id parity_ids[j] (Ceph's `mapping`; identity without
//              it)
//   shards     shard c = chunk c of every stripe, concatenated: chunk c of stripe s is shard bytes
//              [s*C, (s+1)*C)
//   sub-chunks chunk = sub_chunk_count sub-chunks of S = C / sub_chunk_count bytes (1 for scalar
//              codes, q^t for CLAY); sub-chunk z of stripe s is shard bytes [s*C + z*S, +S)
//
// The stripe unit is the chunk size: a layout exists only for a stripe unit that the plugin does
// not round up (get_chunk_size(k * stripe_unit) == stripe_unit), so that every stripe is exactly
// k chunks and a shard of N stripes is exactly N * C bytes.
//
// Padding. Ceph's legacy layout stores every shard whole: stripes_of(size) * C bytes, the last
// stripe zero-padded (Padding::kWholeStripes, ec-tool's files and pools made before issue 28).
// Without padding (Padding::kNone, Ceph's Fast EC "zero padding removal"), a shard stores only
// the bytes the object's data reaches in it: a data chunk ends where the object does, and a parity
// chunk of the last stripe ends where the data it is computed from does (rounded up to the code's
// granularity, get_minimum_granularity(); the whole chunk for codes without one, CLAY). The bytes
// left out are zeros in the padded layout, so padding each stored shard back with zeros to
// padded_shard_size() gives exactly Ceph's bytes: readers read stored_size() bytes of a shard and
// take the rest as zeros, never reading or sending them.
//
// Offsets: "object offsets" count bytes of the object (0 .. object size), "shard offsets" bytes of
// one shard file/object, "chunk offsets" bytes inside one chunk (0 .. C).
//
// Errors are Status values (EINVAL) with a message meant for a person; nothing here throws or
// aborts on bad numbers (overflowing ranges are refused).
// Thread safety: an immutable value; any number of threads may use one layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"

namespace ec {

// A byte extent of one shard.
struct ShardExtent {
  int shard = 0;             // chunk id
  std::uint64_t offset = 0;  // shard offset
  std::uint64_t length = 0;
  bool operator==(const ShardExtent&) const = default;
};

// Stripes [first_stripe, first_stripe + stripes) that each need chunk bytes [offset, offset +
// length) of a shard.
struct ChunkRun {
  std::uint64_t first_stripe = 0;
  std::uint64_t stripes = 0;
  std::size_t offset = 0;  // chunk offset
  std::size_t length = 0;
  bool operator==(const ChunkRun&) const = default;
};

enum class Padding {
  kWholeStripes,  // every shard stores whole chunks (Ceph's legacy layout)
  kNone,          // every shard stores what the object's data reaches (see above)
};

class StripeLayout {
 public:
  StripeLayout() = default;

  // The layout of `code` with `stripe_unit` bytes per chunk. Errors (EINVAL), as ec-tool prints
  // them: "invalid stripe unit" (0), "invalid stripe unit: k * stripe_unit is too large" (above
  // 4 GiB - 1, the interface's stripe width limit), "invalid stripe unit: the plugin rounds it up
  // to N", "invalid stripe unit: N is not a multiple of the sub-chunk count Z" (a plugin whose
  // chunk sizes break its own sub-chunking), "the plugin's chunk mapping is not a permutation of
  // 0..n-1". With Padding::kNone it also finds which data pieces each parity chunk is computed
  // from (one encode per data piece of a small probe stripe; LRC's local parities and SHEC's read
  // only some), so that a parity whose inputs are all past the object's end stores nothing; the
  // code's encode errors fail it.
  static Result<StripeLayout> Make(const ErasureCodeInterface& code, std::uint64_t stripe_unit,
                                   Padding padding = Padding::kWholeStripes);

  unsigned k() const { return k_; }
  unsigned m() const { return chunk_count_ - k_; }
  unsigned chunk_count() const { return chunk_count_; }
  std::size_t stripe_unit() const { return chunk_size_; }
  std::size_t chunk_size() const { return chunk_size_; }
  std::size_t stripe_width() const { return chunk_size_ * k_; }
  // Data piece i -> chunk id (k entries); parity j -> chunk id (m entries).
  const std::vector<int>& data_ids() const { return data_ids_; }
  const std::vector<int>& parity_ids() const { return parity_ids_; }
  // The data piece of chunk `id`, or -1 for a parity chunk or an id out of range.
  int data_index(int id) const;
  unsigned sub_chunk_count() const { return sub_chunk_count_; }
  std::size_t sub_chunk_size() const { return chunk_size_ / sub_chunk_count_; }

  // --- object size <-> stripes <-> shard size ---
  // Stripes an object of `object_size` bytes occupies (the last one padded).
  std::uint64_t stripes_of(std::uint64_t object_size) const;
  // stripes_of(object_size) * stripe_width and * chunk_size. Precondition: the result fits in 64
  // bits (object_size below 2^64 - stripe_width).
  std::uint64_t padded_size(std::uint64_t object_size) const;
  // The padded shard: what readers and the repair engine address (stripes * C bytes).
  std::uint64_t padded_shard_size(std::uint64_t object_size) const;
  // The bytes chunk `id`'s shard stores for an object of `object_size` bytes: padded_shard_size
  // with Padding::kWholeStripes; without padding see the file comment (a data shard's share of
  // the object; a parity shard: the whole stripes, then in the last stripe the reach of the first
  // data piece it is computed from, rounded up to the granularity and at most C). Any other
  // length found on a shard is wrong (an I/O error of that shard). 0 for an id out of range.
  std::uint64_t stored_size(std::uint64_t object_size, int id) const;
  Padding padding() const { return padding_; }
  // The code's get_minimum_granularity() (0: whole chunks).
  std::size_t granularity() const { return granularity_; }
  // The stripes in a shard of `shard_size` bytes. EINVAL "shard size N is not a multiple of the
  // chunk size C" otherwise.
  Result<std::uint64_t> stripes_in_shard(std::uint64_t shard_size) const;

  // --- object offsets <-> shard offsets ---
  // Where object byte `object_offset` lives: {chunk id, shard offset, length 1}.
  ShardExtent locate(std::uint64_t object_offset) const;
  // The object offset of byte `shard_offset` of data chunk `id`; EINVAL for a parity chunk.
  Result<std::uint64_t> object_offset(int id, std::uint64_t shard_offset) const;
  // The shard extents holding object bytes [offset, offset + length): at most one extent per data
  // chunk (a data shard holds a contiguous part of any contiguous range), in data piece order,
  // empty ones left out. Read them and interleave per stripe to get the bytes back.
  // EINVAL when offset + length overflows.
  Result<std::vector<ShardExtent>> data_extents(std::uint64_t offset, std::uint64_t length) const;

  // --- shard offsets <-> stripes and chunk bytes <-> sub-chunks ---
  // Cuts shard bytes [offset, offset + length) into at most three runs: a partial first stripe,
  // whole stripes, a partial last stripe (fewer when the ends are chunk-aligned or the range lies
  // in one stripe). Empty for length 0. EINVAL when offset + length overflows.
  Result<std::vector<ChunkRun>> chunk_runs(std::uint64_t offset, std::uint64_t length) const;
  // The sub-chunks covering chunk bytes [offset, offset + length) (length >= 1, offset + length
  // <= C): (first sub-chunk, count).
  SubChunkRange sub_chunks_of(std::size_t offset, std::size_t length) const;

 private:
  Status FindParityInputs(const ErasureCodeInterface& code);

  unsigned k_ = 0;
  unsigned chunk_count_ = 0;
  std::size_t chunk_size_ = 0;
  unsigned sub_chunk_count_ = 1;
  std::vector<int> data_ids_;
  std::vector<int> parity_ids_;
  Padding padding_ = Padding::kWholeStripes;
  std::size_t granularity_ = 0;
  // Padding::kNone: per parity j (parity_ids_ order), the lowest data piece it is computed from
  // (k when none: it is always zeros). The lowest one reaches furthest into a partial stripe.
  std::vector<unsigned> parity_first_input_;
};

}  // namespace ec
