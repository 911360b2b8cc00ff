// StripeCodec: encode and decode many stripes at once, on buffers the caller owns (see
// ec/stripe_layout.h for the picture of object -> stripes -> chunks -> sub-chunks).
//
// Buffers are "columns": chunk c of stripe s lives at column.data + s * column.stride. Two common
// shapes:
//   - the object itself (stripe-major): data piece i of the stripes is the column
//     {object + i*C, stride W}; no copy is needed to encode straight from a read buffer;
//   - a shard buffer (chunk-major): {shard, stride C}, chunk of stripe s at s*C.
// The codec calls the code once per stripe with views into the columns (encode_chunks,
// decode_chunks, repair_sub_chunks / decode): nothing is copied except where the code's own
// interface requires it (a code without repair_sub_chunks returns rebuilt chunks in new buffers,
// which are copied into the caller's column).
//
// Errors: EINVAL for buffers that do not fit (ids, sizes, strides: checked before any byte is
// written), the code's own errors otherwise (prefixed with "stripe N: "). On an error the output
// columns may hold the results of the stripes before the failing one.
// Thread safety: a StripeCodec is immutable; several threads may use one, each on its own output
// buffers. `code` must outlive the codec (the layout is copied).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"

namespace ec {

// Chunk of stripe s at data + s * stride (`length` bytes each, length given by the call).
struct ConstColumn {
  const std::byte* data = nullptr;
  std::size_t stride = 0;
};
struct Column {
  std::byte* data = nullptr;
  std::size_t stride = 0;
};

class StripeCodec {
 public:
  StripeCodec(const ErasureCodeInterface& code, const StripeLayout& layout)
      : code_(code), layout_(layout) {}

  const StripeLayout& layout() const { return layout_; }

  // Encodes `stripes` stripes of the object laid out as it is (`data` holds stripes * W bytes:
  // the stripes, already padded). parity[j] receives chunk parity_ids[j] of every stripe as a
  // shard (stripes * C bytes each, m buffers). The data shards are not copied: data piece i of
  // stripe s is data[s*W + i*C, +C) (see DataColumn).
  Status EncodeObject(std::span<const std::byte> data, std::uint64_t stripes,
                      std::span<const std::span<std::byte>> parity) const;
  // Encodes shard-major data: data[i] is shard data_ids[i] (stripes * C bytes), parity[j] shard
  // parity_ids[j] (stripes * C bytes).
  Status EncodeShards(std::span<const std::span<const std::byte>> data, std::uint64_t stripes,
                      std::span<const std::span<std::byte>> parity) const;
  // The general form: data columns by data piece, parity columns by parity index.
  Status EncodeColumns(std::span<const ConstColumn> data, std::span<const Column> parity,
                       std::uint64_t stripes) const;
  // Convenience for callers that want every shard in its own buffer (e.g. to store shards):
  // pads `object` with zeros to whole stripes and returns the k+m shards by chunk id. Copies the
  // data chunks once.
  Result<std::vector<Buffer>> EncodeToShards(std::span<const std::byte> object) const;

  // Data piece i of an object buffer laid out stripe after stripe.
  ConstColumn DataColumn(const std::byte* object, unsigned piece) const {
    return {object + piece * layout_.chunk_size(), layout_.stripe_width()};
  }

  // Rebuilds, for `stripes` stripes, the whole chunks in `out` (chunk id -> column) from the whole
  // chunks in `in` (chunk id -> column), chunk_size bytes each: decode_chunks(want, ...) per
  // stripe. `want` must be covered by in + out. Errors: EINVAL (ids, a chunk both in and out),
  // EIO when `in` cannot rebuild `out` (the code's message).
  Status Decode(const ShardSet& want, const std::map<int, ConstColumn>& in,
                const std::map<int, Column>& out, std::uint64_t stripes) const;

  // Sub-chunk repair of `stripes` stripes: rebuilds sub-chunks [range.first, +range.second) of
  // chunk `lost` into out (range.second * S bytes per stripe, at out.data + s * out.stride) from
  // `helpers` (chunk id -> column holding, per stripe, the concatenation of the sub-chunks `plan`
  // lists for that helper). `plan` is what the code planned: minimum_to_repair(lost, range,
  // helpers) when `native` (the code's repair_sub_chunks runs), else minimum_to_decode({lost},
  // helpers) with range = all sub-chunks (the code's decode() runs and its result is copied).
  // Errors: EINVAL for mismatching sizes, the code's errors.
  Status Repair(int lost, SubChunkRange range, const SubChunkPlan& plan, bool native,
                const std::map<int, ConstColumn>& helpers, Column out, std::uint64_t stripes) const;

  // Bytes a helper sends per stripe under `ranges` (sum of the sub-chunk counts times S).
  std::size_t HelperBytes(const std::vector<SubChunkRange>& ranges) const;

 private:
  const ErasureCodeInterface& code_;
  StripeLayout layout_;
};

}  // namespace ec
