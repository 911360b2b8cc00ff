// CLAY shards made by Ceph 16.2.15's own ceph-erasure-code-tool for profiles the shared corpus
// lacks: scalar_mds=isa (reed_sol_van and cauchy), jerasure cauchy_good / cauchy_orig /
// liber8tion / reed_sol_r6_op, shortened codes (nu > 0), d < k+m-1 (aloof helpers) and wide
// codes such as k=10 m=4 d=13. testdata/make_ceph_vectors.py made testdata/
// ceph_16_2_15_vectors.txt: per vector the profile, stripe unit, object size, the seed of the
// object's bytes and the FNV-1a hash of every shard. Here each object is regenerated, encoded
// stripe by stripe (hashes must match Ceph's), decoded back, and every shard of every stripe is
// repaired from exactly the planned sub-chunks (d * chunk/q bytes per stripe).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "plugins/clay/clay_test_util.h"

namespace ec {
namespace {

std::uint64_t Fnv1a(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  for (std::uint8_t b : bytes) {
    h ^= b;
    h *= 0x100000001B3ull;
  }
  return h;
}

Buffer Object(std::uint64_t seed, std::size_t size) {
  Buffer b = Buffer::Allocate(size, false);
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < size; ++i) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    b.udata()[i] = static_cast<std::uint8_t>(state);
  }
  return b;
}

struct Vector {
  std::string profile;
  unsigned stripe_unit = 0;
  std::size_t object_size = 0;
  std::uint64_t seed = 0;
  std::vector<std::uint64_t> hashes;
};

std::string Check(const Vector& v) {
  std::string text = v.profile;
  std::replace(text.begin(), text.end(), ',', ' ');
  Status st;
  auto code = clay_test::MakeClay(text, &st);
  if (!code) return "factory: " + st.ToString();
  const int k = static_cast<int>(code->get_data_chunk_count());
  const int n = static_cast<int>(code->get_chunk_count());
  if (static_cast<int>(v.hashes.size()) != n) return "the vector has the wrong number of shards";
  const std::size_t su = v.stripe_unit;
  const std::size_t width = su * k;
  if (code->get_chunk_size(static_cast<unsigned>(width)) != su) return "stripe unit rounded up";
  const std::size_t stripes = (v.object_size + width - 1) / width;
  Buffer object = Object(v.seed, v.object_size);
  Buffer padded = Buffer::Allocate(stripes * width, true);
  std::memcpy(padded.data(), object.data(), v.object_size);
  std::vector<std::vector<std::uint8_t>> shards(n);
  std::vector<ChunkMap> stripe_chunks(stripes);
  for (std::size_t s = 0; s < stripes; ++s) {
    stripe_chunks[s] = clay_test::EncodeAll(*code, padded.Slice(s * width, width));
    for (int id = 0; id < n; ++id) {
      const Buffer& c = stripe_chunks[s].at(id);
      shards[id].insert(shards[id].end(), c.udata(), c.udata() + c.size());
    }
  }
  for (int id = 0; id < n; ++id) {
    if (Fnv1a(shards[id]) != v.hashes[id]) return "shard " + std::to_string(id) + " differs";
  }
  const std::size_t sub = su / code->get_sub_chunk_count();
  for (std::size_t s = 0; s < stripes; ++s) {
    const ChunkMap& chunks = stripe_chunks[s];
    ChunkMap last_k;
    for (int id = n - k; id < n; ++id) last_k[id] = chunks.at(id);
    Buffer data;
    st = code->decode_concat({}, last_k, &data);
    if (!st.ok() || !clay_test::SameBytes(data, padded.Slice(s * width, width)))
      return "stripe " + std::to_string(s) + " does not decode";
    for (int lost = 0; lost < n; ++lost) {
      ShardSet others;
      for (int id = 0; id < n; ++id)
        if (id != lost) others.insert(id);
      Result<SubChunkPlan> plan = code->minimum_to_decode({lost}, others);
      if (!plan.ok()) return plan.status().ToString();
      ChunkMap helpers;
      std::size_t sent = 0;
      for (const auto& [id, ranges] : *plan) {
        helpers[id] = clay_test::Gather(chunks.at(id), ranges, sub);
        sent += helpers[id].size();
      }
      if (sent != static_cast<std::size_t>(code->layout().d()) * su / code->layout().q())
        return "repair of " + std::to_string(lost) + " reads " + std::to_string(sent) + " bytes";
      ChunkMap decoded;
      st = code->decode({lost}, helpers, &decoded, su);
      if (!st.ok()) return "repair: " + st.ToString();
      if (!clay_test::SameBytes(decoded.at(lost), chunks.at(lost)))
        return "stripe " + std::to_string(s) + " chunk " + std::to_string(lost) +
               " repairs differently";
    }
  }
  return "";
}

TEST(ClayCephVectors, MadeByCeph16) {
  const std::string path =
      std::string(ECSTORE_SOURCE_DIR) + "/plugins/clay/testdata/ceph_16_2_15_vectors.txt";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing " << path;
  std::vector<Vector> vectors;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    Vector v;
    words >> v.profile >> v.stripe_unit >> v.object_size >> v.seed;
    for (std::string h; words >> h;) v.hashes.push_back(std::stoull(h, nullptr, 16));
    vectors.push_back(v);
  }
  ASSERT_GE(vectors.size(), 15u) << path << " is incomplete";
  for (const Vector& v : vectors) EXPECT_EQ(Check(v), "") << v.profile;
  std::cout << "[clay ceph16 vectors] " << vectors.size() << " profiles checked\n";
}

}  // namespace
}  // namespace ec
