// FaultDevice: a BlockDevice wrapper for tests that models a power cut. Writes reach the wrapped
// device at once, but until the next successful Flush() they are "unsynced": the wrapper keeps the
// previous contents of every block they touched. ArmCrash(n) makes the device "crash" at the n-th
// following write request or flush: that operation and every later one fail with EIO, as if the
// machine had stopped. Restart() then plays the power cut: each unsynced block independently
// keeps its new contents or goes back to its old ones (drop_all: all go back), and the device works
// again. Like leveldb's fault_injection_test, in the spirit of a disk with a volatile cache.
//
// Ownership: shares the wrapped device. Thread safety: all methods are serialised internally.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <random>

#include "osd/store/device.h"

namespace ec::osd::store {

class FaultDevice final : public BlockDevice {
 public:
  explicit FaultDevice(std::shared_ptr<BlockDevice> base) : base_(std::move(base)) {}

  std::uint64_t size() const override { return base_->size(); }
  std::string_view name() const override { return "fault"; }
  // While crashed: EIO. Otherwise records the old contents of unsynced blocks, then writes.
  Status Submit(std::span<IoRequest> batch) override;
  // While crashed: EIO. Otherwise flushes the wrapped device and forgets the undo records.
  Status Flush() override;

  // Crash at the `ops`-th write request or flush from now (1 = the next one). 0 disarms.
  void ArmCrash(std::uint64_t ops);
  bool crashed() const;
  // Ends a crash (or simulates one now if not crashed): rolls back a random subset of the unsynced
  // blocks (all of them when drop_all) using `seed`, and returns how many blocks were rolled back.
  // Errors: those of the wrapped device while restoring.
  Result<std::uint64_t> Restart(std::uint64_t seed, bool drop_all);
  // Number of 4 KiB blocks written since the last successful flush.
  std::uint64_t unsynced_blocks() const;

 private:
  bool Tick();  // counts one operation; true when the device crashes on it

  std::shared_ptr<BlockDevice> base_;
  mutable std::mutex mu_;
  std::map<std::uint64_t, AlignedBuffer> undo_;  // block offset -> contents before first write
  std::uint64_t countdown_ = 0;
  bool crashed_ = false;
};

}  // namespace ec::osd::store
