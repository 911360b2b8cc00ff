#include "osd/pg/resolve.h"

#include <gtest/gtest.h>

namespace ec::osd::pg {
namespace {

using Action = Resolution::Action;

// k=4, m=2, min_size=5 (the pool default k+1); versions per position, -1 = unreachable.
std::vector<ShardView> Views(const std::vector<long long>& versions, bool removed = false) {
  std::vector<ShardView> v;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    ShardView s;
    s.position = static_cast<int>(i);
    s.reachable = versions[i] >= 0;
    if (s.reachable) {
      s.state.version = static_cast<std::uint64_t>(versions[i]);
      s.state.state = versions[i] == 0 ? net::ShardState::kAbsent
                      : removed        ? net::ShardState::kRemoved
                                       : net::ShardState::kPresent;
      s.state.object_size = 100 * s.state.version;
    }
    v.push_back(s);
  }
  return v;
}

TEST(Resolve, AllAtOneVersionIsSettled) {
  Resolution r = Resolve(Views({7, 7, 7, 7, 7, 7}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 7u);
  EXPECT_TRUE(r.exists);
  EXPECT_EQ(r.object_size, 700u);
  EXPECT_EQ(r.current.size(), 6u);
  EXPECT_TRUE(r.stale.empty());
}

TEST(Resolve, NeverWrittenIsAbsent) {
  Resolution r = Resolve(Views({0, 0, 0, 0, 0, -1}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 0u);
  EXPECT_FALSE(r.exists);
}

TEST(Resolve, KShardsAtTheNewVersionRollForward) {
  // A primary killed after four of six sub-writes: the new version decodes.
  Resolution r = Resolve(Views({8, 8, 7, 8, 8, 7}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 8u);
  EXPECT_EQ(r.current, (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(r.stale, (std::vector<int>{2, 5}));
}

TEST(Resolve, FewerThanKWithEveryShardAnsweringRollsBack) {
  Resolution r = Resolve(Views({8, 7, 7, 8, 8, 7}), 4, 5);
  EXPECT_EQ(r.action, Action::kRollback);
  EXPECT_EQ(r.version, 8u);
  EXPECT_EQ(r.rollback, (std::vector<int>{0, 3, 4}));
}

TEST(Resolve, AnAcknowledgedWriteIsNeverRolledBack) {
  // Version 8 may have been acknowledged on five shards, two of which do not answer now: three
  // answer at 8. 3 + 2 unreachable >= min_size: the primary must wait, not roll back.
  Resolution r = Resolve(Views({8, -1, 8, -1, 8, 7}), 4, 5);
  EXPECT_EQ(r.action, Action::kUndecided);
  EXPECT_NE(r.why.find("version 8 is on 3 shard(s)"), std::string::npos) << r.why;
  // One unreachable: 3 + 1 < 5, so 8 cannot have been acknowledged.
  EXPECT_EQ(Resolve(Views({8, 7, 8, -1, 8, 7}), 4, 5).action, Action::kRollback);
}

TEST(Resolve, RemovedObjectIsSettledAsNotExisting) {
  Resolution r = Resolve(Views({9, 9, 9, 9, 9, 9}, true), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_FALSE(r.exists);
}

TEST(Resolve, TooFewAnswersAreUndecided) {
  EXPECT_EQ(Resolve(Views({-1, -1, -1, -1, -1, -1}), 4, 5).action, Action::kUndecided);
  EXPECT_EQ(Resolve(Views({0, 0, 0, -1, -1, -1}), 4, 5).action, Action::kUndecided);
}

}  // namespace
}  // namespace ec::osd::pg
