// LocalCluster (tests only): the one local-cluster fixture of the whole-system tests (pool I/O,
// recovery, scrub, liveness, the ec-admin and ec-rados programs, the thrasher). A real etcd
// (cluster/etcd/etcd_test_server.h), N real ec-osd processes on hosts h0..h(N-1)
// (tests/osd/osd_process.h), erasure-code pools, and the client library (cluster/client/rados.h)
// connected to it, all on loopback; nothing is mocked.
//
//   LocalCluster c(options);            etcd (options.etcd_members), options.osds OSDs (mkfs +
//                                       start), options.pools
//   c.Pool("clay").WriteFull(...)       the client library
//   c.Kill(3); c.WaitUp(3, false, ..)   kill -9 an OSD; the monitor marks it down after the grace
//   c.Restart(3)                        start it again on its data; waits until the map says up
//   c.store->Apply({OsdOut(3)})         map changes through cluster/map/map_store.h
//   c.WaitClean(seconds(60))            every PG active+clean as its primary reports it (pgstats)
//   c.MetricSum("ecstore_..._total{pool=\"clay\"}")   a counter summed over the running OSDs
//   c.ToolConf()                        a config file for ec-admin / ec-rados naming this etcd
//
// Cases of one gtest suite share a cluster through ClusterTest (below); a test that needs its own
// makes a LocalCluster on its stack.
//
// Lifetime: everything the fixture starts stops when it is destroyed (SIGKILL and waitpid: the
// client first, the OSDs, etcd last), also when a test fails or returns early on an ASSERT; the
// OSDs' folders and etcd's data live in TempDirs removed with it. An OSD killed or stopped
// (SIGSTOP) by the test is still reaped then.
//
// Errors: a failure to start anything is a gtest failure (ADD_FAILURE / EXPECT_*) and leaves the
// member null or the OSD not running; a test checks Whole() before it relies on the cluster.
// StartOsd returns a Status for callers that report on their own (the thrasher).
//
// Thread safety: none beyond what the members give (the client library is thread-safe; the
// read-only queries Map, WaitUp, PgStates, Metric may run beside a workload's threads); one thread
// owns the fixture. A case that kills OSDs or etcd starts them again before it ends, so that cases
// sharing one cluster find it whole.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "cluster/admin/status_report.h"
#include "cluster/client/rados.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "common/status.h"
#include "ec/buffer.h"
#include "ec/profile.h"
#include "msg/auth/keyring.h"
#include "msg/client.h"
#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace ectest {

// The profiles most cluster tests use, one shard per host (crush-failure-domain=host):
// CLAY(k, m, d) of the clay plugin, and Reed-Solomon RS(k, m) of the isa plugin (reed_sol_van).
ec::Profile ClayProfile(int k = 4, int m = 2, int d = 5);
ec::Profile RsProfile(int k = 4, int m = 2);

// One pool of the cluster. An erasure pool: its profile has the pool's name; min_size is k
// (writes go on with m OSDs down). A replicated pool (replicated_size > 0): no profile, that many
// copies, min_size `min_size` (0: Ceph's size - size/2), data chunk 0, as `ec-admin osd pool
// create NAME PG_NUM replicated` records it.
struct PoolSpec {
  std::string name;
  ec::Profile profile;  // "plugin", "k", "m", ... ; crush-failure-domain=host to spread over hosts
  std::uint32_t stripe_unit = 4096;
  std::uint32_t pg_num = 8;
  // allow_ec_optimizations: shards without padding (Fast EC), what ec-admin gives new pools by
  // default; false for a pool in the padded layout of pools made before it.
  bool ec_optimizations = true;
  // Record the pool's data chunks in the map, as ec-admin does (clients then read directly from
  // a data shard's OSD where they can); false for a pool recorded before they were.
  bool record_data_chunks = true;
  int replicated_size = 0;  // > 0: a replicated pool of that many copies (profile unused)
  int min_size = 0;         // a replicated pool's; 0: size - size/2
  // An erasure pool's ec_min_object_size (issue 30 item 2): objects below it kept as m+1 copies.
  std::uint64_t ec_min_object_size = 0;
};

// A replicated pool "NAME" of `size` copies (min_size size - size/2), stripe unit 4 KiB.
PoolSpec ReplicatedPool(const std::string& name, int size = 3, std::uint32_t pg_num = 8);

// A CLAY(4,2,5) pool "clay" and an RS(4,2) pool "rs", stripe unit 4 KiB, `pg_num` PGs each: the
// pair the recovery, scrub and thrash tests run on, so that CLAY's sub-chunk repair and a plain
// decode meet the same faults.
std::vector<PoolSpec> ClayAndRsPools(std::uint32_t pg_num = 8);

struct LocalClusterOptions {
  // OSDs started by the constructor (ids 0..osds-1); 0 for etcd alone (AddOsd adds them later).
  int osds = 6;
  // etcd's members (EtcdServer::Start): 3 for a cluster map that survives the loss of one member
  // (etcd.KillMember / StartMember, etcd.Leader()). Every program is given every member.
  int etcd_members = 1;
  std::vector<PoolSpec> pools;
  // The monitor marks an OSD down this long after its last heartbeat (osd_heartbeat_grace).
  int grace_seconds = 2;
  // mon_osd_down_out_interval: 0 never marks a down OSD out, so the tests decide when one is out;
  // -1 leaves it off the command line (ec-osd's default, or the cluster's config: a --set would
  // hide a value set with `ec-admin config set`).
  int down_out_seconds = 0;
  // 3 s sub-op timeouts and min_size wait and 500 ms PG stats reports, so that failures show
  // within seconds and WaitClean sees them soon. False: ec-osd's own values, for the tests of the
  // programs, which run against a cluster configured as a user would have it.
  bool fast_failure = true;
  // bluestore_block_size given to --mkfs; empty for the OSD config file's 64M.
  std::string block_size = "256M";
  // More `--set name=value` options for every OSD (e.g. recovery throttles), after the fixture's.
  std::vector<std::string> osd_options;
  // Authentication (issue 32): every OSD, the test's client and ToolConf()'s programs with
  // auth_cluster_required = cephx. The cluster's mon. key and client.admin's are made at start and
  // client.admin and each osd.N put in the auth database in etcd; each OSD's keyring (its key and
  // the mon. key) is in its folder; ToolConf() names DIR/$name.keyring (KeyringPath), and
  // client.admin's there holds the mon. key too, for `ec-admin auth`.
  bool auth = false;
};

class LocalCluster {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LocalCluster(LocalClusterOptions options);
  ~LocalCluster() = default;  // members stop their processes (client first, etcd last)
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  // Success when every etcd member runs, the client is connected and every OSD process runs (not
  // that the map says up: WaitUp); otherwise what is missing, for ASSERT_TRUE.
  ::testing::AssertionResult Whole() const;

  // etcd's client URLs, "http://127.0.0.1:<port>[,http://127.0.0.1:<port>...]" (etcd_endpoints).
  std::string Endpoints() const;
  // The path of a config file (written on the first call, in the cluster's folder) that points
  // ec-admin and ec-rados at this etcd, with a 5 s etcd_op_timeout.
  std::string ToolConf();
  // The ec-osd command-line options of OSD `id`: etcd, the grace, the down-out interval, with
  // fast_failure the short timeouts, host h<id>, then options.osd_options. Any id may be asked
  // for (a test starting a second store under a taken id, say).
  std::vector<std::string> Args(int id) const;
  // With options.auth: where ToolConf()'s programs find `entity`'s keyring (DIR/ENTITY.keyring).
  std::string KeyringPath(const std::string& entity) const;
  // ec-osd --mkfs of OSD `id`'s store (options.block_size): over the old one if it exists.
  ProcessResult Mkfs(int id);
  // mkfs and start one more OSD (id = osds.size(), host h<id>) and wait until the map says it is
  // up; its id, or -1 (with a gtest failure) if it did not come up.
  int AddOsd();

  // The map in etcd now (an empty map if it cannot be read).
  ec::cluster::ClusterMap Map() const;
  // The map's epoch and every OSD's state, for failure messages: "epoch 12: osd.0 up in, osd.1
  // down out, ...".
  std::string DescribeOsds() const;
  // Polls the map every 20 ms until `done` holds for it (not called when etcd cannot be read): the
  // time that took, or -1 ms after `limit`.
  std::chrono::milliseconds WaitForMap(
      const std::function<bool(const ec::cluster::ClusterMap&)>& done,
      std::chrono::milliseconds limit) const;
  // Where object `object` of pool `pool_id` lives in the map now (its PG, acting set, primary).
  // Errors: those of the locator (the pool unknown, the map unreadable: an empty map).
  ec::Result<ec::cluster::PgLocation> Locate(std::int64_t pool_id, const std::string& object) const;
  // Waits until the map says OSD `id` is up (or down); false after `limit`.
  bool WaitUp(int id, bool up, std::chrono::seconds limit) const;
  // kill -9; true when it died of it (exit status 128 + 9), else false and a gtest failure.
  bool Kill(int id);
  // Starts OSD `id` (not running) again on its data and waits until the map says it is up.
  // Errors: EIO when it did not start (the end of its log in the message), ETIMEDOUT when the map
  // did not say up within `limit` (the map's OSDs in the message).
  ec::Status StartOsd(int id, std::chrono::seconds limit);
  // StartOsd with 10 s, a gtest failure on error.
  void Restart(int id);
  // The pool, opened through the client (a gtest failure if it cannot be).
  ec::cluster::client::IoCtx Pool(const std::string& name);

  // Every PG of every pool by the state its primary reports at the current map epoch; a PG whose
  // primary has not reported at that epoch counts as "(no report)". Empty if etcd cannot be read.
  std::map<std::string, std::uint64_t> PgStates() const;
  // Waits until PgStates() is only "active+clean"; false after `limit` (the states last seen are
  // printed then).
  bool WaitClean(std::chrono::seconds limit) const;
  // The cluster's status as `ec-admin -s` builds it, from the map and the primaries' last PG
  // reports (an empty report, with a gtest failure, when etcd cannot be read).
  ec::cluster::admin::StatusReport ClusterStatus() const;

  // The value of Prometheus sample `sample` (name with its exact labels, as in MetricValue) on OSD
  // `id`'s /metrics page; 0 when the OSD is not running or has not counted it yet.
  std::uint64_t Metric(int id, const std::string& sample) const;
  // The same summed over every running OSD.
  std::uint64_t MetricSum(const std::string& sample) const;

  LocalClusterOptions options;
  ec::etcd::testing::EtcdServer etcd;
  std::unique_ptr<ec::etcd::Client> client;  // the test's own etcd client
  std::unique_ptr<ec::cluster::MapStore> store;
  TempDir dir;
  std::vector<std::unique_ptr<OsdProcess>> osds;  // by id
  std::unique_ptr<ec::cluster::client::Rados> rados;
  // With options.auth: the cluster's mon. key and client.admin's.
  ec::msg::auth::CryptoKey mon_key;
  ec::msg::auth::CryptoKey admin_key;

 private:
  // With options.auth: the keys above, client.admin's keyring and record.
  void SetUpAuth();
  // With options.auth: osd.`id`'s key, record and keyring (in its folder).
  void MakeOsdKey(int id);
  // Makes OSD `id`'s folder and process object (appended to osds) and its store.
  bool MakeOsd(int id);
  void AddPool(const PoolSpec& spec);
  std::string tool_conf_;
};

// The cases of one gtest suite on one shared LocalCluster: the suite's static SetUpTestSuite calls
// StartCluster (then may fill the cluster); the cluster stops after the suite's last case, also
// when a case failed. Each case starts with the cluster Whole(). ctest runs each case in its own
// process, so there each case has a cluster of its own.
class ClusterTest : public ::testing::Test {
 protected:
  static void StartCluster(LocalClusterOptions options);
  static void TearDownTestSuite();
  void SetUp() override;

  inline static std::unique_ptr<LocalCluster> cluster_;
};

// The last `lines` lines of `text` (a log), for failure messages.
std::string LastLines(const std::string& text, int lines);

// A tool of a pool (ec-rados at `program`) run with "-c CONF -p POOL" before `args`.
ProcessResult RunPoolTool(const std::string& program, const std::string& conf,
                          const std::string& pool, std::vector<std::string> args);
// An admin tool (ec-admin at `program`) run with "-c CONF" and the words of `line`, split at
// single spaces ("osd set noout").
ProcessResult RunAdminLine(const std::string& program, const std::string& conf,
                           const std::string& line);
// A shell line (/bin/sh -c) in which $R stands for "PROGRAM -c CONF -p POOL".
ProcessResult PoolToolShell(const std::string& program, const std::string& conf,
                            const std::string& pool, const std::string& line);

// The bytes of a buffer, for comparisons with a model.
std::vector<std::byte> ToVector(const ec::Buffer& b);

// The first `size` bytes of shard `shard` of `object` in `collection` on the OSD `client` talks to
// (a ReadShard below the PG layer; nothing for 0), a gtest failure when it cannot be read.
std::vector<std::byte> ShardBytesOn(ec::msg::OsdClient& client, const std::string& collection,
                                    const std::string& object, std::uint32_t shard,
                                    std::uint64_t size);

// One round of "a write killed anywhere": `size` random bytes written whole to `name`, then
// another `size` whole while the object's primary (even `round`) or another OSD of its acting set
// (odd) is killed -9 at a random moment below `max_delay` into the write; the OSD is restarted and
// the object read. An acknowledged write must read as the new bytes, a failed one as the old or
// the new, never a mix (gtest failures otherwise, naming the round). Returns what it read;
// *ended_new says whether that is the new content.
// `before_size` (0: `size`): the first write's size, for a write that changes the object's form
// (an erasure pool's small object growing into shards, or shrinking back into copies).
std::vector<std::byte> WriteFullWithAKill(LocalCluster& cluster, ec::cluster::client::IoCtx& io,
                                          const std::string& name, int round, std::size_t size,
                                          std::mt19937_64& rng, std::chrono::microseconds max_delay,
                                          bool* ended_new, std::size_t before_size = 0);

}  // namespace ectest
