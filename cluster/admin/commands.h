// Internal to cluster/admin: the command groups RunCommand dispatches to, and the map access they
// share (load, and change in one guarded Apply). Not a public header.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/capacity.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/map_store.h"

namespace ec::cluster::admin {

using Words = std::vector<std::string>;

// words[from..].
inline Words Tail(const Words& words, std::size_t from) {
  return from >= words.size() ? Words{}
                              : Words(words.begin() + static_cast<long>(from), words.end());
}
// The group's words, then `words`: Prefixed({"osd", "pool"}, {"frob"}) -> osd pool frob.
inline Words Prefixed(std::initializer_list<const char*> group, const Words& words) {
  Words out(group.begin(), group.end());
  out.insert(out.end(), words.begin(), words.end());
  return out;
}

// What a changing command decided on one map: the changes (may be empty: nothing to do) and the
// messages to print on success.
struct Plan {
  std::vector<MapChange> changes;
  std::string out;
  std::string err;
};

// The map; an etcd that cannot be reached is reported naming the configured endpoints.
Result<ClusterMap> LoadMap(const AdminContext& ctx);
// The capacity and I/O now (capacity.h): the map, the PG primaries' and the OSDs' reports.
// Errors: LoadMap's, the reports' etcd errors (FromStore).
Result<ClusterUsage> LoadUsage(const AdminContext& ctx);
// An error from etcd (a call on ctx.store->client()) as LoadMap reports it: a connection error
// names the configured endpoints; any other is returned as it is.
Status FromStore(const AdminContext& ctx, const Status& s);
// Decides on the current map and applies the plan in one Apply guarded by that map's epoch;
// when the map changed in between, decides again (up to 8 times, then EAGAIN).
CommandResult ChangeMap(const AdminContext& ctx,
                        const std::function<Result<Plan>(const ClusterMap&)>& decide);
std::int64_t NowMs(const AdminContext& ctx);
// A usage error: EINVAL "invalid command: <what>; usage: <usage>".
CommandResult UsageError(const std::string& what, const std::string& usage);
CommandResult Success(std::string out, std::string err = {});

// A pool's flags as Ceph names them: "ec_optimizations" (allow_ec_optimizations) or "" (JSON
// "flags_names"); and for plain listings " flags ec_optimizations", or "" when it has none (Ceph
// prints no "flags" then).
std::string PoolFlagNames(const Pool& pool);
std::string PoolFlagsText(const Pool& pool);
// A pool's options that are not at their defaults, as Ceph's pg_pool_t prints its opts after the
// rest of the line: " ec_min_object_size 16384", or "" (issue 30).
std::string PoolOptionsText(const Pool& pool);
// How `osd pool ls detail` and `osd dump` name a pool's kind: "replicated" or "erasure profile
// NAME" (Ceph's words); and Ceph's pg_pool_t type number (1 replicated, 3 erasure) for JSON.
std::string PoolKindText(const Pool& pool);
// A replicated pool of one copy needs this flag (Ceph's, which also wants its
// mon_allow_pool_size_one; ecstore has no such option): `osd pool create ... --size 1` and
// `osd pool set NAME size 1` without it are EPERM with Ceph's warning (SizeOneRefused).
inline constexpr const char* kSizeOneFlag = "--yes-i-really-mean-it";
Status SizeOneRefused();
int PoolTypeNumber(const Pool& pool);

// words start after the group's prefix: "osd erasure-code-profile" -> {"set", "rs", "k=4"}.
CommandResult RunProfileCommand(const Words& words, const AdminContext& ctx);
// After "osd pool".
CommandResult RunPoolCommand(const Words& words, const AdminContext& ctx);
// After "osd": tree, out, in, rm, dump, map, and the groups below.
CommandResult RunOsdCommand(const Words& words, const AdminContext& ctx);
// "osd set FLAG" (set true) / "osd unset FLAG"; `args` after set/unset (flag_commands.cc).
CommandResult RunOsdFlagCommand(bool set, const Words& args, const AdminContext& ctx);
// After "osd": stat, down, ok-to-stop, perf (osd_state_commands.cc); `sub` is words[0].
CommandResult RunOsdStateCommand(const std::string& sub, const Words& args,
                                 const AdminContext& ctx);
// After "osd pool": get, set (pool_options.cc).
CommandResult RunPoolOptionCommand(const std::string& sub, const Words& args,
                                   const AdminContext& ctx);
// status, health [detail].
CommandResult RunStatusCommand(const Words& words, const AdminContext& ctx);
// progress [json].
CommandResult RunProgressCommand(const Words& words, const AdminContext& ctx);
// exporter: the cluster's Prometheus text (prometheus_exporter.h).
CommandResult RunExporterCommand(const Words& words, const AdminContext& ctx);
// After "pg": scrub, deep-scrub, repair, and the queries below.
CommandResult RunPgCommand(const Words& words, const AdminContext& ctx);
// After "df": [detail]; after "osd df": nothing (df_commands.cc).
CommandResult RunDfCommand(const Words& words, const AdminContext& ctx);
CommandResult RunOsdDfCommand(const Words& words, const AdminContext& ctx);
// After "pg": stat, dump, ls, ls-by-pool, PGID query (pg_query_commands.cc); nullopt when the
// words are none of these.
std::optional<CommandResult> RunPgQueryCommand(const Words& words, const AdminContext& ctx);
// After "auth": get-or-create, get-or-create-key, get, get-key, ls, rm, init (auth_commands.cc).
CommandResult RunAuthCommand(const Words& words, const AdminContext& ctx);
// After "config": set, get, rm, dump, help, show, show-with-defaults (config_commands.cc).
CommandResult RunConfigCommand(const Words& words, const AdminContext& ctx);
// After "config show" or "config show-with-defaults" (config_show_commands.cc).
CommandResult RunConfigShowCommand(bool with_defaults, const Words& args, const AdminContext& ctx);
// What `osd pool create` gives a new pool: the cluster's config's global
// osd_pool_default_flag_ec_optimizations when set there (and valid), else ctx's (the file's).
bool PoolDefaultEcOptimizations(const AdminContext& ctx);
// A new replicated pool's size: the cluster's config's global osd_pool_default_size when set
// there (and 1..10), else ctx's. Its min_size for that size: osd_pool_default_min_size likewise,
// 0 giving size - size/2 (Ceph's rule: 2 of 3), never above the size.
int PoolDefaultSize(const AdminContext& ctx);
int PoolDefaultMinSize(const AdminContext& ctx, int size);

// "3" or "osd.3". Errors: EINVAL "invalid osd id 'x'".
Result<int> ParseOsdId(const std::string& text);
// Each of `args` by ParseOsdId, duplicates dropped, in order.
Result<std::vector<int>> ParseOsdIds(const Words& args);
// ENOENT "osd.9 does not exist. ..." naming every id of `ids` the map lacks: a command refuses
// all of them then, so that nothing is half-done.
Status AllExist(const ClusterMap& map, const std::vector<int>& ids);

// The first OSD of `osds` that is not kItemNone, or -1.
int PrimaryOf(const std::vector<int>& osds);
// An OSD list as Ceph's JSON shows it: kItemNone as 2147483647 (CRUSH_ITEM_NONE).
nlohmann::json JsonOsds(const std::vector<int>& osds);

// One line per command: syntax and what it does (HelpText and usage errors).
struct CommandHelp {
  const char* syntax;
  const char* text;
  const char* detail = nullptr;  // more, for `ec-admin COMMAND --help` (lines ending in \n)
};
const std::vector<CommandHelp>& CommandTable();
// The syntax line of the command starting with `prefix` ("osd pool create").
std::string UsageOf(const std::string& prefix);

}  // namespace ec::cluster::admin

#include "ec/erasure_code_interface.h"
#include "ec/profile.h"

namespace ec::cluster::admin {

// Makes the code of `profile` with its plugin (loaded through ec::PluginRegistry from
// ctx.plugin_dir), normalising the profile in place (the plugin adds its defaults). Errors:
// EINVAL "cannot determine the erasure code plugin ..." without a plugin key; EINVAL with the
// registry's or plugin's message otherwise.
Result<ErasureCodeInterfaceRef> MakeCode(ec::Profile& profile, const AdminContext& ctx);

// The stripe_unit of a profile ("stripe_unit" key, a size such as 4096 or 4K) or `fallback`.
// Errors: EINVAL "could not parse stripe_unit 'X': <why>".
Result<std::uint32_t> StripeUnitOf(const ec::Profile& profile, std::uint32_t fallback);

// Ceph's rule for a stripe unit on a code: the chunk size of a k * stripe_unit stripe must be the
// stripe unit itself. Errors: EINVAL "stripe_unit N is out of range" (0, or k * N overflows);
// EINVAL "stripe_unit N does not match ec profile alignment. Would be padded to M".
Status CheckStripeUnit(const ErasureCodeInterface& code, std::uint32_t stripe_unit);

}  // namespace ec::cluster::admin
