// Degraded reads through repair chains in-process (issue 33; object_io.h "Reads"), on the seven
// OSDs of repair_chain_test_util.h: ReadObject as the primary on OSD 0 (position 0 its own shard,
// read in process, and the chains' first hop through its own ChainService), position 1's OSD gone.
// Every read is compared byte for byte with the object and with the direct degraded read (io.chain
// null) of the same range; checked too: which reads take a chain (large ones, not small ones, not
// those that need no lost bytes), the bytes the primary receives from it (one chunk per stripe the
// range touches), and what a stalled helper or a helper at another version does (the bytes stay
// right: a chain without it, or the direct read).
#include <gtest/gtest.h>

#include <cstring>
#include <utility>

#include "osd/pg/object_io.h"
#include "osd/pg/repair_chain.h"
#include "osd/pg/repair_chain_test_util.h"
#include "osd/pg/shard_link.h"

namespace ec::osd::pg {
namespace {

using testing::kClayPool;
using testing::kCollection;
using testing::kRsPool;
using testing::kStripeUnit;
using testing::RepairChainTest;
using namespace std::chrono_literals;

constexpr std::uint64_t kReadStripes = 24;  // objects of 24 stripes (the last one part padding)
constexpr int kReadLost = 1;                // the data position whose OSD is gone
constexpr int kReadSelf = 0;                // the primary's own position (OSD 0)
constexpr std::int64_t kReadWidePool = 3;   // RS(4,2) with 64 KiB chunks (added by the fixture)
constexpr std::uint64_t kReadWideUnit = 64 * 1024;

class ChainReadTest : public RepairChainTest {
 protected:
  void SetUp() override {
    RepairChainTest::SetUp();
    if (HasFatalFailure()) return;
    cluster::ClusterMap wide = map_;
    wide.epoch = map_.epoch + 1;
    wide.pools[kReadWidePool] = {kReadWidePool, "wide-pool", "rs", 1, kReadWideUnit, 5};
    wide.pool_max = kReadWidePool;
    map_ = wide;
    ASSERT_TRUE(maps_.Set(wide));
    for (int osd = 0; osd < 6; ++osd) {
      std::shared_ptr<msg::OsdClient> client = Client(osd);
      ASSERT_TRUE(client);
      clients_.push_back(std::move(client));
    }
    reads_.mode = RepairPipeline::kOn;
    reads_.options.slice_bytes = 8 * 1024;  // two 4 KiB chunks per slice
    reads_.options.timeout = 1500ms;
    reads_.plans = &plans_;
    reads_.metrics = &primary_metrics_;
  }

  // An object of `stripes` stripes in `pool` at `version`; its bytes in *bytes.
  void Put(std::int64_t pool, const std::string& name, std::uint64_t version,
           std::vector<std::byte>* bytes, std::uint64_t stripes = kReadStripes) {
    shards_ = PutObject(pool, name, version, &size_, stripes);
    ASSERT_EQ(shards_.size(), 6u);
    const PoolCodec& codec = Codec(pool);
    const std::uint64_t c = codec.layout.chunk_size();
    const std::uint64_t w = codec.layout.stripe_width();
    bytes->assign(size_, std::byte{0});
    for (std::uint64_t at = 0; at < size_; ++at) {
      const std::uint64_t s = at / w, i = (at % w) / c, j = at % c;
      (*bytes)[at] = shards_[i].data()[s * c + j];
    }
  }

  // The primary's view of object `name` of `pool`: every position up but kReadLost, kReadSelf its
  // own.
  ObjectIo Io(std::int64_t pool, const std::string& name, const ChainReads* chain) {
    loc_.pool_id = pool;
    loc_.pgid = std::to_string(pool) + ".0";
    loc_.collection = kCollection;
    loc_.acting = {0, 1, 2, 3, 4, 5};
    loc_.up = loc_.acting;
    loc_.primary = 0;
    loc_.k = 4;
    loc_.min_size = 5;
    ObjectIo io;
    io.loc = &loc_;
    io.codec = &Codec(pool);
    io.object = name;
    for (int p = 0; p < 6; ++p) {
      if (p == kReadLost) continue;
      io.clients[p] = p == kReadSelf ? ShardLink::Local(osds_[kReadSelf]->shards.get(), nullptr)
                                     : ShardLink::Remote(clients_[static_cast<std::size_t>(p)]);
    }
    io.self_position = kReadSelf;
    io.shards = osds_[kReadSelf]->shards.get();
    io.epoch = static_cast<std::uint64_t>(map_.epoch);
    io.timeout = 3s;
    io.chain = chain;
    return io;
  }

  ObjectState State(std::uint64_t version) const {
    ObjectState st;
    st.exists = true;
    st.version = version;
    st.size = size_;
    for (int p = 0; p < 6; ++p) {
      if (p != kReadLost) st.current.push_back(p);
    }
    return st;
  }

  // Reads [offset, +length) with `chain` (null: the direct read) and checks it against `bytes`.
  ::testing::AssertionResult ReadsRight(std::int64_t pool, const std::string& name,
                                        std::uint64_t version, const std::vector<std::byte>& bytes,
                                        std::uint64_t offset, std::uint64_t length,
                                        const ChainReads* chain, ReadOutcome* outcome) {
    ObjectIo io = Io(pool, name, chain);
    auto got = ReadObject(io, State(version), offset, length);
    if (!got.ok()) return ::testing::AssertionFailure() << got.status().ToString();
    const std::uint64_t want = std::min(length, bytes.size() - offset);
    if (got->bytes.size() != want) {
      return ::testing::AssertionFailure() << got->bytes.size() << " bytes, " << want << " asked";
    }
    if (std::memcmp(got->bytes.data(), bytes.data() + offset, want) != 0) {
      return ::testing::AssertionFailure() << "other bytes than the object's";
    }
    *outcome = std::move(got).value();
    return ::testing::AssertionSuccess();
  }

  // A counter of the primary's registry (ChainReads::metrics), 0 when absent.
  std::uint64_t PrimaryCount(const std::string& line_start) {
    const std::string text = primary_metrics_.RenderPrometheus();
    const auto at = text.find(line_start + " ");
    return at == std::string::npos ? 0 : std::stoull(text.substr(at + line_start.size() + 1));
  }
  std::uint64_t PrimaryChainIn() {
    return PrimaryCount("ecstore_repair_chain_bytes_total{dir=\"in\",role=\"requester\"}");
  }

  // What a read of [offset, +length) needs of the lost shard: its bytes and the stripes they lie
  // in (the layout's own arithmetic).
  struct Lost {
    std::uint64_t bytes = 0;
    std::uint64_t stripes = 0;
  };
  Lost LostOf(std::int64_t pool, std::uint64_t offset, std::uint64_t length) {
    const StripeLayout& layout = Codec(pool).layout;
    Lost out;
    auto extents = layout.data_extents(offset, std::min(length, size_ - offset));
    EXPECT_TRUE(extents.ok());
    if (!extents.ok()) return out;
    for (const ShardExtent& e : *extents) {
      if (e.shard != kReadLost || e.length == 0) continue;
      out.bytes += e.length;
      const std::uint64_t c = layout.chunk_size();
      out.stripes += (e.offset + e.length + c - 1) / c - e.offset / c;
    }
    return out;
  }

  // Ranges of an object of kReadStripes stripes of 16 KiB (4 data chunks of 4 KiB; chunk 1 lost).
  std::vector<std::pair<std::uint64_t, std::uint64_t>> Ranges() const {
    const std::uint64_t w = 4 * kStripeUnit;
    return {
        {0, size_},                          // the whole object
        {3 * w + 777, 10 * w + 123},         // unaligned: stripes 3..12 of the lost chunk
        {w + kStripeUnit + 5, 4 * w},        // from inside lost chunk 1 to inside chunk 5
        {5 * w + kStripeUnit, kStripeUnit},  // lost chunk 5 alone: below a slice, direct
        {7 * w + 2 * kStripeUnit, 4 * w - 2 * kStripeUnit},  // lost chunks 8..10
        {20 * w + 100, size_},                       // to the end (the last stripe part padding)
        {2 * w + 2 * kStripeUnit, 2 * kStripeUnit},  // data chunks 2 and 3: nothing lost
        {10 * w + kStripeUnit + 1000, 2 * w},        // lost [1000, 4096), all of 11, [0, 1000)
    };
  }

  std::vector<std::shared_ptr<msg::OsdClient>> clients_;
  ChainPlans plans_;
  MetricsRegistry primary_metrics_;
  ChainReads reads_;
  cluster::PgLocation loc_;
  std::vector<Buffer> shards_;
  std::uint64_t size_ = 0;
};

TEST_F(ChainReadTest, RsDegradedReadsThroughAChainAreByteIdenticalToDirectOnes) {
  std::vector<std::byte> bytes;
  Put(kRsPool, "rs", 7, &bytes);
  std::uint64_t chained_reads = 0, expect_in = 0;
  for (const auto& [offset, length] : Ranges()) {
    SCOPED_TRACE(::testing::Message() << "[" << offset << ", +" << length << ")");
    ReadOutcome direct, chained;
    ASSERT_TRUE(ReadsRight(kRsPool, "rs", 7, bytes, offset, length, nullptr, &direct));
    ASSERT_TRUE(ReadsRight(kRsPool, "rs", 7, bytes, offset, length, &reads_, &chained));
    EXPECT_TRUE(chained.chain_failure.ok()) << chained.chain_failure.ToString();
    ASSERT_EQ(chained.bytes.size(), direct.bytes.size());
    EXPECT_EQ(std::memcmp(chained.bytes.data(), direct.bytes.data(), direct.bytes.size()), 0);
    const Lost lost = LostOf(kRsPool, offset, length);
    EXPECT_EQ(direct.degraded, lost.bytes > 0);
    EXPECT_EQ(chained.degraded, direct.degraded);
    // A chain from one 8 KiB slice of the lost shard's bytes on.
    EXPECT_EQ(chained.chained, lost.bytes >= 8 * 1024);
    if (!chained.chained) {
      EXPECT_EQ(chained.chain_bytes, 0u);
      EXPECT_EQ(chained.network_bytes, direct.network_bytes);
      continue;
    }
    ++chained_reads;
    // Exactly the lost bytes the range needs (RS slices may be parts of a chunk), once.
    EXPECT_EQ(chained.chain_bytes, lost.bytes);
    expect_in += lost.bytes;
  }
  EXPECT_EQ(chained_reads, 6u);
  EXPECT_EQ(PrimaryChainIn(), expect_in);
  // The primary's own shard was the chains' first hop, served by OSD 0's ChainService: it sent
  // one chunk's worth per chained byte; the OSD of the lost position saw nothing.
  EXPECT_EQ(ChainOut(kReadSelf), expect_in);
  EXPECT_EQ(HopIn(kReadSelf), 0u);
  EXPECT_EQ(Count(kReadLost, "ecstore_osd_ops_total{op=\"sub_repair_chain\"}"), 0u);
  EXPECT_EQ(PrimaryCount("ecstore_repair_chain_slices_total{result=\"failed\"}"), 0u);
}

TEST_F(ChainReadTest, ClayDegradedReadsThroughAChainAreByteIdenticalToDirectOnes) {
  std::vector<std::byte> bytes;
  Put(kClayPool, "clay", 5, &bytes);
  std::uint64_t chained_reads = 0, expect_in = 0;
  for (const auto& [offset, length] : Ranges()) {
    SCOPED_TRACE(::testing::Message() << "[" << offset << ", +" << length << ")");
    ReadOutcome direct, chained;
    ASSERT_TRUE(ReadsRight(kClayPool, "clay", 5, bytes, offset, length, nullptr, &direct));
    ASSERT_TRUE(ReadsRight(kClayPool, "clay", 5, bytes, offset, length, &reads_, &chained));
    EXPECT_TRUE(chained.chain_failure.ok()) << chained.chain_failure.ToString();
    ASSERT_EQ(chained.bytes.size(), direct.bytes.size());
    EXPECT_EQ(std::memcmp(chained.bytes.data(), direct.bytes.data(), direct.bytes.size()), 0);
    const Lost lost = LostOf(kClayPool, offset, length);
    EXPECT_EQ(chained.chained, lost.bytes >= 8 * 1024);
    if (!chained.chained) continue;
    ++chained_reads;
    // CLAY rebuilds whole chunks of the stripes touched: one chunk each, where its direct
    // sub-chunk repair brings d/q = 2.5 chunks.
    EXPECT_EQ(chained.chain_bytes, lost.stripes * kStripeUnit);
    expect_in += lost.stripes * kStripeUnit;
  }
  EXPECT_EQ(chained_reads, 6u);
  EXPECT_EQ(PrimaryChainIn(), expect_in);
  EXPECT_EQ(ChainOut(kReadSelf), expect_in);  // the primary's shard first in every chain
  // The four other helpers (a CLAY(4,2,5) repair reads all d = 5) each sent one chunk per stripe.
  for (int osd = 2; osd < 6; ++osd) EXPECT_EQ(ChainOut(osd), expect_in) << "osd." << osd;
}

// A read of one whole lost chunk (64 KiB chunks): a direct read brings it from three remote
// helpers (the primary's own shard the fourth), a chain brings it once.
TEST_F(ChainReadTest, AWholeLostChunkComesOnceThroughTheChainAndThreeTimesDirectly) {
  std::vector<std::byte> bytes;
  Put(kReadWidePool, "chunk", 3, &bytes, 4);
  const std::uint64_t w = 4 * kReadWideUnit;
  ReadOutcome direct, chained;
  ASSERT_TRUE(ReadsRight(kReadWidePool, "chunk", 3, bytes, w + kReadWideUnit, kReadWideUnit,
                         nullptr, &direct));
  ASSERT_TRUE(ReadsRight(kReadWidePool, "chunk", 3, bytes, w + kReadWideUnit, kReadWideUnit,
                         &reads_, &chained));
  EXPECT_TRUE(direct.degraded);
  EXPECT_FALSE(direct.chained);
  EXPECT_EQ(direct.network_bytes, 3 * kReadWideUnit);
  EXPECT_TRUE(chained.chained);
  EXPECT_EQ(chained.chain_bytes, kReadWideUnit);
  EXPECT_EQ(chained.network_bytes, kReadWideUnit);
  EXPECT_EQ(PrimaryChainIn(), kReadWideUnit);
  // Four hops (the primary's shard and three others), each sent the chunk's bytes once.
  for (int osd : {0, 2, 3, 4}) EXPECT_EQ(ChainOut(osd), kReadWideUnit) << "osd." << osd;
}

TEST_F(ChainReadTest, AHelperStalledMidChainIsLeftOutAndTheReadIsRight) {
  std::vector<std::byte> bytes;
  Put(kRsPool, "stall", 9, &bytes);
  // The chain is 0 (the primary) -> 2 -> 3 -> 4; OSD 3 in the middle stalls: its successor names
  // it within its share of the deadline, and the next chain is 0 -> 2 -> 4 -> 5.
  fronts_[3]->Stall(true);
  ReadOutcome got;
  ASSERT_TRUE(ReadsRight(kRsPool, "stall", 9, bytes, 0, size_, &reads_, &got));
  EXPECT_GT(fronts_[3]->chains(), 0) << "the stalled helper was never asked";
  EXPECT_TRUE(got.chained);
  EXPECT_TRUE(got.chain_failure.ok()) << got.chain_failure.ToString();
  EXPECT_EQ(got.chain_bytes, kReadStripes * kStripeUnit);  // every slice received once
  EXPECT_GE(PrimaryCount("ecstore_repair_chain_slices_total{result=\"failed\"}"), 1u);
  EXPECT_GT(ChainOut(5), 0u) << "no chain without the stalled helper";
}

TEST_F(ChainReadTest, AChainThatFailsFallsBackToTheDirectReadAndTheBytesAreRight) {
  std::vector<std::byte> bytes;
  Put(kClayPool, "fallback", 9, &bytes);
  ChainReads one = reads_;
  one.options.max_chains = 1;  // no second chain: the direct read
  fronts_[4]->Stall(true);
  const std::uint64_t w = 4 * kStripeUnit;
  for (const auto& [offset, length] :
       std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, size_}, {3 * w + 777, 10 * w}}) {
    SCOPED_TRACE(::testing::Message() << "[" << offset << ", +" << length << ")");
    ReadOutcome got;
    ASSERT_TRUE(ReadsRight(kClayPool, "fallback", 9, bytes, offset, length, &one, &got));
    EXPECT_FALSE(got.chained);
    EXPECT_TRUE(got.degraded);
    EXPECT_FALSE(got.chain_failure.ok());
    EXPECT_NE(got.chain_failure.message().find("osd.4"), std::string::npos)
        << got.chain_failure.ToString();
  }
  EXPECT_GT(fronts_[4]->chains(), 0);
}

TEST_F(ChainReadTest, AHelperAtAnotherVersionNeverGivesWrongBytes) {
  std::vector<std::byte> bytes;
  Put(kRsPool, "ver", 4, &bytes);
  // Shard 3 moved on to version 5 with other bytes behind the primary's back: its hop fails the
  // version check, the next chain leaves it out; the direct part of the read goes around it too.
  ASSERT_TRUE(PutShard(*osds_[3], "ver", 3, 5, 4, size_, shards_[0]).ok());
  ReadOutcome got;
  ASSERT_TRUE(ReadsRight(kRsPool, "ver", 4, bytes, 0, size_, &reads_, &got));
  EXPECT_TRUE(got.chained);
  EXPECT_GE(Count(3, "ecstore_repair_chain_stages_total{result=\"failed\"}"), 1u);
}

// osd_repair_pipeline = auto (repair_chain.h ChainPaysOff, recovery/link_cost.h), every
// bandwidth unknown: a chain where the direct repair would add D >= 2 (C + n slices) on the
// primary's link, C the lost bytes (at least one slice), n the chain's hops (4 here, the primary's
// own shard first). Slices of 4 KiB: a lost chunk is 16.
TEST_F(ChainReadTest, AutoChainsWhereTheDirectRepairBringsTwiceAsMuch) {
  ChainReads autos = reads_;
  autos.mode = RepairPipeline::kAuto;
  autos.options.slice_bytes = kReadWideUnit / 16;
  std::vector<std::byte> bytes;
  Put(kReadWidePool, "auto", 3, &bytes, 4);
  const std::uint64_t w = 4 * kReadWideUnit;
  ReadOutcome chunk, small, whole;
  // One lost chunk: the direct repair adds three remote chunks (2, 3 and a parity), 48 slices
  // against 2 x (16 + 4): a chain.
  ASSERT_TRUE(ReadsRight(kReadWidePool, "auto", 3, bytes, w + kReadWideUnit, kReadWideUnit, &autos,
                         &chunk));
  EXPECT_TRUE(chunk.chained);
  // A quarter of it: 12 slices against 2 x (4 + 4): the chain's fill tips it.
  ASSERT_TRUE(ReadsRight(kReadWidePool, "auto", 3, bytes, w + kReadWideUnit, kReadWideUnit / 4,
                         &autos, &small));
  EXPECT_FALSE(small.chained);
  EXPECT_TRUE(small.degraded);
  // The whole object: the read brings data chunks 2 and 3 anyway, the direct repair adds only
  // the parity's chunk per lost chunk.
  ASSERT_TRUE(ReadsRight(kReadWidePool, "auto", 3, bytes, 0, size_, &autos, &whole));
  EXPECT_FALSE(whole.chained);
  EXPECT_TRUE(whole.degraded);
  ChainReads never = reads_;
  never.mode = RepairPipeline::kOff;
  ReadOutcome off;
  ASSERT_TRUE(
      ReadsRight(kReadWidePool, "auto", 3, bytes, w + kReadWideUnit, kReadWideUnit, &never, &off));
  EXPECT_FALSE(off.chained);
  EXPECT_EQ(PrimaryChainIn(), kReadWideUnit);  // the one chained read

  // The bandwidths in the map: the primary's link at 10 Gbit/s, the other OSDs' at 1 Gbit/s. The
  // direct repair's three chunks come at once, each on its own slow link (16 slices' time); the
  // chain carries the chunk over slow links only, plus its fill (2 x (16 + 4) slices' time): the
  // same read is now direct.
  cluster::ClusterMap m = map_;
  ++m.epoch;
  for (auto& [id, o] : m.osds) {
    o.network_bandwidth = id == kReadSelf ? 1'250'000'000 : 125'000'000;
  }
  map_ = m;
  ASSERT_TRUE(maps_.Set(m));
  autos.map = &maps_;
  autos.osd_id = kReadSelf;
  ReadOutcome fast;
  ASSERT_TRUE(
      ReadsRight(kReadWidePool, "auto", 3, bytes, w + kReadWideUnit, kReadWideUnit, &autos, &fast));
  EXPECT_FALSE(fast.chained);
  EXPECT_TRUE(fast.degraded);
  // Every link equal again (published): a chain, as with none known.
  for (auto& [id, o] : m.osds) o.network_bandwidth = 125'000'000;
  ++m.epoch;
  map_ = m;
  ASSERT_TRUE(maps_.Set(m));
  ReadOutcome equal;
  ASSERT_TRUE(ReadsRight(kReadWidePool, "auto", 3, bytes, w + kReadWideUnit, kReadWideUnit, &autos,
                         &equal));
  EXPECT_TRUE(equal.chained);
  EXPECT_EQ(PrimaryChainIn(), 2 * kReadWideUnit);
}

TEST(ChainChoice, TheRuleOfAuto) {
  ChainRepairOptions o;
  o.slice_bytes = 256 * 1024;
  EXPECT_FALSE(ChainLongEnough(256 * 1024 - 1, o));
  EXPECT_TRUE(ChainLongEnough(256 * 1024, o));
}

}  // namespace
}  // namespace ec::osd::pg
