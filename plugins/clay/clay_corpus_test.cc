// Known-answer tests against bytes Ceph produced:
//   - every folder of ceph-erasure-code-corpus/v14.0.0-3924 through the built-in plugin, with the
//     one corpus checker (tests/support/corpus_checker.h: Ceph's non-regression --check,
//     re-encode `content`, compare every chunk, decode with {0} and {0, N-1} erased);
//   - the clay folders of ceph-vectors (Ceph 16.2.15 ceph-erasure-code-tool shards: stripe by
//     stripe encode, shard = concatenation of the stripes' chunks), encoded and decoded back.
// A missing corpus, file or case is a failure, never a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <sstream>

#include "ec/plugin.h"
#include "plugins/clay/clay_plugin.h"
#include "plugins/clay/clay_test_util.h"
#include "tests/support/corpus_checker.h"
#include "tests/support/test_env.h"

namespace ec {
namespace {

namespace fs = std::filesystem;
using clay_test::ReadFile;
using clay_test::SameBytes;

TEST(ClayCorpus, EveryCaseOfV14_0_0_3924) {
  RegisterClayBuiltin();
  ectest::ExpectCorpusPasses(ectest::CorpusPartOf("clay"), PluginRegistry::default_directory());
}

// Ceph's tool profile text "plugin=clay,k=4,m=2" -> our "k=4 m=2".
std::string ToolProfile(std::string text) {
  std::replace(text.begin(), text.end(), ',', ' ');
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::string CheckVectorCase(const fs::path& dir) {
  Buffer profile_text, stripe_unit_text, input;
  if (!ReadFile(dir / "profile", &profile_text)) return "cannot read profile";
  if (!ReadFile(dir / "stripe_unit", &stripe_unit_text)) return "cannot read stripe_unit";
  if (!ReadFile(dir / "input", &input)) return "cannot read input";
  const std::string profile(reinterpret_cast<const char*>(profile_text.data()),
                            profile_text.size());
  const unsigned stripe_unit = static_cast<unsigned>(std::stoul(std::string(
      reinterpret_cast<const char*>(stripe_unit_text.data()), stripe_unit_text.size())));
  Status st;
  auto code = clay_test::MakeClay(ToolProfile(profile), &st);
  if (!code) return "factory: " + st.ToString();
  const unsigned k = code->get_data_chunk_count();
  const int n = static_cast<int>(code->get_chunk_count());
  const std::size_t stripe_width = static_cast<std::size_t>(k) * stripe_unit;
  if (code->get_chunk_size(static_cast<unsigned>(stripe_width)) != stripe_unit)
    return "the plugin rounds the stripe unit up";
  const std::size_t stripes = (input.size() + stripe_width - 1) / stripe_width;
  Buffer padded = Buffer::Allocate(stripes * stripe_width, true);
  std::memcpy(padded.data(), input.data(), input.size());
  std::vector<Buffer> expected(n);
  for (int id = 0; id < n; ++id) {
    if (!ReadFile(dir / ("input." + std::to_string(id)), &expected[id]))
      return "cannot read input." + std::to_string(id);
    if (expected[id].size() != stripes * stripe_unit) return "shard size differs";
  }
  // Encode stripe by stripe, compare each chunk with its place in the shard; then decode every
  // stripe from the last k shards (erasing the first m) and compare with the padded input.
  for (std::size_t s = 0; s < stripes; ++s) {
    Buffer stripe = padded.Slice(s * stripe_width, stripe_width);
    ChunkMap chunks = clay_test::EncodeAll(*code, stripe);
    for (int id = 0; id < n; ++id) {
      if (!SameBytes(chunks.at(id).span(), expected[id].Slice(s * stripe_unit, stripe_unit).span()))
        return "stripe " + std::to_string(s) + " chunk " + std::to_string(id) + " differs";
    }
    ChunkMap available;
    for (int id = n - static_cast<int>(k); id < n; ++id)
      available[id] = expected[id].Slice(s * stripe_unit, stripe_unit);
    Buffer data;
    st = code->decode_concat({}, available, &data);
    if (!st.ok()) return "decode: " + st.ToString();
    if (!SameBytes(data, stripe)) return "stripe " + std::to_string(s) + " decodes differently";
  }
  return "";
}

TEST(ClayCorpus, CephToolVectors) {
  const fs::path root = ectest::SharedDir() / "ceph-vectors";
  ASSERT_TRUE(fs::is_directory(root)) << "ceph-vectors is missing: " << root;
  std::size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (!entry.is_directory() || entry.path().filename().string().rfind("clay", 0) != 0) continue;
    ++cases;
    std::string error = CheckVectorCase(entry.path());
    EXPECT_EQ(error, "") << entry.path().filename().string();
  }
  std::cout << "[clay vectors] " << cases << " clay folders checked in " << root << "\n";
  EXPECT_GE(cases, 2u) << "the clay folders of ceph-vectors are missing";
}

}  // namespace
}  // namespace ec
