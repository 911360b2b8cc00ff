// Parsers for the typed option values (sizes, booleans, durations) and the option table with its
// generated documentation.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "common/config.h"

namespace ec {
namespace {

// The single source of every option's name, type, default, range and help.
constexpr std::int64_t kMaxPort = 65535;
constexpr std::int64_t kHour = 3600 * 1000;
// Rows are built by these so that each states only what its type needs.
constexpr OptionSpec Text(std::string_view name, std::string_view def, std::string_view help) {
  return {name, OptionType::kString, def, help, 0, 0, {}, false};
}
constexpr OptionSpec Number(std::string_view name, OptionType type, std::string_view def,
                            std::string_view help, std::int64_t min, std::int64_t max,
                            bool add_osd_id = false) {
  return {name, type, def, help, min, max, {}, add_osd_id};
}
constexpr OptionSpec Other(std::string_view name, OptionType type, std::string_view def,
                           std::string_view help, std::string_view choices = {}) {
  return {name, type, def, help, 0, 0, choices, false};
}
// A running ec-osd applies a change of it (osd/daemon/runtime_config.h lists where each goes).
constexpr OptionSpec Live(OptionSpec o) {
  o.update = OptionUpdate::kLive;
  return o;
}
// How a daemon finds the cluster and its store: not storable in etcd.
constexpr OptionSpec FileOnly(OptionSpec o) {
  o.update = OptionUpdate::kFileOnly;
  return o;
}
constexpr OptionSpec Basic(OptionSpec o) {
  o.level = OptionLevel::kBasic;
  return o;
}
constexpr OptionSpec Dev(OptionSpec o) {
  o.level = OptionLevel::kDev;
  return o;
}

const OptionSpec kOptions[] = {
    FileOnly(Text("cluster", "ecstore", "cluster name, the value of $cluster in paths")),
    FileOnly(Text("osd_data", "/var/lib/ecstore/osd-$id",
                  "store directory: holds the device file (by default) and the RocksDB metadata")),
    FileOnly(Text(
        "bluestore_block_path", "$osd_data/block",
        "data device: a regular file (created by --mkfs if inside osd_data) or a block device")),
    FileOnly(Text("osd_db_path", "$osd_data/db", "RocksDB metadata directory")),
    Number("bluestore_block_size", OptionType::kSize, "1G",
           "size of the device file that --mkfs creates when it does not exist", 1 << 20,
           std::int64_t{1} << 46),
    Number(
        "bluestore_prefer_deferred_size", OptionType::kSize, "64K",
        "writes of at most this many bytes of new blocks go down with the commit record (without "
        "a journal: through the RocksDB WAL); 0 disables",
        0, 64 << 20),
    Number("osd_journal_size", OptionType::kInt, "32",
           "--mkfs: size in MiB of the commit journal on the data device (at most 1/8 of it); 0: "
           "none, every commit syncs the RocksDB WAL instead",
           0, 1 << 20),
    Dev(Other("osd_io_backend", OptionType::kEnum, "io_uring",
              "device I/O: io_uring, or sync (pread/pwrite) where io_uring is unavailable",
              "io_uring|sync")),
    Basic(Other("public_addr", OptionType::kAddr, "127.0.0.1",
                "IP address the messenger listens on (0.0.0.0 or :: for every interface)")),
    Number("osd_port", OptionType::kInt, "6800", "messenger TCP port (0: kernel-chosen)", 0,
           kMaxPort, true),
    Number("ms_max_message_size", OptionType::kSize, "64M",
           "largest frame (header + payload) accepted or sent; a longer one closes the connection",
           4096, std::int64_t{1} << 30),
    Number("ms_max_inflight_per_connection", OptionType::kInt, "64",
           "requests one connection may have in flight before the daemon stops reading from it", 1,
           65536),
    Number("ms_async_op_threads", OptionType::kInt, "1",
           "network I/O threads (one keeps round trips shortest)", 1, 64),
    Number("osd_op_num_threads", OptionType::kInt, "8",
           "threads running store operations (they mostly wait for the device)", 1, 256),
    Dev(Number("osd_inline_read_max_size", OptionType::kSize, "64K",
               "a read of at most this many bytes arriving while nothing else is in flight runs on "
               "the network thread, not a worker (only with ms_async_op_threads 1); 0 disables",
               0, 16 << 20)),
    Dev(Number(
        "osd_inline_write_max_size", OptionType::kSize, "64K",
        "a shard write of at most this many bytes starts on the thread that received it, not a "
        "worker: alone, it waits for the device there; beside others, it completes with its "
        "commit group; 0 disables",
        0, 16 << 20)),
    Number("ms_handshake_timeout", OptionType::kDuration, "10s",
           "time a new connection has to complete the version handshake", 1, kHour),
    Number("ms_connection_idle_timeout", OptionType::kDuration, "900s",
           "close a connection with nothing in flight after this long idle (0: never)", 0,
           24 * kHour),
    Basic(Text("log_file", "", "log file, appended to (empty: stderr)")),
    Live(Other("log_level", OptionType::kEnum, "info", "least severe level logged",
               "trace|debug|info|warn|error|critical|off")),
    Other("osd_metrics_enabled", OptionType::kBool, "true",
          "serve /metrics (Prometheus text) and /status (JSON) over HTTP"),
    Other("osd_metrics_addr", OptionType::kAddr, "127.0.0.1", "IP address of the HTTP endpoint"),
    Number("osd_metrics_port", OptionType::kInt, "9283",
           "TCP port of the HTTP endpoint (0: kernel-chosen)", 0, kMaxPort, true),
    Basic(FileOnly(
        Text("etcd_endpoints", "",
             "etcd of the cluster map, comma-separated http://host:port or https://host:port "
             "(empty: run alone, outside any cluster)"))),
    FileOnly(Text("etcd_ca_file", "",
                  "PEM file of the CA that signed etcd's server certificate (https endpoints: "
                  "required)")),
    FileOnly(Text("etcd_cert_file", "",
                  "PEM client certificate presented to etcd over https (etcd's "
                  "--client-cert-auth; with etcd_key_file)")),
    FileOnly(Text("etcd_key_file", "", "PEM private key of etcd_cert_file")),
    FileOnly(Text("etcd_user", "",
                  "etcd user to authenticate as when etcd's auth is enabled (its roles decide "
                  "which keys it may read and write; with etcd_password_file; empty: none)")),
    FileOnly(Text("etcd_password_file", "",
                  "file holding etcd_user's password, on one line; refused unless only its owner "
                  "may read it (mode 0600)")),
    FileOnly(Text("etcd_prefix", "/ecstore/", "key prefix of the cluster map in etcd")),
    Number("etcd_op_timeout", OptionType::kDuration, "5s",
           "time one etcd request may take on one endpoint before the next is tried", 100, kHour),
    Basic(FileOnly(Other(
        "auth_cluster_required", OptionType::kEnum, "none",
        "authentication of every messenger connection: cephx (keys, mutual proofs, a MAC on every "
        "frame; needs keyring) or none (for benchmarks); not storable in etcd, which must not be "
        "able to turn it off",
        "cephx|none"))),
    Basic(FileOnly(Text("keyring", "/etc/ecstore/$cluster.$name.keyring",
                        "keyring file of this daemon or client (Ceph's format): its own key; an "
                        "OSD's and ec-admin's also hold the cluster's mon. key"))),
    Basic(
        Text("host", "",
             "host name of this OSD in the map: the failure domain 'host' (empty: the machine's)")),
    Number("osd_heartbeat_grace", OptionType::kDuration, "20s",
           "an OSD is marked down when it has not renewed its etcd lease for this long (whole "
           "seconds, rounded up), or when its peers have had no answer to their heartbeats for "
           "this long (mon_osd_min_down_reporters)",
           1000, kHour),
    Dev(Number("osd_heartbeat_interval", OptionType::kDuration, "6s",
               "an OSD pings every up OSD this often, and at least four times per "
               "osd_heartbeat_grace (the interval is min(this, grace/4)); one that leaves a ping "
               "unanswered for the grace is reported failed to the monitor",
               100, 60000)),
    Live(Number("mon_osd_min_down_reporters", OptionType::kInt, "2",
                "the elected monitor marks an OSD down once OSDs in this many distinct "
                "mon_osd_reporter_subtree_level subtrees report it failed (Ceph's option)",
                1, 1000)),
    Live(Other("mon_osd_reporter_subtree_level", OptionType::kEnum, "host",
               "where failure reporters are counted: reporters on one host count once (host), or "
               "each counts (osd) (Ceph's option)",
               "osd|host")),
    Number("osd_max_markdown_count", OptionType::kInt, "5",
           "an OSD marked down while alive more than this many times within "
           "osd_max_markdown_period stops booting again and exits (Ceph's option)",
           1, 1000),
    Number("osd_max_markdown_period", OptionType::kDuration, "600s",
           "the window osd_max_markdown_count counts markdowns in", 1000, 24 * kHour),
    Live(Number("mon_osd_down_out_interval", OptionType::kDuration, "600s",
                "a down OSD is marked out after this long (0: never)", 0, 30 * 24 * kHour)),
    Other("osd_mon_role", OptionType::kBool, "true",
          "take part in the election of the monitor that marks OSDs down and out (several may; "
          "one is elected through etcd)"),
    Live(Other(
        "osd_pool_default_flag_ec_optimizations", OptionType::kBool, "true",
        "ec-admin osd pool create (read from [global]): new pools get allow_ec_optimizations, "
        "objects stored without stripe padding (Fast EC), fixed for the pool's life; ecstore's "
        "default is true, Ceph's is false (Ceph's option)")),
    Live(Number("osd_pool_default_size", OptionType::kInt, "3",
                "ec-admin osd pool create ... replicated (read from [global]): the copies a new "
                "replicated pool keeps, fixed for the pool's life (Ceph's option)",
                1, 10)),
    Live(Number("osd_pool_default_min_size", OptionType::kInt, "0",
                "ec-admin osd pool create ... replicated (read from [global]): the copies a new "
                "replicated pool needs up for I/O; 0 gives size - size/2 (2 of 3), as Ceph's "
                "option; at most the size",
                0, 10)),
    Number("osd_pg_op_threads", OptionType::kInt, "16",
           "threads running object operations as a PG primary (they mostly wait for other OSDs)", 1,
           256),
    Number("osd_subop_timeout", OptionType::kDuration, "10s",
           "time a PG primary waits for a shard's OSD before counting it as not answering", 100,
           kHour),
    Number("osd_read_lease_ms", OptionType::kDuration, "2s",
           "direct reads (issue 28): how long a read lease a PG primary grants lasts, letting the "
           "OSD of a data shard answer clients' reads of it directly; a write that an up shard "
           "did not take waits up to this long before it is acknowledged; every OSD of a cluster "
           "must have the same; 0 turns direct reads off",
           0, 60000),
    Number("bdev_slow_op_ms", OptionType::kInt, "1000",
           "milliseconds: a device request or flush slower than this counts as slow (metrics, "
           "health OSD_SLOW_DEVICE; 0: none is)",
           0, kHour),
    Live(Number("osd_op_thread_timeout", OptionType::kDuration, "15s",
                "a device request in progress this long makes the OSD leave the map (marked "
                "down, its PGs go on without it) until its device answers again (Ceph's name for "
                "an op thread stuck this long; 0: never)",
                0, kHour)),
    Live(Number("osd_op_thread_suicide_timeout", OptionType::kDuration, "150s",
                "a device request in progress this long ends the OSD process (exit 5, Ceph's "
                "suicide timeout; its supervisor restarts it; 0: never)",
                0, kHour)),
    Live(Dev(
        Other("bdev_inject_read_eio", OptionType::kRanges, "",
              "drills and tests: device reads touching these bytes fail with EIO ('all', or "
              "OFFSET+LENGTH,...; empty: none); the shards they hit are read from the others"))),
    Live(Dev(Other("bdev_inject_write_eio", OptionType::kRanges, "",
                   "drills and tests: device writes touching these bytes fail with EIO ('all' "
                   "fails flushes too); a failed write takes the OSD out of service"))),
    Live(Dev(Number("bdev_inject_stall_ms", OptionType::kInt, "0",
                    "drills and tests: milliseconds every device request and flush waits first", 0,
                    600000))),
    Live(
        Number("osd_min_size_wait", OptionType::kDuration, "30s",
               "time a write waits for min_size shards of its PG to be up before it fails (EAGAIN)",
               0, kHour)),
    Live(Number("osd_max_object_size", OptionType::kSize, "128M",
                "largest object a client may write (Ceph's option)", 4096, std::int64_t{1} << 40)),
    Number("osd_mon_report_interval", OptionType::kDuration, "5s",
           "how often an OSD reports its PGs' health and its recovery totals (for ec-admin -s and "
           "ec-admin progress; the recovery rates are measured over at least this interval); a "
           "new map and a PG state change are reported at once besides",
           100, kHour),
    Dev(Number("osd_read_cost_network_weight", OptionType::kInt, "100",
               "weight of a network byte when a degraded read picks its plan (percent)", 0,
               1000000)),
    Dev(Number("osd_read_cost_device_weight", OptionType::kInt, "100",
               "weight of a device byte (4 KiB-rounded) when a degraded read picks its plan "
               "(percent)",
               0, 1000000)),
    Live(Number("osd_max_backfills", OptionType::kInt, "1",
                "PGs a primary recovers or backfills at once (Ceph's option)", 1, 64)),
    Live(Number("osd_recovery_max_active", OptionType::kInt, "3",
                "objects a primary has in recovery at once per PG (one pull batch; Ceph's option)",
                1, 1024)),
    Live(Number("osd_recovery_sleep", OptionType::kDuration, "0s",
                "pause between recovery batches (Ceph's option)", 0, kHour)),
    Live(Number("osd_recovery_max_chunk", OptionType::kSize, "8M",
                "object bytes in one recovery batch (at least one object; Ceph's option)", 4096,
                std::int64_t{1} << 34)),
    Live(Number("osd_recovery_max_bytes_per_sec", OptionType::kSize, "0",
                "cap on the shard bytes a primary's recovery rebuilds per second (0: none)", 0,
                std::int64_t{1} << 40)),
    Live(Number(
        "osd_recovery_max_network_bytes_per_sec", OptionType::kSize, "0",
        "cap on the bytes a primary's recovery pulls over the network per second, received by "
        "the rebuilding OSDs from helpers (0: none); under one cap a code that reads less per "
        "rebuilt byte, CLAY, rebuilds sooner",
        0, std::int64_t{1} << 40)),
    Live(Number(
        "osd_scrub_min_interval", OptionType::kDuration, "86400s",
        "an active+clean PG is scrubbed when its last scrub is older than this (Ceph's option)",
        1000, 365 * 24 * kHour)),
    Live(Number(
        "osd_deep_scrub_interval", OptionType::kDuration, "604800s",
        "an active+clean PG is deep-scrubbed (every shard read, checksums verified, parity "
        "re-encoded and compared) when its last deep scrub is older than this (Ceph's option)",
        1000, 365 * 24 * kHour)),
    Live(Number("osd_scrub_sleep", OptionType::kDuration, "0s",
                "pause between the objects of a scrub (Ceph's option)", 0, kHour)),
    Live(Number("osd_max_scrubs", OptionType::kInt, "1",
                "scrubs a primary runs at once (Ceph's option)", 1, 64)),
    Live(
        Other("osd_scrub_auto_repair", OptionType::kBool, "false",
              "scrubs repair the inconsistent shards they find, without a person (Ceph's option)")),
    Number("osd_recovery_nice", OptionType::kInt, "10",
           "nice value of the threads doing recovery work (pulls and their decoding, serving other "
           "OSDs' recovery reads, their connections' io threads): client operations get the CPU "
           "first (0: same as clients; 20: the SCHED_IDLE class, preempted at once by any client "
           "thread that wakes up)",
           0, 20),
    Number("osd_recovery_op_threads", OptionType::kInt, "2",
           "threads serving other OSDs' recovery reads, apart from the client operations' workers",
           1, 64),
    Other("osd_repair_pipeline", OptionType::kEnum, "off",
          "lost shards' bytes through a chain of helpers, each adding its share and passing it "
          "on (the OSD rebuilding receives one chunk, not k), for recovery pulls and for a "
          "primary's degraded reads of one lost shard, and for a backfill whose copy failed: "
          "off, on (whenever the code allows it; a read from one 256 KiB slice of lost bytes "
          "on), or auto (where a cost model of the links, from the OSDs' osd_network_bandwidth, "
          "says the chain takes at most half the direct repair's time; from one 256 KiB slice "
          "on)",
          "off|auto|on"),
    Number("osd_network_bandwidth", OptionType::kBandwidth, "0",
           "bandwidth of this OSD's host link each way, published in the map for the other OSDs' "
           "osd_repair_pipeline=auto cost model: a byte rate (125M) or a bit rate (1gbit, "
           "100mbit); 0: unknown (an OSD of unknown bandwidth counts as equal to the others)",
           0, std::int64_t{1} << 40),
};

bool IsSpace(char c) {
  return c == ' ' || c == '\t';
}

std::string_view TrimLine(std::string_view s) {
  while (!s.empty() && (IsSpace(s.front()) || s.front() == '\r' || s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (IsSpace(s.back()) || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string RangeText(const OptionSpec& o) {
  switch (o.type) {
    case OptionType::kInt:
      return fmt::format("{} .. {}", o.min, o.max);
    case OptionType::kSize:
      return fmt::format("{} .. {}", FormatSize(static_cast<std::uint64_t>(o.min)),
                         FormatSize(static_cast<std::uint64_t>(o.max)));
    case OptionType::kBandwidth:
      return fmt::format("{} .. {}", FormatBandwidth(static_cast<std::uint64_t>(o.min)),
                         FormatBandwidth(static_cast<std::uint64_t>(o.max)));
    case OptionType::kDuration:
      return fmt::format("{} .. {} s", static_cast<double>(o.min) / 1000.0,
                         static_cast<double>(o.max) / 1000.0);
    case OptionType::kEnum:
      return std::string(o.choices);
    case OptionType::kBool:
      return "true|false";
    default:
      return "";
  }
}

std::string DefaultText(const OptionSpec& o) {
  if (o.add_osd_id) return fmt::format("{} + $id", o.default_value);
  if (o.default_value.empty()) return "(empty)";
  return std::string(o.default_value);
}

}  // namespace

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kString:
      return "string";
    case OptionType::kInt:
      return "int";
    case OptionType::kSize:
      return "size";
    case OptionType::kBool:
      return "bool";
    case OptionType::kDuration:
      return "duration";
    case OptionType::kAddr:
      return "addr";
    case OptionType::kEnum:
      return "enum";
    case OptionType::kRanges:
      return "ranges";
    case OptionType::kBandwidth:
      return "bandwidth";
  }
  return "?";
}

std::string_view OptionUpdateName(OptionUpdate update) {
  switch (update) {
    case OptionUpdate::kRestart:
      return "restart";
    case OptionUpdate::kLive:
      return "live";
    case OptionUpdate::kFileOnly:
      return "file only";
  }
  return "?";
}

std::string_view OptionLevelName(OptionLevel level) {
  switch (level) {
    case OptionLevel::kBasic:
      return "basic";
    case OptionLevel::kAdvanced:
      return "advanced";
    case OptionLevel::kDev:
      return "dev";
  }
  return "?";
}

std::span<const OptionSpec> OsdOptionTable() {
  return kOptions;
}

std::string NormaliseOptionName(std::string_view name) {
  name = TrimLine(name);
  std::string out;
  bool pending_sep = false;
  for (char c : name) {
    if (IsSpace(c) || c == '_' || c == '-') {
      pending_sep = true;
      continue;
    }
    if (pending_sep && !out.empty()) out.push_back('_');
    pending_sep = false;
    out.push_back(c);
  }
  return out;
}

const OptionSpec* FindOsdOption(std::string_view name) {
  const std::string n = NormaliseOptionName(name);
  for (const OptionSpec& o : kOptions) {
    if (o.name == n) return &o;
  }
  return nullptr;
}

Result<std::uint64_t> ParseSize(std::string_view text) {
  text = TrimLine(text);
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) return Status::Invalid("size too large");
  if (ec != std::errc() || p == text.data()) {
    return Status::Invalid("not a size (expected e.g. 4096, 64K, 1M, 2G)");
  }
  std::string suffix = Lower(std::string_view(p, static_cast<std::size_t>(end - p)));
  unsigned shift = 0;
  if (!suffix.empty()) {
    switch (suffix[0]) {
      case 'k':
        shift = 10;
        break;
      case 'm':
        shift = 20;
        break;
      case 'g':
        shift = 30;
        break;
      case 't':
        shift = 40;
        break;
      case 'b':
        break;
      default:
        return Status::Invalid("not a size (expected e.g. 4096, 64K, 1M, 2G)");
    }
    std::string_view rest = std::string_view(suffix).substr(shift == 0 ? 0 : 1);
    if (shift != 0 && !rest.empty() && rest[0] == 'i') rest.remove_prefix(1);
    if (rest != "" && rest != "b") {
      return Status::Invalid("not a size (expected e.g. 4096, 64K, 1M, 2G)");
    }
  }
  if (shift != 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) {
    return Status::Invalid("size too large");
  }
  return value << shift;
}

std::string FormatSize(std::uint64_t bytes) {
  static constexpr char kSuffix[] = {'K', 'M', 'G', 'T'};
  int unit = -1;
  while (unit < 3 && bytes != 0 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return unit < 0 ? std::to_string(bytes) : fmt::format("{}{}", bytes, kSuffix[unit]);
}

Result<std::uint64_t> ParseBandwidth(std::string_view text) {
  text = TrimLine(text);
  constexpr std::string_view kWhat = "not a bandwidth (expected e.g. 1gbit, 100mbit, 125M, 0)";
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) return Status::Invalid("bandwidth too large");
  if (ec != std::errc() || p == text.data()) return Status::Invalid(std::string(kWhat));
  const std::string suffix = Lower(std::string_view(p, static_cast<std::size_t>(end - p)));
  // Bit rates, decimal as tc(8) has them; anything else is a byte rate as ParseSize reads it.
  static constexpr std::pair<std::string_view, std::uint64_t> kBits[] = {
      {"kbit", 1000}, {"mbit", 1000'000}, {"gbit", 1000'000'000}, {"tbit", 1000'000'000'000},
      {"kbps", 1000}, {"mbps", 1000'000}, {"gbps", 1000'000'000}, {"tbps", 1000'000'000'000},
      {"bit", 1}};
  for (const auto& [name, bits] : kBits) {
    if (suffix != name) continue;
    if (value > std::numeric_limits<std::uint64_t>::max() / bits) {
      return Status::Invalid("bandwidth too large");
    }
    return value * bits / 8;
  }
  auto bytes = ParseSize(text);
  if (!bytes.ok()) {
    if (bytes.status().message() == "size too large") return Status::Invalid("bandwidth too large");
    return Status::Invalid(std::string(kWhat));
  }
  return *bytes;
}

std::string FormatBandwidth(std::uint64_t bytes_per_second) {
  // Whole kbit: 125 bytes/s.
  if (bytes_per_second == 0 || bytes_per_second % 125 != 0) return FormatSize(bytes_per_second);
  static constexpr std::string_view kUnit[] = {"kbit", "mbit", "gbit", "tbit"};
  std::uint64_t n = bytes_per_second / 125;  // kbit
  std::size_t unit = 0;
  while (unit + 1 < std::size(kUnit) && n % 1000 == 0) {
    n /= 1000;
    ++unit;
  }
  return fmt::format("{}{}", n, kUnit[unit]);
}

Result<bool> ParseBool(std::string_view text) {
  const std::string t = Lower(TrimLine(text));
  if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
  if (t == "false" || t == "no" || t == "off" || t == "0") return false;
  return Status::Invalid("not a boolean (true/false, yes/no, on/off, 1/0)");
}

Result<ByteRanges> ParseByteRanges(std::string_view text) {
  ByteRanges out;
  text = TrimLine(text);
  if (text.empty()) return out;
  if (text == "all") {
    out.all = true;
    return out;
  }
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view part = TrimLine(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const std::size_t plus = part.find('+');
    if (plus == std::string_view::npos) {
      return Status::Invalid(fmt::format("'{}': expected OFFSET+LENGTH, or all", part));
    }
    Result<std::uint64_t> offset = ParseSize(part.substr(0, plus));
    Result<std::uint64_t> length = ParseSize(part.substr(plus + 1));
    if (!offset.ok() || !length.ok() || *length == 0 || *offset + *length < *offset) {
      return Status::Invalid(
          fmt::format("'{}': OFFSET and LENGTH must be byte counts, LENGTH above 0", part));
    }
    if (out.ranges.size() == kMaxByteRanges) {
      return Status::Invalid(fmt::format("more than {} ranges", kMaxByteRanges));
    }
    out.ranges.emplace_back(*offset, *length);
  }
  return out;
}

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  text = TrimLine(text);
  double value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value, std::chars_format::fixed);
  const Status bad =
      Status::Invalid("not a duration (seconds, or with a unit: 250ms, 30s, 5m, 1h)");
  if (ec != std::errc() || p == text.data() || !std::isfinite(value) || value < 0) return bad;
  const std::string unit = Lower(std::string_view(p, static_cast<std::size_t>(end - p)));
  double ms_per_unit = 0;
  if (unit.empty() || unit == "s") {
    ms_per_unit = 1000;
  } else if (unit == "ms") {
    ms_per_unit = 1;
  } else if (unit == "m" || unit == "min") {
    ms_per_unit = 60 * 1000;
  } else if (unit == "h") {
    ms_per_unit = 3600 * 1000;
  } else {
    return bad;
  }
  const double ms = std::round(value * ms_per_unit);
  // Years are far beyond any timeout; the bound keeps the conversion to integer defined.
  if (ms > 1e13) return Status::Invalid("duration too long");
  return std::chrono::milliseconds(static_cast<std::int64_t>(ms));
}

std::string OptionsHelpText() {
  std::string out =
      "ec-osd options (config file sections [global], [osd], [osd.N]; --set name=value;\n"
      "`ec-admin config set global|osd|osd.N NAME VALUE` in the cluster). \"applies\": live, a\n"
      "running daemon takes a change from the cluster's config at once; restart, at its next\n"
      "start; file only, the config file and --set alone may set it.\n";
  for (const OptionSpec& o : kOptions) {
    out += fmt::format("\n  {} ({}", o.name, OptionTypeName(o.type));
    const std::string range = RangeText(o);
    if (!range.empty()) out += ", " + range;
    out += fmt::format(")\n      default: {}; applies: {}\n      {}\n", DefaultText(o),
                       OptionUpdateName(o.update), o.description);
  }
  return out;
}

std::string OptionsMarkdownTable() {
  std::string out =
      "| option | type | range | default | applies | description |\n"
      "|---|---|---|---|---|---|\n";
  for (const OptionSpec& o : kOptions) {
    std::string range;
    for (char c : RangeText(o)) {
      if (c == '|') range += '\\';  // a bare '|' would end the table cell
      range += c;
    }
    out += fmt::format("| `{}` | {} | {} | `{}` | {} | {} |\n", o.name, OptionTypeName(o.type),
                       range, DefaultText(o), OptionUpdateName(o.update), o.description);
  }
  return out;
}

}  // namespace ec
