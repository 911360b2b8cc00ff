// ec-osd: the storage daemon. Formats (--mkfs) or opens its object store, serves shard operations
// over the OSD protocol (msg/PROTOCOL.md) and Prometheus metrics and a status page over HTTP.
//
//   ec-osd -c ecstore.conf -i 0 --mkfs     # create the store of osd.0 (device file + RocksDB)
//   ec-osd -c ecstore.conf -i 0            # run until SIGTERM or SIGINT
//   ec-osd -c ecstore.conf -i 0 --fsck [--deep]   # check the store offline
//   ec-osd -c ecstore.conf -i 0 --locate COLL NAME  # where an object's blocks are (offline, JSON)
//
// With etcd_endpoints set, the daemon joins that cluster before it says ready: it boots into the
// cluster map (up, its address and host), holds its liveness lease, stands as a monitor candidate
// (osd_mon_role) and follows the map (osd/daemon/cluster_membership.h). Its options come from the
// file, the cluster's central config in etcd (read at start, then followed: a live option's
// change applies at once, osd/daemon/runtime_config.h) and --set.
//
// Once serving, one JSON line goes to stdout so that scripts and tests learn the ports chosen
// (port 0 in the config means kernel-chosen) and the map epoch it booted at (0 alone):
//   {"event":"ready","osd":0,"addr":"127.0.0.1","port":6800,"metrics_port":9283,"pid":1234,
//    "epoch":7}
// SIGTERM/SIGINT: mark itself down in the map (in a cluster), stop accepting, finish and answer
// every request in flight, close the store, exit 0. The same, exit 0 too, when the map marked it
// down while it ran more than osd_max_markdown_count times within osd_max_markdown_period (Ceph's
// OSD shuts down then; a supervisor restarting on failure leaves it stopped). Exit 1 on any
// start-up error or usage error, with the reason on stderr (and in the log); --help,
// --help-config and --version exit 0.
#include <fmt/core.h>
#include <signal.h>
#include <spdlog/logger.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cluster/config/config_watcher.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/map/map_holder.h"
#include "cluster/map/map_store.h"
#include "common/cli.h"
#include "common/config.h"
#include "common/metrics.h"
#include "msg/server.h"
#include "osd/daemon/cluster_exporter.h"
#include "osd/daemon/cluster_membership.h"
#include "osd/daemon/component_options.h"
#include "osd/daemon/device_watch.h"
#include "osd/daemon/http_server.h"
#include "osd/daemon/logging.h"
#include "osd/daemon/osd_auth.h"
#include "osd/daemon/osd_stats_publisher.h"
#include "osd/daemon/runtime_config.h"
#include "osd/pg/pg_stats_publisher.h"
#include "osd/pg/primary.h"
#include "osd/pg/pull_service.h"
#include "osd/pg/scrub_scheduler.h"
#include "osd/shard/osd_service.h"
#include "osd/store/malloc_tuning.h"
#include "osd/store/object_store.h"

namespace {

using ec::Result;
using ec::Status;
namespace fs = std::filesystem;

// What the daemon's options were resolved from, kept to resolve them again when the cluster's
// config changes (runtime_config.h).
struct ConfigSources {
  std::string file_text;
  std::string file_name;
  std::vector<ec::ConfigOverride> overrides;
  std::vector<ec::MonSetting> mon;  // etcd's settings at start
  std::vector<std::string> notes;   // for the log once it exists
};

int Fail(const std::shared_ptr<spdlog::logger>& log, const std::string& what) {
  if (log) log->error("{}", what);
  std::fprintf(stderr, "ec-osd: %s\n", what.c_str());
  return 1;
}

ec::osd::store::StoreOptions StoreOptionsFor(const ec::OsdConfig& c) {
  ec::osd::store::StoreOptions o;
  o.device_path = c.bluestore_block_path;
  o.db_path = c.osd_db_path;
  o.device_size = c.bluestore_block_size;
  o.backend = c.osd_io_backend == ec::IoBackendKind::kSync ? ec::osd::store::IoBackend::kSync
                                                           : ec::osd::store::IoBackend::kUring;
  o.prefer_deferred_size = c.bluestore_prefer_deferred_size;
  o.journal_size = c.osd_journal_size << 20;
  return o;
}

// Copies the messenger's counters into the registry; counters advance by the change since the
// previous call so that they stay monotonic.
class ServerMetrics {
 public:
  explicit ServerMetrics(ec::MetricsRegistry& r)
      : open_(r.GetGauge("ecstore_osd_connections_open", "Client connections open")),
        accepted_(r.GetCounter("ecstore_osd_connections_accepted_total", "Connections accepted")),
        refused_(r.GetCounter("ecstore_osd_connections_refused_total",
                              "Connections refused (limit reached or handshake refused)")),
        bytes_in_(
            r.GetCounter("ecstore_osd_network_bytes_total", "Bytes on the wire", {{"dir", "in"}})),
        bytes_out_(
            r.GetCounter("ecstore_osd_network_bytes_total", "Bytes on the wire", {{"dir", "out"}})),
        authenticated_(r.GetCounter("ecstore_osd_connections_authenticated_total",
                                    "Connections that proved their entity's key (auth cephx)")) {
    for (std::size_t e = 0; e < errors_.size(); ++e) {
      errors_[e] = &r.GetCounter(
          "ecstore_osd_protocol_errors_total", "Connections closed for bad input, by reason",
          {{"reason", std::string(ec::msg::FrameErrorName(static_cast<ec::msg::FrameError>(e)))}});
    }
    for (std::size_t e = 0; e < refusals_.size(); ++e) {
      refusals_[e] = &r.GetCounter(
          "ecstore_osd_auth_refusals_total",
          "Connections (handshake) and requests (caps, sub-operations) refused by "
          "authentication, by reason",
          {{"reason",
            std::string(ec::msg::AuthRefusalName(static_cast<ec::msg::AuthRefusal>(e)))}});
    }
  }

  void Update(const ec::msg::ServerCounters& now) {
    open_.Set(static_cast<std::int64_t>(now.connections_open));
    Advance(accepted_, now.connections_accepted, last_.connections_accepted);
    Advance(refused_, now.connections_refused, last_.connections_refused);
    Advance(bytes_in_, now.bytes_in, last_.bytes_in);
    Advance(bytes_out_, now.bytes_out, last_.bytes_out);
    for (std::size_t e = 0; e < errors_.size(); ++e) {
      Advance(*errors_[e], now.protocol_errors[e], last_.protocol_errors[e]);
    }
    Advance(authenticated_, now.authenticated_connections, last_.authenticated_connections);
    for (std::size_t e = 0; e < refusals_.size(); ++e) {
      Advance(*refusals_[e], now.auth_refusals[e], last_.auth_refusals[e]);
    }
    last_ = now;
  }

 private:
  static void Advance(ec::Counter& c, std::uint64_t now, std::uint64_t before) {
    if (now > before) c.Inc(now - before);
  }
  ec::Gauge& open_;
  ec::Counter& accepted_;
  ec::Counter& refused_;
  ec::Counter& bytes_in_;
  ec::Counter& bytes_out_;
  ec::Counter& authenticated_;
  std::array<ec::Counter*, static_cast<std::size_t>(ec::msg::FrameError::kCount)> errors_{};
  std::array<ec::Counter*, static_cast<std::size_t>(ec::msg::AuthRefusal::kCount)> refusals_{};
  ec::msg::ServerCounters last_;
};

// Whether `path` lies inside directory `dir` (lexically, after resolving what exists of both).
bool IsInside(const fs::path& path, const fs::path& dir) {
  std::error_code ec;
  const fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  if (ec) return false;
  const fs::path d = fs::weakly_canonical(fs::absolute(dir), ec);
  if (ec) return false;
  const fs::path rel = p.lexically_relative(d);
  return !rel.empty() && *rel.begin() != ".." && rel != ".";
}

int Mkfs(const ec::OsdConfig& c, bool force, const std::shared_ptr<spdlog::logger>& log) {
  std::error_code ec;
  // --mkfs creates the device file only inside osd data: a missing path elsewhere is most likely
  // a device that is not there (/dev/nvme1n1 on another machine), and a file created in its place
  // would fill /dev (RAM) or some other file system.
  if (!fs::exists(c.bluestore_block_path, ec) && !IsInside(c.bluestore_block_path, c.osd_data)) {
    return Fail(log, fmt::format("bluestore block path {} does not exist; --mkfs creates a device "
                                 "file only inside osd data ({}): check the device, or point "
                                 "bluestore block path into osd data",
                                 c.bluestore_block_path, c.osd_data));
  }
  fs::create_directories(c.osd_data, ec);
  if (ec) return Fail(log, fmt::format("cannot create osd_data {}: {}", c.osd_data, ec.message()));
  ec::osd::store::StoreOptions o = StoreOptionsFor(c);
  o.force = force;
  Status s = ec::osd::store::ObjectStore::Mkfs(o);
  if (!s.ok()) return Fail(log, fmt::format("mkfs of osd.{} failed: {}", c.osd_id, s.message()));
  log->info("created the store of osd.{}: device {} ({} bytes), metadata {}", c.osd_id,
            c.bluestore_block_path, c.bluestore_block_size, c.osd_db_path);
  std::printf("created osd.%d: device %s, metadata %s\n", c.osd_id, c.bluestore_block_path.c_str(),
              c.osd_db_path.c_str());
  return 0;
}

// Checks the store offline (metadata against allocator; with deep, every block's crc32c) and prints
// one line per problem. Exit 0 when clean, 1 otherwise.
int Fsck(const ec::OsdConfig& c, bool deep, const std::shared_ptr<spdlog::logger>& log) {
  auto opened = ec::osd::store::ObjectStore::Open(StoreOptionsFor(c));
  if (!opened.ok()) {
    return Fail(log, fmt::format("cannot open the store of osd.{} ({}): {}", c.osd_id,
                                 c.bluestore_block_path, opened.status().message()));
  }
  auto report = (*opened)->Fsck(deep);
  if (!report.ok()) return Fail(log, fmt::format("fsck failed: {}", report.status().message()));
  for (const std::string& e : report->errors) std::printf("error: %s\n", e.c_str());
  std::printf("fsck%s of osd.%d: %llu objects, %llu blocks referenced, %llu checked, %zu errors\n",
              deep ? " (deep)" : "", c.osd_id, static_cast<unsigned long long>(report->objects),
              static_cast<unsigned long long>(report->blocks_referenced),
              static_cast<unsigned long long>(report->blocks_checked), report->errors.size());
  return report->ok() ? 0 : 1;
}

// Prints where COLL/NAME's data blocks are on the device, as one JSON object (offline, like
// ceph-objectstore-tool: the daemon must be stopped). A shard of object O at position P of PG
// 1.2 is NAME "O#P" in COLL "pg.1.2". Exit 0, or 1 with the reason (ENOENT for a missing object).
int Locate(const ec::OsdConfig& c, const std::string& coll, const std::string& name,
           const std::shared_ptr<spdlog::logger>& log) {
  auto opened = ec::osd::store::ObjectStore::Open(StoreOptionsFor(c));
  if (!opened.ok()) {
    return Fail(log, fmt::format("cannot open the store of osd.{} ({}): {}", c.osd_id,
                                 c.bluestore_block_path, opened.status().message()));
  }
  auto info = (*opened)->Stat(coll, name);
  if (!info.ok()) return Fail(log, fmt::format("{}/{}: {}", coll, name, info.status().message()));
  auto blocks = (*opened)->Locate(coll, name);
  if (!blocks.ok())
    return Fail(log, fmt::format("{}/{}: {}", coll, name, blocks.status().message()));
  nlohmann::json j;
  j["osd"] = c.osd_id;
  j["device"] = c.bluestore_block_path;
  j["collection"] = coll;
  j["object"] = name;
  j["size"] = info->size;
  j["blocks"] = nlohmann::json::array();
  for (const ec::osd::store::BlockLocation& b : *blocks) {
    j["blocks"].push_back({{"offset", b.offset},
                           {"device_offset", b.device_offset},
                           {"length", ec::osd::store::kBlockSize},
                           {"crc32c", b.crc}});
  }
  std::cout << j.dump() << std::endl;
  return 0;
}

int Serve(const ec::OsdConfig& c, const ConfigSources& sources,
          const std::shared_ptr<spdlog::logger>& log) {
  for (const std::string& note : sources.notes) log->warn("{}", note);
  // The device, watched (osd/store/watched_device.h): its errors and slow requests are counted,
  // and a failed write takes this OSD out of service (the loop at the end).
  ec::osd::store::StoreOptions store_options = StoreOptionsFor(c);
  std::shared_ptr<ec::osd::store::WatchedDevice> device;
  {
    ec::osd::store::DeviceOptions d;
    d.backend = store_options.backend;
    auto base = ec::osd::store::OpenFileDevice(store_options.device_path, d);
    if (!base.ok()) {
      return Fail(log,
                  fmt::format("cannot open the store of osd.{} ({}): {}{}", c.osd_id,
                              c.bluestore_block_path, base.status().message(),
                              base.status().code() == ENOENT ? " (run ec-osd --mkfs first)" : ""));
    }
    device =
        std::make_shared<ec::osd::store::WatchedDevice>(std::move(base).value(), c.bdev_slow_op_ms);
    device->SetFaults(ec::osd::daemon::DeviceFaultsFor(c));
    store_options.device = device;
  }
  auto opened = ec::osd::store::ObjectStore::Open(store_options);
  if (!opened.ok()) {
    return Fail(log,
                fmt::format("cannot open the store of osd.{} ({}): {}{}", c.osd_id,
                            c.bluestore_block_path, opened.status().message(),
                            opened.status().code() == ENOENT ? " (run ec-osd --mkfs first)" : ""));
  }
  std::unique_ptr<ec::osd::store::ObjectStore> store = std::move(*opened);

  ec::MetricsRegistry metrics;
  ec::osd::daemon::DeviceWatch device_watch(device.get(), &metrics, c.osd_op_thread_timeout,
                                            c.osd_op_thread_suicide_timeout);
  // This OSD's shards (osd/shard/shard_service.h): the messenger's requests, the PG primary's own
  // position and the pulled shards all reach the store through it.
  ec::osd::shard::ShardServiceOptions ss;
  ss.osd_id = c.osd_id;
  ss.worker_threads = static_cast<int>(c.osd_op_num_threads);
  ss.recovery_threads = static_cast<int>(c.osd_recovery_op_threads);
  ss.recovery_nice = static_cast<int>(c.osd_recovery_nice);
  // Inline reads need the messenger to hand requests over from one thread only.
  ss.inline_read_max_bytes = c.ms_async_op_threads == 1 ? c.osd_inline_read_max_size : 0;
  // Inline writes keep the per-shard order from any thread (op_dispatch.h).
  ss.inline_write_max_bytes = c.osd_inline_write_max_size;
  auto shards = std::make_unique<ec::osd::shard::ShardService>(store.get(), &metrics, log, ss);
  ec::osd::shard::OsdServiceOptions so;
  so.osd_id = c.osd_id;
  so.single_io_thread = c.ms_async_op_threads == 1;
  // In a cluster, the object requests of the PGs this OSD is primary of (osd/pg/primary.h), routed
  // with the newest map the membership below receives.
  ec::cluster::MapHolder maps;
  std::atomic<const ec::osd::daemon::ClusterMembership*> serving_membership{nullptr};
  // Authentication (issue 32): this OSD's key for the connections it makes, and where the
  // messenger finds its peers' keys and caps (auth_cluster_required = cephx).
  auto auth = ec::osd::daemon::SetUpOsdAuth(c, log);
  if (!auth.ok()) return Fail(log, auth.status().message());
  // One set of chain plans for the pulls, the hops and the degraded reads: a code's check at its
  // chunk size (~140 ms of CPU for RS(10,4) with 4 MiB chunks) then runs once in this process
  // (declared before its users, so it outlives them).
  ec::osd::pg::ChainPlans chain_plans;
  std::unique_ptr<ec::osd::pg::Primary> primary;
  std::unique_ptr<ec::osd::pg::PullService> pull;
  std::unique_ptr<ec::osd::pg::ChainService> chain;
  if (!c.etcd_endpoints.empty()) {
    ec::osd::pg::PrimaryOptions po;
    po.osd_id = c.osd_id;
    po.threads = static_cast<int>(c.osd_pg_op_threads);
    po.subop_timeout = c.osd_subop_timeout;
    po.read_lease = c.osd_read_lease_ms;
    po.tunables = ec::osd::daemon::PrimaryTunablesFor(c);
    po.read_weight_net = c.osd_read_cost_network_weight / 100.0;
    po.read_weight_dev = c.osd_read_cost_device_weight / 100.0;
    po.shards = shards.get();
    po.auth = auth->client;
    po.inline_read_max_bytes = ss.inline_read_max_bytes;
    // The membership starts after the primary (it needs the messenger's port): until then, and
    // whenever the lease may have lapsed, the primary does not act on its map.
    po.may_serve = [m = &serving_membership] {
      const ec::osd::daemon::ClusterMembership* member = m->load();
      return member != nullptr && member->MayServe(std::chrono::milliseconds(250));
    };
    // Recovery and backfill by pull (osd/pg/pull_service.h): this OSD rebuilds or copies the
    // shards the PG primaries ask it to hold, with the degraded reads' plan weights.
    ec::osd::pg::PullOptions pl;
    pl.osd_id = c.osd_id;
    pl.helper_timeout = c.osd_subop_timeout;
    // The objects of one pull request in flight at once: a primary's batch is at most that many.
    pl.max_active = std::max(1, static_cast<int>(c.osd_recovery_max_active));
    // The helper bytes fetched ahead for a window of a request's objects, as a primary's batch
    // holds at most that much object data.
    pl.batch_bytes = c.osd_recovery_max_chunk;
    pl.nice = static_cast<int>(c.osd_recovery_nice);
    pl.cost.weight_net = po.read_weight_net;
    pl.cost.weight_dev = po.read_weight_dev;
    pl.auth = auth->client;
    pl.repair_pipeline = c.osd_repair_pipeline == "on"     ? ec::osd::pg::RepairPipeline::kOn
                         : c.osd_repair_pipeline == "auto" ? ec::osd::pg::RepairPipeline::kAuto
                                                           : ec::osd::pg::RepairPipeline::kOff;
    // The same choice for the primary's degraded reads of large ranges (object_io.h "Reads").
    po.repair_pipeline = pl.repair_pipeline;
    pl.plans = &chain_plans;
    po.plans = &chain_plans;
    pull = std::make_unique<ec::osd::pg::PullService>(shards.get(), &maps, &metrics, log, pl);
    so.recovery = pull.get();
    // The hops of other OSDs' repair chains (osd/pg/repair_chain.h), whatever this OSD's own
    // osd_repair_pipeline: the requester chooses.
    ec::osd::pg::ChainServiceOptions co;
    co.osd_id = c.osd_id;
    co.threads = static_cast<int>(c.osd_recovery_op_threads);
    co.nice = static_cast<int>(c.osd_recovery_nice);
    co.auth = auth->client;  // a hop asks its predecessor as osd.N, like pulls and sub-ops
    co.plans = &chain_plans;
    chain = std::make_unique<ec::osd::pg::ChainService>(shards.get(), &maps, &metrics, log, co);
    so.chain = chain.get();
    po.pulls = pull.get();  // the pulls of its own position, in process
    primary = std::make_unique<ec::osd::pg::Primary>(&maps, &metrics, log, po);
    so.objects = primary.get();
  }
  auto service = std::make_shared<ec::osd::shard::OsdService>(shards.get(), &metrics, log, so);
  // On every way out, the primary (whose recovery may be waiting on a pull) and then the pulls end
  // (answered or cancelled) before the shard service goes: they write through it, and the pulls'
  // responders account through it.
  struct PullsEndFirst {
    std::unique_ptr<ec::osd::pg::Primary>& primary;
    std::unique_ptr<ec::osd::pg::PullService>& pull;
    std::unique_ptr<ec::osd::pg::ChainService>& chain;
    ~PullsEndFirst() {
      primary.reset();
      pull.reset();
      chain.reset();
    }
  } pulls_end_first{primary, pull, chain};

  ec::msg::ServerOptions no;
  no.address = c.public_addr;
  no.port = c.osd_port;
  no.io_threads = static_cast<int>(c.ms_async_op_threads);
  no.max_inflight = c.ms_max_inflight_per_connection;
  no.handshake_timeout = c.ms_handshake_timeout;
  no.idle_timeout = c.ms_connection_idle_timeout;
  // ms_max_message_size bounds one frame: the payload gets all of it but the header's share.
  no.limits.max_payload_len = static_cast<std::uint32_t>(
      std::min<std::uint64_t>(c.ms_max_message_size, std::numeric_limits<std::uint32_t>::max()));
  no.name = fmt::format("osd.{}", c.osd_id);
  no.logger = log;
  no.auth = auth->mode;
  no.keys = auth->keys;
  // Caps name pools, requests carry ids: the name in this OSD's map (msg/authorize.h).
  no.pool_name = [&maps](std::uint64_t id) -> std::optional<std::string> {
    const auto map = maps.Get();
    auto it = map->pools.find(static_cast<std::int64_t>(id));
    if (it == map->pools.end()) return std::nullopt;
    return it->second.name;
  };
  auto server = ec::msg::Server::Start(no, service);
  if (!server.ok()) return Fail(log, server.status().message());

  ServerMetrics server_metrics(metrics);
  const auto started = std::chrono::system_clock::now();

  // In a cluster: register (up in the map), stand for monitor, follow the map.
  std::unique_ptr<ec::osd::daemon::ClusterMembership> membership;
  if (!c.etcd_endpoints.empty()) {
    auto m = ec::osd::daemon::ClusterMembership::Start(
        c, (*server)->port(), store->superblock().UuidString(), &metrics, &maps, log, auth->client);
    if (!m.ok()) {
      (*server)->Stop();
      return Fail(log, m.status().message());
    }
    membership = std::move(*m);
    serving_membership = membership.get();
  }
  // The PGs this OSD is primary of and its recovery totals, reported to etcd for `ec-admin -s`
  // and `ec-admin progress`.
  std::unique_ptr<ec::etcd::Client> stats_etcd;
  std::unique_ptr<ec::osd::pg::PgStatsPublisher> stats;
  if (membership && primary) {
    auto eo = ec::osd::daemon::EtcdOptionsFor(c);
    if (eo.ok()) {
      stats_etcd = std::make_unique<ec::etcd::Client>(*eo);
      stats = std::make_unique<ec::osd::pg::PgStatsPublisher>(
          &maps, [p = primary.get()] { return p->Health(); }, c.osd_id, c.osd_mon_report_interval,
          [client = stats_etcd.get(), prefix = c.etcd_prefix](const ec::cluster::PgStatsReport& r) {
            return ec::cluster::PublishPgStats(*client, prefix, r);
          },
          log,
          // This OSD's pull totals, for the cluster's recovery rate and network/rebuilt ratio.
          [p = pull.get()] {
            const ec::osd::pg::PullTotals t = p->Totals();
            ec::cluster::RecoveryTotals r;
            r.network_bytes = static_cast<std::int64_t>(t.network_bytes);
            r.helper_device_bytes = static_cast<std::int64_t>(t.helper_device_bytes);
            r.rebuilt_bytes = static_cast<std::int64_t>(t.rebuilt_bytes);
            r.objects = static_cast<std::int64_t>(t.objects_ok);
            return r;
          },
          // A PG's state changed (peered, recovering, scrubbed): reported at once.
          [p = primary.get()] { return p->HealthChanges(); });
    }
  }
  // The device's space and the client I/O served as primary, for `ec-admin df`, `osd df`, `-s`
  // and `ec-rados df`, and the write latency, for `ec-admin osd perf`.
  std::unique_ptr<ec::osd::daemon::OsdStatsPublisher> osd_stats;
  if (stats_etcd) {
    ec::osd::store::ObjectStore* st = store.get();
    osd_stats = std::make_unique<ec::osd::daemon::OsdStatsPublisher>(
        c.osd_id, c.osd_mon_report_interval,
        [st] {
          ec::cluster::OsdStatfs f;
          const std::uint64_t total = st->device_bytes();
          const std::uint64_t avail = std::min(st->free_bytes(), total);
          // The device's own blocks: the superblock (block 0) and the journal's ring.
          const std::uint64_t meta = std::min(
              (1 + st->superblock().journal_blocks) * ec::osd::store::kBlockSize, total - avail);
          f.total = static_cast<std::int64_t>(total);
          f.available = static_cast<std::int64_t>(avail);
          f.meta = static_cast<std::int64_t>(meta);
          f.data = static_cast<std::int64_t>(total - avail - meta);
          return f;
        },
        [p = primary.get()] {
          ec::osd::daemon::ClientIo out;
          for (const auto& [pool, io] : p->PoolIoTotals()) {
            out.pools[pool] = {
                static_cast<std::int64_t>(io.rd), static_cast<std::int64_t>(io.rd_bytes),
                static_cast<std::int64_t>(io.wr), static_cast<std::int64_t>(io.wr_bytes)};
            out.latency.rd_ns += static_cast<std::int64_t>(io.rd_ns);
            out.latency.wr_ns += static_cast<std::int64_t>(io.wr_ns);
          }
          return out;
        },
        ec::osd::daemon::ShardWriteLatency(metrics),
        [dev = device.get()] {
          const ec::osd::store::DeviceErrorCounts n = dev->counts();
          return ec::cluster::OsdDeviceHealth{static_cast<std::int64_t>(n.read_errors),
                                              static_cast<std::int64_t>(n.write_errors),
                                              static_cast<std::int64_t>(n.slow_ops)};
        },
        [client = stats_etcd.get(), prefix = c.etcd_prefix](const ec::cluster::OsdStatsReport& r) {
          return ec::cluster::PublishOsdStats(*client, prefix, r);
        },
        log);
  }
  // Scrubs of the PGs this OSD is primary of: requested through etcd (`ec-admin pg deep-scrub`)
  // or due by the osd_scrub_* intervals; results published to etcd (osd/pg/scrub_scheduler.h).
  std::unique_ptr<ec::osd::pg::ScrubScheduler> scrubs;
  if (stats_etcd) {
    ec::osd::pg::ScrubScheduler::Hooks hooks;
    const ec::etcd::Client* etcd = stats_etcd.get();
    const std::string prefix = c.etcd_prefix;
    ec::osd::pg::Primary* pr = primary.get();
    hooks.health = [pr] { return pr->Health(); };
    hooks.scrub = [pr](const std::string& pgid, const ec::osd::pg::ScrubRun& run) {
      return pr->Scrub(pgid, run);
    };
    hooks.requests = [etcd, prefix] { return ec::cluster::LoadScrubRequests(*etcd, prefix); };
    hooks.request_done = [etcd, prefix](const std::string& pgid) -> ec::Status {
      auto d = etcd->DeleteRange(
          ec::etcd::DeleteRequest{ec::cluster::ScrubRequestKey(prefix, pgid), ""});
      return d.ok() ? ec::Status::OK() : d.status();
    };
    hooks.results = [etcd, prefix] { return ec::cluster::LoadScrubResults(*etcd, prefix); };
    hooks.publish = [etcd, prefix](const ec::cluster::ScrubResult& r) -> ec::Status {
      auto put = etcd->Put(ec::etcd::PutRequest{ec::cluster::ScrubResultKey(prefix, r.pgid),
                                                ec::cluster::EncodeScrubResult(r), 0});
      return put.ok() ? ec::Status::OK() : put.status();
    };
    hooks.note = [pr](const ec::cluster::ScrubResult& r) { pr->NoteScrubResult(r); };
    // The map's noscrub / nodeep-scrub (`ec-admin osd set`).
    hooks.may_schedule = [m = &maps](ec::cluster::ScrubKind kind) {
      return !m->Get()->HasFlag(kind == ec::cluster::ScrubKind::kDeepScrub ? "nodeep-scrub"
                                                                           : "noscrub");
    };
    scrubs = std::make_unique<ec::osd::pg::ScrubScheduler>(ec::osd::daemon::ScrubScheduleFor(c),
                                                           std::move(hooks), log);
  }
  // The options as the cluster's config changes them (runtime_config.h): live ones reach the
  // components at once; the running config is published for `ec-admin config show`.
  ec::osd::daemon::RuntimeConfig::Hooks rh;
  rh.apply = [targets = ec::osd::daemon::LiveTargets{log.get(), primary.get(), pull.get(),
                                                     scrubs.get(), membership.get(), device.get(),
                                                     &device_watch}](const ec::OsdConfig& now) {
    ec::osd::daemon::ApplyLiveOptions(now, targets);
  };
  if (stats_etcd) {
    rh.publish = [client = stats_etcd.get(),
                  prefix = c.etcd_prefix](const ec::cluster::RunningConfig& r) {
      return ec::cluster::PublishRunningConfig(*client, prefix, r);
    };
  }
  ec::osd::daemon::RuntimeConfig runtime(sources.file_text, sources.file_name, c.osd_id,
                                         sources.overrides, c, sources.mon, std::move(rh), log);
  runtime.Publish();
  std::unique_ptr<ec::cluster::ConfigWatcher> config_watch;
  if (membership) {
    auto eo = ec::osd::daemon::EtcdOptionsFor(c);  // parsed before: the membership started
    if (eo.ok()) {
      config_watch = std::make_unique<ec::cluster::ConfigWatcher>(
          *eo, c.etcd_prefix,
          [&runtime, log](const ec::cluster::ConfigDb& db) {
            for (const std::string& bad : db.bad) log->warn("config: ignored key {}", bad);
            runtime.Update(db.settings);
          },
          [log](const Status& st) { log->debug("config watch: {}", st.message()); });
    }
  }
  std::unique_ptr<ec::osd::daemon::HttpServer> http;
  if (c.osd_metrics_enabled) {
    ec::osd::daemon::HttpServerOptions ho;
    ho.host = c.osd_metrics_addr;
    ho.port = c.osd_metrics_port;
    ec::msg::Server* srv = server->get();
    const ec::osd::daemon::ClusterMembership* member = membership.get();
    auto status = [&c, &runtime, service, shard_service = shards.get(), srv, started, member]() {
      nlohmann::json j = shard_service->StatusJson();
      j["self_messages"] = service->self_messages();
      if (member != nullptr) j["cluster"] = member->StatusJson();
      j["state"] = "up";
      j["addr"] = fmt::format("{}:{}", c.public_addr, srv->port());
      j["pid"] = ::getpid();
      const auto ct = srv->counters();
      j["connections_open"] = ct.connections_open;
      j["protocol_errors"] = ct.protocol_errors_total();
      j["started"] =
          std::chrono::duration_cast<std::chrono::seconds>(started.time_since_epoch()).count();
      j["config"] = runtime.StatusJson();
      return j;
    };
    // The cluster's metrics (ceph-mgr's names) while this OSD is the elected monitor.
    auto h = ec::osd::daemon::HttpServer::Start(
        ho, &metrics, status, log,
        stats_etcd ? ec::osd::daemon::ClusterMetricsPage(c, stats_etcd.get(), membership.get())
                   : nullptr);
    if (!h.ok()) {
      config_watch.reset();
      serving_membership = nullptr;  // the membership goes before the primary on this way out
      if (membership) membership->Stop();
      (*server)->Stop();
      return Fail(log, h.status().message());
    }
    http = std::move(*h);
  }

  nlohmann::json ready = {{"event", "ready"},
                          {"osd", c.osd_id},
                          {"addr", c.public_addr},
                          {"port", (*server)->port()},
                          {"metrics_port", http ? http->port() : 0},
                          {"pid", ::getpid()},
                          {"epoch", membership ? membership->epoch() : 0}};
  std::cout << ready.dump() << std::endl;
  log->info("osd.{} serving on {}:{}, metrics on {}", c.osd_id, c.public_addr, (*server)->port(),
            http ? fmt::format("{}:{}", c.osd_metrics_addr, http->port()) : "(disabled)");

  // The signals were blocked before any thread started, so only this wait receives them. The
  // one-second timeout refreshes the messenger's metrics.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  int sig = 0;
  bool device_failed = false;
  bool held = false;     // out of the map while the device hangs (device_watch.h)
  bool gave_up = false;  // marked down while alive too often (osd_max_markdown_count)
  while (true) {
    server_metrics.Update((*server)->counters());
    if (membership && membership->gave_up()) {
      gave_up = true;
      break;
    }
    const ec::osd::daemon::DeviceVerdict device_state = device_watch.Poll();
    if (device_state.write_failed) {
      device_failed = true;
      break;
    }
    if (device_state.suicide) {
      // Nothing stops cleanly behind a hung request: end the process as a crash would (the
      // store's journal recovers at the next start).
      log->critical(
          "osd.{}: a device request has been in progress for {} ms "
          "(osd_op_thread_suicide_timeout): exiting",
          c.osd_id, device_state.oldest.count());
      log->flush();
      std::fprintf(stderr, "ec-osd: osd.%d: its device hangs (a request in progress for %lld ms)\n",
                   c.osd_id, static_cast<long long>(device_state.oldest.count()));
      std::_Exit(EIO);
    }
    if (device_state.hung != held && membership) {
      held = device_state.hung;
      const std::string why = held ? fmt::format(
                                         "a device request has been in progress for {} ms "
                                         "(osd_op_thread_timeout)",
                                         device_state.oldest.count())
                                   : "the device answers again";
      if (held) {
        log->error("osd.{}: {}: leaving the map until it answers", c.osd_id, why);
      } else {
        log->warn("osd.{}: {}: joining the map again", c.osd_id, why);
      }
      membership->Hold(held, why);
    }
    timespec one_second{1, 0};
    sig = sigtimedwait(&stop_signals, nullptr, &one_second);
    if (sig > 0) break;
  }
  if (device_failed) {
    log->error(
        "osd.{}: its device failed a write ({} write errors): the store takes no more "
        "transactions; taking osd.{} out of service (marked out and down) and exiting",
        c.osd_id, device->counts().write_errors, c.osd_id);
    if (stats_etcd) {
      Status out = ec::osd::daemon::TakeOutOfService(
          ec::cluster::MapStore(stats_etcd.get(), c.etcd_prefix), c.osd_id);
      if (!out.ok()) log->error("osd.{}: cannot mark itself out: {}", c.osd_id, out.message());
    }
  } else if (gave_up) {
    // Ceph's OSD shuts down too: a supervisor that restarts on failure leaves it stopped.
    log->error(
        "osd.{}: marked down more than osd_max_markdown_count ({}) times within "
        "osd_max_markdown_period ({} s) while running: shutting down",
        c.osd_id, c.osd_max_markdown_count, c.osd_max_markdown_period.count() / 1000);
  } else {
    log->info("osd.{}: signal {} received, finishing {} requests in flight", c.osd_id, sig,
              (*server)->counters().inflight);
  }
  config_watch.reset();  // no more changes applied to what stops below
  scrubs.reset();        // running scrubs end (cancelled) before the primary goes
  if (osd_stats) osd_stats->Stop(device_failed);  // the failure's counts reach the cluster
  osd_stats.reset();
  stats.reset();
  if (membership) membership->Stop();  // down in the map first
  (*server)->Stop(std::chrono::seconds(30));
  shards->Drain();
  // The primary's operations have answered (the server waited for them); its recovery may wait on
  // a pull of its own position, so it goes first. Pulls still running finish (or are cancelled)
  // while the shard service their writes go through lives.
  primary.reset();
  pull.reset();
  if (http) http->Stop();
  membership.reset();
  service.reset();
  shards.reset();
  store.reset();
  if (device_failed) {
    std::fprintf(stderr, "ec-osd: osd.%d left service: its device failed a write\n", c.osd_id);
    return EIO;
  }
  log->info("osd.{} stopped", c.osd_id);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  ec::osd::store::TuneMallocForLargeBuffers();  // see malloc_tuning.h: big buffers without mmap
                                                // churn
  CLI::App app{
      "ec-osd: the ecstore storage daemon. Keeps erasure-coded shards in an object store on a "
      "device (or a file standing in for one) and serves them over TCP.\n"
      "Create a store with --mkfs, then run without it. Options come from the config file "
      "(Ceph-style INI: [global], [osd], [osd.N]) and --set; --help-config lists them."};
  std::string conf;
  int id = 0;
  bool mkfs = false;
  bool force = false;
  bool help_config = false;
  bool fsck = false;
  bool deep = false;
  std::vector<std::string> sets;
  app.add_option("-c,--conf", conf,
                 "config file (INI); without it, $EC_CONF, else built-in defaults")
      ->check(CLI::ExistingFile);
  app.add_option("-i,--id", id, "OSD id N: uses the [osd.N] section, $id in paths")
      ->check(CLI::Range(0, 1 << 20));
  app.add_flag("--mkfs", mkfs, "create the store (device file and metadata) and exit");
  app.add_flag("--force", force, "with --mkfs: overwrite a device or metadata that exists");
  app.add_option("--set", sets, "override an option: --set name=value (repeatable)");
  app.add_flag("--fsck", fsck,
               "check the store offline (metadata against allocator), exit 0 if clean");
  app.add_flag("--deep", deep, "with --fsck: also verify every block's crc32c");
  std::vector<std::string> locate;
  app.add_option("--locate", locate,
                 "print where object NAME of collection COLL has its blocks on the device, as "
                 "JSON, and exit (offline: stop the daemon first; a shard is NAME \"OBJ#POS\" in "
                 "COLL \"pg.PGID\")")
      ->expected(2)
      ->type_name("COLL NAME");
  app.add_flag("--help-config", help_config, "list every config option with its default, exit");
  ec::cli::AddVersionFlag(app, "ec-osd");
  if (std::optional<int> status = ec::cli::Parse(app, argc, argv)) return *status;

  if (help_config) {
    std::cout << ec::OptionsHelpText();
    return 0;
  }
  if (static_cast<int>(mkfs) + static_cast<int>(fsck) + static_cast<int>(!locate.empty()) > 1) {
    std::fprintf(stderr, "ec-osd: --mkfs, --fsck and --locate exclude each other\n");
    return 1;
  }
  if (deep && !fsck) {
    std::fprintf(stderr, "ec-osd: --deep only applies with --fsck\n");
    return 1;
  }
  if (force && !mkfs) {
    std::fprintf(stderr, "ec-osd: --force only applies with --mkfs\n");
    return 1;
  }
  std::vector<ec::ConfigOverride> overrides;
  for (const std::string& s : sets) {
    auto o = ec::ParseConfigOverride(s);
    if (!o.ok()) return Fail(nullptr, o.status().message());
    overrides.push_back(*o);
  }
  ConfigSources sources;
  sources.overrides = overrides;
  const std::string path = ec::ConfigPath(conf);
  sources.file_name = path.empty() ? "(no config file)" : path;
  if (!path.empty()) {
    auto text = ec::ReadConfigText(path);
    if (!text.ok()) return Fail(nullptr, text.status().message());
    sources.file_text = std::move(text).value();
  }
  auto config = ec::ParseOsdConfig(sources.file_text, sources.file_name, id, overrides);
  if (!config.ok()) return Fail(nullptr, config.status().message());

  // Block the stop signals in every thread; Serve waits for them with sigtimedwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A client that goes away mid-reply must not kill the daemon.
  signal(SIGPIPE, SIG_IGN);

  // A daemon that serves in a cluster starts with the cluster's config too (above the file,
  // below --set). Without it (etcd unreachable, settings that do not resolve) it starts with the
  // file and --set; the live settings reach it once its watch reads them.
  const bool serving = !mkfs && !fsck && locate.empty();
  if (serving && !config->etcd_endpoints.empty()) {
    auto db = ec::osd::daemon::LoadStartupSettings(*config);
    if (!db.ok()) {
      sources.notes.push_back("config: cannot read the cluster's config, starting with " +
                              sources.file_name + " and --set: " + db.status().message());
    } else {
      for (const std::string& bad : db->bad) sources.notes.push_back("config: ignored key " + bad);
      auto with =
          ec::ParseOsdConfig(sources.file_text, sources.file_name, id, overrides, db->settings);
      if (with.ok()) {
        config = std::move(with);
        sources.mon = db->settings;
      } else {
        sources.notes.push_back("config: the cluster's settings do not resolve, starting with " +
                                sources.file_name + " and --set: " + with.status().message());
      }
    }
  }

  auto log = ec::osd::daemon::MakeOsdLogger(*config);
  if (!log.ok()) return Fail(nullptr, log.status().message());
  if (mkfs) return Mkfs(*config, force, *log);
  if (fsck) return Fsck(*config, deep, *log);
  if (!locate.empty()) return Locate(*config, locate[0], locate[1], *log);
  return Serve(*config, sources, *log);
}
