// Ceph's non-regression corpus for the shec plugin (ceph_erasure_code_non_regression --check):
// for every v0.92-988 case whose folder name starts with "plugin=shec", re-encode `content`,
// compare every chunk file byte for byte, then decode with {0} and (m > 1) {0, N-1} erased and
// compare. A missing corpus, a missing file or a case that cannot be run is a failure, never a
// skip. The code comes from libec_shec.so through the registry, as a deployed program gets it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include "ec/plugin.h"
#include "plugins/shec/shec_test_util.h"

namespace ec {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kExpectedShecCases = 114;  // 19 (k,m,c) x 6 stripe widths

std::string PluginDir() {
  const char* env = std::getenv("EC_PLUGIN_DIR");
  return env != nullptr ? env : PluginRegistry::default_directory();
}

bool ReadFile(const fs::path& path, Buffer* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  *out = Buffer::Copy(AsBytes(bytes.data(), bytes.size()));
  return true;
}

bool SameBytes(const Buffer& a, const Buffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

// "plugin=shec stripe-width=4651 technique=multiple k=3 m=2 c=1" -> profile and stripe width.
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
    } else if (index > 1) {
      (*profile)[key] = value;
    }
    ++index;
  }
  return index >= 2 ? "" : "the folder name has no stripe-width";
}

std::string DecodeErasures(const ErasureCodeInterface& code, const std::vector<Buffer>& stored,
                           const ShardSet& erasures) {
  ChunkMap available;
  for (int id = 0; id < static_cast<int>(stored.size()); ++id) {
    if (!erasures.count(id)) available[id] = stored[id];
  }
  ChunkMap decoded;
  Status st = code.decode(erasures, available, &decoded, available.begin()->second.size());
  if (!st.ok()) return "decode failed: " + st.ToString();
  for (int id : erasures) {
    if (!decoded.count(id) || !SameBytes(decoded.at(id), stored[id])) {
      return "chunk " + std::to_string(id) + " incorrectly recovered";
    }
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
  Status st = PluginRegistry::instance().factory("shec", PluginDir(), profile, &code);
  if (!st.ok()) return "factory: " + st.ToString();

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

  ShardSet all;
  for (int id = 0; id < n; ++id) all.insert(id);
  ChunkMap encoded;
  st = code->encode(all, content.span(), &encoded);
  if (!st.ok()) return "encode: " + st.ToString();
  for (int id = 0; id < n; ++id) {
    if (!encoded.count(id) || !SameBytes(encoded.at(id), stored[id]))
      return "chunk " + std::to_string(id) + " encodes differently";
  }
  if (std::string e = DecodeErasures(*code, stored, {0}); !e.empty()) return e;
  if (code->get_coding_chunk_count() > 1) {
    if (std::string e = DecodeErasures(*code, stored, {0, n - 1}); !e.empty()) return e;
  }
  return "";
}

TEST(ShecCorpus, EveryShecCaseOfV0_92_988) {
  const fs::path root = shec_test::SharedDir() / "ceph-erasure-code-corpus" / "v0.92-988";
  ASSERT_TRUE(fs::is_directory(root))
      << "the Ceph erasure-code corpus is missing: " << root
      << " is not a directory (set ECSTORE_SHARED to the folder holding ceph-erasure-code-corpus)";
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (entry.is_directory() && entry.path().filename().string().rfind("plugin=shec", 0) == 0)
      cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  std::size_t passed = 0;
  for (const auto& dir : cases) {
    const std::string name = dir.filename().string();
    std::string error = CheckCase(dir);
    if (error.empty()) {
      ++passed;
    } else {
      ADD_FAILURE() << "corpus case '" << name << "': " << error;
    }
  }
  std::cout << "[shec corpus] " << passed << "/" << cases.size() << " cases pass in " << root
            << "\n";
  EXPECT_EQ(cases.size(), kExpectedShecCases) << "the corpus under " << root << " is incomplete";
  EXPECT_EQ(passed, cases.size());
}

}  // namespace
}  // namespace ec
