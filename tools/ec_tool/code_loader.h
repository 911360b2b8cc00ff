// Profile parsing, plugin loading and stripe geometry shared by every ec-tool command.
//
// Error messages follow Ceph's ceph-erasure-code-tool where it has one:
//   "invalid profile: plugin not specified", "invalid profile: <plugin message>",
//   "invalid stripe unit", "invalid stripe unit: the plugin rounds it up to N".
// Every function returns a Status / Result whose message is meant to be printed as is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ec/erasure_code_interface.h"
#include "ec/profile.h"
#include "common/status.h"

namespace ectool {

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

// Where the bytes of a stripe go. A stripe is stripe_width = k * stripe_unit bytes; data piece i
// (bytes [i*su, (i+1)*su) of the stripe) is stored in chunk id data_ids[i], parity j in chunk id
// parity_ids[j] (Ceph's chunk mapping; the identity without a `mapping` key).
struct StripeLayout {
  unsigned k = 0;
  unsigned chunk_count = 0;
  std::size_t stripe_unit = 0;
  std::size_t stripe_width = 0;
  std::vector<int> data_ids;
  std::vector<int> parity_ids;
};

// Checks `stripe_unit_text` against `code` the way Ceph's tool does: it must be a positive
// integer and the plugin must not round it up (get_chunk_size(k * su) == su). Errors:
// "invalid stripe unit", "invalid stripe unit: the plugin rounds it up to N",
// "invalid stripe unit: k * stripe_unit is too large" (over 4 GiB, the interface's limit), and
// EINVAL if the code's chunk mapping is not a permutation of its chunk ids.
ec::Result<StripeLayout> MakeStripeLayout(const ec::ErasureCodeInterface& code,
                                          std::string_view stripe_unit_text);

// Parses a comma separated list of chunk ids ("0,2,5"), each a decimal number in
// [0, chunk_count). Duplicates are dropped. Errors (EINVAL): "invalid shard 'X': not a number",
// "invalid shard N: out of range [0,C)", "no shard given".
ec::Result<ec::ShardSet> ParseShardList(std::string_view text, unsigned chunk_count);

}  // namespace ectool
