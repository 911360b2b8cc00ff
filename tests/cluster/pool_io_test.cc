// Objects through pools on a real local cluster (issue 14, cluster_fixture.h): a real etcd, six
// real ec-osd processes (hosts h0..h5) and the client library in-process. The test cases of one
// process share one cluster; ctest runs each case in a process of its own (so the cases that
// count a pool's objects or bytes count only their own), and a case that kills OSDs starts them
// again before it ends.
//
//   RoundTrip          write_full / write at offsets / append / read ranges / stat / remove / ls
//                      against a model, in an RS(4,2) and a CLAY(4,2,5) pool
//   DegradedRead       one OSD down: reads are right, degraded, and their network bytes are
//                      exactly the chosen plan's (the plan computed here for the same shards)
//   CallbackCalls      the Aio* calls chained from their completions, inline reads counted,
//                      errors through the callback, a read retried across its primary's kill
//   TooFewShards       three OSDs down: EIO naming the PG and the missing shards, quickly
//   ModelWithKills     a random workload of writes, overwrites, appends, reads and removes while
//                      one and then m=2 OSDs are killed (-9) and restarted: every read equals the
//                      model; an operation that failed left the object entirely old or entirely
//                      new; no acknowledged write is lost
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include "cluster/admin/status_report.h"
#include "cluster/client/rados.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "cluster/map/pg_stats.h"
#include "ec/plugin.h"
#include "ec/stripe_codec.h"
#include "ec/stripe_layout.h"
#include "msg/client.h"
#include "osd/store/store_test_support.h"
#include "recovery/object_read.h"
#include "recovery/stored_shard_source.h"
#include "recovery/testing/memory_shard_source.h"
#include "tests/cluster/cluster_fixture.h"
#include "tests/cluster/model_workload.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::Buffer;
using ec::Status;
using ec::cluster::ClusterMap;
using ec::cluster::MapChange;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kOsds = 6;
constexpr int kGraceSeconds = 2;

using ec::osd::store::testing::RandomBytes;
using ectest::ToVector;

// The pools of the test cluster: RS(4,2) isa and CLAY(4,2,5) with stripe units 4 KiB ("rs",
// "clay") and 32 KiB ("rs32", "clay32"), and RS(5,1) isa, where a small overwrite reads 2 chunks
// by parity delta instead of 4 by re-encoding its stripe. All of them store shards without
// padding (Fast EC, what new pools get) but "rs_padded", an RS(4,2) pool in the padded layout of
// pools made before it.
const std::vector<std::string> kPools = {"rs", "clay", "rs51", "rs32", "clay32", "rs_padded"};
// One more pool, used by the recovery case only: SHEC(4,2,1) (technique single: parities 1100 and
// 0011), which rebuilds any one lost shard from 2 shards instead of k=4. Not in kPools: it
// tolerates one arbitrary loss (c=1), not the two the model-checked workload kills.
const std::string kShecPool = "shec";

ec::Profile ProfileOf(const std::string& pool) {
  if (pool == kShecPool) {
    return {{"plugin", "shec"},
            {"k", "4"},
            {"m", "2"},
            {"c", "1"},
            {"technique", "single"},
            {"crush-failure-domain", "host"}};
  }
  if (pool.starts_with("clay")) return ectest::ClayProfile();
  return pool == "rs51" ? ectest::RsProfile(5, 1) : ectest::RsProfile();
}

std::uint32_t StripeUnitOf(const std::string& pool) {
  return pool.ends_with("32") ? 32768 : 4096;
}

std::vector<ectest::PoolSpec> PoolSpecs() {
  std::vector<ectest::PoolSpec> specs;
  for (const std::string& pool : kPools)
    specs.push_back({pool, ProfileOf(pool), StripeUnitOf(pool), 8, pool != "rs_padded"});
  specs.push_back({kShecPool, ProfileOf(kShecPool), StripeUnitOf(kShecPool)});
  return specs;
}

class PoolIo : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = kOsds;
    o.pools = PoolSpecs();
    o.grace_seconds = kGraceSeconds;
    StartCluster(std::move(o));
  }

  ec::cluster::client::IoCtx Pool(const std::string& name) { return cluster_->Pool(name); }

  // Calls fn(position, a client of that shard's OSD, the PG's collection) for every shard of
  // `name` in `io`'s pool, in position order (a position whose OSD cannot be reached fails the
  // test and is skipped).
  template <typename Fn>
  void ForEachShard(ec::cluster::client::IoCtx& io, const std::string& name, Fn fn) {
    auto loc = cluster_->Locate(io.pool_id(), name);
    ASSERT_TRUE(loc.ok()) << loc.status().ToString();
    for (std::size_t p = 0; p < loc->acting.size(); ++p) {
      ec::msg::ClientOptions co;
      co.port = cluster_->osds[static_cast<std::size_t>(loc->acting[p])]->port();
      auto client = ec::msg::OsdClient::Create(co);
      EXPECT_TRUE(client.ok()) << client.status().ToString();
      if (client.ok()) fn(static_cast<std::uint32_t>(p), **client, loc->collection);
    }
  }
};

TEST_F(PoolIo, RoundTripRangesAppendsRemove) {
  std::mt19937_64 rng(1);
  for (const std::string& pool : kPools) {
    SCOPED_TRACE(pool);
    auto io = Pool(pool);
    std::map<std::string, std::vector<std::byte>> model;
    for (std::size_t size : {0ul, 1ul, 4095ul, 16384ul, 100000ul, 1ul << 20}) {
      const std::string name = "obj-" + std::to_string(size);
      model[name] = RandomBytes(rng, size);
      auto v = io.WriteFull(name, model[name]);
      ASSERT_TRUE(v.ok()) << v.status().ToString();
    }
    // Overwrites inside, across stripe boundaries, past the end; appends.
    auto& big = model["obj-100000"];
    for (auto [off, len] : std::vector<std::pair<std::size_t, std::size_t>>{
             {0, 10}, {16380, 10}, {50000, 30000}, {99990, 100}, {120000, 5}}) {
      auto bytes = RandomBytes(rng, len);
      ASSERT_TRUE(io.Write("obj-100000", bytes, off).ok());
      if (big.size() < off + len) big.resize(off + len);
      std::copy(bytes.begin(), bytes.end(), big.begin() + static_cast<std::ptrdiff_t>(off));
    }
    auto tail = RandomBytes(rng, 7000);
    ASSERT_TRUE(io.Append("obj-1", tail).ok());
    model["obj-1"].insert(model["obj-1"].end(), tail.begin(), tail.end());

    for (const auto& [name, bytes] : model) {
      auto whole = io.Read(name);
      ASSERT_TRUE(whole.ok()) << name << ": " << whole.status().ToString();
      EXPECT_EQ(ToVector(whole->data), bytes) << name;
      EXPECT_FALSE(whole->degraded);
      auto st = io.Stat(name);
      ASSERT_TRUE(st.ok());
      EXPECT_EQ(st->size, bytes.size());
      for (int i = 0; i < 5 && !bytes.empty(); ++i) {
        const std::size_t off = rng() % bytes.size();
        const std::size_t len = 1 + rng() % 20000;
        auto part = io.Read(name, off, len);
        ASSERT_TRUE(part.ok()) << part.status().ToString();
        const std::size_t want = std::min(len, bytes.size() - off);
        EXPECT_EQ(ToVector(part->data),
                  std::vector<std::byte>(bytes.begin() + static_cast<std::ptrdiff_t>(off),
                                         bytes.begin() + static_cast<std::ptrdiff_t>(off + want)));
      }
    }
    // A read past the end is an error; a missing object is ENOENT.
    EXPECT_EQ(io.Read("obj-1", 1u << 30, 1).status().code(), EINVAL);
    EXPECT_EQ(io.Read("no-such-object").status().code(), ENOENT);
    EXPECT_EQ(io.Stat("no-such-object").status().code(), ENOENT);
    EXPECT_EQ(io.Write(std::string(5000, 'x'), tail, 0).status().code(), ENAMETOOLONG);
    EXPECT_EQ(
        io.Write(std::string(ec::cluster::kMaxObjectNameLen + 1, 'x'), tail, 0).status().code(),
        ENAMETOOLONG);
    const std::string longest(ec::cluster::kMaxObjectNameLen, 'n');
    ASSERT_TRUE(io.WriteFull(longest, tail).ok());
    ASSERT_TRUE(io.Write(longest, tail, 100).ok());  // a range write keeps an undo record too
    auto long_read = io.Read(longest);
    ASSERT_TRUE(long_read.ok()) << long_read.status().ToString();
    EXPECT_EQ(long_read->data.size(), 100 + tail.size());
    ASSERT_TRUE(io.Remove(longest).ok());

    auto listed = io.List();
    ASSERT_TRUE(listed.ok());
    std::vector<std::string> names = *listed;
    std::sort(names.begin(), names.end());
    std::vector<std::string> expected;
    for (const auto& [name, bytes] : model) expected.push_back(name);
    EXPECT_EQ(names, expected);

    ASSERT_TRUE(io.Remove("obj-4095").ok());
    EXPECT_EQ(io.Read("obj-4095").status().code(), ENOENT);
    EXPECT_EQ(io.Remove("obj-4095").code(), ENOENT);
    // Written again after its remove.
    ASSERT_TRUE(io.WriteFull("obj-4095", tail).ok());
    auto again = io.Read("obj-4095");
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(ToVector(again->data), tail);
  }
  EXPECT_EQ(cluster_->rados->OpenPool("nope").status().code(), ENOENT);
  // Every primary reached the shard it holds itself in process: not one sub-operation crossed
  // the network from an OSD to itself, and the in-process ones were many.
  EXPECT_EQ(cluster_->MetricSum("ecstore_osd_self_messages_total"), 0u);
  EXPECT_GT(cluster_->MetricSum("ecstore_osd_local_subops_total{op=\"sub_write\"}"), 0u);
  EXPECT_GT(cluster_->MetricSum("ecstore_osd_local_subops_total{op=\"sub_state\"}"), 0u);
}

// The code of `pool` and its layout as the OSDs use it (stored shards without padding but in
// "rs_padded").
std::pair<ec::ErasureCodeInterfaceRef, ec::StripeLayout> CodeOf(const std::string& pool) {
  ec::Profile profile = ProfileOf(pool);
  ec::ErasureCodeInterfaceRef code;
  EXPECT_TRUE(
      ec::PluginRegistry::instance()
          .factory(profile.at("plugin"), ec::PluginRegistry::default_directory(), profile, &code)
          .ok());
  auto layout =
      ec::StripeLayout::Make(*code, StripeUnitOf(pool),
                             pool == "rs_padded" ? ec::Padding::kWholeStripes : ec::Padding::kNone);
  EXPECT_TRUE(layout.ok());
  return {code, layout.ok() ? *layout : ec::StripeLayout{}};
}

// The plan the primary must choose for a read of [off, off+len) of `bytes` in `pool` with the
// shards of `available` (the primary's own at `local`): priced on an in-memory copy of the shards
// by the same engine, so the OSD's counters can be held to it byte for byte.
ec::recovery::ReadCost ExpectedCost(const std::string& pool, const std::vector<std::byte>& bytes,
                                    std::uint64_t off, std::uint64_t len,
                                    const std::vector<int>& available, int local) {
  auto [code, stored_layout] = CodeOf(pool);
  auto layout = ec::StripeLayout::Make(*code, StripeUnitOf(pool));
  EXPECT_TRUE(layout.ok());
  ec::recovery::RepairEngine engine(code, *layout);
  ec::StripeCodec codec(*code, *layout);
  auto shards = codec.EncodeToShards(bytes);
  EXPECT_TRUE(shards.ok());
  // The shards as the OSDs store them, and the plan priced for that (as the primary does).
  ec::recovery::testing::MemoryShardSource memory;
  ec::recovery::ObjectReadRequest req;
  req.object_size = bytes.size();
  req.offset = off;
  req.length = len;
  ec::recovery::ReadCostModel model;
  for (int p = 0; p < static_cast<int>(stored_layout.chunk_count()); ++p) {
    model.stored[p] = stored_layout.stored_size(bytes.size(), p);
  }
  for (int p : available) {
    auto v = ToVector((*shards)[p]);
    v.resize(model.stored[p]);
    memory.SetShard(p, std::move(v));
    req.available[p] = p == local ? 0 : 1;
  }
  model.local.insert(local);
  req.cost = model;
  ec::recovery::StoredShardSource source(&memory, model.stored);
  auto got = ec::recovery::ReadObjectRange(engine, source, req);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? got->cost : ec::recovery::ReadCost{};
}

// The helper bytes a pull that rebuilds shard `lost` of `bytes` in `pool` reads: the repair
// engine's plan over the shards as stored (nothing past a shard's stored length is read).
std::uint64_t RebuildReadBytes(const std::string& pool, const std::vector<std::byte>& bytes,
                               int lost) {
  auto [code, layout] = CodeOf(pool);
  if (layout.stored_size(bytes.size(), lost) == 0) return 0;  // nothing to rebuild
  auto padded = ec::StripeLayout::Make(*code, StripeUnitOf(pool));
  EXPECT_TRUE(padded.ok());
  auto shards = ec::StripeCodec(*code, *padded).EncodeToShards(bytes);
  EXPECT_TRUE(shards.ok());
  ec::recovery::testing::MemoryShardSource memory;
  std::map<int, std::uint64_t> stored;
  ec::recovery::RepairRequest rr;
  rr.want = {lost};
  for (int p = 0; p < static_cast<int>(layout.chunk_count()); ++p) {
    stored[p] = layout.stored_size(bytes.size(), p);
    if (p == lost) continue;
    auto v = ToVector((*shards)[p]);
    v.resize(stored[p]);
    memory.SetShard(p, std::move(v));
    rr.available[p] = 1;
  }
  rr.stripes = layout.stripes_of(bytes.size());
  rr.cost = ec::recovery::ReadCostModel{};
  for (const auto& [p, n] : stored) {
    if (p != lost) rr.cost->stored[p] = n;
  }
  ec::recovery::StoredShardSource source(&memory, stored);
  ec::recovery::RepairEngine engine(code, layout);
  auto got = engine.Rebuild(rr, source);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  std::uint64_t total = 0;
  for (const auto& [p, n] : memory.bytes_per_shard()) total += n;
  return total;
}

// Fast EC (issue 28): every shard holds exactly what the object's size gives it (its
// StripeLayout::stored_size, asked of each shard's OSD), in every pool, after writes, overwrites
// and appends; a new 4 KiB object in the RS(4,2) pools (4 KiB and 32 KiB stripe units) and the
// CLAY(4,2,5) pool with 4 KiB units puts 12 KiB on 3 shards and nothing on the other three; the
// padded pool keeps whole stripes.
TEST_F(PoolIo, ShardsStoreOnlyWhatTheObjectsDataReaches) {
  std::mt19937_64 rng(28);
  for (const std::string& pool : kPools) {
    SCOPED_TRACE(pool);
    auto io = Pool(pool);
    const ec::StripeLayout stored_layout = CodeOf(pool).second;
    const ec::StripeLayout* layout = &stored_layout;
    // Each shard's length on its OSD against the layout's; the total.
    auto stored_total = [&](const std::string& name, std::uint64_t size) {
      std::uint64_t total = 0;
      ForEachShard(io, name,
                   [&](std::uint32_t p, ec::msg::OsdClient& client, const std::string& collection) {
                     auto st = client.Stat({collection, name, p});
                     EXPECT_TRUE(st.ok()) << "shard " << p << ": " << st.status().ToString();
                     if (!st.ok()) return;
                     EXPECT_EQ(st->size, layout->stored_size(size, static_cast<int>(p)))
                         << name << " (" << size << " bytes) shard " << p;
                     total += st->size;
                   });
      return total;
    };
    for (std::uint64_t size : {1ull, 4096ull, 5000ull, 16385ull, 100000ull}) {
      const std::string name = "stored-" + std::to_string(size);
      auto bytes = RandomBytes(rng, size);
      ASSERT_TRUE(io.WriteFull(name, bytes).ok());
      const std::uint64_t total = stored_total(name, size);
      if ((pool == "rs" || pool == "rs32" || pool == "clay") && size == 4096) {
        // One data chunk and two parity chunks of 4 KiB, with 4 KiB or 32 KiB stripe units
        // (padded: 24 KiB, and 192 KiB with 32 KiB units); CLAY's parity keeps whole chunks.
        EXPECT_EQ(total, 12288u);
      }
      if (pool == "rs_padded") {
        EXPECT_EQ(total, 6 * layout->padded_shard_size(size));
      }
      // An overwrite inside and an append past the end: the stored lengths follow the size.
      auto patch = RandomBytes(rng, std::min<std::uint64_t>(size, 700));
      const std::uint64_t off = size - patch.size();
      ASSERT_TRUE(io.Write(name, patch, off).ok());
      std::copy(patch.begin(), patch.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off));
      auto tail = RandomBytes(rng, 3000);
      ASSERT_TRUE(io.Append(name, tail).ok());
      bytes.insert(bytes.end(), tail.begin(), tail.end());
      stored_total(name, bytes.size());
      auto got = io.Read(name);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(ToVector(got->data) == bytes) << name;
      EXPECT_FALSE(got->degraded);
    }
  }
}

// Partial writes (issue 28 item 2): a 4 KiB overwrite inside a 64 KiB object goes to the data
// shard it changes and to every parity shard; the other data shards keep their version (asked of
// each shard's OSD with SubState), and the object reads back whole. (Degraded reads across the
// versions: osd/pg/object_io_test.cc; under faults: the thrasher.)
TEST_F(PoolIo, AnOverwriteChangesOnlyItsDataShardAndTheParity) {
  std::mt19937_64 rng(282);
  std::vector<std::string> pools = kPools;
  pools.push_back(kShecPool);
  for (const std::string& pool : pools) {
    SCOPED_TRACE(pool);
    auto io = Pool(pool);
    const ec::StripeLayout layout = CodeOf(pool).second;
    const std::string name = "partial";
    auto bytes = RandomBytes(rng, 65536);
    ASSERT_TRUE(io.WriteFull(name, bytes).ok());
    auto versions = [&]() {
      std::vector<std::uint64_t> out;
      ForEachShard(io, name,
                   [&](std::uint32_t p, ec::msg::OsdClient& client, const std::string& collection) {
                     auto st = client.SubState({collection, name, p});
                     EXPECT_TRUE(st.ok()) << "shard " << p << ": " << st.status().ToString();
                     out.push_back(st.ok() ? st->version : 0);
                   });
      return out;
    };
    const std::vector<std::uint64_t> before = versions();
    ASSERT_EQ(before.size(), layout.chunk_count());
    // 4 KiB at 20 KiB: one data chunk (stripe 1, chunk 1 with 4 KiB units; stripe 0, chunk 0
    // with 32 KiB units; RS(5,1): stripe 1, chunk 0).
    auto patch = RandomBytes(rng, 4096);
    ASSERT_TRUE(io.Write(name, patch, 20480).ok());
    std::copy(patch.begin(), patch.end(), bytes.begin() + 20480);
    const std::vector<std::uint64_t> after = versions();
    ASSERT_EQ(after.size(), before.size());
    std::vector<int> changed;
    for (std::size_t p = 0; p < after.size(); ++p) {
      if (after[p] != before[p]) changed.push_back(static_cast<int>(p));
    }
    const std::size_t C = layout.chunk_size();
    const int piece = static_cast<int>((20480 % layout.stripe_width()) / C);
    std::vector<int> want = {layout.data_ids()[static_cast<std::size_t>(piece)]};
    for (int id : layout.parity_ids()) want.push_back(id);
    std::sort(want.begin(), want.end());
    EXPECT_EQ(changed, want);
    auto got = io.Read(name);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == bytes);
    EXPECT_FALSE(got->degraded);
  }
}

TEST_F(PoolIo, DegradedReadsReadTheChosenPlanExactly) {
  std::mt19937_64 rng(2);
  struct Case {
    std::string pool;
    std::vector<std::byte> bytes;
    ec::cluster::PgLocation loc;
  };
  std::vector<Case> cases;
  // The OSD we kill holds a data shard of one object per pool, and is not its primary. The shec
  // pool too: its degraded reads decode from its shingle, fewer than k shards.
  int victim = -1;
  std::vector<std::string> pools = kPools;
  pools.push_back(kShecPool);
  for (const std::string& pool : pools) {
    auto io = Pool(pool);
    const std::size_t k = pool == "rs51" ? 5 : 4;
    auto map = std::make_shared<const ClusterMap>(cluster_->Map());
    auto locator = ec::cluster::ObjectLocator::Make(map);
    ASSERT_TRUE(locator.ok());
    for (int i = 0;; ++i) {
      ASSERT_LT(i, 10000);
      const std::string name = "degraded-" + std::to_string(i);
      auto loc = (*locator)->LocateObject(io.pool_id(), name);
      ASSERT_TRUE(loc.ok());
      if (victim < 0) victim = loc->acting[1];
      const auto data_end = loc->acting.begin() + static_cast<std::ptrdiff_t>(k);
      if (std::find(loc->acting.begin(), data_end, victim) == data_end || loc->primary == victim) {
        continue;
      }
      Case c{pool, RandomBytes(rng, 256 * 1024 + 1000), *loc};
      ASSERT_TRUE(io.WriteFull(name, c.bytes).ok());
      // Small overwrites (by parity delta in rs51): the degraded reads below decode through the
      // parity they left, so a wrong delta would show.
      for (int w = 0; w < 20; ++w) {
        const std::size_t off = rng() % (c.bytes.size() - 3000);
        auto bytes = RandomBytes(rng, 1 + rng() % 3000);
        ASSERT_TRUE(io.Write(name, bytes, off).ok());
        std::copy(bytes.begin(), bytes.end(), c.bytes.begin() + static_cast<std::ptrdiff_t>(off));
      }
      c.loc.pgid = name;  // the object's name, kept here for the reads below
      cases.push_back(std::move(c));
      break;
    }
  }
  cluster_->Kill(victim);
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  std::printf(
      "degraded reads (osd.%d down; stripe unit 32768 in rs32 and clay32, else 4096): pool, read, "
      "network bytes, device bytes\n",
      victim);
  for (const Case& c : cases) {
    auto io = Pool(c.pool);
    std::vector<int> available;
    int local = -1;
    for (int p = 0; p < static_cast<int>(c.loc.acting.size()); ++p) {
      if (c.loc.acting[p] != victim) available.push_back(p);
      if (c.loc.acting[p] == c.loc.primary) local = p;
    }
    // Data shard j holds object bytes [su j, su (j + 1)) of each stripe (k * su bytes).
    const std::uint64_t j = static_cast<std::uint64_t>(
        std::find(c.loc.acting.begin(), c.loc.acting.end(), victim) - c.loc.acting.begin());
    const std::uint64_t su = StripeUnitOf(c.pool);
    const std::uint64_t width = su * static_cast<std::uint64_t>(c.loc.k);
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> reads = {
        {su * j, 4096}, {width + su * j + 100, 4096}, {su * j, 65536}, {0, c.bytes.size()}};
    for (auto [off, len] : reads) {
      auto got = io.Read(c.loc.pgid, off, len);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(ToVector(got->data),
                std::vector<std::byte>(c.bytes.begin() + static_cast<std::ptrdiff_t>(off),
                                       c.bytes.begin() + static_cast<std::ptrdiff_t>(off + len)));
      EXPECT_TRUE(got->degraded);
      const auto want = ExpectedCost(c.pool, c.bytes, off, len, available, local);
      EXPECT_EQ(got->network_bytes, want.net_bytes) << c.pool << " " << off << "+" << len;
      EXPECT_EQ(got->device_bytes, want.device_bytes) << c.pool << " " << off << "+" << len;
      std::printf("  %-6s [%llu, +%llu): %llu network, %llu device\n", c.pool.c_str(),
                  static_cast<unsigned long long>(off), static_cast<unsigned long long>(len),
                  static_cast<unsigned long long>(got->network_bytes),
                  static_cast<unsigned long long>(got->device_bytes));
    }
  }
  cluster_->Restart(victim);
  // rs51's small overwrites went by parity delta (ecstore_pool_delta_writes_total on a primary).
  std::uint64_t deltas = 0;
  for (const auto& osd : cluster_->osds) {
    const std::string metrics = ectest::HttpGet(osd->metrics_port(), "/metrics");
    const std::string key = "ecstore_pool_delta_writes_total{pool=\"rs51\"} ";
    const auto at = metrics.find(key);
    if (at != std::string::npos) deltas += std::stoull(metrics.substr(at + key.size()));
  }
  EXPECT_GE(deltas, 10u);
}

// A primary frozen past the grace (SIGSTOP) is marked down and its PGs get another primary.
// Resumed, it must not act on its old map: a request that waited in its socket meanwhile would
// create or change objects behind the new primary's back. Either its map has moved on by then
// (ESTALE: not the primary) or its lease is known stale (EAGAIN until it has renewed it and has the
// map it boots into: ClusterMembership::MayServe); on this machine the map usually wins the race,
// the lease check covers the case where it does not. Either way the write must fail, retryably.
TEST_F(PoolIo, AResumedPrimaryDoesNotActOnItsOldMap) {
  auto io = Pool("rs");
  const std::string name = "fenced";
  auto map = std::make_shared<const ClusterMap>(cluster_->Map());
  auto locator = ec::cluster::ObjectLocator::Make(map);
  ASSERT_TRUE(locator.ok());
  auto loc = (*locator)->LocateObject(io.pool_id(), name);
  ASSERT_TRUE(loc.ok());
  const int primary = loc->primary;
  ASSERT_GE(primary, 0);
  ectest::OsdProcess& osd = *cluster_->osds[static_cast<std::size_t>(primary)];
  // Connected before the freeze, as a client was; its request waits in the socket meanwhile.
  ec::msg::ClientOptions co;
  co.port = osd.port();
  co.request_timeout = std::chrono::milliseconds(30000);
  auto client = ec::msg::OsdClient::Create(co);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Connect().ok());
  ASSERT_TRUE(osd.Stop());
  ASSERT_TRUE(cluster_->WaitUp(primary, false, seconds(kGraceSeconds + 8)));
  ec::msg::ObjWriteRequest w;
  w.pool = static_cast<std::uint64_t>(io.pool_id());
  w.epoch = static_cast<std::uint64_t>(map->epoch);
  w.object = name;
  w.mode = ec::msg::ObjWriteMode::kWriteFull;
  std::vector<ec::Buffer> payload;
  payload.push_back(ec::Buffer::Allocate(100));
  std::promise<ec::Result<ec::msg::ObjWriteResult>> replied;
  (*client)->ObjWriteAsync(
      std::move(w), std::move(payload),
      [&replied](ec::Result<ec::msg::ObjWriteResult> r) { replied.set_value(std::move(r)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // in the frozen OSD's socket
  ASSERT_TRUE(osd.Continue());
  auto got = replied.get_future().get();
  const ec::Status st = got.ok() ? ec::Status::OK() : got.status();
  EXPECT_FALSE(st.ok()) << "the resumed OSD wrote as the primary of its old map";
  EXPECT_TRUE(st.is_retryable()) << st.ToString();
  // The client library gets there through the new map: the object does not exist.
  EXPECT_EQ(io.Stat(name).status().code(), ENOENT);
  ASSERT_TRUE(cluster_->WaitUp(primary, true, seconds(kGraceSeconds + 8)));
}

// The callback forms (IoCtx::Aio*), driven as ec-rados bench drives them: each completion issues
// the next operation from the client's io thread, several chains at once. Then one read is
// issued while its object's primary is being killed: its first try fails and the retries (on the
// client's pool) find the new primary, which answers degraded.
TEST_F(PoolIo, CallbackCallsChainFromCompletionsAndRetryAcrossAKill) {
  auto io = Pool("rs");
  std::mt19937_64 rng(11);
  constexpr int kObjects = 120;
  std::vector<std::vector<std::byte>> content(kObjects);
  for (int i = 0; i < kObjects; ++i) {
    content[i] = RandomBytes(rng, i % 3 == 0 ? 4096 : 100 + rng() % 20000);
  }
  auto name = [](int i) { return "aio-" + std::to_string(i); };
  // Runs `start(i, done)` for i in 0..kObjects-1 with `chains` in flight, each next one started
  // from the previous one's completion; returns the failures.
  auto drive = [&](int chains, const std::function<void(int, std::function<void(Status)>)>& start) {
    std::mutex mu;
    std::condition_variable cv;
    int next = 0, ended = 0;
    std::vector<std::string> failures;
    std::function<void()> issue = [&] {
      int i;
      {
        std::lock_guard lock(mu);
        if (next == kObjects) {
          if (++ended == chains) cv.notify_all();
          return;
        }
        i = next++;
      }
      start(i, [&, i](Status s) {
        if (!s.ok()) {
          std::lock_guard lock(mu);
          failures.push_back(std::to_string(i) + ": " + s.ToString());
        }
        issue();
      });
    };
    for (int c = 0; c < chains; ++c) issue();
    std::unique_lock lock(mu);
    EXPECT_TRUE(cv.wait_for(lock, seconds(60), [&] { return ended == chains; }));
    return failures;
  };
  auto wrote = drive(8, [&](int i, std::function<void(Status)> done) {
    Buffer b = Buffer::Allocate(content[i].size(), false);
    std::memcpy(const_cast<std::byte*>(b.data()), content[i].data(), b.size());
    io.AioWriteFull(name(i), std::move(b), [done](ec::Result<std::uint64_t> v) {
      done(v.ok() ? (*v > 0 ? Status::OK() : Status::Invalid("version 0")) : v.status());
    });
  });
  EXPECT_TRUE(wrote.empty()) << wrote.front();
  const std::string inline_reads = "ecstore_pool_inline_reads_total{pool=\"rs\"}";
  const std::uint64_t inline_before = cluster_->MetricSum(inline_reads);
  for (int chains : {1, 8}) {
    auto read = drive(chains, [&](int i, std::function<void(Status)> done) {
      io.AioRead(name(i), 0, 0, [&, i, done](ec::Result<ec::cluster::client::ReadResult> got) {
        if (!got.ok()) return done(got.status());
        done(ToVector(got->data) == content[i] ? Status::OK() : Status::IOError("content differs"));
      });
    });
    EXPECT_TRUE(read.empty()) << read.front();
  }
  // One read at a time of objects whose first chunk holds all their bytes, on a quiet cluster:
  // the primary serves such reads from its own shard on its messenger thread (primary.h).
  EXPECT_GT(cluster_->MetricSum(inline_reads), inline_before);
  // Errors come through the callback: before sending (a bad name, on the calling thread) or
  // from the primary.
  bool called = false;
  io.AioRead("", 0, 0, [&](ec::Result<ec::cluster::client::ReadResult> got) {
    called = true;
    EXPECT_EQ(got.status().code(), EINVAL);
  });
  EXPECT_TRUE(called);
  std::promise<ec::Result<ec::cluster::client::ReadResult>> missing;
  io.AioRead("aio-no-such-object", 0, 0,
             [&](ec::Result<ec::cluster::client::ReadResult> got) { missing.set_value(got); });
  EXPECT_EQ(missing.get_future().get().status().code(), ENOENT);

  // Kill the primary of object 0 and read it at once.
  auto loc = cluster_->Locate(io.pool_id(), name(0));
  ASSERT_TRUE(loc.ok()) << loc.status().ToString();
  cluster_->Kill(loc->primary);
  std::promise<ec::Result<ec::cluster::client::ReadResult>> after_kill;
  const auto t0 = Clock::now();
  io.AioRead(name(0), 0, 0,
             [&](ec::Result<ec::cluster::client::ReadResult> got) { after_kill.set_value(got); });
  auto got = after_kill.get_future().get();
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  std::printf("read issued as its primary osd.%d was killed: answered after %.2f s\n", loc->primary,
              secs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(ToVector(got->data), content[0]);
  EXPECT_TRUE(got->degraded);  // the killed OSD held shard 0, all of the object's bytes
  cluster_->Restart(loc->primary);
  ASSERT_TRUE(cluster_->WaitUp(loc->primary, true, seconds(kGraceSeconds + 8)));
  // Cases that count a pool's objects or bytes may share this cluster (run without ctest).
  for (int i = 0; i < kObjects; ++i) EXPECT_TRUE(io.Remove(name(i)).ok()) << name(i);
}

// A write that its primary could not begin within the request's start_within_ms (held here by
// min_size: three of an RS(4,2) PG's six OSDs down) is refused ECANCELED once it could
// begin, and nothing of it is applied: the client that sent it gave up long before (the thrasher
// once saw such a write applied 7 s after its client reported it failed).
TEST_F(PoolIo, AWriteItsPrimaryCouldNotBeginInTimeIsNeverApplied) {
  auto io = Pool("rs");
  const std::string name = "begun-too-late";
  auto loc = cluster_->Locate(io.pool_id(), name);
  ASSERT_TRUE(loc.ok()) << loc.status().ToString();
  const int primary = loc->primary;
  const std::vector<int> victims = {loc->acting[1], loc->acting[2], loc->acting[3]};
  for (int v : victims) cluster_->Kill(v);
  for (int v : victims) ASSERT_TRUE(cluster_->WaitUp(v, false, seconds(kGraceSeconds + 6)));
  const std::uint64_t too_late_before =
      cluster_->Metric(primary, "ecstore_pool_ops_too_late_total{pool=\"rs\"}");
  ec::msg::ClientOptions co;
  co.port = cluster_->osds[static_cast<std::size_t>(primary)]->port();
  co.request_timeout = std::chrono::milliseconds(60000);
  auto client = ec::msg::OsdClient::Create(co);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ec::msg::ObjWriteRequest w;
  w.pool = static_cast<std::uint64_t>(io.pool_id());
  w.epoch = static_cast<std::uint64_t>(cluster_->Map().epoch);
  w.object = name;
  w.mode = ec::msg::ObjWriteMode::kWriteFull;
  w.start_within_ms = 500;
  std::vector<ec::Buffer> payload;
  payload.push_back(ec::Buffer::Allocate(1000));
  std::promise<ec::Result<ec::msg::ObjWriteResult>> replied;
  (*client)->ObjWriteAsync(
      std::move(w), std::move(payload),
      [&replied](ec::Result<ec::msg::ObjWriteResult> r) { replied.set_value(std::move(r)); });
  auto reply = replied.get_future();
  // Waiting for min_size shards up, past its 500 ms.
  EXPECT_EQ(reply.wait_for(std::chrono::milliseconds(1500)), std::future_status::timeout);
  for (int v : victims) cluster_->Restart(v);
  ASSERT_EQ(reply.wait_for(seconds(30)), std::future_status::ready);
  auto got = reply.get();
  ASSERT_FALSE(got.ok()) << "a write begun after its start_within_ms";
  EXPECT_EQ(got.status().code(), ECANCELED) << got.status().ToString();
  EXPECT_TRUE(got.status().is_retryable()) << got.status().ToString();
  EXPECT_EQ(io.Stat(name).status().code(), ENOENT);
  EXPECT_EQ(cluster_->Metric(primary, "ecstore_pool_ops_too_late_total{pool=\"rs\"}"),
            too_late_before + 1);
  // The client library's writes carry it too, and go through once the PG can take them.
  std::mt19937_64 rng(5);
  ASSERT_TRUE(io.WriteFull(name, RandomBytes(rng, 1000)).ok());
  auto st = io.Stat(name);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->size, 1000u);
  for (int v : victims) EXPECT_TRUE(cluster_->WaitUp(v, true, seconds(kGraceSeconds + 8)));
}

TEST_F(PoolIo, FewerThanKShardsIsAClearErrorNotAHang) {
  auto io = Pool("rs");
  std::mt19937_64 rng(3);
  const auto bytes = RandomBytes(rng, 50000);
  ASSERT_TRUE(io.WriteFull("fragile", bytes).ok());
  auto loc = cluster_->Locate(io.pool_id(), "fragile");
  ASSERT_TRUE(loc.ok()) << loc.status().ToString();
  // Three of its six shards' OSDs down (not the primary): only 3 < k shards remain.
  std::vector<int> victims = {loc->acting[1], loc->acting[2], loc->acting[3]};
  for (int v : victims) cluster_->Kill(v);
  for (int v : victims) ASSERT_TRUE(cluster_->WaitUp(v, false, seconds(kGraceSeconds + 6)));
  const auto start = Clock::now();
  auto got = io.Read("fragile");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), EIO) << got.status().ToString();
  EXPECT_NE(got.status().message().find("pg " + loc->pgid), std::string::npos)
      << got.status().message();
  EXPECT_NE(got.status().message().find("osd." + std::to_string(victims[0])), std::string::npos)
      << got.status().message();
  EXPECT_LT(Clock::now() - start, seconds(10));
  for (int v : victims) cluster_->Restart(v);
  auto back = io.Read("fragile");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToVector(back->data), bytes);
}

TEST_F(PoolIo, ModelCheckedWorkloadWhileOneThenTwoOsdsAreKilled) {
  auto io = Pool("clay");
  ectest::ObjectModel model;
  ectest::WorkloadCounts n;
  std::atomic<bool> stop{false};
  const std::uint64_t seed = static_cast<std::uint64_t>(ec::osd::store::testing::TestSeed());
  std::printf("workload seed %llu\n", static_cast<unsigned long long>(seed));
  std::thread worker([&] { ectest::RunWorkload(io, {"model-", 16}, seed, stop, model, n); });
  std::mt19937_64 rng(seed + 1);
  std::this_thread::sleep_for(seconds(3));
  // One OSD killed and restarted while the workload runs.
  const int one = static_cast<int>(rng() % kOsds);
  cluster_->Kill(one);
  std::this_thread::sleep_for(seconds(kGraceSeconds + 3));
  cluster_->Restart(one);
  std::this_thread::sleep_for(seconds(3));
  // Then m = 2 at once.
  const int two = (one + 1 + static_cast<int>(rng() % (kOsds - 1))) % kOsds;
  const int three = (two + 1 + static_cast<int>(rng() % (kOsds - 2))) % kOsds == one
                        ? (two + 2) % kOsds
                        : (two + 1 + static_cast<int>(rng() % (kOsds - 2))) % kOsds;
  cluster_->Kill(two);
  if (three != two) cluster_->Kill(three);
  std::this_thread::sleep_for(seconds(kGraceSeconds + 4));
  cluster_->Restart(two);
  if (three != two) cluster_->Restart(three);
  std::this_thread::sleep_for(seconds(3));
  stop = true;
  worker.join();
  // Every object, read whole at the end, is the model's (a pending outcome settles to one side),
  // and the pool lists exactly the model's objects.
  const Status verified = ectest::VerifyAll(io, "model-", model, n);
  EXPECT_TRUE(verified.ok()) << verified.ToString();
  std::printf("workload: %s (killed osd.%d, then osd.%d and osd.%d)\n", n.Summary().c_str(), one,
              two, three);
  const std::vector<std::string> notes = n.Notes();
  for (std::size_t i = 0; i < notes.size() && i < 20; ++i) std::printf("  %s\n", notes[i].c_str());
  EXPECT_EQ(n.mismatches, 0u);
  EXPECT_EQ(n.lost, 0u);
  EXPECT_GT(n.acked, 50u);
  EXPECT_GT(n.reads_checked, 50u);
}

TEST_F(PoolIo, AWriteKilledAnywhereLeavesTheOldOrTheNewObject) {
  auto io = Pool("rs");
  std::mt19937_64 rng(static_cast<std::uint64_t>(ec::osd::store::testing::TestSeed()) + 7);
  int old_seen = 0, new_seen = 0;
  for (int round = 0; round < 8; ++round) {
    bool ended_new = false;
    ectest::WriteFullWithAKill(*cluster_, io, "atomic-" + std::to_string(round), round, 4 << 20,
                               rng, std::chrono::microseconds(6000), &ended_new);
    (ended_new ? new_seen : old_seen)++;
  }
  std::printf("kill -9 during a 4 MiB write_full: %d rounds ended old, %d new\n", old_seen,
              new_seen);
}

TEST_F(PoolIo, StatusCountsObjectsAndDegradedObjects) {
  auto io = Pool("rs");
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) {
    ASSERT_TRUE(io.WriteFull("counted-" + std::to_string(i), RandomBytes(rng, 5000)).ok());
  }
  std::uint64_t listed = 0;
  std::vector<std::string> every_pool(kPools.begin(), kPools.end());
  every_pool.push_back(kShecPool);  // the status counts every pool's objects
  for (const std::string& pool : every_pool) {
    auto names = Pool(pool).List();
    ASSERT_TRUE(names.ok());
    listed += names->size();
  }
  // The status once every primary has reported what is there now.
  auto status = [&]() { return cluster_->ClusterStatus(); };
  const auto deadline = Clock::now() + seconds(10);
  ec::cluster::admin::StatusReport r = status();
  while (r.num_objects != listed && Clock::now() < deadline) {
    std::this_thread::sleep_for(milliseconds(200));
    r = status();
  }
  EXPECT_EQ(r.num_objects, listed);
  EXPECT_EQ(r.degraded_objects, 0u);

  // One OSD down: every object of a PG it serves is missing one shard (rs51's PGs have 6 shards
  // too), so the count equals the objects of those PGs once the primaries report again.
  const int victim = 4;
  cluster_->Kill(victim);
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  const auto later = Clock::now() + seconds(10);
  r = status();
  while ((r.degraded_objects == 0 || r.num_objects != listed) && Clock::now() < later) {
    std::this_thread::sleep_for(milliseconds(200));
    r = status();
  }
  EXPECT_GT(r.degraded_objects, 0u);
  EXPECT_LE(r.degraded_objects, r.num_objects);  // at most one missing shard per object
  EXPECT_EQ(r.degraded_total, 6 * r.num_objects);
  const std::string plain = ec::cluster::admin::RenderStatusPlain(r, 0);
  EXPECT_NE(plain.find("objects degraded"), std::string::npos) << plain;
  std::printf("%s", plain.c_str());
  cluster_->Restart(victim);
}

// Issue 31 item 5: an OSD down for a few seconds and back. The PGs whose primary stayed up
// catch up (osd/pg/README.md item 7): their shards are not scanned again when it returns, only
// the objects it missed are asked again and rebuilt, and every object reads back. (The PGs it is
// primary of are peered in full, by their interim primaries when it goes down and by itself when
// it comes back: its table died with it. Those peerings happen on the victim, or before the
// counters below are read.)
TEST_F(PoolIo, AnOsdBackAfterBeingDownIsCaughtUpWithNotScannedAgain) {
  auto io = Pool("rs");
  std::mt19937_64 rng(31);
  std::map<std::string, std::vector<std::byte>> model;
  const auto write = [&](int i) {
    const std::string name = "catch-" + std::to_string(i);
    model[name] = RandomBytes(rng, std::vector<std::size_t>{4096, 40000}[i % 2]);
    ASSERT_TRUE(io.WriteFull(name, model[name]).ok()) << name;
  };
  for (int i = 0; i < 40; ++i) write(i);
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));

  const int victim = 2;
  cluster_->Kill(victim);
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  // Every PG peered (or caught up) for the interval without it, as its primary reports.
  const auto peering = [&] {
    for (const auto& s : cluster_->ClusterStatus().pgs_by_state) {
      if (s.state_name.find("peering") != std::string::npos) return true;
    }
    return false;
  };
  const auto until = Clock::now() + seconds(20);
  while (peering() && Clock::now() < until) std::this_thread::sleep_for(milliseconds(200));
  ASSERT_FALSE(peering());
  for (int i = 40; i < 60; ++i) write(i);  // missed by the victim
  const auto others = [&](const std::string& sample) {
    std::uint64_t sum = 0;
    for (int id = 0; id < static_cast<int>(cluster_->osds.size()); ++id) {
      if (id != victim) sum += cluster_->Metric(id, sample);
    }
    return sum;
  };
  const std::string full = "ecstore_osd_peerings_total{kind=\"full\"}";
  const std::string catch_up = "ecstore_osd_peerings_total{kind=\"catch_up\"}";
  const std::string entries = "ecstore_osd_peering_scanned_entries_total";
  const std::uint64_t full0 = others(full), catch0 = others(catch_up), entries0 = others(entries);

  cluster_->Restart(victim);
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  const std::uint64_t full1 = others(full), catch1 = others(catch_up), entries1 = others(entries);
  std::printf(
      "osd.%d back: the other primaries peered %llu PGs in full (%llu shard entries), "
      "caught up %llu\n",
      victim, (unsigned long long)(full1 - full0), (unsigned long long)(entries1 - entries0),
      (unsigned long long)(catch1 - catch0));
  EXPECT_EQ(full1, full0);
  EXPECT_EQ(entries1, entries0);
  EXPECT_GT(catch1, catch0);
  for (const auto& [name, bytes] : model) {
    auto got = io.Read(name, 0, 0);
    ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
    EXPECT_EQ(ToVector(got->data), bytes) << name;
  }
}

// Issue 15: an OSD killed and marked out. Every PG of the pools returns to active+clean (as the
// primaries report it), every object reads back identical, and the bytes the OSDs that rebuilt
// shards received from helpers are exactly the code's minimum: CLAY(4,2,5) reads d=5 helpers x
// C/q = 2048 bytes per stripe, RS(4,2) k=4 helpers x C = 4096 bytes per stripe, SHEC(4,2,1) 2
// helpers x C = 4096 bytes per stripe (its shingle). A seventh OSD on
// a seventh host joins first, so that six hosts remain for the six shards once one is out (its
// joining moves shards to it: a first recovery).
TEST_F(PoolIo, RecoveryAfterAnOsdIsMarkedOutRebuildsWithTheLeastBytes) {
  const std::vector<std::string> pools = {"rs", "clay", kShecPool};
  ASSERT_EQ(cluster_->AddOsd(), kOsds);
  std::mt19937_64 rng(15);
  std::map<std::string, std::map<std::string, std::vector<std::byte>>> model;
  for (const std::string& pool : pools) {
    auto io = Pool(pool);
    for (int i = 0; i < 60; ++i) {
      const std::size_t size = std::vector<std::size_t>{4096, 16384, 40000, 100000}[i % 4];
      const std::string name = "rec-" + std::to_string(i);
      model[pool][name] = RandomBytes(rng, size);
      ASSERT_TRUE(io.WriteFull(name, model[pool][name]).ok());
    }
  }
  auto received = [&](const std::string& pool) {
    return cluster_->MetricSum("ecstore_recovery_network_bytes_total{pool=\"" + pool + "\"}");
  };
  // While the victim is out: the others' counters (its own leaves the sum when it is killed; in
  // one process an earlier test may have had it pull).
  const int victim = 5;
  auto received_elsewhere = [&](const std::string& pool) {
    std::uint64_t sum = 0;
    for (std::size_t id = 0; id < cluster_->osds.size(); ++id) {
      if (static_cast<int>(id) == victim) continue;
      sum += cluster_->Metric(static_cast<int>(id),
                              "ecstore_recovery_network_bytes_total{pool=\"" + pool + "\"}");
    }
    return sum;
  };
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  // Objects earlier tests of the suite left in these pools (run in one process, the tests share
  // the cluster) would be rebuilt too, with bytes their writes' history decides (range writes
  // and appends store other shard lengths than a whole write): removed, so that the pools hold
  // the model alone.
  for (const std::string& pool : pools) {
    auto io = Pool(pool);
    auto names = io.List();
    ASSERT_TRUE(names.ok()) << names.status().ToString();
    for (const std::string& name : *names) {
      if (model[pool].count(name) == 0) {
        ASSERT_TRUE(io.Remove(name).ok()) << name;
      }
    }
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));

  // The bytes the rebuild must read: the objects with a shard on the victim.
  std::map<std::string, std::uint64_t> expect;
  {
    auto map = std::make_shared<const ClusterMap>(cluster_->Map());
    auto locator = ec::cluster::ObjectLocator::Make(map);
    ASSERT_TRUE(locator.ok());
    for (const std::string& pool : pools) {
      auto io = Pool(pool);
      for (const auto& [name, bytes] : model[pool]) {
        auto loc = (*locator)->LocateObject(io.pool_id(), name);
        ASSERT_TRUE(loc.ok());
        if (std::find(loc->acting.begin(), loc->acting.end(), victim) == loc->acting.end()) {
          continue;
        }
        // The engine's plan over the shards as stored: per whole stripe CLAY reads d=5 helpers x
        // 2048, RS 4 x 4096, SHEC 2 x 4096; the last stripe only what its shards store.
        const int lost = static_cast<int>(
            std::find(loc->acting.begin(), loc->acting.end(), victim) - loc->acting.begin());
        expect[pool] += RebuildReadBytes(pool, bytes, lost);
      }
    }
  }
  std::map<std::string, std::uint64_t> before;
  for (const std::string& pool : pools) before[pool] = received_elsewhere(pool);

  cluster_->Kill(victim);
  ASSERT_TRUE(cluster_->WaitUp(victim, false, seconds(kGraceSeconds + 6)));
  const auto t0 = Clock::now();
  auto out = cluster_->store->Apply({MapChange::OsdOut(victim, false)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(90)));
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();

  for (const std::string& pool : pools) {
    SCOPED_TRACE(pool);
    auto io = Pool(pool);
    for (const auto& [name, bytes] : model[pool]) {
      auto got = io.Read(name, 0, 0);
      ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
      EXPECT_EQ(ToVector(got->data), bytes) << name;
    }
    const std::uint64_t got = received_elsewhere(pool) - before[pool];
    std::printf(
        "recovery after osd.%d out: pool %s: %llu bytes from helpers (minimum %llu), "
        "active+clean after %.1f s\n",
        victim, pool.c_str(), (unsigned long long)got, (unsigned long long)expect[pool], secs);
    EXPECT_EQ(got, expect[pool]);
  }

  // While it is out, some objects change and some are created: the OSDs that took its positions
  // hold them.
  auto out_map = std::make_shared<const ClusterMap>(cluster_->Map());
  std::map<std::string, std::set<std::string>> changed;
  for (const std::string& pool : pools) {
    auto io = Pool(pool);
    for (int i = 0; i < 16; ++i) {
      const std::string name = i < 10 ? "rec-" + std::to_string(i * 5) : "new-" + std::to_string(i);
      model[pool][name] = RandomBytes(rng, std::vector<std::size_t>{4096, 40000}[i % 2]);
      ASSERT_TRUE(io.WriteFull(name, model[pool][name]).ok());
      changed[pool].insert(name);
    }
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(30)));

  // Back in: placement moves its positions back. Its shards of unchanged objects are current
  // (nothing to do); those of changed objects are copied from the OSDs that held them meanwhile
  // (backfill: one shard's bytes over the network, not k shards' worth).
  std::map<std::string, std::uint64_t> mid, mid_rebuilt;
  auto rebuilt = [&](const std::string& pool) {
    return cluster_->MetricSum("ecstore_recovery_rebuilt_bytes_total{pool=\"" + pool + "\"}");
  };
  for (const std::string& pool : pools) {
    mid[pool] = received(pool);
    mid_rebuilt[pool] = rebuilt(pool);
  }
  cluster_->Restart(victim);
  auto in = cluster_->store->Apply({MapChange::OsdIn(victim, 0)});
  ASSERT_TRUE(in.ok()) << in.status().ToString();
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  auto in_map = std::make_shared<const ClusterMap>(cluster_->Map());
  auto out_locator = ec::cluster::ObjectLocator::Make(out_map);
  auto in_locator = ec::cluster::ObjectLocator::Make(in_map);
  ASSERT_TRUE(out_locator.ok() && in_locator.ok());
  for (const std::string& pool : pools) {
    SCOPED_TRACE(pool);
    auto io = Pool(pool);
    std::uint64_t copy_bytes = 0;
    for (const std::string& name : changed[pool]) {
      auto before_loc = (*out_locator)->LocateObject(io.pool_id(), name);
      auto after_loc = (*in_locator)->LocateObject(io.pool_id(), name);
      ASSERT_TRUE(before_loc.ok() && after_loc.ok());
      const ec::StripeLayout layout = CodeOf(pool).second;
      for (std::size_t p = 0; p < after_loc->acting.size(); ++p) {
        if (before_loc->acting[p] != after_loc->acting[p]) {
          copy_bytes += layout.stored_size(model[pool][name].size(), static_cast<int>(p));
        }
      }
    }
    for (const auto& [name, bytes] : model[pool]) {
      auto got = io.Read(name, 0, 0);
      ASSERT_TRUE(got.ok()) << name << ": " << got.status().ToString();
      EXPECT_EQ(ToVector(got->data), bytes) << name;
    }
    const std::uint64_t net = received(pool) - mid[pool];
    const std::uint64_t written = rebuilt(pool) - mid_rebuilt[pool];
    std::printf(
        "backfill after osd.%d in: pool %s: %llu bytes copied (%llu expected), %llu written\n",
        victim, pool.c_str(), (unsigned long long)net, (unsigned long long)copy_bytes,
        (unsigned long long)written);
    EXPECT_GT(copy_bytes, 0u);
    EXPECT_EQ(net, copy_bytes);
    EXPECT_EQ(written, copy_bytes);
  }
}

}  // namespace
