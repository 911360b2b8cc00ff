// WatchedDevice: the BlockDevice an OSD runs on. It counts what its device does wrong -- the
// requests that failed (the kernel's EIO, or any error) and the ones that took longer than a slow
// threshold -- so that the OSD can report them (metrics, health) and stop using a device that fails
// writes, as Ceph's OSDs do. For tests and drills it also plays a failing or a slow device on
// request: EIO for reads or writes that touch chosen byte ranges (or every one), and a stall of
// every request and flush. The faults can change at any time (ec-osd's live options
// bdev_inject_read_eio, bdev_inject_write_eio and bdev_inject_stall_ms). It also knows how long
// the oldest request still in progress has waited, for the daemon's stall watchdog
// (osd/daemon/device_watch.h): a device that hangs shows there while its requests hang, long
// before any of them completes and counts as slow.
//
// An injected error fails the whole batch it is in before any of it reaches the device (a batch
// is one store read or one group's writes), which the BlockDevice contract allows; a write fault
// on "all" fails flushes as well (a device that has stopped taking writes).
//
// Ownership: owns the wrapped device. Thread safety: every method may be called from any thread;
// the faults are swapped atomically and a request sees either the old set or the new one.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "osd/store/device.h"

namespace ec::osd::store {

// The byte ranges a fault applies to: every request (all), or those that overlap one of `ranges`.
struct FaultRanges {
  bool all = false;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // (offset, length), length > 0

  bool empty() const { return !all && ranges.empty(); }
  bool Hits(std::uint64_t offset, std::uint64_t length) const;
};

struct DeviceFaults {
  FaultRanges read_eio;
  FaultRanges write_eio;
  std::chrono::milliseconds stall{0};  // added before every submission and flush
};

// Cumulative since the device was opened.
struct DeviceErrorCounts {
  std::uint64_t read_errors = 0;   // batches with a read that failed
  std::uint64_t write_errors = 0;  // batches with a write that failed, and failed flushes
  std::uint64_t slow_ops = 0;      // submissions and flushes slower than the slow threshold
  std::uint64_t injected = 0;      // of the errors above, the ones played by the faults
};

class WatchedDevice final : public BlockDevice {
 public:
  // `slow`: a submission or flush taking longer counts as slow (0: none is).
  WatchedDevice(std::unique_ptr<BlockDevice> base, std::chrono::milliseconds slow);

  std::uint64_t size() const override { return base_->size(); }
  std::string_view name() const override { return base_->name(); }
  Status Submit(std::span<IoRequest> batch) override;
  Status Flush() override;

  void SetFaults(DeviceFaults faults);
  DeviceErrorCounts counts() const;
  // How long the oldest submission or flush still in progress has run (zero when none is).
  std::chrono::steady_clock::duration OldestInProgress() const;

 private:
  // A submission or flush in progress, from its start to its return (RAII).
  class InProgress;

  std::shared_ptr<const DeviceFaults> Faults() const;
  void Timed(std::chrono::steady_clock::time_point start);

  std::unique_ptr<BlockDevice> base_;
  const std::chrono::milliseconds slow_;
  mutable std::mutex mu_;  // guards faults_ (the pointer, not what it points to)
  std::shared_ptr<const DeviceFaults> faults_;
  std::atomic<bool> any_faults_{false};  // spares the common case the lock
  std::atomic<std::uint64_t> read_errors_{0}, write_errors_{0}, slow_ops_{0}, injected_{0};
  // Start times of the requests in progress, oldest first (each is appended with the time it
  // started, under the lock, so the list stays in order).
  mutable std::mutex in_progress_mu_;
  std::list<std::chrono::steady_clock::time_point> in_progress_;
};

}  // namespace ec::osd::store
