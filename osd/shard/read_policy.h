// InlineReadPolicy: whether a small ReadShard runs on the thread that hands it over (the
// messenger's io thread) instead of on a worker. Inline, a read saves two thread hand-offs (to a
// worker and back), which cost more than a small read from the store; but it blocks the io
// thread, so it is only worth it while nothing else is going on:
//
//   inline  <=>  the read asks for at most max_bytes in total
//                and no other operation is in flight
//                and the connection holds no further request already (Request::more_queued)
//                and the previous inline read did not end just now (< kMinGap: then this request
//                    was waiting while it ran, i.e. requests are queueing)
//                and no overlap was seen in the last kBackoff
//
// Any overlap seen (an operation begun while another is in flight, or one of the refusals above
// but the size) turns inline reads off for kBackoff, so that overlapping reads go to the workers,
// which run them in parallel.
//
// Small shard writes (a SubWrite of a few KiB) follow the same rules with their own size limit:
// inline, a lone write is one thread from the request to its reply, blocked only for the device
// (the store's group commit still serves whatever runs on the workers meanwhile).
//
// Pure bookkeeping over the times and counts it is given: no clock, no lock, no thread. The caller
// serialises the calls (OpDispatcher does, under its mutex).
#pragma once

#include <chrono>
#include <cstdint>

namespace ec::osd::shard {

class InlineReadPolicy {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::microseconds kMinGap{5};
  static constexpr std::chrono::milliseconds kBackoff{5};

  // max_bytes 0: never inline.
  explicit InlineReadPolicy(std::uint64_t max_bytes) : max_bytes_(max_bytes) {}

  // For a ReadShard of `bytes` arriving at `now` while `inflight` other operations are in flight.
  bool MayInline(std::uint64_t bytes, bool more_queued, std::uint64_t inflight,
                 Clock::time_point now) {
    return MayInline(bytes, max_bytes_, more_queued, inflight, now);
  }
  // The same for an operation of another kind whose own size limit is `max_bytes` (0: never):
  // a small shard write (ShardServiceOptions::inline_write_max_bytes) shares the overlap rules.
  bool MayInline(std::uint64_t bytes, std::uint64_t max_bytes, bool more_queued,
                 std::uint64_t inflight, Clock::time_point now);
  // An operation begins at `now` while `inflight` others are in flight (not an inline read).
  void OnBegin(std::uint64_t inflight, Clock::time_point now) {
    if (inflight != 0) NoteOverlap(now);
  }
  // The inline read that MayInline allowed has been answered at `now`.
  void OnInlineDone(Clock::time_point now) { last_inline_end_ = now; }

 private:
  void NoteOverlap(Clock::time_point now) { off_until_ = now + kBackoff; }

  std::uint64_t max_bytes_;
  Clock::time_point last_inline_end_{};
  Clock::time_point off_until_{};
};

}  // namespace ec::osd::shard
