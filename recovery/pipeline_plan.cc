#include "recovery/pipeline_plan.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "ec/gf.h"
#include "ec/stripe_codec.h"
#include "recovery/repair_plan.h"

namespace ec::recovery {

namespace {

// Random probes at the probe chunk size (one more runs at the layout's chunk size).
constexpr std::uint64_t kPipeRandomProbes = 3;
constexpr std::size_t kPipeSliceAlign = 64;

Status PipeNotPipelinable(const std::string& why) {
  return Status::Error(EOPNOTSUPP, "not pipelinable: " + why);
}

bool PipeMul(std::uint64_t a, std::uint64_t b, std::uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}

std::vector<int> PipeExpand(const std::vector<SubChunkRange>& ranges) {
  std::vector<int> out;
  for (const auto& [first, count] : ranges)
    for (int z = first; z < first + count; ++z) out.push_back(z);
  return out;
}

// Fills stage.columns from stage.coefficients.
void PipeBuildColumns(PipelineStage& stage) {
  const std::size_t n_in = stage.inputs.size();
  stage.columns.assign(n_in, {});
  for (std::size_t j = 0; j < n_in; ++j) {
    PipelineStage::Column& col = stage.columns[j];
    std::vector<std::uint8_t> coef;
    for (int o = 0; o < stage.outputs; ++o) {
      const std::uint8_t c = stage.coefficients[static_cast<std::size_t>(o) * n_in + j];
      if (c == 0) continue;
      col.rows.push_back(o);
      coef.push_back(c);
    }
    if (!coef.empty()) col.tables = gf::MulAddTables(coef.data(), static_cast<int>(coef.size()));
  }
}

// Runs the code's own repair of `lost` (sub-chunks `want`) through StripeCodec, the way the
// repair engine does, on helper bytes the caller writes: the probes' oracle.
class PipeProber {
 public:
  PipeProber(const ErasureCodeInterface& code, const StripeLayout& layout, int lost,
             SubChunkRange want, const SubChunkPlan& reads, bool native)
      : codec_(code, layout), lost_(lost), want_(want), reads_(reads), native_(native) {}

  std::size_t sub_chunk_size() const { return codec_.layout().sub_chunk_size(); }

  // Zeroed helper inputs for `stripes` stripes: chunk id -> per stripe its sub-chunks back to
  // back (every key of the plan, empty for a helper that reads nothing).
  std::map<int, std::vector<std::byte>> Inputs(std::uint64_t stripes) const {
    std::map<int, std::vector<std::byte>> in;
    for (const auto& [id, ranges] : reads_) in[id].assign(stripes * codec_.HelperBytes(ranges), {});
    return in;
  }

  // The wanted sub-chunks of `lost` per stripe, back to back (want.second * S bytes a stripe).
  Status Repair(const std::map<int, std::vector<std::byte>>& in, std::uint64_t stripes,
                std::vector<std::byte>* out) const {
    const std::size_t sub = sub_chunk_size();
    const int z = static_cast<int>(codec_.layout().sub_chunk_count());
    // Without the code's sub-chunk repair, decode() rebuilds the whole chunk.
    const SubChunkRange range = native_ ? want_ : SubChunkRange{0, z};
    const std::size_t range_bytes = static_cast<std::size_t>(range.second) * sub;
    std::map<int, ConstColumn> columns;
    for (const auto& [id, ranges] : reads_) {
      const std::vector<std::byte>& bytes = in.at(id);
      columns[id] = {bytes.data(), codec_.HelperBytes(ranges)};
    }
    std::vector<std::byte> rebuilt(stripes * range_bytes);
    EC_RETURN_IF_ERROR(codec_.Repair(lost_, range, reads_, native_, columns,
                                     {rebuilt.data(), range_bytes}, stripes));
    if (native_) {
      *out = std::move(rebuilt);
      return Status::OK();
    }
    const std::size_t want_bytes = static_cast<std::size_t>(want_.second) * sub;
    out->resize(stripes * want_bytes);
    for (std::uint64_t s = 0; s < stripes; ++s) {
      std::memcpy(out->data() + s * want_bytes,
                  rebuilt.data() + s * range_bytes + static_cast<std::size_t>(want_.first) * sub,
                  want_bytes);
    }
    return Status::OK();
  }

 private:
  StripeCodec codec_;
  int lost_;
  SubChunkRange want_;
  const SubChunkPlan& reads_;
  bool native_;
};

// The smallest layout of the code (cheap probes), or `layout` when there is none smaller.
StripeLayout PipeProbeLayout(const ErasureCodeInterface& code, const StripeLayout& layout) {
  auto small = StripeLayout::Make(code, code.get_chunk_size(1));
  if (small.ok() && small->chunk_size() <= layout.chunk_size()) return *small;
  return layout;
}

// The random probes' bytes: SplitMix64 (Steele, Lea, Flood 2014), a 64-bit counter through a
// mixing function. A probe at the layout's chunk size fills the helpers' whole chunks (40 MiB
// for RS(10,4) with 4 MiB chunks), where std::mt19937_64 took a third of the probe's time; any
// generator whose output has no GF(2)-linear relation the code could share does, and this one's
// outputs pass BigCrush.
class PipeRandom {
 public:
  explicit PipeRandom(std::uint64_t seed) : state_(seed) {}
  std::uint64_t operator()() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

void PipeFillRandom(PipeRandom& rng, std::vector<std::byte>& bytes) {
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(bytes.data() + i, &r, 8);
  }
  const std::uint64_t r = rng();
  for (std::size_t b = 0; i < bytes.size(); ++i, ++b)
    bytes[i] = static_cast<std::byte>(r >> (8 * b));
}

// Random bytes in every helper at once: the code's repair must equal the coefficients' sum.
Status PipeCheckRandom(const PipeProber& prober, const std::vector<PipelineStage>& stages, int lost,
                       std::uint64_t stripes, PipeRandom& rng) {
  auto in = prober.Inputs(stripes);
  for (auto& [id, bytes] : in) PipeFillRandom(rng, bytes);
  std::vector<std::byte> got;
  EC_RETURN_IF_ERROR(prober.Repair(in, stripes, &got));
  std::vector<std::byte> sum(got.size());
  const PipelineSlice slice{0, stripes, 0, prober.sub_chunk_size()};
  for (const PipelineStage& stage : stages)
    EC_RETURN_IF_ERROR(ApplyStage(stage, slice, in.at(stage.chunk), sum));
  if (sum != got) {
    const auto at = std::mismatch(sum.begin(), sum.end(), got.begin()).first - sum.begin();
    return PipeNotPipelinable(
        "the repair of chunk " + std::to_string(lost) +
        " from random helper bytes differs from the sum of the probed coefficients (output byte " +
        std::to_string(at) + " of " + std::to_string(sum.size()) + ", sub-chunk size " +
        std::to_string(prober.sub_chunk_size()) +
        "): its repair is not a byte-wise GF(2^8)-linear map");
  }
  return Status::OK();
}

}  // namespace

Result<PipelinePlan> PipelinePlan::Make(const ErasureCodeInterface& code,
                                        const StripeLayout& layout,
                                        const PipelineRequest& request) {
  const int n = static_cast<int>(layout.chunk_count());
  const int z = static_cast<int>(layout.sub_chunk_count());
  const int lost = request.lost;
  if (n != static_cast<int>(code.get_chunk_count()) ||
      z != static_cast<int>(code.get_sub_chunk_count())) {
    return Status::Invalid("the layout is not the code's");
  }
  if (lost < 0 || lost >= n) {
    return Status::Invalid("lost chunk " + std::to_string(lost) + " is out of range [0," +
                           std::to_string(n) + ")");
  }
  if (request.available.count(lost)) {
    return Status::Invalid("chunk " + std::to_string(lost) + " is available: nothing to repair");
  }
  for (const auto& [id, cost] : request.available) {
    if (id < 0 || id >= n) {
      return Status::Invalid("available chunk " + std::to_string(id) + " is out of range [0," +
                             std::to_string(n) + ")");
    }
    if (cost < 0) return Status::Invalid("chunk " + std::to_string(id) + " has a negative cost");
  }
  SubChunkRange want = request.want;
  if (want.second == 0 && want.first == 0) want = {0, z};
  if (want.first < 0 || want.second < 1 || want.first > z - want.second) {
    return Status::Invalid("sub-chunk range (" + std::to_string(want.first) + "," +
                           std::to_string(want.second) + ") is not inside [0," + std::to_string(z) +
                           ")");
  }

  // The direct repair's plan for the same request: same helpers, same reads.
  auto direct = MakePlan(code, layout, {lost}, request.available);
  if (!direct.ok()) return direct.status();
  PipelinePlan plan;
  plan.lost_ = lost;
  plan.want_ = want;
  plan.chunk_size_ = layout.chunk_size();
  plan.sub_chunk_size_ = layout.sub_chunk_size();
  plan.sub_chunk_count_ = layout.sub_chunk_count();
  plan.native_ = direct->native;
  SubChunkPlan reads = direct->reads;
  if (plan.native_ && want != SubChunkRange{0, z}) {
    auto partial = code.minimum_to_repair(lost, want, direct->helpers);
    if (!partial.ok()) return partial.status();
    EC_RETURN_IF_ERROR(CheckPlan(*partial, layout.sub_chunk_count()));
    for (const auto& [id, ranges] : *partial) {
      if (!direct->helpers.count(id)) {
        return Status::IOError("the code's partial repair reads chunk " + std::to_string(id) +
                               ", which it did not choose as a helper");
      }
    }
    reads = std::move(*partial);
  }

  for (const auto& [id, ranges] : reads) {
    PipelineStage stage;
    stage.chunk = id;
    stage.reads = ranges;
    stage.inputs = PipeExpand(ranges);
    stage.outputs = want.second;
    if (stage.inputs.empty()) continue;
    stage.coefficients.assign(static_cast<std::size_t>(stage.outputs) * stage.inputs.size(), 0);
    plan.stages_.push_back(std::move(stage));
  }
  if (plan.stages_.empty()) return Status::IOError("the code's plan reads nothing");
  std::stable_sort(plan.stages_.begin(), plan.stages_.end(),
                   [&](const PipelineStage& a, const PipelineStage& b) {
                     return request.available.at(a.chunk) < request.available.at(b.chunk);
                   });

  // The probes (see the header).
  const StripeLayout probe_layout = PipeProbeLayout(code, layout);
  const PipeProber prober(code, probe_layout, lost, want, reads, plan.native_);
  const std::size_t sp = prober.sub_chunk_size();
  std::vector<std::byte> out;
  {
    EC_RETURN_IF_ERROR(prober.Repair(prober.Inputs(1), 1, &out));
    if (std::any_of(out.begin(), out.end(), [](std::byte b) { return b != std::byte{0}; })) {
      return PipeNotPipelinable("the repair of chunk " + std::to_string(lost) +
                                " from zero helper bytes is not zero: it is not linear");
    }
  }
  for (PipelineStage& stage : plan.stages_) {
    // Stripe j: input sub-chunk j of this helper all 0x01, everything else 0.
    const std::size_t n_in = stage.inputs.size();
    auto in = prober.Inputs(n_in);
    std::vector<std::byte>& mine = in.at(stage.chunk);
    for (std::size_t j = 0; j < n_in; ++j)
      std::fill_n(mine.begin() + static_cast<std::ptrdiff_t>((j * n_in + j) * sp), sp,
                  std::byte{1});
    EC_RETURN_IF_ERROR(prober.Repair(in, n_in, &out));
    const std::size_t out_stripe = static_cast<std::size_t>(stage.outputs) * sp;
    for (std::size_t j = 0; j < n_in; ++j) {
      for (int o = 0; o < stage.outputs; ++o) {
        const std::byte* bytes = out.data() + j * out_stripe + static_cast<std::size_t>(o) * sp;
        if (std::any_of(bytes, bytes + sp, [&](std::byte b) { return b != bytes[0]; })) {
          return PipeNotPipelinable(
              "sub-chunk " + std::to_string(stage.inputs[j]) + " of chunk " +
              std::to_string(stage.chunk) +
              " as 0x01 bytes gives different bytes across sub-chunk " +
              std::to_string(want.first + o) + " of chunk " + std::to_string(lost) +
              ": its repair is not a byte-wise GF(2^8)-linear map (e.g. a bit-matrix code)");
        }
        stage.coefficients[static_cast<std::size_t>(o) * n_in + j] =
            static_cast<std::uint8_t>(bytes[0]);
      }
    }
    PipeBuildColumns(stage);
  }
  PipeRandom rng(0x2545F4914F6CDD1DULL ^ static_cast<std::uint64_t>(lost));
  EC_RETURN_IF_ERROR(PipeCheckRandom(prober, plan.stages_, lost, kPipeRandomProbes, rng));
  if (request.check_layout && probe_layout.chunk_size() != layout.chunk_size()) {
    const PipeProber full(code, layout, lost, want, reads, plan.native_);
    EC_RETURN_IF_ERROR(PipeCheckRandom(full, plan.stages_, lost, 1, rng));
  }
  return plan;
}

std::uint64_t PipelinePlan::bytes_per_stripe() const {
  std::uint64_t bytes = 0;
  for (const PipelineStage& stage : stages_) bytes += stage.inputs.size() * sub_chunk_size_;
  return bytes;
}

Status PipelinePlan::CheckSlice(const PipelineSlice& slice) const {
  const std::size_t s = sub_chunk_size_;
  if (slice.stripes < 1 || slice.length < 1) return Status::Invalid("empty slice");
  if (slice.offset > s || slice.length > s - slice.offset) {
    return Status::Invalid("slice bytes " + std::to_string(slice.offset) + "+" +
                           std::to_string(slice.length) + " are outside a sub-chunk of " +
                           std::to_string(s) + " bytes");
  }
  if (slice.stripes > 1 && (slice.offset != 0 || slice.length != s)) {
    return Status::Invalid("a slice of several stripes must cover whole sub-chunks");
  }
  std::uint64_t end = 0, bytes = 0;
  if (__builtin_add_overflow(slice.first_stripe, slice.stripes, &end) ||
      !PipeMul(end, chunk_size_, &bytes)) {
    return Status::Invalid("slice stripes " + std::to_string(slice.first_stripe) + "+" +
                           std::to_string(slice.stripes) + " are too many");
  }
  return Status::OK();
}

Result<std::vector<PipelineSlice>> PipelinePlan::Slices(std::uint64_t first_stripe,
                                                        std::uint64_t stripes,
                                                        std::size_t slice_bytes) const {
  if (slice_bytes == 0) return Status::Invalid("slices of 0 bytes");
  std::uint64_t end = 0, bytes = 0;
  if (__builtin_add_overflow(first_stripe, stripes, &end) || !PipeMul(end, chunk_size_, &bytes)) {
    return Status::Invalid("stripes " + std::to_string(first_stripe) + "+" +
                           std::to_string(stripes) + " are too many");
  }
  std::vector<PipelineSlice> slices;
  const std::size_t s = sub_chunk_size_;
  if (s >= slice_bytes) {
    const std::size_t piece =
        std::min(s, std::max(kPipeSliceAlign, slice_bytes / kPipeSliceAlign * kPipeSliceAlign));
    for (std::uint64_t st = first_stripe; st < end; ++st)
      for (std::size_t off = 0; off < s; off += piece)
        slices.push_back({st, 1, off, std::min(piece, s - off)});
  } else {
    const std::uint64_t per = std::max<std::uint64_t>(1, slice_bytes / s);
    for (std::uint64_t st = first_stripe; st < end; st += std::min(per, end - st))
      slices.push_back({st, std::min(per, end - st), 0, s});
  }
  return slices;
}

std::uint64_t PipelinePlan::InputBytes(std::size_t stage, const PipelineSlice& slice) const {
  return slice.stripes * stages_[stage].inputs.size() * slice.length;
}

std::uint64_t PipelinePlan::PartialBytes(const PipelineSlice& slice) const {
  return slice.stripes * static_cast<std::uint64_t>(want_.second) * slice.length;
}

namespace {

// The shard extents of sub-chunk ranges `ranges` over `slice` (chunk size c, sub-chunk size s).
std::vector<Extent> PipeSliceExtents(const std::vector<SubChunkRange>& ranges,
                                     const PipelineSlice& slice, std::uint64_t c, std::uint64_t s) {
  std::vector<Extent> extents;
  const bool whole = slice.offset == 0 && slice.length == s;
  for (std::uint64_t st = slice.first_stripe; st < slice.first_stripe + slice.stripes; ++st) {
    for (const auto& [first, count] : ranges) {
      const std::uint64_t base = st * c + static_cast<std::uint64_t>(first) * s;
      if (whole) {
        AppendExtent(extents, {base, static_cast<std::uint64_t>(count) * s});
        continue;
      }
      for (int i = 0; i < count; ++i)
        AppendExtent(extents,
                     {base + static_cast<std::uint64_t>(i) * s + slice.offset, slice.length});
    }
  }
  return extents;
}

}  // namespace

std::vector<Extent> PipelinePlan::StageExtents(std::size_t stage,
                                               const PipelineSlice& slice) const {
  return PipeSliceExtents(stages_[stage].reads, slice, chunk_size_, sub_chunk_size_);
}

std::vector<Extent> PipelinePlan::OutputExtents(const PipelineSlice& slice) const {
  return PipeSliceExtents({want_}, slice, chunk_size_, sub_chunk_size_);
}

std::vector<int> PipelinePlan::TreeParents(unsigned fan_in) const {
  const std::size_t n = stages_.size();
  const std::size_t f = std::max(1u, fan_in);
  // Heap positions from the root: position h is stage n-1-h; its parent is position (h-1)/f.
  std::vector<int> parent(n, -1);
  for (std::size_t h = 1; h < n; ++h) parent[n - 1 - h] = static_cast<int>(n - 1 - (h - 1) / f);
  return parent;
}

Status ApplyStage(const PipelineStage& stage, const PipelineSlice& slice,
                  std::span<const std::byte> mine, std::span<std::byte> partial) {
  const std::size_t n_in = stage.inputs.size();
  const std::size_t n_out = stage.outputs < 0 ? 0 : static_cast<std::size_t>(stage.outputs);
  if (stage.columns.size() != n_in || stage.coefficients.size() != n_out * n_in) {
    return Status::Invalid("stage of chunk " + std::to_string(stage.chunk) +
                           " does not match its coefficients");
  }
  for (const PipelineStage::Column& col : stage.columns) {
    if (col.tables.size() != 32 * col.rows.size() ||
        std::any_of(col.rows.begin(), col.rows.end(),
                    [&](int o) { return o < 0 || static_cast<std::size_t>(o) >= n_out; })) {
      return Status::Invalid("stage of chunk " + std::to_string(stage.chunk) +
                             " has bad kernel tables");
    }
  }
  const std::uint64_t len = slice.length;
  std::uint64_t row_bytes = 0, in_bytes = 0, out_bytes = 0;  // row: one sub-chunk's bytes
  if (len < 1 || len > static_cast<std::uint64_t>(INT32_MAX) || slice.stripes < 1 ||
      !PipeMul(slice.stripes, len, &row_bytes) || !PipeMul(row_bytes, n_in, &in_bytes) ||
      !PipeMul(row_bytes, n_out, &out_bytes)) {
    return Status::Invalid("slice of " + std::to_string(slice.stripes) + " stripes x " +
                           std::to_string(len) + " bytes is not a valid slice");
  }
  if (mine.size() != in_bytes || partial.size() != out_bytes) {
    return Status::Invalid("stage of chunk " + std::to_string(stage.chunk) + ": " +
                           std::to_string(mine.size()) + " input bytes and " +
                           std::to_string(partial.size()) +
                           " partial bytes for a slice that takes " + std::to_string(in_bytes) +
                           " and " + std::to_string(out_bytes));
  }
  auto* in = reinterpret_cast<const std::uint8_t*>(mine.data());
  auto* acc = reinterpret_cast<std::uint8_t*>(partial.data());
  std::vector<std::uint8_t*> outs;
  outs.reserve(n_out);
  for (std::uint64_t s = 0; s < slice.stripes; ++s) {
    for (std::size_t j = 0; j < n_in; ++j) {
      const PipelineStage::Column& col = stage.columns[j];
      if (col.rows.empty()) continue;
      outs.clear();
      for (int o : col.rows) outs.push_back(acc + (s * n_out + static_cast<std::size_t>(o)) * len);
      gf::MulAddRegion(col.tables, static_cast<int>(col.rows.size()), in + (s * n_in + j) * len,
                       outs.data(), len);
    }
  }
  return Status::OK();
}

Status AddPartial(std::span<const std::byte> from, std::span<std::byte> into) {
  if (from.size() != into.size()) {
    return Status::Invalid("partials of " + std::to_string(from.size()) + " and " +
                           std::to_string(into.size()) + " bytes");
  }
  std::size_t i = 0;
  for (; i + 8 <= from.size(); i += 8) {
    std::uint64_t a = 0, b = 0;
    std::memcpy(&a, from.data() + i, 8);
    std::memcpy(&b, into.data() + i, 8);
    b ^= a;
    std::memcpy(into.data() + i, &b, 8);
  }
  for (; i < from.size(); ++i) into[i] ^= from[i];
  return Status::OK();
}

}  // namespace ec::recovery
