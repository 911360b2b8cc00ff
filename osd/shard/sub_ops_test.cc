// The shard side of PG writes on a real store: every kind of SubWrite and its rollback restores
// the shard exactly (bytes, size, version, object size), retries and stale writes are told apart,
// and undo records never show up as shards. SubScan pages list exactly what SubState reports.
#include "osd/shard/sub_ops.h"

#include <gtest/gtest.h>

#include <string>

#include "osd/shard/shard_meta.h"
#include "osd/store/store_test_support.h"
#include "osd/store/transaction.h"

namespace ec::osd::shard {
namespace {

Buffer BytesOf(const std::string& s) {
  const std::vector<std::byte> v = store::testing::ToBytes(s);
  Buffer b = Buffer::Allocate(v.size());
  if (!v.empty()) std::memcpy(const_cast<std::byte*>(b.data()), v.data(), v.size());
  return b;
}

class SubOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const store::StoreOptions o = store::testing::MakeOptions(dir_, store::IoBackend::kUring);
    ASSERT_TRUE(store::ObjectStore::Mkfs(o).ok());
    auto opened = store::ObjectStore::Open(o);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }

  Status Write(msg::SubWriteKind kind, std::uint64_t version, std::uint64_t prev,
               std::uint64_t offset, const std::string& data, std::uint64_t shard_size,
               std::uint64_t object_size = 0, msg::ObjectForm form = msg::ObjectForm::kErasure) {
    msg::SubWriteRequest w;
    w.form = form;
    w.collection = "pg.1.0";
    w.object = "obj";
    w.shard = 2;
    w.version = version;
    w.prev_version = prev;
    w.kind = kind;
    w.object_size = object_size;
    w.shard_size = shard_size;
    if (!data.empty()) w.extents.push_back({offset, data.size()});
    Status s = ApplySubWrite(*store_, w, BytesOf(data), !created_);
    if (s.ok()) created_ = true;
    return s;
  }
  Result<std::uint64_t> Resolve(msg::SubResolveAction action, std::uint64_t version) {
    msg::SubResolveRequest r{"pg.1.0", "obj", 2, version, action};
    return ApplySubResolve(*store_, r);
  }
  msg::SubStateReply State() {
    auto st = ReadSubState(*store_, msg::SubStateRequest{"pg.1.0", "obj", 2});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? *st : msg::SubStateReply{};
  }
  std::string Content() {
    auto got =
        store_->Read("pg.1.0", ShardObjectName("obj", 2), std::vector<store::Extent>{{0, 1 << 20}});
    if (!got.ok()) return "<" + got.status().message() + ">";
    return std::string(reinterpret_cast<const char*>((*got)[0].data()), (*got)[0].size());
  }

  store::testing::TempDir dir_;
  std::unique_ptr<store::ObjectStore> store_;
  bool created_ = false;
};

TEST_F(SubOpsTest, AbsentShardIsVersionZero) {
  msg::SubStateReply st = State();
  EXPECT_EQ(st.state, msg::ShardState::kAbsent);
  EXPECT_EQ(st.version, 0u);
}

TEST_F(SubOpsTest, CreateThenRollbackLeavesNothing) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "hello", 5, 17).ok());
  msg::SubStateReply st = State();
  EXPECT_EQ(st.state, msg::ShardState::kPresent);
  EXPECT_EQ(st.version, 10u);
  EXPECT_EQ(st.object_size, 17u);
  EXPECT_EQ(st.shard_size, 5u);
  EXPECT_EQ(st.undo_version, 10u);
  auto v = Resolve(msg::SubResolveAction::kRollback, 10);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 0u);
  EXPECT_EQ(State().state, msg::ShardState::kAbsent);
  auto names = store_->List("pg.1.0");
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

TEST_F(SubOpsTest, FullRewriteRollsBackToTheOldShard) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "old old old", 11, 30).ok());
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 11, 10, 0, "new", 3, 9).ok());
  EXPECT_EQ(Content(), "new");
  EXPECT_EQ(State().undo_version, 11u);
  auto v = Resolve(msg::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 10u);
  EXPECT_EQ(Content(), "old old old");
  msg::SubStateReply st = State();
  EXPECT_EQ(st.version, 10u);
  EXPECT_EQ(st.object_size, 30u);
  EXPECT_EQ(st.undo_version, 0u);
  // A second rollback of 11 has nothing to do.
  v = Resolve(msg::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 10u);
}

// A repair replaces the bytes at the shard's version and keeps its undo record, so that a rollback
// of that version still restores the shard from before it; it refuses a shard at another version
// or absent, and a repair whose versions differ.
TEST_F(SubOpsTest, RepairReplacesBytesAtTheSameVersionAndKeepsTheUndoRecord) {
  EXPECT_EQ(Write(msg::SubWriteKind::kRepair, 10, 10, 0, "xx", 2, 2).code(), ESTALE);  // absent
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "old old old", 11, 30).ok());
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 11, 10, 0, "bad bytes", 9, 27).ok());
  ASSERT_TRUE(Write(msg::SubWriteKind::kRepair, 11, 11, 0, "new", 3, 9).ok());
  EXPECT_EQ(Content(), "new");
  msg::SubStateReply st = State();
  EXPECT_EQ(st.version, 11u);
  EXPECT_EQ(st.shard_size, 3u);
  EXPECT_EQ(st.object_size, 9u);
  EXPECT_EQ(st.undo_version, 11u);
  EXPECT_EQ(Write(msg::SubWriteKind::kRepair, 12, 12, 0, "zz", 2, 2).code(), ESTALE);
  auto v = Resolve(msg::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 10u);
  EXPECT_EQ(Content(), "old old old");
}

TEST_F(SubOpsTest, RangeWriteRollsBackBytesSizeAndVersion) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "abcdefgh", 8, 8).ok());
  // Overwrites 6..8 and grows the shard to 12.
  ASSERT_TRUE(Write(msg::SubWriteKind::kRange, 11, 10, 6, "XYZW", 12, 12).ok());
  EXPECT_EQ(Content(), "abcdefXYZW" + std::string(2, '\0'));
  auto v = Resolve(msg::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Content(), "abcdefgh");
  msg::SubStateReply st = State();
  EXPECT_EQ(st.version, 10u);
  EXPECT_EQ(st.object_size, 8u);
}

TEST_F(SubOpsTest, RemoveIsATombstoneUntilRolledBackOrRewritten) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "data", 4, 4).ok());
  ASSERT_TRUE(Write(msg::SubWriteKind::kRemove, 11, 10, 0, "", 0).ok());
  msg::SubStateReply st = State();
  EXPECT_EQ(st.state, msg::ShardState::kRemoved);
  EXPECT_EQ(st.version, 11u);
  // Undo records are not shards: List through the shard naming skips them.
  auto names = store_->List("pg.1.0");
  ASSERT_TRUE(names.ok());
  for (const std::string& n : *names) {
    std::string object;
    std::uint32_t shard = 0;
    EXPECT_FALSE(ParseShardObjectName(n, &object, &shard)) << n;
  }
  ASSERT_TRUE(Resolve(msg::SubResolveAction::kRollback, 11).ok());
  EXPECT_EQ(Content(), "data");
  EXPECT_EQ(State().version, 10u);
  // Removed again, then created anew from the tombstone's version.
  ASSERT_TRUE(Write(msg::SubWriteKind::kRemove, 12, 10, 0, "", 0).ok());
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 13, 12, 0, "fresh", 5, 5).ok());
  EXPECT_EQ(Content(), "fresh");
  EXPECT_EQ(State().undo_version, 13u);
}

// A primary knows an object that every shard removed as absent (version 0): a whole write with
// prev_version 0 is taken over the tombstone when its version is newer, refused otherwise, and a
// range write or a remove still needs the tombstone's version.
TEST_F(SubOpsTest, ACreateFromAbsentIsTakenOverATombstone) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "data", 4, 4).ok());
  ASSERT_TRUE(Write(msg::SubWriteKind::kRemove, 12, 10, 0, "", 0).ok());
  ASSERT_EQ(State().state, msg::ShardState::kRemoved);
  // A late create older than the remove: refused, the tombstone stays.
  EXPECT_EQ(Write(msg::SubWriteKind::kFull, 11, 0, 0, "late", 4, 4).code(), ESTALE);
  EXPECT_EQ(State().version, 12u);
  // A range write from "absent" is no create: refused.
  EXPECT_EQ(Write(msg::SubWriteKind::kRange, 13, 0, 0, "rng", 3, 3).code(), ESTALE);
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 14, 0, 0, "fresh", 5, 5).ok());
  EXPECT_EQ(Content(), "fresh");
  EXPECT_EQ(State().version, 14u);
  // Rolled back, the shard is absent again; and a shard with an object still needs its version.
  ASSERT_TRUE(Resolve(msg::SubResolveAction::kRollback, 14).ok());
  EXPECT_NE(State().state, msg::ShardState::kPresent);
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 15, 0, 0, "again", 5, 5).ok());
  EXPECT_EQ(Write(msg::SubWriteKind::kFull, 16, 0, 0, "other", 5, 5).code(), ESTALE);
  EXPECT_EQ(Content(), "again");
}

// The object's form (issue 30 item 2) is recorded by every write but a remove, reported by
// SubState and the scan, and rolled back with the shard: a conversion undone leaves the old form.
TEST_F(SubOpsTest, FormIsRecordedReportedAndRolledBack) {
  using msg::ObjectForm;
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "small", 5, 5, ObjectForm::kReplicas).ok());
  EXPECT_EQ(State().form, ObjectForm::kReplicas);
  ASSERT_TRUE(Write(msg::SubWriteKind::kRange, 11, 10, 5, "er", 7, 7, ObjectForm::kReplicas).ok());
  EXPECT_EQ(State().form, ObjectForm::kReplicas);
  // The write that turns it into shards, rolled back: a copy again, with its bytes.
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 12, 11, 0, "shard", 5, 9000).ok());
  EXPECT_EQ(State().form, ObjectForm::kErasure);
  auto v = Resolve(msg::SubResolveAction::kRollback, 12);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 11u);
  EXPECT_EQ(State().form, ObjectForm::kReplicas);
  EXPECT_EQ(Content(), "smaller");
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 12, 11, 0, "shard", 5, 9000).ok());
  EXPECT_EQ(State().form, ObjectForm::kErasure);
  auto scan = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, "", 10});
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan->entries.size(), 1u);
  EXPECT_EQ(scan->entries[0].form, ObjectForm::kErasure);
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 13, 12, 0, "", 0, 3, ObjectForm::kReplicas).ok());
  scan = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, "", 10});
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan->entries[0].form, ObjectForm::kReplicas);
}

TEST_F(SubOpsTest, RetriedAndStaleWrites) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "one", 3, 3).ok());
  // The same write again (its reply was lost): OK, unchanged.
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "one", 3, 3).ok());
  // A write expecting another version: ESTALE, nothing changes.
  Status s = Write(msg::SubWriteKind::kFull, 12, 11, 0, "two", 3, 3);
  EXPECT_EQ(s.code(), ESTALE) << s.ToString();
  EXPECT_NE(s.message().find("is at version 10"), std::string::npos) << s.message();
  EXPECT_EQ(Content(), "one");
  // A range write may not shrink the shard.
  EXPECT_EQ(Write(msg::SubWriteKind::kRange, 11, 10, 0, "x", 1).code(), EINVAL);
}

TEST_F(SubOpsTest, TrimDropsTheUndoRecord) {
  ASSERT_TRUE(Write(msg::SubWriteKind::kFull, 10, 0, 0, "one", 3, 3).ok());
  auto v = Resolve(msg::SubResolveAction::kTrim, 10);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 10u);
  EXPECT_EQ(State().undo_version, 0u);
  // Without its record, a rollback of version 10 (never acknowledged, the primary decided) drops
  // the shard: absent, for recovery to rebuild at the version the object settles on.
  v = Resolve(msg::SubResolveAction::kRollback, 10);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 0u);
  EXPECT_EQ(State().state, msg::ShardState::kAbsent);
  EXPECT_EQ(State().version, 0u);
}

// The object's metadata (issue 29) with each kind of write: kReplace sets the xattrs and mtime,
// kMtime keeps the shard's xattrs and sets the mtime, kKeep keeps both, a write of the metadata
// alone (a range write without extents) changes nothing else, and each is rolled back with the
// write; a repair replaces the metadata with its bytes.
TEST_F(SubOpsTest, ObjectMetadataIsWrittenAndRolledBackWithTheShard) {
  auto write = [&](msg::SubWriteKind kind, std::uint64_t version, std::uint64_t prev,
                   const std::string& data, msg::SubWriteMeta meta, std::uint64_t mtime,
                   std::vector<msg::Attr> xattrs, std::uint64_t shard_size = 4) {
    msg::SubWriteRequest w{"pg.1.0", "obj", 2, version, prev, kind, 9, shard_size, {}};
    if (!data.empty()) w.extents.push_back({0, data.size()});
    w.meta = meta;
    w.mtime = mtime;
    w.xattrs = std::move(xattrs);
    Status s = ApplySubWrite(*store_, w, BytesOf(data), !created_);
    if (s.ok()) created_ = true;
    return s;
  };
  auto meta = [&] {
    auto got = store_->GetAttr("pg.1.0", ShardObjectName("obj", 2), kShardMetaAttr);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    auto m = got.ok() ? DecodeShardMeta(*got) : Result<ShardMeta>(got.status());
    EXPECT_TRUE(m.ok());
    return m.ok() ? *m : ShardMeta{};
  };
  using K = msg::SubWriteKind;
  using M = msg::SubWriteMeta;
  ASSERT_TRUE(write(K::kFull, 10, 0, "abc", M::kReplace, 111, {{"a", "1"}, {"b", "2"}}, 3).ok());
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(DecimalAttr(meta().attrs, kMtimeAttr), 111u);
  EXPECT_EQ(DecimalAttr(meta().attrs, kObjectSizeAttr), 9u);
  // A whole rewrite that keeps the xattrs (a current shard) sets only the mtime.
  ASSERT_TRUE(write(K::kFull, 11, 10, "defg", M::kMtime, 222, {}).ok());
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(DecimalAttr(meta().attrs, kMtimeAttr), 222u);
  EXPECT_EQ(Content(), "defg");
  // The metadata alone: a range write without extents, the shard's length as it is.
  ASSERT_TRUE(write(K::kRange, 12, 11, "", M::kReplace, 333, {{"c", "3"}}).ok());
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"c", "3"}}));
  EXPECT_EQ(DecimalAttr(meta().attrs, kMtimeAttr), 333u);
  EXPECT_EQ(Content(), "defg");
  EXPECT_EQ(State().version, 12u);
  // Rolled back: the metadata of version 11, bytes untouched.
  auto v = Resolve(msg::SubResolveAction::kRollback, 12);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 11u);
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(DecimalAttr(meta().attrs, kMtimeAttr), 222u);
  EXPECT_EQ(Content(), "defg");
  // kKeep (what a remove sends; a write of an older sender) keeps both.
  ASSERT_TRUE(write(K::kRange, 13, 11, "x", M::kKeep, 999, {}).ok());
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"a", "1"}, {"b", "2"}}));
  EXPECT_EQ(DecimalAttr(meta().attrs, kMtimeAttr), 222u);
  // A whole rewrite rolled back brings the old shard's metadata back with it.
  ASSERT_TRUE(write(K::kFull, 14, 13, "new", M::kReplace, 444, {}, 3).ok());
  EXPECT_TRUE(XattrsOf(meta().attrs).empty());
  ASSERT_TRUE(Resolve(msg::SubResolveAction::kRollback, 14).ok());
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"a", "1"}, {"b", "2"}}));
  // A repair at the shard's version replaces the metadata with its bytes.
  ASSERT_TRUE(write(K::kRepair, 13, 13, "xefg", M::kReplace, 555, {{"r", "1"}}).ok());
  EXPECT_EQ(XattrsOf(meta().attrs), (std::vector<msg::Attr>{{"r", "1"}}));
  EXPECT_EQ(DecimalAttr(meta().attrs, kMtimeAttr), 555u);
  EXPECT_EQ(State().version, 13u);
}

// A shard position's objects as SubScan pages them.
class ScanShardsTest : public SubOpsTest {
 protected:
  // Writes `object`'s shard `shard` at `version` (a full write of `data`, or a remove).
  void Put(const std::string& object, std::uint32_t shard, msg::SubWriteKind kind,
           std::uint64_t version, std::uint64_t prev, const std::string& data = "") {
    msg::SubWriteRequest w;
    w.collection = "pg.1.0";
    w.object = object;
    w.shard = shard;
    w.version = version;
    w.prev_version = prev;
    w.kind = kind;
    w.object_size = data.size() * 2;
    w.shard_size = data.size();
    if (!data.empty()) w.extents.push_back({0, data.size()});
    Status s = ApplySubWrite(*store_, w, BytesOf(data), !created_);
    ASSERT_TRUE(s.ok()) << object << ": " << s.ToString();
    created_ = true;
  }
  void Trim(const std::string& object, std::uint32_t shard, std::uint64_t version) {
    auto v =
        ApplySubResolve(*store_, {"pg.1.0", object, shard, version, msg::SubResolveAction::kTrim});
    ASSERT_TRUE(v.ok()) << v.status().ToString();
  }
  // Every page from the start, checking that none exceeds max_entries and that each cursor moves.
  std::vector<msg::SubScanEntry> ScanAll(std::uint32_t shard, std::uint32_t max_entries,
                                         int* pages) {
    std::vector<msg::SubScanEntry> all;
    std::string cursor;
    *pages = 0;
    for (;;) {
      auto page = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", shard, cursor, max_entries});
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok() || ++*pages > 100) break;
      EXPECT_TRUE(page->status.ok());
      EXPECT_LE(page->entries.size(), max_entries);
      all.insert(all.end(), page->entries.begin(), page->entries.end());
      if (page->end) break;
      EXPECT_GT(page->next_cursor, cursor);
      cursor = page->next_cursor;
    }
    return all;
  }
  msg::SubScanEntry Expected(const std::string& object, std::uint32_t shard) {
    auto st = ReadSubState(*store_, msg::SubStateRequest{"pg.1.0", object, shard});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    if (!st.ok()) return {};
    return msg::SubScanEntry{object,          st->state,      st->version,
                             st->object_size, st->shard_size, st->undo_version};
  }
  // Shard 2 of: "a" present (trimmed), "b" removed with its undo record, "c" rewritten with its
  // undo record, "h" and "h!" present (their store names "h#2" > "h!#2" sort the other way round
  // from the objects), "gone" written and rolled back (nothing left), "trimmed" removed and trimmed
  // (nothing left), "bare" an undo-named store object without a record (absent, undo 0). Shard 1 of
  // "a" and "z", and a store object that is no shard at all.
  void Populate() {
    Put("a", 2, msg::SubWriteKind::kFull, 1, 0, "aaaa");
    Trim("a", 2, 1);
    Put("b", 2, msg::SubWriteKind::kFull, 1, 0, "bbbb");
    Trim("b", 2, 1);
    Put("b", 2, msg::SubWriteKind::kRemove, 2, 1);
    Put("c", 2, msg::SubWriteKind::kFull, 1, 0, "cccc");
    Trim("c", 2, 1);
    Put("c", 2, msg::SubWriteKind::kFull, 3, 1, "cc");
    Put("h", 2, msg::SubWriteKind::kFull, 4, 0, "h");
    Put("h!", 2, msg::SubWriteKind::kFull, 5, 0, "hh");
    Put("gone", 2, msg::SubWriteKind::kFull, 1, 0, "g");
    ASSERT_TRUE(
        ApplySubResolve(*store_, {"pg.1.0", "gone", 2, 1, msg::SubResolveAction::kRollback}).ok());
    Put("trimmed", 2, msg::SubWriteKind::kFull, 1, 0, "t");
    Trim("trimmed", 2, 1);
    Put("trimmed", 2, msg::SubWriteKind::kRemove, 2, 1);
    Trim("trimmed", 2, 2);
    Put("a", 1, msg::SubWriteKind::kFull, 1, 0, "1111");
    Put("z", 1, msg::SubWriteKind::kFull, 1, 0, "1111");
    store::Transaction t;
    t.Touch("pg.1.0", "bare#2~undo");
    t.Touch("pg.1.0", "not-a-shard");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
};

TEST_F(ScanShardsTest, ListsWhatSubStateReportsInObjectOrder) {
  Populate();
  const std::vector<msg::SubScanEntry> want = {Expected("a", 2), Expected("b", 2), Expected("c", 2),
                                               Expected("h", 2), Expected("h!", 2)};
  // What SubState says, spelled out.
  EXPECT_EQ(want[0].state, msg::ShardState::kPresent);
  EXPECT_EQ(want[0].version, 1u);
  EXPECT_EQ(want[0].undo_version, 0u);
  EXPECT_EQ(want[0].shard_size, 4u);
  EXPECT_EQ(want[0].object_size, 8u);
  EXPECT_EQ(want[1].state, msg::ShardState::kRemoved);
  EXPECT_EQ(want[1].version, 2u);
  EXPECT_EQ(want[1].undo_version, 2u);
  EXPECT_EQ(want[2].state, msg::ShardState::kPresent);
  EXPECT_EQ(want[2].version, 3u);
  EXPECT_EQ(want[2].undo_version, 3u);
  EXPECT_EQ(want[2].shard_size, 2u);
  EXPECT_EQ(want[4].version, 5u);

  auto page = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, "", 100});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->entries, want);
  EXPECT_TRUE(page->end);
  // The other position.
  page = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 1, "", 100});
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->entries, (std::vector<msg::SubScanEntry>{Expected("a", 1), Expected("z", 1)}));
  EXPECT_TRUE(page->end);
  // A position nobody holds.
  page = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 7, "", 100});
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->entries.empty());
  EXPECT_TRUE(page->end);
}

TEST_F(ScanShardsTest, PagesCoverEveryObjectOnce) {
  Populate();
  const std::vector<msg::SubScanEntry> want = {Expected("a", 2), Expected("b", 2), Expected("c", 2),
                                               Expected("h", 2), Expected("h!", 2)};
  int pages = 0;
  EXPECT_EQ(ScanAll(2, 1, &pages), want);
  EXPECT_GE(pages, 5);  // one object a page ("bare" may take a page with no entry)
  EXPECT_EQ(ScanAll(2, 2, &pages), want);
  EXPECT_GE(pages, 3);
  EXPECT_EQ(ScanAll(2, 5, &pages), want);

  // Page by page with max_entries 2: a, b | c, h | h! (end). "bare" (no record) falls between.
  auto p1 = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, "", 2});
  ASSERT_TRUE(p1.ok());
  EXPECT_EQ(p1->entries, (std::vector<msg::SubScanEntry>{want[0], want[1]}));
  EXPECT_FALSE(p1->end);
  EXPECT_EQ(p1->next_cursor, "b");
  // From a cursor that is no object: those after it.
  auto p2 = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, "g", 2});
  ASSERT_TRUE(p2.ok());
  EXPECT_EQ(p2->entries, (std::vector<msg::SubScanEntry>{want[3], want[4]}));
  EXPECT_TRUE(p2->end);
  // The last object as the cursor: an empty last page.
  auto p3 = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, "h!", 2});
  ASSERT_TRUE(p3.ok());
  EXPECT_TRUE(p3->entries.empty());
  EXPECT_TRUE(p3->end);
}

// Long names (and versions of objects written in part) make entries big: a page ends before its
// entries pass msg::kMaxScanReplyBytes, so its reply fits the default header limit, and the
// pages still cover every object once.
TEST_F(ScanShardsTest, PagesStayUnderTheReplyHeaderLimit) {
  std::vector<std::string> names;
  for (int i = 0; i < 200; ++i) {
    names.push_back(std::string(300, 'n') + std::to_string(1000 + i));
    Put(names.back(), 2, msg::SubWriteKind::kFull, 1, 0, "x");
  }
  std::string cursor;
  std::vector<std::string> seen;
  int pages = 0;
  for (bool end = false; !end && pages < 100; ++pages) {
    auto page = ScanShards(*store_, msg::SubScanRequest{"pg.1.0", 2, cursor, 4096});
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    std::vector<std::byte> header;
    msg::EncodeReply(*page, header);
    EXPECT_LE(header.size(), msg::Limits{}.max_header_len);
    for (const msg::SubScanEntry& e : page->entries) seen.push_back(e.object);
    end = page->end;
    cursor = page->next_cursor;
  }
  EXPECT_GE(pages, 2);
  EXPECT_EQ(seen, names);
}

TEST_F(ScanShardsTest, MissingCollectionIsAnEmptyLastPage) {
  auto page = ScanShards(*store_, msg::SubScanRequest{"pg.9.9", 0, "", 10});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->entries.empty());
  EXPECT_TRUE(page->end);
  EXPECT_EQ(ScanShards(*store_, msg::SubScanRequest{"pg.9.9", 0, "", 0}).status().code(), EINVAL);
}

}  // namespace
}  // namespace ec::osd::shard
