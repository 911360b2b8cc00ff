#include "osd/pg/resolve.h"

#include <gtest/gtest.h>

#include <set>

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
      s.state.state = versions[i] == 0 ? msg::ShardState::kAbsent
                      : removed        ? msg::ShardState::kRemoved
                                       : msg::ShardState::kPresent;
      s.state.object_size = 100 * s.state.version;
    }
    v.push_back(s);
  }
  return v;
}

// A present shard of `version` (object size 100 x version, as Views) held by `osd`.
OtherHolder Held(int osd, std::uint64_t version) {
  OtherHolder h;
  h.osd = osd;
  h.state.state = msg::ShardState::kPresent;
  h.state.version = version;
  h.state.object_size = 100 * version;
  return h;
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

// Positions moved: version 8 was acknowledged on positions 0-3 (min_size 4), then positions 0 and
// 1 went to new OSDs (absent there) and positions 4 and 5 came back stale at 7. The acting set
// alone shows 8 on two shards and would roll it back; the OSDs that held 0 and 1 still have it.
TEST(Resolve, AWriteHeldByAnEarlierActingSetIsSettledNotRolledBack) {
  std::vector<ShardView> views = Views({0, 0, 8, 8, 7, 7});
  EXPECT_EQ(Resolve(views, 4, 4).action, Action::kRollback);  // what counting only acting did
  std::vector<std::vector<OtherHolder>> elsewhere(6);
  for (int p : {0, 1}) {
    elsewhere[p].push_back(Held(10 + p, 8));
  }
  Resolution r = Resolve(views, 4, 4, elsewhere);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 8u);
  EXPECT_TRUE(r.exists);
  EXPECT_EQ(r.object_size, 800u);
  EXPECT_EQ(r.current, (std::vector<int>{2, 3}));
  EXPECT_EQ(r.stale, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(r.copy_from, (std::map<int, int>{{0, 10}, {1, 11}}));
}

// Other OSDs' shards count like the acting set's when deciding whether a version may have been
// acknowledged.
TEST(Resolve, OtherOsdsCountWhenDecidingWhatWasAcknowledged) {
  std::vector<std::vector<OtherHolder>> elsewhere(6);
  elsewhere[0].push_back(Held(9, 8));
  // 8 on two acting shards and one other OSD, everyone answering: 3 < min_size 5, so 8 was never
  // acknowledged: rolled back where the acting set has it.
  Resolution r = Resolve(Views({7, 7, 8, 8, 7, 7}), 4, 5, elsewhere);
  EXPECT_EQ(r.action, Action::kRollback);
  EXPECT_EQ(r.rollback, (std::vector<int>{2, 3}));
  // With two shards not answering, 3 + 2 may be an acknowledged write: wait.
  r = Resolve(Views({7, 7, 8, 8, -1, -1}), 4, 5, elsewhere);
  EXPECT_EQ(r.action, Action::kUndecided);
  EXPECT_NE(r.why.find("counting other OSDs"), std::string::npos) << r.why;
}

// A down OSD outside the acting set may hold shards of a write that the shards we can ask do not
// show enough of: such a version is waited for, not rolled back.
TEST(Resolve, DownOsdsOutsideTheActingSetMayCompleteAVersion) {
  // 8 on three positions, everyone in the acting set answering, min_size 4: dead without them.
  EXPECT_EQ(Resolve(Views({7, 7, 8, 8, 8, 7}), 4, 4).action, Action::kRollback);
  Resolution r = Resolve(Views({7, 7, 8, 8, 8, 7}), 4, 4, {}, 1);
  EXPECT_EQ(r.action, Action::kUndecided);
  EXPECT_NE(r.why.find("1 more OSD(s) outside the acting set are down"), std::string::npos)
      << r.why;
  // Settling is not held up by them: k positions at the newest version is the object.
  EXPECT_EQ(Resolve(Views({8, 8, 8, 8, 7, 7}), 4, 4, {}, 2).action, Action::kSettled);
}

// A shard that only another OSD holds, of a version that was never acknowledged (a write rolled
// back on the acting set), is not the object: the acting set's version is.
TEST(Resolve, AStrayNewerShardElsewhereIsNotTheObject) {
  std::vector<std::vector<OtherHolder>> elsewhere(6);
  elsewhere[3].push_back(Held(9, 9));
  Resolution r = Resolve(Views({8, 8, 8, 8, 8, 8}), 4, 5, elsewhere);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 8u);
  EXPECT_EQ(r.current.size(), 6u);
  EXPECT_TRUE(r.copy_from.empty());
}

TEST(Resolve, AnObjectOnlyOtherOsdsHoldIsSettledForCopying) {
  std::vector<std::vector<OtherHolder>> elsewhere(6);
  for (int p = 0; p < 6; ++p) {
    elsewhere[p].push_back(Held(20 + p, 5));
  }
  Resolution r = Resolve(Views({0, 0, 0, 0, 0, 0}), 4, 5, elsewhere);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 5u);
  EXPECT_TRUE(r.exists);
  EXPECT_TRUE(r.current.empty());
  EXPECT_EQ(r.copy_from.size(), 6u);
}

// Partial writes: version 9 changed data position 1 and the parity (4, 5) of an object written
// whole at 7; positions 0, 2 and 3 stay at 7 and hold 9 as well. `written` are the positions
// that took 9; -1 in `reach` makes a position unreachable.
std::vector<ShardView> Partial(const std::vector<int>& written,
                               const std::vector<int>& reach = {}) {
  const msg::ShardVersions versions{7, 9, 7, 7, 9, 9};
  std::vector<ShardView> v = Views({7, 7, 7, 7, 7, 7});
  for (int p : written) {
    v[p].state.version = 9;
    v[p].state.object_size = 900;
    v[p].state.versions = versions;
  }
  for (int p : reach) v[p].reachable = false;
  return v;
}

TEST(Resolve, APartialWriteIsHeldByTheShardsItLeftAlone) {
  Resolution r = Resolve(Partial({1, 4, 5}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.object_size, 900u);  // the size of 9's record, not the untouched shards' own
  EXPECT_EQ(r.versions, (msg::ShardVersions{7, 9, 7, 7, 9, 9}));
  EXPECT_EQ(r.current, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(r.stale.empty());
}

TEST(Resolve, AChangedShardThatMissedAPartialWriteIsStale) {
  // Parity 5 did not take 9 (still at 7): it is behind, though 7 is a version others hold.
  Resolution r = Resolve(Partial({1, 4}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.current, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(r.stale, (std::vector<int>{5}));
}

TEST(Resolve, APartialWriteOnOneShardIsSettledByTheOthers) {
  // Only position 1 took 9 before its primary died: with the three untouched positions, 9 is on
  // k positions and decodes (rolled forward, never acknowledged: a retry is safe either way).
  Resolution r = Resolve(Partial({1}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.stale, (std::vector<int>{4, 5}));
}

TEST(Resolve, TheUntouchedShardsAloneNeverSettleTheOldVersion) {
  // 9 may be acknowledged (positions 1, 4, 5 and the untouched 0, 2, 3): with every shard it
  // changed unreachable, the three untouched ones are fewer than k and must wait.
  Resolution r = Resolve(Partial({1, 4, 5}, {1, 4, 5}), 4, 5);
  EXPECT_EQ(r.action, Action::kUndecided);
  // One changed shard back: 9 is on four positions.
  r = Resolve(Partial({1, 4, 5}, {1, 5}), 4, 5);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.current, (std::vector<int>{0, 2, 3, 4}));
}

TEST(Resolve, AnUnacknowledgedPartialWriteRollsBackOnlyWhatItChanged) {
  // Shards 0 and 2 are gone for good (absent: replaced disks), position 1 took 9 and the parity
  // did not: 9 is on 2 positions (1 and the untouched 3), 2 + 0 unreachable < min_size.
  std::vector<ShardView> v = Partial({1});
  v[0].state = msg::SubStateReply{};
  v[2].state = msg::SubStateReply{};
  Resolution r = Resolve(v, 4, 5);
  EXPECT_EQ(r.action, Action::kRollback);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.rollback, (std::vector<int>{1}));
}

// Object forms (issue 30 item 2), k=4 m=2 min_size 5, copies on positions 0..2: `forms` marks
// each version that is stored as copies.
std::vector<ShardView> FormViews(const std::vector<long long>& versions,
                                 const std::set<long long>& copies) {
  std::vector<ShardView> v = Views(versions);
  for (ShardView& s : v) {
    if (s.reachable && copies.count(static_cast<long long>(s.state.version)) != 0) {
      s.state.form = msg::ObjectForm::kReplicas;
    }
  }
  return v;
}

TEST(ResolveForms, OneCopyOfTheNewestVersionSettlesIt) {
  // A small object's write that reached one copy (and no other position) before its primary died:
  // rolled forward (it is whole on that copy); nothing newer can hide in the unreachable one.
  Resolution r = Resolve(FormViews({9, 8, 8, 8, 8, -1}, {8, 9}), 4, 5, {}, 0, 3);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.form, msg::ObjectForm::kReplicas);
  EXPECT_EQ(r.current, (std::vector<int>{0}));
  EXPECT_EQ(r.stale.size(), 4u);
  // Without the form (copies = 0: a pool without small objects) it is rolled back.
  EXPECT_EQ(Resolve(FormViews({9, 8, 8, 8, 8, -1}, {8, 9}), 4, 5).action, Action::kRollback);
}

TEST(ResolveForms, NewestOnlyOnEmptyPositionsIsRolledBack) {
  // The copies' write reached only the empty positions past the copies: no copy holds its bytes.
  Resolution r = Resolve(FormViews({8, 8, 8, 9, 9, 9}, {8, 9}), 4, 5, {}, 0, 3);
  EXPECT_EQ(r.action, Action::kRollback);
  EXPECT_EQ(r.rollback, (std::vector<int>{3, 4, 5}));
}

TEST(ResolveForms, ConversionToShardsNeedsKShards) {
  // Copies at 8 turned into shards at 9: three shards of 9 are fewer than k: rolled back to the
  // copies; four settle it.
  Resolution back = Resolve(FormViews({9, 9, 8, 8, 9, 8}, {8}), 4, 5, {}, 0, 3);
  EXPECT_EQ(back.action, Action::kRollback);
  EXPECT_EQ(back.rollback, (std::vector<int>{0, 1, 4}));
  Resolution on = Resolve(FormViews({9, 9, 8, 9, 9, 8}, {8}), 4, 5, {}, 0, 3);
  EXPECT_EQ(on.action, Action::kSettled);
  EXPECT_EQ(on.version, 9u);
  EXPECT_EQ(on.form, msg::ObjectForm::kErasure);
  // After the rollback the copies settle the old version, from one of them.
  Resolution old = Resolve(FormViews({8, -1, -1, 8, 8, 8}, {8}), 4, 5, {}, 0, 3);
  EXPECT_EQ(old.action, Action::kSettled);
  EXPECT_EQ(old.version, 8u);
  EXPECT_EQ(old.form, msg::ObjectForm::kReplicas);
}

TEST(ResolveForms, ConversionToCopiesSettlesOnOneCopy) {
  // Shards at 8 turned into copies at 9, cut after copy 1: the copy settles it; the shards of 8
  // are stale (never read: reads take positions at the object's version only).
  Resolution r = Resolve(FormViews({8, 9, 8, 8, 8, 8}, {9}), 4, 5, {}, 0, 3);
  EXPECT_EQ(r.action, Action::kSettled);
  EXPECT_EQ(r.version, 9u);
  EXPECT_EQ(r.form, msg::ObjectForm::kReplicas);
  EXPECT_EQ(r.stale, (std::vector<int>{0, 2, 3, 4, 5}));
}

TEST(ResolveForms, ACopyAloneWaitsWhenANewerWriteMayHide) {
  // min_size shards unreachable: a newer acknowledged write could be on them: undecided.
  Resolution r = Resolve(FormViews({-1, -1, 8, -1, -1, -1}, {8}), 4, 5, {}, 0, 3);
  EXPECT_EQ(r.action, Action::kUndecided);
  // With min_size 2, four unreachable shards could hold a newer write as well.
  Resolution s = Resolve(FormViews({-1, 8, 8, -1, -1, -1}, {8}), 4, 2, {}, 0, 3);
  EXPECT_EQ(s.action, Action::kUndecided);
  // Fewer than min_size unreachable: the copies settle it though fewer than k positions answer.
  Resolution t = Resolve(FormViews({8, 8, 8, -1, -1, -1}, {8}), 4, 5, {}, 0, 3);
  EXPECT_EQ(t.action, Action::kSettled);
  EXPECT_EQ(t.current, (std::vector<int>{0, 1, 2}));
}

}  // namespace
}  // namespace ec::osd::pg
