#include "plugins/jerasure/jerasure_code.h"

#include <algorithm>
#include <array>
#include <mutex>

#include "ec/galois_fields.h"

namespace ec::jerasure {

bool IsPrime(int value) {
  static constexpr int kPrimes[] = {
      2,   3,   5,   7,   11,  13,  17,  19,  23,  29,  31,  37,  41,  43,  47,  53,  59,  61,  67,
      71,  73,  79,  83,  89,  97,  101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163,
      167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239, 241, 251, 257};
  return std::find(std::begin(kPrimes), std::end(kPrimes), value) != std::end(kPrimes);
}

void InitErrors::Add(const Status& s) {
  if (!s.ok()) Add(s.code(), s.message());
}

void InitErrors::Add(int errno_value, std::string message) {
  if (code_ == 0) code_ = errno_value;
  if (!message_.empty()) message_ += "\n";
  message_ += message;
}

Status InitErrors::ToStatus() const {
  if (code_ == 0) return Status::OK();
  return Status::Error(code_, message_);
}

Status JerasureCode::init(Profile& profile) {
  EC_RETURN_IF_ERROR(InitGaloisFields());
  profile["technique"] = technique_;
  InitErrors errors;
  parse_mapping(profile);
  Params params;
  errors.Add(ProfileToInt("k", profile, &params.k, defaults_.k));
  errors.Add(ProfileToInt("m", profile, &params.m, defaults_.m));
  errors.Add(ProfileToInt("w", profile, &params.w, defaults_.w));
  if (!chunk_mapping_.empty() &&
      static_cast<long>(chunk_mapping_.size()) != static_cast<long>(params.k) + params.m) {
    errors.Add(EINVAL,
               "mapping " + profile["mapping"] + " maps " + std::to_string(chunk_mapping_.size()) +
                   " chunks instead of the expected " +
                   std::to_string(static_cast<long>(params.k) + params.m) + " and will be ignored");
    chunk_mapping_.clear();
  }
  errors.Add(sanity_check_k_m(params.k, params.m));
  per_chunk_alignment_ = false;
  ParseTechnique(profile, params, &errors);
  if (!errors.ok()) return errors.ToStatus();

  k_ = static_cast<unsigned>(params.k);
  m_ = static_cast<unsigned>(params.m);
  w_ = params.w;
  {
    // jerasure's matrix builders keep lazily initialised globals (cauchy_good's tables).
    static std::mutex prepare_mutex;
    std::lock_guard<std::mutex> lock(prepare_mutex);
    EC_RETURN_IF_ERROR(Prepare());
  }
  EC_RETURN_IF_ERROR(init_base(profile));
  profile_ = profile;
  return Status::OK();
}

unsigned JerasureCode::get_chunk_size(unsigned stripe_width) const {
  const std::uint64_t alignment = get_alignment();
  const std::uint64_t width = stripe_width;
  if (alignment == 0 || k_ == 0) return 0;  // not initialised
  if (per_chunk_alignment_) {
    std::uint64_t chunk = (width + k_ - 1) / k_;
    chunk = (chunk + alignment - 1) / alignment * alignment;
    return static_cast<unsigned>(chunk);
  }
  // alignment is a multiple of k, so the padded stripe splits evenly.
  std::uint64_t padded = (width + alignment - 1) / alignment * alignment;
  return static_cast<unsigned>(padded / k_);
}

Status JerasureCode::encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  EC_RETURN_IF_ERROR(CheckChunkLength(len));
  for (const auto& [id, span] : out) {
    if (piece_index(id) < k()) {
      return Status::Invalid("encode_chunks: chunk " + std::to_string(id) +
                             " is a data chunk and cannot be an output");
    }
  }
  // Pointer tables live on the stack for the usual sizes: a per-call allocation costs more than a
  // 4 KiB encode's arithmetic.
  constexpr unsigned kInline = 64;
  std::array<const std::uint8_t*, kInline> data_inline{};
  std::array<std::uint8_t*, kInline> parity_inline{};
  std::vector<const std::uint8_t*> data_heap;
  std::vector<std::uint8_t*> parity_heap;
  if (k_ > kInline) data_heap.resize(k_);
  if (m_ > kInline) parity_heap.resize(m_);
  const std::uint8_t** data = k_ > kInline ? data_heap.data() : data_inline.data();
  std::uint8_t** parity = m_ > kInline ? parity_heap.data() : parity_inline.data();
  Buffer zeros;
  Buffer scratch;
  for (int i = 0; i < k(); ++i) {
    auto it = in.find(chunk_index(i));
    if (it != in.end()) {
      data[i] = reinterpret_cast<const std::uint8_t*>(it->second.data());
      continue;
    }
    if (zeros.empty()) zeros = Buffer::Allocate(len, true);
    data[i] = zeros.udata();
  }
  for (int j = 0; j < m(); ++j) {
    auto it = out.find(chunk_index(k_ + j));
    if (it != out.end()) {
      parity[j] = reinterpret_cast<std::uint8_t*>(it->second.data());
      continue;
    }
    if (scratch.empty()) scratch = Buffer::Allocate(len * m_, false);
    parity[j] = scratch.udata() + len * j;
  }
  return EncodePieces(len, data, parity);
}

Status JerasureCode::decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                                   const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  EC_RETURN_IF_ERROR(CheckChunkLength(len));
  for (int id : want) {
    if (!in.count(id) && !out.count(id)) {
      return Status::Invalid("decode_chunks: wanted chunk " + std::to_string(id) +
                             " is neither an input nor an output");
    }
  }
  const int n = k() + m();
  std::vector<const std::uint8_t*> pieces(n, nullptr);
  std::vector<int> targets;
  std::vector<std::uint8_t*> outputs;
  std::vector<int> absent_data;
  int available = 0;
  for (int p = 0; p < n; ++p) {
    const int id = chunk_index(p);
    if (auto it = in.find(id); it != in.end()) {
      pieces[p] = reinterpret_cast<const std::uint8_t*>(it->second.data());
      ++available;
    } else if (auto ot = out.find(id); ot != out.end()) {
      targets.push_back(p);
      outputs.push_back(reinterpret_cast<std::uint8_t*>(ot->second.data()));
    } else if (p < k()) {
      absent_data.push_back(p);
    }
  }
  if (targets.empty()) return Status::OK();
  Buffer zeros;
  if (available < k()) {
    // Too few real chunks: take absent data chunks as zeros, as Ceph does.
    if (available + static_cast<int>(absent_data.size()) < k()) {
      return Status::IOError("decode_chunks: " + std::to_string(available) +
                             " chunks available, at least k=" + std::to_string(k()) +
                             " are needed");
    }
    zeros = Buffer::Allocate(len, true);
    for (int p : absent_data) pieces[p] = zeros.udata();
  }
  return DecodePieces(len, pieces.data(), targets, outputs.data());
}

Status JerasureCode::decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                            std::size_t chunk_size) const {
  const bool all_present =
      std::all_of(want.begin(), want.end(), [&](int id) { return chunks.count(id) != 0; });
  if (!all_present && chunks.size() < k_) {
    return Status::IOError("need " + std::to_string(k_) + " chunks to decode, only " +
                           std::to_string(chunks.size()) + " available");
  }
  return ErasureCode::decode(want, chunks, decoded, chunk_size);
}

}  // namespace ec::jerasure
