#include "osd/shard/interval_fence.h"

#include <fmt/format.h>

namespace ec::osd::shard {

// One collection's fence and the operations running under it, counted by the epoch they were
// admitted at (Raise waits for those below the new fence only: operations of the new primary go
// on meanwhile).
struct IntervalFence::Guard::Entry {
  std::mutex mu;
  std::condition_variable cv;
  std::uint64_t fence = 0;
  std::map<std::uint64_t, std::uint64_t> running;  // epoch -> operations admitted at it
};

IntervalFence::Guard::Guard(Guard&& other) noexcept : entry_(other.entry_), epoch_(other.epoch_) {
  other.entry_ = nullptr;
}

IntervalFence::Guard& IntervalFence::Guard::operator=(Guard&& other) noexcept {
  if (this != &other) {
    Release();
    entry_ = other.entry_;
    epoch_ = other.epoch_;
    other.entry_ = nullptr;
  }
  return *this;
}

IntervalFence::Guard::~Guard() {
  Release();
}

void IntervalFence::Guard::Release() {
  if (entry_ == nullptr) return;
  {
    std::lock_guard lock(entry_->mu);
    auto it = entry_->running.find(epoch_);
    if (it != entry_->running.end() && --it->second == 0) entry_->running.erase(it);
  }
  entry_->cv.notify_all();
  entry_ = nullptr;
}

IntervalFence::IntervalFence() = default;
IntervalFence::~IntervalFence() = default;

IntervalFence::Entry& IntervalFence::EntryOf(const std::string& collection) {
  std::lock_guard lock(mu_);
  auto& slot = entries_[collection];
  if (!slot) slot = std::make_unique<Entry>();
  return *slot;  // entries are never removed: the reference stays valid
}

void IntervalFence::Raise(const std::string& collection, std::uint64_t epoch) {
  if (epoch == 0) return;
  Entry& e = EntryOf(collection);
  std::unique_lock lock(e.mu);
  if (epoch > e.fence) e.fence = epoch;
  e.cv.wait(lock, [&] { return e.running.empty() || e.running.begin()->first >= e.fence; });
}

Result<IntervalFence::Guard> IntervalFence::Admit(const std::string& collection,
                                                  std::uint64_t epoch, const char* what) {
  Entry& e = EntryOf(collection);
  std::lock_guard lock(e.mu);
  if (epoch < e.fence) {
    return Status::Retryable(
        ESTALE,
        fmt::format("{} was peered at epoch {} by a newer primary; this {} is from epoch {}",
                    collection, e.fence, what, epoch));
  }
  ++e.running[epoch];
  return Guard(&e, epoch);
}

std::uint64_t IntervalFence::FenceOf(const std::string& collection) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(collection);
  if (it == entries_.end()) return 0;
  std::lock_guard entry_lock(it->second->mu);
  return it->second->fence;
}

}  // namespace ec::osd::shard
