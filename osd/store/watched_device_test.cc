// WatchedDevice: the errors and slow requests it counts, and the faults it plays on request.
#include "osd/store/watched_device.h"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

#include "osd/store/store_test_support.h"

namespace ec::osd::store {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;

class WatchedDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DeviceOptions o;
    o.backend = IoBackend::kSync;
    o.create_size = 16ull << 20;
    auto base = OpenFileDevice(dir_.File("dev"), o);
    ASSERT_TRUE(base.ok()) << base.status().ToString();
    dev_ = std::make_unique<WatchedDevice>(std::move(base).value(), milliseconds(50));
  }
  Status Io(IoRequest::Op op, std::uint64_t offset) {
    IoRequest r{op, offset, {iovec{block_.data(), kBlockSize}}};
    return dev_->Submit(std::span<IoRequest>(&r, 1));
  }
  static DeviceFaults Faults(FaultRanges reads, FaultRanges writes,
                             milliseconds stall = milliseconds(0)) {
    return DeviceFaults{std::move(reads), std::move(writes), stall};
  }
  static FaultRanges Range(std::uint64_t offset, std::uint64_t length) {
    return FaultRanges{false, {{offset, length}}};
  }
  static FaultRanges All() { return FaultRanges{true, {}}; }

  TempDir dir_;
  AlignedBuffer block_{kBlockSize};
  std::unique_ptr<WatchedDevice> dev_;
};

TEST(FaultRangesTest, HitsOverlappingRequests) {
  const FaultRanges some{false, {{1 << 20, 4096}, {8192, 4096}}};
  EXPECT_TRUE(some.Hits(8192, 4096));
  EXPECT_TRUE(some.Hits(4096, 8192));  // overlaps 8192+4096
  EXPECT_FALSE(some.Hits(0, 8192));
  EXPECT_FALSE(some.Hits(12288, 4096));
  EXPECT_TRUE(some.Hits((1 << 20) + 4095, 1));
  EXPECT_TRUE((FaultRanges{true, {}}.Hits(0, 1)));
  EXPECT_FALSE(FaultRanges{}.Hits(0, 1 << 30));
}

TEST_F(WatchedDeviceTest, InjectedReadErrorsHitOnlyTheirRangesAndAreCounted) {
  std::memset(block_.data(), 0x5a, kBlockSize);
  ASSERT_TRUE(Io(IoRequest::Op::kWrite, 8192).ok());
  dev_->SetFaults(Faults(Range(8192, 4096), FaultRanges{}));
  Status s = Io(IoRequest::Op::kRead, 8192);
  EXPECT_EQ(s.code(), EIO) << s.ToString();
  EXPECT_NE(s.message().find("bdev_inject_read_eio"), std::string::npos) << s.message();
  EXPECT_TRUE(Io(IoRequest::Op::kRead, 4096).ok());
  std::memset(block_.data(), 0x5a, kBlockSize);
  EXPECT_TRUE(Io(IoRequest::Op::kWrite, 8192).ok());  // writes are not faulted
  EXPECT_TRUE(dev_->Flush().ok());
  DeviceErrorCounts c = dev_->counts();
  EXPECT_EQ(c.read_errors, 1u);
  EXPECT_EQ(c.write_errors, 0u);
  EXPECT_EQ(c.injected, 1u);
  // Lifted: the block reads back as written.
  dev_->SetFaults({});
  std::memset(block_.data(), 0, kBlockSize);
  ASSERT_TRUE(Io(IoRequest::Op::kRead, 8192).ok());
  EXPECT_EQ(static_cast<unsigned char>(block_.data()[100]), 0x5au);
}

TEST_F(WatchedDeviceTest, AllWritesFailingFailsFlushesToo) {
  dev_->SetFaults(Faults(FaultRanges{}, All()));
  EXPECT_EQ(Io(IoRequest::Op::kWrite, 0).code(), EIO);
  EXPECT_EQ(dev_->Flush().code(), EIO);
  EXPECT_TRUE(Io(IoRequest::Op::kRead, 0).ok());
  EXPECT_EQ(dev_->counts().write_errors, 2u);
  // A range of writes fails only those; flushes pass.
  dev_->SetFaults(Faults(FaultRanges{}, Range(0, 4096)));
  EXPECT_EQ(Io(IoRequest::Op::kWrite, 0).code(), EIO);
  EXPECT_TRUE(Io(IoRequest::Op::kWrite, 4096).ok());
  EXPECT_TRUE(dev_->Flush().ok());
  EXPECT_EQ(dev_->counts().write_errors, 3u);
}

TEST_F(WatchedDeviceTest, AStallIsPlayedAndCountedSlow) {
  dev_->SetFaults(Faults(FaultRanges{}, FaultRanges{}, milliseconds(80)));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(Io(IoRequest::Op::kRead, 0).ok());
  EXPECT_TRUE(dev_->Flush().ok());
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(160));
  EXPECT_EQ(dev_->counts().slow_ops, 2u);
  dev_->SetFaults({});
  EXPECT_TRUE(Io(IoRequest::Op::kRead, 0).ok());
  EXPECT_EQ(dev_->counts().slow_ops, 2u);
  EXPECT_EQ(dev_->counts().read_errors, 0u);
}

// While a request hangs, OldestInProgress grows with it (what the daemon's stall watchdog reads);
// once it returns, nothing is in progress.
TEST_F(WatchedDeviceTest, AHangingRequestShowsAsInProgressUntilItReturns) {
  EXPECT_EQ(dev_->OldestInProgress(), std::chrono::steady_clock::duration::zero());
  // A stall far longer than the wait before looking, so that a loaded machine (the suite runs
  // three tests at once) cannot make the request end first.
  dev_->SetFaults(Faults(FaultRanges{}, FaultRanges{}, milliseconds(2000)));
  std::thread reader([&] { EXPECT_TRUE(Io(IoRequest::Op::kRead, 0).ok()); });
  std::this_thread::sleep_for(milliseconds(150));
  const auto seen = dev_->OldestInProgress();
  EXPECT_GE(seen, milliseconds(100));
  EXPECT_LT(seen, milliseconds(2000));
  reader.join();
  EXPECT_EQ(dev_->OldestInProgress(), std::chrono::steady_clock::duration::zero());
}

// A request the device refuses as malformed is the caller's mistake, not a device error.
TEST_F(WatchedDeviceTest, ABadRequestIsNotADeviceError) {
  IoRequest r{IoRequest::Op::kRead, 1, {iovec{block_.data(), kBlockSize}}};
  EXPECT_EQ(dev_->Submit(std::span<IoRequest>(&r, 1)).code(), EINVAL);
  EXPECT_EQ(dev_->counts().read_errors, 0u);
}

}  // namespace
}  // namespace ec::osd::store
