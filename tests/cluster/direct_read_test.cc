// Direct reads on a real local cluster (issue 28 item 3, osd/pg/read_lease.h): a real etcd, eight
// real ec-osd processes and the client library in-process, an RS(4,2), a CLAY(4,2,5) and an
// LRC(k=4, m=2, l=3) pool with 4 KiB stripe units, recorded with their data chunks as ec-admin
// records them (LRC's data chunks are not its first four positions).
//
//   ServedByTheShardsOsd       (every pool) reads inside one data chunk of a clean PG are answered
//                              by that shard's OSD (the OSDs count them), with the written bytes,
//                              the first read of a PG's shard too (its OSD waits for the lease it
//                              asks for); reads of two chunks, of the primary's chunk and of the
//                              whole object go through the primary; a read right after an
//                              overwrite sees it
//   TheOsdRefusesWhatItCannotVouchFor
//                              ObjDirectRead sent by hand: a newer map than the OSD's, the wrong
//                              shard, the primary's shard, bytes of two chunks, an absent object:
//                              each refused (Retryable EAGAIN) and counted, never served
//   AStaleOrDeadShardIsNeverReadDirectly
//                              a shard's OSD frozen (SIGSTOP) while its object is overwritten,
//                              then resumed: every read after the write sees the new bytes while
//                              it comes back and is recovered; then killed (-9) while readers run:
//                              every read right
//   ATruncatedRangeIsNeverReadDirectly
//                              a truncate (issue 29) rewrites the shards: a direct read of the
//                              range it cut is refused and the read through the primary answers
//                              the new size (EINVAL past the end), never the old bytes; grown
//                              again with zeros, the range reads zeros, directly too
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/client/rados.h"
#include "msg/client.h"
#include "osd/store/store_test_support.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::osd::store::testing::RandomBytes;
using ectest::ToVector;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr std::uint64_t kUnit = 4096;  // the pools' stripe unit: data piece i of stripe s is
                                       // object bytes [(4s + i) * 4096, +4096)
constexpr std::uint64_t kObject = 16 * kUnit;  // four stripes

class DirectRead : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = 8;
    o.pools = ectest::ClayAndRsPools(8);
    o.pools.push_back(
        {"lrc",
         {{"plugin", "lrc"}, {"k", "4"}, {"m", "2"}, {"l", "3"}, {"crush-failure-domain", "host"}},
         4096,
         8});
    StartCluster(std::move(o));
  }

  // The chunk id (shard position) of data piece `piece` of `io`'s pool, as the map records it.
  int ChunkOf(ec::cluster::client::IoCtx& io, int piece) {
    const auto map = cluster_->Map();
    const auto& chunks = map.pools.at(io.pool_id()).data_chunks;
    EXPECT_EQ(chunks.size(), 4u);
    return chunks.size() == 4 ? chunks[static_cast<std::size_t>(piece)] : piece;
  }

  // The OSD holding data piece `piece` of `object` in `io`'s pool, and the PG's primary.
  std::pair<int, int> OsdOf(ec::cluster::client::IoCtx& io, const std::string& object, int piece) {
    auto loc = cluster_->Locate(io.pool_id(), object);
    EXPECT_TRUE(loc.ok()) << loc.status().ToString();
    if (!loc.ok()) return {-1, -1};
    return {loc->acting.at(static_cast<std::size_t>(ChunkOf(io, piece))), loc->primary};
  }

  // Writes `name` (kObject random bytes, returned) and warms its direct reads up (a test failure
  // if they do not come).
  std::vector<std::byte> WriteAndWarmUp(ec::cluster::client::IoCtx& io, const std::string& name,
                                        std::mt19937_64& rng) {
    auto bytes = RandomBytes(rng, kObject);
    EXPECT_TRUE(io.WriteFull(name, bytes).ok());
    EXPECT_TRUE(WarmUp(io, {name}, seconds(10))) << "no direct read of " << name;
    return bytes;
  }

  // The OSDs' refusals of direct reads so far, by reason, for failure messages.
  std::string Refusals() {
    std::string out;
    for (const char* r :
         {"off", "not_serving", "map", "no_lease", "range", "absent", "error", "unsettled"}) {
      out += std::string(r) + " " +
             std::to_string(cluster_->MetricSum(
                 std::string("ecstore_osd_direct_reads_total{result=\"") + r + "\"}")) +
             " ";
    }
    return out;
  }

  // A data piece of `object` whose chunk its PG's primary does not hold.
  int NonPrimaryPiece(ec::cluster::client::IoCtx& io, const std::string& object) {
    for (int c = 0; c < 4; ++c) {
      auto [osd, primary] = OsdOf(io, object, c);
      if (osd != primary) return c;
    }
    ADD_FAILURE() << "every data chunk of " << object << " on the primary";
    return 0;
  }

  // Reads each data chunk of `objects` that its primary does not hold until each has been
  // served directly once (an OSD asks for a PG's lease at its first direct read of it, and the
  // lease takes a moment to come): false after `limit`.
  bool WarmUp(ec::cluster::client::IoCtx& io, const std::vector<std::string>& objects,
              milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    std::set<std::pair<std::string, int>> left;
    for (const std::string& o : objects) {
      for (int c = 0; c < 4; ++c) {
        auto [osd, primary] = OsdOf(io, o, c);
        if (osd != primary) left.insert({o, c});
      }
    }
    while (!left.empty() && Clock::now() < deadline) {
      for (auto it = left.begin(); it != left.end();) {
        auto got = io.Read(it->first, static_cast<std::uint64_t>(it->second) * kUnit, kUnit);
        it = got.ok() && got->direct ? left.erase(it) : std::next(it);
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
    return left.empty();
  }
};

TEST_F(DirectRead, ServedByTheShardsOsd) {
  std::mt19937_64 rng(2803);
  for (const std::string pool : {"rs", "clay", "lrc"}) {
    SCOPED_TRACE(pool);
    auto io = cluster_->Pool(pool);
    std::vector<std::string> names;
    std::vector<std::vector<std::byte>> data;
    for (int i = 0; i < 8; ++i) {
      names.push_back("direct" + std::to_string(i));
      data.push_back(RandomBytes(rng, kObject));
      ASSERT_TRUE(io.WriteFull(names.back(), data.back()).ok());
    }
    // The first read of a PG's shard is served directly too: its OSD holds no lease yet, asks
    // for one and serves the read once it comes (it was refused, and the read went through the
    // primary). Each object's first chunk off its primary, once; "but for the odd slow answer".
    int first_direct = 0;
    for (std::size_t i = 0; i < names.size(); ++i) {
      const int piece = NonPrimaryPiece(io, names[i]);
      auto got = io.Read(names[i], static_cast<std::uint64_t>(piece) * kUnit, kUnit);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(std::equal(data[i].begin() + static_cast<std::ptrdiff_t>(piece * kUnit),
                             data[i].begin() + static_cast<std::ptrdiff_t>((piece + 1) * kUnit),
                             ToVector(got->data).begin()))
          << names[i];
      if (got->direct) ++first_direct;
    }
    EXPECT_GE(first_direct * 4, static_cast<int>(names.size()) * 3)
        << "first reads served directly; refusals: " << Refusals();
    ASSERT_TRUE(WarmUp(io, names, seconds(10))) << "no read was served directly";
    const std::uint64_t served_before =
        cluster_->MetricSum("ecstore_osd_direct_reads_total{result=\"served\"}");
    const auto counts_before = cluster_->rados->direct_reads();
    int direct = 0;
    int through_primary = 0;
    int eligible = 0;  // reads of a chunk its primary does not hold
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (std::uint64_t off = 0; off < kObject; off += kUnit) {
        // 1000 bytes inside the chunk, at an odd offset in it.
        auto got = io.Read(names[i], off + 123, 1000);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ASSERT_EQ(got->data.size(), 1000u);
        EXPECT_TRUE(std::equal(data[i].begin() + static_cast<std::ptrdiff_t>(off + 123),
                               data[i].begin() + static_cast<std::ptrdiff_t>(off + 1123),
                               ToVector(got->data).begin()))
            << names[i] << " at " << off;
        const int chunk = static_cast<int>((off / kUnit) % 4);
        auto [osd, primary] = OsdOf(io, names[i], chunk);
        if (osd == primary) {
          EXPECT_FALSE(got->direct) << "the primary's own chunk is read through it";
        } else {
          ++eligible;
        }
        if (got->direct) {
          ++direct;
          EXPECT_EQ(got->version, 0u);  // a shard does not know the object's version
        } else {
          ++through_primary;
        }
      }
    }
    // Every chunk not on its primary was read directly, but for the odd backoff after a refusal.
    EXPECT_GE(direct * 4, eligible * 3)
        << through_primary << " through primaries; refusals: " << Refusals();
    const auto counts = cluster_->rados->direct_reads();
    EXPECT_EQ(counts.served - counts_before.served, static_cast<std::uint64_t>(direct));
    EXPECT_GE(cluster_->MetricSum("ecstore_osd_direct_reads_total{result=\"served\"}"),
              served_before + static_cast<std::uint64_t>(direct));

    // Two chunks, and the whole object (length 0): through the primary, and right.
    auto two = io.Read(names[0], kUnit - 10, 20);
    ASSERT_TRUE(two.ok()) << two.status().ToString();
    EXPECT_FALSE(two->direct);
    EXPECT_TRUE(ToVector(two->data) ==
                std::vector<std::byte>(data[0].begin() + kUnit - 10, data[0].begin() + kUnit + 10));
    auto whole = io.Read(names[0]);
    ASSERT_TRUE(whole.ok()) << whole.status().ToString();
    EXPECT_FALSE(whole->direct);
    EXPECT_TRUE(ToVector(whole->data) == data[0]);

    // An overwrite, read back at once from its shard: the new bytes (the shard's new version is
    // not yet known settled there, so the OSD refuses and the primary answers; or it is, and the
    // shard has them).
    for (int round = 0; round < 20; ++round) {
      const std::string& name = names[static_cast<std::size_t>(round % 8)];
      const int chunk = NonPrimaryPiece(io, name);
      const std::uint64_t off = static_cast<std::uint64_t>(4 + chunk) * kUnit;  // stripe 1
      auto patch = RandomBytes(rng, kUnit);
      ASSERT_TRUE(io.Write(name, patch, off).ok());
      auto got = io.Read(name, off, kUnit);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_TRUE(ToVector(got->data) == patch) << name << " round " << round;
      auto& d = data[static_cast<std::size_t>(round % 8)];
      std::copy(patch.begin(), patch.end(), d.begin() + static_cast<std::ptrdiff_t>(off));
    }
    for (std::size_t i = 0; i < names.size(); ++i) {
      auto got = io.Read(names[i]);
      ASSERT_TRUE(got.ok());
      EXPECT_TRUE(ToVector(got->data) == data[i]) << names[i];
    }
  }
}

TEST_F(DirectRead, TheOsdRefusesWhatItCannotVouchFor) {
  std::mt19937_64 rng(2804);
  auto io = cluster_->Pool("rs");
  const std::string name = "vouch";
  const auto bytes = WriteAndWarmUp(io, name, rng);
  auto loc = cluster_->Locate(io.pool_id(), name);
  ASSERT_TRUE(loc.ok());
  const int chunk = NonPrimaryPiece(io, name);  // in "rs" piece i is chunk i
  ASSERT_EQ(ChunkOf(io, chunk), chunk);
  const int osd = loc->acting[static_cast<std::size_t>(chunk)];
  ec::msg::ClientOptions co;
  co.port = cluster_->osds[static_cast<std::size_t>(osd)]->port();
  auto client = ec::msg::OsdClient::Create(co);
  ASSERT_TRUE(client.ok());
  const auto epoch = static_cast<std::uint64_t>(cluster_->Map().epoch);
  auto ask = [&](std::uint64_t e, std::uint32_t shard, std::uint64_t off, std::uint64_t len,
                 const std::string& object) {
    std::promise<ec::Result<ec::Buffer>> p;
    auto f = p.get_future();
    (*client)->ObjDirectReadAsync(
        ec::msg::ObjDirectReadRequest{static_cast<std::uint64_t>(io.pool_id()), e, object, shard,
                                      off, len},
        [&p](ec::Result<ec::Buffer> got) { p.set_value(std::move(got)); });
    return f.get();
  };
  const std::uint64_t off = static_cast<std::uint64_t>(chunk) * kUnit;
  // The right request is served (the lease is held: WarmUp), with the bytes.
  auto good = ask(epoch, static_cast<std::uint32_t>(chunk), off + 100, 200, name);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_TRUE(ToVector(*good) ==
              std::vector<std::byte>(bytes.begin() + static_cast<std::ptrdiff_t>(off + 100),
                                     bytes.begin() + static_cast<std::ptrdiff_t>(off + 300)));
  const std::uint64_t refused_before =
      cluster_->Metric(osd, "ecstore_osd_direct_reads_total{result=\"map\"}") +
      cluster_->Metric(osd, "ecstore_osd_direct_reads_total{result=\"range\"}") +
      cluster_->Metric(osd, "ecstore_osd_direct_reads_total{result=\"absent\"}");
  struct Case {
    const char* what;
    std::uint64_t epoch;
    std::uint32_t shard;
    std::uint64_t off, len;
    std::string object;
  };
  const std::vector<Case> cases = {
      {"a newer map than the OSD's", epoch + 1000, static_cast<std::uint32_t>(chunk), off, 10,
       name},
      {"another shard", epoch, static_cast<std::uint32_t>((chunk + 1) % 4), off, 10, name},
      {"a parity shard", epoch, 4, off, 10, name},
      {"two chunks", epoch, static_cast<std::uint32_t>(chunk), off + kUnit - 5, 10, name},
      {"past the object's end", epoch, static_cast<std::uint32_t>(chunk), off + kObject, 10, name},
  };
  for (const Case& c : cases) {
    auto got = ask(c.epoch, c.shard, c.off, c.len, c.object);
    ASSERT_FALSE(got.ok()) << c.what;
    EXPECT_EQ(got.status().code(), EAGAIN) << c.what << ": " << got.status().ToString();
    EXPECT_TRUE(got.status().is_retryable()) << c.what;
    EXPECT_NE(got.status().message().find("cannot vouch"), std::string::npos)
        << got.status().message();
  }
  // An object that does not exist: refused (the primary answers ENOENT to the client).
  auto absent = ask(epoch, static_cast<std::uint32_t>(chunk), off, 10, "no-such-object");
  ASSERT_FALSE(absent.ok());
  EXPECT_EQ(absent.status().code(), EAGAIN);
  auto via_client = io.Read("no-such-object", 0, 10);
  EXPECT_EQ(via_client.status().code(), ENOENT) << via_client.status().ToString();
  const std::uint64_t refused =
      cluster_->Metric(osd, "ecstore_osd_direct_reads_total{result=\"map\"}") +
      cluster_->Metric(osd, "ecstore_osd_direct_reads_total{result=\"range\"}") +
      cluster_->Metric(osd, "ecstore_osd_direct_reads_total{result=\"absent\"}");
  EXPECT_GE(refused - refused_before, cases.size() + 1);
  // The primary refuses too: it serves its own chunk through ObjRead.
  ec::msg::ClientOptions po;
  po.port = cluster_->osds[static_cast<std::size_t>(loc->primary)]->port();
  auto primary = ec::msg::OsdClient::Create(po);
  ASSERT_TRUE(primary.ok());
  client = std::move(primary);
  int own = 0;
  while (loc->acting[static_cast<std::size_t>(own)] != loc->primary) ++own;
  auto mine = ask(epoch, static_cast<std::uint32_t>(own), static_cast<std::uint64_t>(own) * kUnit,
                  10, name);
  EXPECT_EQ(mine.status().code(), EAGAIN) << mine.status().ToString();
}

TEST_F(DirectRead, AStaleOrDeadShardIsNeverReadDirectly) {
  std::mt19937_64 rng(2805);
  auto io = cluster_->Pool("rs");
  const std::string name = "stale";
  auto bytes = WriteAndWarmUp(io, name, rng);
  const int chunk = NonPrimaryPiece(io, name);
  const int osd = OsdOf(io, name, chunk).first;
  const std::uint64_t off = static_cast<std::uint64_t>(chunk) * kUnit;
  auto direct = io.Read(name, off, kUnit);
  ASSERT_TRUE(direct.ok());

  // Frozen while the chunk is overwritten: the write is acknowledged without it (its sub-write
  // times out), and the map marks it down meanwhile.
  ASSERT_TRUE(cluster_->osds[static_cast<std::size_t>(osd)]->Stop());
  auto patch = RandomBytes(rng, kUnit);
  auto wrote = io.Write(name, patch, off);
  ASSERT_TRUE(wrote.ok()) << wrote.status().ToString();
  std::copy(patch.begin(), patch.end(), bytes.begin() + static_cast<std::ptrdiff_t>(off));
  ASSERT_TRUE(cluster_->osds[static_cast<std::size_t>(osd)]->Continue());
  // While it comes back, boots again and its shard is rebuilt: the new bytes, every time.
  const auto until = Clock::now() + seconds(8);
  int reads = 0;
  while (Clock::now() < until) {
    auto got = io.Read(name, off, kUnit);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(ToVector(got->data) == patch)
        << "read " << reads << (got->direct ? " (direct)" : "");
    ++reads;
  }
  ASSERT_TRUE(cluster_->WaitClean(seconds(60)));
  ASSERT_TRUE(WarmUp(io, {name}, seconds(10)));

  // Killed while readers run: every read answers the object's bytes (through the primary once the
  // shard's OSD does not answer).
  std::atomic<bool> stop{false};
  std::atomic<int> bad{0};
  std::atomic<int> done{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        auto got = io.Read(name, off + 7, 100);
        if (!got.ok() || !std::equal(bytes.begin() + static_cast<std::ptrdiff_t>(off + 7),
                                     bytes.begin() + static_cast<std::ptrdiff_t>(off + 107),
                                     ToVector(got->data).begin())) {
          ++bad;
        }
        ++done;
      }
    });
  }
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_TRUE(cluster_->Kill(osd));
  std::this_thread::sleep_for(seconds(4));
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0) << "of " << done.load() << " reads";
  EXPECT_GT(done.load(), 10);
  cluster_->Restart(osd);
  EXPECT_TRUE(cluster_->WaitClean(seconds(60)));
}

TEST_F(DirectRead, ATruncatedRangeIsNeverReadDirectly) {
  std::mt19937_64 rng(2806);
  auto io = cluster_->Pool("rs");
  const std::string name = "truncated";
  auto bytes = RandomBytes(rng, kObject);
  ASSERT_TRUE(io.WriteFull(name, bytes).ok());
  ASSERT_TRUE(WarmUp(io, {name}, seconds(10))) << Refusals();
  const int piece = NonPrimaryPiece(io, name);  // in "rs" piece i is chunk i
  // That piece of the third stripe: object bytes [(8 + piece) * 4096, +4096).
  const std::uint64_t off = (8 + static_cast<std::uint64_t>(piece)) * kUnit;
  auto before = io.Read(name, off, kUnit);
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_TRUE(ToVector(before->data) ==
              std::vector<std::byte>(bytes.begin() + static_cast<std::ptrdiff_t>(off),
                                     bytes.begin() + static_cast<std::ptrdiff_t>(off + kUnit)));

  // Cut to two stripes: the chunk's bytes are gone from its shard.
  ASSERT_TRUE(io.Truncate(name, 8 * kUnit).ok());
  const auto refused_before = cluster_->rados->direct_reads().refused;
  for (int i = 0; i < 10; ++i) {
    auto got = io.Read(name, off, kUnit);
    ASSERT_FALSE(got.ok()) << "read " << i << " returned " << got->data.size() << " bytes"
                           << (got->direct ? " (direct)" : "");
    EXPECT_EQ(got.status().code(), EINVAL) << got.status().ToString();
    std::this_thread::sleep_for(milliseconds(20));
  }
  // The first tries went to the shard's OSD, which refused them (then the PG backs off).
  EXPECT_GT(cluster_->rados->direct_reads().refused, refused_before);
  auto st = io.Stat(name);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->size, 8 * kUnit);

  // Grown back with zeros: zeros, read directly once the lease covers the new version.
  ASSERT_TRUE(io.Truncate(name, kObject).ok());
  const std::vector<std::byte> zeros(kUnit, std::byte{0});
  bool direct = false;
  const auto deadline = Clock::now() + seconds(10);
  while (!direct && Clock::now() < deadline) {
    auto got = io.Read(name, off, kUnit);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_TRUE(ToVector(got->data) == zeros) << (got->direct ? "direct" : "through the primary");
    direct = got->direct;
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_TRUE(direct) << Refusals();
  // The bytes the truncate kept are the old ones.
  auto head = io.Read(name, 0, 8 * kUnit);
  ASSERT_TRUE(head.ok());
  EXPECT_TRUE(ToVector(head->data) ==
              std::vector<std::byte>(bytes.begin(), bytes.begin() + 8 * kUnit));
}

}  // namespace
