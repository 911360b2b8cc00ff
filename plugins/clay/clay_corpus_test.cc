// Known-answer tests against bytes Ceph produced:
//   - every folder of ceph-erasure-code-corpus/v14.0.0-3924 (Ceph's non-regression --check:
//     re-encode `content`, compare every chunk, decode with {0} and {0, N-1} erased);
//   - the clay folders of ceph-vectors (Ceph 16.2.15 ceph-erasure-code-tool shards: stripe by
//     stripe encode, shard = concatenation of the stripes' chunks), encoded and decoded back.
// A missing corpus, file or case is a failure, never a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <iostream>
#include <sstream>

#include "plugins/clay/clay_test_util.h"

namespace ec {
namespace {

namespace fs = std::filesystem;
using clay_test::ReadFile;
using clay_test::SameBytes;

constexpr std::size_t kExpectedCorpusCases = 180;

// "plugin=clay stripe-width=4651 scalar_mds=jerasure technique=reed_sol_van k=8 m=3 d=10".
std::string ParseCaseName(const std::string& name, std::string* profile, unsigned* stripe_width) {
  std::istringstream words(name);
  std::string word;
  int index = 0;
  while (words >> word) {
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return "bad word '" + word + "' in the folder name";
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (index == 0 && word != "plugin=clay")
      return "the folder name does not start with plugin=clay";
    if (index == 1) {
      if (key != "stripe-width") return "the second word is not stripe-width=";
      *stripe_width = static_cast<unsigned>(std::stoul(value));
    } else if (index > 1) {
      *profile += word + " ";
    }
    ++index;
  }
  return index >= 2 ? "" : "the folder name has no stripe-width";
}

std::string DecodeErasures(const ErasureCodeInterface& code, const std::vector<Buffer>& stored,
                           const ShardSet& erasures) {
  ChunkMap available;
  for (int id = 0; id < static_cast<int>(stored.size()); ++id)
    if (!erasures.count(id)) available[id] = stored[id];
  ChunkMap decoded;
  Status st = code.decode(erasures, available, &decoded, stored[0].size());
  if (!st.ok()) return "decode failed: " + st.ToString();
  for (int id : erasures) {
    if (!decoded.count(id) || !SameBytes(decoded.at(id), stored[id]))
      return "chunk " + std::to_string(id) + " incorrectly recovered";
  }
  return "";
}

std::string CheckCorpusCase(const fs::path& dir) {
  std::string profile;
  unsigned stripe_width = 0;
  if (std::string e = ParseCaseName(dir.filename().string(), &profile, &stripe_width); !e.empty())
    return e;
  Status st;
  auto code = clay_test::MakeClay(profile, &st);
  if (!code) return "factory: " + st.ToString();
  Buffer content;
  if (!ReadFile(dir / "content", &content)) return "cannot read content";
  if (content.size() != stripe_width) return "content is not stripe-width bytes";
  const int n = static_cast<int>(code->get_chunk_count());
  std::vector<Buffer> stored(n);
  for (int id = 0; id < n; ++id) {
    if (!ReadFile(dir / std::to_string(id), &stored[id]))
      return "cannot read chunk file " + std::to_string(id);
  }
  if (fs::exists(dir / std::to_string(n))) return "more chunk files than get_chunk_count()";
  if (stored[0].size() != code->get_chunk_size(stripe_width)) return "chunk size differs";
  ChunkMap encoded = clay_test::EncodeAll(*code, content);
  for (int id = 0; id < n; ++id) {
    if (!SameBytes(encoded.at(id), stored[id]))
      return "chunk " + std::to_string(id) + " encodes differently";
  }
  if (std::string e = DecodeErasures(*code, stored, {0}); !e.empty()) return e;
  if (code->get_coding_chunk_count() > 1) {
    if (std::string e = DecodeErasures(*code, stored, {0, n - 1}); !e.empty()) return e;
  }
  return "";
}

TEST(ClayCorpus, EveryCaseOfV14_0_0_3924) {
  const fs::path root = clay_test::SharedDir() / "ceph-erasure-code-corpus" / "v14.0.0-3924";
  ASSERT_TRUE(fs::is_directory(root))
      << "the Ceph clay corpus is missing: " << root
      << " is not a directory (set ECSTORE_SHARED to the folder holding ceph-erasure-code-corpus)";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory()) cases.push_back(entry.path());
  std::sort(cases.begin(), cases.end());
  std::size_t passed = 0;
  for (const auto& dir : cases) {
    std::string error = CheckCorpusCase(dir);
    if (error.empty())
      ++passed;
    else
      ADD_FAILURE() << "corpus case '" << dir.filename().string() << "': " << error;
  }
  std::cout << "[clay corpus] " << passed << "/" << cases.size() << " cases pass in " << root
            << "\n";
  EXPECT_EQ(cases.size(), kExpectedCorpusCases) << "the corpus under " << root << " is incomplete";
  EXPECT_EQ(passed, cases.size());
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
  const fs::path root = clay_test::SharedDir() / "ceph-vectors";
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
