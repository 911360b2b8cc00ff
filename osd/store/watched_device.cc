#include "osd/store/watched_device.h"

#include <thread>

namespace ec::osd::store {

bool FaultRanges::Hits(std::uint64_t offset, std::uint64_t length) const {
  if (all) return true;
  for (const auto& [from, len] : ranges) {
    if (offset < from + len && from < offset + length) return true;
  }
  return false;
}

class WatchedDevice::InProgress {
 public:
  explicit InProgress(WatchedDevice* d) : d_(d) {
    std::lock_guard lock(d_->in_progress_mu_);
    start_ = std::chrono::steady_clock::now();
    it_ = d_->in_progress_.insert(d_->in_progress_.end(), start_);
  }
  ~InProgress() {
    std::lock_guard lock(d_->in_progress_mu_);
    d_->in_progress_.erase(it_);
  }
  InProgress(const InProgress&) = delete;
  InProgress& operator=(const InProgress&) = delete;
  std::chrono::steady_clock::time_point start() const { return start_; }

 private:
  WatchedDevice* d_;
  std::chrono::steady_clock::time_point start_;
  std::list<std::chrono::steady_clock::time_point>::iterator it_;
};

WatchedDevice::WatchedDevice(std::unique_ptr<BlockDevice> base, std::chrono::milliseconds slow)
    : base_(std::move(base)), slow_(slow), faults_(std::make_shared<DeviceFaults>()) {}

void WatchedDevice::SetFaults(DeviceFaults faults) {
  const bool any =
      !faults.read_eio.empty() || !faults.write_eio.empty() || faults.stall.count() > 0;
  auto next = std::make_shared<const DeviceFaults>(std::move(faults));
  std::lock_guard lock(mu_);
  faults_ = std::move(next);
  any_faults_.store(any, std::memory_order_release);
}

std::shared_ptr<const DeviceFaults> WatchedDevice::Faults() const {
  if (!any_faults_.load(std::memory_order_acquire)) return nullptr;
  std::lock_guard lock(mu_);
  return faults_;
}

std::chrono::steady_clock::duration WatchedDevice::OldestInProgress() const {
  std::lock_guard lock(in_progress_mu_);
  if (in_progress_.empty()) return std::chrono::steady_clock::duration::zero();
  return std::chrono::steady_clock::now() - in_progress_.front();
}

DeviceErrorCounts WatchedDevice::counts() const {
  return DeviceErrorCounts{read_errors_.load(), write_errors_.load(), slow_ops_.load(),
                           injected_.load()};
}

void WatchedDevice::Timed(std::chrono::steady_clock::time_point start) {
  if (slow_.count() > 0 && std::chrono::steady_clock::now() - start > slow_) {
    slow_ops_.fetch_add(1, std::memory_order_relaxed);
  }
}

Status WatchedDevice::Submit(std::span<IoRequest> batch) {
  const InProgress op(this);
  const auto start = op.start();
  bool reads = false, writes = false;
  for (const IoRequest& r : batch) (r.op == IoRequest::Op::kRead ? reads : writes) = true;
  if (auto f = Faults()) {
    if (f->stall.count() > 0) std::this_thread::sleep_for(f->stall);
    for (const IoRequest& r : batch) {
      const bool read = r.op == IoRequest::Op::kRead;
      if (!(read ? f->read_eio : f->write_eio).Hits(r.offset, r.length())) continue;
      (read ? read_errors_ : write_errors_).fetch_add(1, std::memory_order_relaxed);
      injected_.fetch_add(1, std::memory_order_relaxed);
      Timed(start);
      return Status::IOError("injected device " + std::string(read ? "read" : "write") +
                             " error at offset " + std::to_string(r.offset) + " (bdev_inject_" +
                             (read ? "read" : "write") + "_eio)");
    }
  }
  Status s = base_->Submit(batch);
  Timed(start);
  // A bad request (EINVAL) is the caller's, not the device's.
  if (!s.ok() && s.code() != EINVAL) {
    if (writes) write_errors_.fetch_add(1, std::memory_order_relaxed);
    if (reads && !writes) read_errors_.fetch_add(1, std::memory_order_relaxed);
  }
  return s;
}

Status WatchedDevice::Flush() {
  const InProgress op(this);
  const auto start = op.start();
  if (auto f = Faults()) {
    if (f->stall.count() > 0) std::this_thread::sleep_for(f->stall);
    if (f->write_eio.all) {
      write_errors_.fetch_add(1, std::memory_order_relaxed);
      injected_.fetch_add(1, std::memory_order_relaxed);
      Timed(start);
      return Status::IOError("injected device flush error (bdev_inject_write_eio all)");
    }
  }
  Status s = base_->Flush();
  Timed(start);
  if (!s.ok()) write_errors_.fetch_add(1, std::memory_order_relaxed);
  return s;
}

}  // namespace ec::osd::store
