// Ceph's non-regression corpus for the lrc plugin (ceph_erasure_code_non_regression --check):
// for every v0.92-988 case whose folder name starts with "plugin=lrc", re-encode `content`,
// compare every chunk file byte for byte, then decode with {0} and {0, N-1} erased and compare;
// beyond Ceph's check, every single lost chunk is rebuilt from minimum_to_decode's plan alone.
// A missing corpus, a missing file or a case that cannot be run is a failure, never a skip.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>
#include <vector>

#include "ec/plugin.h"
#include "plugins/lrc/lrc_plugin.h"
#include "plugins/lrc/lrc_test_util.h"

namespace ec {
namespace {

namespace fs = std::filesystem;
using lrc_test::ReadFile;
using lrc_test::SameBytes;

constexpr std::size_t kExpectedLrcCases = 18;  // 3 (k,m,l) x 6 stripe widths

// "plugin=lrc stripe-width=4651 k=4 m=2 l=3" -> profile and stripe width.
std::string ParseCaseName(const std::string& name, Profile* profile, unsigned* stripe_width) {
  std::istringstream words(name);
  std::string word;
  int index = 0;
  while (words >> word) {
    std::size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0) return "bad word '" + word + "' in the folder name";
    std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (index == 0 && key != "plugin") return "the folder name does not start with plugin=";
    if (index == 1) {
      if (key != "stripe-width") return "the second word is not stripe-width=";
      *stripe_width = static_cast<unsigned>(std::stoul(value));
    } else {
      (*profile)[key] = value;
    }
    ++index;
  }
  return index >= 2 ? "" : "the folder name has no stripe-width";
}

// Decodes `erasures` from `available` and compares with `stored`.
std::string Rebuild(const ErasureCodeInterface& code, const std::vector<Buffer>& stored,
                    const ShardSet& erasures, const ShardSet& available) {
  ChunkMap chunks;
  for (int id : available) chunks[id] = stored[static_cast<std::size_t>(id)];
  ChunkMap decoded;
  Status st = code.decode(erasures, chunks, &decoded, stored[0].size());
  if (!st.ok()) return "decode failed: " + st.ToString();
  for (int id : erasures) {
    if (!decoded.count(id) || !SameBytes(decoded.at(id), stored[static_cast<std::size_t>(id)]))
      return "chunk " + std::to_string(id) + " incorrectly recovered";
  }
  return "";
}

// Returns "" when the case passes, else what went wrong.
std::string CheckCase(const fs::path& dir) {
  Profile profile;
  unsigned stripe_width = 0;
  if (std::string e = ParseCaseName(dir.filename().string(), &profile, &stripe_width); !e.empty())
    return e;
  ErasureCodeInterfaceRef code;
  Status st = PluginRegistry::instance().factory("lrc", PluginRegistry::default_directory(),
                                                 profile, &code);
  if (!st.ok()) return "factory: " + st.ToString();

  Buffer content;
  if (!ReadFile(dir / "content", &content)) return "cannot read content";
  if (content.size() != stripe_width) return "content is not stripe-width bytes";
  const int n = static_cast<int>(code->get_chunk_count());
  std::vector<Buffer> stored(static_cast<std::size_t>(n));
  for (int id = 0; id < n; ++id) {
    if (!ReadFile(dir / std::to_string(id), &stored[static_cast<std::size_t>(id)]))
      return "cannot read chunk file " + std::to_string(id);
  }
  if (fs::exists(dir / std::to_string(n))) return "more chunk files than get_chunk_count()";
  if (stored[0].size() != code->get_chunk_size(stripe_width)) return "chunk size differs";

  ShardSet all;
  for (int id = 0; id < n; ++id) all.insert(id);
  ChunkMap encoded;
  st = code->encode(all, content.span(), &encoded);
  if (!st.ok()) return "encode: " + st.ToString();
  for (int id = 0; id < n; ++id) {
    if (!encoded.count(id) || !SameBytes(encoded.at(id), stored[static_cast<std::size_t>(id)]))
      return "chunk " + std::to_string(id) + " encodes differently";
  }
  auto without = [&](const ShardSet& lost) {
    ShardSet rest;
    for (int id : all)
      if (!lost.count(id)) rest.insert(id);
    return rest;
  };
  if (std::string e = Rebuild(*code, stored, {0}, without({0})); !e.empty()) return e;
  if (std::string e = Rebuild(*code, stored, {0, n - 1}, without({0, n - 1})); !e.empty()) return e;
  for (int lost = 0; lost < n; ++lost) {
    auto plan = code->minimum_to_decode({lost}, without({lost}));
    if (!plan.ok()) return "minimum_to_decode: " + plan.status().ToString();
    ShardSet reads;
    for (const auto& [id, ranges] : *plan) reads.insert(id);
    if (std::string e = Rebuild(*code, stored, {lost}, reads); !e.empty())
      return e + " from the plan";
  }
  return "";
}

TEST(LrcCorpus, EveryLrcCaseOfV0_92_988) {
  RegisterLrcBuiltin();
  const fs::path root = lrc_test::SharedDir() / "ceph-erasure-code-corpus" / "v0.92-988";
  ASSERT_TRUE(fs::is_directory(root))
      << "the Ceph erasure-code corpus is missing: " << root
      << " is not a directory (set ECSTORE_SHARED to the folder holding ceph-erasure-code-corpus)";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("plugin=lrc", 0) == 0)
      cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  std::size_t passed = 0;
  for (const auto& dir : cases) {
    std::string error = CheckCase(dir);
    if (error.empty()) {
      ++passed;
    } else {
      ADD_FAILURE() << "corpus case '" << dir.filename().string() << "': " << error;
    }
  }
  std::cout << "[lrc corpus] " << passed << "/" << cases.size() << " cases pass in " << root
            << "\n";
  EXPECT_EQ(cases.size(), kExpectedLrcCases) << "the corpus under " << root << " is incomplete";
  EXPECT_EQ(passed, cases.size());
}

}  // namespace
}  // namespace ec
