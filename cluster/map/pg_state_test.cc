// PG state strings (pg_state.h): Ceph's order whatever the order the flags were set in, Ceph's
// strings read back, and words that are not states refused.
#include "cluster/map/pg_state.h"

#include <gtest/gtest.h>

namespace ec::cluster {
namespace {

using namespace pg_state;

TEST(PgState, CephsOrder) {
  EXPECT_EQ(PgStateString(0), "unknown");
  EXPECT_EQ(PgStateString(kClean | kActive), "active+clean");
  EXPECT_EQ(PgStateString(kDegraded | kUndersized | kActive), "active+undersized+degraded");
  EXPECT_EQ(PgStateString(kPeered | kDegraded | kUndersized), "undersized+degraded+peered");
  EXPECT_EQ(
      PgStateString(kActive | kUndersized | kDegraded | kRemapped | kRecovering | kBackfilling),
      "active+recovering+undersized+degraded+remapped+backfilling");
  EXPECT_EQ(PgStateString(kActive | kDegraded | kRecoveryWait), "active+recovery_wait+degraded");
  EXPECT_EQ(PgStateString(kActive | kRemapped | kBackfillWait), "active+remapped+backfill_wait");
  EXPECT_EQ(PgStateString(kActive | kClean | kInconsistent | kDeepScrub | kScrubbing),
            "active+clean+scrubbing+deep+inconsistent");
  EXPECT_EQ(PgStateString(kActive | kClean | kScrubbing | kDeepScrub | kRepair),
            "active+clean+scrubbing+deep+repair");
  EXPECT_EQ(PgStateString(kCreating | kPeering), "creating+peering");
  EXPECT_EQ(PgStateString(kPeering), "peering");
  EXPECT_EQ(PgStateString(kDown), "down");
  EXPECT_EQ(PgStateString(kIncomplete), "incomplete");
  // A bit this file does not name is left out.
  EXPECT_EQ(PgStateString(kActive | (1ull << 40)), "active");
}

TEST(PgState, ParseReadsBackEveryString) {
  const std::uint64_t samples[] = {
      kActive | kClean,
      kActive | kUndersized | kDegraded,
      kPeered | kUndersized | kDegraded,
      kActive | kRecovering | kUndersized | kDegraded | kRemapped | kBackfilling,
      kActive | kClean | kScrubbing | kDeepScrub | kInconsistent | kRepair,
      kCreating | kPeering,
      kDown,
      kIncomplete,
      kActive | kRecoveryWait | kBackfillWait | kRemapped | kDegraded,
  };
  for (std::uint64_t flags : samples) {
    EXPECT_EQ(ParsePgState(PgStateString(flags)), flags) << PgStateString(flags);
  }
  // Any order reads the same.
  EXPECT_EQ(ParsePgState("degraded+undersized+active"), kActive | kUndersized | kDegraded);
  EXPECT_EQ(ParsePgState("unknown"), 0u);
}

TEST(PgState, ParseRefusesWhatIsNotAState) {
  for (const char* bad : {"", "+", "active+", "+active", "active++clean", "active+cleaning",
                          "active+clean+wait", "Active", "active clean"}) {
    EXPECT_FALSE(ParsePgState(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace ec::cluster
