// The isa folders of Ceph's non-regression corpus (v0.92-988) through the built-in plugin, with
// the one corpus checker (tests/support/corpus_checker.h): every chunk byte-identical, decode
// with {0} and (m > 1) {0, N-1} erased, 78 folders each of reed_sol_van and cauchy. A missing
// corpus is a failure, never a skip.
#include <gtest/gtest.h>

#include "ec/plugin.h"
#include "plugins/isa/isa_plugin.h"
#include "tests/support/corpus_checker.h"

namespace ec {
namespace {

TEST(IsaCorpus, EveryIsaCaseOfV0_92_988) {
  RegisterIsaBuiltin();
  ectest::ExpectCorpusPasses(ectest::CorpusPartOf("isa"), PluginRegistry::default_directory());
}

}  // namespace
}  // namespace ec
