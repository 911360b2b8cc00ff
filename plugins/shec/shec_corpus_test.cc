// The shec folders of Ceph's non-regression corpus (v0.92-988), with the one corpus checker
// (tests/support/corpus_checker.h): every chunk byte-identical, decode with {0} and (m > 1)
// {0, N-1} erased. The code comes from libec_shec.so through the registry, as a deployed program
// gets it. A missing corpus is a failure, never a skip.
#include <gtest/gtest.h>

#include "ec/plugin.h"
#include "tests/support/corpus_checker.h"

namespace ec {
namespace {

TEST(ShecCorpus, EveryShecCaseOfV0_92_988) {
  ectest::ExpectCorpusPasses(ectest::CorpusPartOf("shec"), PluginRegistry::default_directory());
}

}  // namespace
}  // namespace ec
