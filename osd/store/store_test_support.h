// Helpers shared by the store's tests: a temporary directory removed afterwards, options for a
// store on a file in it, byte helpers, and a device wrapper that counts what goes through it.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "osd/store/device.h"
#include "osd/store/object_store.h"

namespace ec::osd::store::testing {

inline constexpr std::uint64_t kTestDeviceSize = 64ull << 20;

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction. /tmp
// rather than /dev/shm: the device file needs a file system that honours O_DIRECT.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Options for a store with device file dir/dev (created at Mkfs) and database dir/db.
StoreOptions MakeOptions(const TempDir& dir, IoBackend backend,
                         std::uint64_t size = kTestDeviceSize);

// A new store in `dir` (MakeOptions, then Mkfs and Open): the store, or the first error.
Result<std::unique_ptr<ObjectStore>> MkfsAndOpen(const TempDir& dir, IoBackend backend,
                                                 std::uint64_t size = kTestDeviceSize);

std::vector<std::byte> RandomBytes(std::mt19937_64& rng, std::size_t n);
std::vector<std::byte> ToBytes(const std::string& s);
std::string ToString(const Buffer& b);

// The seed for randomized tests: $ECSTORE_TEST_SEED if set, else random; always printed.
std::uint64_t TestSeed();

// Passes requests through to a device, counting submissions and blocks read.
class CountingDevice final : public BlockDevice {
 public:
  explicit CountingDevice(std::shared_ptr<BlockDevice> base) : base_(std::move(base)) {}
  std::uint64_t size() const override { return base_->size(); }
  std::string_view name() const override { return "counting"; }
  Status Submit(std::span<IoRequest> batch) override;
  Status Flush() override { return base_->Flush(); }

  std::atomic<std::uint64_t> submits{0};
  std::atomic<std::uint64_t> blocks_read{0};

 private:
  std::shared_ptr<BlockDevice> base_;
};

// Both I/O paths run every parameterised suite.
inline std::string BackendName(const ::testing::TestParamInfo<IoBackend>& info) {
  return std::string(IoBackendName(info.param));
}

}  // namespace ec::osd::store::testing
