#include "tools/ec_tool/non_regression.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/file_io.h"

namespace ec::tools::ec_tool {

namespace {

std::string ChunkPath(const std::string& dir, int chunk) {
  return dir + "/" + std::to_string(chunk);
}

ec::ShardSet AllChunks(const ec::ErasureCodeInterface& code) {
  ec::ShardSet all;
  for (unsigned i = 0; i < code.get_chunk_count(); ++i) all.insert(static_cast<int>(i));
  return all;
}

bool SameBytes(std::span<const std::byte> a, std::span<const std::byte> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
}

std::string Describe(const ec::ShardSet& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return "{" + out + "}";
}

// Decodes `erasures` from the other chunks of `encoded` and compares with the originals.
ec::Status CheckRecovery(const ec::ErasureCodeInterface& code, const ec::ChunkMap& encoded,
                         const ec::ShardSet& erasures) {
  ec::ChunkMap available;
  for (const auto& [id, chunk] : encoded)
    if (!erasures.count(id)) available[id] = chunk;
  ec::ChunkMap decoded;
  const std::size_t chunk_size = encoded.begin()->second.size();
  ec::Status s = code.decode(erasures, available, &decoded, chunk_size);
  if (!s.ok()) return s.WithPrefix("decode with chunks " + Describe(erasures) + " erased");
  for (int id : erasures) {
    auto it = decoded.find(id);
    if (it == decoded.end() || !SameBytes(it->second.span(), encoded.at(id).span())) {
      return ec::Status::DataLoss("chunk " + std::to_string(id) +
                                  " incorrectly recovered (chunks " + Describe(erasures) +
                                  " erased)");
    }
  }
  return ec::Status::OK();
}

}  // namespace

std::string NonRegressionDirectory(const NonRegressionOptions& options) {
  std::string dir = options.base + "/plugin=" + options.plugin +
                    " stripe-width=" + std::to_string(options.stripe_width);
  for (const std::string& p : options.parameters) dir += " " + p;
  return dir;
}

ec::Profile NonRegressionProfile(const NonRegressionOptions& options, std::ostream* warnings) {
  ec::Profile profile;
  for (const std::string& p : options.parameters) {
    std::size_t eq = p.find('=');
    if (eq == std::string::npos || p.find('=', eq + 1) != std::string::npos) {
      if (warnings) {
        *warnings << "--parameter " << p << " ignored because it does not contain exactly one =\n";
      }
      continue;
    }
    profile[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return profile;
}

ec::Result<NonRegressionOptions> NonRegressionOptionsForFolder(const std::string& folder) {
  std::filesystem::path path(folder);
  if (!path.has_filename()) path = path.parent_path();
  NonRegressionOptions options;
  options.base = path.parent_path().string();
  if (options.base.empty()) options.base = ".";
  std::istringstream words(path.filename().string());
  std::string plugin_word;
  std::string width_word;
  words >> plugin_word >> width_word;
  const std::string bad =
      "'" + path.filename().string() + "' is not named 'plugin=P stripe-width=N [k=v ...]'";
  if (plugin_word.rfind("plugin=", 0) != 0 || width_word.rfind("stripe-width=", 0) != 0) {
    return ec::Status::Invalid(bad);
  }
  options.plugin = plugin_word.substr(7);
  std::size_t width = ParsePositive(width_word.substr(13), 0xffffffffu);
  if (options.plugin.empty() || width == 0) return ec::Status::Invalid(bad);
  options.stripe_width = static_cast<unsigned>(width);
  for (std::string p; words >> p;) options.parameters.push_back(p);
  options.check = true;
  return options;
}

ec::Status CreateNonRegressionFolder(const NonRegressionOptions& options, std::ostream* warnings) {
  ec::Result<LoadedCode> loaded =
      LoadCode(options.plugin, NonRegressionProfile(options, warnings), options.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const std::string dir = NonRegressionDirectory(options);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    return ec::Status::Error(errno, "mkdir(" + dir + "): " + std::strerror(errno));
  }
  auto make = [&]() -> ec::Status {
    constexpr unsigned kPatternSize = 37;
    std::mt19937 random(std::random_device{}());
    std::uniform_int_distribution<int> letter('a', 'z');
    std::string pattern;
    for (unsigned i = 0; i < kPatternSize; ++i)
      pattern.push_back(static_cast<char>(letter(random)));
    std::vector<std::byte> content(options.stripe_width);
    for (std::size_t i = 0; i < content.size(); ++i) {
      content[i] = static_cast<std::byte>(pattern[i % kPatternSize]);
    }
    EC_RETURN_IF_ERROR(WriteWholeFile(dir + "/content", content));
    ec::ChunkMap encoded;
    EC_RETURN_IF_ERROR(loaded->code->encode(AllChunks(*loaded->code), content, &encoded));
    for (const auto& [id, chunk] : encoded) {
      EC_RETURN_IF_ERROR(WriteWholeFile(ChunkPath(dir, id), chunk.span()));
    }
    return ec::Status::OK();
  };
  ec::Status s = make();
  if (!s.ok()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  return s;
}

ec::Status CheckNonRegressionFolder(const NonRegressionOptions& options, std::ostream* warnings) {
  ec::Result<LoadedCode> loaded =
      LoadCode(options.plugin, NonRegressionProfile(options, warnings), options.plugin_dir);
  if (!loaded.ok()) return loaded.status();
  return CheckNonRegressionChunks(*loaded->code, NonRegressionDirectory(options));
}

ec::Status CheckNonRegressionChunks(const ec::ErasureCodeInterface& code, const std::string& dir) {
  ec::Result<std::vector<std::byte>> content = ReadWholeFile(dir + "/content");
  if (!content.ok()) return content.status();

  ec::ChunkMap encoded;
  ec::Status s = code.encode(AllChunks(code), *content, &encoded);
  if (!s.ok()) return s.WithPrefix("encode of " + dir + "/content");
  if (encoded.empty() || encoded.size() != code.get_chunk_count()) {
    return ec::Status::DataLoss("encode returned " + std::to_string(encoded.size()) +
                                " chunks instead of " + std::to_string(code.get_chunk_count()));
  }
  for (const auto& [id, chunk] : encoded) {
    ec::Result<std::vector<std::byte>> stored = ReadWholeFile(ChunkPath(dir, id));
    if (!stored.ok()) return stored.status();
    if (!SameBytes(*stored, chunk.span())) {
      return ec::Status::DataLoss("chunk " + std::to_string(id) + " encodes differently");
    }
  }

  // One erasure takes each plugin's single-failure path; two the general one.
  EC_RETURN_IF_ERROR(CheckRecovery(code, encoded, {0}));
  if (code.get_chunk_count() - code.get_data_chunk_count() > 1) {
    EC_RETURN_IF_ERROR(
        CheckRecovery(code, encoded, {0, static_cast<int>(code.get_chunk_count()) - 1}));
  }
  return ec::Status::OK();
}

ec::Status RunNonRegression(const NonRegressionOptions& options, std::ostream* warnings) {
  if (!options.check && !options.create) {
    return ec::Status::Invalid("must specifify either --check, or --create");
  }
  if (options.stripe_width == 0) return ec::Status::Invalid("invalid stripe width 0");
  if (options.create) EC_RETURN_IF_ERROR(CreateNonRegressionFolder(options, warnings));
  if (options.check) {
    // The warnings were already printed by --create.
    EC_RETURN_IF_ERROR(CheckNonRegressionFolder(options, options.create ? nullptr : warnings));
  }
  return ec::Status::OK();
}

}  // namespace ec::tools::ec_tool
