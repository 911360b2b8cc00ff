#include "osd/pg/recovery_pace.h"

#include <algorithm>

namespace ec::osd::pg {

namespace {

// How long `bytes` take at `per_sec` bytes per second (0: no time), at most kMaxRecoveryPause.
std::chrono::microseconds DueFor(std::uint64_t bytes, std::uint64_t per_sec) {
  if (per_sec == 0) return std::chrono::microseconds(0);
  // In two steps so that bytes * 10^6 cannot overflow: whole seconds, then the remainder.
  const std::uint64_t whole = bytes / per_sec;
  const std::uint64_t limit = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::seconds>(kMaxRecoveryPause).count());
  if (whole >= limit) return kMaxRecoveryPause;
  const std::uint64_t rest = bytes % per_sec;
  // rest < per_sec, so this is below 10^6; in floating point, as rest * 10^6 may not fit 64 bits.
  const auto frac = static_cast<std::uint64_t>(static_cast<long double>(rest) * 1000000.0L /
                                               static_cast<long double>(per_sec));
  return std::chrono::microseconds(whole * 1000000 + frac);
}

}  // namespace

std::chrono::milliseconds RecoveryPause(const RecoveryRound& round, const RecoveryPacing& pacing) {
  if (!round.worked) return pacing.idle;
  const auto due = std::max(DueFor(round.rebuilt_bytes, pacing.bytes_per_sec),
                            DueFor(round.network_bytes, pacing.network_bytes_per_sec));
  if (due <= round.spent) return pacing.sleep;
  return std::max(pacing.sleep,
                  std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::min<std::chrono::microseconds>(due - round.spent, kMaxRecoveryPause)));
}

}  // namespace ec::osd::pg
