// Every folder of Ceph's ceph-erasure-code-corpus (a copy in $ECSTORE_SHARED) goes through the
// `ec-tool non-regression --check` logic (ec_tool_lib, the code the tool runs): re-encode
// `content` and compare every chunk, decode with {0} and {0, N-1} erased.
//
// jerasure, isa, lrc and shec folders must all pass. Folders of other plugins (clay
// in v14.0.0-3924) are checked as soon as build/lib holds their plugin and are reported by name
// as "plugin not available yet" before that; every folder is counted, none is silently skipped.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/system_test_support.h"
#include "tools/ec_tool/non_regression.h"

namespace {

using ectest::fs::path;

// Folder counts of the corpus copy (see ceph-erasure-code-corpus/README.md).
const std::map<std::string, int> kV092Folders = {
    {"jerasure", 780}, {"isa", 156}, {"lrc", 18}, {"shec", 114}};
constexpr int kV14ClayFolders = 180;

path CorpusSet(const std::string& name) {
  return ectest::SharedDir() / "ceph-erasure-code-corpus" / name;
}

std::string PluginOf(const std::string& folder) {
  std::string word = folder.substr(0, folder.find(' '));
  return word.rfind("plugin=", 0) == 0 ? word.substr(7) : "";
}

struct Tally {
  int folders = 0;
  int passed = 0;
  int not_available = 0;
  std::vector<std::string> failures;
};

// Checks every folder of `set` that belongs to `plugin`.
Tally CheckPlugin(const std::string& set, const std::string& plugin) {
  Tally tally;
  const path dir = CorpusSet(set);
  const bool available = ectest::PluginBuilt(plugin);
  if (!available && ectest::PluginRequired(plugin)) {
    ADD_FAILURE() << "libec_" << plugin << ".so is not in " << ectest::PluginDir() << ": every "
                  << plugin << " folder fails";
  }
  for (const std::string& folder : ectest::SubFolders(dir)) {
    if (PluginOf(folder) != plugin) continue;
    ++tally.folders;
    if (!available && !ectest::PluginRequired(plugin)) {
      std::cout << "plugin not available yet: " << set << "/" << folder << "\n";
      ++tally.not_available;
      continue;
    }
    ec::Result<ec::tools::ec_tool::NonRegressionOptions> options =
        ec::tools::ec_tool::NonRegressionOptionsForFolder((dir / folder).string());
    ec::Status s = options.status();
    if (options.ok()) {
      options->plugin_dir = ectest::PluginDir().string();
      std::ostringstream warnings;
      s = ec::tools::ec_tool::CheckNonRegressionFolder(*options, &warnings);
      if (s.ok() && !warnings.str().empty()) s = ec::Status::Invalid(warnings.str());
    }
    if (s.ok()) {
      ++tally.passed;
    } else {
      tally.failures.push_back(folder + ": " + s.message());
    }
  }
  std::cout << set << " " << plugin << ": " << tally.folders << " folders, " << tally.passed
            << " passed, " << tally.failures.size() << " failed, " << tally.not_available
            << " plugin not available yet" << std::endl;
  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < tally.failures.size() && i < kShown; ++i) {
    ADD_FAILURE() << set << "/" << tally.failures[i];
  }
  if (tally.failures.size() > kShown) {
    ADD_FAILURE() << "... and " << tally.failures.size() - kShown << " more " << plugin
                  << " folders failed";
  }
  return tally;
}

TEST(CorpusTest, V092HoldsTheExpectedFolders) {
  const path dir = CorpusSet("v0.92-988");
  std::map<std::string, int> counts;
  for (const std::string& folder : ectest::SubFolders(dir)) ++counts[PluginOf(folder)];
  EXPECT_EQ(counts, kV092Folders) << "in " << dir;
}

TEST(CorpusTest, V14HoldsTheExpectedFolders) {
  const path dir = CorpusSet("v14.0.0-3924");
  std::map<std::string, int> counts;
  for (const std::string& folder : ectest::SubFolders(dir)) ++counts[PluginOf(folder)];
  EXPECT_EQ(counts, (std::map<std::string, int>{{"clay", kV14ClayFolders}})) << "in " << dir;
}

TEST(CorpusTest, V092JerasureFoldersPass) {
  Tally t = CheckPlugin("v0.92-988", "jerasure");
  EXPECT_EQ(t.folders, kV092Folders.at("jerasure"));
  EXPECT_EQ(t.passed, t.folders);
}

TEST(CorpusTest, V092IsaFoldersPass) {
  Tally t = CheckPlugin("v0.92-988", "isa");
  EXPECT_EQ(t.folders, kV092Folders.at("isa"));
  EXPECT_EQ(t.passed, t.folders);
}

TEST(CorpusTest, V092LrcFoldersPass) {
  Tally t = CheckPlugin("v0.92-988", "lrc");
  EXPECT_EQ(t.folders, kV092Folders.at("lrc"));
  EXPECT_EQ(t.passed, t.folders);
}

TEST(CorpusTest, V092ShecFoldersPass) {
  Tally t = CheckPlugin("v0.92-988", "shec");
  EXPECT_EQ(t.folders, kV092Folders.at("shec"));
  EXPECT_EQ(t.passed, t.folders);
}

// clay: checked once build/lib/libec_clay.so exists, reported by name until then.
TEST(CorpusTest, V14ClayFoldersPassOrAreReported) {
  Tally t = CheckPlugin("v14.0.0-3924", "clay");
  EXPECT_EQ(t.folders, kV14ClayFolders);
  if (ectest::PluginBuilt("clay")) {
    EXPECT_EQ(t.passed, kV14ClayFolders);
  } else {
    EXPECT_EQ(t.not_available, kV14ClayFolders);
  }
}

}  // namespace
