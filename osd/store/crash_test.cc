// Crash safety with the fault-injecting device and file system: the device "loses power" at a
// random write or flush, unsynced blocks randomly keep or lose their new contents, the metadata
// database loses what it did not sync, and after remount every acknowledged transaction is
// present exactly (so no object mixes old and new data), the interrupted one wholly or not at all,
// fsck (deep) is clean and no space leaks. With and without the commit journal.
#include <gtest/gtest.h>

#include <iostream>
#include <optional>

#include "osd/store/crash_fs.h"
#include "osd/store/fault_device.h"
#include "osd/store/store_model.h"

namespace ec::osd::store {
namespace {

using testing::Model;

class CrashTest : public testing::ModelTest {
 protected:
  void PowerCuts(std::uint64_t journal_size);
};

void CrashTest::PowerCuts(std::uint64_t journal_size) {
  std::uint64_t seed = testing::TestSeed();
  rng_.seed(seed);
  DeviceOptions dopt;
  dopt.backend = GetParam();
  dopt.create_size = testing::kTestDeviceSize;
  auto base = OpenFileDevice(dir_.File("dev"), dopt);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  auto fault = std::make_shared<FaultDevice>(std::shared_ptr<BlockDevice>(std::move(*base)));
  opts_ = testing::MakeOptions(dir_, GetParam());
  opts_.device = fault;
  opts_.journal_size = journal_size;
  // The database loses its unsynced writes at each cut too.
  auto fs = std::make_shared<CrashFileSystem>();
  opts_.db_env = CrashFileSystem::MakeEnv(fs);
  opts_.db_write_buffer_size = 64 << 10;  // WAL files roll over between cuts
  ASSERT_TRUE(ObjectStore::Mkfs(opts_).ok());
  Mount();
  ASSERT_EQ(store_->superblock().journal_blocks, journal_size / kBlockSize);
  std::uint64_t empty_free = store_->free_bytes();

  Model model;
  int crashes = 0;
  std::uint64_t wal_syncs = 0;
  int in_flight_committed = 0;
  std::uint64_t replayed = 0;  // journal records the database had lost
  for (int round = 0; round < 40; ++round) {
    // The transaction the power cut interrupted: never acknowledged, so after remount it may be
    // there or not, but wholly or not at all (a journal record can reach the disk in the flush
    // that failed).
    std::optional<Model> in_flight;
    // With a journal a commit is about three device operations (data, record, flush): a longer
    // window lets the 16-block ring wrap before the cut.
    fault->ArmCrash(1 + rng_() % (journal_size > 0 ? 120 : 30));
    for (int i = 0; i < 100; ++i) {
      Model next = model;
      Transaction t;
      for (std::uint64_t n = 1 + rng_() % 4; n > 0; --n) RandomOp(next, t);
      Status s = store_->Apply(t);
      if (!s.ok()) {
        ASSERT_TRUE(fault->crashed()) << "round " << round << ": " << s.ToString();
        ++crashes;
        in_flight = std::move(next);
        break;
      }
      model = std::move(next);
    }
    wal_syncs += store_->commit_stats().wal_syncs;
    // The cut reaches the database now (the device's came first, or comes with Restart below):
    // RocksDB keeps what it synced, and with torn files a prefix of the rest.
    fs->Crash(rng_(), rng_() % 2 == 0);
    store_.reset();
    ASSERT_TRUE(fs->crash_status().ok()) << fs->crash_status().ToString();
    fs->Restart();
    auto dropped = fault->Restart(rng_(), rng_() % 2 == 0);
    ASSERT_TRUE(dropped.ok());
    // Without a journal, alternate between deferred (small transactions through the WAL) and
    // direct writes.
    opts_.prefer_deferred_size = round % 2 == 0 ? 0 : 64 * 1024;
    Mount();
    if (HasFatalFailure()) return;
    replayed += store_->commit_stats().journal_replayed;
    if (in_flight && Matches(*in_flight)) {
      model = std::move(*in_flight);
      ++in_flight_committed;
    }
    CheckAll(model);
    CheckFsck(true);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(crashes, 20);
  std::cout << crashes << " power cuts, " << in_flight_committed
            << " interrupted transactions found committed, " << replayed
            << " journal records replayed\n";
  // No leak: removing everything gives back all the space.
  Transaction t;
  for (const auto& [key, o] : model.objects) t.Remove(key.first, key.second);
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(store_->free_bytes(), empty_free);
  if (journal_size > 0) {
    // The ring is small enough to wrap: the WAL was synced to reuse it.
    EXPECT_EQ(store_->commit_stats().journal_records, 1u);
    EXPECT_GT(wal_syncs, 0u);
    EXPECT_GT(replayed, 0u);
  } else {
    EXPECT_EQ(wal_syncs, 0u);
    EXPECT_EQ(replayed, 0u);
  }
}

// The smallest ring (16 blocks) wraps every few commits.
TEST_P(CrashTest, AcknowledgedTransactionsSurvivePowerCutsWithJournal) {
  PowerCuts(64 << 10);
}

TEST_P(CrashTest, AcknowledgedTransactionsSurvivePowerCutsWithoutJournal) {
  PowerCuts(0);
}

TEST_P(CrashTest, DeferredWriteLostAfterCommitIsReplayedAtMount) {
  DeviceOptions dopt;
  dopt.backend = GetParam();
  dopt.create_size = testing::kTestDeviceSize;
  auto base = OpenFileDevice(dir_.File("dev"), dopt);
  ASSERT_TRUE(base.ok()) << base.status().ToString();
  auto fault = std::make_shared<FaultDevice>(std::shared_ptr<BlockDevice>(std::move(*base)));
  opts_ = testing::MakeOptions(dir_, GetParam());
  opts_.device = fault;
  opts_.journal_size = 0;  // deferred writes exist only without a journal
  ASSERT_TRUE(ObjectStore::Mkfs(opts_).ok());
  Mount();
  Transaction c;
  c.CreateCollection("c");
  ASSERT_TRUE(store_->Apply(c).ok());
  // The block is written to the device before the commit but not flushed: only the WAL record
  // makes it durable. The power goes before anything else reaches the device (the store's
  // final flush fails), and the unsynced block loses its new contents.
  Transaction t;
  t.Write("c", "small", 100, testing::ToBytes("deferred bytes"));
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_GT(fault->unsynced_blocks(), 0u);
  fault->ArmCrash(1);
  store_.reset();
  EXPECT_TRUE(fault->crashed());
  ASSERT_TRUE(fault->Restart(1, /*drop_all=*/true).ok());
  Mount();
  Extent e{100, 14};
  auto r = store_->Read("c", "small", std::span<const Extent>(&e, 1));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(testing::ToString((*r)[0]), "deferred bytes");
  CheckFsck(true);
}

INSTANTIATE_TEST_SUITE_P(Backends, CrashTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

}  // namespace
}  // namespace ec::osd::store
