// ObjectStore::ReadWithAttr: extents, size and one attribute from one metadata lookup and one
// device submission; the same data and errors as Read.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <unistd.h>

#include <cstring>

#include "osd/store/onode.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::store {
namespace {

using testing::CountingDevice;
using testing::TempDir;
using testing::ToBytes;
using testing::ToString;

class ReadWithAttrTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    opts_ = testing::MakeOptions(dir_, GetParam());
    ASSERT_TRUE(ObjectStore::Mkfs(opts_).ok());
    Mount();
  }
  void Mount() {
    store_.reset();
    auto dev = OpenFileDevice(opts_.device_path, DeviceOptions{GetParam(), 0});
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    counting_ = std::make_shared<CountingDevice>(std::shared_ptr<BlockDevice>(std::move(*dev)));
    StoreOptions o = opts_;
    o.device = counting_;
    auto st = ObjectStore::Open(o);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
  }

  TempDir dir_;
  StoreOptions opts_;
  std::shared_ptr<CountingDevice> counting_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_P(ReadWithAttrTest, ReturnsExtentsSizeAndAttributeWithOneSubmission) {
  std::mt19937_64 rng(5);
  auto data = testing::RandomBytes(rng, 5 * kBlockSize + 123);
  Transaction t;
  t.CreateCollection("pg.1");
  t.Write("pg.1", "obj", 0, data);
  t.SetAttr("pg.1", "obj", "_meta", "v7");
  t.SetAttr("pg.1", "obj", "other", "x");
  ASSERT_TRUE(store_->Apply(t).ok());

  const Extent extents[] = {{100, 5000}, {4 * kBlockSize, 1 << 20}, {1 << 30, 10}};
  const std::uint64_t submits = counting_->submits;
  auto r = store_->ReadWithAttr("pg.1", "obj", extents, "_meta");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(counting_->submits - submits, 1u);
  EXPECT_EQ(r->size, data.size());
  ASSERT_TRUE(r->attr.has_value());
  EXPECT_EQ(*r->attr, "v7");
  // The same bytes as Read.
  auto plain = store_->Read("pg.1", "obj", extents);
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(r->extents.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(ToString(r->extents[i]), ToString((*plain)[i]));
  EXPECT_EQ(r->extents[0].size(), 5000u);
  EXPECT_EQ(std::memcmp(r->extents[0].data(), data.data() + 100, 5000), 0);
  EXPECT_EQ(r->extents[1].size(), kBlockSize + 123);  // cut at the object's size
  EXPECT_EQ(r->extents[2].size(), 0u);                // past the end

  // No extents: metadata only, no device read.
  const std::uint64_t before = counting_->submits;
  auto meta = store_->ReadWithAttr("pg.1", "obj", {}, "other");
  ASSERT_TRUE(meta.ok()) << meta.status().ToString();
  EXPECT_EQ(counting_->submits, before);
  EXPECT_TRUE(meta->extents.empty());
  EXPECT_EQ(meta->size, data.size());
  EXPECT_EQ(meta->attr, std::optional<std::string>("x"));

  // A missing attribute is not an error.
  auto none = store_->ReadWithAttr("pg.1", "obj", extents, "nope");
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_FALSE(none->attr.has_value());
  EXPECT_EQ(none->extents.size(), 3u);

  // After a remount (no cached metadata) the same answer.
  Mount();
  auto again = store_->ReadWithAttr("pg.1", "obj", extents, "_meta");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->attr, std::optional<std::string>("v7"));
  EXPECT_EQ(ToString(again->extents[0]), ToString(r->extents[0]));
}

TEST_P(ReadWithAttrTest, ErrorsAreReadsErrors) {
  auto missing_coll = store_->ReadWithAttr("pg.9", "obj", {}, "_meta");
  EXPECT_EQ(missing_coll.status().code(), ENOENT);
  Transaction t;
  t.CreateCollection("pg.1");
  t.Write("pg.1", "obj", 0, ToBytes(std::string(3 * kBlockSize, 'a')));
  ASSERT_TRUE(store_->Apply(t).ok());
  auto missing = store_->ReadWithAttr("pg.1", "nobody", {}, "_meta");
  EXPECT_EQ(missing.status().code(), ENOENT);

  // Bit rot under the object: data loss, no bytes.
  store_.reset();
  std::uint64_t block = 0;
  {
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::OpenForReadOnly(rocksdb::Options(), opts_.db_path, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    std::string v;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), keys::Object("pg.1", "obj"), &v).ok());
    auto o = Onode::Decode(v);
    ASSERT_TRUE(o.ok());
    block = o->blocks.at(1).device_block;
  }
  int fd = ::open(opts_.device_path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  const char bad = 'b';
  ASSERT_EQ(::pwrite(fd, &bad, 1, static_cast<off_t>(block * kBlockSize + 7)), 1);
  ASSERT_EQ(::fsync(fd), 0);
  ::close(fd);
  Mount();
  const Extent all{0, 3 * kBlockSize};
  auto rotten = store_->ReadWithAttr("pg.1", "obj", std::span<const Extent>(&all, 1), "_meta");
  ASSERT_FALSE(rotten.ok());
  EXPECT_TRUE(rotten.status().is_data_loss()) << rotten.status().ToString();
  // Metadata alone still answers.
  auto meta = store_->ReadWithAttr("pg.1", "obj", {}, "_meta");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->size, 3 * kBlockSize);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReadWithAttrTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
