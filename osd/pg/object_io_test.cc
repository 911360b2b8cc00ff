// WriteObject's outcome when a write reaches some shards only (object_io.h), in-process: four
// OSDs (a real store behind a real shard::OsdService, served on loopback), an RS(2,2) pool,
// min_size 3. A gate in front of chosen OSDs applies their SubWrites only after the primary's
// sub-operation timeout, as a slow or stalled OSD would. Checked: when fewer than k shards may
// still hold a failed write, it fails Retryable EAGAIN and the object stays at its old content;
// when k may, it fails Retryable EINPROGRESS (the client must not repeat an append), and indeed the
// next resolve settles the write. And the object's metadata (issue 29): written with every write,
// alone as a version of its own, rolled back with a failed write, given to a stale shard by a
// whole rewrite, and read back from a shard at the object's version.
#include "osd/pg/object_io.h"

#include <gtest/gtest.h>

#include "osd/pg/object_io_test_util.h"

namespace ec::osd::pg {
namespace {

using namespace std::chrono_literals;
using testing::Geometry;
using testing::kEpoch;
using testing::ObjectIoTest;

TEST_F(ObjectIoTest, AFailedWriteThatFewerThanKShardsMayHoldFailsEagainAndIsUndone) {
  const std::uint64_t v1 = (kEpoch << 32) | 1;
  auto first = WriteFull(Absent(), Bytes(10000, 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Shard 3's OSD was scanned by a newer primary (it refuses this one's writes); shard 2's OSD
  // applies the write only after the timeout.
  msg::SubScanRequest scan{loc_.collection, 3, "", 10};
  scan.epoch = kEpoch + 1;
  ASSERT_TRUE(osds_[3]->client->SubScan(scan).ok());
  osds_[2]->gate->delay_ms = 600;
  auto second = WriteFull(*first, Bytes(10000, 'b'), (kEpoch << 32) | 2);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EAGAIN) << second.status().ToString();
  EXPECT_TRUE(second.status().is_retryable());
  // Shards 0 and 1 were rolled back; shard 2 alone holds the write: never settled.
  osds_[2]->gate->delay_ms = 0;
  EXPECT_EQ(Settled(), std::string(10000, 'a'));
}

// A shard whose store fails the write (EIO: a failing device) is a position that did not take
// it, not a refusal: the write is acknowledged from the other three (min_size 3 of 2+2) and that
// shard is left at its old version, for recovery. Any other error from a shard still fails the
// write.
TEST_F(ObjectIoTest, AShardWhoseStoreFailsTheWriteIsLeftBehind) {
  const std::uint64_t v1 = (kEpoch << 32) | 1, v2 = (kEpoch << 32) | 2;
  auto first = WriteFull(Absent(), Bytes(16384, 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  osds_[3]->gate->fail_errno = EIO;
  auto second = WriteFull(*first, Bytes(16384, 'b'), v2);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(ShardVersion(3), v1);
  for (int p = 0; p < 3; ++p) EXPECT_EQ(ShardVersion(p), v2) << p;
  osds_[3]->gate->fail_errno = EINVAL;
  auto third = WriteFull(*second, Bytes(16384, 'c'), (kEpoch << 32) | 3);
  ASSERT_FALSE(third.ok());
  EXPECT_EQ(third.status().code(), EINVAL) << third.status().ToString();
  osds_[3]->gate->fail_errno = 0;
  EXPECT_EQ(Settled(), std::string(16384, 'b'));
}

TEST_F(ObjectIoTest, AFailedWriteThatKShardsMayHoldFailsEinprogressAndMayBeSettled) {
  const std::uint64_t v1 = (kEpoch << 32) | 1;
  auto first = WriteFull(Absent(), Bytes(10000, 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Shards 2 and 3 answer too late: two positions (k) may hold the write once they apply it.
  osds_[2]->gate->delay_ms = 600;
  osds_[3]->gate->delay_ms = 600;
  auto second = WriteFull(*first, Bytes(10000, 'b'), (kEpoch << 32) | 2);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), EINPROGRESS) << second.status().ToString();
  EXPECT_TRUE(second.status().is_retryable());
  EXPECT_NE(second.status().message().find("may still be applied"), std::string::npos)
      << second.status().message();
  // Which is what happens: the late shards took it, k of them, and the resolve rolls it forward
  // (had the client appended again, the object would hold the data twice).
  osds_[2]->gate->delay_ms = 0;
  osds_[3]->gate->delay_ms = 0;
  EXPECT_EQ(Settled(), std::string(10000, 'b'));
}

// Which positions a write of part of the object changes: the data pieces its bytes cover (also
// across a stripe boundary, and every piece once it spans k chunks), those whose stored length
// changes, and the parity always.
// A shard that missed a remove keeps the removed object's bytes; a write that creates the object
// again (an append, a write at an offset: not a write_full) replaces it whole like every other
// shard. It used to send it a range write, which the shard refused as shrinking it (EINVAL to the
// client: the thrasher's "a range write may not shrink shard" notes), or would have kept old bytes
// beside the new ones.
TEST_F(ObjectIoTest, AWriteThatCreatesTheObjectAgainReplacesAShardThatMissedTheRemove) {
  const std::uint64_t v1 = (kEpoch << 32) | 1, v2 = (kEpoch << 32) | 2, v3 = (kEpoch << 32) | 3;
  auto first = WriteFull(Absent(), Bytes(20000, 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ObjectIo without = io_;
  without.clients.erase(3);
  auto removed = RemoveObject(without, *first, v2, loc_.min_size);
  ASSERT_TRUE(removed.ok()) << removed.status().ToString();
  ASSERT_FALSE(removed->exists);
  ASSERT_EQ(removed->stale.count(3), 1u);  // position 3 still holds the old object
  EXPECT_EQ(ShardVersion(3), v1);
  for (const std::uint64_t offset : {std::uint64_t{0}, std::uint64_t{9000}}) {
    SCOPED_TRACE(offset);
    const std::uint64_t v = offset == 0 ? v3 : v3 + 2;
    ASSERT_EQ(removed->stale.count(3), 1u);
    auto again = WriteAt(*removed, offset, Bytes(100, 'b'), v);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(ShardVersion(3), v);
    std::string want(offset, '\0');
    want += std::string(100, 'b');
    EXPECT_EQ(Settled(), want);
    if (offset == 0) {
      // Remove it again with position 3 left behind, for the write at an offset.
      auto gone = RemoveObject(without, *again, v3 + 1, loc_.min_size);
      ASSERT_TRUE(gone.ok()) << gone.status().ToString();
      removed = gone;
    }
  }
}

TEST_F(ObjectIoTest, ChangedPositionsAreTheCoveredPiecesTheResizedOnesAndTheParity) {
  // C 4096, stripe 8192, data 0 1, parity 2 3; without padding (the fixture's pool is padded).
  auto made = StripeLayout::Make(*codec_->code, 4096, Padding::kNone);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  const StripeLayout& layout = *made;
  auto changed = [&](std::uint64_t old_size, std::uint64_t offset, std::uint64_t length) {
    auto plan =
        PlanWrite(layout, true, old_size, msg::ObjWriteMode::kWrite, offset, length, 1ull << 30);
    EXPECT_TRUE(plan.ok());
    return object_io_detail::ChangedPositions(layout, old_size, *plan, length);
  };
  EXPECT_EQ(changed(32768, 5000, 100), (std::set<int>{1, 2, 3}));
  EXPECT_EQ(changed(32768, 8192, 4096), (std::set<int>{0, 2, 3}));
  // Across the stripe boundary: piece 1 of stripe 0 and piece 0 of stripe 1.
  EXPECT_EQ(changed(32768, 6000, 4000), (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(changed(32768, 4096, 4096), (std::set<int>{1, 2, 3}));
  // Shorter than a stripe yet over three chunks (pieces 0, 1, 0): both pieces.
  EXPECT_EQ(changed(32768, 1000, 8000), (std::set<int>{0, 1, 2, 3}));
  // An append into stripe 1 of an object that ended inside piece 0 of stripe 0: piece 1 now
  // stores its (zero) bytes too.
  EXPECT_EQ(changed(1000, 8192, 10), (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(changed(8192, 8192, 10), (std::set<int>{0, 2, 3}));
  // Padded to whole stripes, the same append grows every shard by a chunk.
  EXPECT_EQ(
      object_io_detail::ChangedPositions(
          codec_->layout, 8192,
          *PlanWrite(codec_->layout, true, 8192, msg::ObjWriteMode::kWrite, 8192, 10, 1 << 20), 10),
      (std::set<int>{0, 1, 2, 3}));
}

// RS(2,2), stripe unit 4 KiB: position 0 and 1 are the data chunks, 2 and 3 the parity. A 4 KiB
// overwrite of the chunk at object offset 8192 (stripe 1, chunk 0) changes position 0 and the
// parity; position 1 gets no SubWrite and keeps its version.
TEST_F(ObjectIoTest, AnOverwriteGoesOnlyToTheShardsItChanges) {
  const std::uint64_t v1 = (kEpoch << 32) | 1, v2 = (kEpoch << 32) | 2;
  std::string want(32768, 'a');
  auto first = WriteFull(Absent(), Bytes(want.size(), 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(SubWrites(), (std::vector<int>{1, 1, 1, 1}));
  auto second = WriteAt(*first, 8192, Bytes(4096, 'b'), v2);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  want.replace(8192, 4096, std::string(4096, 'b'));
  EXPECT_EQ(SubWrites(), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(second->versions, (msg::ShardVersions{v2, v1, v2, v2}));
  EXPECT_EQ(second->current, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(ShardVersion(1), v1);
  EXPECT_EQ(ShardVersion(0), v2);
  // A fresh resolve finds the same: every position holds v2, position 1 at v1.
  auto resolved = ResolveObject(io_);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->version, v2);
  EXPECT_EQ(resolved->versions, second->versions);
  EXPECT_EQ(resolved->current, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(Settled(), want);

  // A sub-chunk overwrite of the other data chunk (by parity delta): position 0 is left alone now.
  const std::uint64_t v3 = (kEpoch << 32) | 3;
  auto third = WriteAt(*second, 4096 + 100, Bytes(50, 'c'), v3);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  want.replace(4096 + 100, 50, std::string(50, 'c'));
  EXPECT_EQ(SubWrites(), (std::vector<int>{0, 1, 1, 1}));
  EXPECT_EQ(third->versions, (msg::ShardVersions{v2, v3, v3, v3}));

  // A degraded read mixes the versions the object's record gives: without position 1 (v3) it
  // decodes from 0 (v2) and the parity (v3).
  ObjectIo without = io_;
  without.clients.erase(1);
  auto got = ReadObject(without, *third, 0, third->size);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->degraded);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->bytes.data()), got->bytes.size()), want);
  EXPECT_EQ(Settled(), want);

  // A whole rewrite goes everywhere again, and the versions are one.
  const std::uint64_t v4 = (kEpoch << 32) | 4;
  auto fourth = WriteFull(*third, Bytes(100, 'd'), v4);
  ASSERT_TRUE(fourth.ok()) << fourth.status().ToString();
  EXPECT_EQ(SubWrites(), (std::vector<int>{1, 1, 1, 1}));
  EXPECT_TRUE(fourth->versions.empty());
  EXPECT_EQ(Settled(), std::string(100, 'd'));
}

TEST_F(ObjectIoTest, AnOverwriteThatAChangedShardMissesLeavesItStaleAndHealable) {
  const std::uint64_t v1 = (kEpoch << 32) | 1, v2 = (kEpoch << 32) | 2;
  std::string want(32768, 'a');
  auto first = WriteFull(Absent(), Bytes(want.size(), 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // Parity 3 answers too late: 0 and 2 take it, 1 holds it untouched: min_size 3, acknowledged.
  osds_[3]->gate->delay_ms = 600;
  auto second = WriteAt(*first, 16384, Bytes(4096, 'b'), v2);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  want.replace(16384, 4096, std::string(4096, 'b'));
  EXPECT_EQ(second->current, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(second->stale.count(3), 1u);
  EXPECT_EQ(second->stale.at(3), v1);
  // The late SubWrite lands meanwhile (a retried write of v2 is then a no-op); roll shard 3 back
  // to v1 to stage a shard that missed the write for good.
  std::this_thread::sleep_for(700ms);
  osds_[3]->gate->delay_ms = 0;
  auto undone = osds_[3]->client->SubResolve(msg::SubResolveRequest{
      loc_.collection, "obj", 3, v2, msg::SubResolveAction::kRollback, kEpoch});
  ASSERT_TRUE(undone.ok()) << undone.status().ToString();
  EXPECT_EQ(ShardVersion(3), v1);
  auto resolved = ResolveObject(io_);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  EXPECT_EQ(resolved->version, v2);
  EXPECT_EQ(resolved->current, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(resolved->stale, (std::map<int, std::uint64_t>{{3, v1}}));
  // Healed at the version the object's record gives position 3, which then records them.
  ObjectState healed = HealStale(io_, *resolved, 1 << 20);
  EXPECT_TRUE(healed.stale.empty());
  EXPECT_EQ(ShardVersion(3), v2);
  auto again = ResolveObject(io_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->current, (std::vector<int>{0, 1, 2, 3}));
  ObjectIo parity_only = io_;
  parity_only.clients.erase(0);
  parity_only.clients.erase(1);
  auto got = ReadObject(parity_only, *again, 0, again->size);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->bytes.data()), got->bytes.size()), want);
}

// LRC(k=4, m=2, l=3) without padding: eight positions, two local parities and two global ones.
// A 4 KiB overwrite goes to its data chunk and every parity (the other local group's too: a
// write leaves at most k-1 positions alone, resolve.h), 5 of 8; the object reads back whole and
// degraded across the versions its shards are at.
// The metadata with each write: a new object's xattrs on every shard; a partial write keeps them
// and stamps its mtime on the shards it changes; a write of the metadata alone moves every shard
// to its version, the bytes untouched; a fresh resolve (no metadata known) reads them back from a
// shard at the object's version.
TEST_F(ObjectIoTest, MetadataIsWrittenWithEveryWriteAndReadBack) {
  using Attrs = std::vector<msg::Attr>;
  const MetaUpdate create = Change(100, Attrs{{"a", "1"}});
  auto st = WriteFull(Absent(), Bytes(20000, 'a'), (kEpoch << 32) | 1, create);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  ASSERT_TRUE(st->meta);
  EXPECT_EQ(st->meta->xattrs, (Attrs{{"a", "1"}}));
  for (int p = 0; p < positions_; ++p) {
    EXPECT_EQ(ShardMeta(p), std::make_pair(Attrs{{"a", "1"}}, std::uint64_t{100})) << p;
  }
  // An overwrite inside data chunk 0: shard 1 keeps its metadata (mtime 100), the others get 200.
  ObjectState unknown = *st;
  unknown.meta = nullptr;
  MetaUpdate touch;
  touch.mtime = 200;
  st = WriteAt(unknown, 0, Bytes(100, 'b'), (kEpoch << 32) | 2, touch);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_FALSE(st->meta);  // the xattrs were not known: the shards kept theirs
  EXPECT_EQ(ShardMeta(0), std::make_pair(Attrs{{"a", "1"}}, std::uint64_t{200}));
  EXPECT_EQ(ShardMeta(1), std::make_pair(Attrs{{"a", "1"}}, std::uint64_t{100}));
  EXPECT_EQ(ShardMeta(2), std::make_pair(Attrs{{"a", "1"}}, std::uint64_t{200}));
  auto read = ReadObjectMeta(io_, *st);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->mtime, 200u);  // from a shard at the object's version
  EXPECT_EQ(read->xattrs, (Attrs{{"a", "1"}}));
  // The metadata alone: every shard at the new version, the bytes as they were.
  const MetaUpdate change = Change(300, Attrs{{"a", "1"}, {"b", std::string(1000, 'x')}});
  const std::uint64_t v3 = (kEpoch << 32) | 3;
  st = WriteMeta(io_, *st, v3, loc_.min_size, change);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_TRUE(st->versions.empty());
  for (int p = 0; p < positions_; ++p) {
    EXPECT_EQ(ShardVersion(p), v3) << p;
    EXPECT_EQ(ShardMeta(p).second, 300u) << p;
    EXPECT_EQ(ShardMeta(p).first.size(), 2u) << p;
  }
  auto fresh = ResolveObject(io_);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_FALSE(fresh->meta);
  read = ReadObjectMeta(io_, *fresh);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->mtime, 300u);
  EXPECT_EQ(read->xattrs, *change.xattrs);
  std::string want(20000, 'a');
  want.replace(0, 100, std::string(100, 'b'));
  EXPECT_EQ(Settled(), want);
  EXPECT_EQ(WriteMeta(io_, Absent(), v3 + 1, loc_.min_size, touch).status().code(), ENOENT);
}

// A write of the metadata that too few shards take is rolled back on those that did: the old
// xattrs and mtime are back everywhere and the object settles at its old version.
TEST_F(ObjectIoTest, AFailedMetadataWriteIsRolledBack) {
  using Attrs = std::vector<msg::Attr>;
  const MetaUpdate create = Change(100, Attrs{{"a", "1"}});
  const std::uint64_t v1 = (kEpoch << 32) | 1;
  auto st = WriteFull(Absent(), Bytes(5000, 'a'), v1, create);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  // Shard 3's OSD refuses (a newer primary scanned it), shard 2's applies the write only after the
  // timeout: shards 0 and 1 take it, fewer than min_size, and are rolled back.
  msg::SubScanRequest scan{loc_.collection, 3, "", 10};
  scan.epoch = kEpoch + 1;
  ASSERT_TRUE(osds_[3]->client->SubScan(scan).ok());
  osds_[2]->gate->delay_ms = 600;
  const MetaUpdate change = Change(200, Attrs{{"b", "2"}});
  auto failed = WriteMeta(io_, *st, (kEpoch << 32) | 2, loc_.min_size, change);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), EAGAIN) << failed.status().ToString();
  osds_[2]->gate->delay_ms = 0;
  EXPECT_EQ(Settled(), std::string(5000, 'a'));  // shard 2's late write rolled back too
  auto fresh = ResolveObject(io_);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  EXPECT_EQ(fresh->version, v1);
  for (int p = 0; p < positions_; ++p) {
    EXPECT_EQ(ShardVersion(p), v1) << p;
    EXPECT_EQ(ShardMeta(p), std::make_pair(Attrs{{"a", "1"}}, std::uint64_t{100})) << p;
  }
}

// A whole rewrite that reaches a stale shard gives it the object's xattrs, read from a current
// shard when the caller does not know them; the current shards keep theirs.
TEST_F(ObjectIoTest, AWholeRewriteGivesAStaleShardTheObjectsXattrs) {
  using Attrs = std::vector<msg::Attr>;
  const MetaUpdate create = Change(100, Attrs{{"a", "1"}});
  auto st = WriteFull(Absent(), Bytes(5000, 'a'), (kEpoch << 32) | 1, create);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  // Shard 3's OSD is away while the xattrs change: it is left stale with the old ones.
  auto link3 = io_.clients.at(3);
  io_.clients.erase(3);
  const MetaUpdate change = Change(200, Attrs{{"a", "2"}, {"c", "3"}});
  st = WriteMeta(io_, *st, (kEpoch << 32) | 2, loc_.min_size, change);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_EQ(st->stale.count(3), 1u);
  EXPECT_EQ(ShardMeta(3).first, (Attrs{{"a", "1"}}));
  io_.clients[3] = link3;
  ObjectState unknown = *st;
  unknown.meta = nullptr;
  MetaUpdate write;
  write.mtime = 300;
  st = WriteFull(unknown, Bytes(6000, 'b'), (kEpoch << 32) | 3, write);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  EXPECT_TRUE(st->stale.empty());
  for (int p = 0; p < positions_; ++p) {
    EXPECT_EQ(ShardMeta(p), std::make_pair(*change.xattrs, std::uint64_t{300})) << p;
  }
}

// RS(4,2) padded, min_size 5, stripe unit 4 KiB: a write of one data piece leaves three positions
// alone, so they count for it (a partial write's untouched positions).
class WideObjectIoTest : public ObjectIoTest {
 protected:
  Geometry MakeGeometry() const override {
    return {
        {{"plugin", "isa"}, {"k", "4"}, {"m", "2"}, {"technique", "reed_sol_van"}}, 6, 4, 5, false};
  }
};

// The thrasher's seed-3 mismatch, staged. A write whose SubWrites all time out fails (EINPROGRESS:
// they may land yet); the object is resolved at its old version before they land; a write of
// another piece is acknowledged counting the positions it leaves alone, among them the ones the
// failed write's late SubWrites then reach. Those positions no longer hold the acknowledged
// write, which a resolve must still settle (and never the failed one in its place).
TEST_F(WideObjectIoTest, LateSubWritesOfAFailedWriteNeverUndoAnAcknowledgedOne) {
  const std::uint64_t v1 = (kEpoch << 32) | 1, v2 = (kEpoch << 32) | 2, v3 = (kEpoch << 32) | 3;
  std::string want(65536, 'a');
  auto first = WriteFull(Absent(), Bytes(want.size(), 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  // v2 rewrites pieces 1..3 of the first stripe: positions 1, 2, 3 and the parity 4, 5; every
  // one of them answers after the primary's timeout.
  for (int p = 1; p < 6; ++p) osds_[p]->gate->delay_ms = 600;
  std::set<int> suspect;
  io_.suspect_out = &suspect;
  auto second = WriteAt(*first, 4096, Bytes(12288, 'b'), v2);
  ASSERT_FALSE(second.ok());
  io_.suspect_out = nullptr;
  EXPECT_EQ(suspect, (std::set<int>{1, 2, 3, 4, 5}));
  for (int p = 1; p < 6; ++p) osds_[p]->gate->delay_ms = 0;
  // Resolved before they land: the object is at v1 everywhere. The primary keeps the suspect
  // positions with the object (PgTable::Forget, Suspect), as here.
  auto resolved = ResolveObject(io_);
  ASSERT_TRUE(resolved.ok()) << resolved.status().ToString();
  ASSERT_EQ(resolved->version, v1);
  resolved->suspect = suspect;
  // v3 rewrites piece 0 (positions 0, 4, 5); 1, 2 and 3 would hold it by being left alone, but
  // they are suspect: v3 rewrites them too, so v2's late SubWrites no longer apply there.
  auto third = WriteAt(*resolved, 0, Bytes(4096, 'c'), v3);
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_TRUE(third->suspect.empty());
  want.replace(0, 4096, std::string(4096, 'c'));
  // The late SubWrites of v2 arrive now: refused everywhere.
  EXPECT_EQ(Settled(), want);
  for (int p = 0; p < 6; ++p) EXPECT_EQ(ShardVersion(p), v3) << p;
}

class LrcObjectIoTest : public ObjectIoTest {
 protected:
  Geometry MakeGeometry() const override {
    return {{{"plugin", "lrc"}, {"k", "4"}, {"m", "2"}, {"l", "3"}}, 8, 4, 5, true};
  }
};

// A new 4 KiB object in LRC(k=4, m=2, l=3) with 4 KiB chunks stores 16 KiB on 4 shards: its one
// data chunk, the two global parities and its local group's parity; nothing on the three other
// data shards nor on the other group's local parity, whose inputs the object does not reach.
TEST_F(LrcObjectIoTest, ANewSmallObjectStoresItsDataChunkAndTheParitiesItReaches) {
  const StripeLayout& layout = codec_->layout;
  ASSERT_EQ(layout.chunk_size(), 4096u);
  auto first = WriteFull(Absent(), Bytes(4096, 'a'), (kEpoch << 32) | 1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  std::uint64_t total = 0;
  int holding = 0;
  for (int p = 0; p < 8; ++p) {
    auto st = osds_[p]->client->Stat(
        msg::StatRequest{loc_.collection, "obj", static_cast<std::uint32_t>(p)});
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(st->size, layout.stored_size(4096, p)) << "shard " << p;
    if (layout.data_index(p) >= 0) {
      EXPECT_EQ(st->size, p == layout.data_ids()[0] ? 4096u : 0u) << "shard " << p;
    }
    total += st->size;
    holding += st->size != 0;
  }
  EXPECT_EQ(total, 16384u);
  EXPECT_EQ(holding, 4);
}

TEST_F(LrcObjectIoTest, AnOverwriteGoesToItsDataChunkAndEveryParity) {
  const StripeLayout& layout = codec_->layout;
  const std::uint64_t v1 = (kEpoch << 32) | 1, v2 = (kEpoch << 32) | 2;
  std::string want(65536, 'a');
  auto first = WriteFull(Absent(), Bytes(want.size(), 'a'), v1);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(SubWrites(), std::vector<int>(8, 1));
  auto second = WriteAt(*first, 20480, Bytes(4096, 'b'), v2);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  want.replace(20480, 4096, std::string(4096, 'b'));
  std::vector<int> expected(8, 0);
  const int data = layout.data_ids()[(20480 % layout.stripe_width()) / layout.chunk_size()];
  expected[static_cast<std::size_t>(data)] = 1;
  for (int id : layout.parity_ids()) expected[static_cast<std::size_t>(id)] = 1;
  EXPECT_EQ(SubWrites(), expected);
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(ShardVersion(p), expected[static_cast<std::size_t>(p)] ? v2 : v1) << "shard " << p;
  }
  EXPECT_EQ(Settled(), want);
  // Without the data shard the overwrite changed: rebuilt from its local group (at v1 and v2).
  ObjectIo without = io_;
  without.clients.erase(data);
  auto got = ReadObject(without, *second, 0, second->size);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_TRUE(got->degraded);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->bytes.data()), got->bytes.size()), want);
  // Without one it left alone.
  const int other = layout.data_ids()[0] == data ? layout.data_ids()[1] : layout.data_ids()[0];
  ObjectIo without_other = io_;
  without_other.clients.erase(other);
  got = ReadObject(without_other, *second, 0, second->size);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->bytes.data()), got->bytes.size()), want);
}

}  // namespace
}  // namespace ec::osd::pg
