#include "plugins/clay/clay_test_util.h"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "ec/plugin.h"
#include "plugins/clay/clay_plugin.h"

namespace ec::clay_test {

std::shared_ptr<ErasureCodeClay> MakeClay(const std::string& profile_text, Status* status) {
  RegisterClayBuiltin();
  Result<Profile> profile = ParseProfile("plugin=clay " + profile_text);
  if (!profile.ok()) {
    if (status) *status = profile.status();
    return nullptr;
  }
  ErasureCodeInterfaceRef code;
  Status s = PluginRegistry::instance().factory("clay", PluginRegistry::default_directory(),
                                                *profile, &code);
  if (status) *status = s;
  if (!s.ok()) return nullptr;
  return std::dynamic_pointer_cast<ErasureCodeClay>(code);
}

bool ReadFile(const std::filesystem::path& path, Buffer* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  *out = Buffer::Copy(AsBytes(bytes.data(), bytes.size()));
  return true;
}

Buffer RandomBuffer(std::mt19937_64& rng, std::size_t n) {
  Buffer b = Buffer::Allocate(n, false);
  for (std::size_t i = 0; i < n; ++i) b.udata()[i] = static_cast<std::uint8_t>(rng());
  return b;
}

bool SameBytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

bool SameBytes(const Buffer& a, const Buffer& b) {
  return SameBytes(a.span(), b.span());
}

ChunkMap EncodeAll(const ErasureCodeInterface& code, const Buffer& data) {
  ShardSet all;
  for (unsigned i = 0; i < code.get_chunk_count(); ++i) all.insert(static_cast<int>(i));
  ChunkMap encoded;
  Status s = code.encode(all, data.span(), &encoded);
  if (!s.ok()) {
    std::cerr << "encode failed: " << s.ToString() << "\n";
    std::abort();
  }
  return encoded;
}

Buffer Gather(const Buffer& chunk, const std::vector<SubChunkRange>& ranges, std::size_t sub) {
  std::size_t total = 0;
  for (const auto& r : ranges) total += static_cast<std::size_t>(r.second) * sub;
  Buffer out = Buffer::Allocate(total, false);
  std::size_t off = 0;
  for (const auto& r : ranges) {
    std::memcpy(out.data() + off, chunk.data() + static_cast<std::size_t>(r.first) * sub,
                static_cast<std::size_t>(r.second) * sub);
    off += static_cast<std::size_t>(r.second) * sub;
  }
  return out;
}

std::string VerifyCodeword(const ErasureCodeClay& code, const ChunkMap& chunks) {
  const clay::ClayLayout& l = code.layout();
  const Profile& profile = code.get_profile();
  const int n = l.nodes();
  const int z_count = l.sub_chunk_count();
  auto sub_profile = [&](int k, int m) {
    Profile p{{"plugin", profile.at("scalar_mds")},
              {"technique", profile.at("technique")},
              {"k", std::to_string(k)},
              {"m", std::to_string(m)},
              {"w", "8"}};
    if (profile.at("scalar_mds") == "shec") p["c"] = "2";
    return p;
  };
  ErasureCodeInterfaceRef pft, mds;
  Profile pp = sub_profile(2, 2), mp = sub_profile(l.k() + l.nu(), l.m());
  auto& registry = PluginRegistry::instance();
  const std::string dir = PluginRegistry::default_directory();
  if (Status s = registry.factory(pp.at("plugin"), dir, pp, &pft); !s.ok()) return s.ToString();
  if (Status s = registry.factory(mp.at("plugin"), dir, mp, &mds); !s.ok()) return s.ToString();
  const std::size_t chunk = chunks.begin()->second.size();
  const std::size_t sub = chunk / z_count;
  Buffer zero = Buffer::Allocate(chunk, true);
  std::vector<Buffer> c(n), u(n);
  for (int j = 0; j < n; ++j) {
    const int id = l.chunk_of_node(j);
    c[j] = id < 0 ? zero : chunks.at(id);
    u[j] = Buffer::Allocate(chunk, true);
  }
  auto at = [&](Buffer& b, int z) { return b.span().subspan(z * sub, sub); };
  for (int j = 0; j < n; ++j) {
    for (int z = 0; z < z_count; ++z) {
      if (l.is_dot(j, z)) {
        std::memcpy(at(u[j], z).data(), at(c[j], z).data(), sub);
        continue;
      }
      const int p = l.partner_node(j, z);
      const int zp = l.partner_plane(j, z);
      const bool j_is_a = l.x_of(j) > l.x_of(p);
      ConstChunkSpans in{{j_is_a ? 0 : 1, at(c[j], z)}, {j_is_a ? 1 : 0, at(c[p], zp)}};
      Buffer other = Buffer::Allocate(sub, false);
      ChunkSpans out{{j_is_a ? 2 : 3, at(u[j], z)}, {j_is_a ? 3 : 2, other.span()}};
      if (Status s = pft->encode_chunks(in, out); !s.ok()) return s.ToString();
    }
  }
  const int data = l.k() + l.nu();
  for (int z = 0; z < z_count; ++z) {
    ConstChunkSpans in;
    ChunkSpans out;
    std::vector<Buffer> parity(l.m());
    for (int j = 0; j < data; ++j) in[j] = at(u[j], z);
    for (int p = 0; p < l.m(); ++p) {
      parity[p] = Buffer::Allocate(sub, false);
      out[data + p] = parity[p].span();
    }
    if (Status s = mds->encode_chunks(in, out); !s.ok()) return s.ToString();
    for (int p = 0; p < l.m(); ++p) {
      if (!SameBytes(parity[p].span(), at(u[data + p], z)))
        return "plane " + std::to_string(z) + ": node " + std::to_string(data + p) +
               " is not the per-plane encoding";
    }
  }
  return "";
}

const std::vector<std::array<int, 3>>& CorpusTriples() {
  static const std::vector<std::array<int, 3>> triples = {
      {2, 2, 3},  {3, 2, 4},  {4, 2, 5},  {4, 3, 5},  {4, 3, 6},  {7, 3, 8},
      {7, 3, 9},  {7, 4, 8},  {7, 4, 9},  {7, 4, 10}, {7, 5, 8},  {7, 5, 9},
      {7, 5, 10}, {7, 5, 11}, {8, 3, 9},  {8, 3, 10}, {8, 4, 9},  {8, 4, 10},
      {8, 4, 11}, {9, 3, 10}, {9, 3, 11}, {9, 4, 10}, {9, 4, 11}, {9, 4, 12},
      {9, 5, 10}, {9, 5, 11}, {9, 5, 13}, {9, 6, 10}, {9, 6, 12}, {9, 6, 14}};
  return triples;
}

}  // namespace ec::clay_test
