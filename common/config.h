// ecstore.conf, the one configuration schema of every program (as Ceph's option table is):
// OsdConfig, the configuration of one ec-osd daemon, and ClientConfig, what a client takes from the
// same file; read from a Ceph-style INI file.
//
//   # ecstore.conf                      ; comments start with '#' or ';' (whole line or after
//   [global]                            ;   whitespace at the end of a value)
//   log level = info                    <- "log level" == "log_level" == "log-level"
//   [osd]
//   osd data = /srv/ecstore/osd-$id     <- $id, $name (osd.N), $type (osd), $cluster and any
//   [osd.0]                                string option ($osd_data) are expanded
//   osd port = 6900
//   [client]                            <- clients only (ec-admin, ec-rados, the client library)
//   etcd user = client
//   [client.admin]                      <- the client named client.admin only
//   etcd user = root
//
// Precedence, highest first: command-line overrides (`--set name=value`), the cluster's central
// config in etcd (`ec-admin config set WHO NAME VALUE`: WHO osd.N, then osd, then global; given
// as MonSetting), the file's [osd.N] for this daemon's id, [osd], [global], the built-in default.
// A client's: overrides, the file's [client.ID] for its name, [client], [global], the default
// (Ceph's sections; etcd's central config is for daemons).
// Ceph puts its local file above the monitors' database; ecstore puts etcd above the file, so
// that `config set` can change at runtime what the launcher and installs write into
// ecstore.conf (mon_osd_down_out_interval, the recovery throttles), and keeps the command line
// above both. Sections [osd.M] for other ids, and a daemon's [client] sections (a client's [osd]
// ones), are parsed and validated but do not apply. Any
// other section name is an error, as is an unknown option name or a value that does not parse
// for its option's type, in any section (so a typo never silently falls back to a default); a
// setting from etcd that is unknown, bad or not storable there is ignored and named in
// OsdConfig::mon_ignored instead (a bad value in etcd never stops a daemon). Every option, its
// type, default, level, whether a running daemon applies a change (OptionUpdate) and its meaning
// are in one table (OsdOptionTable(), listed in osd/daemon/README.md and by
// `ec-osd --help-config`).
//
// Value syntax per type:
//   string    the text as written (trimmed); "$name" / "${name}" expanded, "$$" is a literal '$'
//   int       decimal integer within the option's range
//   size      a byte count with an optional binary suffix: 4096, 64K, 64KiB, 64KB, 1M, 2G, 1T
//             (all suffixes are powers of 1024), within the option's range
//   bool      true/false, yes/no, on/off, 1/0 (any case)
//   duration  seconds, fractions allowed, or with a unit: 10, 1.5, 250ms, 30s, 15m, 1h
//   addr      an IPv4 or IPv6 address literal (127.0.0.1, 0.0.0.0, ::1); not a host name
//   enum      one of the option's listed words
//
// Thread safety: every function here is reentrant; OsdConfig is a plain value.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace ec {

enum class OptionType { kString, kInt, kSize, kBool, kDuration, kAddr, kEnum, kRanges, kBandwidth };

// "string", "int", "size", "bool", "duration", "addr", "enum", "ranges", "bandwidth".
std::string_view OptionTypeName(OptionType type);

// When a new value of an option takes effect in a running daemon (`ec-admin config set`).
enum class OptionUpdate {
  kRestart,   // read at start: a value set in etcd is stored and used from the next start
  kLive,      // applied by a running daemon within a second or two of the change in etcd
  kFileOnly,  // how a daemon finds the cluster and its store (etcd_endpoints, osd_data, ...):
              // ecstore.conf and --set only; etcd refuses it (Ceph's FLAG_NO_MON_UPDATE)
};
// "restart", "live", "file only".
std::string_view OptionUpdateName(OptionUpdate update);

// Ceph's option levels (`ec-admin config dump`'s LEVEL).
enum class OptionLevel { kBasic, kAdvanced, kDev };
// "basic", "advanced", "dev".
std::string_view OptionLevelName(OptionLevel level);

// One row of the option table.
struct OptionSpec {
  std::string_view name;  // canonical spelling, with underscores
  OptionType type;
  // The default exactly as it could be written in a config file (may use $variables). When
  // add_osd_id is set the daemon's id is added to this (integer) default: 6800 -> 6800 + id.
  std::string_view default_value;
  std::string_view description;  // one line
  std::int64_t min = 0;          // kInt / kSize: inclusive range; kDuration: in milliseconds
  std::int64_t max = 0;
  std::string_view choices;  // kEnum: words separated by '|'
  bool add_osd_id = false;
  OptionUpdate update = OptionUpdate::kRestart;
  OptionLevel level = OptionLevel::kAdvanced;
};

// Every option ec-osd understands, in a fixed order. Static storage; never fails.
std::span<const OptionSpec> OsdOptionTable();

// Canonical form of an option name: trimmed, runs of spaces, '-' and '_' become one '_'.
std::string NormaliseOptionName(std::string_view name);

// The row for a name in any accepted spelling ("osd data", "osd-data"), or nullptr.
const OptionSpec* FindOsdOption(std::string_view name);

// Whether `value` is a valid value of the option as a config file would give it (trimmed first).
// Errors: EINVAL with the reason ("not an integer", "out of range [1, 64]", ...). A string may
// hold $variables; they are expanded (and checked) only when a configuration is resolved.
Status CheckOptionValue(const OptionSpec& spec, std::string_view value);

// Whether `name` is a "who" of the cluster's central config, a section of ecstore.conf a daemon
// takes: "global", "osd" or "osd.N" (N a decimal id >= 0 without leading zeros). [client] and
// [client.ID] are sections of the file only (etcd's central config is for daemons).
bool IsConfigSection(std::string_view name);

// One setting of the cluster's central config (etcd, `ec-admin config set WHO NAME VALUE`):
// `who` is "global", "osd" or "osd.N"; `name` an option name in any spelling; `value` as a
// config file would give it.
struct MonSetting {
  std::string who;
  std::string name;
  std::string value;
  bool operator==(const MonSetting&) const = default;
};

enum class IoBackendKind { kUring, kSync };  // option osd_io_backend: "io_uring" | "sync"

// The typed, fully resolved configuration (every $variable expanded, every value validated).
// Field names are the option names; see OsdOptionTable() for the meaning and the defaults.
struct OsdConfig {
  int osd_id = 0;
  std::string cluster;

  // Store.
  std::string osd_data;              // store directory: device file (by default) and RocksDB
  std::string bluestore_block_path;  // device file or block device
  std::string osd_db_path;           // RocksDB directory
  std::uint64_t bluestore_block_size = 0;
  std::uint64_t bluestore_prefer_deferred_size = 0;
  std::uint64_t osd_journal_size = 0;  // MiB, as Ceph's option of that name
  IoBackendKind osd_io_backend = IoBackendKind::kUring;

  // Messenger.
  std::string public_addr;                // IP address to listen on
  std::uint16_t osd_port = 0;             // 0: kernel-chosen
  std::uint64_t ms_max_message_size = 0;  // largest header + payload of one frame, bytes
  std::uint32_t ms_max_inflight_per_connection = 0;
  std::uint32_t ms_async_op_threads = 0;        // network I/O threads
  std::uint32_t osd_op_num_threads = 0;         // threads executing store operations
  std::uint64_t osd_inline_read_max_size = 0;   // reads run on the network thread when idle
  std::uint64_t osd_inline_write_max_size = 0;  // shard writes start on the receiving thread
  std::chrono::milliseconds ms_handshake_timeout{0};
  std::chrono::milliseconds ms_connection_idle_timeout{0};  // 0: never

  // Logging.
  std::string log_file;   // empty: stderr
  std::string log_level;  // spdlog level name: trace debug info warn error critical off

  // Metrics and status over HTTP.
  bool osd_metrics_enabled = true;
  std::string osd_metrics_addr;        // IP address of the HTTP endpoint
  std::uint16_t osd_metrics_port = 0;  // 0: kernel-chosen

  // Cluster (empty etcd_endpoints: the daemon runs alone, outside any cluster).
  std::string etcd_endpoints;  // "http://127.0.0.1:2379,http://..."
  std::string etcd_prefix;
  std::chrono::milliseconds etcd_op_timeout{0};
  // etcd over TLS (https endpoints): the CA file, and the client certificate and key (empty:
  // none).
  std::string etcd_ca_file;
  std::string etcd_cert_file;
  std::string etcd_key_file;
  // etcd's own users (etcd's auth enabled): the user this daemon authenticates as and the file
  // holding its password (empty: none).
  std::string etcd_user;
  std::string etcd_password_file;
  // Authentication (issue 32; msg/PROTOCOL.md "Authentication"): "cephx" or "none" (Ceph's
  // option), and this daemon's keyring file (its osd.N key and the cluster's mon. key).
  std::string auth_cluster_required;
  std::string keyring;
  std::string host;  // empty: the machine's host name
  std::chrono::milliseconds osd_heartbeat_grace{0};
  std::chrono::milliseconds osd_heartbeat_interval{0};  // pings every min(this, grace/4)
  int mon_osd_min_down_reporters = 2;
  std::string mon_osd_reporter_subtree_level;  // "osd" | "host"
  int osd_max_markdown_count = 5;
  std::chrono::milliseconds osd_max_markdown_period{0};
  std::chrono::milliseconds mon_osd_down_out_interval{0};  // 0: never
  bool osd_mon_role = true;
  bool osd_pool_default_flag_ec_optimizations = true;  // for ec-admin; the daemon ignores it
  int osd_pool_default_size = 3;                       // for ec-admin, as the one above
  int osd_pool_default_min_size = 0;                   // for ec-admin; 0: size - size/2

  // The PG primary (osd/pg/primary.h).
  std::uint32_t osd_pg_op_threads = 0;
  std::chrono::milliseconds osd_subop_timeout{0};
  std::chrono::milliseconds osd_read_lease_ms{0};      // direct reads' lease (0: off)
  std::chrono::milliseconds bdev_slow_op_ms{0};        // a device request slower is slow (0: none)
  std::chrono::milliseconds osd_op_thread_timeout{0};  // device hang: leave the map
  std::chrono::milliseconds osd_op_thread_suicide_timeout{0};  // device hang: exit
  std::string bdev_inject_read_eio;                            // kRanges (drills and tests)
  std::string bdev_inject_write_eio;                           // kRanges
  std::chrono::milliseconds bdev_inject_stall_ms{0};
  std::chrono::milliseconds osd_min_size_wait{0};
  std::uint64_t osd_max_object_size = 0;
  std::uint32_t osd_max_backfills = 0;
  std::uint32_t osd_recovery_max_active = 0;
  std::chrono::milliseconds osd_recovery_sleep{0};
  std::uint64_t osd_recovery_max_chunk = 0;
  std::uint64_t osd_recovery_max_bytes_per_sec = 0;
  std::uint64_t osd_recovery_max_network_bytes_per_sec = 0;
  std::uint32_t osd_recovery_nice = 0;
  std::chrono::milliseconds osd_scrub_min_interval{0};
  std::chrono::milliseconds osd_deep_scrub_interval{0};
  std::chrono::milliseconds osd_scrub_sleep{0};
  std::uint32_t osd_max_scrubs = 0;
  bool osd_scrub_auto_repair = false;
  std::uint32_t osd_recovery_op_threads = 0;
  std::string osd_repair_pipeline;          // "off" | "auto" | "on"
  std::uint64_t osd_network_bandwidth = 0;  // bytes/s of this host's link; 0: unknown
  std::chrono::milliseconds osd_mon_report_interval{0};
  std::uint32_t osd_read_cost_network_weight = 0;  // percent
  std::uint32_t osd_read_cost_device_weight = 0;   // percent

  // Every option's final text (after expansion; sizes and durations as written) and where it
  // came from. For /status, logs and `ec-admin config show`.
  struct Source {
    std::string value;
    // "default", "[global]", "[osd]", "[osd.N]" (the file), "mon global", "mon osd",
    // "mon osd.N" (etcd) or "--set".
    std::string origin;
    // Ceph's name of the source (`config show`'s SOURCE): "default", "file", "mon" or
    // "cmdline" (--set: Ceph's name for options on the command line).
    std::string level;
    // The other sources that set the option too, below the one in force, lowest first (at most
    // one per level, that level's winner; the default is not listed): {level, value}.
    std::vector<std::pair<std::string, std::string>> overrides;
    bool operator==(const Source&) const = default;
  };
  std::map<std::string, Source> effective;
  // The settings from etcd that were ignored, one line each naming who, the option and why
  // ("config osd/osd_max_backfills = 'x': not an integer"): the daemon logs them.
  std::vector<std::string> mon_ignored;
};

// One `--set name=value` from the command line.
struct ConfigOverride {
  std::string name;
  std::string value;
};

// Splits "name=value" (name in any accepted spelling). Errors: EINVAL "bad --set 'x': expected
// name=value" when there is no '=' or the name is empty. The name is checked by LoadOsdConfig.
Result<ConfigOverride> ParseConfigOverride(std::string_view text);

// Reads the INI file at `path` and resolves the configuration of osd.<osd_id>. An empty path
// means "no file": defaults plus overrides.
// Errors (all EINVAL unless noted; each message names the file and the line or section):
//   ENOENT     "cannot read config FILE: No such file or directory" (also EISDIR, EACCES, ...
//              with the system's message)
//   EFBIG      the file is larger than 1 MiB
//   parse      "FILE:LINE: <what>" for a line the INI parser rejects (no '=' / no ']', duplicate
//              key in a section, duplicate section)
//   section    "FILE:LINE: unknown section [mon]" (only [global], [osd], [osd.N], [client] and
//              [client.ID] are valid; ID letters, digits, '_', '-' and '.')
//   option     "FILE:LINE: unknown option 'osd_dta' in [osd.0]"
//   value      "FILE:LINE: bad value 'x' for option 'osd_port' in [osd]: <why>"
//   override   "--set: unknown option 'x'" / "--set: bad value 'x' for option 'y': <why>"
//   expansion  "option 'osd_data': unknown variable '$foo'" or a reference loop
//   osd_id     negative
// `mon`: the settings of the cluster's central config (all of them: those for other daemons are
// left out here), between the file and the overrides; never an error (see mon_ignored).
Result<OsdConfig> LoadOsdConfig(const std::string& path, int osd_id,
                                const std::vector<ConfigOverride>& overrides = {},
                                const std::vector<MonSetting>& mon = {});

// The text of the config file at `path`, for a daemon that resolves it again later
// (ParseOsdConfig with new MonSettings). Errors: LoadOsdConfig's ENOENT/EISDIR/EACCES/EFBIG.
Result<std::string> ReadConfigText(const std::string& path);

// What a client (the client library, ec-admin, ec-rados) takes from the config file: where the
// cluster map is, and the pool defaults ec-admin applies. A plain value.
struct ClientConfig {
  std::string etcd_endpoints;  // "http://127.0.0.1:2379,http://..."
  std::string etcd_prefix;
  std::chrono::milliseconds etcd_op_timeout{0};
  // etcd over TLS: the CA file, the client certificate and its key (empty: none).
  std::string etcd_ca_file;
  std::string etcd_cert_file;
  std::string etcd_key_file;
  // etcd's user for this client and the file holding its password (empty: none).
  std::string etcd_user;
  std::string etcd_password_file;
  // "cephx" or "none", and the client's keyring file ($name expanded to the client's name).
  std::string auth_cluster_required;
  std::string keyring;
  // ec-admin's `osd pool create`: whether new pools get allow_ec_optimizations (no padding).
  bool osd_pool_default_flag_ec_optimizations = true;
  // ... and a replicated pool's size and min_size (0: size - size/2).
  int osd_pool_default_size = 3;
  int osd_pool_default_min_size = 0;
};

// The configuration of a client: the file is read and validated as a whole, as for a daemon (a
// typo anywhere is an error), but only [client.ID] of this client's name, [client] and [global]
// apply, in that precedence ([osd] and [osd.N] sections are parsed and validated, not applied);
// $name is `client_name` ("client.admin", or Ceph's --name / --id
// of ec-rados), $id what follows "client.". Errors: LoadOsdConfig's; EINVAL for a client_name
// not of the form client.ID.
Result<ClientConfig> LoadClientConfig(const std::string& path,
                                      const std::vector<ConfigOverride>& overrides = {},
                                      const std::string& client_name = "client.admin");

// The config file a program uses: `flag` when given, else $EC_CONF when set and non-empty, else
// "" (no file: built-in defaults).
std::string ConfigPath(const std::string& flag);

// The same, from text already in memory; `origin` stands for the file name in messages.
Result<OsdConfig> ParseOsdConfig(std::string_view text, std::string_view origin, int osd_id,
                                 const std::vector<ConfigOverride>& overrides = {},
                                 const std::vector<MonSetting>& mon = {});

// Parses one value for a type, exposed for tests and for programs with their own flags.
// Errors: EINVAL with the reason ("not a size", "out of range [0, 65535]", ...).
Result<std::uint64_t> ParseSize(std::string_view text);
Result<bool> ParseBool(std::string_view text);
// A kRanges value: "" (none), "all", or "OFFSET+LENGTH[,OFFSET+LENGTH...]" with byte counts as
// ParseSize reads them ("1G+4K"). Errors: EINVAL naming the bad part; at most kMaxByteRanges
// ranges, each of a length above 0 that does not wrap past 2^64.
struct ByteRanges {
  bool all = false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // (offset, length)
};
inline constexpr std::size_t kMaxByteRanges = 64;
Result<ByteRanges> ParseByteRanges(std::string_view text);
// The shortest exact spelling of a byte count that ParseSize reads back: 65536 -> "64K",
// 1000 -> "1000", 0 -> "0".
std::string FormatSize(std::uint64_t bytes);
// A kBandwidth value, in bytes per second: a byte rate as ParseSize reads it ("125M": 125 MiB/s,
// "0": unknown) or a bit rate in tc's decimal units, "kbit", "mbit", "gbit", "tbit" (or "kbps",
// "mbps", "gbps", "tbps", likewise bits), 8 bits a byte: "1gbit" = 125000000 bytes/s, "100mbit" =
// 12500000. Errors: EINVAL "not a bandwidth (...)" for any other text, "bandwidth too large" past
// 2^64 - 1 bytes/s (the option's own range is narrower).
Result<std::uint64_t> ParseBandwidth(std::string_view text);
// The spelling ParseBandwidth reads back exactly: a bit rate when the bytes/s are whole kbit
// ("1gbit", "100mbit", "8kbit"), else FormatSize's ("125M", "1000", "0").
std::string FormatBandwidth(std::uint64_t bytes_per_second);
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

// `ec-osd --help-config`: one block per option (name, type, default, when a change applies,
// description).
std::string OptionsHelpText();
// The Markdown table of options embedded in osd/daemon/README.md between the markers
// "<!-- options:begin -->" and "<!-- options:end -->" (a test keeps the two identical).
std::string OptionsMarkdownTable();

}  // namespace ec
