// Small objects of an erasure pool kept as copies (issue 30 item 2) on a real local cluster
// (cluster_fixture.h): etcd, five ec-osd processes on hosts h0..h4 and an RS(2,2) pool "small"
// whose objects below 16 KiB are 3 whole copies on their PG's positions 0..2 (position 3 an empty
// shard); the client library in-process.
//
//   CopiesOnTheOsdsAndConversions     a small object is 3 copies and an empty shard on the OSDs'
//                                     stores (asked of each OSD), stat says "replicas"; an append
//                                     that takes it past 16 KiB makes it 4 shards ("erasure"), a
//                                     write_full below makes it copies again; a read with copy 0's
//                                     OSD down reads one other copy
//   AKillDuringAConversionLeavesTheOldOrTheNew
//                                     kill -9 of the primary and of a shard holder during a
//                                     growing write (copies -> shards) and a shrinking one
//                                     (shards -> copies): old or new content, in its own form
//   RecoveryRebuildsBothForms         an OSD down then out: every object reads back (degraded
//                                     first), the OSDs taking its positions pull each copy from one
//                                     other copy and decode each shard, exact bytes on their stores
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cluster/map/map_store.h"
#include "msg/client.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

// Named, around the anonymous one: this file shares its test program (and, in a unity build,
// its translation unit) with another whose helpers have the same names.
namespace small_objects_test {
namespace {

using ec::cluster::MapChange;
using ec::osd::store::testing::RandomBytes;
using ectest::ToVector;
using std::chrono::seconds;

constexpr int kGraceSeconds = 2;
constexpr std::size_t kMinObject = 16384;
const std::string kPool = "small";

struct Shard {
  std::uint64_t version = 0;
  ec::msg::ObjectForm form = ec::msg::ObjectForm::kErasure;
  std::vector<std::byte> bytes;
};

class SmallObjects : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = 5;
    o.grace_seconds = kGraceSeconds;
    ectest::PoolSpec pool{kPool, ectest::RsProfile(2, 2), 4096, 4};
    pool.ec_min_object_size = kMinObject;
    o.pools = {pool};
    StartCluster(std::move(o));
  }

  static ec::cluster::client::IoCtx Pool() { return cluster_->Pool(kPool); }

  // Every position's shard of `name` as its OSD holds it.
  static std::vector<Shard> Shards(const std::string& name) {
    std::vector<Shard> out;
    auto loc = cluster_->Locate(Pool().pool_id(), name);
    EXPECT_TRUE(loc.ok()) << loc.status().ToString();
    if (!loc.ok()) return out;
    for (std::size_t p = 0; p < loc->acting.size(); ++p) {
      ec::msg::ClientOptions co;
      co.port = cluster_->osds[static_cast<std::size_t>(loc->acting[p])]->port();
      auto client = ec::msg::OsdClient::Create(co);
      EXPECT_TRUE(client.ok());
      if (!client.ok()) return out;
      const auto shard = static_cast<std::uint32_t>(p);
      auto st = (*client)->SubState({loc->collection, name, shard});
      EXPECT_TRUE(st.ok()) << st.status().ToString();
      if (!st.ok()) return out;
      out.push_back({st->version, st->form,
                     ectest::ShardBytesOn(**client, loc->collection, name, shard, st->shard_size)});
    }
    return out;
  }

  // `name` is `bytes` kept as 3 copies and an empty shard, all at one version.
  static void ExpectCopies(const std::string& name, const std::vector<std::byte>& bytes) {
    const auto shards = Shards(name);
    ASSERT_EQ(shards.size(), 4u);
    for (std::size_t p = 0; p < 4; ++p) {
      EXPECT_EQ(shards[p].form, ec::msg::ObjectForm::kReplicas) << name << " shard " << p;
      EXPECT_EQ(shards[p].version, shards[0].version) << name << " shard " << p;
      if (p < 3) {
        EXPECT_TRUE(shards[p].bytes == bytes) << name << " copy " << p;
      } else {
        EXPECT_TRUE(shards[p].bytes.empty()) << name << " shard 3 holds bytes";
      }
    }
  }

  static std::string FormOf(const std::string& name) {
    auto st = Pool().Stat(name);
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? st->form : "";
  }
};

TEST_F(SmallObjects, CopiesOnTheOsdsAndConversions) {
  auto io = Pool();
  std::mt19937_64 rng(302);
  auto small = RandomBytes(rng, 3000);
  ASSERT_TRUE(io.WriteFull("s", small).ok());
  EXPECT_EQ(FormOf("s"), "replicas");
  ExpectCopies("s", small);
  // Past the size: four shards of RS(2,2), each at the new version.
  const auto more = RandomBytes(rng, 20000);
  ASSERT_TRUE(io.Append("s", more).ok());
  std::vector<std::byte> grown = small;
  grown.insert(grown.end(), more.begin(), more.end());
  EXPECT_EQ(FormOf("s"), "erasure");
  auto got = io.Read("s");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(ToVector(got->data) == grown);
  const auto shards = Shards("s");
  ASSERT_EQ(shards.size(), 4u);
  for (const Shard& s : shards) {
    EXPECT_EQ(s.form, ec::msg::ObjectForm::kErasure);
    EXPECT_EQ(s.version, shards[0].version);
    EXPECT_FALSE(s.bytes.empty());
    EXPECT_LT(s.bytes.size(), grown.size());
  }
  // A write_full below the size: copies again, shard 3 emptied by the same write.
  const auto shrunk = RandomBytes(rng, 100);
  ASSERT_TRUE(io.WriteFull("s", shrunk).ok());
  EXPECT_EQ(FormOf("s"), "replicas");
  ExpectCopies("s", shrunk);
  // Copy 0's OSD down: the read takes one other copy.
  auto loc = cluster_->Locate(io.pool_id(), "s");
  ASSERT_TRUE(loc.ok());
  const int victim = loc->acting[0];
  ASSERT_TRUE(cluster_->Kill(victim));
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  got = io.Read("s");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(ToVector(got->data) == shrunk);
  cluster_->Restart(victim);
  ASSERT_TRUE(cluster_->WaitClean(seconds(30)));
  auto listed = io.List();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1u);
  ASSERT_TRUE(io.Remove("s").ok());
  EXPECT_EQ(io.Read("s").status().code(), ENOENT);
}

TEST_F(SmallObjects, AKillDuringAConversionLeavesTheOldOrTheNew) {
  auto io = Pool();
  std::mt19937_64 rng(static_cast<std::uint64_t>(ec::osd::store::testing::TestSeed()) + 302);
  for (int round = 0; round < 4; ++round) {
    const std::string name = "conv-" + std::to_string(round);
    // Rounds 0, 1 grow copies into shards; 2, 3 shrink shards into copies. Even rounds kill the
    // primary, odd ones a shard holder.
    const bool grow = round < 2;
    bool ended_new = false;
    const auto bytes = ectest::WriteFullWithAKill(*cluster_, io, name, round, grow ? 200000 : 2000,
                                                  rng, std::chrono::microseconds(4000), &ended_new,
                                                  grow ? 2000 : 200000);
    ASSERT_TRUE(cluster_->WaitClean(seconds(30)));
    const bool copies = bytes.size() < kMinObject;
    EXPECT_EQ(FormOf(name), copies ? "replicas" : "erasure") << name;
    if (copies) ExpectCopies(name, bytes);
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << name;
    std::printf("%s: %s (%s)\n", name.c_str(), ended_new ? "new" : "old",
                copies ? "copies" : "shards");
  }
}

TEST_F(SmallObjects, RecoveryRebuildsBothForms) {
  auto io = Pool();
  std::mt19937_64 rng(303);
  std::map<std::string, std::vector<std::byte>> model;
  for (int i = 0; i < 16; ++i) {
    const std::string name = "rec-" + std::to_string(i);
    model[name] = RandomBytes(rng, i % 4 == 3 ? 50000 : 1000 + 700 * static_cast<std::size_t>(i));
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok());
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(30)));
  const int victim = 2;
  ASSERT_TRUE(cluster_->Kill(victim));
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << name;
  }
  auto out = cluster_->store->Apply({MapChange::OsdOut(victim, false)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(40)));
  for (const auto& [name, bytes] : model) {
    SCOPED_TRACE(name);
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes);
    EXPECT_FALSE(got->degraded);
    if (bytes.size() < kMinObject) {
      ExpectCopies(name, bytes);
    } else {
      for (const Shard& s : Shards(name)) EXPECT_EQ(s.form, ec::msg::ObjectForm::kErasure);
    }
  }
  cluster_->Restart(victim);
  auto in = cluster_->store->Apply({MapChange::OsdIn(victim, 0)});
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(40)));
  for (const auto& [name, bytes] : model) {
    if (bytes.size() < kMinObject) ExpectCopies(name, bytes);
  }
}

}  // namespace
}  // namespace small_objects_test
