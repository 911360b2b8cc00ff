// LocalCluster (tests only): a whole ecstore cluster on loopback for the cluster tests: a real etcd
// (cluster/etcd/etcd_test_server.h), N real ec-osd processes on hosts h0..h(N-1)
// (tests/osd/osd_process.h), erasure-code pools, and the client library (cluster/client/rados.h)
// connected to it. Everything it starts stops when it is destroyed (SIGKILL), also when a test
// fails; the OSDs' folders live in one TempDir.
//
//   LocalCluster c(options);            etcd, options.osds OSDs (mkfs + start), options.pools
//   c.Pool("clay").WriteFull(...)       the client library
//   c.Kill(3); c.WaitUp(3, false, ..)   kill -9 an OSD; the monitor marks it down after the grace
//   c.Restart(3)                        start it again on its data; waits until the map says up
//   c.store->Apply({OsdOut(3)})         map changes through cluster/map/map_store.h
//   c.WaitClean(seconds(60))            every PG active+clean as its primary reports it (pgstats)
//   c.MetricSum("ecstore_..._total{pool=\"clay\"}")   a counter summed over the running OSDs
//
// Failures to start anything are gtest failures (ADD_FAILURE / EXPECT_*) and leave the member
// null or the OSD not running: a test checks `rados != nullptr` and `osds[i]->running()` first.
//
// Thread safety: none beyond what the members give (the client library is thread-safe); the test's
// thread owns it. A case that kills OSDs or etcd starts them again before it ends, so that cases
// sharing one cluster (one gtest process) find it whole.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/client/rados.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/map_store.h"
#include "ec/buffer.h"
#include "ec/profile.h"
#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace ectest {

// One erasure-code pool of the cluster: its profile has the pool's name; min_size is k (writes go
// on with m OSDs down).
struct PoolSpec {
  std::string name;
  ec::Profile profile;  // "plugin", "k", "m", ... ; crush-failure-domain=host to spread over hosts
  std::uint32_t stripe_unit = 4096;
  std::uint32_t pg_num = 8;
};

struct LocalClusterOptions {
  int osds = 6;
  std::vector<PoolSpec> pools;
  // The monitor marks an OSD down this long after its last heartbeat (osd_heartbeat_grace).
  int grace_seconds = 2;
  // More `--set name=value` options for every OSD (e.g. recovery throttles), after the fixture's.
  std::vector<std::string> osd_options;
};

class LocalCluster {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LocalCluster(LocalClusterOptions options);
  ~LocalCluster() = default;  // members stop their processes (client first, etcd last)
  LocalCluster(const LocalCluster&) = delete;
  LocalCluster& operator=(const LocalCluster&) = delete;

  // etcd's client URL, "http://127.0.0.1:<port>".
  std::string Endpoint() const;
  // The ec-osd command-line options of OSD `id`: etcd, the short grace, no automatic out
  // (mon_osd_down_out_interval=0), 3 s sub-op timeouts, 500 ms PG stats reports, host h<id>, then
  // options.osd_options.
  std::vector<std::string> Args(int id) const;
  // mkfs and start one more OSD (id = osds.size(), host h<id>) and wait until the map says it is
  // up; its id, or -1 (with a gtest failure) if it did not come up.
  int AddOsd();

  // The map in etcd now (an empty map if it cannot be read).
  ec::cluster::ClusterMap Map() const;
  // The map's epoch and every OSD's state, for failure messages: "epoch 12: osd.0 up in, osd.1
  // down out, ...".
  std::string DescribeOsds() const;
  // Waits until the map says OSD `id` is up (or down); false after `limit`.
  bool WaitUp(int id, bool up, std::chrono::seconds limit) const;
  // kill -9 (expects the exit status 128 + 9).
  void Kill(int id);
  // Starts a killed OSD again on its data and waits (10 s) until the map says it is up.
  void Restart(int id);
  // The pool, opened through the client (a gtest failure if it cannot be).
  ec::cluster::client::IoCtx Pool(const std::string& name);

  // Every PG of every pool by the state its primary reports at the current map epoch; a PG whose
  // primary has not reported at that epoch counts as "(no report)". Empty if etcd cannot be read.
  std::map<std::string, std::uint64_t> PgStates() const;
  // Waits until PgStates() is only "active+clean"; false after `limit` (the states last seen are
  // printed then).
  bool WaitClean(std::chrono::seconds limit) const;

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

 private:
  void AddPool(const PoolSpec& spec);
};

// The bytes of a buffer, for comparisons with a model.
std::vector<std::byte> ToVector(const ec::Buffer& b);

}  // namespace ectest
