#include "tools/ec_rados/rados_cli.h"

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cluster/client/rados.h"
#include "common/cli.h"
#include "common/cli_errors.h"
#include "common/config.h"
#include "tools/ec_rados/bench.h"
#include "tools/ec_rados/errors.h"
#include "tools/ec_rados/meta_commands.h"
#include "tools/ec_rados/object_commands.h"
#include "tools/ec_rados/pool_commands.h"
#include "tools/ec_rados/scrub_commands.h"

namespace ec::tools::rados {
namespace {

using cluster::client::IoCtx;
using cluster::client::Rados;

constexpr const char* kSystemConf = "/etc/ecstore/ecstore.conf";
constexpr int kMaxConcurrency = 1024;
constexpr std::uint64_t kMaxBlockSize = 64ULL << 20;

// Everything the command line says, before any of it is checked.
struct Args {
  std::string conf;
  std::string id;    // --id ID: client.ID (rados's)
  std::string name;  // -n/--name client.ID (rados's)
  std::string pool;
  std::string format = "plain";
  std::string object;
  std::string file;
  std::vector<std::string> objects;
  std::string offset;
  std::string seconds;
  std::string mode;
  std::string block_size;
  int concurrency = kDefaultConcurrency;
  bool no_cleanup = false;
  std::string run_name;
  std::string latency_log;
  std::string max_objects;
  std::string pgid;
  std::string direct_reads = "on";
  std::string read_size;
  std::string xattr;      // setxattr, getxattr, rmxattr: NAME
  std::string value;      // setxattr: VALUE (when given)
  std::string timestamp;  // touch: TIMESTAMP (when given)
  std::string size;       // truncate: SIZE
};

// Set by SIGINT/SIGTERM while a bench runs: the run ends early and still prints its summary (a
// caller that does not know how long it needs the load, e.g. until recovery is done, stops it).
std::atomic<bool> g_bench_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void OnBenchStopSignal(int) {
  g_bench_stop.store(true);
}

// Installs the handler for the life of a bench and puts the old ones back.
class StopSignals {
 public:
  StopSignals() {
    g_bench_stop.store(false);
    struct sigaction sa {};
    sa.sa_handler = OnBenchStopSignal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

bool ParseDecimal(const std::string& s, std::uint64_t* out) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// A usage error: "error: <what>" and a pointer to --help; exit EINVAL.
int UsageError(const CliStreams& io, const std::string& what) {
  io.err << "error: " << what << "\n(see ec-rados --help)\n";
  return cli::kUsageExitStatus;
}

// A failed command: "error: <the status's message>"; exit the status's errno.
int Fail(const CliStreams& io, const Status& s) {
  io.err << "error: " << s.message() << "\n";
  return cli::ExitStatus(s);
}

// The client options of the config. Errors (the message is the line to print): EINVAL without a
// config or without etcd_endpoints; the config's own errors (ENOENT for a missing file).
Result<cluster::client::ClientOptions> ReadConfig(const Args& a) {
  std::string conf = ec::ConfigPath(a.conf);
  if (conf.empty()) {
    std::error_code ec;
    if (!std::filesystem::exists(kSystemConf, ec)) {
      return Status::Invalid("no config: pass -c CONF or set EC_CONF");
    }
    conf = kSystemConf;
  }
  // rados's: --name client.ID, or --id ID; client.admin by default.
  const std::string client_name =
      !a.name.empty() ? a.name : (!a.id.empty() ? "client." + a.id : "client.admin");
  auto options = cluster::client::ClientOptionsFromConfig(conf, client_name);
  if (!options.ok()) {
    return Status::Error(options.status().code(),
                         ErrorText("reading config " + conf, options.status()));
  }
  if (options->etcd_endpoints.empty()) {
    return Status::Invalid(conf + ": no etcd_endpoints in [global]");
  }
  return *options;
}

// The cluster, connected; the config's error or the connection's.
Result<std::unique_ptr<Rados>> Connect(const Args& a) {
  auto options = ReadConfig(a);
  if (!options.ok()) return options.status();
  options->direct_reads = a.direct_reads == "on";
  auto rados = Rados::Connect(*options);
  if (!rados.ok()) {
    return Status::Error(rados.status().code(),
                         ErrorText("couldn't connect to cluster", rados.status()));
  }
  return rados;
}

int Bench(IoCtx& ctx, const Args& a, const CliStreams& io) {
  BenchOptions o;
  std::uint64_t seconds = 0;
  if (!ParseDecimal(a.seconds, &seconds) || seconds == 0 || seconds > 86400) {
    return UsageError(io, "bench: SECONDS must be a whole number of seconds in [1, 86400], not '" +
                              a.seconds + "'");
  }
  o.seconds = static_cast<int>(seconds);
  if (a.mode == "write") {
    o.mode = BenchMode::kWrite;
  } else if (a.mode == "seq") {
    o.mode = BenchMode::kSeq;
  } else if (a.mode == "rand") {
    o.mode = BenchMode::kRand;
  } else if (a.mode == "rewrite") {
    o.mode = BenchMode::kRewrite;
  } else {
    return UsageError(io, "bench: unknown mode '" + a.mode + "' (write, seq, rand or rewrite)");
  }
  if (!a.block_size.empty()) {
    auto size = ec::ParseSize(a.block_size);
    if (!size.ok()) {
      return UsageError(io, "-b: '" + a.block_size + "': " + size.status().message());
    }
    if (*size == 0 || *size > kMaxBlockSize) {
      return UsageError(io, "-b: " + std::to_string(*size) + " is not in [1, " +
                                std::to_string(kMaxBlockSize) + "]");
    }
    o.block_size = *size;
  }
  if (!a.read_size.empty()) {
    auto size = ec::ParseSize(a.read_size);
    if (!size.ok() || *size == 0 || *size > kMaxBlockSize || o.mode != BenchMode::kRand) {
      return UsageError(io, "--read-size: '" + a.read_size + "': " +
                                (o.mode != BenchMode::kRand
                                     ? std::string("only for rand")
                                     : "not a size in [1, " + std::to_string(kMaxBlockSize) + "]"));
    }
    o.read_size = *size;
  }
  o.concurrency = a.concurrency;
  o.cleanup = !a.no_cleanup;
  if (!a.max_objects.empty() && !ParseDecimal(a.max_objects, &o.max_objects)) {
    return UsageError(io, "--max-objects: '" + a.max_objects + "' is not a number of objects");
  }
  o.run_name = a.run_name;
  o.progress = a.format == "plain";
  std::ofstream log;
  if (!a.latency_log.empty()) {
    log.open(a.latency_log, std::ios::out | std::ios::trunc);
    if (!log) {
      const int e = errno;
      return Fail(
          io, Status::Error(e, "opening --latency-log " + a.latency_log + ": " + std::strerror(e)));
    }
    o.latency_log = &log;
  }
  StopSignals signals;
  o.stop = &g_bench_stop;
  auto result = RunBench(ctx, o, io.out, io.err);
  log.close();
  if (!result.ok()) return Fail(io, result.status());
  if (a.format == "plain") {
    io.out << FormatSummaryText(*result);
  } else {
    io.out << SummaryJson(*result).dump(a.format == "json-pretty" ? 4 : -1) << "\n";
  }
  io.out.flush();
  if (result->mismatches > 0) {
    // As rados bench's read runs: EIO when a read was not what was written.
    return Fail(io, Status::IOError(std::to_string(result->mismatches) + " of " +
                                    std::to_string(result->ops) +
                                    " reads returned the wrong size or content"));
  }
  return 0;
}

// CLI11's "The following arguments were not expected" (which lists them in reverse), told
// plainly: an unknown option; an unknown command, named, with the closest commands; or words a
// command does not take. Exit EINVAL.
int ExtrasError(const CLI::App& app, const CliStreams& io) {
  const std::vector<std::string> extras = app.remaining(/*recurse=*/true);
  if (extras.empty()) return UsageError(io, "unexpected arguments");
  const std::string& first = extras.front();
  if (first.size() > 1 && first[0] == '-') return UsageError(io, "unknown option '" + first + "'");
  const std::vector<const CLI::App*> commands =
      app.get_subcommands([](const CLI::App*) { return true; });
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  if (parsed.empty()) {
    std::vector<cli::CommandName> names;
    for (const CLI::App* c : commands) {
      cli::CommandName name{{c->get_name()}, c->get_name()};
      for (const CLI::Option* o : c->get_options()) {
        if (o->get_positional()) name.usage += " " + o->get_name();
      }
      names.push_back(std::move(name));
    }
    io.err << "error: "
           << cli::UnknownCommandText("ec-rados", first, cli::ClosestCommands({first}, names));
    return cli::kUsageExitStatus;
  }
  std::string words;
  for (const std::string& w : extras) words += (words.empty() ? "'" : " '") + w + "'";
  return UsageError(io, "'" + parsed.front()->get_name() + "' does not take " + words);
}

// list-inconsistent-obj: needs no pool and no map, only the etcd the config names (an etcd client
// made as Rados::Connect makes its own).
int ListInconsistent(const Args& a, const CliStreams& io) {
  auto options = ReadConfig(a);
  if (!options.ok()) return Fail(io, options.status());
  auto eo = EtcdOptionsOf(*options);
  if (!eo.ok()) return Fail(io, eo.status());
  const etcd::Client client(*eo);
  auto text = ListInconsistentObj(client, options->etcd_prefix, a.pgid, a.format == "json-pretty");
  if (!text.ok()) {
    const Status& s = text.status();
    if (s.code() == ENOENT) {
      io.err << s.message() << "\n";  // rados's own words
      return cli::ExitStatus(s);
    }
    if (s.code() == EINVAL || s.code() == EBADMSG) return Fail(io, s);
    return Fail(io,
                Status::Error(s.code(), ErrorText("reading the scrub record of pg " + a.pgid +
                                                      " from etcd at " + options->etcd_endpoints,
                                                  s)));
  }
  io.out << *text;
  io.out.flush();
  return 0;
}

// lspools and df: the map and the reports in etcd, no OSD (as list-inconsistent-obj).
int PoolCommand(const Args& a, const CliStreams& io, bool df) {
  auto options = ReadConfig(a);
  if (!options.ok()) return Fail(io, options.status());
  auto eo = EtcdOptionsOf(*options);
  if (!eo.ok()) return Fail(io, eo.status());
  const etcd::Client client(*eo);
  auto text = df ? RadosDf(client, options->etcd_prefix, a.pool, a.format)
                 : LsPools(client, options->etcd_prefix);
  if (!text.ok()) {
    const Status& s = text.status();
    if (s.code() == ENOENT) {
      // rados's words, without "error: ".
      io.err << "error opening pool " << a.pool << ": " << ErrnoText(s.code()) << "\n";
      return cli::ExitStatus(s);
    }
    return Fail(
        io, Status::Error(s.code(),
                          ErrorText("reading the cluster's " + std::string(df ? "usage" : "pools") +
                                        " from etcd at " + options->etcd_endpoints,
                                    s)));
  }
  io.out << *text;
  io.out.flush();
  return 0;
}

}  // namespace

int RunRadosCli(int argc, char** argv, const CliStreams& io) {
  Args a;
  CLI::App app{
      "ec-rados: objects in the cluster's pools, with rados's syntax. The config is -c CONF, "
      "else $EC_CONF, else /etc/ecstore/ecstore.conf.",
      "ec-rados"};
  app.footer(
      "Exit status: 0 on success, else the error's errno (ENOENT 2, EIO 5, EINVAL 22 for a bad "
      "command or argument, ...)");
  app.fallthrough();
  app.require_subcommand(0, 1);
  ec::cli::AddVersionFlag(app, "ec-rados");
  app.add_option("-c,--conf", a.conf,
                 "the config file ([global] etcd_endpoints; [client] and [client.ID] for this "
                 "client)");
  app.add_option("-p,--pool", a.pool, "the pool");
  app.add_option("--id", a.id,
                 "the client's id: entity client.ID (its key with auth cephx, its config "
                 "section, so its etcd_user)");
  app.add_option("-n,--name", a.name, "the client's entity name, client.ID (default client.admin)");
  app.add_option(
         "-f,--format", a.format,
         "bench summary, df and stat: plain (default), json, json-pretty; list-inconsistent-obj: "
         "json (default, one line) or json-pretty")
      ->check(CLI::IsMember({"plain", "json", "json-pretty"}));
  app.add_option("--direct-reads", a.direct_reads,
                 "on (default): a read inside one data chunk of a clean PG goes to that shard's "
                 "OSD, falling back to the primary when it cannot vouch for it; off: every read "
                 "goes through the primary")
      ->check(CLI::IsMember({"on", "off"}));

  auto* put = app.add_subcommand("put", "write FILE (\"-\": stdin) as OBJ (write_full)");
  put->add_option("OBJ", a.object)->required();
  put->add_option("FILE", a.file)->required();
  put->add_option("--offset", a.offset, "write at this byte offset instead (no truncation)");
  auto* append = app.add_subcommand("append", "append FILE (\"-\": stdin) to OBJ");
  append->add_option("OBJ", a.object)->required();
  append->add_option("FILE", a.file)->required();
  auto* get = app.add_subcommand("get", "read OBJ into FILE (\"-\": stdout)");
  get->add_option("OBJ", a.object)->required();
  get->add_option("FILE", a.file)->required();
  auto* stat = app.add_subcommand(
      "stat",
      "print \"POOL/OBJ mtime 2026-11-28T10:00:00.000000+0000, size N\" (rados's); with -f json "
      "also the version and the form: erasure, or replicas (an erasure pool's small object)");
  stat->add_option("OBJ", a.object)->required();
  auto* setxattr = app.add_subcommand(
      "setxattr", "set xattr NAME of OBJ to VALUE (no VALUE: standard input); creates OBJ");
  setxattr->add_option("OBJ", a.object)->required();
  setxattr->add_option("NAME", a.xattr)->required();
  setxattr->add_option("VALUE", a.value);
  auto* getxattr = app.add_subcommand("getxattr", "print the value of xattr NAME of OBJ");
  getxattr->add_option("OBJ", a.object)->required();
  getxattr->add_option("NAME", a.xattr)->required();
  auto* listxattr = app.add_subcommand("listxattr", "list the xattrs of OBJ, one name per line");
  listxattr->add_option("OBJ", a.object)->required();
  auto* rmxattr = app.add_subcommand("rmxattr", "remove xattr NAME of OBJ");
  rmxattr->add_option("OBJ", a.object)->required();
  rmxattr->add_option("NAME", a.xattr)->required();
  auto* touch = app.add_subcommand(
      "touch", "create OBJ empty if absent; its mtime becomes TIMESTAMP (seconds) or now");
  touch->add_option("OBJ", a.object)->required();
  touch->add_option("TIMESTAMP", a.timestamp);
  auto* truncate = app.add_subcommand(
      "truncate", "cut OBJ to SIZE bytes, or grow it with zeros (an absent OBJ stays absent)");
  truncate->add_option("OBJ", a.object)->required();
  truncate->add_option("SIZE", a.size)->required();
  auto* rm = app.add_subcommand("rm", "remove objects");
  rm->add_option("OBJ", a.objects)->required();
  auto* ls = app.add_subcommand("ls", "list the pool's objects, one per line");
  auto* bench = app.add_subcommand(
      "bench",
      "rados bench: SECONDS write|seq|rand|rewrite (seq and rand read what a write run with "
      "--no-cleanup left; rewrite, ecstore's own, overwrites -b bytes at random offsets inside "
      "those objects)");
  bench->add_option("SECONDS", a.seconds, "how long to run")->required();
  bench->add_option("MODE", a.mode, "write, seq, rand or rewrite")->required();
  bench->add_option("-b", a.block_size,
                    "write: object size (default 4M; 4096, 64K, 4M ...); rewrite: bytes per "
                    "overwrite (must divide the objects' size)");
  bench->add_option("-t", a.concurrency, "operations in flight (default 16)")
      ->check(CLI::Range(1, kMaxConcurrency));
  bench->add_flag("--no-cleanup", a.no_cleanup, "write: keep the objects (for seq and rand)");
  bench->add_option("--read-size", a.read_size,
                    "rand (ecstore's own): read this many bytes at a random aligned offset of each "
                    "object instead of the whole object (4096, 16K ...; must divide its size)");
  bench->add_option("--run-name", a.run_name,
                    "the metadata object (default benchmark_last_metadata); a write run names "
                    "its objects after it");
  bench->add_option("--max-objects", a.max_objects,
                    "write: stop after this many objects (default 0: no limit)");
  bench->add_option("--latency-log", a.latency_log,
                    "write one line per completed op to FILE: start (Unix s), latency (s), "
                    "degraded (1/0)");
  auto* cleanup =
      app.add_subcommand("cleanup", "remove the objects and metadata a bench write run left");
  cleanup->add_option("--run-name", a.run_name, "the metadata object");
  cleanup->add_option("-t", a.concurrency, "removes in flight (default 16)")
      ->check(CLI::Range(1, kMaxConcurrency));
  auto* inconsistent = app.add_subcommand(
      "list-inconsistent-obj",
      "what the last scrub of PG PGID found inconsistent, as rados's JSON (no -p; scrubs: "
      "ec-admin pg scrub|deep-scrub|repair PGID)");
  inconsistent->add_option("PGID", a.pgid, "the PG, POOL.PGHEX (as 1.1f)")->required();
  auto* lspools = app.add_subcommand("lspools", "list the cluster's pools, one per line (no -p)");
  auto* df = app.add_subcommand(
      "df",
      "each pool's usage and client I/O, then the cluster's totals (-p POOL: that pool only; "
      "--format json for rados's JSON)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError&) {
    return ExtrasError(app, io);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" that exit 0; the rest are usage errors.
    return app.exit(e, io.out, io.err) == 0 ? 0 : cli::kUsageExitStatus;
  } catch (const std::exception& e) {
    return UsageError(io, e.what());
  }

  // Checked here rather than by CLI11 so that an unknown option is named before this.
  if (app.get_subcommands().empty()) {
    io.err << app.help();
    return cli::kUsageExitStatus;
  }
  std::optional<std::uint64_t> offset;
  if (!a.offset.empty()) {
    std::uint64_t v = 0;
    if (!ParseDecimal(a.offset, &v)) {
      return UsageError(io, "--offset: '" + a.offset + "' is not a byte offset");
    }
    offset = v;
  }
  // rados's words for touch's and truncate's numbers.
  std::optional<std::uint64_t> timestamp;
  std::uint64_t size = 0;
  if (touch->parsed() && touch->count("TIMESTAMP") > 0) {
    std::uint64_t v = 0;
    if (!ParseDecimal(a.timestamp, &v) || v > UINT64_MAX / 1000000) {
      return UsageError(io, "Invalid value for timestamp: '" + a.timestamp + "'");
    }
    timestamp = v;
  }
  if (truncate->parsed() && !ParseDecimal(a.size, &size)) {
    return UsageError(io, a.size.starts_with("-") && ParseDecimal(a.size.substr(1), &size)
                              ? std::string("error, cannot truncate to negative value")
                              : "Invalid value for size: '" + a.size + "'");
  }
  if (inconsistent->parsed()) return ListInconsistent(a, io);
  if (lspools->parsed()) return PoolCommand(a, io, false);
  if (df->parsed()) return PoolCommand(a, io, true);
  if (a.pool.empty()) return UsageError(io, "pool name was not specified (-p POOL)");

  auto rados = Connect(a);
  if (!rados.ok()) return Fail(io, rados.status());
  auto ctx = (*rados)->OpenPool(a.pool);
  if (!ctx.ok()) {
    // rados's words, without "error: ".
    io.err << "error opening pool " << a.pool << ": " << ErrnoText(ctx.status().code()) << "\n";
    return cli::ExitStatus(ctx.status());
  }

  Status s;
  if (put->parsed()) {
    s = PutObject(*ctx, a.object, a.file, offset, io.in);
  } else if (append->parsed()) {
    s = AppendObject(*ctx, a.object, a.file, io.in);
  } else if (get->parsed()) {
    s = GetObject(*ctx, a.object, a.file, io.out);
  } else if (stat->parsed()) {
    s = StatObject(*ctx, a.object, a.format, io.out);
  } else if (setxattr->parsed()) {
    s = SetXattrCommand(
        *ctx, a.object, a.xattr,
        setxattr->count("VALUE") > 0 ? std::optional<std::string>(a.value) : std::nullopt, io.in);
  } else if (getxattr->parsed()) {
    s = GetXattrCommand(*ctx, a.object, a.xattr, io.out);
  } else if (listxattr->parsed()) {
    s = ListXattrCommand(*ctx, a.object, io.out);
  } else if (rmxattr->parsed()) {
    s = RmXattrCommand(*ctx, a.object, a.xattr);
  } else if (touch->parsed()) {
    s = TouchCommand(*ctx, a.object, timestamp);
  } else if (truncate->parsed()) {
    s = TruncateCommand(*ctx, a.object, size);
  } else if (rm->parsed()) {
    s = RemoveObjects(*ctx, a.objects);
  } else if (ls->parsed()) {
    s = ListObjects(*ctx, io.out);
  } else if (bench->parsed()) {
    return Bench(*ctx, a, io);
  } else if (cleanup->parsed()) {
    auto removed = CleanupBench(*ctx, a.run_name, a.concurrency);
    if (!removed.ok()) return Fail(io, removed.status());
    io.out << "Removed " << *removed << " objects\n";
  }
  if (!s.ok()) return Fail(io, s);
  return 0;
}

}  // namespace ec::tools::rados
