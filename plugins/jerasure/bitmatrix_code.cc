#include "plugins/jerasure/bitmatrix_code.h"

#include <cstdint>
#include <cstdlib>

extern "C" {
#include <jerasure.h>
}

namespace ec::jerasure {

unsigned BitmatrixCode::StripeAlignment() const {
  const unsigned packet_words = static_cast<unsigned>(w_) * static_cast<unsigned>(packetsize_);
  if ((packet_words * sizeof(int)) % kLargestVectorWordSize != 0) {
    return k_ * packet_words * kLargestVectorWordSize;
  }
  return k_ * packet_words * static_cast<unsigned>(sizeof(int));
}

void BitmatrixCode::CheckSizes(const Params& params, int packetsize, InitErrors* errors) {
  if (params.k <= 0 || params.w <= 0 || packetsize <= 0) return;  // reported elsewhere
  const std::uint64_t largest =
      static_cast<std::uint64_t>(params.k) * params.w * packetsize * kLargestVectorWordSize;
  if (largest > UINT32_MAX) {
    errors->Add(EINVAL, "packetsize=" + std::to_string(packetsize) + " with k=" +
                            std::to_string(params.k) + " and w=" + std::to_string(params.w) +
                            " makes chunk alignments larger than 2^32 bytes");
  }
}

Status BitmatrixCode::Prepare() {
  bitmatrix_.clear();
  encode_schedule_.reset();
  decode_cache_ = std::make_unique<LruCache<std::string, XorSchedule>>(kDecodeCacheCapacity);
  decode_built_ = 0;

  int* raw = BuildBitmatrix();
  if (raw == nullptr) {
    return Status::Invalid(
        technique() + ": jerasure cannot build a coding bit-matrix for k=" + std::to_string(k()) +
        " m=" + std::to_string(m()) + " w=" + std::to_string(w_));
  }
  bitmatrix_.assign(raw, raw + static_cast<std::size_t>(m()) * w_ * k() * w_);
  std::free(raw);
  auto schedule = XorSchedule::Build(k(), m(), w_, packetsize_, bitmatrix_.data());
  if (!schedule.ok()) return schedule.status().WithPrefix(technique());
  encode_schedule_ = std::make_unique<XorSchedule>(std::move(schedule).value());
  return Status::OK();
}

Status BitmatrixCode::CheckChunkLength(std::size_t len) const {
  const std::size_t block = static_cast<std::size_t>(w_) * packetsize_;
  if (len % block != 0) {
    return Status::Invalid(technique() + ": chunk length " + std::to_string(len) +
                           " must be a multiple of w*packetsize = " + std::to_string(block));
  }
  return Status::OK();
}

Status BitmatrixCode::EncodePieces(std::size_t len, const std::uint8_t* const* data,
                                   std::uint8_t* const* parity) const {
  encode_schedule_->Run(len, data, parity);
  return Status::OK();
}

Status BitmatrixCode::DecodePieces(std::size_t len, const std::uint8_t* const* pieces,
                                   const std::vector<int>& targets,
                                   std::uint8_t* const* outputs) const {
  std::vector<int> sources;
  std::vector<const std::uint8_t*> inputs;
  for (int p = 0; p < k() + m() && static_cast<int>(sources.size()) < k(); ++p) {
    if (pieces[p] == nullptr) continue;
    sources.push_back(p);
    inputs.push_back(pieces[p]);
  }
  if (static_cast<int>(sources.size()) < k()) {
    return Status::IOError(technique() + ": not enough chunks to decode");
  }
  auto plan = DecodePlan(sources, targets);
  if (!plan.ok()) return plan.status();
  (*plan)->Run(len, inputs.data(), outputs);
  return Status::OK();
}

Result<std::shared_ptr<const XorSchedule>> BitmatrixCode::DecodePlan(
    const std::vector<int>& sources, const std::vector<int>& targets) const {
  std::string key;
  for (int s : sources) key += "+" + std::to_string(s);
  for (int t : targets) key += "-" + std::to_string(t);
  if (auto cached = decode_cache_->Get(key)) return cached;

  const int w = w_;
  const std::size_t kw = static_cast<std::size_t>(k()) * w;
  // Row block r of `sources_from_data` expresses source piece r in data bits.
  std::vector<int> sources_from_data(kw * kw, 0);
  for (std::size_t r = 0; r < sources.size(); ++r) {
    const int s = sources[r];
    int* block = sources_from_data.data() + r * w * kw;
    if (s < k()) {
      for (int x = 0; x < w; ++x) block[x * kw + s * w + x] = 1;
    } else {
      const int* coding = bitmatrix_.data() + static_cast<std::size_t>(s - k()) * w * kw;
      std::copy(coding, coding + w * kw, block);
    }
  }
  // data = inverse * sources.
  std::vector<int> inverse(kw * kw);
  if (jerasure_invert_bitmatrix(sources_from_data.data(), inverse.data(), static_cast<int>(kw)) !=
      0) {
    return Status::IOError(technique() + ": chunks " + key +
                           " do not determine the data (singular decoding bit-matrix)");
  }
  std::vector<int> decoding(targets.size() * w * kw, 0);
  for (std::size_t t = 0; t < targets.size(); ++t) {
    int* block = decoding.data() + t * w * kw;
    if (targets[t] < k()) {
      const int* rows = inverse.data() + static_cast<std::size_t>(targets[t]) * w * kw;
      std::copy(rows, rows + w * kw, block);
      continue;
    }
    // Parity bit-row = coding bit-row (over data bits) times the inverse (data from sources).
    const int* coding = bitmatrix_.data() + static_cast<std::size_t>(targets[t] - k()) * w * kw;
    for (int x = 0; x < w; ++x) {
      int* out = block + x * kw;
      for (std::size_t j = 0; j < kw; ++j) {
        if (!coding[x * kw + j]) continue;
        const int* inv_row = inverse.data() + j * kw;
        for (std::size_t c = 0; c < kw; ++c) out[c] ^= inv_row[c];
      }
    }
  }
  auto schedule =
      XorSchedule::Build(k(), static_cast<int>(targets.size()), w, packetsize_, decoding.data());
  if (!schedule.ok()) return schedule.status().WithPrefix(technique());
  auto plan = std::make_shared<const XorSchedule>(std::move(schedule).value());
  decode_cache_->Put(key, plan);
  ++decode_built_;
  return std::shared_ptr<const XorSchedule>(plan);
}

}  // namespace ec::jerasure
