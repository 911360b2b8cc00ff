// The shard side of PG writes on a real store: every kind of SubWrite and its rollback restores
// the shard exactly (bytes, size, version, object size), retries and stale writes are told apart,
// and undo records never show up as shards.
#include "osd/daemon/sub_ops.h"

#include <gtest/gtest.h>

#include <string>

#include "osd/daemon/shard_meta.h"
#include "osd/store/store_test_support.h"

namespace ec::osd {
namespace {

Buffer Bytes(const std::string& s) {
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

  Status Write(net::SubWriteKind kind, std::uint64_t version, std::uint64_t prev,
               std::uint64_t offset, const std::string& data, std::uint64_t shard_size,
               std::uint64_t object_size = 0) {
    net::SubWriteRequest w;
    w.collection = "pg.1.0";
    w.object = "obj";
    w.shard = 2;
    w.version = version;
    w.prev_version = prev;
    w.kind = kind;
    w.object_size = object_size;
    w.shard_size = shard_size;
    if (!data.empty()) w.extents.push_back({offset, data.size()});
    Status s = ApplySubWrite(*store_, w, Bytes(data), !created_);
    if (s.ok()) created_ = true;
    return s;
  }
  Result<std::uint64_t> Resolve(net::SubResolveAction action, std::uint64_t version) {
    net::SubResolveRequest r{"pg.1.0", "obj", 2, version, action};
    return ApplySubResolve(*store_, r);
  }
  net::SubStateReply State() {
    auto st = ReadSubState(*store_, net::SubStateRequest{"pg.1.0", "obj", 2});
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? *st : net::SubStateReply{};
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
  net::SubStateReply st = State();
  EXPECT_EQ(st.state, net::ShardState::kAbsent);
  EXPECT_EQ(st.version, 0u);
}

TEST_F(SubOpsTest, CreateThenRollbackLeavesNothing) {
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "hello", 5, 17).ok());
  net::SubStateReply st = State();
  EXPECT_EQ(st.state, net::ShardState::kPresent);
  EXPECT_EQ(st.version, 10u);
  EXPECT_EQ(st.object_size, 17u);
  EXPECT_EQ(st.shard_size, 5u);
  EXPECT_EQ(st.undo_version, 10u);
  auto v = Resolve(net::SubResolveAction::kRollback, 10);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 0u);
  EXPECT_EQ(State().state, net::ShardState::kAbsent);
  auto names = store_->List("pg.1.0");
  ASSERT_TRUE(names.ok());
  EXPECT_TRUE(names->empty());
}

TEST_F(SubOpsTest, FullRewriteRollsBackToTheOldShard) {
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "old old old", 11, 30).ok());
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 11, 10, 0, "new", 3, 9).ok());
  EXPECT_EQ(Content(), "new");
  EXPECT_EQ(State().undo_version, 11u);
  auto v = Resolve(net::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 10u);
  EXPECT_EQ(Content(), "old old old");
  net::SubStateReply st = State();
  EXPECT_EQ(st.version, 10u);
  EXPECT_EQ(st.object_size, 30u);
  EXPECT_EQ(st.undo_version, 0u);
  // A second rollback of 11 has nothing to do.
  v = Resolve(net::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 10u);
}

TEST_F(SubOpsTest, RangeWriteRollsBackBytesSizeAndVersion) {
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "abcdefgh", 8, 8).ok());
  // Overwrites 6..8 and grows the shard to 12.
  ASSERT_TRUE(Write(net::SubWriteKind::kRange, 11, 10, 6, "XYZW", 12, 12).ok());
  EXPECT_EQ(Content(), "abcdefXYZW" + std::string(2, '\0'));
  auto v = Resolve(net::SubResolveAction::kRollback, 11);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Content(), "abcdefgh");
  net::SubStateReply st = State();
  EXPECT_EQ(st.version, 10u);
  EXPECT_EQ(st.object_size, 8u);
}

TEST_F(SubOpsTest, RemoveIsATombstoneUntilRolledBackOrRewritten) {
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "data", 4, 4).ok());
  ASSERT_TRUE(Write(net::SubWriteKind::kRemove, 11, 10, 0, "", 0).ok());
  net::SubStateReply st = State();
  EXPECT_EQ(st.state, net::ShardState::kRemoved);
  EXPECT_EQ(st.version, 11u);
  // Undo records are not shards: List through the shard naming skips them.
  auto names = store_->List("pg.1.0");
  ASSERT_TRUE(names.ok());
  for (const std::string& n : *names) {
    std::string object;
    std::uint32_t shard = 0;
    EXPECT_FALSE(ParseShardObjectName(n, &object, &shard)) << n;
  }
  ASSERT_TRUE(Resolve(net::SubResolveAction::kRollback, 11).ok());
  EXPECT_EQ(Content(), "data");
  EXPECT_EQ(State().version, 10u);
  // Removed again, then created anew from the tombstone's version.
  ASSERT_TRUE(Write(net::SubWriteKind::kRemove, 12, 10, 0, "", 0).ok());
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 13, 12, 0, "fresh", 5, 5).ok());
  EXPECT_EQ(Content(), "fresh");
  EXPECT_EQ(State().undo_version, 13u);
}

TEST_F(SubOpsTest, RetriedAndStaleWrites) {
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "one", 3, 3).ok());
  // The same write again (its reply was lost): OK, unchanged.
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "one", 3, 3).ok());
  // A write expecting another version: ESTALE, nothing changes.
  Status s = Write(net::SubWriteKind::kFull, 12, 11, 0, "two", 3, 3);
  EXPECT_EQ(s.code(), ESTALE) << s.ToString();
  EXPECT_NE(s.message().find("is at version 10"), std::string::npos) << s.message();
  EXPECT_EQ(Content(), "one");
  // A range write may not shrink the shard.
  EXPECT_EQ(Write(net::SubWriteKind::kRange, 11, 10, 0, "x", 1).code(), EINVAL);
}

TEST_F(SubOpsTest, TrimDropsTheUndoRecord) {
  ASSERT_TRUE(Write(net::SubWriteKind::kFull, 10, 0, 0, "one", 3, 3).ok());
  auto v = Resolve(net::SubResolveAction::kTrim, 10);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 10u);
  EXPECT_EQ(State().undo_version, 0u);
  // Without its record, version 10 cannot be rolled back: an error, not a silent no-op.
  EXPECT_EQ(Resolve(net::SubResolveAction::kRollback, 10).status().code(), EIO);
}

}  // namespace
}  // namespace ec::osd
