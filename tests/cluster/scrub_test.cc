// Scrub, deep scrub, repair and self-healing reads (issue 16 items 2-4) on a real local cluster
// (cluster_fixture.h): etcd, six ec-osd processes, a CLAY(4,2,5) and an RS(4,2) pool.
//
// Faults are injected for real:
//   - bit rot: the OSD is stopped, `ec-osd --locate` names the device bytes of one 4 KiB block
//     of a shard, one byte there is flipped, the OSD starts again (the store's crc32c no longer
//     matches: a read of that block fails as data loss);
//   - a shard with good checksums but wrong bytes: WriteShard (the raw shard write, below the PG
//     layer) replaces one shard's bytes at the object's version (only a deep scrub's parity check
//     can see it);
//   - bytes flipped in an OSD's commit journal, metadata database or superblock (the OSD stopped
//     meanwhile): it starts again, or refuses to (exit 1, saying why) and is replaced.
// Scrubs are asked for as `ec-admin pg deep-scrub` does (a request in etcd) and their results read
// from etcd, as `ec-rados list-inconsistent-obj` does. Scheduled scrubs are off (long intervals),
// so only the requested ones run.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pg_stats.h"
#include "cluster/map/pool_geometry.h"
#include "cluster/map/scrub_record.h"
#include "msg/client.h"
#include "osd/store/store_test_support.h"
#include "osd/store/superblock.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::cluster::ScrubKind;
using ec::cluster::ScrubResult;
using ectest::ToVector;
using std::chrono::milliseconds;
using std::chrono::seconds;

const char* const kPrefix = "/ecstore/";

// `n` random bytes from `seed`.
std::vector<std::byte> Bytes(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  return ec::osd::store::testing::RandomBytes(rng, n);
}

std::int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class Scrub : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = 6;
    o.grace_seconds = 3;
    o.pools = ectest::ClayAndRsPools(4);
    o.pools.push_back(ectest::ReplicatedPool("rep", 3, 4));  // issue 30: 3 copies
    // Issue 30 item 2: an RS(4,2) pool keeping objects below 64 KiB as 3 copies.
    ectest::PoolSpec small{"small", ectest::RsProfile(), 4096, 4};
    small.ec_min_object_size = 65536;
    o.pools.push_back(small);
    o.osd_options = {"osd_scrub_min_interval=1000000s", "osd_deep_scrub_interval=1000000s"};
    StartCluster(std::move(o));
  }

  static ec::cluster::PgLocation Locate(const std::string& pool, const std::string& object) {
    auto loc = cluster_->Locate(cluster_->Pool(pool).pool_id(), object);
    EXPECT_TRUE(loc.ok()) << loc.status().ToString();
    return *loc;
  }

  // The first name "<prefix><i>" whose object lands in PG `pgid` of `pool` ("" if none of 1000).
  static std::string NameInPg(const std::string& pool, const std::string& pgid,
                              const std::string& prefix) {
    for (int i = 0; i < 1000; ++i) {
      const std::string name = prefix + std::to_string(i);
      if (Locate(pool, name).pgid == pgid) return name;
    }
    return "";
  }

  // Flips one byte of 4 KiB block `block` of shard `position` of `object` on the OSD holding it
  // (stopped meanwhile), then waits for the cluster to be clean again.
  static void RotBlock(const ec::cluster::PgLocation& loc, const std::string& object, int position,
                       int block) {
    const int osd = loc.acting[static_cast<std::size_t>(position)];
    ectest::OsdProcess& p = *cluster_->osds[static_cast<std::size_t>(osd)];
    ASSERT_EQ(p.Terminate(), 0);
    auto args = p.BaseArgs();
    args.push_back("--locate");
    args.push_back(loc.collection);
    args.push_back(object + "#" + std::to_string(position));
    ectest::ProcessResult where = ectest::RunOsdTool(args);
    ASSERT_EQ(where.exit_code, 0) << where.out << where.err;
    const auto j = nlohmann::json::parse(where.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << where.out;
    ASSERT_GT(j["blocks"].size(), static_cast<std::size_t>(block)) << where.out;
    const std::int64_t at = j["blocks"][static_cast<std::size_t>(block)]["device_offset"];
    {
      std::fstream f(p.block(), std::ios::in | std::ios::out | std::ios::binary);
      f.seekg(at + 17);
      char c = 0;
      f.read(&c, 1);
      c = static_cast<char>(c ^ 0x5a);
      f.seekp(at + 17);
      f.write(&c, 1);
      ASSERT_TRUE(f.good());
    }
    cluster_->Restart(osd);
    ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  }

  // Replaces the bytes of shard `position` of `object` (at `version`, `size` object bytes) with
  // garbage of the same length through the raw shard write: checksums good, content wrong.
  static void ForgeShard(const ec::cluster::PgLocation& loc, const std::string& object,
                         int position, std::uint64_t version, std::uint64_t object_size,
                         std::size_t shard_size) {
    PutShard(loc, object, position, version, object_size, Bytes(shard_size, 99));
  }

  // A client of the OSD holding shard `position` of `loc`.
  static std::unique_ptr<ec::msg::OsdClient> ClientOf(const ec::cluster::PgLocation& loc,
                                                      int position) {
    const int osd = loc.acting[static_cast<std::size_t>(position)];
    ec::msg::ClientOptions co;
    co.port = cluster_->osds[static_cast<std::size_t>(osd)]->port();
    auto client = ec::msg::OsdClient::Create(co);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  // The bytes shard `position` of `object` holds now, and its version.
  static std::pair<std::vector<std::byte>, std::uint64_t> ShardBytes(
      const ec::cluster::PgLocation& loc, const std::string& object, int position) {
    auto client = ClientOf(loc, position);
    if (!client) return {};
    auto st = client->Stat({loc.collection, object, static_cast<std::uint32_t>(position)});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    if (!st.ok() || st->size == 0) return {{}, st.ok() ? st->version : 0};
    ec::msg::ReadShardRequest r;
    r.collection = loc.collection;
    r.object = object;
    r.shard = static_cast<std::uint32_t>(position);
    r.extents.push_back({0, st->size});
    auto got = client->ReadShard(std::move(r));
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (!got.ok()) return {};
    return {ToVector(got->extents.at(0)), st->version};
  }

  // Rewrites shard `position` of `object` with `bytes` at `version` through the raw shard write
  // (below the PG layer: checksums good, whatever the length), keeping the shard's other
  // attributes (the object's metadata: only the bytes are forged).
  static void PutShard(const ec::cluster::PgLocation& loc, const std::string& object, int position,
                       std::uint64_t version, std::uint64_t object_size,
                       const std::vector<std::byte>& bytes) {
    auto client = ClientOf(loc, position);
    ASSERT_NE(client, nullptr);
    ec::msg::WriteShardRequest w;
    w.collection = loc.collection;
    w.object = object;
    w.shard = static_cast<std::uint32_t>(position);
    w.version = version;
    w.flags = ec::msg::kWriteReplace;
    auto st = client->Stat({loc.collection, object, static_cast<std::uint32_t>(position)});
    if (st.ok()) w.attrs = st->attrs;
    std::erase_if(w.attrs, [](const ec::msg::Attr& a) { return a.key == "ec.object_size"; });
    w.attrs.push_back({"ec.object_size", std::to_string(object_size)});
    ec::Buffer b = ec::Buffer::Allocate(bytes.size(), false);
    if (!bytes.empty()) std::memcpy(b.data(), bytes.data(), bytes.size());
    std::vector<ec::Buffer> payload;
    payload.push_back(std::move(b));
    ec::Status s = client->WriteShard(std::move(w), std::move(payload));
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Asks for a scrub of `pgid` as ec-admin does and waits for its result.
  static ScrubResult RunScrub(const std::string& pgid, ScrubKind kind) {
    const std::int64_t t0 = NowMs();
    ec::etcd::PutRequest put;
    put.key = ec::cluster::ScrubRequestKey(kPrefix, pgid);
    put.value = ec::cluster::EncodeScrubRequest({kind, t0});
    EXPECT_TRUE(cluster_->client->Put(put).ok());
    const auto deadline = Clock::now() + seconds(60);
    while (Clock::now() < deadline) {
      auto kv = cluster_->client->Get(ec::cluster::ScrubResultKey(kPrefix, pgid));
      if (kv.ok()) {
        auto r = ec::cluster::DecodeScrubResult(kv->key, kv->value);
        if (r.ok() && r->stamp_ms >= t0 && r->kind == kind) {
          // The request is deleted once served (right after the result is published).
          bool gone = false;
          for (int i = 0; i < 50 && !gone; ++i) {
            gone = !cluster_->client->Get(ec::cluster::ScrubRequestKey(kPrefix, pgid)).ok();
            if (!gone) std::this_thread::sleep_for(milliseconds(100));
          }
          EXPECT_TRUE(gone) << "the request of pg " << pgid << " is still there";
          return *r;
        }
      }
      std::this_thread::sleep_for(milliseconds(200));
    }
    ADD_FAILURE() << "no " << ec::cluster::ScrubKindName(kind) << " result for pg " << pgid;
    return {};
  }

  static const ec::cluster::InconsistentObject* Find(const ScrubResult& r,
                                                     const std::string& name) {
    for (const auto& o : r.inconsistents) {
      if (o.name == name) return &o;
    }
    return nullptr;
  }

  static std::vector<std::string> ShardErrors(const ec::cluster::InconsistentObject& o, int shard) {
    for (const auto& s : o.shards) {
      if (s.shard == shard) return s.errors;
    }
    return {"(shard not listed)"};
  }

  // Waits until the PG's primary reports `state` for it.
  static bool WaitPgState(const std::string& pgid, const std::string& state) {
    const auto deadline = Clock::now() + seconds(20);
    while (Clock::now() < deadline) {
      auto stats = ec::cluster::LoadPgStats(*cluster_->client, kPrefix);
      if (stats.ok()) {
        for (const auto& [osd, report] : *stats) {
          auto it = report.pgs.find(pgid);
          if (it != report.pgs.end() && it->second.state == state) return true;
        }
      }
      std::this_thread::sleep_for(milliseconds(200));
    }
    return false;
  }

  // Deep scrub against two corruptions in one PG of `pool`: block 0 of shard 1 of object
  // PREFIX"rotten" rots (read_error), shard `forged` of another object is forged with good
  // checksums and `forged_bytes` wrong bytes (ec_hash_error, located by the others). The PG shows
  // +inconsistent; repair rebuilds both from the good shards; a second deep scrub is clean; both
  // objects read back direct and right, and every shard is what a clean write left.
  static void DeepScrubFindsAndRepairs(const std::string& pool, const std::string& prefix,
                                       std::size_t rotten_size, std::size_t forged_size, int forged,
                                       std::size_t forged_bytes) {
    auto io = cluster_->Pool(pool);
    const std::string rotten_name = prefix + "rotten";
    const auto rotten = Bytes(rotten_size, 11);
    ASSERT_TRUE(io.WriteFull(rotten_name, rotten).ok());
    const auto loc = Locate(pool, rotten_name);
    // Another object of the same PG.
    const std::string forged_name = NameInPg(pool, loc.pgid, prefix + "forged");
    ASSERT_FALSE(forged_name.empty());
    const auto forged_content = Bytes(forged_size, 12);
    auto v = io.WriteFull(forged_name, forged_content);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(io.WriteFull(prefix + "bystander" + std::to_string(i),
                               Bytes(5000, 20 + static_cast<std::uint64_t>(i)))
                      .ok());
    }
    std::vector<std::vector<std::byte>> clean_shards;  // of the forged object, as written
    for (std::size_t p = 0; p < loc.acting.size(); ++p) {
      clean_shards.push_back(ShardBytes(loc, forged_name, static_cast<int>(p)).first);
    }

    // A clean shallow scrub first: metadata agrees.
    const ScrubResult shallow = RunScrub(loc.pgid, ScrubKind::kScrub);
    EXPECT_GE(shallow.objects, 2);
    EXPECT_EQ(shallow.errors, 0);

    RotBlock(loc, rotten_name, 1, 0);
    ForgeShard(loc, forged_name, forged, *v, forged_content.size(), forged_bytes);

    const ScrubResult found = RunScrub(loc.pgid, ScrubKind::kDeepScrub);
    EXPECT_EQ(found.errors, 2);
    EXPECT_EQ(found.repaired, 0);
    ASSERT_EQ(found.inconsistents.size(), 2u);
    const auto* r = Find(found, rotten_name);
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(ShardErrors(*r, 1), std::vector<std::string>{"read_error"});
    const auto* f = Find(found, forged_name);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(ShardErrors(*f, forged), std::vector<std::string>{"ec_hash_error"});
    for (int s = 0; s < static_cast<int>(loc.acting.size()); ++s) {
      if (s != forged) {
        EXPECT_TRUE(ShardErrors(*f, s).empty()) << "shard " << s;
      }
    }
    EXPECT_TRUE(WaitPgState(loc.pgid, "active+clean+inconsistent"));
    const auto listed = ec::cluster::ListInconsistentObjJson(found);
    EXPECT_EQ(listed["inconsistents"].size(), 2u) << listed.dump();

    const ScrubResult repaired = RunScrub(loc.pgid, ScrubKind::kRepair);
    EXPECT_EQ(repaired.errors, 2);
    EXPECT_EQ(repaired.repaired, 2);
    EXPECT_TRUE(repaired.inconsistents.empty());
    EXPECT_TRUE(WaitPgState(loc.pgid, "active+clean"));
    EXPECT_GE(cluster_->MetricSum("ecstore_pool_shards_repaired_total{pool=\"" + pool +
                                  "\",reason=\"scrub\"}"),
              2u);

    const ScrubResult again = RunScrub(loc.pgid, ScrubKind::kDeepScrub);
    EXPECT_EQ(again.errors, 0);
    EXPECT_TRUE(again.inconsistents.empty());
    const std::map<std::string, std::vector<std::byte>> expected = {{rotten_name, rotten},
                                                                    {forged_name, forged_content}};
    for (const auto& [name, bytes] : expected) {
      auto got = io.Read(name);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(ToVector(got->data) == bytes) << name;
      EXPECT_FALSE(got->degraded) << name;
    }
    for (std::size_t p = 0; p < loc.acting.size(); ++p) {
      EXPECT_TRUE(ShardBytes(loc, forged_name, static_cast<int>(p)).first == clean_shards[p])
          << "shard " << p;
    }
  }
};

// A client read of an object whose data shard has a rotten block gets the right bytes (rebuilt
// from the others), and the shard is rewritten in the background: the next read is direct.
TEST_F(Scrub, SelfHealingReadRepairsARottenShard) {
  auto io = cluster_->Pool("rs");
  const auto content = Bytes(64 * 1024 + 123, 7);
  ASSERT_TRUE(io.WriteFull("healme", content).ok());
  const auto loc = Locate("rs", "healme");
  // A data shard not on the primary (its read crosses the network, as most do).
  int position = 0;
  while (loc.acting[static_cast<std::size_t>(position)] == loc.primary) ++position;
  ASSERT_LT(position, 4);
  RotBlock(loc, "healme", position, 1);
  const std::string healed = "ecstore_pool_shards_repaired_total{pool=\"rs\",reason=\"read\"}";
  const std::uint64_t before = cluster_->MetricSum(healed);

  auto first = io.Read("healme");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(ToVector(first->data) == content);
  EXPECT_TRUE(first->degraded) << "the rotten shard should have been rebuilt for the read";
  EXPECT_GE(cluster_->MetricSum("ecstore_pool_self_heal_reads_total{pool=\"rs\"}"), 1u);
  const auto deadline = Clock::now() + seconds(20);
  while (cluster_->MetricSum(healed) == before && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(cluster_->MetricSum(healed), before + 1);
  auto second = io.Read("healme");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(ToVector(second->data) == content);
  EXPECT_FALSE(second->degraded) << "the shard should have been repaired";
  // And a deep scrub of its PG finds nothing wrong.
  const ScrubResult clean = RunScrub(loc.pgid, ScrubKind::kDeepScrub);
  EXPECT_EQ(clean.errors, 0);
  EXPECT_TRUE(clean.inconsistents.empty());
}

// Fast EC (issue 28 item 5): a shard whose length is not the one its object's size gives, cut
// short or extended with its own bytes kept (so only the length is wrong), is an I/O error of
// that shard: a client read goes around it (and has it repaired), a scrub reports it as
// ec_size_error, repair rewrites it at the right length, and nothing crashes.
TEST_F(Scrub, AShardOfTheWrongLengthIsAnIoErrorThatRepairFixes) {
  auto io = cluster_->Pool("rs");
  const auto cut_content = Bytes(3 * 16384 + 500, 31);
  ASSERT_TRUE(io.WriteFull("cutshort", cut_content).ok());
  const auto loc = Locate("rs", "cutshort");
  const std::string extended = NameInPg("rs", loc.pgid, "extended");
  ASSERT_FALSE(extended.empty());
  const auto ext_content = Bytes(2 * 16384 + 4096 + 10, 32);
  ASSERT_TRUE(io.WriteFull(extended, ext_content).ok());

  // A data shard not on the primary loses its last 4 KiB; parity shard 4 of the other object
  // gets 4 KiB of zeros more (bytes a padded shard would have: still the wrong length here).
  int data_position = 0;
  while (loc.acting[static_cast<std::size_t>(data_position)] == loc.primary) ++data_position;
  ASSERT_LT(data_position, 4);
  auto [cut_bytes, cut_version] = ShardBytes(loc, "cutshort", data_position);
  ASSERT_GT(cut_bytes.size(), 4096u);
  const std::size_t right_cut = cut_bytes.size();
  cut_bytes.resize(cut_bytes.size() - 4096);
  PutShard(loc, "cutshort", data_position, cut_version, cut_content.size(), cut_bytes);
  auto [ext_bytes, ext_version] = ShardBytes(loc, extended, 4);
  const std::size_t right_ext = ext_bytes.size();
  ext_bytes.resize(ext_bytes.size() + 4096);
  PutShard(loc, extended, 4, ext_version, ext_content.size(), ext_bytes);

  // The shallow scrub sees both lengths.
  const ScrubResult found = RunScrub(loc.pgid, ScrubKind::kScrub);
  EXPECT_EQ(found.errors, 2);
  const auto* c = Find(found, "cutshort");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(ShardErrors(*c, data_position), std::vector<std::string>{"ec_size_error"});
  const auto* e = Find(found, extended);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(ShardErrors(*e, 4), std::vector<std::string>{"ec_size_error"});

  // A client read needs the cut data shard: it is rebuilt from the others (the length is an I/O
  // error of that shard), right.
  auto got = io.Read("cutshort");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(ToVector(got->data) == cut_content);
  EXPECT_TRUE(got->degraded);
  // The other object reads direct from its data shards (the extended parity is not needed).
  auto ext_read = io.Read(extended);
  ASSERT_TRUE(ext_read.ok()) << ext_read.status().ToString();
  EXPECT_TRUE(ToVector(ext_read->data) == ext_content);

  const ScrubResult repaired = RunScrub(loc.pgid, ScrubKind::kRepair);
  EXPECT_EQ(repaired.repaired, repaired.errors);
  EXPECT_TRUE(repaired.inconsistents.empty());
  const ScrubResult again = RunScrub(loc.pgid, ScrubKind::kDeepScrub);
  EXPECT_EQ(again.errors, 0);
  EXPECT_EQ(ShardBytes(loc, "cutshort", data_position).first.size(), right_cut);
  EXPECT_EQ(ShardBytes(loc, extended, 4).first.size(), right_ext);
  for (const auto& [name, content] : std::map<std::string, std::vector<std::byte>>{
           {"cutshort", cut_content}, {extended, ext_content}}) {
    auto r = io.Read(name);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(ToVector(r->data) == content) << name;
    EXPECT_FALSE(r->degraded) << name;
  }
}

// Deep scrub finds a rotten block (read_error) and a shard with good checksums but wrong bytes
// (ec_hash_error: the parity check locates it); the PG shows +inconsistent; repair rebuilds both
// from the good shards; a second deep scrub is clean; both objects read back direct and right.
TEST_F(Scrub, DeepScrubFindsCorruptionAndRepairFixesIt) {
  // Shard 1 of the rotten object is a data shard; parity shard 5 of the forged object: 3 stripes
  // of 4 KiB chunks.
  DeepScrubFindsAndRepairs("clay", "", 3 * 16384 + 500, 2 * 16384 + 77, 5, 3 * 4096);
}

// A replicated pool (issue 30): the deep scrub compares the replicas and names the odd one out (a
// replica forged with good checksums: ec_hash_error on it alone, located by the two others) and a
// rotten replica of another object (read_error); repair copies a good replica over each.
TEST_F(Scrub, ReplicatedDeepScrubNamesTheOddReplicaAndRepairFixesIt) {
  DeepScrubFindsAndRepairs("rep", "rep-", 3 * 4096 + 500, 2 * 4096 + 77, 2, 2 * 4096 + 77);
}

// Small objects of an erasure pool kept as 3 copies (issue 30 item 2): the deep scrub compares
// the copies as a replicated pool's (a copy forged with good checksums named alone, a rotten copy
// of another object read_error) and repair copies a good copy over each; the empty shards past
// the copies stay empty.
TEST_F(Scrub, SmallObjectCopiesAreScrubbedAndRepairedAsReplicas) {
  DeepScrubFindsAndRepairs("small", "small-", 3 * 4096 + 500, 2 * 4096 + 77, 2, 2 * 4096 + 77);
}

// The object's metadata (issue 29) forged on one shard below the PG layer, its bytes left alone:
// an xattr's value on one shard and the mtime on another. A shallow scrub finds both
// (attr_value_mismatch, object_info_inconsistency), repair rewrites the two shards from the good
// ones, the next deep scrub is clean and every shard holds the object's metadata again.
TEST_F(Scrub, AShardWithOtherMetadataIsFoundAndRepaired) {
  auto io = cluster_->Pool("rs");
  const auto content = Bytes(2 * 16384 + 100, 41);
  ASSERT_TRUE(io.WriteFull("tagged", content).ok());
  ASSERT_TRUE(io.SetXattr("tagged", "owner", "alice").ok());
  ASSERT_TRUE(io.SetXattr("tagged", "empty", "").ok());
  const auto loc = Locate("rs", "tagged");
  const ScrubResult clean = RunScrub(loc.pgid, ScrubKind::kScrub);
  EXPECT_EQ(clean.errors, 0);

  // Shard 1's "owner" and shard 4's mtime, each merged into the shard's record at its version.
  auto forge = [&](int position, const std::string& key, const std::string& value) {
    auto client = ClientOf(loc, position);
    ASSERT_NE(client, nullptr);
    auto st = client->Stat({loc.collection, "tagged", static_cast<std::uint32_t>(position)});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    ec::msg::WriteShardRequest w{loc.collection, "tagged", static_cast<std::uint32_t>(position),
                                 st->version,    0,        0,
                                 {{key, value}}};
    ASSERT_TRUE(client->WriteShard(std::move(w), {}).ok());
  };
  forge(1, "_owner", "mallory");
  forge(4, "ec.mtime", "1000000");
  const ScrubResult found = RunScrub(loc.pgid, ScrubKind::kScrub);
  const auto* f = Find(found, "tagged");
  ASSERT_NE(f, nullptr) << found.errors;
  EXPECT_EQ(f->errors,
            (std::vector<std::string>{"attr_value_mismatch", "object_info_inconsistency"}));

  const ScrubResult repaired = RunScrub(loc.pgid, ScrubKind::kRepair);
  EXPECT_EQ(repaired.repaired, 2);
  EXPECT_TRUE(repaired.inconsistents.empty());
  const ScrubResult again = RunScrub(loc.pgid, ScrubKind::kDeepScrub);
  EXPECT_EQ(again.errors, 0);
  auto owner = io.GetXattr("tagged", "owner");
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_EQ(*owner, "alice");
  auto stat = io.Stat("tagged");
  ASSERT_TRUE(stat.ok());
  for (int p : {1, 4}) {
    auto client = ClientOf(loc, p);
    ASSERT_NE(client, nullptr);
    auto st = client->Stat({loc.collection, "tagged", static_cast<std::uint32_t>(p)});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    std::map<std::string, std::string> attrs;
    for (const auto& a : st->attrs) attrs[a.key] = a.value;
    EXPECT_EQ(attrs["_owner"], "alice") << p;
    EXPECT_EQ(attrs["_empty"], "") << p;
    EXPECT_EQ(attrs["ec.mtime"], std::to_string(stat->mtime)) << p;
  }
  auto got = io.Read("tagged");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(ToVector(got->data) == content);
}

// Random bit rot on random OSDs, one block of one shard per object (at most m per object would
// still read; one keeps every object repairable): every read returns the right bytes, a deep
// scrub of each PG finds every injected fault that a read has not healed, repair fixes them, and
// a last deep scrub of every PG is clean.
TEST_F(Scrub, RandomBitRotIsAlwaysDetectedAndRepaired) {
  auto io = cluster_->Pool("rs");
  std::mt19937_64 rng(1606);
  std::map<std::string, std::vector<std::byte>> model;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "rot" + std::to_string(i);
    model[name] =
        Bytes(4096 * (1 + rng() % 12) + rng() % 4096, 100 + static_cast<std::uint64_t>(i));
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok());
  }
  // Four faults, on objects picked at random, positions at random (data or parity).
  std::map<std::string, int> faults;
  while (faults.size() < 4) {
    auto it = model.begin();
    std::advance(it, static_cast<long>(rng() % model.size()));
    if (faults.count(it->first) != 0) continue;
    const int position = static_cast<int>(rng() % 6);
    faults[it->first] = position;
  }
  std::map<std::string, std::set<std::string>> by_pg;
  for (const auto& [name, position] : faults) {
    const auto loc = Locate("rs", name);
    RotBlock(loc, name, position, 0);
    by_pg[loc.pgid].insert(name);
  }
  // Half the faulty objects are read first: a fault in a data shard is met by the read and healed
  // (a parity shard is not read); every other fault is left for the scrub.
  const std::string healed = "ecstore_pool_shards_repaired_total{pool=\"rs\",reason=\"read\"}";
  const std::uint64_t healed_before = cluster_->MetricSum(healed);
  int n = 0;
  std::uint64_t healed_by_reads = 0;
  for (const auto& [name, position] : faults) {
    if (n++ % 2 != 0) continue;
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == model[name]) << name;
    EXPECT_EQ(got->degraded, position < 4) << name << " shard " << position;
    if (position < 4) ++healed_by_reads;
  }
  const auto deadline = Clock::now() + seconds(20);
  while (cluster_->MetricSum(healed) < healed_before + healed_by_reads && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(100));
  }
  EXPECT_EQ(cluster_->MetricSum(healed), healed_before + healed_by_reads);
  std::int64_t found = 0;
  for (const auto& [pgid, names] : by_pg) {
    const ScrubResult r = RunScrub(pgid, ScrubKind::kRepair);
    found += r.errors;
    EXPECT_EQ(r.repaired, r.errors) << pgid;
    EXPECT_TRUE(r.inconsistents.empty()) << pgid;
  }
  // Every fault was met: by a read or by the scrub.
  EXPECT_EQ(static_cast<std::uint64_t>(found) + healed_by_reads, faults.size());
  for (const auto& [pgid, names] : by_pg) {
    const ScrubResult r = RunScrub(pgid, ScrubKind::kDeepScrub);
    EXPECT_EQ(r.errors, 0) << pgid;
  }
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << name;
    EXPECT_FALSE(got->degraded) << name;
  }
}

// Corruption elsewhere than in data blocks (issue 16: "data blocks, metadata, journal"), one OSD
// each: bytes flipped at random offsets of its commit journal (the ring on the device), in its
// metadata database (a RocksDB table file), and in its superblock. Each OSD is stopped (SIGTERM),
// damaged, and checked offline (`ec-osd --fsck`). A store that still opens is started again (the
// journal's records carry their own crc32c); one that does not is refused with exit 1 and a
// message naming the store (never a crash), and is replaced as an operator would: `osd rm`, a new
// store under the same id (mkfs), started, filled by recovery. Afterwards every PG is
// active+clean, every object reads back right and not degraded, and a repair scrub of every PG
// leaves nothing inconsistent.
TEST_F(Scrub, CorruptJournalMetadataOrSuperblockIsDetectedAndRepaired) {
  std::mt19937_64 rng(2711);
  std::map<std::pair<std::string, std::string>, std::vector<std::byte>> model;  // (pool, object)
  for (const char* pool : {"clay", "rs"}) {
    auto io = cluster_->Pool(pool);
    for (int i = 0; i < 10; ++i) {
      const std::string name = fmt::format("dmg-{}-{}", pool, i);
      auto bytes = Bytes(4096 * (1 + rng() % 10) + rng() % 4096, rng());
      ASSERT_TRUE(io.WriteFull(name, bytes).ok()) << name;
      model[{pool, name}] = std::move(bytes);
    }
  }
  // `n` bytes flipped at random offsets of [from, from + len) of `file`.
  auto flip = [&](const std::filesystem::path& file, std::uint64_t from, std::uint64_t len, int n) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.good()) << file;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t at = from + rng() % len;
      char c = 0;
      f.seekg(static_cast<std::streamoff>(at));
      f.read(&c, 1);
      c = static_cast<char>(c ^ 0x5a);
      f.seekp(static_cast<std::streamoff>(at));
      f.write(&c, 1);
    }
    ASSERT_TRUE(f.good()) << file;
  };
  enum class Part { kJournal, kMetadata, kSuperblock };
  int replaced = 0;
  for (const Part part : {Part::kJournal, Part::kMetadata, Part::kSuperblock}) {
    const int osd = static_cast<int>(part);
    SCOPED_TRACE(fmt::format("osd.{}, {}", osd,
                             part == Part::kJournal    ? "journal"
                             : part == Part::kMetadata ? "metadata database"
                                                       : "superblock"));
    ectest::OsdProcess& p = *cluster_->osds[static_cast<std::size_t>(osd)];
    ASSERT_EQ(p.Terminate(), 0);
    const std::filesystem::path data = p.block().parent_path();
    if (part == Part::kJournal) {
      std::vector<std::byte> block(4096);
      {
        std::ifstream f(p.block(), std::ios::binary);
        f.read(reinterpret_cast<char*>(block.data()), 4096);
      }
      auto sb = ec::osd::store::Superblock::Decode(block);
      ASSERT_TRUE(sb.ok()) << sb.status().ToString();
      ASSERT_GT(sb->journal_blocks, 0u);
      flip(p.block(), sb->journal_block * 4096, sb->journal_blocks * 4096, 32);
    } else if (part == Part::kMetadata) {
      std::filesystem::path table;
      for (const auto& e : std::filesystem::directory_iterator(data / "db")) {
        if (e.path().extension() == ".sst" &&
            (table.empty() || e.file_size() > std::filesystem::file_size(table))) {
          table = e.path();
        }
      }
      ASSERT_FALSE(table.empty()) << "no table file in " << data / "db";
      flip(table, 0, std::filesystem::file_size(table), 4);
    } else {
      flip(p.block(), 0, 56, 1);  // magic, version, uuid, size, journal place (crc'd)
    }
    auto args = p.BaseArgs();
    args.push_back("--fsck");
    const ectest::ProcessResult fsck = ectest::RunOsdTool(args);
    std::printf("osd.%d, %s damaged: fsck exit %d%s%s", osd,
                part == Part::kJournal    ? "journal"
                : part == Part::kMetadata ? "metadata table"
                                          : "superblock",
                fsck.exit_code, fsck.exit_code == 0 ? "" : ": ", fsck.err.c_str());
    if (fsck.exit_code == 0) {
      std::printf("\n");
      cluster_->Restart(osd);
    } else {
      // Refused, not crashed, and saying why.
      EXPECT_EQ(fsck.exit_code, 1) << fsck.err;
      EXPECT_NE(fsck.err.find("cannot open the store of osd." + std::to_string(osd)),
                std::string::npos)
          << fsck.err;
      if (part == Part::kJournal) ADD_FAILURE() << "a damaged journal made the store unusable";
      ++replaced;
      ASSERT_TRUE(cluster_->store->Apply({ec::cluster::MapChange::RemoveOsd(osd)}).ok());
      std::filesystem::remove_all(data);
      ASSERT_EQ(cluster_->Mkfs(osd).exit_code, 0);
      cluster_->Restart(osd);
    }
    ASSERT_TRUE(cluster_->WaitClean(seconds(120))) << cluster_->DescribeOsds();
    for (const auto& [key, bytes] : model) {
      auto got = cluster_->Pool(key.first).Read(key.second);
      ASSERT_TRUE(got.ok()) << key.second << ": " << got.status().ToString();
      EXPECT_TRUE(ToVector(got->data) == bytes) << key.second;
    }
  }
  // The superblock and the table file are checked at open: those stores were replaced.
  EXPECT_GE(replaced, 2);
  const auto map = std::make_shared<const ec::cluster::ClusterMap>(cluster_->Map());
  for (const auto& [id, pool] : map->pools) {
    for (std::uint32_t pg = 0; pg < pool.pg_num; ++pg) {
      const std::string pgid = ec::cluster::PgName(id, pg);
      const ScrubResult r = RunScrub(pgid, ScrubKind::kRepair);
      EXPECT_EQ(r.repaired, r.errors) << pgid;
      EXPECT_TRUE(r.inconsistents.empty()) << pgid;
    }
  }
  for (const auto& [key, bytes] : model) {
    auto got = cluster_->Pool(key.first).Read(key.second);
    ASSERT_TRUE(got.ok()) << key.second << ": " << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes) << key.second;
    EXPECT_FALSE(got->degraded) << key.second;
  }
}

}  // namespace
