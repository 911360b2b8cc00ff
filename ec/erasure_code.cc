#include "ec/erasure_code.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace ec {

Status ErasureCode::check_ids(const ShardSet& ids, const char* what) const {
  const unsigned n = get_chunk_count();
  for (int id : ids) {
    if (id < 0 || static_cast<unsigned>(id) >= n) {
      return Status::Invalid(std::string(what) + " chunk id " + std::to_string(id) +
                             " is out of range [0," + std::to_string(n) + ")");
    }
  }
  return Status::OK();
}

int ErasureCode::piece_index(int id) const {
  if (chunk_mapping_.empty()) return id;
  for (std::size_t i = 0; i < chunk_mapping_.size(); ++i)
    if (chunk_mapping_[i] == id) return static_cast<int>(i);
  return id;
}

Status ErasureCode::init_base(Profile& profile) {
  EC_RETURN_IF_ERROR(ProfileToString("crush-root", profile, &rule_root_, "default"));
  EC_RETURN_IF_ERROR(
      ProfileToString("crush-failure-domain", profile, &rule_failure_domain_, "host"));
  EC_RETURN_IF_ERROR(ProfileToString("crush-device-class", profile, &rule_device_class_, ""));
  return Status::OK();
}

void ErasureCode::parse_mapping(const Profile& profile) {
  chunk_mapping_.clear();
  auto it = profile.find("mapping");
  if (it == profile.end()) return;
  std::vector<int> others;
  int position = 0;
  for (char c : it->second) {
    if (c == 'D')
      chunk_mapping_.push_back(position);
    else
      others.push_back(position);
    ++position;
  }
  chunk_mapping_.insert(chunk_mapping_.end(), others.begin(), others.end());
}

Status ErasureCode::sanity_check_k_m(int k, int m) {
  if (k < 2) return Status::Invalid("k=" + std::to_string(k) + " must be >= 2");
  if (m < 1) return Status::Invalid("m=" + std::to_string(m) + " must be >= 1");
  return Status::OK();
}

Status ErasureCode::check_buffers(const ConstChunkSpans& in, const ChunkSpans& out,
                                  std::size_t* length) const {
  const unsigned n = get_chunk_count();
  std::size_t len = 0;
  bool first = true;
  auto check = [&](int id, std::size_t size, const char* what) -> Status {
    if (id < 0 || static_cast<unsigned>(id) >= n) {
      return Status::Invalid(std::string(what) + " chunk id " + std::to_string(id) +
                             " is out of range [0," + std::to_string(n) + ")");
    }
    if (first) {
      len = size;
      first = false;
    } else if (size != len) {
      return Status::Invalid("chunk " + std::to_string(id) + " has " + std::to_string(size) +
                             " bytes, expected " + std::to_string(len) + " like the other chunks");
    }
    return Status::OK();
  };
  for (const auto& [id, span] : in) EC_RETURN_IF_ERROR(check(id, span.size(), "input"));
  for (const auto& [id, span] : out) {
    EC_RETURN_IF_ERROR(check(id, span.size(), "output"));
    if (in.count(id)) {
      return Status::Invalid("chunk " + std::to_string(id) + " is both an input and an output");
    }
  }
  if (first || len == 0) return Status::Invalid("chunks must not be empty");
  *length = len;
  return Status::OK();
}

Result<SubChunkPlan> ErasureCode::minimum_to_decode(const ShardSet& want,
                                                    const ShardSet& available) const {
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(available, "available"));
  const std::vector<SubChunkRange> whole = {{0, static_cast<int>(get_sub_chunk_count())}};
  SubChunkPlan plan;
  if (std::includes(available.begin(), available.end(), want.begin(), want.end())) {
    for (int id : want) plan[id] = whole;
    return plan;
  }
  if (available.size() < k_) {
    return Status::IOError("need " + std::to_string(k_) + " chunks to decode, only " +
                           std::to_string(available.size()) + " available");
  }
  for (int id : available) {
    if (plan.size() == k_) break;
    plan[id] = whole;
  }
  return plan;
}

Result<ShardSet> ErasureCode::minimum_to_decode_with_cost(
    const ShardSet& want, const std::map<int, int>& available) const {
  ShardSet ids;
  for (const auto& [id, cost] : available) ids.insert(id);
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(ids, "available"));
  if (std::includes(ids.begin(), ids.end(), want.begin(), want.end())) return want;
  return cheapest_to_decode(want, available);
}

Result<ShardSet> ErasureCode::cheapest_to_decode(const ShardSet& want,
                                                 const std::map<int, int>& available) const {
  if (available.size() < k_) {
    return Status::IOError("need " + std::to_string(k_) + " chunks to decode, only " +
                           std::to_string(available.size()) + " available");
  }
  // Any k chunks decode an MDS code, so the cheapest plan is the k cheapest chunks; on equal cost
  // prefer a wanted chunk (no decode work for it), then the lower id.
  std::vector<std::tuple<int, int, int>> order;
  for (const auto& [id, cost] : available) order.emplace_back(cost, want.count(id) ? 0 : 1, id);
  std::sort(order.begin(), order.end());
  ShardSet chosen;
  for (unsigned i = 0; i < k_; ++i) chosen.insert(std::get<2>(order[i]));
  return chosen;
}

Status ErasureCode::encode(const ShardSet& want, std::span<const std::byte> in,
                           ChunkMap* encoded) const {
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  if (in.empty()) return Status::Invalid("cannot encode an empty stripe");
  const unsigned n = get_chunk_count();
  const std::size_t blocksize = get_chunk_size(static_cast<unsigned>(in.size()));
  if (blocksize == 0 || blocksize * k_ < in.size()) {
    return Status::Invalid("chunk size " + std::to_string(blocksize) + " cannot hold " +
                           std::to_string(in.size()) + " bytes");
  }
  // One aligned allocation for all chunks: data pieces first (the padded stripe), then parity.
  Buffer all = Buffer::Allocate(blocksize * n, false);
  std::memcpy(all.data(), in.data(), in.size());
  std::memset(all.data() + in.size(), 0, blocksize * k_ - in.size());
  ConstChunkSpans data;
  ChunkSpans parity;
  for (unsigned i = 0; i < n; ++i) {
    std::span<std::byte> piece(all.data() + i * blocksize, blocksize);
    if (i < k_)
      data[chunk_index(i)] = piece;
    else
      parity[chunk_index(i)] = piece;
  }
  EC_RETURN_IF_ERROR(encode_chunks(data, parity));
  encoded->clear();
  for (unsigned i = 0; i < n; ++i) {
    int id = chunk_index(i);
    if (want.count(id)) (*encoded)[id] = all.Slice(i * blocksize, blocksize);
  }
  return Status::OK();
}

Status ErasureCode::decode_full(const ShardSet& want, const ChunkMap& chunks,
                                ChunkMap* decoded) const {
  ShardSet have;
  for (const auto& [id, buf] : chunks) have.insert(id);
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(have, "available"));
  std::size_t len = 0;
  for (const auto& [id, buf] : chunks) {
    if (buf.empty()) return Status::Invalid("chunk " + std::to_string(id) + " is empty");
    if (len == 0) len = buf.size();
    if (buf.size() != len) {
      return Status::Invalid("chunk " + std::to_string(id) + " has " + std::to_string(buf.size()) +
                             " bytes, expected " + std::to_string(len) + " like the other chunks");
    }
  }
  decoded->clear();
  ShardSet missing;
  for (int id : want) {
    auto it = chunks.find(id);
    if (it != chunks.end())
      (*decoded)[id] = it->second;
    else
      missing.insert(id);
  }
  if (missing.empty()) return Status::OK();
  if (chunks.empty()) return Status::IOError("no chunks to decode from");
  Buffer rebuilt = Buffer::Allocate(len * missing.size(), false);
  ConstChunkSpans in;
  ChunkSpans out;
  for (const auto& [id, buf] : chunks) in[id] = buf.span();
  std::size_t slot = 0;
  for (int id : missing) {
    (*decoded)[id] = rebuilt.Slice(slot * len, len);
    out[id] = (*decoded)[id].span();
    ++slot;
  }
  Status s = decode_chunks(want, in, out);
  if (!s.ok()) decoded->clear();
  return s;
}

Status ErasureCode::decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                           std::size_t /*chunk_size*/) const {
  return decode_full(want, chunks, decoded);
}

Status ErasureCode::decode_concat(const ShardSet& want, const ChunkMap& chunks, Buffer* out) const {
  ShardSet wanted_ids;
  for (unsigned i = 0; i < k_; ++i) {
    int id = chunk_index(i);
    if (want.empty() || want.count(id)) wanted_ids.insert(id);
  }
  std::size_t chunk_size = chunks.empty() ? 0 : chunks.begin()->second.size();
  ChunkMap decoded;
  EC_RETURN_IF_ERROR(decode(wanted_ids, chunks, &decoded, chunk_size));
  std::size_t total = 0;
  for (int id : wanted_ids) total += decoded[id].size();
  Buffer result = Buffer::Allocate(total, false);
  std::size_t off = 0;
  for (unsigned i = 0; i < k_; ++i) {
    int id = chunk_index(i);
    if (!wanted_ids.count(id)) continue;
    const Buffer& b = decoded[id];
    std::memcpy(result.data() + off, b.data(), b.size());
    off += b.size();
  }
  *out = result;
  return Status::OK();
}

}  // namespace ec
