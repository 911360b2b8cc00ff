#include "tools/ec_tool/info_commands.h"

#include <algorithm>
#include <limits>

#include "ec/plugin.h"
#include "tools/ec_tool/code_loader.h"

namespace ec::tools::ec_tool {

const std::vector<std::string>& DisplayParams() {
  static const std::vector<std::string> params = {"chunk_count", "data_chunk_count",
                                                  "coding_chunk_count", "sub_chunk_count"};
  return params;
}

ec::Status RunTestPluginExists(const std::string& plugin, const std::string& plugin_dir) {
  return ec::PluginRegistry::instance().load(plugin, plugin_dir);
}

ec::Status RunValidateProfile(const std::string& profile, const std::vector<std::string>& params,
                              const std::string& plugin_dir, std::ostream& out) {
  ec::Result<LoadedCode> loaded = LoadCode(profile, plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const std::vector<std::string>& known = DisplayParams();
  for (const std::string& p : params) {
    if (std::find(known.begin(), known.end(), p) == known.end()) {
      return ec::Status::Invalid("invalid display param: " + p);
    }
  }
  const std::vector<std::string>& shown = params.empty() ? known : params;
  const ec::ErasureCodeInterface& code = *loaded->code;
  for (const std::string& p : shown) {
    if (shown.size() > 1) out << p << ": ";
    if (p == "chunk_count") {
      out << code.get_chunk_count() << "\n";
    } else if (p == "data_chunk_count") {
      out << code.get_data_chunk_count() << "\n";
    } else if (p == "coding_chunk_count") {
      out << code.get_coding_chunk_count() << "\n";
    } else {
      out << code.get_sub_chunk_count() << "\n";
    }
  }
  return ec::Status::OK();
}

ec::Status RunCalcChunkSize(const std::string& profile, const std::string& object_size,
                            const std::string& plugin_dir, std::ostream& out) {
  ec::Result<LoadedCode> loaded = LoadCode(profile, plugin_dir);
  if (!loaded.ok()) return loaded.status();
  const std::uint64_t size = ParseSize(object_size, std::numeric_limits<unsigned>::max());
  if (size == 0) return ec::Status::Invalid("invalid object size");
  out << loaded->code->get_chunk_size(static_cast<unsigned>(size)) << "\n";
  return ec::Status::OK();
}

}  // namespace ec::tools::ec_tool
