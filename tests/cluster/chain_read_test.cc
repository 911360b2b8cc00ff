// Degraded reads through repair chains on a real local cluster (issue 33; osd/pg/object_io.h
// "Reads"): etcd, six ec-osd processes with osd_repair_pipeline=on, an RS(4,2) and a CLAY(4,2,5)
// pool of 256 KiB chunks. One OSD is killed and marked down (not out: its PGs stay degraded and
// nothing is rebuilt). Objects whose lost shard is a data shard are read through their primaries:
// the bytes are right, the reads are counted as chained, and each primary receives the lost
// shard's bytes once (its requester counter), where a direct RS read brings three remote chunks
// per lost chunk. Then one helper of the RS chain (neither the primary nor the killed OSD) is
// frozen (SIGSTOP) during a read, for longer than a chain's deadline (osd_subop_timeout: 3 s) and
// shorter than the heartbeat grace: the read still returns the right bytes; then the same helper
// is killed (SIGKILL) while a chain waits on it: the right bytes again. With authentication
// on (auth_cluster_required = cephx, the launcher's default): every hop, the primary's own
// included, proves its osd.N key, and no connection or request is refused.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <future>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cluster/map/map_store.h"
#include "cluster/map/object_locator.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using ReadClock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::uint64_t kUnit = 256 * 1024;            // chunk size of both pools
constexpr int kObjects = 6;                            // per pool
constexpr std::uint64_t kSize = 4 * 4 * kUnit - 1000;  // four stripes, the last one part padding

// The wall clock in milliseconds since the Unix epoch (a map change's stamp).
std::int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double SecondsSince(ReadClock::time_point t) {
  return std::chrono::duration<double>(ReadClock::now() - t).count();
}

std::string PoolLabel(const char* name, const std::string& pool) {
  return fmt::format("{}{{pool=\"{}\"}}", name, pool);
}

TEST(ChainRead, DegradedReadsThroughChainsBringOneChunkAndSurviveAFrozenHelper) {
  const auto t0 = ReadClock::now();
  ectest::LocalClusterOptions o;
  o.osds = 6;
  o.auth = true;
  ectest::PoolSpec rs{"rs", ectest::RsProfile()};
  rs.stripe_unit = kUnit;
  rs.pg_num = 4;
  ectest::PoolSpec clay{"clay", ectest::ClayProfile()};
  clay.stripe_unit = kUnit;
  clay.pg_num = 4;
  o.pools = {rs, clay};
  // Down only after 10 s without a heartbeat: the frozen helper (5 s) stays up in the map, so the
  // chain names it and must get past it by its own deadline. The killed OSD is marked down by
  // the test at once.
  o.grace_seconds = 10;
  o.osd_options = {"osd_repair_pipeline=on"};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());

  std::map<std::string, std::map<std::string, std::vector<std::byte>>> model;
  std::mt19937_64 rng(33);
  for (const char* pool : {"rs", "clay"}) {
    auto io = c.Pool(pool);
    for (int i = 0; i < kObjects; ++i) {
      const std::string name = fmt::format("big{}", i);
      std::vector<std::byte> bytes = ec::osd::store::testing::RandomBytes(rng, kSize);
      auto w = io.WriteFull(name, bytes);
      ASSERT_TRUE(w.ok()) << pool << "/" << name << ": " << w.status().ToString();
      model[pool][name] = std::move(bytes);
    }
  }

  // The victim holds data position 1 of rs/big0 (its primary, position 0, stays).
  const std::int64_t rs_id = c.Pool("rs").pool_id();
  auto where = c.Locate(rs_id, "big0");
  ASSERT_TRUE(where.ok()) << where.status().ToString();
  const int victim = where->acting[1];
  ASSERT_TRUE(c.Kill(victim));
  ASSERT_TRUE(c.store->Apply({ec::cluster::MapChange::OsdDown(victim, NowMs())}).ok());
  const std::uint64_t epoch = static_cast<std::uint64_t>(c.Map().epoch);
  // Every running OSD has the map that says so (a primary without it would still ask the victim).
  for (int id = 0; id < 6; ++id) {
    if (id == victim) continue;
    const auto until = ReadClock::now() + seconds(10);
    while (c.Metric(id, "ecstore_osd_map_epoch") < epoch && ReadClock::now() < until) {
      std::this_thread::sleep_for(milliseconds(20));
    }
    ASSERT_GE(c.Metric(id, "ecstore_osd_map_epoch"), epoch) << "osd." << id;
  }

  // Every object whose lost shard is a data shard: read whole through its primary (the client's
  // direct reads off), then its lost chunks alone, one stripe's at a time. Counted per primary.
  const std::string requester_in =
      "ecstore_repair_chain_bytes_total{dir=\"in\",role=\"requester\"}";
  std::map<std::string, int> chained_objects;
  std::uint64_t lost_bytes_read = 0, in_seen = 0, net_seen = 0, direct_net = 0, direct_lost = 0;
  for (auto& [pool, objects] : model) {
    auto io = c.Pool(pool);
    io.set_direct_reads(false);
    const std::int64_t pool_id = io.pool_id();
    for (const auto& [name, bytes] : objects) {
      auto loc = c.Locate(pool_id, name);
      ASSERT_TRUE(loc.ok()) << loc.status().ToString();
      int lost = -1;
      for (int p = 0; p < 4; ++p) {
        if (loc->acting[static_cast<std::size_t>(p)] == victim) lost = p;
      }
      if (lost < 0) continue;  // the victim holds a parity: the read needs no rebuild
      const int primary = loc->primary;
      ASSERT_NE(primary, victim);
      const std::uint64_t in_before = c.Metric(primary, requester_in);
      auto whole = io.Read(name);
      ASSERT_TRUE(whole.ok()) << pool << "/" << name << ": " << whole.status().ToString();
      EXPECT_TRUE(ectest::ToVector(whole->data) == bytes) << pool << "/" << name;
      EXPECT_TRUE(whole->degraded) << pool << "/" << name;
      // The lost shard's bytes the object holds, once: RS rebuilds exactly them (the last
      // stripe's chunk 3 holds 1000 bytes less), CLAY the whole chunks of the stripes touched.
      const std::uint64_t last_stripe = 3 * 4 * kUnit + static_cast<std::uint64_t>(lost) * kUnit;
      const std::uint64_t lost_bytes =
          pool == "clay" ? 4 * kUnit : 3 * kUnit + std::min(kUnit, kSize - last_stripe);
      const std::uint64_t whole_in = c.Metric(primary, requester_in) - in_before;
      EXPECT_EQ(whole_in, lost_bytes) << pool << "/" << name << " lost position " << lost;
      // The lost chunk of stripe 2 alone: the primary receives that chunk, nothing else.
      const std::uint64_t at = 2 * 4 * kUnit + static_cast<std::uint64_t>(lost) * kUnit;
      auto chunk = io.Read(name, at, kUnit);
      ASSERT_TRUE(chunk.ok()) << pool << "/" << name << ": " << chunk.status().ToString();
      ASSERT_EQ(chunk->data.size(), kUnit);
      EXPECT_TRUE(std::equal(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                             bytes.begin() + static_cast<std::ptrdiff_t>(at + kUnit),
                             ectest::ToVector(chunk->data).begin()))
          << pool << "/" << name;
      EXPECT_EQ(chunk->network_bytes, kUnit) << pool << "/" << name;
      EXPECT_EQ(c.Metric(primary, requester_in) - in_before - whole_in, kUnit)
          << pool << "/" << name;
      lost_bytes_read += lost_bytes + kUnit;
      in_seen += c.Metric(primary, requester_in) - in_before;
      net_seen += chunk->network_bytes;
      ++chained_objects[pool];
      if (pool != "rs") continue;
      // A quarter of that chunk, below one 256 KiB slice: read directly, no chain, from three
      // remote helpers (the primary's own shard the fourth), each sending its whole chunk of the
      // stripe (the repair engine decodes RS chunk by chunk): 12 bytes per lost byte.
      const std::uint64_t in_direct = c.Metric(primary, requester_in);
      auto part = io.Read(name, at, kUnit / 4);
      ASSERT_TRUE(part.ok()) << pool << "/" << name << ": " << part.status().ToString();
      ASSERT_EQ(part->data.size(), kUnit / 4);
      EXPECT_TRUE(std::equal(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                             bytes.begin() + static_cast<std::ptrdiff_t>(at + kUnit / 4),
                             ectest::ToVector(part->data).begin()))
          << pool << "/" << name;
      EXPECT_TRUE(part->degraded);
      EXPECT_EQ(part->network_bytes, 3 * kUnit) << pool << "/" << name;
      EXPECT_EQ(c.Metric(primary, requester_in), in_direct) << "a chain below one slice";
      direct_net += part->network_bytes;
      direct_lost += kUnit / 4;
    }
  }
  ASSERT_GT(chained_objects["rs"], 0);  // big0 at least
  std::uint64_t chained_reads = 0;
  for (int id = 0; id < 6; ++id) {
    if (id == victim) continue;
    chained_reads += c.Metric(id, PoolLabel("ecstore_pool_chain_degraded_reads_total", "rs")) +
                     c.Metric(id, PoolLabel("ecstore_pool_chain_degraded_reads_total", "clay"));
  }
  EXPECT_EQ(chained_reads,
            2u * static_cast<std::uint64_t>(chained_objects["rs"] + chained_objects["clay"]));
  EXPECT_EQ(in_seen, lost_bytes_read);

  // A helper of big0's chain frozen during a whole read: its position 3 (a data shard, the hop
  // before the last of the chain 0 -> 2 -> 3 -> 4 that the primary at position 0 asks).
  auto io = c.Pool("rs");
  io.set_direct_reads(false);
  const int primary = where->primary;
  const int frozen = where->acting[3];
  ASSERT_NE(frozen, primary);
  const std::string failed = "ecstore_repair_chain_slices_total{result=\"failed\"}";
  const std::uint64_t failed_before = c.Metric(primary, failed);
  ASSERT_TRUE(c.osds[static_cast<std::size_t>(frozen)]->Stop());
  const auto read_start = ReadClock::now();
  auto pending = std::async(std::launch::async, [&io] { return io.Read("big0"); });
  std::this_thread::sleep_for(milliseconds(5000));
  // Thawed before any /metrics is asked for: the frozen OSD's page would not answer.
  ASSERT_TRUE(c.osds[static_cast<std::size_t>(frozen)]->Continue());
  auto got = pending.get();
  const double took = SecondsSince(read_start);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(ectest::ToVector(got->data) == model["rs"]["big0"]);
  const std::uint64_t failed_slices = c.Metric(primary, failed) - failed_before;
  const std::uint64_t fallbacks =
      c.Metric(primary, PoolLabel("ecstore_pool_chain_degraded_read_fallbacks_total", "rs"));
  EXPECT_GE(failed_slices, 1u) << "the chain never met the frozen helper";
  for (const char* reason : {"no_auth", "unknown_entity", "bad_proof", "not_osd", "caps"}) {
    std::uint64_t refused = 0;
    for (int id = 0; id < 6; ++id) {
      if (id != victim) {
        refused +=
            c.Metric(id, fmt::format("ecstore_osd_auth_refusals_total{{reason=\"{}\"}}", reason));
      }
    }
    EXPECT_EQ(refused, 0u) << reason;
  }

  // The same helper killed mid-chain: frozen again while a read of big0 runs, so that the chain
  // is held at its hop, then SIGKILLed. Its connections close, its successor reports it at once
  // and the primary re-plans without it; with the victim and it both gone, only the four shards
  // a read needs are left (two of them lost data shards: the chain rebuilds one, the read after
  // it fails on the other and the primary falls back to the direct degraded read). Whatever the
  // way, the bytes are right.
  ASSERT_TRUE(c.osds[static_cast<std::size_t>(frozen)]->Stop());
  const auto kill_start = ReadClock::now();
  auto killed_read = std::async(std::launch::async, [&io] { return io.Read("big0"); });
  std::this_thread::sleep_for(milliseconds(1000));
  ASSERT_TRUE(c.Kill(frozen));
  auto after_kill = killed_read.get();
  const double kill_took = SecondsSince(kill_start);
  ASSERT_TRUE(after_kill.ok()) << after_kill.status().ToString();
  EXPECT_TRUE(ectest::ToVector(after_kill->data) == model["rs"]["big0"]);
  EXPECT_TRUE(after_kill->degraded);
  EXPECT_GE(c.Metric(primary, failed) - failed_before, failed_slices + 1)
      << "the chain never met the killed helper";

  const std::uint64_t reads =
      static_cast<std::uint64_t>(chained_objects["rs"] + chained_objects["clay"]);
  std::printf(
      "osd.%d killed and down: %d rs and %d clay objects read degraded through chains, the "
      "primaries received %llu bytes for %llu lost bytes read; a lost 256 KiB chunk alone: "
      "%llu network bytes through a chain (%.2f per lost byte), a direct RS read of a quarter "
      "of one %.2f per lost byte; osd.%d frozen 5 s during a read of rs/big0 (primary osd.%d): "
      "right bytes in %.1f s, %llu slices failed, %llu direct fallbacks; then killed during "
      "a read: right bytes in %.1f s; %.1f s\n",
      victim, chained_objects["rs"], chained_objects["clay"], (unsigned long long)in_seen,
      (unsigned long long)lost_bytes_read, (unsigned long long)(net_seen / reads),
      static_cast<double>(net_seen) / static_cast<double>(reads * kUnit),
      static_cast<double>(direct_net) / static_cast<double>(direct_lost), frozen, primary, took,
      (unsigned long long)failed_slices, (unsigned long long)fallbacks, kill_took,
      SecondsSince(t0));
}

}  // namespace
