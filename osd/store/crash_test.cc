// Crash safety with the fault-injecting device: the device "loses power" at a random write or
// flush, unsynced blocks randomly keep or lose their new contents, and after remount every
// acknowledged transaction is present exactly (so no object mixes old and new data), fsck (deep)
// is clean and no space leaks.
#include <gtest/gtest.h>

#include "osd/store/fault_device.h"
#include "osd/store/store_model.h"

namespace ec::store {
namespace {

using testing::Model;

class CrashTest : public testing::ModelTest {};

TEST_P(CrashTest, AcknowledgedTransactionsSurvivePowerCuts) {
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
  ASSERT_TRUE(ObjectStore::Mkfs(opts_).ok());
  Mount();
  std::uint64_t empty_free = store_->free_bytes();

  Model model;
  int crashes = 0;
  for (int round = 0; round < 40; ++round) {
    fault->ArmCrash(1 + rng_() % 30);
    for (int i = 0; i < 100; ++i) {
      Model next = model;
      Transaction t;
      for (std::uint64_t n = 1 + rng_() % 4; n > 0; --n) RandomOp(next, t);
      Status s = store_->Apply(t);
      if (!s.ok()) {
        ASSERT_TRUE(fault->crashed()) << "round " << round << ": " << s.ToString();
        ++crashes;
        break;
      }
      model = std::move(next);
    }
    store_.reset();
    auto dropped = fault->Restart(rng_(), rng_() % 2 == 0);
    ASSERT_TRUE(dropped.ok());
    // Alternate between deferred (small transactions through the WAL) and direct writes.
    opts_.prefer_deferred_size = round % 2 == 0 ? 0 : 64 * 1024;
    Mount();
    if (HasFatalFailure()) return;
    CheckAll(model);
    CheckFsck(true);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(crashes, 20);
  // No leak: removing everything gives back all the space.
  Transaction t;
  for (const auto& [key, o] : model.objects) t.Remove(key.first, key.second);
  ASSERT_TRUE(store_->Apply(t).ok());
  EXPECT_EQ(store_->free_bytes(), empty_free);
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
}  // namespace ec::store
