// Device layer: both I/O paths, batching, error cases, the fault-injecting device, checksums and
// the superblock format.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

#include "common/crc32c.h"
#include "osd/store/fault_device.h"
#include "osd/store/store_test_support.h"
#include "osd/store/superblock.h"

namespace ec::osd::store {
namespace {

using testing::TempDir;

class DeviceTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  std::unique_ptr<BlockDevice> Open(std::uint64_t size = 16ull << 20, unsigned depth = 8) {
    DeviceOptions o;
    o.backend = GetParam();
    o.create_size = size;
    o.queue_depth = depth;
    auto d = OpenFileDevice(dir_.File("dev"), o);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    return d.ok() ? std::move(d).value() : nullptr;
  }
  TempDir dir_;
};

// A created device file is written with zeros: no extent is left "unwritten" (whose first write
// would cost a file system journal commit at every fdatasync), and it reads back as zeros.
TEST_P(DeviceTest, CreatedFileHasNoUnwrittenExtents) {
  auto dev = Open(16ull << 20);
  ASSERT_TRUE(dev);
  const int fd = ::open(dir_.File("dev").c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  constexpr unsigned kMax = 256;
  std::vector<std::byte> raw(sizeof(fiemap) + kMax * sizeof(fiemap_extent));
  auto* map = reinterpret_cast<fiemap*>(raw.data());
  map->fm_start = 0;
  map->fm_length = FIEMAP_MAX_OFFSET;
  map->fm_flags = FIEMAP_FLAG_SYNC;
  map->fm_extent_count = kMax;
  const int rc = ::ioctl(fd, FS_IOC_FIEMAP, map);
  ::close(fd);
  if (rc != 0) GTEST_SKIP() << "this file system has no FIEMAP: " << std::strerror(errno);
  ASSERT_GT(map->fm_mapped_extents, 0u);
  std::uint64_t mapped = 0;
  for (unsigned i = 0; i < map->fm_mapped_extents; ++i) {
    EXPECT_EQ(map->fm_extents[i].fe_flags & FIEMAP_EXTENT_UNWRITTEN, 0u) << "extent " << i;
    mapped += map->fm_extents[i].fe_length;
  }
  EXPECT_EQ(mapped, 16ull << 20);
  AlignedBuffer in(kBlockSize);
  std::vector<IoRequest> read = {
      {IoRequest::Op::kRead, 5 * kBlockSize, {iovec{in.data(), kBlockSize}}}};
  ASSERT_TRUE(dev->Submit(read).ok());
  EXPECT_TRUE(std::all_of(in.data(), in.data() + kBlockSize,
                          [](std::byte b) { return b == std::byte{0}; }));
}

TEST_P(DeviceTest, BatchLargerThanTheQueueRoundTrips) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  EXPECT_EQ(dev->size(), 16ull << 20);
  EXPECT_EQ(dev->name(), IoBackendName(GetParam()));
  constexpr int kReqs = 50;  // queue depth 8: several rounds
  std::vector<AlignedBuffer> out, in;
  std::vector<IoRequest> writes, reads;
  std::mt19937_64 rng(1);
  for (int i = 0; i < kReqs; ++i) {
    out.emplace_back(2 * kBlockSize);
    auto bytes = testing::RandomBytes(rng, 2 * kBlockSize);
    std::memcpy(out.back().data(), bytes.data(), bytes.size());
    in.emplace_back(2 * kBlockSize);
    std::uint64_t off = (3 + 5 * static_cast<std::uint64_t>(i)) * kBlockSize;
    // Two iovecs per request to exercise vectored I/O.
    writes.push_back({IoRequest::Op::kWrite,
                      off,
                      {iovec{out.back().data(), kBlockSize},
                       iovec{out.back().data() + kBlockSize, kBlockSize}}});
    reads.push_back({IoRequest::Op::kRead, off, {iovec{in.back().data(), 2 * kBlockSize}}});
  }
  ASSERT_TRUE(dev->Submit(writes).ok());
  ASSERT_TRUE(dev->Flush().ok());
  ASSERT_TRUE(dev->Submit(reads).ok());
  for (int i = 0; i < kReqs; ++i) {
    EXPECT_EQ(std::memcmp(out[i].data(), in[i].data(), 2 * kBlockSize), 0) << i;
  }
}

TEST_P(DeviceTest, RejectsMisalignedAndOutOfRangeRequests) {
  auto dev = Open();
  ASSERT_TRUE(dev);
  AlignedBuffer buf(2 * kBlockSize);
  IoRequest odd{IoRequest::Op::kRead, 100, {iovec{buf.data(), kBlockSize}}};
  EXPECT_EQ(dev->Submit(std::span<IoRequest>(&odd, 1)).code(), EINVAL);
  IoRequest unaligned_mem{IoRequest::Op::kRead, 0, {iovec{buf.data() + 512, kBlockSize}}};
  EXPECT_EQ(dev->Submit(std::span<IoRequest>(&unaligned_mem, 1)).code(), EINVAL);
  IoRequest past{
      IoRequest::Op::kRead, dev->size() - kBlockSize, {iovec{buf.data(), 2 * kBlockSize}}};
  Status s = dev->Submit(std::span<IoRequest>(&past, 1));
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("beyond device end"), std::string::npos) << s.message();
}

TEST_P(DeviceTest, MissingDeviceIsNotFound) {
  DeviceOptions o;
  o.backend = GetParam();
  auto d = OpenFileDevice(dir_.File("nothing"), o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), ENOENT);
  EXPECT_NE(d.status().message().find("does not exist"), std::string::npos);
}

TEST_P(DeviceTest, DeviceTooSmallIsRefused) {
  std::ofstream(dir_.File("small")).write("x", 1);
  ::truncate(dir_.File("small").c_str(), 1 << 20);
  DeviceOptions o;
  o.backend = GetParam();
  auto d = OpenFileDevice(dir_.File("small"), o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), ENOSPC);
  EXPECT_NE(d.status().message().find("too small"), std::string::npos) << d.status().message();
}

TEST_P(DeviceTest, DirectoryIsNotADevice) {
  DeviceOptions o;
  o.backend = GetParam();
  auto d = OpenFileDevice(dir_.path(), o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), EINVAL);
}

TEST_P(DeviceTest, FaultDeviceDropsOnlyUnsyncedWrites) {
  std::shared_ptr<BlockDevice> base = Open();
  ASSERT_TRUE(base);
  FaultDevice dev(base);
  AlignedBuffer a(kBlockSize), b(kBlockSize), r(kBlockSize);
  std::memset(a.data(), 0xAA, kBlockSize);
  std::memset(b.data(), 0xBB, kBlockSize);
  IoRequest wa{IoRequest::Op::kWrite, 8 * kBlockSize, {iovec{a.data(), kBlockSize}}};
  IoRequest wb{IoRequest::Op::kWrite, 8 * kBlockSize, {iovec{b.data(), kBlockSize}}};
  IoRequest rd{IoRequest::Op::kRead, 8 * kBlockSize, {iovec{r.data(), kBlockSize}}};
  ASSERT_TRUE(dev.Submit(std::span<IoRequest>(&wa, 1)).ok());
  ASSERT_TRUE(dev.Flush().ok());
  ASSERT_TRUE(dev.Submit(std::span<IoRequest>(&wb, 1)).ok());
  EXPECT_EQ(dev.unsynced_blocks(), 1u);
  ASSERT_TRUE(dev.Submit(std::span<IoRequest>(&rd, 1)).ok());
  EXPECT_EQ(r.data()[0], std::byte{0xBB});  // visible before the crash
  dev.ArmCrash(1);
  EXPECT_EQ(dev.Flush().code(), EIO);  // the crash hits the flush
  EXPECT_TRUE(dev.crashed());
  EXPECT_EQ(dev.Submit(std::span<IoRequest>(&rd, 1)).code(), EIO);
  auto dropped = dev.Restart(7, /*drop_all=*/true);
  ASSERT_TRUE(dropped.ok());
  EXPECT_EQ(*dropped, 1u);
  ASSERT_TRUE(dev.Submit(std::span<IoRequest>(&rd, 1)).ok());
  EXPECT_EQ(r.data()[0], std::byte{0xAA});  // the synced contents survive
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceTest,
                         ::testing::Values(IoBackend::kUring, IoBackend::kSync),
                         testing::BackendName);

TEST(Checksum, Crc32cKnownAnswers) {
  std::string s = "123456789";
  EXPECT_EQ(Crc32c(AsBytes(s.data(), s.size())), 0xE3069283u);
  std::vector<std::byte> zeros(32, std::byte{0});
  EXPECT_EQ(Crc32c(zeros), 0x8A9136AAu);  // RFC 3720 B.4: 32 bytes of zeros
}

TEST(SuperblockFormat, RoundTripsAndNamesForeignAndCorruptBlocks) {
  AlignedBuffer block(kBlockSize);
  Superblock sb = Superblock::Generate(1 << 30);
  sb.Encode(block.span());
  auto back = Superblock::Decode(block.span());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->uuid, sb.uuid);
  EXPECT_EQ(back->device_size, 1u << 30);
  EXPECT_EQ(sb.UuidString().size(), 36u);

  AlignedBuffer foreign(kBlockSize);
  std::memcpy(foreign.data(), "XFSB", 4);
  auto f = Superblock::Decode(foreign.span());
  EXPECT_EQ(f.status().code(), EINVAL);
  EXPECT_NE(f.status().message().find("not an ecstore device"), std::string::npos);

  block.data()[20] ^= std::byte{1};
  EXPECT_TRUE(Superblock::Decode(block.span()).status().is_data_loss());
}

}  // namespace
}  // namespace ec::osd::store
