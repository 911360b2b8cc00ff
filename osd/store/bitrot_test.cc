// Bit rot: bytes flipped in the device file under an object. Reads covering the block report data
// loss naming the object and offset (and return no bytes), reads elsewhere still work, a partial
// overwrite of the bad block fails, deep fsck names the block, plain fsck does not read data.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <unistd.h>

#include "common/crc32c.h"
#include "osd/store/onode.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::store {
namespace {

using testing::TempDir;

class BitRotTest : public ::testing::TestWithParam<IoBackend> {};

// Where logical block `lb` of coll/name lives on the device, from the metadata.
std::uint64_t DeviceBlockOf(const std::string& db_path, const std::string& coll,
                            const std::string& name, std::uint64_t lb) {
  rocksdb::DB* raw = nullptr;
  rocksdb::Status s = rocksdb::DB::OpenForReadOnly(rocksdb::Options(), db_path, &raw);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::unique_ptr<rocksdb::DB> db(raw);
  std::string v;
  EXPECT_TRUE(db->Get(rocksdb::ReadOptions(), keys::Object(coll, name), &v).ok());
  auto o = Onode::Decode(v);
  EXPECT_TRUE(o.ok());
  return o.ok() ? o->blocks.at(lb).device_block : 0;
}

void FlipByte(const std::string& path, std::uint64_t offset) {
  int fd = ::open(path.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  unsigned char c = 0;
  ASSERT_EQ(::pread(fd, &c, 1, static_cast<off_t>(offset)), 1);
  c ^= 0x5A;
  ASSERT_EQ(::pwrite(fd, &c, 1, static_cast<off_t>(offset)), 1);
  ASSERT_EQ(::fsync(fd), 0);
  ::close(fd);
}

TEST_P(BitRotTest, FlippedBytesAreDataLossNamedByReadAndDeepFsck) {
  TempDir dir;
  StoreOptions opts = testing::MakeOptions(dir, GetParam());
  ASSERT_TRUE(ObjectStore::Mkfs(opts).ok());
  std::mt19937_64 rng(11);
  auto data = testing::RandomBytes(rng, 4 * kBlockSize);
  {
    auto store = ObjectStore::Open(opts);
    ASSERT_TRUE(store.ok());
    Transaction t;
    t.CreateCollection("pg.1");
    t.Write("pg.1", "victim", 0, data);
    t.Write("pg.1", "bystander", 0, data);
    ASSERT_TRUE((*store)->Apply(t).ok());
  }
  std::uint64_t block = DeviceBlockOf(opts.db_path, "pg.1", "victim", 2);
  FlipByte(opts.device_path, block * kBlockSize + 1234);

  auto store = ObjectStore::Open(opts);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ObjectStore& s = **store;
  Extent bad{2 * kBlockSize + 10, 100};
  auto r = s.Read("pg.1", "victim", std::span<const Extent>(&bad, 1));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().is_data_loss());
  EXPECT_NE(r.status().message().find("pg.1/victim"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("offset 8192"), std::string::npos) << r.status().message();

  Extent good[] = {{0, 2 * kBlockSize}, {3 * kBlockSize, kBlockSize}};
  auto ok = s.Read("pg.1", "victim", good);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(std::memcmp((*ok)[0].data(), data.data(), 2 * kBlockSize), 0);

  Transaction partial;
  partial.Write("pg.1", "victim", 2 * kBlockSize + 1, testing::ToBytes("x"));
  EXPECT_TRUE(s.Apply(partial).is_data_loss());

  auto light = s.Fsck(false);
  ASSERT_TRUE(light.ok());
  EXPECT_TRUE(light->ok());
  auto deep = s.Fsck(true);
  ASSERT_TRUE(deep.ok());
  ASSERT_EQ(deep->errors.size(), 1u);
  EXPECT_NE(deep->errors[0].find("pg.1/victim at offset 8192"), std::string::npos)
      << deep->errors[0];
  EXPECT_EQ(deep->blocks_checked, 8u);

  // Overwriting the whole block replaces the bad copy; the store is healthy again.
  Transaction whole;
  whole.Write("pg.1", "victim", 2 * kBlockSize,
              std::span<const std::byte>(data.data() + 2 * kBlockSize, kBlockSize));
  ASSERT_TRUE(s.Apply(whole).ok());
  auto again = s.Read("pg.1", "victim", std::span<const Extent>(&bad, 1));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(std::memcmp((*again)[0].data(), data.data() + bad.offset, bad.length), 0);
  auto clean = s.Fsck(true);
  ASSERT_TRUE(clean.ok());
  EXPECT_TRUE(clean->ok());
}

// Locate names the device bytes of each block as the metadata records them, so that a byte flipped
// there (what `ec-osd --locate` lets a test or an operator find) is the block a read then rejects.
TEST_P(BitRotTest, LocateNamesTheDeviceBytesOfEachBlock) {
  TempDir dir;
  StoreOptions opts = testing::MakeOptions(dir, GetParam());
  ASSERT_TRUE(ObjectStore::Mkfs(opts).ok());
  std::mt19937_64 rng(12);
  auto data = testing::RandomBytes(rng, 3 * kBlockSize);
  std::vector<BlockLocation> where;
  {
    auto store = ObjectStore::Open(opts);
    ASSERT_TRUE(store.ok());
    Transaction t;
    t.CreateCollection("pg.1");
    t.Write("pg.1", "o", 0, std::span<const std::byte>(data.data(), kBlockSize));
    // A hole at block 1.
    t.Write("pg.1", "o", 2 * kBlockSize,
            std::span<const std::byte>(data.data() + 2 * kBlockSize, kBlockSize));
    ASSERT_TRUE((*store)->Apply(t).ok());
    auto located = (*store)->Locate("pg.1", "o");
    ASSERT_TRUE(located.ok()) << located.status().ToString();
    where = *located;
    EXPECT_EQ((*store)->Locate("pg.1", "absent").status().code(), ENOENT);
  }
  ASSERT_EQ(where.size(), 2u);
  EXPECT_EQ(where[0].offset, 0u);
  EXPECT_EQ(where[1].offset, 2 * kBlockSize);
  EXPECT_EQ(where[0].device_offset, DeviceBlockOf(opts.db_path, "pg.1", "o", 0) * kBlockSize);
  EXPECT_EQ(where[1].device_offset, DeviceBlockOf(opts.db_path, "pg.1", "o", 2) * kBlockSize);
  EXPECT_EQ(where[1].crc,
            Crc32c(std::span<const std::byte>(data.data() + 2 * kBlockSize, kBlockSize)));
  FlipByte(opts.device_path, where[1].device_offset + 7);

  auto store = ObjectStore::Open(opts);
  ASSERT_TRUE(store.ok());
  Extent first{0, kBlockSize}, last{2 * kBlockSize, kBlockSize};
  EXPECT_TRUE((*store)->Read("pg.1", "o", std::span<const Extent>(&first, 1)).ok());
  auto bad = (*store)->Read("pg.1", "o", std::span<const Extent>(&last, 1));
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().is_data_loss()) << bad.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, BitRotTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
