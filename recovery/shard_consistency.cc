#include "recovery/shard_consistency.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <set>
#include <string>

#include "ec/buffer.h"
#include "ec/stripe_codec.h"

namespace ec::recovery {

namespace {

using Shards = std::map<int, std::span<const std::byte>>;
using Columns = std::map<int, ConstColumn>;

// Bytes of each shard compared per batch; bounds the scratch whatever the object size.
constexpr std::size_t kBatchBytes = 256 * 1024;

// The one decode failure that is an answer rather than an error: these chunks cannot rebuild
// those (the interface's EIO). Whether a set decodes depends only on its ids, never on the bytes.
bool CannotDecode(const Status& s) {
  return !s.ok() && s.code() == EIO;
}

class Checker {
 public:
  Checker(const ErasureCodeInterface& code, const StripeLayout& layout, std::size_t batch)
      : codec_(code, layout),
        batch_(batch),
        parity_(Buffer::Allocate(layout.m() * batch * layout.chunk_size(), false)),
        candidate_(Buffer::Allocate(layout.chunk_size(), false)) {}

  // Compares `stripes` stripes (at most the batch) of the chunks in `given` with the codeword
  // their data determine. Sets *decodable (false: the missing data pieces cannot be rebuilt, and
  // nothing was compared), bad[s] for each stripe that disagrees, and adds the parity ids that
  // disagree to `mismatched` (if not null).
  Status Compare(const Columns& given, std::uint64_t stripes, bool* decodable,
                 std::vector<bool>* bad, std::set<int>* mismatched) {
    const StripeLayout& layout = codec_.layout();
    const std::size_t c = layout.chunk_size();
    const std::size_t column_bytes = batch_ * c;
    ShardSet missing;
    for (int id : layout.data_ids())
      if (!given.count(id)) missing.insert(id);
    if (rebuilt_.size() < missing.size() * column_bytes)
      rebuilt_ = Buffer::Allocate(missing.size() * column_bytes, false);

    std::vector<ConstColumn> data;
    std::map<int, Column> out;
    for (int id : layout.data_ids()) {
      auto it = given.find(id);
      if (it != given.end()) {
        data.push_back(it->second);
      } else {
        Column col{rebuilt_.data() + out.size() * column_bytes, c};
        out[id] = col;
        data.push_back({col.data, c});
      }
    }
    *decodable = true;
    if (!missing.empty()) {
      Status s = codec_.Decode(missing, given, out, stripes);
      if (CannotDecode(s)) {
        *decodable = false;
        return Status::OK();
      }
      EC_RETURN_IF_ERROR(s);
    }
    std::vector<Column> parity;
    for (std::size_t j = 0; j < layout.m(); ++j)
      parity.push_back({parity_.data() + j * column_bytes, c});
    EC_RETURN_IF_ERROR(codec_.EncodeColumns(data, parity, stripes));

    bad->assign(static_cast<std::size_t>(stripes), false);
    for (std::size_t j = 0; j < layout.m(); ++j) {
      auto it = given.find(layout.parity_ids()[j]);
      if (it == given.end()) continue;
      for (std::uint64_t s = 0; s < stripes; ++s) {
        if (std::memcmp(it->second.data + s * it->second.stride, parity[j].data + s * c, c) != 0) {
          (*bad)[static_cast<std::size_t>(s)] = true;
          if (mismatched != nullptr) mismatched->insert(it->first);
        }
      }
    }
    return Status::OK();
  }

  // Keeps in `candidates` the ids i for which the others rebuild a chunk i that makes stripe
  // `stripe` consistent.
  Status Narrow(const Shards& shards, std::uint64_t stripe, std::set<int>* candidates) {
    const std::size_t c = codec_.layout().chunk_size();
    Columns at;
    for (const auto& [id, bytes] : shards) at[id] = {bytes.data() + stripe * c, c};
    for (auto it = candidates->begin(); it != candidates->end();) {
      const int i = *it;
      Columns others = at;
      others.erase(i);
      const Column rebuilt{candidate_.data(), c};
      Status s = codec_.Decode({i}, others, {{i, rebuilt}}, 1);
      bool keep = false;
      if (!CannotDecode(s)) {
        EC_RETURN_IF_ERROR(s);
        others[i] = {rebuilt.data, c};
        bool decodable = false;
        std::vector<bool> bad;
        EC_RETURN_IF_ERROR(Compare(others, 1, &decodable, &bad, nullptr));
        keep = decodable && !bad[0];
      }
      it = keep ? std::next(it) : candidates->erase(it);
    }
    return Status::OK();
  }

 private:
  StripeCodec codec_;
  std::size_t batch_;  // stripes per batch
  Buffer parity_;      // m columns of batch_ chunks: the encoded parity
  Buffer rebuilt_;     // the missing data pieces, grown on demand
  Buffer candidate_;   // one chunk: a candidate rebuilt from the others
};

}  // namespace

Result<ShardCheck> CheckShards(const ErasureCodeInterface& code, const StripeLayout& layout,
                               std::uint64_t stripes, const Shards& shards) {
  const unsigned n = layout.chunk_count();
  if (n != code.get_chunk_count() || layout.k() != code.get_data_chunk_count() || n == 0 ||
      layout.chunk_size() == 0) {
    return Status::Invalid("the layout (" + std::to_string(layout.k()) + " of " +
                           std::to_string(n) + " chunks) does not describe the code (" +
                           std::to_string(code.get_data_chunk_count()) + " of " +
                           std::to_string(code.get_chunk_count()) + ")");
  }
  const std::size_t c = layout.chunk_size();
  if (stripes > std::numeric_limits<std::size_t>::max() / c)
    return Status::Invalid(std::to_string(stripes) + " stripes do not fit in memory");
  const std::size_t expected = static_cast<std::size_t>(stripes) * c;
  for (const auto& [id, bytes] : shards) {
    if (id < 0 || static_cast<unsigned>(id) >= n) {
      return Status::Invalid("chunk id " + std::to_string(id) + " is out of range [0, " +
                             std::to_string(n) + ")");
    }
    if (bytes.size() != expected) {
      return Status::Invalid("shard " + std::to_string(id) + " has " +
                             std::to_string(bytes.size()) + " bytes, expected " +
                             std::to_string(expected) + " (" + std::to_string(stripes) +
                             " stripes of " + std::to_string(c) + ")");
    }
  }
  ShardCheck result;
  if (shards.size() < std::size_t{layout.k()} + 1) return result;

  const std::size_t batch = static_cast<std::size_t>(
      std::clamp<std::uint64_t>(kBatchBytes / c, 1, std::max<std::uint64_t>(stripes, 1)));
  Checker checker(code, layout, batch);
  std::set<int> candidates;
  for (const auto& [id, bytes] : shards) candidates.insert(id);
  std::set<int> mismatched;
  bool consistent = true;
  for (std::uint64_t first = 0; first < stripes; first += batch) {
    const std::uint64_t count = std::min<std::uint64_t>(batch, stripes - first);
    Columns columns;
    for (const auto& [id, bytes] : shards) columns[id] = {bytes.data() + first * c, c};
    bool decodable = false;
    std::vector<bool> bad;
    EC_RETURN_IF_ERROR(checker.Compare(columns, count, &decodable, &bad, &mismatched));
    if (!decodable) return result;
    for (std::uint64_t s = 0; s < count; ++s) {
      if (!bad[static_cast<std::size_t>(s)]) continue;
      consistent = false;
      // A consistent stripe keeps every candidate, so only the bad ones narrow the set.
      if (!candidates.empty()) EC_RETURN_IF_ERROR(checker.Narrow(shards, first + s, &candidates));
    }
  }
  result.checked = true;
  result.consistent = consistent;
  if (!consistent) {
    result.mismatched.assign(mismatched.begin(), mismatched.end());
    if (candidates.size() == 1) {
      result.located = true;
      result.bad = {*candidates.begin()};
    }
  }
  return result;
}

}  // namespace ec::recovery
