#include "plugins/isa/isa_code.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <string>
#include <utility>

#include "ec/simd.h"
#include "plugins/isa/isa_xor.h"

namespace ec {

namespace {

// Upper bound of k+m for any profile init() accepts (cauchy: k+m <= 256).
constexpr int kMaxPieces = 256;
// Vandermonde limits under which gf_gen_rs_matrix is MDS (Ceph's "verified safe values").
constexpr int kVandermondeMaxM = 4;
constexpr int kVandermondeMaxKForM4 = 21;

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}

const std::uint8_t* Bytes(std::span<const std::byte> s) {
  return reinterpret_cast<const std::uint8_t*>(s.data());
}
std::uint8_t* Bytes(std::span<std::byte> s) {
  return reinterpret_cast<std::uint8_t*>(s.data());
}

}  // namespace

ErasureCodeIsa::ErasureCodeIsa(std::shared_ptr<isa::IsaTableCache> tables)
    : tables_(tables ? std::move(tables) : std::make_shared<isa::IsaTableCache>()) {}

Status ErasureCodeIsa::init(Profile& profile) {
  codec_.reset();
  k_ = m_ = 0;
  // Ceph's plugin factory: the default is inserted only when the key is absent, so an empty
  // value is reported as an invalid technique.
  auto technique = profile.find("technique");
  if (technique == profile.end()) {
    technique = profile.emplace("technique", "reed_sol_van").first;
  }
  std::optional<isa::Technique> parsed = isa::ParseTechnique(technique->second);
  if (!parsed) {
    return Status::NotFound("technique=" + technique->second +
                            " is not a valid coding technique.  Choose one of the following: "
                            "reed_sol_van,cauchy");
  }
  technique_ = *parsed;
  EC_RETURN_IF_ERROR(parse(profile));
  codec_ = tables_->Get(technique_, static_cast<int>(k_), static_cast<int>(m_));
  // As in Ceph, the crush-* defaults are filled in only once the code itself is valid.
  Status base = init_base(profile);
  if (!base.ok()) {
    codec_.reset();
    return base;
  }
  profile_ = profile;
  return Status::OK();
}

Status ErasureCodeIsa::parse(Profile& profile) {
  std::vector<std::string> errors;
  auto note = [&errors](const Status& s) {
    if (!s.ok()) errors.push_back(s.message());
  };
  parse_mapping(profile);
  int k = 0;
  int m = 0;
  note(ProfileToInt("k", profile, &k, kDefaultK));
  note(ProfileToInt("m", profile, &m, kDefaultM));
  note(sanity_check_k_m(k, m));
  if (m > kMaxM) {
    errors.push_back("isa: m=" + std::to_string(m) + " should be less/equal than " +
                     std::to_string(kMaxM) + " : revert to m=" + std::to_string(kMaxM));
    m = kMaxM;
  }
  if (technique_ == isa::Technique::kReedSolVan) {
    if (k > kMaxK) {
      // Ceph's text names m although this is the k limit; kept verbatim.
      errors.push_back("Vandermonde: m=" + std::to_string(m) + " should be less/equal than " +
                       std::to_string(kMaxK) + " : revert to k=" + std::to_string(kMaxK));
      k = kMaxK;
    }
    if (m > kVandermondeMaxM) {
      errors.push_back("Vandermonde: m=" + std::to_string(m) +
                       " should be less than 5 to guarantee an MDS codec: revert to m=4");
      m = kVandermondeMaxM;
    }
    if (m == kVandermondeMaxM && k > kVandermondeMaxKForM4) {
      errors.push_back(
          "Vandermonde: k=" + std::to_string(k) +
          " should be less than 22 to guarantee an MDS codec with m=4: revert to k=21");
      k = kVandermondeMaxKForM4;
    }
  } else if (static_cast<long long>(k) + m > kMaxPieces) {
    errors.push_back("isa: k+m=" + std::to_string(static_cast<long long>(k) + m) +
                     " should be less/equal than " + std::to_string(kMaxPieces) +
                     " for a cauchy matrix over GF(2^8)");
  }
  if (!chunk_mapping_.empty() &&
      static_cast<long long>(chunk_mapping_.size()) != static_cast<long long>(k) + m) {
    errors.push_back("mapping=" + profile["mapping"] + " maps " +
                     std::to_string(chunk_mapping_.size()) + " chunks instead of the expected " +
                     std::to_string(static_cast<long long>(k) + m));
  }
  if (!errors.empty()) return Status::Invalid(Join(errors));
  k_ = static_cast<unsigned>(k);
  m_ = static_cast<unsigned>(m);
  return Status::OK();
}

unsigned ErasureCodeIsa::get_chunk_size(unsigned stripe_width) const {
  if (k_ == 0) return 0;
  std::uint64_t chunk = (static_cast<std::uint64_t>(stripe_width) + k_ - 1) / k_;
  chunk = (chunk + kChunkAlignment - 1) / kChunkAlignment * kChunkAlignment;
  return static_cast<unsigned>(chunk);
}

Status ErasureCodeIsa::check_lengths(const ConstChunkSpans& in, const ChunkSpans& out,
                                     std::size_t* len) const {
  EC_RETURN_IF_ERROR(check_buffers(in, out, len));
  if (*len > static_cast<std::size_t>(INT_MAX)) {
    return Status::Invalid("chunks of " + std::to_string(*len) + " bytes exceed ISA-L's limit of " +
                           std::to_string(INT_MAX));
  }
  return Status::OK();
}

Status ErasureCodeIsa::encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const {
  if (!codec_) return Status::Invalid("isa encode_chunks: the code is not initialised");
  if (in.empty() && out.empty()) return Status::OK();
  std::size_t len = 0;
  if (Status s = check_lengths(in, out, &len); !s.ok()) return s.WithPrefix("isa encode_chunks");
  const int k = static_cast<int>(k_);
  const int m = static_cast<int>(m_);
  // Only the first k / m entries are used; clearing all 256 would cost more than a 4 KiB encode.
  std::array<const std::uint8_t*, kMaxPieces> data;
  std::array<std::uint8_t*, kMaxPieces> parity;
  std::fill_n(data.begin(), k, nullptr);
  std::fill_n(parity.begin(), m, nullptr);
  for (const auto& [id, span] : in) {
    int piece = piece_index(id);
    if (piece >= k) {
      return Status::Invalid("isa encode_chunks: chunk " + std::to_string(id) +
                             " is a parity chunk and cannot be an input");
    }
    data[piece] = Bytes(span);
  }
  for (const auto& [id, span] : out) {
    int piece = piece_index(id);
    if (piece < k) {
      return Status::Invalid("isa encode_chunks: chunk " + std::to_string(id) +
                             " is a data chunk and cannot be an output");
    }
    parity[piece - k] = Bytes(span);
  }
  if (out.empty()) return Status::OK();
  Buffer zeros;
  if (in.size() < k_) {
    zeros = Buffer::Allocate(len, true);
    for (int i = 0; i < k; ++i)
      if (data[i] == nullptr) data[i] = zeros.udata();
  }
  Buffer scratch;
  if (out.size() < m_) {
    scratch = Buffer::Allocate(len * (m_ - out.size()), false);
    std::size_t slot = 0;
    for (int j = 0; j < m; ++j)
      if (parity[j] == nullptr) parity[j] = scratch.udata() + len * slot++;
  }
  if (m == 1) {
    isa::XorRegions(data.data(), k, parity[0], len);
  } else {
    codec_->Encode(len, data.data(), parity.data());
    ClearUpperVectorState();
  }
  return Status::OK();
}

bool ErasureCodeIsa::xor_decodes(int target) const {
  // With m == 1 the parity is the XOR of the data; with Vandermonde so is parity 0 (a row of ones).
  return m_ == 1 || (technique_ == isa::Technique::kReedSolVan && target <= static_cast<int>(k_));
}

Status ErasureCodeIsa::decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                                     const ChunkSpans& out) const {
  if (!codec_) return Status::Invalid("isa decode_chunks: the code is not initialised");
  const int n = static_cast<int>(get_chunk_count());
  for (int id : want) {
    if (id < 0 || id >= n) {
      return Status::Invalid("isa decode_chunks: wanted chunk id " + std::to_string(id) +
                             " is out of range [0," + std::to_string(n) + ")");
    }
    if (!in.count(id) && !out.count(id)) {
      return Status::Invalid("isa decode_chunks: wanted chunk " + std::to_string(id) +
                             " is neither an input nor given an output buffer");
    }
  }
  if (in.empty() && out.empty()) return Status::OK();
  std::size_t len = 0;
  if (Status s = check_lengths(in, out, &len); !s.ok()) return s.WithPrefix("isa decode_chunks");
  if (out.empty()) return Status::OK();
  if (in.size() < k_) {
    return Status::IOError("isa decode_chunks: " + std::to_string(in.size()) +
                           " chunks available, " + std::to_string(k_) + " needed to rebuild");
  }

  std::array<const std::uint8_t*, kMaxPieces> pieces;
  std::fill_n(pieces.begin(), n, nullptr);
  for (const auto& [id, span] : in) pieces[piece_index(id)] = Bytes(span);
  // Targets in piece order, so one erasure pattern is one decode-table cache key.
  std::array<std::pair<int, std::uint8_t*>, kMaxPieces> order;
  int num_targets = 0;
  for (const auto& [id, span] : out) order[num_targets++] = {piece_index(id), Bytes(span)};
  std::sort(order.begin(), order.begin() + num_targets);

  const int k = static_cast<int>(k_);
  if (num_targets == 1 && xor_decodes(order[0].first)) {
    // The target and the other k pieces of {data, parity 0} XOR to zero.
    std::array<const std::uint8_t*, kMaxPieces> sources;
    int count = 0;
    for (int p = 0; p <= k; ++p) {
      if (p != order[0].first && pieces[p] != nullptr) sources[count++] = pieces[p];
    }
    if (count == k) {
      isa::XorRegions(sources.data(), k, order[0].second, len);
      return Status::OK();
    }
  }
  std::array<int, kMaxPieces> targets;
  std::array<std::uint8_t*, kMaxPieces> outputs;
  for (int t = 0; t < num_targets; ++t) {
    targets[t] = order[t].first;
    outputs[t] = order[t].second;
  }
  Status s = codec_->Decode(len, pieces.data(), targets.data(), num_targets, outputs.data());
  ClearUpperVectorState();
  return s.ok() ? s : s.WithPrefix("isa decode_chunks");
}

}  // namespace ec
