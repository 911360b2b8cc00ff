// RecoveryPause: the wait after a recovery round under osd_recovery_sleep and the two rate caps.
#include "osd/pg/recovery_pace.h"

#include <gtest/gtest.h>

namespace ec::osd::pg {
namespace {

using std::chrono::microseconds;
using std::chrono::milliseconds;

TEST(RecoveryPause, IdleAndUncappedRoundsWaitTheirFixedTimes) {
  RecoveryPacing p;
  p.sleep = milliseconds(7);
  p.idle = milliseconds(500);
  EXPECT_EQ(RecoveryPause({false, 0, 0, microseconds(0)}, p), milliseconds(500));
  EXPECT_EQ(RecoveryPause({true, 1 << 30, 4u << 30, microseconds(10)}, p), milliseconds(7));
}

TEST(RecoveryPause, TheStricterCapSetsTheWaitFromTheRoundsStart) {
  RecoveryPacing p;
  p.bytes_per_sec = 1000000;          // 1 MB/s rebuilt
  p.network_bytes_per_sec = 4000000;  // 4 MB/s from helpers
  // RS(4,2): 1 MB rebuilt, 4 MB received: both caps ask 1 s; 200 ms already spent.
  EXPECT_EQ(RecoveryPause({true, 1000000, 4000000, milliseconds(200)}, p), milliseconds(800));
  // CLAY(4,2,5): 1 MB rebuilt, 2.5 MB received: the rebuilt cap (1 s) is the stricter.
  EXPECT_EQ(RecoveryPause({true, 1000000, 2500000, milliseconds(0)}, p), milliseconds(1000));
  // Only the network cap: CLAY's round is due after 625 ms, RS's after 1 s.
  p.bytes_per_sec = 0;
  EXPECT_EQ(RecoveryPause({true, 1000000, 2500000, milliseconds(0)}, p), milliseconds(625));
  EXPECT_EQ(RecoveryPause({true, 1000000, 4000000, milliseconds(0)}, p), milliseconds(1000));
  // A round slower than its due time waits only osd_recovery_sleep.
  p.sleep = milliseconds(3);
  EXPECT_EQ(RecoveryPause({true, 1000000, 4000000, milliseconds(1500)}, p), milliseconds(3));
  // ... and a cap never shortens osd_recovery_sleep.
  p.sleep = milliseconds(900);
  EXPECT_EQ(RecoveryPause({true, 1000000, 4000000, milliseconds(200)}, p), milliseconds(900));
}

TEST(RecoveryPause, HugeCountsAndCapsNeitherOverflowNorStopRecoveryForLong) {
  RecoveryPacing p;
  p.network_bytes_per_sec = 1;
  // 2^50 bytes at 1 byte/s would be 2^50 s: the pause is at most an hour.
  EXPECT_EQ(RecoveryPause({true, 0, std::uint64_t{1} << 50, microseconds(0)}, p),
            std::chrono::duration_cast<milliseconds>(kMaxRecoveryPause));
  // A cap near 2^64 with a remainder near it: the fraction is computed without overflow.
  p.network_bytes_per_sec = ~std::uint64_t{0};
  EXPECT_EQ(RecoveryPause({true, 0, ~std::uint64_t{0} - 1, microseconds(0)}, p), milliseconds(999));
}

}  // namespace
}  // namespace ec::osd::pg
