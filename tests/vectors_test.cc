// Every folder of $ECSTORE_SHARED/ceph-vectors (shards written by Ceph 16.2.15's
// ceph-erasure-code-tool) through build/bin/ec-tool:
//   - `ec-tool encode PROFILE STRIPE_UNIT ... input` writes shard files identical to input.N;
//   - `ec-tool decode` gives back `input` padded with zeros to whole stripes from every subset of
//     k shards when k+m <= 6, from 20 random k-subsets otherwise (the seed is printed; set
//     ECSTORE_TEST_SEED to replay a run: tests/support/test_env.h).
// jerasure and isa folders must pass; folders of other plugins (clay) are checked once their
// plugin exists in build/lib and are reported by name as "plugin not available yet" before.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/system_test_support.h"

namespace {

using ectest::fs::path;

constexpr unsigned kRandomSubsets = 20;
constexpr unsigned kExhaustiveLimit = 6;  // k+m up to this: every k-subset

path VectorsDir() {
  return ectest::SharedDir() / "ceph-vectors";
}

std::string PluginOf(const std::string& profile) {
  std::size_t at = profile.find("plugin=");
  if (at == std::string::npos) return "";
  std::size_t end = profile.find_first_of(", ", at);
  return profile.substr(at + 7, end == std::string::npos ? std::string::npos : end - at - 7);
}

std::string Join(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

// All k-subsets of 0..n-1 in lexicographic order.
std::vector<std::vector<int>> AllSubsets(int n, int k) {
  std::vector<std::vector<int>> subsets;
  std::vector<int> pick(k);
  std::iota(pick.begin(), pick.end(), 0);
  for (;;) {
    subsets.push_back(pick);
    int i = k - 1;
    while (i >= 0 && pick[i] == n - k + i) --i;
    if (i < 0) return subsets;
    ++pick[i];
    for (int j = i + 1; j < k; ++j) pick[j] = pick[j - 1] + 1;
  }
}

std::vector<std::vector<int>> RandomSubsets(int n, int k, unsigned seed, unsigned count) {
  std::mt19937 random(seed);
  std::vector<std::vector<int>> subsets;
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);
  for (unsigned i = 0; i < count; ++i) {
    std::shuffle(all.begin(), all.end(), random);
    std::vector<int> pick(all.begin(), all.begin() + k);
    std::sort(pick.begin(), pick.end());
    subsets.push_back(pick);
  }
  return subsets;
}

int ValidateCount(const std::string& profile, const std::string& param) {
  ectest::ToolRun run = ectest::RunTool({"validate-profile", profile, param});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.exit_code == 0 ? std::stoi(run.out) : -1;
}

// Encodes and decodes one folder; returns true if everything matched.
bool VerifyFolder(const path& dir, unsigned seed) {
  const std::string name = dir.filename().string();
  SCOPED_TRACE("vector folder " + name);
  const std::string profile = ectest::ReadText(dir / "profile");
  const std::string su_text = ectest::ReadText(dir / "stripe_unit");
  const std::size_t su = std::stoul(su_text);
  const int n = ValidateCount(profile, "chunk_count");
  const int k = ValidateCount(profile, "data_chunk_count");
  if (n <= 0 || k <= 0) return false;
  const std::vector<std::byte> input = ectest::ReadBytes(dir / "input");
  bool ok = input.size() == std::stoul(ectest::ReadText(dir / "object_size"));
  EXPECT_TRUE(ok) << name << ": input does not have object_size bytes";

  // The folder must hold exactly the n reference shards.
  std::set<std::string> expected_files = {"SHA256SUMS", "input", "object_size", "profile",
                                          "stripe_unit"};
  for (int i = 0; i < n; ++i) expected_files.insert("input." + std::to_string(i));
  ok = ok && ectest::ListDir(dir) == expected_files;
  EXPECT_EQ(ectest::ListDir(dir), expected_files);

  ectest::TempDir tmp;
  std::vector<int> all(n);
  std::iota(all.begin(), all.end(), 0);

  // Encode.
  ectest::WriteBytes(tmp / "input", input);
  std::vector<std::string> args = {"encode", profile, su_text, Join(all), (tmp / "input").string()};
  ectest::ToolRun run = ectest::RunTool(args);
  EXPECT_EQ(run.exit_code, 0) << ectest::Describe(args) << "\n" << run.err;
  std::set<std::string> encoded_files = {"input"};
  for (int i = 0; i < n; ++i) encoded_files.insert("input." + std::to_string(i));
  EXPECT_EQ(ectest::ListDir(tmp.path()), encoded_files);
  ok = ok && run.exit_code == 0 && ectest::ListDir(tmp.path()) == encoded_files;
  for (int i = 0; i < n && run.exit_code == 0; ++i) {
    const std::string shard = "input." + std::to_string(i);
    bool same = ectest::ReadBytes(tmp / shard) == ectest::ReadBytes(dir / shard);
    EXPECT_TRUE(same) << name << ": ec-tool encode wrote a different " << shard;
    ok = ok && same;
  }

  // Decode from the reference shards.
  const std::size_t sw = su * static_cast<std::size_t>(k);
  std::vector<std::byte> padded = input;
  padded.resize((input.size() + sw - 1) / sw * sw);
  ectest::TempDir shards;
  for (int i = 0; i < n; ++i) {
    const std::string shard = "input." + std::to_string(i);
    ectest::fs::copy_file(dir / shard, shards / shard);
  }
  const bool exhaustive = static_cast<unsigned>(n) <= kExhaustiveLimit;
  std::vector<std::vector<int>> subsets =
      exhaustive ? AllSubsets(n, k) : RandomSubsets(n, k, seed, kRandomSubsets);
  std::cout << name << ": decoding from " << subsets.size() << (exhaustive ? " (all) " : " random ")
            << k << "-subsets of " << n << " shards"
            << (exhaustive ? "" : ", seed " + std::to_string(seed)) << std::endl;
  for (const std::vector<int>& subset : subsets) {
    const path out = shards / "input";
    args = {"decode", profile, su_text, Join(subset), out.string()};
    run = ectest::RunTool(args);
    bool good = run.exit_code == 0 && ectest::ReadBytes(out) == padded;
    EXPECT_TRUE(good) << ectest::Describe(args) << " (seed " << seed << ") exit " << run.exit_code
                      << "\n"
                      << run.err;
    ok = ok && good;
    ectest::fs::remove(out);
  }
  return ok;
}

// Runs every folder whose profile names one of `plugins`; returns the number of folders.
int VerifyPlugins(const std::set<std::string>& plugins) {
  const unsigned seed = static_cast<unsigned>(ectest::Seed());
  int folders = 0;
  for (const std::string& folder : ectest::SubFolders(VectorsDir())) {
    const path dir = VectorsDir() / folder;
    const std::string plugin = PluginOf(ectest::ReadText(dir / "profile"));
    if (!plugins.count(plugin)) continue;
    ++folders;
    if (!ectest::PluginRequired(plugin) && !ectest::PluginBuilt(plugin)) {
      std::cout << "plugin not available yet: ceph-vectors/" << folder << std::endl;
      continue;
    }
    if (VerifyFolder(dir, seed)) std::cout << "passed: ceph-vectors/" << folder << std::endl;
  }
  return folders;
}

TEST(VectorsTest, EveryFolderBelongsToAKnownPlugin) {
  std::vector<std::string> folders = ectest::SubFolders(VectorsDir());
  EXPECT_FALSE(folders.empty()) << "no folder in " << VectorsDir();
  for (const std::string& folder : folders) {
    const path profile = VectorsDir() / folder / "profile";
    ASSERT_TRUE(ectest::fs::exists(profile)) << profile;
    const std::string plugin = PluginOf(ectest::ReadText(profile));
    EXPECT_TRUE(plugin == "jerasure" || plugin == "isa" || plugin == "clay")
        << folder << ": plugin '" << plugin << "' has no vectors test yet";
  }
}

TEST(VectorsTest, JerasureFolders) {
  EXPECT_GT(VerifyPlugins({"jerasure"}), 0);
}

TEST(VectorsTest, IsaFolders) {
  EXPECT_GT(VerifyPlugins({"isa"}), 0);
}

// Checked once build/lib/libec_clay.so exists, reported by name until then.
TEST(VectorsTest, ClayFolders) {
  EXPECT_GT(VerifyPlugins({"clay"}), 0);
}

}  // namespace
