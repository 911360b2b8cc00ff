// Profile parsing, plugin loading and argument parsing shared by every ec-tool command.
//
// Error messages follow Ceph's ceph-erasure-code-tool where it has one:
//   "invalid profile: plugin not specified", "invalid profile: <plugin message>",
//   "invalid stripe unit", "invalid stripe unit: the plugin rounds it up to N".
// Every function returns a Status / Result whose message is meant to be printed as is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/profile.h"
#include "ec/stripe_layout.h"

namespace ec::tools::ec_tool {

// The plugin directory a command uses: `override_dir` when not empty (--erasure-code-dir), else
// the registry default ($EC_PLUGIN_DIR, else <exe>/../lib).
std::string PluginDirectory(const std::string& override_dir);

// A code made from a profile. `profile` is the profile as normalised by the plugin.
struct LoadedCode {
  ec::ErasureCodeInterfaceRef code;
  ec::Profile profile;
};

// Parses `profile_text` ("plugin=jerasure,k=4,m=2" or space separated) and makes the code with
// the plugin named by its `plugin` key. Errors (EINVAL unless the registry says otherwise):
// "invalid profile: plugin not specified", "invalid profile: <parse or plugin message>".
ec::Result<LoadedCode> LoadCode(std::string_view profile_text, const std::string& plugin_dir);
// Makes the code of plugin `plugin` from an already parsed profile (which need not name the
// plugin, as in ceph_erasure_code_non_regression). Errors: "invalid profile: <message>".
ec::Result<LoadedCode> LoadCode(const std::string& plugin, ec::Profile profile,
                                const std::string& plugin_dir);

// A strictly positive decimal integer (no sign, no trailing characters) that fits in `max`.
// Returns 0 for anything else; callers turn that into their own message.
std::size_t ParsePositive(std::string_view text, std::size_t max);

// A strictly positive size: decimal digits and an optional binary unit, case-insensitive, as
// CLI11's AsSizeValue(false) reads them: b; k, kb, ki, kib (1024); m, mb, mi, mib; g...; t...;
// p...; e...
// ("4k" = 4096, "1M" = 1048576). Returns 0 for anything else or above `max`.
std::uint64_t ParseSize(std::string_view text, std::uint64_t max);

// The stripe layout of `code` for the STRIPE_UNIT argument (ParseSize). Errors: "invalid stripe
// unit" (not a positive size), then those of ec::StripeLayout::Make ("invalid stripe unit: the
// plugin rounds it up to N", "... k * stripe_unit is too large", a bad chunk mapping).
ec::Result<ec::StripeLayout> MakeStripeLayout(const ec::ErasureCodeInterface& code,
                                              std::string_view stripe_unit_text);

// Parses a comma separated list of chunk ids ("0,2,5"), each a decimal number in
// [0, chunk_count). Duplicates are dropped. Errors (EINVAL): "invalid shard 'X': not a number",
// "invalid shard N: out of range [0,C)", "no shard given".
ec::Result<ec::ShardSet> ParseShardList(std::string_view text, unsigned chunk_count);

}  // namespace ec::tools::ec_tool
