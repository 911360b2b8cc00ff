// Replicated pools (issue 30 item 1) on a real local cluster (cluster_fixture.h): etcd, four
// ec-osd processes on hosts h0..h3 and a pool "rep" of 3 copies (min_size 2, 8 PGs), made as
// `ec-admin osd pool create rep 8 replicated` records it; the client library in-process. The
// pool runs the erasure-code machinery with the repetition code (ec/repetition_code.h), so what
// is checked here is what a replicated pool must do that a code of k >= 2 never showed:
//
//   EveryReplicaHoldsTheWholeObject   writes, overwrites, appends, removes: each of the 3 shards
//                                     is the object's bytes (asked of each OSD), every write
//                                     moves every replica's version
//   AKillMidWriteLeavesTheOldOrTheNewObject
//                                     kill -9 of a replica and of the primary during a 4 MiB
//                                     write_full: old or new content, never a mix, an
//                                     acknowledged write never lost, no error once clean
//   RecoveryReadsOneCopyAndBackfillCopiesTheChangedObjects
//                                     an OSD killed (PGs active+undersized+degraded, `-s` counts
//                                     degraded objects), marked out: each object it held is pulled
//                                     from ONE other replica (the network bytes equal the objects'
//                                     sizes exactly); back in: only the objects changed meanwhile
//                                     are copied back
//   ChangingTheSizeAddsAndDropsCopies `osd pool set rep size` 3 -> 4 -> 2 -> 3: copies pulled
//                                     once per new or moved position, exactly; every object
//                                     with that many equal copies; a model-checked workload
//                                     through the shrink and the growth back
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/admin/status_report.h"
#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "msg/client.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/cluster/model_workload.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using ec::osd::store::testing::RandomBytes;
using ectest::ToVector;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kOsds = 4;
constexpr int kGraceSeconds = 2;
const std::string kPool = "rep";

class Replicated : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = kOsds;
    o.pools = {ectest::ReplicatedPool(kPool, 3, 8)};
    o.grace_seconds = kGraceSeconds;
    StartCluster(std::move(o));
  }

  static ec::cluster::client::IoCtx Pool() { return cluster_->Pool(kPool); }

  // A client of OSD `osd`.
  static std::unique_ptr<ec::msg::OsdClient> ClientOf(int osd) {
    ec::msg::ClientOptions co;
    co.port = cluster_->osds[static_cast<std::size_t>(osd)]->port();
    auto client = ec::msg::OsdClient::Create(co);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  // Each replica of `name` as its OSD holds it: (version, bytes) by position.
  static std::vector<std::pair<std::uint64_t, std::vector<std::byte>>> Replicas(
      const std::string& name) {
    std::vector<std::pair<std::uint64_t, std::vector<std::byte>>> out;
    auto loc = cluster_->Locate(Pool().pool_id(), name);
    EXPECT_TRUE(loc.ok()) << loc.status().ToString();
    if (!loc.ok()) return out;
    for (std::size_t p = 0; p < loc->acting.size(); ++p) {
      auto client = ClientOf(loc->acting[p]);
      if (!client) return out;
      const auto shard = static_cast<std::uint32_t>(p);
      auto st = client->Stat({loc->collection, name, shard});
      EXPECT_TRUE(st.ok()) << "replica " << p << ": " << st.status().ToString();
      if (!st.ok()) return out;
      out.emplace_back(st->version,
                       ectest::ShardBytesOn(*client, loc->collection, name, shard, st->size));
    }
    return out;
  }
};

TEST_F(Replicated, EveryReplicaHoldsTheWholeObject) {
  auto io = Pool();
  std::mt19937_64 rng(30);
  std::map<std::string, std::vector<std::byte>> model;
  // One write of `len` new bytes at `off` (write_full when `off` is nullopt), the model following.
  auto apply = [&](const std::string& name, std::optional<std::size_t> off, std::size_t len) {
    const auto bytes = RandomBytes(rng, len);
    std::vector<std::byte>& m = model[name];
    if (!off) {
      m = bytes;
      return io.WriteFull(name, bytes).ok();
    }
    m.resize(std::max(m.size(), *off + len));
    std::copy(bytes.begin(), bytes.end(), m.begin() + static_cast<std::ptrdiff_t>(*off));
    return io.Write(name, bytes, *off).ok();
  };
  for (std::size_t size : {0ul, 1ul, 4095ul, 4096ul, 100000ul, 1ul << 20}) {
    ASSERT_TRUE(apply("obj-" + std::to_string(size), std::nullopt, size));
  }
  // Inside a 4 KiB unit, across units, past the end (the gap reads as zeros), an append.
  for (auto [off, len] : std::vector<std::pair<std::size_t, std::size_t>>{
           {0, 10}, {4090, 10}, {50000, 30000}, {99990, 100}, {120000, 5}}) {
    ASSERT_TRUE(apply("obj-100000", off, len));
  }
  ASSERT_TRUE(apply("obj-1", 1, 7000));

  for (const auto& [name, bytes] : model) {
    SCOPED_TRACE(name);
    auto whole = io.Read(name);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_TRUE(ToVector(whole->data) == bytes);
    EXPECT_FALSE(whole->degraded);
    if (bytes.size() > 5000) {  // a range across a 4 KiB unit, from chunk 0's copy
      auto part = io.Read(name, 3000, 2000);
      ASSERT_TRUE(part.ok()) << part.status().ToString();
      ASSERT_EQ(part->data.size(), 2000u);
      EXPECT_TRUE(std::equal(bytes.begin() + 3000, bytes.begin() + 5000, part->data.data()));
    }
    // Three replicas, each the whole object, all at the object's version.
    const auto replicas = Replicas(name);
    ASSERT_EQ(replicas.size(), 3u);
    for (std::size_t p = 0; p < replicas.size(); ++p) {
      EXPECT_TRUE(replicas[p].second == bytes) << "replica " << p;
      EXPECT_EQ(replicas[p].first, replicas[0].first) << "replica " << p;
    }
  }
  // A small overwrite moves every replica to the new version, and sends each copy exactly its
  // 100 bytes (nothing read first, no 4 KiB unit rewritten): 200 to 300 payload bytes of
  // SubWrites taken, as the primary's own copy is written in process.
  const std::string sub_write_in = "ecstore_osd_op_bytes_total{dir=\"in\",op=\"sub_write\"}";
  const std::uint64_t in_before = cluster_->MetricSum(sub_write_in);
  const auto before = Replicas("obj-4096");
  ASSERT_TRUE(apply("obj-4096", 200, 100));
  const auto after = Replicas("obj-4096");
  ASSERT_EQ(after.size(), 3u);
  for (std::size_t p = 0; p < after.size(); ++p) {
    EXPECT_GT(after[p].first, before[p].first);
    EXPECT_TRUE(after[p].second == model["obj-4096"]) << "replica " << p;
  }
  const std::uint64_t sent = cluster_->MetricSum(sub_write_in) - in_before;
  EXPECT_GE(sent, 200u);
  EXPECT_LE(sent, 300u);
  std::printf("a 100-byte overwrite: %llu payload bytes of SubWrites taken by the OSDs\n",
              static_cast<unsigned long long>(sent));

  auto listed = io.List();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), model.size());
  ASSERT_TRUE(io.Remove("obj-1").ok());
  EXPECT_EQ(io.Read("obj-1").status().code(), ENOENT);
  EXPECT_EQ(io.Remove("obj-1").code(), ENOENT);
  for (const auto& [name, bytes] : model) {
    if (name != "obj-1") {
      EXPECT_TRUE(io.Remove(name).ok()) << name;
    }
  }
}

TEST_F(Replicated, AKillMidWriteLeavesTheOldOrTheNewObject) {
  auto io = Pool();
  std::mt19937_64 rng(static_cast<std::uint64_t>(ec::osd::store::testing::TestSeed()) + 30);
  int old_seen = 0, new_seen = 0;
  for (int round = 0; round < 4; ++round) {
    const std::string name = "atomic-" + std::to_string(round);
    bool ended_new = false;
    const auto bytes = ectest::WriteFullWithAKill(*cluster_, io, name, round, 4 << 20, rng,
                                                  std::chrono::microseconds(3000), &ended_new);
    (ended_new ? new_seen : old_seen)++;
    // Once clean, every replica holds what the object reads as.
    ASSERT_TRUE(cluster_->WaitClean(seconds(30)));
    auto clean = io.Read(name);
    ASSERT_TRUE(clean.ok()) << clean.status().ToString();
    EXPECT_TRUE(ToVector(clean->data) == bytes);
    EXPECT_FALSE(clean->degraded);
    for (const auto& [version, replica] : Replicas(name)) EXPECT_TRUE(replica == bytes);
  }
  std::printf(
      "kill -9 during a 4 MiB write_full to a replicated pool: %d rounds ended old, %d new\n",
      old_seen, new_seen);
}

TEST_F(Replicated, RecoveryReadsOneCopyAndBackfillCopiesTheChangedObjects) {
  auto io = Pool();
  std::mt19937_64 rng(300);
  std::map<std::string, std::vector<std::byte>> model;
  for (int i = 0; i < 40; ++i) {
    const std::string name = "rec-" + std::to_string(i);
    model[name] = RandomBytes(rng, std::vector<std::size_t>{4096, 10000, 65536, 200000}[i % 4]);
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok());
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(30)));
  const std::string received = "ecstore_recovery_network_bytes_total{pool=\"rep\"}";
  const std::string rebuilt = "ecstore_recovery_rebuilt_bytes_total{pool=\"rep\"}";

  // The bytes the recovery must read: one copy of every object the victim held.
  const int victim = 1;
  auto locator = [&](const ClusterMap& map) {
    auto l = ec::cluster::ObjectLocator::Make(std::make_shared<const ClusterMap>(map));
    EXPECT_TRUE(l.ok());
    return std::move(l).value();
  };
  std::uint64_t expect = 0;
  std::uint64_t held = 0;
  {
    auto before_map = locator(cluster_->Map());
    for (const auto& [name, bytes] : model) {
      auto loc = before_map->LocateObject(io.pool_id(), name);
      ASSERT_TRUE(loc.ok());
      if (std::find(loc->acting.begin(), loc->acting.end(), victim) != loc->acting.end()) {
        expect += bytes.size();
        ++held;
      }
    }
  }
  ASSERT_GT(held, 0u);
  const std::uint64_t received_before = cluster_->MetricSum(received);

  // Down: the PGs it served are active+undersized+degraded (2 of 3 copies up, min_size 2), reads
  // and writes go on, and the status counts the degraded objects.
  ASSERT_TRUE(cluster_->Kill(victim));
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  const auto deadline = Clock::now() + seconds(15);
  std::map<std::string, std::uint64_t> states = cluster_->PgStates();
  while (states.count("active+undersized+degraded") == 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(200));
    states = cluster_->PgStates();
  }
  EXPECT_GT(states["active+undersized+degraded"], 0u);
  ec::cluster::admin::StatusReport r = cluster_->ClusterStatus();
  while (r.degraded_objects < held && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(200));
    r = cluster_->ClusterStatus();
  }
  EXPECT_EQ(r.degraded_objects, held);
  EXPECT_EQ(r.degraded_total, 3 * r.num_objects);  // copies, as Ceph counts them
  std::printf("%s", ec::cluster::admin::RenderStatusPlain(r, 0).c_str());
  const std::string degraded_write = "rec-0";
  model[degraded_write] = RandomBytes(rng, 3000);
  ASSERT_TRUE(io.WriteFull(degraded_write, model[degraded_write]).ok());
  {
    auto got = io.Read("rec-1");
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == model["rec-1"]);
  }
  // rec-0 was rewritten while down: a new copy is pulled for it at its new size.
  {
    auto before_map = locator(cluster_->Map());
    auto loc = before_map->LocateObject(io.pool_id(), degraded_write);
    ASSERT_TRUE(loc.ok());
    if (std::find(loc->acting.begin(), loc->acting.end(), victim) != loc->acting.end()) {
      expect -= 4096;  // its old size (i % 4 == 0)
      expect += model[degraded_write].size();
    }
  }

  // Out: each object it held gets its copy pulled by the OSD taking its position, from ONE other
  // replica: the network carries each object's bytes once.
  const auto t0 = Clock::now();
  auto out = cluster_->store->Apply({MapChange::OsdOut(victim, false)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(40)));
  const std::uint64_t got_bytes = cluster_->MetricSum(received) - received_before;
  std::printf(
      "recovery after osd.%d out: %llu objects held, %llu bytes from helpers (objects' "
      "bytes %llu), active+clean after %.1f s\n",
      victim, static_cast<unsigned long long>(held), static_cast<unsigned long long>(got_bytes),
      static_cast<unsigned long long>(expect),
      std::chrono::duration<double>(Clock::now() - t0).count());
  EXPECT_EQ(got_bytes, expect);
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << name;
    EXPECT_FALSE(got->degraded) << name;
  }

  // While it is out some objects change; back in, placement returns its positions and only the
  // changed objects are copied back (one copy each), nothing rebuilt for the others.
  auto out_map = locator(cluster_->Map());
  // rec-0, rewritten while the victim was down, is stale there too.
  std::set<std::string> changed = {degraded_write};
  for (int i = 0; i < 40; i += 4) {
    const std::string name = "rec-" + std::to_string(i + 1);
    model[name] = RandomBytes(rng, 20000);
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok());
    changed.insert(name);
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(20)));
  const std::uint64_t mid = cluster_->MetricSum(received);
  const std::uint64_t mid_rebuilt = cluster_->MetricSum(rebuilt);
  cluster_->Restart(victim);
  auto in = cluster_->store->Apply({MapChange::OsdIn(victim, 0)});
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(40)));
  auto in_map = locator(cluster_->Map());
  std::uint64_t copy_bytes = 0;
  for (const std::string& name : changed) {
    auto a = out_map->LocateObject(io.pool_id(), name);
    auto b = in_map->LocateObject(io.pool_id(), name);
    ASSERT_TRUE(a.ok() && b.ok());
    for (std::size_t p = 0; p < b->acting.size(); ++p) {
      if (a->acting[p] != b->acting[p]) copy_bytes += model[name].size();
    }
  }
  const std::uint64_t net = cluster_->MetricSum(received) - mid;
  const std::uint64_t written = cluster_->MetricSum(rebuilt) - mid_rebuilt;
  std::printf("backfill after osd.%d in: %llu bytes copied (%llu expected), %llu written\n", victim,
              static_cast<unsigned long long>(net), static_cast<unsigned long long>(copy_bytes),
              static_cast<unsigned long long>(written));
  EXPECT_GT(copy_bytes, 0u);
  EXPECT_EQ(net, copy_bytes);
  EXPECT_EQ(written, copy_bytes);
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << name;
  }
}

// `osd pool set rep size N` as Ceph does it: from 3 to 4 every PG places a fourth copy, pulled
// from one other copy (and positions the new placement moved are copied): the network carries
// each object's bytes once per position whose OSD changed, exactly; every object then has 4 equal
// copies. From 4 to 2: 2 copies, everything reads back, min_size lowered to 2. Back to 3.
TEST_F(Replicated, ChangingTheSizeAddsAndDropsCopies) {
  auto io = Pool();
  std::mt19937_64 rng(301);
  std::map<std::string, std::vector<std::byte>> model;
  for (int i = 0; i < 24; ++i) {
    const std::string name = "size-" + std::to_string(i);
    model[name] = RandomBytes(rng, 1000 + rng() % 60000);
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok());
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(30)));
  // Every object of the pool (earlier cases' too, when they share the cluster) with its size.
  auto listed = io.List();
  ASSERT_TRUE(listed.ok());
  std::map<std::string, std::uint64_t> sizes;
  for (const std::string& name : *listed) {
    auto st = io.Stat(name);
    ASSERT_TRUE(st.ok()) << name;
    sizes[name] = st->size;
  }
  const std::string received = "ecstore_recovery_network_bytes_total{pool=\"rep\"}";
  // Sets the size and waits for active+clean; the bytes the pulls received, and the expected:
  // each object's size once per position whose OSD changed.
  auto resize = [&](int size) {
    auto before =
        ec::cluster::ObjectLocator::Make(std::make_shared<const ClusterMap>(cluster_->Map()));
    EXPECT_TRUE(before.ok());
    const std::uint64_t at = cluster_->MetricSum(received);
    ec::cluster::Pool pool = *cluster_->Map().FindPool(kPool);
    pool.size = size;
    pool.min_size = std::min(pool.min_size, size);
    auto applied = cluster_->store->Apply({MapChange::PutPool(pool)});
    EXPECT_TRUE(applied.ok()) << applied.status().ToString();
    EXPECT_TRUE(cluster_->WaitClean(seconds(40)));
    auto after =
        ec::cluster::ObjectLocator::Make(std::make_shared<const ClusterMap>(cluster_->Map()));
    EXPECT_TRUE(after.ok());
    std::uint64_t expect = 0;
    for (const auto& [name, bytes] : sizes) {
      auto a = (*before)->LocateObject(io.pool_id(), name);
      auto b = (*after)->LocateObject(io.pool_id(), name);
      EXPECT_TRUE(a.ok() && b.ok());
      for (std::size_t p = 0; p < b->acting.size(); ++p) {
        if (p >= a->acting.size() || a->acting[p] != b->acting[p]) expect += bytes;
      }
    }
    return std::make_pair(cluster_->MetricSum(received) - at, expect);
  };

  const auto [grown, grown_expect] = resize(4);
  std::printf(
      "size 3 -> 4: %llu bytes pulled (expected %llu: one copy per new or moved position)\n",
      static_cast<unsigned long long>(grown), static_cast<unsigned long long>(grown_expect));
  EXPECT_GT(grown, 0u);
  if (sizes.size() == model.size()) {
    EXPECT_EQ(grown, grown_expect);
  } else {
    // Sharing the cluster with the cases before (not under ctest): their recoveries left copies
    // on OSDs that may take those positions again, with nothing to pull.
    EXPECT_LE(grown, grown_expect);
  }
  for (const auto& [name, bytes] : model) {
    const auto replicas = Replicas(name);
    ASSERT_EQ(replicas.size(), 4u) << name;
    for (std::size_t p = 0; p < replicas.size(); ++p) {
      EXPECT_TRUE(replicas[p].second == bytes) << name << " replica " << p;
    }
  }
  EXPECT_EQ(cluster_->ClusterStatus().degraded_total, 4 * sizes.size());

  // A model-checked workload runs through the shrink and the growth back (every read equals
  // the model, no acknowledged write lost).
  ectest::ObjectModel live;
  ectest::WorkloadCounts n;
  struct Worker {  // stopped and joined however the case ends
    std::atomic<bool> stop{false};
    std::thread thread;
    void Join() {
      stop = true;
      if (thread.joinable()) thread.join();
    }
    ~Worker() { Join(); }
  } worker;
  worker.thread = std::thread([&] {
    ectest::RunWorkload(io, {"live-", 12}, 3030, worker.stop, live, n);
  });
  std::this_thread::sleep_for(seconds(1));
  resize(2);
  EXPECT_EQ(cluster_->Map().FindPool(kPool)->min_size, 2);
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << name;
    EXPECT_FALSE(got->degraded) << name;
    const auto replicas = Replicas(name);
    ASSERT_EQ(replicas.size(), 2u) << name;
    for (const auto& [version, replica] : replicas) EXPECT_TRUE(replica == bytes) << name;
  }
  // Writes go on at size 2, and back at 3 the new copies have them.
  model["size-0"] = RandomBytes(rng, 5000);
  ASSERT_TRUE(io.WriteFull("size-0", model["size-0"]).ok());
  resize(3);
  std::this_thread::sleep_for(seconds(1));
  worker.Join();
  const ec::Status verified = ectest::VerifyAll(io, "live-", live, n);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  std::printf("workload through the size changes: %s\n", n.Summary().c_str());
  const std::vector<std::string> notes = n.Notes();
  for (std::size_t i = 0; i < notes.size() && i < 20; ++i) std::printf("  %s\n", notes[i].c_str());
  EXPECT_EQ(n.mismatches, 0u);
  EXPECT_EQ(n.lost, 0u);
  EXPECT_GT(n.acked, 20u);
  for (const auto& [name, bytes] : model) {
    const auto replicas = Replicas(name);
    ASSERT_EQ(replicas.size(), 3u) << name;
    for (const auto& [version, replica] : replicas) EXPECT_TRUE(replica == bytes) << name;
  }
}

}  // namespace
