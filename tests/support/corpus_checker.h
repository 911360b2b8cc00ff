// The one checker of Ceph's non-regression corpus (ceph-erasure-code-corpus, a copy under
// SharedDir()), used by every plugin's corpus test and by tests/corpus_test.cc.
//
// A corpus folder is named "plugin=P stripe-width=W k=v ..." and holds `content` (W bytes) and
// the chunk files 0 .. N-1 of one encode of it (tools/ec_tool/non_regression.h). Checking a
// folder is `ec-tool non-regression --check` (the same code: CheckNonRegressionChunks) with
// stricter input checks in front and an optional check behind:
//   - the name parses and every parameter is one key=value (a warning of the tool is a failure);
//   - the code is made by the registry from the parameters alone, as Ceph's tool makes it (a
//     built-in registered by the test program is found before any libec_P.so);
//   - `content` has W bytes, the chunk files are exactly 0 .. N-1 (N = get_chunk_count()) and
//     chunk 0 has get_chunk_size(W) bytes;
//   - every chunk re-encodes to the stored bytes; decode with {0} erased, and {0, N-1} when the
//     code has more than one coding chunk, gives them back;
//   - with rebuild_from_plans, every single chunk is also rebuilt from the whole chunks that
//     minimum_to_decode({lost}, all others) names, and nothing else (for codes whose plans read
//     whole chunks and fewer than k of them: lrc).
//
// Missing data fails: a missing corpus set, a missing file and a folder count that differs from
// the table are test failures, never skips.
//
// Thread safety: the functions keep no state; ExpectCorpusPasses reports through gtest and must
// run on a test's thread.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ectest {

// One plugin's folders in one set of the corpus, and what must hold of them.
struct CorpusPart {
  std::string set;      // "v0.92-988", "v14.0.0-3924"
  std::string plugin;   // the folders named "plugin=<plugin> ..."
  std::size_t folders;  // how many such folders the set holds
  // Folders per value of their technique= parameter; empty: not counted per technique.
  std::map<std::string, std::size_t> folders_per_technique;
  bool rebuild_from_plans = false;  // see the file comment
};

// Every part of the corpus copy, one per (set, plugin), with the folder counts of
// ceph-erasure-code-corpus/README.md.
const std::vector<CorpusPart>& CorpusParts();
// The part of `plugin` (each plugin is in exactly one set). Aborts when the table has none: that
// is a mistake in the calling test, not in the data.
const CorpusPart& CorpusPartOf(std::string_view plugin);

// SharedDir()/ceph-erasure-code-corpus/<set>.
std::filesystem::path CorpusSetDir(const std::string& set);
// "P" of a folder named "plugin=P ...", else "".
std::string PluginOfFolder(const std::string& folder_name);
// Sorted names of the folders of `set` whose plugin is `plugin` ("" = every folder); empty when
// the set is missing.
std::vector<std::string> CorpusFolders(const std::string& set, const std::string& plugin = "");

// Checks one folder as the file comment says; `plugin_dir` is where the registry loads plugins
// that are not built in. Returns OK, or what is wrong as a Status whose message names the check
// (the tool's statuses pass through unchanged).
ec::Status CheckCorpusFolder(const std::filesystem::path& folder, const std::string& plugin_dir,
                             bool rebuild_from_plans);

// What ExpectCorpusPasses saw.
struct CorpusTally {
  std::size_t folders = 0;
  std::size_t passed = 0;
  std::map<std::string, std::size_t> per_technique;  // folders seen per technique= value
  std::vector<std::string> failures;                 // "<folder>: <what is wrong>"
};

// Checks every folder of `part` with CheckCorpusFolder and reports through gtest: a missing set,
// a folder count or per-technique count other than the table's, and every failing folder (the
// first 20 by name, then how many more) are test failures. Prints one summary line to stdout.
CorpusTally ExpectCorpusPasses(const CorpusPart& part, const std::string& plugin_dir);

}  // namespace ectest
