// ErasureCodeClay: profile, sub-codes, chunk size, encode and layered decode.
#include "plugins/clay/clay_code.h"

#include <array>
#include <climits>

#include "ec/plugin.h"
#include "plugins/clay/clay_gfni.h"
#include "plugins/clay/clay_scratch.h"

namespace ec {

namespace {

// Ceph's init keeps going after some errors and reports every message; the first errno wins.
class Errors {
 public:
  void Add(const Status& s) {
    if (s.ok()) return;
    if (code_ == 0) code_ = s.code();
    if (!message_.empty()) message_ += "\n";
    message_ += s.message();
  }
  bool ok() const { return code_ == 0; }
  Status Fail(const Status& last) {
    Add(last);
    return ToStatus();
  }
  Status ToStatus() const { return ok() ? Status::OK() : Status::Error(code_, message_); }

 private:
  int code_ = 0;
  std::string message_;
};

std::string Quoted(std::initializer_list<const char*> names) {
  std::string s;
  for (const char* n : names) {
    if (!s.empty()) s += ", ";
    s += std::string("'") + n + "'";
  }
  return s;
}

bool OneOf(const std::string& v, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (v == n) return true;
  return false;
}

}  // namespace

ErasureCodeClay::ErasureCodeClay(std::string directory) : directory_(std::move(directory)) {}

Status ErasureCodeClay::parse(Profile& profile, Profile* mds_profile, Profile* pft_profile) {
  Errors errors;
  parse_mapping(profile);
  for (std::size_t i = 0; i < chunk_mapping_.size(); ++i) {
    if (chunk_mapping_[i] != static_cast<int>(i)) {
      return errors.Fail(Status::Invalid("mapping=" + profile["mapping"] +
                                         " is not supported by clay (chunks keep their ids)"));
    }
  }
  int k = 0, m = 0, d = 0;
  errors.Add(ProfileToInt("k", profile, &k, kDefaultK));
  errors.Add(ProfileToInt("m", profile, &m, kDefaultM));
  errors.Add(sanity_check_k_m(k, m));
  errors.Add(ProfileToInt("d", profile, &d, std::to_string(k + m - 1)));

  std::string scalar;
  errors.Add(ProfileToString("scalar_mds", profile, &scalar, "jerasure"));
  if (!OneOf(scalar, {"jerasure", "isa", "shec"})) {
    return errors.Fail(Status::Invalid("scalar_mds " + scalar +
                                       " is not currently supported, use one of " +
                                       Quoted({"jerasure", "isa", "shec"})));
  }
  std::string technique;
  errors.Add(ProfileToString("technique", profile, &technique,
                             scalar == "shec" ? "single" : "reed_sol_van"));
  auto bad_technique = [&](std::initializer_list<const char*> names) {
    return errors.Fail(Status::Invalid("technique " + technique +
                                       " is not currently supported, use one of " + Quoted(names)));
  };
  if (scalar == "jerasure") {
    const auto names = {"reed_sol_van", "reed_sol_r6_op", "cauchy_orig", "cauchy_good",
                        "liber8tion"};
    if (!OneOf(technique, names)) return bad_technique(names);
  } else if (scalar == "isa") {
    const auto names = {"reed_sol_van", "cauchy"};
    if (!OneOf(technique, names)) return bad_technique(names);
  } else {
    const auto names = {"single", "multiple"};
    if (!OneOf(technique, names)) return bad_technique(names);
  }
  if (!errors.ok()) return errors.ToStatus();

  Result<clay::ClayLayout> layout = clay::ClayLayout::Make(k, m, d);
  if (!layout.ok()) return errors.Fail(layout.status());
  layout_ = *layout;
  k_ = static_cast<unsigned>(k);
  m_ = static_cast<unsigned>(m);

  for (Profile* sub : {mds_profile, pft_profile}) {
    sub->clear();
    (*sub)["plugin"] = scalar;
    (*sub)["technique"] = technique;
    (*sub)["w"] = "8";
    if (scalar == "shec") (*sub)["c"] = "2";
  }
  (*mds_profile)["k"] = std::to_string(k + layout_.nu());
  (*mds_profile)["m"] = std::to_string(m);
  (*pft_profile)["k"] = "2";
  (*pft_profile)["m"] = "2";
  return Status::OK();
}

Status ErasureCodeClay::init(Profile& profile) {
  Profile mds_profile, pft_profile;
  EC_RETURN_IF_ERROR(parse(profile, &mds_profile, &pft_profile));
  EC_RETURN_IF_ERROR(init_base(profile));
  PluginRegistry& registry = PluginRegistry::instance();
  const std::string plugin = mds_profile["plugin"];
  EC_RETURN_IF_ERROR(registry.factory(plugin, directory_, mds_profile, &mds_code_));
  EC_RETURN_IF_ERROR(registry.factory(plugin, directory_, pft_profile, &pft_code_));
  EC_RETURN_IF_ERROR(mds_.Init(mds_code_, layout_.k() + layout_.nu(), layout_.m()));
  EC_RETURN_IF_ERROR(pair_.Init(pft_code_));
  if (pair_.alignment() == 0)
    return Status::Invalid("the clay pairwise code reports a chunk size of 0");
  parity_nodes_.clear();
  for (int node = layout_.k() + layout_.nu(); node < layout_.nodes(); ++node)
    parity_nodes_.push_back(node);
  caches_ = std::make_unique<Caches>();
  profile_ = profile;
  return Status::OK();
}

unsigned ErasureCodeClay::get_chunk_size(unsigned stripe_width) const {
  const std::uint64_t alignment =
      static_cast<std::uint64_t>(layout_.sub_chunk_count()) * k_ * pair_.alignment();
  if (alignment == 0) return 0;
  const std::uint64_t padded = (stripe_width + alignment - 1) / alignment * alignment;
  const std::uint64_t chunk = padded / k_;
  return chunk > UINT_MAX ? 0 : static_cast<unsigned>(chunk);
}

Status ErasureCodeClay::check_chunk_length(std::size_t length) const {
  const std::size_t z = layout_.sub_chunk_count();
  if (length == 0 || length % z != 0) {
    return Status::Invalid("clay chunk length " + std::to_string(length) +
                           " is not a positive multiple of the " + std::to_string(z) +
                           " sub-chunks per chunk");
  }
  if (length > static_cast<std::size_t>(INT_MAX))
    return Status::Invalid("clay chunk length " + std::to_string(length) + " is too large");
  if (!fast_path() && (length / z) % pair_.alignment() != 0) {
    return Status::Invalid("clay chunk length " + std::to_string(length) +
                           " must be a multiple of " + std::to_string(z * pair_.alignment()) +
                           " for technique " + profile_.at("technique"));
  }
  return Status::OK();
}

bool ErasureCodeClay::fold_pairs() {
  return clay::GfniAvailable();
}

Result<std::shared_ptr<const clay::Program>> ErasureCodeClay::layered_program(
    const std::vector<int>& erased, std::size_t sub) const {
  // Writing the erased dots in place saves a copy of 1/q of each rebuilt chunk but costs one
  // kernel call per plane; below this sub-chunk size the calls cost more than the copy.
  const bool direct = sub >= (clay::GfniAvailable() ? kDirectDotsMinSubChunk : 1024);
  // Encode (the parity nodes) has a short key, so the common call allocates nothing.
  std::string key = direct ? "D" : "L";
  if (erased == parity_nodes_) {
    key += "p";
  } else {
    for (int e : erased) key += std::to_string(e) + ",";
  }
  if (auto hit = caches_->layered.Get(key)) return hit;
  auto built = clay::BuildLayeredProgram(layout_, pair_, mds_, erased, direct, fold_pairs());
  if (!built.ok()) return built.status();
  caches_->layered.Put(key, *built);
  return *built;
}

Status ErasureCodeClay::run(const clay::Program& program, std::size_t sub_chunk_size,
                            std::uint8_t** slots) const {
  // Regions are spaced by 192 bytes beyond their size so that equal offsets of different
  // regions do not alias in the L1 cache (4 KiB aliasing slows ISA-L down several times).
  constexpr std::size_t kGap = 192;
  auto region = [&](std::size_t sub_chunks) {
    return (sub_chunks * sub_chunk_size + 63) / 64 * 64 + kGap;
  };
  const std::size_t num_slots = program.scratch_sub_chunks.size();
  std::size_t total = 0;
  for (std::size_t s = 0; s < num_slots; ++s)
    if (slots[s] == nullptr && program.scratch_sub_chunks[s] != 0)
      total += region(program.scratch_sub_chunks[s]);
  const bool need_spare = !fast_path();
  if (need_spare) total += region(program.max_count);
  clay::ScratchLease lease(total);
  std::uint8_t* next = lease.data();
  for (std::size_t s = 0; s < num_slots; ++s) {
    if (slots[s] == nullptr && program.scratch_sub_chunks[s] != 0) {
      slots[s] = next;
      next += region(program.scratch_sub_chunks[s]);
    }
  }
  std::uint8_t* spare = need_spare ? next : nullptr;
  const std::uint8_t* zeros =
      clay::ScratchLease::Zeros(static_cast<std::size_t>(program.zero_sub_chunks) * sub_chunk_size);
  return clay::RunProgram(program, pair_, mds_, sub_chunk_size, slots, zeros, spare);
}

Status ErasureCodeClay::encode_chunks(const ConstChunkSpans& in, const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  for (const auto& [id, span] : out) {
    if (static_cast<unsigned>(id) < k_)
      return Status::Invalid("encode_chunks: data chunk " + std::to_string(id) + " in out");
  }
  EC_RETURN_IF_ERROR(check_chunk_length(len));
  auto program = layered_program(parity_nodes_, len / layout_.sub_chunk_count());
  if (!program.ok()) return program.status();

  std::array<std::uint8_t*, 2 * clay::ClayLayout::kMaxNodes + 2> slots{};
  for (unsigned i = 0; i < k_; ++i) {
    // An absent data chunk reads as zeros. The zero region is never written, and run() asks for
    // at most `len` zeros again, so the pointer stays valid.
    auto it = in.find(static_cast<int>(i));
    const std::uint8_t* data = it != in.end()
                                   ? reinterpret_cast<const std::uint8_t*>(it->second.data())
                                   : clay::ScratchLease::Zeros(len);
    slots[i] = const_cast<std::uint8_t*>(data);
  }
  for (const auto& [id, span] : out)
    slots[layout_.node_of_chunk(id)] = reinterpret_cast<std::uint8_t*>(span.data());
  return run(**program, len / layout_.sub_chunk_count(), slots.data());
}

Status ErasureCodeClay::decode_chunks(const ShardSet& want, const ConstChunkSpans& in,
                                      const ChunkSpans& out) const {
  std::size_t len = 0;
  EC_RETURN_IF_ERROR(check_buffers(in, out, &len));
  for (int id : want) {
    if (!in.count(id) && !out.count(id))
      return Status::Invalid("decode_chunks: wanted chunk " + std::to_string(id) +
                             " has no buffer");
  }
  EC_RETURN_IF_ERROR(check_chunk_length(len));
  std::vector<int> erased;
  for (unsigned id = 0; id < k_ + m_; ++id)
    if (!in.count(static_cast<int>(id))) erased.push_back(layout_.node_of_chunk(id));
  if (erased.empty() || out.empty()) return Status::OK();
  if (erased.size() > m_) {
    return Status::IOError("clay needs " + std::to_string(k_) + " chunks to decode, got " +
                           std::to_string(in.size()));
  }
  auto program = layered_program(erased, len / layout_.sub_chunk_count());
  if (!program.ok()) return program.status();
  std::array<std::uint8_t*, 2 * clay::ClayLayout::kMaxNodes + 2> slots{};
  for (const auto& [id, span] : in) {
    slots[layout_.node_of_chunk(id)] =
        const_cast<std::uint8_t*>(reinterpret_cast<const std::uint8_t*>(span.data()));
  }
  for (const auto& [id, span] : out)
    slots[layout_.node_of_chunk(id)] = reinterpret_cast<std::uint8_t*>(span.data());
  return run(**program, len / layout_.sub_chunk_count(), slots.data());
}

Status ErasureCodeClay::decode(const ShardSet& want, const ChunkMap& chunks, ChunkMap* decoded,
                               std::size_t chunk_size) const {
  ShardSet available;
  for (const auto& [id, buf] : chunks) {
    if (id < 0 || static_cast<unsigned>(id) >= k_ + m_)
      return Status::Invalid("chunk id " + std::to_string(id) + " is out of range");
    available.insert(id);
  }
  if (layout_.is_repair(want, available) && chunk_size > chunks.begin()->second.size()) {
    const int lost = *want.begin();
    EC_RETURN_IF_ERROR(check_chunk_length(chunk_size));
    if (chunks.size() != static_cast<std::size_t>(layout_.d())) {
      return Status::Invalid("a clay repair takes exactly d=" + std::to_string(layout_.d()) +
                             " helpers carrying sub-chunks, got " + std::to_string(chunks.size()));
    }
    auto plan = plan_repair(lost, {0, layout_.sub_chunk_count()}, available);
    if (!plan.ok()) return plan.status();
    ConstChunkSpans helpers;
    for (const auto& [id, buf] : chunks) helpers[id] = buf.span();
    Buffer rebuilt = Buffer::Allocate(chunk_size, false);
    EC_RETURN_IF_ERROR(repair(**plan, helpers, chunk_size, rebuilt.span()));
    decoded->clear();
    (*decoded)[lost] = rebuilt;
    return Status::OK();
  }
  if (chunk_size != 0) {
    for (const auto& [id, buf] : chunks) {
      if (buf.size() != chunk_size) {
        return Status::Invalid("chunk " + std::to_string(id) + " has " +
                               std::to_string(buf.size()) + " bytes, expected chunk_size " +
                               std::to_string(chunk_size) +
                               " (sub-chunk helpers are only accepted for a planned repair)");
      }
    }
  }
  return decode_full(want, chunks, decoded);
}

}  // namespace ec
