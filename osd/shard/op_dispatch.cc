#include "osd/shard/op_dispatch.h"

#include <algorithm>
#include <functional>

#include "common/thread_name.h"
#include "common/thread_nice.h"

namespace ec::osd::shard {

OpDispatcher::OpDispatcher(int workers, std::uint64_t inline_read_max_bytes, Gauge* inflight,
                           Counter* inline_reads, int background_workers, int background_nice,
                           const char* name)
    : inflight_gauge_(inflight),
      inline_reads_(inline_reads),
      pool_(static_cast<std::size_t>(std::clamp(workers, 1, 256))),
      background_(static_cast<std::size_t>(std::clamp(background_workers, 1, 64))),
      policy_(inline_read_max_bytes) {
  background_nice_status_ = NiceEveryThread(
      static_cast<std::size_t>(std::clamp(background_workers, 1, 64)), background_nice,
      [this](std::function<void()> fn) { boost::asio::post(background_, std::move(fn)); });
  NameEveryThread(static_cast<std::size_t>(std::clamp(workers, 1, 256)), name,
                  [this](std::function<void()> fn) { boost::asio::post(pool_, std::move(fn)); });
  NameEveryThread(
      static_cast<std::size_t>(std::clamp(background_workers, 1, 64)), std::string(name) + "-bg",
      [this](std::function<void()> fn) { boost::asio::post(background_, std::move(fn)); });
  strands_.reserve(kStrands);
  for (std::size_t i = 0; i < kStrands; ++i) {
    strands_.push_back(boost::asio::make_strand(pool_.get_executor()));
  }
}

OpDispatcher::~OpDispatcher() {
  Join();
}

void OpDispatcher::BeginLocked(Clock::time_point now) {
  policy_.OnBegin(inflight_, now);
  ++inflight_;
  if (inflight_gauge_) inflight_gauge_->Add(1);
}

void OpDispatcher::End(std::size_t strand) {
  std::lock_guard lock(mu_);
  if (strand != kNoStrand) --strand_inflight_[strand];
  --inflight_;
  if (inflight_gauge_) inflight_gauge_->Sub(1);
  if (inflight_ == 0) idle_.notify_all();
}

bool OpDispatcher::TryBeginInline(std::size_t strand, std::uint64_t bytes, std::uint64_t max_bytes,
                                  bool more_queued, Clock::time_point now) {
  std::lock_guard lock(mu_);
  const bool may = max_bytes == kReadLimit
                       ? policy_.MayInline(bytes, more_queued, inflight_, now)
                       : policy_.MayInline(bytes, max_bytes, more_queued, inflight_, now);
  if (!may) return false;
  held_[strand] = true;
  ++inflight_;
  if (inflight_gauge_) inflight_gauge_->Add(1);
  if (inline_reads_ && max_bytes == kReadLimit) inline_reads_->Inc();
  return true;
}

bool OpDispatcher::Hold(std::size_t key) {
  const std::size_t strand = key % kStrands;
  std::lock_guard lock(mu_);
  if (held_[strand] || strand_inflight_[strand] != 0) return false;
  held_[strand] = true;
  ++inflight_;
  if (inflight_gauge_) inflight_gauge_->Add(1);
  return true;
}

void OpDispatcher::Release(std::size_t key, bool inline_done) {
  const std::size_t strand = key % kStrands;
  const auto now = Clock::now();
  std::lock_guard lock(mu_);
  if (inline_done) policy_.OnInlineDone(now);
  // What was posted to the strand meanwhile goes to it now, in order (each is in flight already).
  for (std::function<void()>& task : deferred_[strand]) {
    boost::asio::post(strands_[strand], std::move(task));
  }
  deferred_[strand].clear();
  held_[strand] = false;
  --inflight_;
  if (inflight_gauge_) inflight_gauge_->Sub(1);
  if (inflight_ == 0) idle_.notify_all();
}

void OpDispatcher::Drain() {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [this] { return inflight_ == 0; });
}

std::uint64_t OpDispatcher::inflight() const {
  std::lock_guard lock(mu_);
  return inflight_;
}

void OpDispatcher::Join() {
  Drain();
  {
    std::lock_guard lock(mu_);
    if (joined_) return;
    joined_ = true;
  }
  pool_.join();
  background_.join();
}

}  // namespace ec::osd::shard
