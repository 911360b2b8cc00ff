#include "cluster/admin/admin_command.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

#include "cluster/admin/cluster_reports.h"
#include "cluster/admin/commands.h"
#include "cluster/admin/progress_report.h"
#include "cluster/admin/prometheus_exporter.h"
#include "cluster/admin/status_report.h"
#include "cluster/config/running_config.h"
#include "common/cli_errors.h"

namespace ec::cluster::admin {
namespace {

constexpr int kDecideAttempts = 8;

bool IsConnectionError(int code) {
  return code == ECONNREFUSED || code == ETIMEDOUT || code == ECONNRESET || code == EHOSTUNREACH ||
         code == ENETUNREACH;
}

bool StartsWith(const Words& words, std::initializer_list<const char*> prefix) {
  if (words.size() < prefix.size()) return false;
  std::size_t i = 0;
  for (const char* p : prefix) {
    if (words[i++] != p) return false;
  }
  return true;
}

}  // namespace

Status FromStore(const AdminContext& ctx, const Status& s) {
  if (IsConnectionError(s.code())) {
    return Status::Error(s.code(),
                         "cannot reach etcd at " + ctx.etcd_endpoints + ": " + s.message());
  }
  return s;
}

std::string ErrnoName(int code) {
  switch (code) {
#define EC_ERRNO(name) \
  case name:           \
    return #name;
    EC_ERRNO(EPERM)
    EC_ERRNO(ENOENT)
    EC_ERRNO(EIO)
    EC_ERRNO(E2BIG)
    EC_ERRNO(EAGAIN)
    EC_ERRNO(EACCES)
    EC_ERRNO(EBUSY)
    EC_ERRNO(EEXIST)
    EC_ERRNO(EINVAL)
    EC_ERRNO(EFBIG)
    EC_ERRNO(ERANGE)
    EC_ERRNO(ENOSPC)
    EC_ERRNO(EPROTO)
    EC_ERRNO(EBADMSG)
    EC_ERRNO(EMSGSIZE)
    EC_ERRNO(ENOTSUP)
    EC_ERRNO(ECANCELED)
    EC_ERRNO(ENETUNREACH)
    EC_ERRNO(ECONNRESET)
    EC_ERRNO(ETIMEDOUT)
    EC_ERRNO(ECONNREFUSED)
    EC_ERRNO(EHOSTUNREACH)
#undef EC_ERRNO
    default:
      return "E" + std::to_string(code);
  }
}

CommandResult ErrorResult(const Status& status) {
  return CommandResult{cli::ExitStatus(status), "",
                       "Error " + ErrnoName(status.code()) + ": " + status.message() + "\n"};
}

namespace {

// The literal words of each command of the table ("osd pool create NAME ..." -> osd pool create).
const std::vector<cli::CommandName>& CommandNames() {
  static const std::vector<cli::CommandName> names = [] {
    std::vector<cli::CommandName> out;
    for (const CommandHelp& c : CommandTable()) {
      cli::CommandName name;
      name.usage = c.syntax;
      std::istringstream in(c.syntax);
      for (std::string w; in >> w;) {
        const bool literal = std::none_of(w.begin(), w.end(), [](char ch) {
          return std::isupper(static_cast<unsigned char>(ch)) || ch == '[' || ch == '|' ||
                 ch == '=';
        });
        if (!literal) break;
        name.words.push_back(w);
      }
      out.push_back(std::move(name));
    }
    return out;
  }();
  return names;
}

}  // namespace

CommandResult UnknownCommand(const std::vector<std::string>& words) {
  const std::size_t known = cli::KnownPrefixWords(words, CommandNames());
  std::string command;
  for (std::size_t i = 0; i < words.size() && i <= known; ++i) {
    command += (command.empty() ? "" : " ") + words[i];
  }
  CommandResult r;
  r.exit_code = cli::kUsageExitStatus;
  r.err =
      cli::UnknownCommandText("ec-admin", command, cli::ClosestCommands(words, CommandNames())) +
      "Error EINVAL: invalid command\n";
  return r;
}

CommandResult Success(std::string out, std::string err) {
  if (!err.empty() && err.back() != '\n') err += "\n";
  return CommandResult{0, std::move(out), std::move(err)};
}

CommandResult UsageError(const std::string& what, const std::string& usage) {
  std::string message = "invalid command: " + what;
  if (!usage.empty()) message += "; usage: " + usage;
  return ErrorResult(Status::Invalid(message));
}

std::int64_t NowMs(const AdminContext& ctx) {
  if (ctx.now_ms) return ctx.now_ms();
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<ClusterMap> LoadMap(const AdminContext& ctx) {
  Result<ClusterMap> map = ctx.store->Load();
  if (!map.ok()) return FromStore(ctx, map.status());
  return map;
}

CommandResult ChangeMap(const AdminContext& ctx,
                        const std::function<Result<Plan>(const ClusterMap&)>& decide) {
  for (int attempt = 0; attempt < kDecideAttempts; ++attempt) {
    Result<ClusterMap> map = LoadMap(ctx);
    if (!map.ok()) return ErrorResult(map.status());
    Result<Plan> plan = decide(*map);
    if (!plan.ok()) return ErrorResult(plan.status());
    if (plan->changes.empty()) return Success(std::move(plan->out), std::move(plan->err));
    // The plan holds for this map only: the guard makes Apply refuse it if the epoch moved.
    TxnGuard guard;
    etcd::Compare same_epoch;
    same_epoch.target = etcd::Compare::Target::kMod;
    same_epoch.result = etcd::Compare::Result::kEqual;
    same_epoch.key = EpochKey(ctx.store->prefix());
    same_epoch.number = map->epoch_mod_revision;
    guard.compares.push_back(std::move(same_epoch));
    Result<ClusterMap> applied = ctx.store->Apply(plan->changes, guard);
    if (applied.ok()) return Success(std::move(plan->out), std::move(plan->err));
    if (applied.status().code() == ECANCELED) continue;
    // Apply re-validates the change set itself when the epoch moved, so a refusal (EEXIST for a
    // pool another writer just created) may come from a newer map than the one decided on:
    // decide again on that map, which gives Ceph's answer for it ("already exists").
    if (!IsConnectionError(applied.status().code())) {
      Result<ClusterMap> now = ctx.store->Load();
      if (now.ok() && now->epoch_mod_revision != map->epoch_mod_revision) continue;
    }
    return ErrorResult(FromStore(ctx, applied.status()));
  }
  return ErrorResult(Status::Retryable(EAGAIN, "the map kept changing; try again"));
}

const std::vector<CommandHelp>& CommandTable() {
  static const std::vector<CommandHelp> table = {
      {"osd erasure-code-profile set NAME [KEY=VALUE ...] [--force]",
       "create an erasure-code profile (validated by loading its plugin)"},
      {"osd erasure-code-profile get NAME", "show a profile"},
      {"osd erasure-code-profile ls", "list profiles"},
      {"osd erasure-code-profile rm NAME", "remove a profile no pool uses"},
      {"osd pool create NAME PG_NUM [PGP_NUM] [erasure [PROFILE] | replicated [--size N]]",
       "create an erasure-coded pool (PROFILE default: default) or a replicated pool (the "
       "default type)",
       "erasure: creates the pool on PROFILE (created as Ceph's k=2 m=2 jerasure profile when it\n"
       "is `default` and absent). size is the code's k+m, min_size k+1 (k when m is 1), the\n"
       "stripe unit the profile's stripe_unit or 4096. The pool gets allow_ec_optimizations\n"
       "(Fast EC: objects stored without stripe padding) when the config option\n"
       "osd_pool_default_flag_ec_optimizations is true, ecstore's default (Ceph's is false); set\n"
       "it false in [global] for padded pools. The flag is fixed for the pool's life. `osd pool\n"
       "ls detail` shows it as `flags ec_optimizations`.\n"
       "replicated (also when the type is left out, as Ceph): each object kept whole on size\n"
       "OSDs of different hosts; size from --size or osd_pool_default_size (3), 1..10 (1 only\n"
       "with --yes-i-really-mean-it); min_size from osd_pool_default_min_size (0: size - size/2,\n"
       "2 of 3). An optional rule may only be replicated_rule. `osd pool set NAME size N`\n"
       "changes it later.\n"},
      {"osd pool ls [detail]", "list pools"},
      {"osd pool get NAME size|min_size|pg_num|pgp_num|erasure_code_profile|"
       "allow_ec_optimizations|ec_min_object_size|all",
       "show pool options"},
      {"osd pool set NAME min_size|size|ec_min_object_size N",
       "set a pool option (min_size; a replicated pool's size; an erasure pool's small objects)",
       "min_size: the shards (copies) a write must reach before it is acknowledged, and the\n"
       "shards a PG needs up to take I/O; k <= N <= size (k+m; 1..size for a replicated pool),\n"
       "else EINVAL. The OSDs use the new value from the next map. size: an erasure pool's is\n"
       "its k+m (EPERM); a replicated pool's may be 1..10 (1 only with --yes-i-really-mean-it):\n"
       "every PG then places N copies, new copies are pulled from one other, min_size is\n"
       "lowered to N when above it. pg_num, pgp_num and erasure_code_profile cannot change here\n"
       "(EPERM); allow_ec_optimizations is fixed at pool creation (EINVAL).\n"
       "ec_min_object_size BYTES (an erasure pool of k+m only, else EINVAL; 0..134217728,\n"
       "default 0 = off): an object written smaller than BYTES is kept as m+1 whole copies on\n"
       "its PG's first m+1 OSDs (the failures the code survives), one that grows to BYTES or\n"
       "past is turned into k+m shards by that write; applies to objects as they are next\n"
       "written. `osd pool ls detail` shows it when not 0.\n"},
      {"osd pool rm NAME NAME --yes-i-really-really-mean-it", "remove a pool"},
      {"osd tree", "OSDs by host, with status and weight"},
      {"osd out ID [ID ...]", "mark OSDs out (ID: N or osd.N)"},
      {"osd in ID [ID ...]", "mark OSDs in"},
      {"osd rm ID [ID ...]", "remove OSDs that are down"},
      {"osd dump", "the whole map"},
      {"osd df", "space used and available per OSD, with its PGs",
       "Ceph's table: ID CLASS WEIGHT REWEIGHT SIZE RAW USE DATA OMAP META AVAIL %USE VAR PGS\n"
       "STATUS, then TOTAL and MIN/MAX VAR, STDDEV. The sizes are the OSD's device as it last\n"
       "reported (every osd_mon_report_interval; zeros for an OSD that has not): DATA the blocks\n"
       "holding shards, META the device's superblock and journal ring (the store's RocksDB lives\n"
       "outside the device and is not counted), OMAP 0. PGS: the PGs whose up set holds the OSD.\n"
       "%USE = RAW USE / SIZE; VAR = %USE / the cluster's %RAW USED. CLASS is always ssd.\n"
       "--format json: {\"nodes\":[{\"id\",\"name\",\"crush_weight\",\"reweight\",\"kb\",\n"
       "\"kb_used\",\"kb_used_data\",\"kb_used_omap\",\"kb_used_meta\",\"kb_avail\",\n"
       "\"utilization\",\"var\",\"pgs\",\"status\"}],\"summary\":{\"total_kb\",...}}.\n"},
      {"osd map POOL OBJECT", "the PG of an object and its up and acting OSDs"},
      {"osd set noout|norecover|nobackfill|noscrub|nodeep-scrub", "set a cluster-wide OSD flag",
       "Sets the flag in the cluster map (shown by `status` as \"flags ...\" and the health check\n"
       "OSDMAP_FLAGS, by `osd dump` and `osd stat`). The daemons honour it:\n"
       "  noout         the monitor marks no down OSD out (mon_osd_down_out_interval waits)\n"
       "  norecover     PG primaries start no recovery of missing shards (paused, not lost)\n"
       "  nobackfill    PG primaries start no backfill (copies from a previous OSD)\n"
       "  noscrub       no new scheduled scrubs; `pg scrub` still runs\n"
       "  nodeep-scrub  no new scheduled deep scrubs; `pg deep-scrub` still runs\n"},
      {"osd unset noout|norecover|nobackfill|noscrub|nodeep-scrub",
       "clear a cluster-wide OSD flag (what it paused resumes)"},
      {"osd stat", "OSD counts, up and in, and the map epoch (one line)"},
      {"osd down ID [ID ...]", "mark OSDs down in the map (a running OSD marks itself up again)",
       "Marks the OSDs down in the map at once. A running OSD sees it with the new map and,\n"
       "after a backoff of a third of osd_heartbeat_grace, boots again once a third of its\n"
       "peers answer its heartbeats (Ceph's \"wrongly marked me down\"): its PGs peer anew.\n"
       "Marked down so more than osd_max_markdown_count times in osd_max_markdown_period, it\n"
       "exits instead. An OSD that is not running stays down.\n"},
      {"osd ok-to-stop ID [ID ...]", "whether stopping the OSDs keeps every PG available",
       "Exit 0 (and JSON on stdout) when every PG keeps at least min_size shards up with these\n"
       "OSDs stopped; else EBUSY (16): \"unsafe to stop osd(s) at this time (N PGs are or would\n"
       "become offline)\" (PGs of these OSDs already below min_size count too).\n"},
      {"osd perf", "commit and apply latency per OSD (ms, over its last report interval)",
       "Each OSD reports the mean latency of the shard writes it served (received to answered:\n"
       "data durable on its device) over its last osd_mon_report_interval; ecstore's store\n"
       "applies and commits in one step, so both columns show it. 0 for an OSD without writes.\n"},
      {"pg scrub PGID", "ask the PG's primary to scrub it (shard metadata)",
       "Leaves a scrub request for PG PGID (POOL.PGHEX, as 1.1f) in etcd for the PG's primary,\n"
       "the first up OSD of its acting set, and names that OSD. A scrub compares the metadata\n"
       "of every object's shards: that each exists, its size and its object version; it reads no\n"
       "data. The primary runs the request once the PG is active+clean, deletes it when done and\n"
       "records what it found; a newer request replaces one not yet started.\n"
       "Results: `ec-admin health detail` (OSD_SCRUB_ERRORS, PG_DAMAGED) and\n"
       "`ec-rados list-inconsistent-obj PGID`.\n"},
      {"pg deep-scrub PGID", "ask the PG's primary to deep-scrub it (reads every shard)",
       "As `pg scrub`, and more: a deep scrub reads every shard of every object, verifies its\n"
       "checksums and re-encodes the parity from the data to compare it with the stored parity\n"
       "(a shard that disagrees is an ec_hash_error). It finds silent corruption a scrub cannot.\n"
       "Results: `ec-admin health detail` and `ec-rados list-inconsistent-obj PGID`.\n"},
      {"pg repair PGID", "ask the PG's primary to repair it (a deep scrub that fixes)",
       "A deep scrub (see `pg deep-scrub`) that then rebuilds each bad shard from the good ones\n"
       "and rewrites it. What it could not fix stays in the PG's scrub record.\n"
       "Results: `ec-admin health detail` and `ec-rados list-inconsistent-obj PGID`.\n"},
      {"df [detail]", "the cluster's raw space and each pool's stored data and room",
       "--- RAW STORAGE ---: SIZE, AVAIL and RAW USED over the OSDs up that reported their\n"
       "device (every osd_mon_report_interval). --- POOLS ---: STORED, the objects' logical\n"
       "bytes, and OBJECTS from the PG primaries' reports; USED = STORED x (k+m)/k, the raw\n"
       "space of data and parity chunks; MAX AVAIL as Ceph computes it: the raw space the pool\n"
       "can still take before its fullest OSD reaches the full ratio (0.95 of its size; each\n"
       "OSD's headroom divided by its share of the weight, the smallest of these), scaled by\n"
       "k/(k+m) for an erasure-coded pool; %USED = USED / (USED + MAX AVAIL x (k+m)/k).\n"
       "`detail` adds Ceph's quota, dirty and compression columns (N/A, 0: not kept).\n"
       "--format json: {\"stats\":{\"total_bytes\",\"total_avail_bytes\",\"total_used_bytes\",\n"
       "\"total_used_raw_bytes\",...},\"pools\":[{\"name\",\"id\",\"stats\":{\"stored\",\n"
       "\"objects\",\"bytes_used\",\"percent_used\" (0..1),\"max_avail\"}}]}.\n"},
      {"pg stat", "PG counts by state and object counts (one line)"},
      {"pg dump [all|pgs|pgs_brief]", "every PG: state, objects, up and acting sets, scrub stamps"},
      {"pg ls [STATE ...]", "PGs, those in any of the STATEs (active, degraded, ...) if given"},
      {"pg ls-by-pool POOL [STATE ...]", "the PGs of one pool, as pg ls"},
      {"pg PGID query", "one PG's state, up and acting sets, counts and scrub stamps (JSON)"},
      {"config set WHO NAME VALUE",
       "store an option in the cluster's config (WHO: global, osd or osd.N)",
       "Stores NAME = VALUE in the cluster's config (etcd) for WHO: every daemon (global), every\n"
       "OSD (osd) or one (osd.N). A daemon's value comes from, highest first: its --set, osd.N,\n"
       "osd, global (the cluster's config), its ecstore.conf, the default (Ceph puts its local\n"
       "file above the monitors; ecstore puts the cluster's config above the file so that what\n"
       "the file sets can change at runtime). An option that can change at runtime (`config help\n"
       "NAME`: \"Can update at runtime: true\") reaches the running OSDs within a second or two;\n"
       "any other is stored and taken at each daemon's next start (said on stderr). Errors,\n"
       "EINVAL: an unknown option (\"unrecognized config option\"), a bad value (\"error parsing\n"
       "value: ...\"), an option only ecstore.conf may set (etcd_endpoints, osd_data, ...).\n"},
      {"config get WHO [NAME]",
       "the value of an option for WHO from the cluster's config (its default when not set)",
       "With NAME: the value in force for WHO among the cluster's config (osd.N over osd over\n"
       "global), else the option's default (ecstore.conf and --set are the daemons' own: see\n"
       "`config show`). Without: a table WHO MASK LEVEL OPTION VALUE RO of the settings that\n"
       "apply to WHO (RO \"*\": not changeable at runtime); json {NAME:{\"value\",\"section\",\n"
       "\"mask\",\"can_update_at_runtime\"}}. An unknown NAME is ENOENT.\n"},
      {"config rm WHO NAME", "remove an option from the cluster's config"},
      {"config dump", "every option stored in the cluster's config",
       "A table WHO MASK LEVEL OPTION VALUE RO (global, then osd, then osd.N); --format json: an\n"
       "array of {\"section\",\"name\",\"value\",\"level\",\"can_update_at_runtime\",\"mask\"}\n"
       "(Ceph's). A key in etcd that is no setting is named on stderr.\n"},
      {"config show WHO [NAME]", "the values a running OSD uses, with their source (WHO: osd.N)",
       "What osd.N reported it uses (at its start and after each change it takes): NAME VALUE\n"
       "SOURCE OVERRIDES IGNORES for every option not at its default. SOURCE is default, file\n"
       "(ecstore.conf), mon (the cluster's config) or cmdline (--set); OVERRIDES the other\n"
       "sources that set it, highest first; IGNORES mon when the cluster's config holds a value\n"
       "the OSD does not use yet (an option that cannot change at runtime: it applies at the\n"
       "next start). With NAME, its value alone. ENOENT when the OSD never reported.\n"},
      {"config show-with-defaults WHO", "as config show, every option, defaults included"},
      {"config help NAME",
       "an option's type, level, default, range and whether it can change "
       "at runtime"},
      {"auth get-or-create ENTITY [SERVICE CAPS ...]",
       "the entity's keyring section, its key made first if it has none (SERVICE: mon, osd)",
       "Ceph's: ENTITY is client.ID or osd.N; CAPS in Ceph's syntax, e.g. osd 'allow *',\n"
       "osd 'allow rw pool=NAME', osd 'allow r pool=NAME', mon 'allow r' (bad caps: EINVAL\n"
       "naming where parsing stopped). An existing entity whose caps differ from those given is\n"
       "EINVAL \"key for ENTITY exists but cap SERVICE does not match\". The key (16 random\n"
       "bytes from libcrypto, in Ceph's encoding) and caps are stored in etcd sealed with a key\n"
       "derived from the cluster's mon. key (cluster/README.md, auth/), which ec-admin reads\n"
       "from its keyring (option keyring). Save the output as the entity's keyring file\n"
       "(`umask 077; ec-admin auth get-or-create client.app osd 'allow rw pool=data' >\n"
       "/etc/ecstore/ecstore.client.app.keyring`); an OSD's keyring also needs the mon. key\n"
       "(`ec-admin auth get mon. >> FILE`).\n"},
      {"auth get-or-create-key ENTITY [SERVICE CAPS ...]", "as get-or-create, the key alone"},
      {"auth get ENTITY", "the entity's keyring section with its caps (mon.: the cluster's key)"},
      {"auth get-key ENTITY", "the entity's key alone"},
      {"auth ls", "every entity with its key and caps"},
      {"auth rm ENTITY", "remove an entity: new connections with its key are refused"},
      {"auth init", "make the cluster's mon. key and client.admin's (ecstore's bootstrap)",
       "Runs once per cluster: writes ec-admin's keyring (option keyring, mode 0600) with a new\n"
       "mon. key and client.admin's key (caps mon 'allow *' osd 'allow *'), and puts\n"
       "client.admin in the auth database. EEXIST when the keyring exists or the database has\n"
       "entries. Ceph's equivalent is ceph-authtool --gen-key -n mon. / -n client.admin.\n"},
      {"status", "cluster status (also: -s)"},
      {"health [detail]", "cluster health"},
      {"exporter", "the cluster's metrics once, in Prometheus text (ceph-mgr's names)",
       "Prints what the elected monitor's ec-osd serves at /metrics/cluster: the cluster's\n"
       "health, OSDs, pools, PG states, capacity and client I/O with the metric names, labels\n"
       "and help texts of ceph-mgr's prometheus module (ceph_health_status, ceph_osd_up,\n"
       "ceph_pool_stored, ceph_pg_active, ceph_osd_op_r, ...), so that Ceph's Grafana dashboards\n"
       "show the cluster. The Prometheus text format only: --format json is refused.\n"},
      {"progress [json]", "running recovery events",
       "The recovery events running now, as the PG primaries report them: one global event while\n"
       "shards are missing on up OSDs, then one per pool with shards missing. Each shows its age\n"
       "(since the primaries' reports first named missing shards), a bar of the shard bytes\n"
       "recovered out of recovered + missing, and the time left at the cluster's rebuild rate\n"
       "(the global event only). \"No ongoing recovery\" when none runs. `progress json` (or\n"
       "--format json) gives {\"events\":[{\"id\",\"message\",\"progress\",\"started_at\",\n"
       "\"elapsed_sec\",\"remaining_sec\",\"missing_bytes\",\"recovered_bytes\"}],\"completed\":[.."
       ".]}"
       ",\n"
       "an empty list when clean. A recovery that ended stays an hour as a completed event\n"
       "(\"[Complete]: Global Recovery Event (took 40s)\"; in JSON {\"id\",\"message\",\n"
       "\"progress\":1.0,\"started_at\",\"finished_at\",\"failed\":false}), as each OSD last\n"
       "reported it: an OSD restarted since forgets the runs before.\n"},
  };
  return table;
}

std::string UsageOf(const std::string& prefix) {
  for (const CommandHelp& c : CommandTable()) {
    const std::string syntax = c.syntax;
    if (syntax.compare(0, prefix.size(), prefix) == 0 &&
        (syntax.size() == prefix.size() || syntax[prefix.size()] == ' ')) {
      return syntax;
    }
  }
  return "";
}

std::string HelpFor(const std::vector<std::string>& words) {
  std::string prefix;
  for (const std::string& w : words) prefix += (prefix.empty() ? "" : " ") + w;
  std::string out;
  for (const CommandHelp& c : CommandTable()) {
    const std::string syntax = c.syntax;
    if (syntax.compare(0, prefix.size(), prefix) != 0 ||
        (syntax.size() != prefix.size() && syntax[prefix.size()] != ' ')) {
      continue;
    }
    out += "usage: ec-admin " + syntax + "\n  " + c.text + "\n";
    if (c.detail != nullptr) out += "\n" + std::string(c.detail);
  }
  return out.empty() ? HelpText() : out;
}

std::string HelpText() {
  std::string out =
      "usage: ec-admin [-c CONF] [--format plain|json|json-pretty] COMMAND ...\n"
      "       ec-admin -s\n\n"
      "The cluster map's admin tool, with Ceph's `ceph` command syntax.\n\n"
      "global flags:\n"
      "  -c, --conf CONF      config file (else $EC_CONF, else /etc/ecstore/ecstore.conf), read\n"
      "                       as client.admin's: [global], [client], [client.admin]\n"
      "  -f, --format FMT     plain (default), json or json-pretty\n"
      "  -s, --status         the same as the command `status`\n"
      "  -h, --help           this text\n"
      "  --version            print the version\n\n"
      "exit status: 0 on success (a warning too), else the error's errno (ENOENT 2, EINVAL 22, "
      "...)\n\n"
      "commands:\n";
  std::size_t width = 0;
  for (const CommandHelp& c : CommandTable()) width = std::max(width, std::strlen(c.syntax));
  for (const CommandHelp& c : CommandTable()) {
    out += "  " + std::string(c.syntax) + std::string(width - std::strlen(c.syntax) + 2, ' ') +
           c.text + "\n";
  }
  return out;
}

Result<GlobalArgs> ParseGlobalArgs(const std::vector<std::string>& args) {
  GlobalArgs g;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* flag) -> Result<std::string> {
      if (i + 1 >= args.size()) {
        return Status::Invalid(std::string("option ") + flag + " needs a value");
      }
      return args[++i];
    };
    std::string text;
    if (a == "-c" || a == "--conf") {
      Result<std::string> v = value(a.c_str());
      if (!v.ok()) return v.status();
      g.conf = *v;
    } else if (a.rfind("--conf=", 0) == 0) {
      g.conf = a.substr(7);
    } else if (a == "-f" || a == "--format" || a.rfind("--format=", 0) == 0) {
      if (a.rfind("--format=", 0) == 0) {
        text = a.substr(9);
      } else {
        Result<std::string> v = value(a.c_str());
        if (!v.ok()) return v.status();
        text = *v;
      }
      Result<Format> f = ParseFormat(text);
      if (!f.ok()) return f.status();
      g.format = *f;
    } else if (a == "-s" || a == "--status") {
      g.words.push_back("status");
    } else if (a == "-h" || a == "--help") {
      g.help = true;
    } else if (a == "--version") {
      g.version = true;
    } else {
      g.words.push_back(a);
    }
  }
  return g;
}

namespace {

// The status of the map now, with the primaries' PG reports and the PGs' scrub results; without
// them (etcd hiccup) the status still shows the map's view.
Result<StatusReport> LoadStatus(const AdminContext& ctx) {
  Result<ClusterReports> reports = LoadClusterReports(ctx, false);
  if (!reports.ok()) return reports.status();
  const std::string id = reports->map.fsid.empty() ? ctx.cluster_id : reports->map.fsid;
  Result<StatusReport> report = BuildClusterStatus(*reports, id);
  if (!report.ok()) return report;
  // Whether the cluster authenticates: what each up OSD says it runs with (an OSD's report it
  // cannot read is left out, as the other reports are).
  for (const auto& [osd, entry] : reports->map.osds) {
    if (!entry.up) continue;
    Result<RunningConfig> rc = LoadRunningConfig(*ctx.store->client(), ctx.store->prefix(), osd);
    if (!rc.ok()) continue;
    for (const RunningOption& o : rc->options) {
      if (o.name == "auth_cluster_required") ++report->auth_modes[o.value];
    }
  }
  return report;
}

}  // namespace

CommandResult RunProgressCommand(const Words& words, const AdminContext& ctx) {
  const bool json_word = words.size() == 2 && words[1] == "json";
  if (words.size() > 2 || (words.size() == 2 && !json_word)) {
    return UsageError("'progress' takes only 'json'", UsageOf("progress"));
  }
  Result<StatusReport> report = LoadStatus(ctx);
  if (!report.ok()) return ErrorResult(report.status());
  const std::vector<ProgressEvent> events = ProgressEvents(*report);
  const std::int64_t now = NowMs(ctx);
  const std::vector<CompletedEvent> completed = CompletedEvents(*report, now);
  if (json_word || ctx.format != Format::kPlain) {
    const Format format = ctx.format == Format::kJsonPretty ? Format::kJsonPretty : Format::kJson;
    return Success(DumpJson(ProgressJson(events, now, completed), format));
  }
  return Success(RenderProgressPlain(events, now, completed));
}

CommandResult RunStatusCommand(const Words& words, const AdminContext& ctx) {
  const bool status = words.size() == 1 && words[0] == "status";
  const bool health = !words.empty() && words[0] == "health" &&
                      (words.size() == 1 || (words.size() == 2 && words[1] == "detail"));
  if (!status && !health) {
    return UsageError(
        "'" + words[0] + "' takes " + (words[0] == "status" ? "no arguments" : "only 'detail'"),
        UsageOf(words[0]));
  }
  Result<StatusReport> report = LoadStatus(ctx);
  if (!report.ok()) return ErrorResult(report.status());
  const bool detail = words.size() == 2;
  if (ctx.format != Format::kPlain) {
    return Success(
        DumpJson(status ? StatusJson(*report) : HealthJson(*report, detail), ctx.format));
  }
  return Success(status ? RenderStatusPlain(*report, NowMs(ctx))
                        : RenderHealthPlain(*report, detail));
}

CommandResult RunExporterCommand(const Words& words, const AdminContext& ctx) {
  if (words.size() != 1) return UsageError("'exporter' takes no arguments", UsageOf("exporter"));
  if (ctx.format != Format::kPlain) {
    return ErrorResult(
        Status::Invalid("'exporter' prints the Prometheus text format only (no --format)"));
  }
  Result<std::string> text = ScrapeClusterMetrics(ctx);
  if (!text.ok()) return ErrorResult(text.status());
  return Success(std::move(text).value());
}

CommandResult RunCommand(const std::vector<std::string>& words, const AdminContext& ctx) {
  if (words.empty()) return UsageError("no command given; see ec-admin --help", "");
  if (ctx.store == nullptr) return ErrorResult(Status::Invalid("no map store"));
  if (StartsWith(words, {"osd", "erasure-code-profile"})) {
    return RunProfileCommand(Tail(words, 2), ctx);
  }
  if (StartsWith(words, {"osd", "pool"})) return RunPoolCommand(Tail(words, 2), ctx);
  if (StartsWith(words, {"osd", "df"})) return RunOsdDfCommand(Tail(words, 2), ctx);
  if (StartsWith(words, {"osd"})) return RunOsdCommand(Tail(words, 1), ctx);
  if (words[0] == "status" || words[0] == "health") return RunStatusCommand(words, ctx);
  if (words[0] == "progress") return RunProgressCommand(words, ctx);
  if (words[0] == "exporter") return RunExporterCommand(words, ctx);
  if (words[0] == "pg") return RunPgCommand(Tail(words, 1), ctx);
  if (words[0] == "df") return RunDfCommand(Tail(words, 1), ctx);
  if (words[0] == "config") return RunConfigCommand(Tail(words, 1), ctx);
  if (words[0] == "auth") return RunAuthCommand(Tail(words, 1), ctx);
  return UnknownCommand(words);
}

}  // namespace ec::cluster::admin
