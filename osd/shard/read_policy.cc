#include "osd/shard/read_policy.h"

namespace ec::osd::shard {

bool InlineReadPolicy::MayInline(std::uint64_t bytes, std::uint64_t max_bytes, bool more_queued,
                                 std::uint64_t inflight, Clock::time_point now) {
  if (max_bytes == 0 || bytes > max_bytes) return false;
  if (inflight != 0 || more_queued) {
    NoteOverlap(now);
    return false;
  }
  if (now < off_until_) return false;
  // A request handled this soon after the last inline reply was already waiting while that read
  // ran (a client cannot answer that fast): requests are queueing, and inlining them one after
  // the other would serialise reads that the workers could run in parallel.
  if (now - last_inline_end_ < kMinGap) {
    NoteOverlap(now);
    return false;
  }
  return true;
}

}  // namespace ec::osd::shard
