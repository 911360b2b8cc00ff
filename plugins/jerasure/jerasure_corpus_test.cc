// The jerasure folders of Ceph's non-regression corpus (v0.92-988) through the built-in plugin,
// with the one corpus checker (tests/support/corpus_checker.h): every chunk byte-identical,
// decode with {0} and {0, N-1} erased, the folder count per technique. A missing corpus is a
// failure, never a skip.
#include <gtest/gtest.h>

#include "ec/plugin.h"
#include "plugins/jerasure/jerasure_plugin.h"
#include "tests/support/corpus_checker.h"

namespace ec::jerasure {
namespace {

TEST(JerasureCorpus, EveryJerasureFolderIsByteIdentical) {
  RegisterJerasureBuiltin();
  ectest::ExpectCorpusPasses(ectest::CorpusPartOf("jerasure"), PluginRegistry::default_directory());
}

}  // namespace
}  // namespace ec::jerasure
