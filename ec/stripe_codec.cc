#include "ec/stripe_codec.h"

#include <cstring>
#include <string>

namespace ec {

namespace {

Status StripeError(std::uint64_t stripe, const Status& s) {
  return s.WithPrefix("stripe " + std::to_string(stripe));
}

}  // namespace

std::size_t StripeCodec::HelperBytes(const std::vector<SubChunkRange>& ranges) const {
  std::size_t count = 0;
  for (const auto& [first, n] : ranges) count += static_cast<std::size_t>(n);
  return count * layout_.sub_chunk_size();
}

Status StripeCodec::EncodeColumns(std::span<const ConstColumn> data, std::span<const Column> parity,
                                  std::uint64_t stripes) const {
  const std::size_t c = layout_.chunk_size();
  if (data.size() != layout_.k() || parity.size() != layout_.m()) {
    return Status::Invalid("encode takes " + std::to_string(layout_.k()) + " data and " +
                           std::to_string(layout_.m()) + " parity columns, got " +
                           std::to_string(data.size()) + " and " + std::to_string(parity.size()));
  }
  if (stripes == 0) return Status::OK();
  for (const ConstColumn& col : data) {
    if (col.data == nullptr || (stripes > 1 && col.stride < c))
      return Status::Invalid("encode: a data column is null or its stride is below the chunk size");
  }
  for (const Column& col : parity) {
    if (col.data == nullptr || (stripes > 1 && col.stride < c))
      return Status::Invalid(
          "encode: a parity column is null or its stride is below the chunk size");
  }
  // The maps handed to encode_chunks are built once; each stripe only repoints their spans.
  ConstChunkSpans in;
  ChunkSpans out;
  std::vector<std::span<const std::byte>*> in_slots;
  std::vector<std::span<std::byte>*> out_slots;
  for (int id : layout_.data_ids()) in_slots.push_back(&in[id]);
  for (int id : layout_.parity_ids()) out_slots.push_back(&out[id]);
  for (std::uint64_t s = 0; s < stripes; ++s) {
    for (std::size_t i = 0; i < in_slots.size(); ++i)
      *in_slots[i] = {data[i].data + s * data[i].stride, c};
    for (std::size_t j = 0; j < out_slots.size(); ++j) {
      *out_slots[j] = {parity[j].data + s * parity[j].stride, c};
    }
    Status st = code_.encode_chunks(in, out);
    if (!st.ok()) return StripeError(s, st);
  }
  return Status::OK();
}

Status StripeCodec::EncodeObject(std::span<const std::byte> data, std::uint64_t stripes,
                                 std::span<const std::span<std::byte>> parity) const {
  const std::size_t c = layout_.chunk_size();
  if (stripes > data.size() / layout_.stripe_width()) {
    return Status::Invalid("encode: " + std::to_string(data.size()) + " bytes hold fewer than " +
                           std::to_string(stripes) + " stripes of " +
                           std::to_string(layout_.stripe_width()));
  }
  std::vector<ConstColumn> in;
  for (unsigned i = 0; i < layout_.k(); ++i) in.push_back(DataColumn(data.data(), i));
  std::vector<Column> out;
  for (const auto& p : parity) {
    if (stripes > p.size() / c) {
      return Status::Invalid("encode: a parity buffer of " + std::to_string(p.size()) +
                             " bytes is too small for " + std::to_string(stripes) + " chunks");
    }
    out.push_back({p.data(), c});
  }
  return EncodeColumns(in, out, stripes);
}

Status StripeCodec::EncodeShards(std::span<const std::span<const std::byte>> data,
                                 std::uint64_t stripes,
                                 std::span<const std::span<std::byte>> parity) const {
  const std::size_t c = layout_.chunk_size();
  std::vector<ConstColumn> in;
  for (const auto& d : data) {
    if (stripes > d.size() / c) {
      return Status::Invalid("encode: a data shard of " + std::to_string(d.size()) +
                             " bytes is too small for " + std::to_string(stripes) + " chunks");
    }
    in.push_back({d.data(), c});
  }
  std::vector<Column> out;
  for (const auto& p : parity) {
    if (stripes > p.size() / c) {
      return Status::Invalid("encode: a parity shard of " + std::to_string(p.size()) +
                             " bytes is too small for " + std::to_string(stripes) + " chunks");
    }
    out.push_back({p.data(), c});
  }
  return EncodeColumns(in, out, stripes);
}

Result<std::vector<Buffer>> StripeCodec::EncodeToShards(std::span<const std::byte> object) const {
  const std::size_t c = layout_.chunk_size();
  const std::uint64_t stripes = layout_.stripes_of(object.size());
  std::vector<Buffer> shards(layout_.chunk_count());
  for (auto& shard : shards) shard = Buffer::Allocate(static_cast<std::size_t>(stripes * c), false);
  std::vector<std::span<const std::byte>> data;
  for (unsigned i = 0; i < layout_.k(); ++i) {
    Buffer& shard = shards[static_cast<std::size_t>(layout_.data_ids()[i])];
    for (std::uint64_t s = 0; s < stripes; ++s) {
      // Object bytes of piece i of stripe s, zeros past the end of the object.
      const std::uint64_t start = s * layout_.stripe_width() + std::uint64_t{i} * c;
      const std::size_t have =
          start >= object.size()
              ? 0
              : static_cast<std::size_t>(std::min<std::uint64_t>(c, object.size() - start));
      std::byte* dst = shard.data() + s * c;
      if (have > 0) std::memcpy(dst, object.data() + start, have);
      std::memset(dst + have, 0, c - have);
    }
    data.push_back(shard.span());
  }
  std::vector<std::span<std::byte>> parity;
  for (int id : layout_.parity_ids()) parity.push_back(shards[static_cast<std::size_t>(id)].span());
  EC_RETURN_IF_ERROR(EncodeShards(data, stripes, parity));
  return shards;
}

Status StripeCodec::Decode(const ShardSet& want, const std::map<int, ConstColumn>& in,
                           const std::map<int, Column>& out, std::uint64_t stripes) const {
  const std::size_t c = layout_.chunk_size();
  for (int id : want) {
    if (!in.count(id) && !out.count(id))
      return Status::Invalid("decode: wanted chunk " + std::to_string(id) + " has no column");
  }
  ConstChunkSpans in_spans;
  ChunkSpans out_spans;
  std::vector<std::pair<std::span<const std::byte>*, ConstColumn>> in_slots;
  std::vector<std::pair<std::span<std::byte>*, Column>> out_slots;
  for (const auto& [id, col] : in) in_slots.emplace_back(&in_spans[id], col);
  for (const auto& [id, col] : out) out_slots.emplace_back(&out_spans[id], col);
  for (std::uint64_t s = 0; s < stripes; ++s) {
    for (auto& [slot, col] : in_slots) *slot = {col.data + s * col.stride, c};
    for (auto& [slot, col] : out_slots) *slot = {col.data + s * col.stride, c};
    Status st = code_.decode_chunks(want, in_spans, out_spans);
    if (!st.ok()) return StripeError(s, st);
  }
  return Status::OK();
}

Status StripeCodec::Repair(int lost, SubChunkRange range, const SubChunkPlan& plan, bool native,
                           const std::map<int, ConstColumn>& helpers, Column out,
                           std::uint64_t stripes) const {
  const std::size_t c = layout_.chunk_size();
  const std::size_t sub = layout_.sub_chunk_size();
  const int z = static_cast<int>(layout_.sub_chunk_count());
  if (range.first < 0 || range.second < 1 || range.first > z - range.second) {
    return Status::Invalid("repair: sub-chunk range (" + std::to_string(range.first) + "," +
                           std::to_string(range.second) + ") is not inside [0," +
                           std::to_string(z) + ")");
  }
  if (!native && range.second != z) {
    return Status::Invalid(
        "repair: without the code's sub-chunk repair only whole chunks are "
        "rebuilt");
  }
  const std::size_t out_bytes = static_cast<std::size_t>(range.second) * sub;
  std::vector<std::pair<int, std::size_t>> sizes;  // helper -> bytes per stripe
  for (const auto& [id, ranges] : plan) {
    if (!helpers.count(id))
      return Status::Invalid("repair: no column for helper chunk " + std::to_string(id));
    sizes.emplace_back(id, HelperBytes(ranges));
  }
  if (sizes.size() != helpers.size())
    return Status::Invalid("repair: the helper columns do not match the plan");

  if (native) {
    ConstChunkSpans spans;
    std::vector<std::pair<std::span<const std::byte>*, std::pair<ConstColumn, std::size_t>>> slots;
    for (const auto& [id, bytes] : sizes) slots.push_back({&spans[id], {helpers.at(id), bytes}});
    for (std::uint64_t s = 0; s < stripes; ++s) {
      for (auto& [slot, col] : slots) *slot = {col.first.data + s * col.first.stride, col.second};
      Status st =
          code_.repair_sub_chunks(lost, range, spans, c, {out.data + s * out.stride, out_bytes});
      if (!st.ok()) return StripeError(s, st);
    }
    return Status::OK();
  }
  // The generic path: decode() takes owned buffers and returns the rebuilt chunk in a new one.
  std::size_t total = 0;
  for (const auto& [id, bytes] : sizes) total += bytes;
  Buffer staging = Buffer::Allocate(std::max<std::size_t>(total, 1), false);
  ChunkMap chunks;
  std::size_t pos = 0;
  for (const auto& [id, bytes] : sizes) {
    chunks[id] = staging.Slice(pos, bytes);
    pos += bytes;
  }
  const ShardSet want = {lost};
  for (std::uint64_t s = 0; s < stripes; ++s) {
    for (const auto& [id, bytes] : sizes) {
      std::memcpy(chunks[id].data(), helpers.at(id).data + s * helpers.at(id).stride, bytes);
    }
    ChunkMap decoded;
    Status st = code_.decode(want, chunks, &decoded, c);
    if (!st.ok()) return StripeError(s, st);
    auto it = decoded.find(lost);
    if (it == decoded.end() || it->second.size() != c) {
      return StripeError(s,
                         Status::IOError("the code did not rebuild chunk " + std::to_string(lost)));
    }
    std::memcpy(out.data + s * out.stride, it->second.data(), c);
  }
  return Status::OK();
}

}  // namespace ec
