#include "ec/stripe_layout.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "ec/buffer.h"

namespace ec {

Result<StripeLayout> StripeLayout::Make(const ErasureCodeInterface& code, std::uint64_t stripe_unit,
                                        Padding padding) {
  StripeLayout layout;
  layout.k_ = code.get_data_chunk_count();
  layout.chunk_count_ = code.get_chunk_count();
  // get_chunk_size takes the stripe width as an unsigned: that is the largest stripe there is.
  constexpr std::uint64_t kMaxWidth = std::numeric_limits<unsigned>::max();
  if (stripe_unit == 0) return Status::Invalid("invalid stripe unit");
  if (layout.k_ == 0 || layout.chunk_count_ < layout.k_ || stripe_unit > kMaxWidth / layout.k_) {
    return Status::Invalid("invalid stripe unit: k * stripe_unit is too large");
  }
  const std::uint64_t chunk = code.get_chunk_size(static_cast<unsigned>(stripe_unit * layout.k_));
  if (chunk != stripe_unit) {
    return Status::Invalid("invalid stripe unit: the plugin rounds it up to " +
                           std::to_string(chunk));
  }
  layout.chunk_size_ = static_cast<std::size_t>(stripe_unit);
  layout.sub_chunk_count_ = std::max(1u, code.get_sub_chunk_count());
  if (layout.chunk_size_ % layout.sub_chunk_count_ != 0) {
    return Status::Invalid("invalid stripe unit: " + std::to_string(stripe_unit) +
                           " is not a multiple of the sub-chunk count " +
                           std::to_string(layout.sub_chunk_count_));
  }

  // Data piece i lives in chunk mapping[i]; the remaining entries are the parities, in order.
  const std::vector<int>& mapping = code.get_chunk_mapping();
  std::vector<int> order(layout.chunk_count_);
  for (unsigned i = 0; i < layout.chunk_count_; ++i) {
    order[i] = i < mapping.size() ? mapping[i] : static_cast<int>(i);
  }
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (unsigned i = 0; i < layout.chunk_count_; ++i) {
    if (sorted[i] != static_cast<int>(i)) {
      return Status::Invalid("the plugin's chunk mapping is not a permutation of 0.." +
                             std::to_string(layout.chunk_count_ - 1));
    }
  }
  layout.data_ids_.assign(order.begin(), order.begin() + layout.k_);
  layout.parity_ids_.assign(order.begin() + layout.k_, order.end());
  layout.padding_ = padding;
  layout.granularity_ = code.get_minimum_granularity();
  if (padding == Padding::kNone) EC_RETURN_IF_ERROR(layout.FindParityInputs(code));
  return layout;
}

Status StripeLayout::FindParityInputs(const ErasureCodeInterface& code) {
  // Every code here is linear: parity j depends on data piece i exactly when encoding a stripe
  // whose only non-zero piece is i gives a non-zero parity j. The probe's bytes are pseudo-random
  // (fixed seed): a constant fill could cancel out in a bit-matrix code's XORs.
  const std::size_t probe = code.get_chunk_size(k_);
  if (probe == 0) return Status::Invalid("the plugin gives no chunk size for a probe stripe");
  const unsigned m = chunk_count_ - k_;
  parity_first_input_.assign(m, k_);
  std::vector<Buffer> data;
  for (unsigned i = 0; i < k_; ++i) data.push_back(Buffer::Allocate(probe, true));
  std::vector<Buffer> parity;
  for (unsigned j = 0; j < m; ++j) parity.push_back(Buffer::Allocate(probe, true));
  std::uint32_t x = 0x9e3779b9u;
  for (unsigned i = 0; i < k_; ++i) {
    for (unsigned d = 0; d < k_; ++d) std::memset(data[d].data(), 0, probe);
    for (std::size_t b = 0; b < probe; ++b) {
      x ^= x << 13, x ^= x >> 17, x ^= x << 5;
      data[i].data()[b] = static_cast<std::byte>(x | 1);
    }
    ConstChunkSpans in;
    for (unsigned d = 0; d < k_; ++d) in[data_ids_[d]] = {data[d].data(), probe};
    ChunkSpans out;
    for (unsigned j = 0; j < m; ++j) out[parity_ids_[j]] = {parity[j].data(), probe};
    EC_RETURN_IF_ERROR(code.encode_chunks(in, out));
    for (unsigned j = 0; j < m; ++j) {
      const std::byte* p = parity[j].data();
      const bool nonzero = std::any_of(p, p + probe, [](std::byte b) { return b != std::byte{0}; });
      if (nonzero && parity_first_input_[j] == k_) parity_first_input_[j] = i;
    }
  }
  return Status::OK();
}

int StripeLayout::data_index(int id) const {
  for (std::size_t i = 0; i < data_ids_.size(); ++i)
    if (data_ids_[i] == id) return static_cast<int>(i);
  return -1;
}

std::uint64_t StripeLayout::stripes_of(std::uint64_t object_size) const {
  const std::uint64_t width = stripe_width();
  return object_size / width + (object_size % width != 0 ? 1 : 0);
}

std::uint64_t StripeLayout::padded_size(std::uint64_t object_size) const {
  return stripes_of(object_size) * stripe_width();
}

std::uint64_t StripeLayout::padded_shard_size(std::uint64_t object_size) const {
  return stripes_of(object_size) * chunk_size_;
}

std::uint64_t StripeLayout::stored_size(std::uint64_t object_size, int id) const {
  if (id < 0 || static_cast<unsigned>(id) >= chunk_count_) return 0;
  if (padding_ == Padding::kWholeStripes) return padded_shard_size(object_size);
  const std::uint64_t width = stripe_width();
  const std::uint64_t whole = object_size / width * chunk_size_;
  const std::uint64_t rest = object_size % width;
  // What of data piece i the partial last stripe holds.
  auto reach = [&](unsigned i) -> std::uint64_t {
    const std::uint64_t lo = static_cast<std::uint64_t>(i) * chunk_size_;
    return rest <= lo ? 0 : std::min<std::uint64_t>(rest - lo, chunk_size_);
  };
  const int piece = data_index(id);
  if (piece >= 0) return whole + reach(static_cast<unsigned>(piece));
  unsigned j = 0;
  while (j < parity_ids_.size() && parity_ids_[j] != id) ++j;
  const std::uint64_t r = j < parity_first_input_.size() && parity_first_input_[j] < k_
                              ? reach(parity_first_input_[j])
                              : 0;
  if (r == 0) return whole;
  if (granularity_ == 0) return whole + chunk_size_;
  const std::uint64_t rounded = (r + granularity_ - 1) / granularity_ * granularity_;
  return whole + std::min<std::uint64_t>(rounded, chunk_size_);
}

Result<std::uint64_t> StripeLayout::stripes_in_shard(std::uint64_t shard_size) const {
  if (shard_size % chunk_size_ != 0) {
    return Status::Invalid("shard size " + std::to_string(shard_size) +
                           " is not a multiple of the chunk size " + std::to_string(chunk_size_));
  }
  return shard_size / chunk_size_;
}

ShardExtent StripeLayout::locate(std::uint64_t object_offset) const {
  const std::uint64_t stripe = object_offset / stripe_width();
  const std::uint64_t in_stripe = object_offset % stripe_width();
  const std::size_t piece = static_cast<std::size_t>(in_stripe / chunk_size_);
  return {data_ids_[piece], stripe * chunk_size_ + in_stripe % chunk_size_, 1};
}

Result<std::uint64_t> StripeLayout::object_offset(int id, std::uint64_t shard_offset) const {
  const int piece = data_index(id);
  if (piece < 0) {
    return Status::Invalid("chunk " + std::to_string(id) + " holds no object bytes (parity)");
  }
  const std::uint64_t stripe = shard_offset / chunk_size_;
  return stripe * stripe_width() + static_cast<std::uint64_t>(piece) * chunk_size_ +
         shard_offset % chunk_size_;
}

Result<std::vector<ShardExtent>> StripeLayout::data_extents(std::uint64_t offset,
                                                            std::uint64_t length) const {
  if (length > std::numeric_limits<std::uint64_t>::max() - offset) {
    return Status::Invalid("byte range " + std::to_string(offset) + "+" + std::to_string(length) +
                           " overflows");
  }
  std::vector<ShardExtent> extents;
  const std::uint64_t width = stripe_width();
  // Bytes of piece i among object bytes [0, x): whole stripes, then what of piece i the partial
  // stripe reaches. Monotone in x, so the range maps to one contiguous shard extent per piece.
  auto before = [&](unsigned i, std::uint64_t x) {
    const std::uint64_t rest = x % width;
    const std::uint64_t lo = static_cast<std::uint64_t>(i) * chunk_size_;
    const std::uint64_t in_piece = rest <= lo ? 0 : std::min<std::uint64_t>(rest - lo, chunk_size_);
    return x / width * chunk_size_ + in_piece;
  };
  for (unsigned i = 0; i < k_ && length > 0; ++i) {
    const std::uint64_t a = before(i, offset);
    const std::uint64_t b = before(i, offset + length);
    if (a < b) extents.push_back({data_ids_[i], a, b - a});
  }
  return extents;
}

Result<std::vector<ChunkRun>> StripeLayout::chunk_runs(std::uint64_t offset,
                                                       std::uint64_t length) const {
  if (length > std::numeric_limits<std::uint64_t>::max() - offset) {
    return Status::Invalid("byte range " + std::to_string(offset) + "+" + std::to_string(length) +
                           " overflows");
  }
  std::vector<ChunkRun> runs;
  if (length == 0) return runs;
  const std::uint64_t c = chunk_size_;
  std::uint64_t pos = offset;
  const std::uint64_t end = offset + length;
  if (pos % c != 0) {  // partial first stripe
    const std::uint64_t stripe = pos / c;
    const std::uint64_t stop = std::min(end, (stripe + 1) * c);
    runs.push_back(
        {stripe, 1, static_cast<std::size_t>(pos % c), static_cast<std::size_t>(stop - pos)});
    pos = stop;
  }
  if (end - pos >= c) {  // whole stripes
    const std::uint64_t count = (end - pos) / c;
    runs.push_back({pos / c, count, 0, chunk_size_});
    pos += count * c;
  }
  if (pos < end) runs.push_back({pos / c, 1, 0, static_cast<std::size_t>(end - pos)});
  return runs;
}

SubChunkRange StripeLayout::sub_chunks_of(std::size_t offset, std::size_t length) const {
  const std::size_t sub = sub_chunk_size();
  const std::size_t first = offset / sub;
  const std::size_t last = (offset + std::max<std::size_t>(length, 1) - 1) / sub;
  return {static_cast<int>(first), static_cast<int>(last - first + 1)};
}

}  // namespace ec
