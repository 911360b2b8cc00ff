#include "plugins/shec/shec_code.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ec/galois_fields.h"

namespace ec {

namespace {

std::vector<bool> Mask(const ShardSet& ids, int n) {
  std::vector<bool> mask(static_cast<std::size_t>(n), false);
  for (int id : ids) mask[id] = true;
  return mask;
}

// Ceph's checks of k, m and c in its order; "" when they hold.
std::string LimitError(int k, int m, int c) {
  if (k <= 0) return "k=" + std::to_string(k) + " must be a positive number";
  if (m <= 0) return "m=" + std::to_string(m) + " must be a positive number";
  if (c <= 0) return "c=" + std::to_string(c) + " must be a positive number";
  if (m < c) {
    return "c=" + std::to_string(c) + " must be less than or equal to m=" + std::to_string(m);
  }
  if (k > 12) return "k=" + std::to_string(k) + " must be less than or equal to 12";
  if (k + m > 20) return "k+m=" + std::to_string(k + m) + " must be less than or equal to 20";
  if (k < m) {
    return "m=" + std::to_string(m) + " must be less than or equal to k=" + std::to_string(k);
  }
  return "";
}

}  // namespace

ErasureCodeShec::ErasureCodeShec(shec::Technique technique,
                                 std::shared_ptr<shec::ShecTableCache> tables)
    : technique_(technique),
      tables_(tables ? std::move(tables) : std::make_shared<shec::ShecTableCache>()) {}

Status ErasureCodeShec::ParseParameters(Profile& profile, int* k, int* m, int* c, int* w) const {
  const bool has_k = profile.count("k") != 0;
  const bool has_m = profile.count("m") != 0;
  const bool has_c = profile.count("c") != 0;
  *k = *m = *c = 0;
  std::string error;
  if (!has_k && !has_m && !has_c) {
    *k = kDefaultK;
    *m = kDefaultM;
    *c = kDefaultC;
  } else if (!has_k || !has_m || !has_c) {
    error = "(k, m, c) must be choosed";
  } else {
    // All three are converted before any is checked; a value that does not convert counts as 0.
    struct Value {
      const char* name;
      int* out;
      bool ok;
    };
    std::array<Value, 3> values = {{{"k", k, false}, {"m", m, false}, {"c", c, false}}};
    for (Value& v : values) {
      std::string ignored;
      v.ok = StrictToInt(profile.at(v.name), v.out, &ignored);
      if (!v.ok) *v.out = 0;
    }
    for (const Value& v : values) {
      if (!v.ok) {
        error = std::string("could not convert ") + v.name + "=" + profile.at(v.name) + "to int";
        break;
      }
    }
    if (error.empty()) error = LimitError(*k, *m, *c);
  }
  if (!error.empty()) {
    return Status::Invalid(error + "\n(k, m, c)=(" + std::to_string(*k) + ", " +
                           std::to_string(*m) + ", " + std::to_string(*c) +
                           ") is not a valid parameter.");
  }
  *w = kDefaultW;
  if (auto it = profile.find("w"); it != profile.end()) {
    int value = 0;
    std::string ignored;
    if (StrictToInt(it->second, &value, &ignored) && (value == 8 || value == 16 || value == 32)) {
      *w = value;
    }
  }
  return Status::OK();
}

Status ErasureCodeShec::init(Profile& profile) {
  EC_RETURN_IF_ERROR(InitGaloisFields());
  profile["technique"] = shec::TechniqueName(technique_);
  int k = 0, m = 0, c = 0, w = 0;
  EC_RETURN_IF_ERROR(ParseParameters(profile, &k, &m, &c, &w));
  Result<std::shared_ptr<const shec::ShecCodec>> codec = tables_->Get(technique_, k, m, c, w);
  if (!codec.ok()) return codec.status();
  profile["k"] = std::to_string(k);
  profile["m"] = std::to_string(m);
  profile["c"] = std::to_string(c);
  profile["w"] = std::to_string(w);
  EC_RETURN_IF_ERROR(init_base(profile));
  k_ = static_cast<unsigned>(k);
  m_ = static_cast<unsigned>(m);
  c_ = c;
  w_ = w;
  codec_ = std::move(*codec);
  chunk_mapping_.clear();
  profile_ = profile;
  return Status::OK();
}

unsigned ErasureCodeShec::get_alignment() const {
  return k_ * static_cast<unsigned>(w_) * static_cast<unsigned>(sizeof(int));
}

unsigned ErasureCodeShec::get_chunk_size(unsigned stripe_width) const {
  const std::uint64_t alignment = get_alignment();
  if (alignment == 0) return 0;  // not initialised
  const std::uint64_t padded = (stripe_width + alignment - 1) / alignment * alignment;
  return static_cast<unsigned>(padded / k_);
}

Result<SubChunkPlan> ErasureCodeShec::minimum_to_decode(const ShardSet& want,
                                                        const ShardSet& available) const {
  EC_RETURN_IF_ERROR(check_ids(want, "wanted"));
  EC_RETURN_IF_ERROR(check_ids(available, "available"));
  ShardSet chosen = want;
  if (!std::includes(available.begin(), available.end(), want.begin(), want.end())) {
    const int n = static_cast<int>(get_chunk_count());
    Result<shec::RecoveryPlan> plan =
        shec::FindRecovery(codec_->view(), Mask(want, n), Mask(available, n));
    if (!plan.ok()) return plan.status();
    chosen = plan->minimum;
  }
  SubChunkPlan out;
  for (int id : chosen) out[id] = {{0, 1}};
  return out;
}

Result<ShardSet> ErasureCodeShec::cheapest_to_decode(const ShardSet& want,
                                                     const std::map<int, int>& available) const {
  ShardSet ids;
  for (const auto& [id, cost] : available) ids.insert(id);
  const int n = static_cast<int>(get_chunk_count());
  Result<shec::RecoveryPlan> plan =
      shec::FindCheapestRecovery(codec_->view(), Mask(want, n), Mask(ids, n), available);
  if (!plan.ok()) return plan.status();
  return plan->minimum;
}

Status ErasureCodeShec::CheckLength(std::size_t len) const {
  const std::size_t word = static_cast<std::size_t>(w_) / 8;
  if (len % word != 0) {
    return Status::Invalid("shec: chunk length " + std::to_string(len) + " must be a multiple of " +
                           std::to_string(word) + " bytes (w=" + std::to_string(w_) + ")");
  }
  if (len > static_cast<std::size_t>(INT32_MAX)) {
    return Status::Invalid("shec: chunk length " + std::to_string(len) + " is too large");
  }
  return Status::OK();
}

Status ErasureCodeShec::encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  EC_RETURN_IF_ERROR(CheckLength(len));
  const int k = static_cast<int>(k_), m = static_cast<int>(m_);
  std::vector<const std::uint8_t*> data(k);
  std::vector<std::uint8_t*> parity(m);
  Buffer zeros, scratch;
  for (int i = 0; i < k; ++i) {
    if (out.count(i)) {
      return Status::Invalid("encode_chunks: chunk " + std::to_string(i) +
                             " is a data chunk and cannot be an output");
    }
    auto it = in.find(i);
    if (it != in.end()) {
      data[i] = reinterpret_cast<const std::uint8_t*>(it->second.data());
      continue;
    }
    if (zeros.empty()) zeros = Buffer::Allocate(len, true);
    data[i] = zeros.udata();
  }
  for (int j = 0; j < m; ++j) {
    auto it = out.find(k + j);
    if (it != out.end()) {
      parity[j] = reinterpret_cast<std::uint8_t*>(it->second.data());
      continue;
    }
    if (scratch.empty()) scratch = Buffer::Allocate(len * m_, false);
    parity[j] = scratch.udata() + len * j;
  }
  codec_->Encode(len, data.data(), parity.data());
  return Status::OK();
}

Status ErasureCodeShec::decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                                      const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  EC_RETURN_IF_ERROR(CheckLength(len));
  for (int id : want) {
    if (!in.count(id) && !out.count(id)) {
      return Status::Invalid("decode_chunks: wanted chunk " + std::to_string(id) +
                             " is neither an input nor an output");
    }
  }
  std::vector<const std::uint8_t*> pieces(get_chunk_count(), nullptr);
  for (const auto& [id, span] : in) pieces[id] = reinterpret_cast<const std::uint8_t*>(span.data());
  std::vector<int> targets;
  std::vector<std::uint8_t*> outputs;
  for (const auto& [id, span] : out) {
    targets.push_back(id);
    outputs.push_back(reinterpret_cast<std::uint8_t*>(span.data()));
  }
  return codec_->Decode(len, pieces.data(), targets, outputs.data());
}

}  // namespace ec
