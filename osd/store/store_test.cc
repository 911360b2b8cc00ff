// ObjectStore behaviour through its public interface, on both I/O paths.
#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <cstring>

#include "osd/store/onode.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::store {
namespace {

using testing::kTestDeviceSize;
using testing::MakeOptions;
using testing::TempDir;
using testing::ToBytes;
using testing::ToString;

class StoreTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    opts_ = MakeOptions(dir_, GetParam());
    Status s = ObjectStore::Mkfs(opts_);
    ASSERT_TRUE(s.ok()) << s.ToString();
    Mount();
  }
  void Mount() {
    store_.reset();
    auto st = ObjectStore::Open(opts_);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }
  Status Write(const std::string& name, std::uint64_t off, const std::string& data) {
    Transaction t;
    t.Write("c", name, off, ToBytes(data));
    return store_->Apply(t);
  }
  std::string ReadAll(const std::string& name) {
    auto info = store_->Stat("c", name);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    Extent e{0, info.ok() ? info->size : 0};
    auto r = store_->Read("c", name, std::span<const Extent>(&e, 1));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? ToString((*r)[0]) : "";
  }
  void CreateC() {
    Transaction t;
    t.CreateCollection("c");
    ASSERT_TRUE(store_->Apply(t).ok());
  }
  void ExpectFsckClean() {
    auto r = store_->Fsck(true);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    for (const auto& e : r->errors) ADD_FAILURE() << e;
  }

  TempDir dir_;
  StoreOptions opts_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_P(StoreTest, WritesReadsAndSurvivesRemount) {
  CreateC();
  ASSERT_TRUE(Write("a", 0, "hello").ok());
  ASSERT_TRUE(Write("a", 10000, "world").ok());  // leaves a hole
  EXPECT_EQ(store_->Stat("c", "a")->size, 10005u);
  std::string want = "hello" + std::string(9995, '\0') + "world";
  EXPECT_EQ(ReadAll("a"), want);
  ASSERT_TRUE(Write("a", 3, "LLO-overwrite").ok());
  want.replace(3, 13, "LLO-overwrite");
  EXPECT_EQ(ReadAll("a"), want);
  Mount();
  EXPECT_EQ(ReadAll("a"), want);
  ExpectFsckClean();
}

TEST_P(StoreTest, TruncateRemoveAttrsAndLists) {
  CreateC();
  ASSERT_TRUE(Write("a", 0, std::string(9000, 'x')).ok());
  Transaction t;
  t.Truncate("c", "a", 4100);
  t.Truncate("c", "a", 9000);  // the bytes past 4100 must come back as zeros
  t.SetAttr("c", "a", "owner", "pg.1");
  t.Touch("c", "b");
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(ReadAll("a"), std::string(4100, 'x') + std::string(4900, '\0'));
  EXPECT_EQ(*store_->GetAttr("c", "a", "owner"), "pg.1");
  EXPECT_EQ(store_->GetAttr("c", "a", "none").status().code(), ENODATA);
  EXPECT_EQ(*store_->List("c"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(*store_->ListCollections(), (std::vector<std::string>{"c"}));
  Transaction rm;
  rm.Remove("c", "a");
  rm.Remove("c", "b");
  rm.RemoveCollection("c");
  ASSERT_TRUE(store_->Apply(rm).ok());
  EXPECT_EQ(store_->Stat("c", "a").status().code(), ENOENT);
  EXPECT_EQ(store_->List("c").status().code(), ENOENT);
  ExpectFsckClean();
}

TEST_P(StoreTest, AFailingOpLeavesTheWholeTransactionUnapplied) {
  CreateC();
  ASSERT_TRUE(Write("a", 0, "old").ok());
  std::uint64_t free_before = store_->free_bytes();
  Transaction t;
  t.Write("c", "a", 0, ToBytes("new"));
  t.Write("c", "b", 0, ToBytes("other"));
  t.Remove("c", "missing");
  EXPECT_EQ(store_->Apply(t).code(), ENOENT);
  EXPECT_EQ(ReadAll("a"), "old");
  EXPECT_EQ(store_->Stat("c", "b").status().code(), ENOENT);
  EXPECT_EQ(store_->free_bytes(), free_before);
  Transaction bad;
  bad.Write("nope", "a", 0, ToBytes("x"));
  EXPECT_EQ(store_->Apply(bad).code(), ENOENT);
  Transaction dup;
  dup.CreateCollection("c");
  EXPECT_EQ(store_->Apply(dup).code(), EEXIST);
  Transaction notempty;
  notempty.RemoveCollection("c");
  EXPECT_EQ(store_->Apply(notempty).code(), ENOTEMPTY);
  Transaction badname;
  badname.Touch("c", "");
  EXPECT_EQ(store_->Apply(badname).code(), EINVAL);
  ExpectFsckClean();
}

TEST_P(StoreTest, FreedSpaceComesBackAfterOverwriteAndRemove) {
  CreateC();
  std::uint64_t empty = store_->free_bytes();
  ASSERT_TRUE(Write("a", 0, std::string(1 << 20, 'a')).ok());
  EXPECT_EQ(store_->free_bytes(), empty - (1 << 20));
  ASSERT_TRUE(Write("a", 0, std::string(1 << 20, 'b')).ok());  // copy-on-write, old freed
  EXPECT_EQ(store_->free_bytes(), empty - (1 << 20));
  Transaction t;
  t.Remove("c", "a");
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(store_->free_bytes(), empty);
  Mount();
  EXPECT_EQ(store_->free_bytes(), empty);
  ExpectFsckClean();
}

TEST_P(StoreTest, FullDeviceIsENOSPCAndChangesNothing) {
  CreateC();
  std::uint64_t free_before = store_->free_bytes();
  Transaction t;
  t.Write("c", "big", 0, std::vector<std::byte>(free_before + kBlockSize));
  Status s = store_->Apply(t);
  EXPECT_EQ(s.code(), ENOSPC);
  EXPECT_NE(s.message().find("no space"), std::string::npos) << s.message();
  EXPECT_EQ(store_->free_bytes(), free_before);
  EXPECT_EQ(store_->Stat("c", "big").status().code(), ENOENT);
  ExpectFsckClean();
}

TEST_P(StoreTest, ManyExtentsReadInOneSubmissionEachBlockOnce) {
  CreateC();
  std::mt19937_64 rng(3);
  auto data = testing::RandomBytes(rng, 64 * kBlockSize);
  Transaction t;
  t.Write("c", "a", 0, data);
  ASSERT_TRUE(store_->Apply(t).ok());
  // Re-open on a counting wrapper of the same device.
  store_.reset();
  DeviceOptions dopt;
  dopt.backend = GetParam();
  auto base = OpenFileDevice(opts_.device_path, dopt);
  ASSERT_TRUE(base.ok());
  auto counting =
      std::make_shared<testing::CountingDevice>(std::shared_ptr<BlockDevice>(std::move(*base)));
  StoreOptions o = opts_;
  o.device = counting;
  auto st = ObjectStore::Open(o);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  store_ = std::move(st).value();
  // 512-byte sub-chunks: eight per block, plus extents spread over distant blocks.
  std::vector<Extent> ext;
  for (std::uint64_t i = 0; i < 8; ++i) ext.push_back({i * 512, 512});
  for (std::uint64_t b = 10; b < 64; b += 9) ext.push_back({b * kBlockSize + 100, 3000});
  ext.push_back({63 * kBlockSize + 4000, 500});  // cut at the end of the object
  std::uint64_t submits = counting->submits, blocks = counting->blocks_read;
  auto r = store_->Read("c", "a", ext);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(counting->submits - submits, 1u);
  EXPECT_EQ(counting->blocks_read - blocks, 1u + 6u + 1u);
  ASSERT_EQ(r->size(), ext.size());
  for (std::size_t i = 0; i < ext.size(); ++i) {
    std::uint64_t len = std::min<std::uint64_t>(ext[i].length, data.size() - ext[i].offset);
    ASSERT_EQ((*r)[i].size(), len) << i;
    EXPECT_EQ(std::memcmp((*r)[i].data(), data.data() + ext[i].offset, len), 0) << i;
  }
}

TEST_P(StoreTest, ReadManySubmitsEveryRequestTogether) {
  CreateC();
  ASSERT_TRUE(Write("a", 0, std::string(9000, 'a') + "tail").ok());
  ASSERT_TRUE(Write("b", 0, "hello").ok());
  ASSERT_TRUE(Write("bad", 0, std::string(5000, 'x')).ok());
  store_.reset();
  DeviceOptions dopt;
  dopt.backend = GetParam();
  auto base = OpenFileDevice(opts_.device_path, dopt);
  ASSERT_TRUE(base.ok());
  auto counting =
      std::make_shared<testing::CountingDevice>(std::shared_ptr<BlockDevice>(std::move(*base)));
  StoreOptions o = opts_;
  o.device = counting;
  auto st = ObjectStore::Open(o);
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  store_ = std::move(st).value();
  // Rot the first block of "bad" (the only block all 'x') behind the store's back.
  bool rotted = false;
  const std::uint64_t first = 1 + store_->superblock().journal_blocks;  // data after the journal
  for (std::uint64_t blk = first; blk < first + 64 && !rotted; ++blk) {
    AlignedBuffer b(kBlockSize);
    IoRequest rd{IoRequest::Op::kRead, blk * kBlockSize, {iovec{b.data(), kBlockSize}}};
    ASSERT_TRUE(counting->Submit(std::span<IoRequest>(&rd, 1)).ok());
    if (std::string(reinterpret_cast<const char*>(b.data()), kBlockSize) !=
        std::string(kBlockSize, 'x')) {
      continue;
    }
    b.data()[7] = std::byte{'y'};
    IoRequest wr{IoRequest::Op::kWrite, blk * kBlockSize, {iovec{b.data(), kBlockSize}}};
    ASSERT_TRUE(counting->Submit(std::span<IoRequest>(&wr, 1)).ok());
    rotted = true;
  }
  ASSERT_TRUE(rotted);
  std::vector<ReadRequest> reqs = {
      {"c", "a", {{8990, 100}, {0, 3}}}, {"c", "bad", {{0, 10}}}, {"c", "missing", {{0, 1}}},
      {"c", "b", {{1, 3}, {100, 5}}},    {"c", "a", {{4096, 1}}},
  };
  std::uint64_t submits = counting->submits;
  auto r = store_->ReadMany(reqs);
  EXPECT_EQ(counting->submits - submits, 1u);
  ASSERT_EQ(r.size(), reqs.size());
  ASSERT_TRUE(r[0].ok()) << r[0].status().ToString();
  EXPECT_EQ(ToString((*r[0])[0]), "aaaaaaaaaatail");
  EXPECT_EQ(ToString((*r[0])[1]), "aaa");
  EXPECT_TRUE(r[1].status().is_data_loss()) << r[1].status().ToString();
  EXPECT_EQ(r[2].status().code(), ENOENT);
  ASSERT_TRUE(r[3].ok());
  EXPECT_EQ(ToString((*r[3])[0]), "ell");
  EXPECT_EQ(ToString((*r[3])[1]), "");
  ASSERT_TRUE(r[4].ok());
  EXPECT_EQ(ToString((*r[4])[0]), "a");
  EXPECT_TRUE(store_->ReadMany({}).empty());
}

TEST_P(StoreTest, RemadeOrForeignDevicesAreRefused) {
  // Mkfs again over a store: refused without force.
  store_.reset();
  EXPECT_EQ(ObjectStore::Mkfs(opts_).code(), EEXIST);
  // A second store, then pair its device with the first store's database.
  TempDir other;
  StoreOptions o2 = MakeOptions(other, GetParam());
  ASSERT_TRUE(ObjectStore::Mkfs(o2).ok());
  StoreOptions mixed = opts_;
  mixed.device_path = o2.device_path;
  auto m = ObjectStore::Open(mixed);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("foreign device"), std::string::npos) << m.status().message();
  // A blank device is not an ecstore device.
  StoreOptions blank = MakeOptions(other, GetParam());
  blank.device_path = other.File("blank");
  DeviceOptions d;
  d.create_size = kTestDeviceSize;
  ASSERT_TRUE(OpenFileDevice(blank.device_path, d).ok());
  auto b = ObjectStore::Open(blank);
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("not an ecstore device"), std::string::npos);
  // Missing database and missing device.
  StoreOptions nodb = opts_;
  nodb.db_path = other.File("nodb");
  EXPECT_EQ(ObjectStore::Open(nodb).status().code(), ENOENT);
  StoreOptions nodev = opts_;
  nodev.device_path = other.File("nodev");
  EXPECT_EQ(ObjectStore::Open(nodev).status().code(), ENOENT);
  // With force, Mkfs starts over.
  StoreOptions forced = opts_;
  forced.force = true;
  ASSERT_TRUE(ObjectStore::Mkfs(forced).ok());
  Mount();
  EXPECT_TRUE(store_->ListCollections()->empty());
}

TEST_P(StoreTest, MountRefusesAllocatorThatDisagreesWithMetadata) {
  CreateC();
  ASSERT_TRUE(Write("a", 0, std::string(8192, 'a')).ok());
  store_.reset();
  {
    // Mark every block free behind the store's back.
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(rocksdb::Options(), opts_.db_path, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    Allocator empty(kTestDeviceSize / kBlockSize);
    ASSERT_TRUE(
        db->Put(rocksdb::WriteOptions(), keys::AllocSegment(0), empty.EncodeSegment(0)).ok());
  }
  auto st = ObjectStore::Open(opts_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.status().code(), EUCLEAN);
  EXPECT_NE(st.status().message().find("allocator"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
