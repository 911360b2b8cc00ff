// The thrasher's schedule (thrash_schedule.h) without a cluster: a pure function of the seed,
// every fault undone within its round, never more than max_impaired OSDs disrupted, stops longer
// than the grace, and every four rounds from a multiple of 4 hold each kind of main fault.
#include "tests/thrash/thrash_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace ectest::thrash {
namespace {

using std::chrono::milliseconds;

TEST(ThrashSchedule, IsAPureFunctionOfTheSeed) {
  const Schedule a(42, {}), b(42, {}), c(43, {});
  int differ = 0;
  for (int i = 0; i < 40; ++i) {
    EXPECT_EQ(a.At(i).ToString(), b.At(i).ToString()) << i;
    differ += a.At(i).ToString() != c.At(i).ToString();
  }
  // Asked out of order, a round is the same.
  EXPECT_EQ(a.At(7).ToString(), Schedule(42, {}).At(7).ToString());
  EXPECT_GT(differ, 30);
  // A known round, so that a change of the generator is seen (it breaks replaying old seeds).
  EXPECT_EQ(Schedule(1, {}).At(0).ToString(), "round 0: +2218ms kill osd.3, +7219ms restart osd.3");
  EXPECT_EQ(Schedule(2, {}).At(0).ToString(),
            "round 0: +1424ms etcd-kill, +1648ms stop osd.1, +3651ms etcd-restart, +8350ms "
            "continue osd.1");
}

TEST(ThrashSchedule, FaultsAreUndoneWithinTheirRoundAndStayWithinTheBudget) {
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    for (int max_impaired : {1, 2}) {
      ScheduleOptions o;
      o.max_impaired = max_impaired;
      o.grace = milliseconds(3000);
      const Schedule s(seed, o);
      for (int i = 0; i < 12; ++i) {
        const Round r = s.At(i);
        SCOPED_TRACE(r.ToString());
        ASSERT_FALSE(r.actions.empty());
        std::set<int> disrupted;  // OSDs down, stopped or out now
        std::set<int> touched;
        std::map<int, milliseconds> stopped_at;
        bool etcd_down = false;
        milliseconds last{0};
        for (const Action& a : r.actions) {
          EXPECT_GE(a.at, last);
          last = a.at;
          if (a.kind == ActionKind::kEtcdKill || a.kind == ActionKind::kEtcdRestart) {
            EXPECT_EQ(a.osd, -1);
            EXPECT_EQ(etcd_down, a.kind == ActionKind::kEtcdRestart);
            etcd_down = a.kind == ActionKind::kEtcdKill;
            continue;
          }
          ASSERT_GE(a.osd, 0);
          ASSERT_LT(a.osd, o.osds);
          switch (a.kind) {
            case ActionKind::kKill:
            case ActionKind::kOut:
            case ActionKind::kStop:
              EXPECT_TRUE(touched.insert(a.osd).second) << "one fault per OSD and round";
              disrupted.insert(a.osd);
              if (a.kind == ActionKind::kStop) stopped_at[a.osd] = a.at;
              break;
            default:
              EXPECT_EQ(disrupted.erase(a.osd), 1u) << "undoing what was not done";
              if (a.kind == ActionKind::kContinue) {
                EXPECT_GT(a.at - stopped_at[a.osd], o.grace);
              }
          }
          EXPECT_LE(static_cast<int>(disrupted.size()), max_impaired);
        }
        EXPECT_TRUE(disrupted.empty());
        EXPECT_FALSE(etcd_down);
        EXPECT_LE(static_cast<int>(touched.size()), max_impaired);
      }
    }
  }
}

TEST(ThrashSchedule, EveryFourRoundsHoldEachKindOfFault) {
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const Schedule s(seed, {});
    for (int block = 0; block < 5; ++block) {
      std::set<ActionKind> kinds;
      for (int i = 4 * block; i < 4 * block + 4; ++i) {
        for (const Action& a : s.At(i).actions) kinds.insert(a.kind);
      }
      EXPECT_EQ(kinds.size(), 8u) << "seed " << seed << " block " << block;
    }
  }
}

}  // namespace
}  // namespace ectest::thrash
