// The cluster map's change rules in memory (ApplyChanges), then against a real etcd
// (testing::EtcdServer): round trips, the epoch bump in the same txn, optimistic concurrency,
// validation, corrupt values, and the watcher's epoch sequence across writers, two watchers, an
// etcd restart and a compaction. The values' codec alone is tested in cluster_map_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/map_store.h"
#include "cluster/map/map_watcher.h"

namespace ec::cluster {
namespace {

using etcd::testing::EtcdServer;

const std::string kPrefix = "/ecstore/";

EcProfile Rs(std::string name = "rs") {
  return EcProfile{std::move(name), {{"plugin", "jerasure"}, {"k", "4"}, {"m", "2"}}};
}
Pool MakePool(std::string name, std::string profile = "rs") {
  Pool p;
  p.name = std::move(name);
  p.profile = std::move(profile);
  p.pg_num = 32;
  p.stripe_unit = 4096;
  p.min_size = 5;
  return p;
}
OsdEntry Osd(int id, std::string host = "h1") {
  OsdEntry o;
  o.id = id;
  o.addr = "127.0.0.1:" + std::to_string(6800 + id);
  o.host = std::move(host);
  o.weight = 1.5;
  o.in = true;
  return o;
}

class MapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = server_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<etcd::Client>(server_.client_options());
    store_ = std::make_unique<MapStore>(client_.get(), kPrefix);
  }
  std::int64_t StoreRevision() {
    auto r = client_->GetPrefix("/");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->revision : -1;
  }

  EtcdServer server_;
  std::unique_ptr<etcd::Client> client_;
  std::unique_ptr<MapStore> store_;
};

// Collects delivered maps from a watcher; waits for an epoch.
struct Seen {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<ClusterMap> maps;
  std::vector<Status> errors;
  void Add(const ClusterMap& m) {
    std::lock_guard<std::mutex> l(mu);
    maps.push_back(m);
    cv.notify_all();
  }
  void Err(const Status& st) {
    std::lock_guard<std::mutex> l(mu);
    errors.push_back(st);
  }
  bool WaitEpoch(std::int64_t epoch, std::chrono::seconds limit = std::chrono::seconds(10)) {
    std::unique_lock<std::mutex> l(mu);
    return cv.wait_for(l, limit, [&] { return !maps.empty() && maps.back().epoch >= epoch; });
  }
  std::vector<std::int64_t> Epochs() {
    std::lock_guard<std::mutex> l(mu);
    std::vector<std::int64_t> e;
    for (const auto& m : maps) e.push_back(m.epoch);
    return e;
  }
};

std::vector<std::int64_t> Range1(std::int64_t n) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 1; i <= n; ++i) v.push_back(i);
  return v;
}

// An OSD's life through the change kinds, in memory: boot adds it, down keeps it with its stamp,
// auto-out is undone by the next boot, a person's out is not; another store cannot take its id.
TEST(MapChanges, OsdLifecycle) {
  ClusterMap map;
  ASSERT_TRUE(
      ApplyChanges({MapChange::OsdBoot(3, "127.0.0.1:6803", "h1", "u-3", 1000)}, &map).ok());
  ASSERT_TRUE(map.osds.contains(3));
  OsdEntry o = map.osds.at(3);
  EXPECT_TRUE(o.up);
  EXPECT_TRUE(o.in);
  EXPECT_EQ(o.weight, 1.0);
  EXPECT_EQ(o.uuid, "u-3");
  EXPECT_EQ(o.up_stamp_ms, 1000);

  ASSERT_TRUE(ApplyChanges({MapChange::OsdDown(3, 2000)}, &map).ok());
  EXPECT_FALSE(map.osds.at(3).up);
  EXPECT_EQ(map.osds.at(3).down_stamp_ms, 2000);
  // Down again: nothing changes, the first stamp stays.
  ASSERT_TRUE(ApplyChanges({MapChange::OsdDown(3, 3000)}, &map).ok());
  EXPECT_EQ(map.osds.at(3).down_stamp_ms, 2000);

  // Auto-out, then boot: in again.
  ASSERT_TRUE(ApplyChanges({MapChange::OsdOut(3, /*automatic=*/true)}, &map).ok());
  EXPECT_FALSE(map.osds.at(3).in);
  EXPECT_TRUE(map.osds.at(3).auto_out);
  ASSERT_TRUE(
      ApplyChanges({MapChange::OsdBoot(3, "127.0.0.1:7003", "h1", "u-3", 4000)}, &map).ok());
  EXPECT_TRUE(map.osds.at(3).in);
  EXPECT_FALSE(map.osds.at(3).auto_out);
  EXPECT_EQ(map.osds.at(3).addr, "127.0.0.1:7003");
  EXPECT_EQ(map.osds.at(3).down_stamp_ms, 0);

  // Out by a person stays out across a boot.
  ASSERT_TRUE(ApplyChanges({MapChange::OsdOut(3, /*automatic=*/false)}, &map).ok());
  ASSERT_TRUE(
      ApplyChanges({MapChange::OsdBoot(3, "127.0.0.1:7003", "h1", "u-3", 5000)}, &map).ok());
  EXPECT_FALSE(map.osds.at(3).in);

  // In while down restarts the down timer.
  ASSERT_TRUE(ApplyChanges({MapChange::OsdDown(3, 6000)}, &map).ok());
  ASSERT_TRUE(ApplyChanges({MapChange::OsdIn(3, 7000)}, &map).ok());
  EXPECT_TRUE(map.osds.at(3).in);
  EXPECT_EQ(map.osds.at(3).down_stamp_ms, 7000);

  // Another store claiming the id.
  Status st = ApplyChanges({MapChange::OsdBoot(3, "a", "h1", "u-other", 8000)}, &map);
  EXPECT_EQ(st.code(), EEXIST);
  EXPECT_NE(st.message().find("belongs to another store (uuid u-3)"), std::string::npos)
      << st.message();
  EXPECT_EQ(ApplyChanges({MapChange::OsdBoot(4, "a", "h1", "", 1)}, &map).code(), EINVAL);
  // osd_network_bandwidth is published at boot, replaced at the next (0: unknown again), and
  // bounded.
  ASSERT_TRUE(ApplyChanges({MapChange::OsdBoot(5, "a", "h1", "u-5", 1, 125'000'000)}, &map).ok());
  EXPECT_EQ(map.osds.at(5).network_bandwidth, 125'000'000u);
  ASSERT_TRUE(ApplyChanges({MapChange::OsdBoot(5, "a", "h1", "u-5", 2)}, &map).ok());
  EXPECT_EQ(map.osds.at(5).network_bandwidth, 0u);
  EXPECT_EQ(
      ApplyChanges({MapChange::OsdBoot(5, "a", "h1", "u-5", 3, kMaxNetworkBandwidth + 1)}, &map)
          .code(),
      EINVAL);
  EXPECT_EQ(map.osds.at(5).network_bandwidth, 0u);
  OsdEntry fast = map.osds.at(5);
  fast.network_bandwidth = kMaxNetworkBandwidth + 1;
  EXPECT_EQ(ApplyChanges({MapChange::PutOsd(fast)}, &map).code(), EINVAL);

  EXPECT_EQ(ApplyChanges({MapChange::OsdBoot(4, "a", "", "u", 1)}, &map).code(), EINVAL);
  for (MapChange c : {MapChange::OsdDown(9, 1), MapChange::OsdIn(9, 1), MapChange::OsdOut(9, false),
                      MapChange::RemoveOsd(9)}) {
    st = ApplyChanges({c}, &map);
    EXPECT_EQ(st.code(), ENOENT);
    EXPECT_EQ(st.message(), "osd.9 does not exist");
  }
  // A down OSD can be removed, an up one cannot.
  ASSERT_TRUE(ApplyChanges({MapChange::OsdBoot(5, "a", "h2", "u-5", 1)}, &map).ok());
  EXPECT_EQ(ApplyChanges({MapChange::RemoveOsd(5)}, &map).code(), EBUSY);
  EXPECT_TRUE(ApplyChanges({MapChange::RemoveOsd(3)}, &map).ok());
}

// Pool ids start at 1 as Ceph's; a map made when they started at 0 keeps its pool 0, and the next
// pool follows pool_max.
TEST(MapChanges, PoolIdsStartAtOneAndOldPoolZeroKeepsWorking) {
  ClusterMap map;
  ASSERT_TRUE(
      ApplyChanges({MapChange::PutProfile(Rs()), MapChange::PutPool(MakePool("p"))}, &map).ok());
  EXPECT_EQ(map.FindPool("p")->id, 1);
  EXPECT_EQ(map.pool_max, 1);

  ClusterMap old;
  ASSERT_TRUE(ApplyChanges({MapChange::PutProfile(Rs())}, &old).ok());
  Pool zero = MakePool("zero");
  zero.id = 0;
  old.pools[0] = zero;
  old.pool_max = 0;
  ASSERT_TRUE(ApplyChanges({MapChange::PutPool(MakePool("next"))}, &old).ok());
  EXPECT_EQ(old.FindPool("next")->id, 1);
  EXPECT_EQ(old.FindPool("zero")->id, 0);
  zero.pg_num = 16;  // pool 0 can still be changed in place
  ASSERT_TRUE(ApplyChanges({MapChange::PutPool(zero)}, &old).ok());
  EXPECT_EQ(old.pools.at(0).pg_num, 16u);
}

// A pool's allow_ec_optimizations is fixed at creation: replacing the pool (same id) may change
// other fields but not the flag, whose value every stored object's layout depends on.
TEST(MapChanges, PoolEcOptimizationsIsFixedAtCreation) {
  ClusterMap map;
  Pool pool = MakePool("p");
  pool.ec_optimizations = true;
  ASSERT_TRUE(ApplyChanges({MapChange::PutProfile(Rs()), MapChange::PutPool(pool)}, &map).ok());
  pool = map.pools.at(1);
  EXPECT_TRUE(pool.ec_optimizations);
  pool.pg_num = 64;
  ASSERT_TRUE(ApplyChanges({MapChange::PutPool(pool)}, &map).ok());
  EXPECT_EQ(map.pools.at(1).pg_num, 64u);
  pool.ec_optimizations = false;
  Status st = ApplyChanges({MapChange::PutPool(pool)}, &map);
  EXPECT_EQ(st.code(), EINVAL);
  EXPECT_EQ(st.message(),
            "pool 'p': allow_ec_optimizations is fixed at pool creation: objects already stored "
            "depend on it");
  EXPECT_TRUE(map.pools.at(1).ec_optimizations);
  // A new pool may have either value.
  Pool padded = MakePool("q");
  ASSERT_TRUE(ApplyChanges({MapChange::PutPool(padded)}, &map).ok());
  EXPECT_FALSE(map.FindPool("q")->ec_optimizations);
}

// A guard that fails is ECANCELED with nothing written; one that holds lets the change and its
// extra op through in the same txn as the epoch.
TEST_F(MapTest, GuardedApply) {
  ASSERT_TRUE(store_->Apply({MapChange::PutProfile(Rs())}).ok());
  const std::int64_t before = StoreRevision();
  TxnGuard absent;
  etcd::Compare cmp;
  cmp.target = etcd::Compare::Target::kCreate;
  cmp.key = kPrefix + "alive/1";
  cmp.number = 0;
  absent.compares.push_back(cmp);
  absent.ops.push_back(etcd::TxnOp::Put(kPrefix + "alive/1", "x"));
  auto m = store_->Apply({MapChange::OsdBoot(1, "a", "h", "u1", 1)}, absent);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->epoch, 2);
  auto alive = client_->Get(kPrefix + "alive/1");
  ASSERT_TRUE(alive.ok());
  EXPECT_EQ(alive->mod_revision, m->epoch_mod_revision);
  EXPECT_GT(m->revision, before);
  // Now the key exists: the same guard fails, nothing is written.
  const std::int64_t after = StoreRevision();
  auto again = store_->Apply({MapChange::OsdDown(1, 5)}, absent);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), ECANCELED);
  EXPECT_EQ(StoreRevision(), after);
  auto loaded = store_->Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(loaded->osds.at(1).up);
  // The alive key is not part of the map.
  EXPECT_EQ(loaded->osds.size(), 1u);
}

// The first change gives the cluster its fsid; later changes keep it; a bad one is refused.
TEST_F(MapTest, FirstChangeWritesTheFsid) {
  auto empty = store_->Load();
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->fsid, "");
  auto m1 = store_->Apply({MapChange::PutProfile(Rs())});
  ASSERT_TRUE(m1.ok());
  ASSERT_EQ(m1->fsid.size(), 36u);
  EXPECT_EQ(m1->fsid[14], '4');
  auto m2 = store_->Apply({MapChange::PutPool(MakePool("p"))});
  ASSERT_TRUE(m2.ok());
  EXPECT_EQ(m2->fsid, m1->fsid);
  auto loaded = store_->Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->fsid, m1->fsid);
  EXPECT_NE(NewFsid(), NewFsid());
  ASSERT_TRUE(client_->Put(etcd::PutRequest{FsidKey(kPrefix), "not-a-uuid", 0}).ok());
  auto bad = store_->Load();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), EBADMSG);
  EXPECT_NE(bad.status().message().find("/ecstore/fsid"), std::string::npos);
}

// Cluster flags: set and unset in the map (one key, sorted, deleted when none is set), unknown
// names refused, a repeated set changes nothing, and bad values refused by Load naming the key.
TEST_F(MapTest, FlagsSetAndUnset) {
  auto m1 = store_->Apply({MapChange::SetFlag("noscrub"), MapChange::SetFlag("noout")});
  ASSERT_TRUE(m1.ok()) << m1.status().ToString();
  EXPECT_EQ(m1->flags, (std::set<std::string>{"noout", "noscrub"}));
  EXPECT_EQ(m1->FlagsText(), "noout,noscrub");
  EXPECT_TRUE(m1->HasFlag("noout"));
  EXPECT_FALSE(m1->HasFlag("norecover"));
  auto raw = client_->Get(FlagsKey(kPrefix));
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->value, R"({"flags":["noout","noscrub"],"v":1})");
  auto loaded = store_->Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->flags, m1->flags);

  auto same = store_->Apply({MapChange::SetFlag("noout")});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->epoch, m1->epoch);  // nothing changed: no epoch

  auto bad = store_->Apply({MapChange::SetFlag("nodown")});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), EINVAL);
  EXPECT_EQ(bad.status().message(), "unknown flag 'nodown'");

  auto m2 = store_->Apply({MapChange::UnsetFlag("noout"), MapChange::UnsetFlag("noscrub")});
  ASSERT_TRUE(m2.ok());
  EXPECT_TRUE(m2->flags.empty());
  EXPECT_EQ(m2->epoch, m1->epoch + 1);
  EXPECT_EQ(client_->Get(FlagsKey(kPrefix)).status().code(), ENOENT);

  for (const char* value :
       {R"({"v":1,"flags":["nodown"]})", R"({"v":1,"flags":"noout"})",
        R"({"v":1,"flags":["noout","noout"]})", R"({"v":1})", R"({"v":1,"flags":[],"x":1})"}) {
    ASSERT_TRUE(client_->Put(etcd::PutRequest{FlagsKey(kPrefix), value, 0}).ok());
    auto load = store_->Load();
    ASSERT_FALSE(load.ok()) << value;
    EXPECT_EQ(load.status().code(), EBADMSG) << value;
    EXPECT_NE(load.status().message().find("/ecstore/flags"), std::string::npos)
        << load.status().message();
  }
}

TEST_F(MapTest, RoundTripThroughEtcd) {
  auto empty = store_->Load();
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->epoch, 0);
  EXPECT_TRUE(empty->pools.empty());

  EcProfile clay{"clay", {{"plugin", "clay"}, {"k", "4"}, {"m", "2"}, {"d", "5"}}};
  OsdEntry out = Osd(3, "h2");
  out.in = false;
  out.weight = 0.5;
  Pool unpadded = MakePool("b", "clay");
  unpadded.ec_optimizations = true;
  auto applied = store_->Apply({MapChange::PutProfile(Rs()), MapChange::PutProfile(clay),
                                MapChange::PutPool(MakePool("a")), MapChange::PutPool(unpadded),
                                MapChange::PutOsd(Osd(0)), MapChange::PutOsd(out)});
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(applied->epoch, 1);
  EXPECT_EQ(applied->pools.at(1).name, "a");
  EXPECT_EQ(applied->pools.at(2).name, "b");
  EXPECT_EQ(applied->pool_max, 2);

  auto loaded = store_->Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_TRUE(SameContent(*loaded, *applied));
  EXPECT_EQ(loaded->profiles.at("clay"), clay);
  EXPECT_EQ(loaded->osds.at(3), out);
  EXPECT_FALSE(loaded->pools.at(1).ec_optimizations);
  EXPECT_TRUE(loaded->pools.at(2).ec_optimizations);
  EXPECT_EQ(loaded->epoch_mod_revision, applied->revision);

  // Remove a pool; its id is not reused.
  auto removed = store_->Apply({MapChange::RemovePool("a"), MapChange::PutPool(MakePool("c"))});
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  EXPECT_EQ(removed->epoch, 2);
  EXPECT_FALSE(removed->pools.contains(1));
  EXPECT_EQ(removed->pools.at(3).name, "c");
  loaded = store_->Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_TRUE(SameContent(*loaded, *removed));

  // A change set that changes nothing writes nothing.
  std::int64_t before = StoreRevision();
  auto same = store_->Apply({MapChange::PutOsd(Osd(0))});
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ(same->epoch, 2);
  EXPECT_EQ(StoreRevision(), before);
}

TEST_F(MapTest, EpochBumpIsInTheSameTxn) {
  ASSERT_TRUE(store_->Apply({MapChange::PutProfile(Rs())}).ok());
  ASSERT_TRUE(store_->Apply({MapChange::PutPool(MakePool("a")), MapChange::PutOsd(Osd(1))}).ok());
  auto r = store_->Apply({MapChange::PutOsd(Osd(2)), MapChange::PutOsd(Osd(3)),
                          MapChange::RemoveOsd(1), MapChange::PutPool(MakePool("b"))});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->epoch, 3);
  auto epoch = client_->Get(EpochKey(kPrefix));
  ASSERT_TRUE(epoch.ok());
  EXPECT_EQ(epoch->value, "3");
  EXPECT_EQ(epoch->mod_revision, r->revision);
  for (const std::string& key :
       {OsdKey(kPrefix, 2), OsdKey(kPrefix, 3), PoolKey(kPrefix, 2), PoolMaxKey(kPrefix)}) {
    auto kv = client_->Get(key);
    ASSERT_TRUE(kv.ok()) << key;
    EXPECT_EQ(kv->mod_revision, epoch->mod_revision) << key;
  }
  EXPECT_EQ(client_->Get(OsdKey(kPrefix, 1)).status().code(), ENOENT);
  // Untouched keys keep their older revision.
  auto pool_a = client_->Get(PoolKey(kPrefix, 1));
  ASSERT_TRUE(pool_a.ok());
  EXPECT_LT(pool_a->mod_revision, epoch->mod_revision);
}

TEST_F(MapTest, ConcurrentWritersLoseNoUpdate) {
  constexpr int kPerWriter = 15;
  etcd::Client c2(server_.client_options());
  MapStore a(client_.get(), kPrefix, ApplyOptions{64, 128});
  MapStore b(&c2, kPrefix, ApplyOptions{64, 128});
  std::vector<std::int64_t> epochs_a, epochs_b;
  std::atomic<int> failures{0};
  auto writer = [&](MapStore* s, int base, std::vector<std::int64_t>* epochs) {
    for (int i = 0; i < kPerWriter; ++i) {
      auto r = s->Apply({MapChange::PutOsd(Osd(base + i))});
      if (!r.ok()) {
        ++failures;
        continue;
      }
      epochs->push_back(r->epoch);
    }
  };
  std::thread ta(writer, &a, 0, &epochs_a);
  std::thread tb(writer, &b, 1000, &epochs_b);
  ta.join();
  tb.join();
  EXPECT_EQ(failures.load(), 0);
  auto m = store_->Load();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->osds.size(), 2u * kPerWriter);
  EXPECT_EQ(m->epoch, 2 * kPerWriter);
  std::set<std::int64_t> all(epochs_a.begin(), epochs_a.end());
  all.insert(epochs_b.begin(), epochs_b.end());
  EXPECT_EQ(all.size(), 2u * kPerWriter) << "two writers got the same epoch";

  // Without retries: each epoch has exactly one winner, losers get EAGAIN and wrote nothing.
  MapStore a1(client_.get(), kPrefix, ApplyOptions{1, 128});
  MapStore b1(&c2, kPrefix, ApplyOptions{1, 128});
  std::atomic<int> ok{0}, again{0}, other{0};
  auto writer1 = [&](MapStore* s, int base) {
    for (int i = 0; i < kPerWriter; ++i) {
      auto r = s->Apply({MapChange::PutOsd(Osd(base + i, "h9"))});
      if (r.ok()) {
        ++ok;
      } else if (r.status().code() == EAGAIN && r.status().is_retryable()) {
        ++again;
      } else {
        ++other;
      }
    }
  };
  std::thread t1(writer1, &a1, 2000);
  std::thread t2(writer1, &b1, 3000);
  t1.join();
  t2.join();
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(ok.load() + again.load(), 2 * kPerWriter);
  m = store_->Load();
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->epoch, 2 * kPerWriter + ok.load());
  EXPECT_EQ(m->osds.size(), 2u * kPerWriter + static_cast<std::size_t>(ok.load()));
}

TEST_F(MapTest, ValidationErrorsLeaveEtcdUnchanged) {
  ASSERT_TRUE(store_
                  ->Apply({MapChange::PutProfile(Rs()), MapChange::PutPool(MakePool("x")),
                           MapChange::PutOsd(Osd(0))})
                  .ok());
  auto expect_refused = [&](std::vector<MapChange> changes, int code, const std::string& text) {
    std::int64_t before = StoreRevision();
    auto r = store_->Apply(changes);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.status().code(), code) << r.status().ToString();
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().message();
    EXPECT_EQ(StoreRevision(), before) << text;
  };
  expect_refused({MapChange::RemovePool("nope")}, ENOENT, "pool 'nope' does not exist");
  expect_refused({MapChange::PutPool(MakePool("x"))}, EEXIST, "pool 'x' already exists");
  expect_refused({MapChange::PutPool(MakePool("y", "missing"))}, ENOENT,
                 "erasure-code-profile missing does not exist");
  expect_refused({MapChange::RemoveProfile("rs")}, EBUSY,
                 "erasure-code-profile rs is in use by pool x");
  expect_refused({MapChange::RemoveProfile("zz")}, ENOENT,
                 "erasure-code-profile zz does not exist");
  EcProfile changed = Rs();
  changed.profile["k"] = "5";
  expect_refused({MapChange::PutProfile(changed)}, EBUSY, "is in use by pool x");
  Pool p = MakePool("y");
  p.pg_num = 0;
  expect_refused({MapChange::PutPool(p)}, EINVAL, "pg_num 0 out of range 1..65536");
  p.pg_num = 65537;
  expect_refused({MapChange::PutPool(p)}, EINVAL, "pg_num 65537");
  p = MakePool("y");
  p.min_size = 7;  // k+m = 6
  expect_refused({MapChange::PutPool(p)}, EINVAL, "min_size 7 out of range 1..6");
  p.min_size = 0;
  expect_refused({MapChange::PutPool(p)}, EINVAL, "min_size 0");
  p = MakePool("y");
  p.stripe_unit = 0;
  expect_refused({MapChange::PutPool(p)}, EINVAL, "stripe_unit 0");
  expect_refused({MapChange::PutPool(MakePool(""))}, EINVAL, "pool name");
  expect_refused({MapChange::PutOsd(Osd(-1))}, EINVAL, "osd id -1");
  expect_refused({MapChange::RemoveOsd(42)}, ENOENT, "osd.42 does not exist");
  expect_refused({MapChange::PutProfile(EcProfile{"a/b", {}})}, EINVAL, "without '/'");
  expect_refused({}, EINVAL, "empty");
  // A valid change followed by an invalid one: nothing is written.
  expect_refused({MapChange::PutOsd(Osd(5)), MapChange::RemovePool("nope")}, ENOENT,
                 "pool 'nope' does not exist");
  // Over etcd's 128 operations per txn: 128 OSDs + the epoch.
  std::vector<MapChange> big;
  for (int i = 100; i < 228; ++i) big.push_back(MapChange::PutOsd(Osd(i)));
  expect_refused(big, E2BIG, "at most 128");
  big.pop_back();  // 127 + epoch = 128: accepted
  auto r = store_->Apply(big);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->epoch, 2);
  // Removing the pool then its profile in one set is fine.
  r = store_->Apply({MapChange::RemovePool("x"), MapChange::RemoveProfile("rs")});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->profiles.empty());
}

TEST_F(MapTest, CorruptValueFailsLoadNamingTheKey) {
  ASSERT_TRUE(store_->Apply({MapChange::PutProfile(Rs()), MapChange::PutOsd(Osd(1))}).ok());
  ASSERT_TRUE(client_->Put({OsdKey(kPrefix, 1), "{\"v\":1,\"id\":1,\"addr\":", 0}).ok());
  auto m = store_->Load();
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), EBADMSG);
  EXPECT_NE(m.status().message().find("'/ecstore/osd/1'"), std::string::npos)
      << m.status().message();
  // Apply reads first, so it refuses too and writes nothing.
  EXPECT_EQ(store_->Apply({MapChange::PutOsd(Osd(2))}).status().code(), EBADMSG);
  ASSERT_TRUE(client_->Put({OsdKey(kPrefix, 1), EncodeOsd(Osd(1)), 0}).ok());
  ASSERT_TRUE(client_->Put({EpochKey(kPrefix), "one", 0}).ok());
  m = store_->Load();
  EXPECT_EQ(m.status().code(), EBADMSG);
  EXPECT_NE(m.status().message().find("'/ecstore/epoch'"), std::string::npos);
  ASSERT_TRUE(client_->DeleteRange({EpochKey(kPrefix), ""}).ok());
  m = store_->Load();
  EXPECT_EQ(m.status().code(), EBADMSG);
  EXPECT_NE(m.status().message().find("no '/ecstore/epoch'"), std::string::npos);
  // Keys of other subsystems under the prefix do not disturb the map.
  ASSERT_TRUE(client_->Put({EpochKey(kPrefix), "1", 0}).ok());
  ASSERT_TRUE(client_->Put({kPrefix + "up/1", "not json", 0}).ok());
  m = store_->Load();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->osds.size(), 1u);
}

TEST_F(MapTest, TwoWatchersSeeEveryEpochInOrder) {
  constexpr int kChanges = 30;
  auto initial = store_->Load();
  ASSERT_TRUE(initial.ok());
  Seen s1, s2;
  MapWatcher w1(
      server_.client_options(), kPrefix, *initial, [&](const ClusterMap& m) { s1.Add(m); },
      [&](const Status& st) { s1.Err(st); });
  MapWatcher w2(
      server_.client_options(), kPrefix, *initial, [&](const ClusterMap& m) { s2.Add(m); },
      [&](const Status& st) { s2.Err(st); });
  std::thread writer([&] {
    ASSERT_TRUE(store_->Apply({MapChange::PutProfile(Rs())}).ok());
    for (int i = 1; i < kChanges; ++i) {
      std::vector<MapChange> set = {MapChange::PutOsd(Osd(i))};
      if (i % 5 == 0) set.push_back(MapChange::PutPool(MakePool("p" + std::to_string(i))));
      ASSERT_TRUE(store_->Apply(set).ok());
    }
  });
  writer.join();
  ASSERT_TRUE(s1.WaitEpoch(kChanges));
  ASSERT_TRUE(s2.WaitEpoch(kChanges));
  EXPECT_EQ(s1.Epochs(), Range1(kChanges));
  EXPECT_EQ(s2.Epochs(), Range1(kChanges));
  auto final_map = store_->Load();
  ASSERT_TRUE(final_map.ok());
  std::lock_guard<std::mutex> l1(s1.mu), l2(s2.mu);
  EXPECT_TRUE(SameContent(s1.maps.back(), *final_map));
  for (std::size_t i = 0; i < s1.maps.size(); ++i) {
    EXPECT_TRUE(SameContent(s1.maps[i], s2.maps[i])) << "epoch " << s1.maps[i].epoch;
    // Each epoch is whole: epoch e has exactly the OSDs 1..e-1.
    EXPECT_EQ(s1.maps[i].osds.size(), static_cast<std::size_t>(s1.maps[i].epoch - 1));
  }
  EXPECT_EQ(w1.last_epoch(), kChanges);
}

TEST_F(MapTest, WatcherMissesNoEpochAcrossEtcdRestart) {
  auto initial = store_->Load();
  ASSERT_TRUE(initial.ok());
  Seen seen;
  MapWatcher w(
      server_.client_options(), kPrefix, *initial, [&](const ClusterMap& m) { seen.Add(m); },
      [&](const Status& st) { seen.Err(st); });
  ASSERT_TRUE(store_->Apply({MapChange::PutProfile(Rs())}).ok());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(store_->Apply({MapChange::PutOsd(Osd(i))}).ok());
  ASSERT_TRUE(seen.WaitEpoch(5));
  server_.Kill();
  // Changes made while the watcher cannot reach etcd: write them after the restart but before
  // the watch reconnects (its backoff), and more after.
  ASSERT_TRUE(server_.Restart().ok());
  for (int i = 4; i < 10; ++i) {
    auto r = store_->Apply({MapChange::PutOsd(Osd(i))});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  ASSERT_TRUE(seen.WaitEpoch(11, std::chrono::seconds(15)));
  EXPECT_EQ(seen.Epochs(), Range1(11));
}

TEST_F(MapTest, WatcherReloadsAfterCompaction) {
  auto initial = store_->Load();
  ASSERT_TRUE(initial.ok());
  ASSERT_TRUE(store_->Apply({MapChange::PutProfile(Rs())}).ok());
  ClusterMap last;
  for (int i = 0; i < 5; ++i) {
    auto r = store_->Apply({MapChange::PutOsd(Osd(i))});
    ASSERT_TRUE(r.ok());
    last = *r;
  }
  auto compact = client_->Call(
      "/v3/kv/compaction",
      nlohmann::json{{"revision", std::to_string(last.revision)}, {"physical", true}}, false);
  ASSERT_TRUE(compact.ok()) << compact.status().ToString();
  // The watcher starts at the old revision, now compacted: it reloads and delivers epoch 6.
  Seen seen;
  MapWatcher w(
      server_.client_options(), kPrefix, *initial, [&](const ClusterMap& m) { seen.Add(m); },
      [&](const Status& st) { seen.Err(st); });
  ASSERT_TRUE(seen.WaitEpoch(6));
  ASSERT_TRUE(store_->Apply({MapChange::PutOsd(Osd(9))}).ok());
  ASSERT_TRUE(seen.WaitEpoch(7));
  EXPECT_EQ(seen.Epochs(), (std::vector<std::int64_t>{6, 7}));
  std::lock_guard<std::mutex> l(seen.mu);
  bool saw_erange = false;
  for (const auto& st : seen.errors) saw_erange |= st.code() == ERANGE;
  EXPECT_TRUE(saw_erange);
  EXPECT_EQ(seen.maps.back().osds.size(), 6u);
}

TEST_F(MapTest, WatcherReportsABadValueAndReloadsAtTheNextEpoch) {
  ASSERT_TRUE(store_->Apply({MapChange::PutOsd(Osd(1))}).ok());
  auto initial = store_->Load();
  ASSERT_TRUE(initial.ok());
  Seen seen;
  MapWatcher w(
      server_.client_options(), kPrefix, *initial, [&](const ClusterMap& m) { seen.Add(m); },
      [&](const Status& st) { seen.Err(st); });
  // Written by something else, without an epoch bump: the watcher reports it and distrusts its
  // copy.
  ASSERT_TRUE(client_->Put({OsdKey(kPrefix, 1), "garbage", 0}).ok());
  auto wait_errors = [&](std::size_t n) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (;;) {
      {
        std::lock_guard<std::mutex> l(seen.mu);
        if (seen.errors.size() >= n) return true;
      }
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  };
  ASSERT_TRUE(wait_errors(1)) << "no error reported";
  {
    std::lock_guard<std::mutex> l(seen.mu);
    EXPECT_EQ(seen.errors[0].code(), EBADMSG);
    EXPECT_NE(seen.errors[0].message().find("'/ecstore/osd/1'"), std::string::npos);
    EXPECT_TRUE(seen.maps.empty());
  }
  // An epoch bump by hand while the value is still bad: not delivered (its Load fails too).
  ASSERT_TRUE(client_->Put({EpochKey(kPrefix), "2", 0}).ok());
  ASSERT_TRUE(wait_errors(2)) << "the Load at epoch 2 did not fail";
  // Repaired by hand, then a real change: epoch 3 comes from a fresh Load.
  OsdEntry repaired = Osd(1, "h7");
  ASSERT_TRUE(client_->Put({OsdKey(kPrefix, 1), EncodeOsd(repaired), 0}).ok());
  ASSERT_TRUE(store_->Apply({MapChange::PutOsd(Osd(2))}).ok());
  ASSERT_TRUE(seen.WaitEpoch(3));
  EXPECT_EQ(seen.Epochs(), (std::vector<std::int64_t>{3}));
  std::lock_guard<std::mutex> l(seen.mu);
  EXPECT_EQ(seen.errors[1].code(), EBADMSG);  // the Load at epoch 2
  EXPECT_EQ(seen.maps.back().osds.at(1), repaired);
  EXPECT_TRUE(seen.maps.back().osds.contains(2));
}

}  // namespace
}  // namespace ec::cluster
