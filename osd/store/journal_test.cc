// The commit journal on its own: the records after the checkpoint are applied again in order, so
// that batches the database lost come back (also across ring wraps, which write checkpoints);
// replay stops at a torn or corrupt record, and drops a last record whose data did not reach the
// device.
#include "osd/store/journal.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstring>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/crc32c.h"
#include "osd/store/aligned_buffer.h"
#include "osd/store/crash_fs.h"
#include "osd/store/store_test_support.h"

namespace ec::osd::store {
namespace {

constexpr std::uint64_t kDataBlock = 1000;  // where the tests' data blocks go

class JournalTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    DeviceOptions d;
    d.backend = GetParam();
    d.create_size = testing::kTestDeviceSize;
    auto dev = OpenFileDevice(dir_.File("dev"), d);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    dev_ = std::move(dev).value();
    sb_ = Superblock::Generate(dev_->size());
    sb_.journal_block = 1;
    sb_.journal_blocks = 16;
    OpenDb();
  }

  // With `env` (a CrashFileSystem's), the database can lose its unsynced writes; small memtables
  // make its WAL files roll over.
  void OpenDb(rocksdb::Env* env = nullptr) {
    db_.reset();
    rocksdb::Options o;
    o.create_if_missing = true;
    if (env != nullptr) {
      o.env = env;
      o.write_buffer_size = 64 << 10;
    }
    rocksdb::DB* raw = nullptr;
    ASSERT_TRUE(rocksdb::DB::Open(o, dir_.File("db"), &raw).ok());
    db_.reset(raw);
  }

  // Commits Put(key, value) with one data block written alongside; applies the batch to the
  // database only when `apply` (a lost database write otherwise).
  Status CommitOne(Journal& j, const std::string& key, const std::string& value,
                   std::uint64_t data_block, bool apply) {
    AlignedBuffer data(kBlockSize);
    std::memset(data.data(), static_cast<int>(key.back()), kBlockSize);
    WrittenBlock wb{data_block, Crc32c(data.span())};
    IoRequest w{IoRequest::Op::kWrite, data_block * kBlockSize, {iovec{data.data(), kBlockSize}}};
    rocksdb::WriteBatch batch;
    EXPECT_TRUE(batch.Put(key, value).ok());
    Status st =
        j.Commit(batch, std::span<const WrittenBlock>(&wb, 1), std::span<const IoRequest>(&w, 1));
    if (st.ok() && apply) {
      EXPECT_TRUE(db_->Write(rocksdb::WriteOptions(), &batch).ok());
    }
    return st;
  }

  bool Has(const std::string& key, std::string* value = nullptr) {
    std::string v;
    bool found = db_->Get(rocksdb::ReadOptions(), key, &v).ok();
    if (value) *value = v;
    return found;
  }

  void WriteBlock(std::uint64_t block, char fill) {
    AlignedBuffer b(kBlockSize);
    std::memset(b.data(), fill, kBlockSize);
    IoRequest w{IoRequest::Op::kWrite, block * kBlockSize, {iovec{b.data(), kBlockSize}}};
    ASSERT_TRUE(dev_->Submit(std::span<IoRequest>(&w, 1)).ok());
  }

  testing::TempDir dir_;
  std::unique_ptr<BlockDevice> dev_;
  std::shared_ptr<rocksdb::Env> env_;  // before db_: outlives it
  std::unique_ptr<rocksdb::DB> db_;
  Superblock sb_;
};

TEST_P(JournalTest, ReplaysWhatTheDatabaseLostInOrder) {
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    EXPECT_EQ(j.stats().replayed, 0u);
    for (int i = 1; i <= 10; ++i) {
      ASSERT_TRUE(CommitOne(j, "k" + std::to_string(i), "v" + std::to_string(i),
                            kDataBlock + static_cast<std::uint64_t>(i), i <= 4)
                      .ok());
    }
    // Later records overwrite an earlier key: replay must keep the order.
    ASSERT_TRUE(CommitOne(j, "k1", "last", kDataBlock, false).ok());
  }
  EXPECT_FALSE(Has("k5"));
  Journal j(*dev_, *db_, sb_);
  ASSERT_TRUE(j.Replay().ok());
  EXPECT_EQ(j.stats().replayed, 11u);  // all after the (initial) checkpoint, the 4 held ones too
  for (int i = 2; i <= 10; ++i) {
    std::string v;
    ASSERT_TRUE(Has("k" + std::to_string(i), &v)) << i;
    EXPECT_EQ(v, "v" + std::to_string(i));
  }
  std::string v;
  ASSERT_TRUE(Has("k1", &v));
  EXPECT_EQ(v, "last");
  // Replay made the database durable and wrote a checkpoint: a second replay applies only what
  // came after, and new records follow the old ones.
  ASSERT_TRUE(CommitOne(j, "k11", "v11", kDataBlock + 11, false).ok());
  Journal again(*dev_, *db_, sb_);
  ASSERT_TRUE(again.Replay().ok());
  EXPECT_EQ(again.stats().replayed, 1u);
  EXPECT_TRUE(Has("k11"));
}

// After a power cut RocksDB can come back with a later batch but without an earlier one (an older
// WAL's tail lost, a newer WAL's head kept). Replay from the checkpoint restores the earlier ones
// and leaves the later ones as they were.
TEST_P(JournalTest, FillsAGapInTheDatabase) {
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    for (int i = 1; i <= 6; ++i) {
      ASSERT_TRUE(CommitOne(j, "k" + std::to_string(i), "v" + std::to_string(i),
                            kDataBlock + static_cast<std::uint64_t>(i), true)
                      .ok());
    }
    ASSERT_TRUE(CommitOne(j, "k5", "newer", kDataBlock + 7, true).ok());
  }
  ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), "k2").ok());
  ASSERT_TRUE(db_->Delete(rocksdb::WriteOptions(), "k3").ok());
  Journal j(*dev_, *db_, sb_);
  ASSERT_TRUE(j.Replay().ok());
  for (int i = 1; i <= 6; ++i) EXPECT_TRUE(Has("k" + std::to_string(i))) << i;
  std::string v;
  ASSERT_TRUE(Has("k5", &v));
  EXPECT_EQ(v, "newer");  // applied in order: the later record wins again
}

// Every batch is applied without sync as the store does, then the power goes and the database
// loses what it did not sync (torn WAL tails, gaps across WAL files); the ring wrapped many times.
TEST_P(JournalTest, WrapsTheRingAndRecoversWhatAPowerCutTookFromTheDatabase) {
  std::uint64_t seed = testing::TestSeed();
  std::mt19937_64 rng(seed);
  auto fs = std::make_shared<CrashFileSystem>();
  env_ = CrashFileSystem::MakeEnv(fs);
  OpenDb(env_.get());
  constexpr int kRecords = 300;
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    for (int i = 0; i < kRecords; ++i) {
      // 100 B to 9 KB values: records of one to three blocks, so wraps skip ring tails.
      std::string value(100 + rng() % 9000, static_cast<char>('a' + i % 26));
      ASSERT_TRUE(CommitOne(j, "k" + std::to_string(i), value,
                            kDataBlock + static_cast<std::uint64_t>(i), true)
                      .ok())
          << i;
    }
    EXPECT_GT(j.stats().wal_syncs, 10u);
    EXPECT_GT(fs->unsynced_bytes(), 0u);
    fs->Crash(rng(), rng() % 2 == 0);
  }
  db_.reset();
  ASSERT_TRUE(fs->crash_status().ok()) << fs->crash_status().ToString();
  fs->Restart();
  OpenDb(env_.get());
  int lost = 0;
  for (int i = 0; i < kRecords; ++i) lost += Has("k" + std::to_string(i)) ? 0 : 1;
  Journal j(*dev_, *db_, sb_);
  ASSERT_TRUE(j.Replay().ok());
  // From the last checkpoint: everything lost, and less than a ring's worth.
  EXPECT_GE(j.stats().replayed, static_cast<std::uint64_t>(lost));
  EXPECT_LE(j.stats().replayed, sb_.journal_blocks);
  for (int i = 0; i < kRecords; ++i) EXPECT_TRUE(Has("k" + std::to_string(i))) << i;
  std::cout << "seed " << seed << ": the database lost " << lost << " batches, replay applied "
            << j.stats().replayed << " records\n";
}

TEST_P(JournalTest, DropsALastRecordWhoseDataDidNotReachTheDevice) {
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    for (int i = 1; i <= 3; ++i) {
      ASSERT_TRUE(CommitOne(j, "k" + std::to_string(i), "v",
                            kDataBlock + static_cast<std::uint64_t>(i), false)
                      .ok());
    }
  }
  // Record 3's data is not what its crc says: its flush was cut. Record 2's data changed too, but
  // record 3 proves record 2's flush completed (the block was reused since): it counts.
  WriteBlock(kDataBlock + 3, 'Z');
  WriteBlock(kDataBlock + 2, 'Z');
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    EXPECT_EQ(j.stats().replayed, 2u);
    EXPECT_TRUE(Has("k1"));
    EXPECT_TRUE(Has("k2"));
    EXPECT_FALSE(Has("k3"));
    // The next record takes the dropped one's sequence number and place.
    ASSERT_TRUE(CommitOne(j, "k4", "v", kDataBlock + 4, false).ok());
  }
  Journal j(*dev_, *db_, sb_);
  ASSERT_TRUE(j.Replay().ok());
  EXPECT_EQ(j.stats().replayed, 1u);
  EXPECT_TRUE(Has("k4"));
  EXPECT_FALSE(Has("k3"));
}

TEST_P(JournalTest, StopsAtACorruptRecord) {
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    for (int i = 1; i <= 3; ++i) {
      ASSERT_TRUE(CommitOne(j, "k" + std::to_string(i), "v",
                            kDataBlock + static_cast<std::uint64_t>(i), false)
                      .ok());
    }
  }
  // Each record is one block here: ring block 1 holds record 2. Flip a byte of its body.
  AlignedBuffer b(kBlockSize);
  IoRequest r{
      IoRequest::Op::kRead, (sb_.journal_block + 1) * kBlockSize, {iovec{b.data(), kBlockSize}}};
  ASSERT_TRUE(dev_->Submit(std::span<IoRequest>(&r, 1)).ok());
  b.data()[60] ^= std::byte{1};
  r.op = IoRequest::Op::kWrite;
  ASSERT_TRUE(dev_->Submit(std::span<IoRequest>(&r, 1)).ok());
  Journal j(*dev_, *db_, sb_);
  ASSERT_TRUE(j.Replay().ok());
  EXPECT_EQ(j.stats().replayed, 1u);
  EXPECT_FALSE(Has("k2"));
  EXPECT_FALSE(Has("k3"));
}

TEST_P(JournalTest, IgnoresRecordsOfAnotherStore) {
  {
    Journal j(*dev_, *db_, sb_);
    ASSERT_TRUE(j.Replay().ok());
    ASSERT_TRUE(CommitOne(j, "k1", "v", kDataBlock, false).ok());
  }
  Superblock other = Superblock::Generate(dev_->size());
  other.journal_block = sb_.journal_block;
  other.journal_blocks = sb_.journal_blocks;
  Journal j(*dev_, *db_, other);
  ASSERT_TRUE(j.Replay().ok());
  EXPECT_EQ(j.stats().replayed, 0u);
  EXPECT_FALSE(Has("k1"));
}

TEST_P(JournalTest, RefusesARecordLargerThanHalfTheRing) {
  Journal j(*dev_, *db_, sb_);
  ASSERT_TRUE(j.Replay().ok());
  Status st = CommitOne(j, "big", std::string(9 * kBlockSize, 'b'), kDataBlock, false);
  EXPECT_EQ(st.code(), EFBIG) << st.ToString();
  EXPECT_EQ(j.stats().records, 0u);
  Journal again(*dev_, *db_, sb_);
  ASSERT_TRUE(again.Replay().ok());
  EXPECT_EQ(again.stats().replayed, 0u);
}

TEST_P(JournalTest, ACorruptPositionIsDataLoss) {
  ASSERT_TRUE(db_->Put(rocksdb::WriteOptions(), std::string(Journal::kPosKey), "short").ok());
  Journal j(*dev_, *db_, sb_);
  Status st = j.Replay();
  EXPECT_TRUE(st.is_data_loss()) << st.ToString();
}

INSTANTIATE_TEST_SUITE_P(Backends, JournalTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
