// ec-admin's commands (issue 13 item 5): Ceph's `ceph` syntax, run against the cluster map.
//
// Everything ec-admin does is here, so that tests drive it in-process; tools/ec_admin is only
// main(): it reads the config, makes the etcd client and calls ParseGlobalArgs and RunCommand.
//
// Commands (HelpText() lists them with their arguments):
//   osd erasure-code-profile set|get|ls|rm     osd pool create|ls|rm|get|set
//   osd tree | osd out|in|rm ID... | osd dump  osd map POOL OBJECT
//   osd set|unset FLAG | osd stat | osd down ID... | osd ok-to-stop ID... | osd perf
//   status (also the global flag -s) | health [detail] | progress [json]
//   pg scrub|deep-scrub|repair PGID | pg stat | pg dump | pg ls | pg ls-by-pool | pg PGID query
//   df [detail] | osd df                        (capacity, capacity.h)
//   exporter                                    (the cluster's Prometheus text,
//                                                prometheus_exporter.h)
//   config set|get|rm|dump|show|show-with-defaults|help   (the cluster's central config)
//   auth get-or-create|get-or-create-key|get|get-key|ls|rm|init   (keys and caps as Ceph's
//                                                cephx; cluster/auth/auth_db.h)
//
// Output, as Ceph's CLI: data goes to stdout (CommandResult::out) in the requested format;
// status messages Ceph prints on stderr ("pool 'p' created", "marked out osd.1. ") go to
// CommandResult::err; an error is one line "Error ENOENT: <message>" on stderr.
// Exit code, as `ceph`'s: 0 on success, also when the command only warns (`health` in HEALTH_WARN,
// `osd pool rm` of a pool that does not exist, `osd erasure-code-profile rm` of a missing
// profile); else the errno of the error (ENOENT 2, EPERM 1, EEXIST 17, EBUSY 16, ERANGE 34,
// ECONNREFUSED 111, ...; ec::cli::ExitStatus).
// Usage errors (wrong arity, a bad global flag) are "Error EINVAL: invalid command: ..." naming
// the command and its syntax, exit EINVAL (22). An unknown command is named with the closest
// commands first, as `ceph` does, then the error line, exit EINVAL:
//   no valid command found; 'osd foo' is not a command (see ec-admin --help); 10 closest matches:
//   osd erasure-code-profile set NAME [KEY=VALUE ...] [--force]
//   ...
//   Error EINVAL: invalid command
//
// Every command that changes the map does it with ONE MapStore::Apply, guarded by the epoch it
// decided on (if the map changed in between, the command is decided again on the new map, up to
// 8 times): a command never leaves the map half-changed, and its checks (profile equal, pool
// exists) hold for the map it changes.
//
// Thread safety: RunCommand may be called from several threads with distinct contexts; it keeps
// no state between calls. It loads erasure-code plugins through ec::PluginRegistry (thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cluster/admin/format.h"
#include "cluster/map/map_store.h"
#include "common/status.h"

namespace ec::cluster::admin {

struct CommandResult {
  int exit_code = 0;  // 0 success, else the errno of the error (EINVAL for a usage error)
  std::string out;    // stdout
  std::string err;    // stderr
};

// The global flags of ec-admin, taken out of the command line wherever they appear:
//   -c CONF | --conf CONF | --conf=CONF     the config file
//   -f FMT | --format FMT | --format=FMT    plain | json | json-pretty
//   -s | --status                           the command `status` (as `ceph -s`)
//   -h | --help, --version
// Every other word (commands, their arguments, and command flags such as --force and
// --yes-i-really-really-mean-it) stays in `words`, in order.
struct GlobalArgs {
  std::string conf;
  Format format = Format::kPlain;
  bool help = false;
  bool version = false;
  std::vector<std::string> words;
};

// Errors: EINVAL for a flag missing its value or an unknown format.
Result<GlobalArgs> ParseGlobalArgs(const std::vector<std::string>& args);

struct AdminContext {
  const MapStore* store = nullptr;  // required; outlives the call
  Format format = Format::kPlain;
  std::string plugin_dir;      // erasure-code plugins; "" = the registry's default directory
  std::string etcd_endpoints;  // as configured, for "cannot reach etcd at ..." messages
  std::string cluster_id;      // shown as the cluster id by `status` until the map has an fsid
  // The config option osd_pool_default_flag_ec_optimizations as the config file gives it:
  // `osd pool create` gives the new pool allow_ec_optimizations (objects stored without stripe
  // padding) when true; a value set in the cluster's config (`config set global ...`) wins.
  // ecstore's default is true; Ceph's is false.
  bool osd_pool_default_flag_ec_optimizations = true;
  // osd_pool_default_size and osd_pool_default_min_size as the config file gives them (1..10;
  // 0..10, 0 meaning size - size/2): a new replicated pool's size and min_size, unless the
  // cluster's config sets them (as above). Ceph's defaults.
  int osd_pool_default_size = 3;
  int osd_pool_default_min_size = 0;
  // ec-admin's keyring file (option keyring): the cluster's mon. key, which the auth commands
  // seal and open the auth database with (cluster/auth/auth_db.h); `auth init` writes it.
  std::string keyring;
  // Wall clock in ms since 1970 (stamps of osd in/out, ages in `status`); null = system clock.
  std::function<std::int64_t()> now_ms;
};

// Runs one command (the words after the program name, global flags already removed).
CommandResult RunCommand(const std::vector<std::string>& words, const AdminContext& ctx);

// `ec-admin --help`: the global flags and every command with its arguments.
std::string HelpText();
// `ec-admin WORDS... --help`: the usage and text of every command whose syntax starts with WORDS
// (whole words: "osd pool" gives the pool commands, "progress" its long help); HelpText() when
// none does.
std::string HelpFor(const std::vector<std::string>& words);

// "ENOENT", "EINVAL", ... for an errno value ("E<number>" when unnamed).
std::string ErrnoName(int code);
// The result of a failed command: exit code the status's errno, err "Error ENOENT: <message>\n".
CommandResult ErrorResult(const Status& status);
// The result of words that are no command: the unknown command named (its words up to the first
// one no command has there) with up to 10 closest commands, then "Error EINVAL: invalid
// command"; exit EINVAL.
CommandResult UnknownCommand(const std::vector<std::string>& words);

}  // namespace ec::cluster::admin
