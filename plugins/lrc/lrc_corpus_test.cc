// The lrc folders of Ceph's non-regression corpus (v0.92-988) through the built-in plugin (its
// layers' plugins from $EC_PLUGIN_DIR), with the one corpus checker
// (tests/support/corpus_checker.h): every chunk byte-identical, decode with {0} and {0, N-1}
// erased and, beyond Ceph's check, every single lost chunk rebuilt from minimum_to_decode's plan
// alone. A missing corpus is a failure, never a skip.
#include <gtest/gtest.h>

#include "ec/plugin.h"
#include "plugins/lrc/lrc_plugin.h"
#include "tests/support/corpus_checker.h"

namespace ec {
namespace {

TEST(LrcCorpus, EveryLrcCaseOfV0_92_988) {
  RegisterLrcBuiltin();
  ectest::ExpectCorpusPasses(ectest::CorpusPartOf("lrc"), PluginRegistry::default_directory());
}

}  // namespace
}  // namespace ec
