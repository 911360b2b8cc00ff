// The ec-tool commands that only inspect a plugin or a profile, as in Ceph's
// ceph-erasure-code-tool:
//   test-plugin-exists PLUGIN                      loads libec_PLUGIN.so
//   validate-profile PROFILE [DISPLAY_PARAM...]    makes the code, prints its counts
//   calc-chunk-size PROFILE OBJECT_SIZE            prints get_chunk_size(OBJECT_SIZE)
// Each writes its result to `out` and returns an error Status (printed by the caller) on failure.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"

namespace ec::tools::ec_tool {

// The display parameters validate-profile knows, in the order it prints them by default:
// chunk_count, data_chunk_count, coding_chunk_count and (an ecstore addition) sub_chunk_count.
const std::vector<std::string>& DisplayParams();

// Errors: the registry's load message (e.g. "load dlopen(DIR/libec_X.so): ...").
ec::Status RunTestPluginExists(const std::string& plugin, const std::string& plugin_dir);

// With no `params`, prints "name: value" for every display parameter; with one, the bare value;
// with several, "name: value" for each, in the order given (Ceph's rules).
// Errors: LoadCode's messages, "invalid display param: X".
ec::Status RunValidateProfile(const std::string& profile, const std::vector<std::string>& params,
                              const std::string& plugin_dir, std::ostream& out);

// Errors: LoadCode's messages, "invalid object size" (not a positive size below 4 GiB; binary
// suffixes as ParseSize).
ec::Status RunCalcChunkSize(const std::string& profile, const std::string& object_size,
                            const std::string& plugin_dir, std::ostream& out);

}  // namespace ec::tools::ec_tool
