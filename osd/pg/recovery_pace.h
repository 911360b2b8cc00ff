// RecoveryPause: how long a primary's recovery loop waits after a round of pulls, under Ceph's
// osd_recovery_sleep and this project's two rate caps:
//
//   osd_recovery_max_bytes_per_sec          shard bytes rebuilt per second
//   osd_recovery_max_network_bytes_per_sec  bytes the pulling OSDs received from helpers per second
//                                           (what recovery puts on the network: a code that reads
//                                           less, CLAY, rebuilds faster under the same cap)
//
// The round's bytes are spread over as long as the stricter cap asks, counted from the round's
// start: wait = max(sleep, due - spent), where due = max(rebuilt / cap, network / network_cap)
// over the caps that are set (not 0), and at most kMaxRecoveryPause (a tiny cap and a huge round
// do not stop recovery for days, nor overflow a clock). A round that did nothing waits `idle`.
//
// Pure function: no clock, no state.
#pragma once

#include <chrono>
#include <cstdint>

namespace ec::osd::pg {

inline constexpr std::chrono::microseconds kMaxRecoveryPause = std::chrono::hours(1);

struct RecoveryRound {
  bool worked = false;                 // any pull or settle was done
  std::uint64_t rebuilt_bytes = 0;     // shard bytes written by the round's pulls
  std::uint64_t network_bytes = 0;     // bytes the pulling OSDs received from helpers
  std::chrono::microseconds spent{0};  // how long the round took
};

struct RecoveryPacing {
  std::chrono::milliseconds sleep{0};       // osd_recovery_sleep: between rounds that worked
  std::chrono::milliseconds idle{500};      // after a round that found nothing to do
  std::uint64_t bytes_per_sec = 0;          // 0: no cap on rebuilt bytes
  std::uint64_t network_bytes_per_sec = 0;  // 0: no cap on network bytes
};

std::chrono::milliseconds RecoveryPause(const RecoveryRound& round, const RecoveryPacing& pacing);

}  // namespace ec::osd::pg
