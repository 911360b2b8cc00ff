#include "osd/store/fault_device.h"

#include <vector>

namespace ec::osd::store {

bool FaultDevice::Tick() {
  if (crashed_) return true;
  if (countdown_ == 0) return false;
  if (--countdown_ == 0) crashed_ = true;
  return crashed_;
}

Status FaultDevice::Submit(std::span<IoRequest> batch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (crashed_) return Status::IOError("fault device: crashed");
  EC_RETURN_IF_ERROR(ValidateBatch(batch, base_->size()));
  std::vector<IoRequest> reads;
  for (IoRequest& r : batch) {
    if (r.op == IoRequest::Op::kRead) reads.push_back(r);
  }
  if (!reads.empty()) EC_RETURN_IF_ERROR(base_->Submit(reads));
  for (IoRequest& r : batch) {
    if (r.op != IoRequest::Op::kWrite) continue;
    if (Tick()) return Status::IOError("fault device: crashed during write");
    // Save what the blocks held before their first unsynced write.
    std::uint64_t len = r.length();
    for (std::uint64_t off = r.offset; off < r.offset + len; off += kBlockSize) {
      if (undo_.count(off) != 0) continue;
      AlignedBuffer old(kBlockSize);
      IoRequest rd{IoRequest::Op::kRead, off, {iovec{old.data(), kBlockSize}}};
      EC_RETURN_IF_ERROR(base_->Submit(std::span<IoRequest>(&rd, 1)));
      undo_.emplace(off, std::move(old));
    }
    EC_RETURN_IF_ERROR(base_->Submit(std::span<IoRequest>(&r, 1)));
  }
  return Status::OK();
}

Status FaultDevice::Flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (crashed_ || Tick()) return Status::IOError("fault device: crashed");
  EC_RETURN_IF_ERROR(base_->Flush());
  undo_.clear();
  return Status::OK();
}

void FaultDevice::ArmCrash(std::uint64_t ops) {
  std::lock_guard<std::mutex> lock(mu_);
  countdown_ = ops;
}

bool FaultDevice::crashed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return crashed_;
}

std::uint64_t FaultDevice::unsynced_blocks() const {
  std::lock_guard<std::mutex> lock(mu_);
  return undo_.size();
}

Result<std::uint64_t> FaultDevice::Restart(std::uint64_t seed, bool drop_all) {
  std::lock_guard<std::mutex> lock(mu_);
  std::mt19937_64 rng(seed);
  std::uint64_t dropped = 0;
  for (auto& [off, old] : undo_) {
    if (!drop_all && (rng() & 1) == 0) continue;
    IoRequest wr{IoRequest::Op::kWrite, off, {iovec{old.data(), kBlockSize}}};
    EC_RETURN_IF_ERROR(base_->Submit(std::span<IoRequest>(&wr, 1)));
    ++dropped;
  }
  EC_RETURN_IF_ERROR(base_->Flush());
  undo_.clear();
  crashed_ = false;
  countdown_ = 0;
  return dropped;
}

}  // namespace ec::osd::store
