// jerasure plugin against Ceph's non-regression corpus (ceph-erasure-code-corpus v0.92-988): for
// every `plugin=jerasure ...` folder, re-encode `content` and compare every chunk file byte for
// byte, then decode with {0} and {0, N-1} erased and compare (Ceph's --check). A missing corpus
// is a failure, never a skip.
//
// The corpus is found at $ECSTORE_SHARED/ceph-erasure-code-corpus, else next to the source tree
// (../shared).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "plugins/jerasure/jerasure_test_util.h"

namespace ec::jerasure {
namespace {

namespace fs = std::filesystem;

fs::path CorpusDir() {
  const char* shared = std::getenv("ECSTORE_SHARED");
  fs::path base =
      shared && *shared ? fs::path(shared) : fs::path(ECSTORE_SOURCE_DIR) / ".." / "shared";
  return base / "ceph-erasure-code-corpus" / "v0.92-988";
}

bool ReadFile(const fs::path& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

bool Same(const Buffer& b, const std::string& bytes) {
  return b.size() == bytes.size() && std::memcmp(b.data(), bytes.data(), bytes.size()) == 0;
}

// Runs Ceph's --check on one folder; returns "" on success, else what went wrong.
std::string CheckFolder(const fs::path& dir, std::string* technique) {
  // "plugin=jerasure stripe-width=W key=value ..." is the profile (plus plugin).
  std::istringstream words(dir.filename().string());
  std::string word;
  Profile profile;
  unsigned stripe_width = 0;
  while (words >> word) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) return "bad folder name";
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "stripe-width")
      stripe_width = static_cast<unsigned>(std::stoul(value));
    else
      profile[key] = value;
  }
  *technique = profile["technique"];
  JerasurePlugin plugin;
  ErasureCodeInterfaceRef code;
  if (Status s = plugin.factory("", profile, &code); !s.ok()) return "factory: " + s.message();

  std::string content;
  if (!ReadFile(dir / "content", &content)) return "no content file";
  if (content.size() != stripe_width) return "content is not stripe-width bytes";
  const unsigned n = code->get_chunk_count();
  ShardSet all;
  for (unsigned i = 0; i < n; ++i) all.insert(static_cast<int>(i));
  ChunkMap encoded;
  if (Status s = code->encode(all, AsBytes(content.data(), content.size()), &encoded); !s.ok())
    return "encode: " + s.message();

  std::map<int, std::string> stored;
  for (unsigned i = 0; i < n; ++i) {
    if (!ReadFile(dir / std::to_string(i), &stored[i]))
      return "missing chunk file " + std::to_string(i);
    if (!Same(encoded[i], stored[i])) return "chunk " + std::to_string(i) + " encodes differently";
  }

  std::vector<ShardSet> erasures = {{0}};
  if (code->get_coding_chunk_count() > 1) erasures.push_back({0, static_cast<int>(n - 1)});
  for (const ShardSet& erased : erasures) {
    ChunkMap available;
    for (unsigned i = 0; i < n; ++i) {
      if (!erased.count(static_cast<int>(i))) {
        available[i] = Buffer::Copy(AsBytes(stored[i].data(), stored[i].size()));
      }
    }
    ChunkMap decoded;
    if (Status s = code->decode(erased, available, &decoded, stored[0].size()); !s.ok())
      return "decode: " + s.message();
    for (int id : erased) {
      if (!Same(decoded[id], stored[id]))
        return "chunk " + std::to_string(id) + " incorrectly recovered";
    }
  }
  return "";
}

TEST(JerasureCorpus, EveryJerasureFolderIsByteIdentical) {
  const fs::path corpus = CorpusDir();
  ASSERT_TRUE(fs::is_directory(corpus))
      << "Ceph corpus not found at " << corpus
      << " (set ECSTORE_SHARED to the folder holding ceph-erasure-code-corpus)";
  std::map<std::string, std::pair<int, int>> per_technique;  // passed, total
  int failures = 0;
  for (const auto& entry : fs::directory_iterator(corpus)) {
    if (!entry.is_directory()) continue;
    if (entry.path().filename().string().rfind("plugin=jerasure", 0) != 0) continue;
    std::string technique;
    const std::string problem = CheckFolder(entry.path(), &technique);
    auto& [passed, total] = per_technique[technique];
    ++total;
    if (problem.empty()) {
      ++passed;
    } else if (++failures <= 20) {
      ADD_FAILURE() << entry.path().filename() << ": " << problem;
    }
  }
  // Folder counts of v0.92-988 (with and without jerasure-per-chunk-alignment).
  const std::map<std::string, int> expected = {
      {"reed_sol_van", 180}, {"reed_sol_r6_op", 60}, {"cauchy_orig", 180}, {"cauchy_good", 180},
      {"liberation", 60},    {"blaum_roth", 60},     {"liber8tion", 60}};
  for (const auto& [technique, count] : expected) {
    const auto [passed, total] = per_technique[technique];
    std::cout << technique << ": " << passed << "/" << total << " folders byte-identical\n";
    EXPECT_EQ(total, count) << technique;
    EXPECT_EQ(passed, total) << technique;
  }
  EXPECT_EQ(per_technique.size(), expected.size());
  EXPECT_EQ(failures, 0);
}

}  // namespace
}  // namespace ec::jerasure
