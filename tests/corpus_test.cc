// Every folder of Ceph's ceph-erasure-code-corpus (a copy in $ECSTORE_SHARED) through the
// plugins as deployed (libec_<plugin>.so of build/lib, loaded by the registry), with the one
// corpus checker (tests/support/corpus_checker.h: `ec-tool non-regression --check` and stricter
// input checks). Each plugin's own corpus test runs the same checker on its built-in plugin.
//
// jerasure, isa, lrc and shec folders must all pass. Folders of other plugins (clay in
// v14.0.0-3924) are checked as soon as build/lib holds their plugin and are reported by name as
// "plugin not available yet" before that; every folder is counted, none is silently skipped.
#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <ostream>
#include <string>

#include "tests/support/corpus_checker.h"
#include "tests/system_test_support.h"

namespace ectest {

// gtest names a parameter by this when a test fails.
void PrintTo(const CorpusPart& part, std::ostream* out) {
  *out << part.set << "/" << part.plugin;
}

namespace {

TEST(CorpusTest, EverySetHoldsTheExpectedFolders) {
  std::map<std::string, std::map<std::string, std::size_t>> expected;
  for (const CorpusPart& part : CorpusParts()) expected[part.set][part.plugin] = part.folders;
  for (const auto& [set, per_plugin] : expected) {
    std::map<std::string, std::size_t> counts;
    for (const std::string& folder : CorpusFolders(set)) ++counts[PluginOfFolder(folder)];
    EXPECT_EQ(counts, per_plugin) << "in " << CorpusSetDir(set);
  }
}

class CorpusPluginTest : public ::testing::TestWithParam<CorpusPart> {};

TEST_P(CorpusPluginTest, FoldersPass) {
  const CorpusPart& part = GetParam();
  if (!PluginBuilt(part.plugin)) {
    if (PluginRequired(part.plugin)) {
      ADD_FAILURE() << "libec_" << part.plugin << ".so is not in " << PluginDir() << ": every "
                    << part.plugin << " folder fails";
    } else {
      const std::vector<std::string> folders = CorpusFolders(part.set, part.plugin);
      for (const std::string& folder : folders) {
        std::cout << "plugin not available yet: " << part.set << "/" << folder << "\n";
      }
      EXPECT_EQ(folders.size(), part.folders) << "in " << CorpusSetDir(part.set);
      return;
    }
  }
  ExpectCorpusPasses(part, PluginDir().string());
}

INSTANTIATE_TEST_SUITE_P(EveryPlugin, CorpusPluginTest, ::testing::ValuesIn(CorpusParts()),
                         [](const ::testing::TestParamInfo<CorpusPart>& info) {
                           return info.param.plugin;
                         });

}  // namespace
}  // namespace ectest
