#include "tests/support/corpus_checker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <system_error>

#include "ec/buffer.h"
#include "ec/erasure_code_interface.h"
#include "tests/support/test_env.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"
#include "tools/ec_tool/non_regression.h"

namespace ectest {

namespace fs = std::filesystem;
namespace tool = ec::tools::ec_tool;

namespace {

// The tool reads `content` and chunk files by name and would take a short content or a stray
// chunk file in its stride; a corpus copy that lost or gained a file must fail instead.
ec::Status CheckFolderFiles(const ec::ErasureCodeInterface& code, const fs::path& folder,
                            unsigned stripe_width) {
  std::error_code error;
  const std::uintmax_t content = fs::file_size(folder / "content", error);
  if (error) return ec::Status::IOError("cannot read content: " + error.message());
  if (content != stripe_width) {
    return ec::Status::Invalid("content has " + std::to_string(content) +
                               " bytes, not stripe-width " + std::to_string(stripe_width));
  }
  const unsigned n = code.get_chunk_count();
  for (unsigned id = 0; id < n; ++id) {
    if (!fs::is_regular_file(folder / std::to_string(id))) {
      return ec::Status::IOError("chunk file " + std::to_string(id) + " is missing");
    }
  }
  if (fs::exists(folder / std::to_string(n))) {
    return ec::Status::Invalid("chunk file " + std::to_string(n) +
                               " exists: more chunk files than " + "the code's " +
                               std::to_string(n) + " chunks");
  }
  const std::uintmax_t chunk = fs::file_size(folder / "0", error);
  if (error) return ec::Status::IOError("cannot read chunk file 0: " + error.message());
  if (chunk != code.get_chunk_size(stripe_width)) {
    return ec::Status::Invalid("chunk file 0 has " + std::to_string(chunk) +
                               " bytes, the code's chunk size is " +
                               std::to_string(code.get_chunk_size(stripe_width)));
  }
  return ec::Status::OK();
}

// Each chunk rebuilt from exactly the chunks its plan names proves that the plan suffices, which
// the decode of the tool's check (from every other chunk) does not.
ec::Status CheckRebuildsFromPlans(const ec::ErasureCodeInterface& code, const fs::path& folder) {
  const int n = static_cast<int>(code.get_chunk_count());
  std::vector<ec::Buffer> stored;
  for (int id = 0; id < n; ++id) {
    ec::Result<std::vector<std::byte>> bytes =
        tool::ReadWholeFile((folder / std::to_string(id)).string());
    if (!bytes.ok()) return bytes.status();
    stored.push_back(ec::Buffer::Copy(*bytes));
  }
  for (int lost = 0; lost < n; ++lost) {
    ec::ShardSet others;
    for (int id = 0; id < n; ++id)
      if (id != lost) others.insert(id);
    ec::Result<ec::SubChunkPlan> plan = code.minimum_to_decode({lost}, others);
    if (!plan.ok())
      return plan.status().WithPrefix("minimum_to_decode({" + std::to_string(lost) + "})");
    ec::ChunkMap chunks;
    for (const auto& [id, ranges] : *plan) chunks[id] = stored[static_cast<std::size_t>(id)];
    ec::ChunkMap decoded;
    ec::Status s = code.decode({lost}, chunks, &decoded, stored[0].size());
    if (!s.ok()) return s.WithPrefix("decode of chunk " + std::to_string(lost) + " from its plan");
    auto it = decoded.find(lost);
    const ec::Buffer& want = stored[static_cast<std::size_t>(lost)];
    if (it == decoded.end() || it->second.size() != want.size() ||
        std::memcmp(it->second.data(), want.data(), want.size()) != 0) {
      return ec::Status::DataLoss("chunk " + std::to_string(lost) +
                                  " incorrectly recovered from the plan");
    }
  }
  return ec::Status::OK();
}

std::string TechniqueOf(const std::string& folder_name) {
  std::istringstream words(folder_name);
  for (std::string word; words >> word;)
    if (word.rfind("technique=", 0) == 0) return word.substr(10);
  return "";
}

}  // namespace

const std::vector<CorpusPart>& CorpusParts() {
  static const std::vector<CorpusPart> parts = {
      {"v0.92-988",
       "jerasure",
       780,
       {{"reed_sol_van", 180},
        {"reed_sol_r6_op", 60},
        {"cauchy_orig", 180},
        {"cauchy_good", 180},
        {"liberation", 60},
        {"blaum_roth", 60},
        {"liber8tion", 60}}},
      {"v0.92-988", "isa", 156, {{"reed_sol_van", 78}, {"cauchy", 78}}},
      {"v0.92-988", "lrc", 18, {}, true},
      {"v0.92-988", "shec", 114, {}},
      {"v14.0.0-3924", "clay", 180, {}},
  };
  return parts;
}

const CorpusPart& CorpusPartOf(std::string_view plugin) {
  for (const CorpusPart& part : CorpusParts())
    if (part.plugin == plugin) return part;
  std::cerr << "CorpusPartOf: no corpus part for plugin " << plugin << "\n";
  std::abort();
}

fs::path CorpusSetDir(const std::string& set) {
  return SharedDir() / "ceph-erasure-code-corpus" / set;
}

std::string PluginOfFolder(const std::string& folder_name) {
  const std::string word = folder_name.substr(0, folder_name.find(' '));
  return word.rfind("plugin=", 0) == 0 ? word.substr(7) : "";
}

std::vector<std::string> CorpusFolders(const std::string& set, const std::string& plugin) {
  std::vector<std::string> names;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(CorpusSetDir(set), error)) {
    if (!entry.is_directory()) continue;
    std::string name = entry.path().filename().string();
    if (plugin.empty() || PluginOfFolder(name) == plugin) names.push_back(std::move(name));
  }
  std::sort(names.begin(), names.end());
  return names;
}

ec::Status CheckCorpusFolder(const fs::path& folder, const std::string& plugin_dir,
                             bool rebuild_from_plans) {
  ec::Result<tool::NonRegressionOptions> options =
      tool::NonRegressionOptionsForFolder(folder.string());
  if (!options.ok()) return options.status();
  std::ostringstream warnings;
  ec::Profile profile = tool::NonRegressionProfile(*options, &warnings);
  if (!warnings.str().empty()) return ec::Status::Invalid(warnings.str());
  ec::Result<tool::LoadedCode> loaded = tool::LoadCode(options->plugin, profile, plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const ec::ErasureCodeInterface& code = *loaded->code;
  EC_RETURN_IF_ERROR(CheckFolderFiles(code, folder, options->stripe_width));
  EC_RETURN_IF_ERROR(tool::CheckNonRegressionChunks(code, folder.string()));
  if (rebuild_from_plans) EC_RETURN_IF_ERROR(CheckRebuildsFromPlans(code, folder));
  return ec::Status::OK();
}

CorpusTally ExpectCorpusPasses(const CorpusPart& part, const std::string& plugin_dir) {
  CorpusTally tally;
  const fs::path dir = CorpusSetDir(part.set);
  if (!fs::is_directory(dir)) {
    ADD_FAILURE() << "the Ceph erasure-code corpus is missing: " << dir
                  << " is not a directory (set ECSTORE_SHARED to the folder holding "
                     "ceph-erasure-code-corpus)";
    return tally;
  }
  std::map<std::string, std::size_t> passed_per_technique;
  for (const std::string& folder : CorpusFolders(part.set, part.plugin)) {
    ++tally.folders;
    const std::string technique = TechniqueOf(folder);
    ++tally.per_technique[technique];
    ec::Status s = CheckCorpusFolder(dir / folder, plugin_dir, part.rebuild_from_plans);
    if (s.ok()) {
      ++tally.passed;
      ++passed_per_technique[technique];
    } else {
      tally.failures.push_back(folder + ": " + s.ToString());
    }
  }
  std::cout << "[corpus] " << part.set << " " << part.plugin << ": " << tally.passed << "/"
            << tally.folders << " folders pass";
  if (!part.folders_per_technique.empty()) {
    for (const auto& [technique, count] : tally.per_technique) {
      std::cout << ", " << technique << " " << passed_per_technique[technique] << "/" << count;
    }
  }
  std::cout << " in " << dir << std::endl;

  constexpr std::size_t kShown = 20;
  for (std::size_t i = 0; i < tally.failures.size() && i < kShown; ++i) {
    ADD_FAILURE() << "corpus folder " << part.set << "/" << tally.failures[i];
  }
  if (tally.failures.size() > kShown) {
    ADD_FAILURE() << "... and " << tally.failures.size() - kShown << " more " << part.plugin
                  << " folders failed";
  }
  EXPECT_EQ(tally.folders, part.folders)
      << "the " << part.plugin << " folders under " << dir << " are incomplete";
  if (!part.folders_per_technique.empty()) {
    EXPECT_EQ(tally.per_technique, part.folders_per_technique)
        << "the " << part.plugin << " folders per technique under " << dir;
  }
  EXPECT_EQ(tally.passed, tally.folders);
  return tally;
}

}  // namespace ectest
