#include "osd/pg/pg_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ec::osd::pg {
namespace {

// A PG of k=2, m=1 on OSDs 10, 11, 12 (all up unless a test says otherwise).
cluster::PgLocation Loc(std::vector<int> up = {10, 11, 12}) {
  cluster::PgLocation loc;
  loc.pool_id = 1;
  loc.pg = 0;
  loc.pgid = "1.0";
  loc.collection = "pg.1.0";
  loc.acting = {10, 11, 12};
  loc.up = std::move(up);
  loc.primary = cluster::FirstUp(loc.up);
  loc.k = 2;
  loc.min_size = 2;
  return loc;
}

ObjectState At(std::uint64_t version, std::uint64_t size, std::vector<int> current) {
  ObjectState st;
  st.exists = true;
  st.version = version;
  st.size = size;
  st.current = std::move(current);
  return st;
}

void Peer(PgTable& t, const cluster::PgLocation& loc, std::map<std::string, ObjectState> objects,
          CopySources copies = {}) {
  ASSERT_EQ(t.BeginPeering(loc, 0), PgTable::Peer::kMustPeer);
  t.FinishPeering(loc, std::move(objects), {}, std::move(copies));
  ASSERT_EQ(t.BeginPeering(loc, 0), PgTable::Peer::kReady);
}

TEST(PgTable, CleanWhenEveryPositionHoldsEveryObject) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1, 2})}, {"b", At(6, 10, {0, 1, 2})}});
  const PgHealth h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+clean");
  EXPECT_EQ(h.objects, 2u);
  EXPECT_EQ(h.bytes, 110u);  // logical bytes: the objects' sizes
  EXPECT_EQ(h.degraded, 0u);
  EXPECT_EQ(h.misplaced, 0u);
  EXPECT_EQ(h.missing, 0u);
  EXPECT_TRUE(t.Missing(loc, 10, {}).empty());
  // An object the PG does not hold reads as absent everywhere.
  auto absent = t.Lookup("1.0", "zzz");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->exists);
}

// An erasure pool's small object kept as copies (issue 30 item 2) on positions 0..m: a missing
// copy is the whole object to rebuild, a missing empty shard past them nothing.
TEST(PgTable, MissingBytesOfSmallObjectCopiesAreWholeCopies) {
  PgTable t;
  const auto loc = Loc();
  ObjectState copy_missing = At(5, 100, {1, 2});  // k=2, m=1: copies on 0 and 1
  copy_missing.form = msg::ObjectForm::kReplicas;
  ObjectState empty_missing = At(6, 30, {0, 1});
  empty_missing.form = msg::ObjectForm::kReplicas;
  Peer(t, loc, {{"a", copy_missing}, {"b", empty_missing}});
  const PgHealth h = t.Health(loc, false);
  EXPECT_EQ(h.missing, 2u);
  EXPECT_EQ(h.missing_bytes, 100u);  // a's copy on position 0; b's empty shard on 2: 0
  EXPECT_EQ(h.degraded, 2u);
}

TEST(PgTable, AMissingShardWithoutACopyIsDegradedAndRebuilt) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1})}});
  PgHealth h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+recovery_wait+degraded");
  EXPECT_EQ(h.degraded, 1u);
  EXPECT_EQ(h.missing, 1u);
  EXPECT_EQ(h.missing_bytes, 50u);  // 100 bytes / k
  EXPECT_EQ(t.Health(loc, true).state, "active+recovering+degraded");
  auto missing = t.Missing(loc, 10, {});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].position, 2);
  EXPECT_EQ(missing[0].copy_from, cluster::kItemNone);
  t.MarkRecovered(loc, "a", 2, 5, 52);
  h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+clean");
  EXPECT_EQ(h.recovered, 1u);
  EXPECT_EQ(h.recovered_bytes, 52u);
}

// A remove that position 2 missed (its OSD was down): the stale shard there is deleted by
// recovery, and until then the PG is not clean (the pool would still list the object).
TEST(PgTable, AStaleShardOfARemovedObjectKeepsThePgFromCleanUntilDeleted) {
  PgTable t;
  const auto loc = Loc();
  ObjectState removed;
  removed.version = 9;
  removed.current = {0, 1};
  removed.stale = {{2, 5}};
  Peer(t, loc, {{"gone", removed}});
  PgHealth h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+recovery_wait");
  EXPECT_EQ(h.objects, 0u);
  EXPECT_EQ(h.missing, 1u);
  EXPECT_EQ(t.Health(loc, true).state, "active+recovering");
  auto missing = t.Missing(loc, 10, {});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].position, 2);
  t.MarkRecovered(loc, "gone", 2, 9);
  h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+clean");
  EXPECT_EQ(h.missing, 0u);
  // With position 2's OSD down there is nothing to delete now: undersized, not missing.
  PgTable d;
  const auto down = Loc({10, 11, cluster::kItemNone});
  Peer(d, down, {{"gone", removed}});
  EXPECT_EQ(d.Health(down, false).missing, 0u);
  EXPECT_EQ(d.Health(down, false).state, "active+undersized");
}

TEST(PgTable, AShardAPriorOsdHoldsIsMisplacedAndCopied) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1})}, {"b", At(6, 100, {0, 1})}, {"c", At(7, 8, {0, 1, 2})}},
       {{"a", {{2, 40}}}, {"c", {{2, 40}}}, {"gone", {{2, 40}}}});
  PgHealth h = t.Health(loc, false);
  // a: copy from osd.40 (misplaced); b: no copy (degraded); c: already current.
  EXPECT_EQ(h.state, "active+recovery_wait+degraded+remapped+backfill_wait");
  EXPECT_EQ(h.misplaced, 1u);
  EXPECT_EQ(h.degraded, 1u);
  EXPECT_EQ(t.Health(loc, true).state, "active+recovering+degraded+remapped+backfilling");
  auto missing = t.Missing(loc, 10, {});
  ASSERT_EQ(missing.size(), 2u);
  EXPECT_EQ(missing[0].object, "a");
  EXPECT_EQ(missing[0].copy_from, 40);
  EXPECT_EQ(missing[1].object, "b");
  EXPECT_EQ(missing[1].copy_from, cluster::kItemNone);

  t.MarkRecovered(loc, "b", 2, 6);
  h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+remapped+backfill_wait");
  EXPECT_EQ(h.degraded, 0u);
  EXPECT_EQ(h.misplaced, 1u);
  t.MarkRecovered(loc, "a", 2, 5);
  EXPECT_EQ(t.Health(loc, false).state, "active+clean");
}

TEST(PgTable, AWriteDropsTheCopySourceOfTheOldVersion) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1})}}, {{"a", {{2, 40}}}});
  // A write at a new version that position 2 missed: osd.40's copy is of version 5, useless.
  t.Update(loc, "a", At(9, 100, {0, 1}));
  auto missing = t.Missing(loc, 10, {});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].copy_from, cluster::kItemNone);
  EXPECT_EQ(t.Health(loc, false).misplaced, 0u);
  // A recovery of the old version does not make position 2 current at the new one.
  t.MarkRecovered(loc, "a", 2, 5);
  EXPECT_EQ(t.Missing(loc, 10, {}).size(), 1u);
}

TEST(PgTable, ADownPositionIsUndersizedNotMissing) {
  PgTable t;
  const auto loc = Loc({10, 11, cluster::kItemNone});
  Peer(t, loc, {{"a", At(5, 100, {0, 1})}});
  const PgHealth h = t.Health(loc, false);
  EXPECT_EQ(h.state, "active+undersized+degraded");
  EXPECT_EQ(h.missing, 0u);
  EXPECT_EQ(h.degraded, 1u);
  EXPECT_TRUE(t.Missing(loc, 10, {}).empty());
  EXPECT_EQ(t.Health(Loc({10, cluster::kItemNone, cluster::kItemNone}), false).state, "down");
}

TEST(PgTable, ANewIntervalMustPeerAgain) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1, 2})}});
  auto moved = Loc({10, 11, cluster::kItemNone});
  EXPECT_EQ(t.Health(moved, false).state, "peering");
  EXPECT_EQ(t.BeginPeering(moved, 0), PgTable::Peer::kMustPeer);
  t.AbortPeering(moved);
  EXPECT_EQ(t.BeginPeering(moved, 0), PgTable::Peer::kMustPeer);
  t.FinishPeering(moved, {}, {});
  EXPECT_EQ(t.Health(moved, false).objects, 0u);
}

// A map of `epoch`: pool 1 (k=2 m=1, one PG on osd.0-2 on three hosts) where `down` (an OSD
// id, or -1) is down.
std::shared_ptr<const cluster::ObjectLocator> MapWithDown(std::int64_t epoch, int down) {
  cluster::ClusterMap map;
  map.epoch = epoch;
  map.profiles["rs"] = cluster::EcProfile{
      "rs", {{"plugin", "jerasure"}, {"k", "2"}, {"m", "1"}, {"crush-failure-domain", "osd"}}};
  map.pools[1] = cluster::Pool{1, "p", "rs", 1, 4096, 2};
  for (int i = 0; i < 3; ++i) {
    cluster::OsdEntry o;
    o.id = i;
    o.host = "h" + std::to_string(i);
    o.up = i != down;
    map.osds[i] = o;
  }
  auto locator = cluster::ObjectLocator::Make(std::make_shared<const cluster::ClusterMap>(map));
  EXPECT_TRUE(locator.ok()) << locator.status().ToString();
  return locator.ok() ? *locator : nullptr;
}

// The same with osd.2 down when `two_up`.
std::shared_ptr<const cluster::ObjectLocator> ThreeOsdLocator(std::int64_t epoch, bool two_up) {
  return MapWithDown(epoch, two_up ? 2 : -1);
}

// A caller still holding an older map than the newest observed (the recovery loop's round, an
// operation prepared just before a map arrived) must neither peer for that ended interval nor
// throw away the current interval's table: it is told to locate again.
TEST(PgTable, APeeringWithAnOlderMapIsStaleAndChangesNothing) {
  PgTable t;
  const auto old_map = ThreeOsdLocator(7, false);
  const auto new_map = ThreeOsdLocator(8, true);
  ASSERT_TRUE(old_map && new_map);
  auto old_loc = old_map->LocatePg(1, 0);
  auto new_loc = new_map->LocatePg(1, 0);
  ASSERT_TRUE(old_loc.ok() && new_loc.ok());
  ASSERT_TRUE(t.Observe(*old_map));
  ASSERT_TRUE(t.Observe(*new_map));
  ASSERT_EQ(t.BeginPeering(*new_loc, 8), PgTable::Peer::kMustPeer);
  t.FinishPeering(*new_loc, {{"a", At(5, 100, {0, 1})}}, {});
  EXPECT_FALSE(t.Observe(*old_map));  // older: ignored
  EXPECT_EQ(t.BeginPeering(*old_loc, 7), PgTable::Peer::kStale);
  // The current interval's table is intact.
  EXPECT_EQ(t.BeginPeering(*new_loc, 8), PgTable::Peer::kReady);
  ASSERT_TRUE(t.Lookup(*new_loc, "a").has_value());
  EXPECT_EQ(t.Lookup(*new_loc, "a")->version, 5u);
}

// A recovery round that located the PG before a map change (another up set) neither lists the
// new interval's work nor marks a position recovered in it: its pull wrote the position on the
// OSD that held it in the old interval.
TEST(PgTable, RecoveryThroughAnotherIntervalsLocationChangesNothing) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1})}});
  const auto other = Loc({10, 11, cluster::kItemNone});
  EXPECT_TRUE(t.Missing(other, 10, {}).empty());
  ASSERT_EQ(t.Missing(loc, 10, {}).size(), 1u);
  t.MarkRecovered(other, "a", 2, 5);
  EXPECT_EQ(t.Missing(loc, 10, {}).size(), 1u);
  t.Forget("1.0", "a");
  EXPECT_TRUE(t.Unknown(other, 10).empty());
  EXPECT_EQ(t.Unknown(loc, 10), std::vector<std::string>{"a"});
  t.Update(loc, "a", At(5, 100, {0, 1}));
  t.MarkRecovered(loc, "a", 2, 5);
  EXPECT_TRUE(t.Missing(loc, 10, {}).empty());
}

// Issue 29: the state from what the primary knows, in Ceph's words and order, for every rule of
// PgTable::Health, with the interval it is for.
TEST(PgTable, StatesAsCephNamesThem) {
  // k=2, m=2 (size 4), min_size 3 on OSDs 10..13.
  const auto at = [](std::vector<int> up) {
    cluster::PgLocation loc = Loc(std::move(up));
    loc.acting = {10, 11, 12, 13};
    loc.primary = cluster::FirstUp(loc.up);
    loc.min_size = 3;
    return loc;
  };
  const int none = cluster::kItemNone;
  const auto all = at({10, 11, 12, 13});
  const auto one_down = at({10, 11, none, 13});
  const auto two_down = at({10, none, none, 13});
  const auto three_down = at({none, none, none, 13});
  PgTable t;
  // Not peered yet (never, or not in this interval): peering; fewer than k up: down.
  PgHealth h = t.Health(all, false);
  EXPECT_EQ(h.state, "peering");
  EXPECT_EQ(h.flags, cluster::pg_state::kPeering);
  EXPECT_EQ(h.up, all.up);
  EXPECT_EQ(h.acting, all.acting);
  EXPECT_EQ(t.Health(three_down, false).state, "down");
  Peer(t, all, {{"a", At(5, 100, {0, 1, 2, 3})}});
  EXPECT_EQ(t.Health(all, false).state, "active+clean");
  EXPECT_EQ(t.Health(one_down, false).state, "peering");  // the primary has not peered it so

  // Peered with one position down: active (min_size up), undersized, degraded (objects lack it).
  Peer(t, one_down, {{"a", At(5, 100, {0, 1, 3})}});
  h = t.Health(one_down, false);
  EXPECT_EQ(h.state, "active+undersized+degraded");
  EXPECT_EQ(h.up, one_down.up);
  EXPECT_EQ(h.acting, one_down.acting);
  // Below min_size but k up: peered, not active (no writes), still undersized and degraded.
  Peer(t, two_down, {{"a", At(5, 100, {0, 3})}});
  EXPECT_EQ(t.Health(two_down, false).state, "undersized+degraded+peered");
  EXPECT_EQ(t.Health(two_down, false).flags & cluster::pg_state::kActive, 0u);
  // An empty PG is undersized, not degraded (Ceph counts degraded objects).
  PgTable empty;
  Peer(empty, two_down, {});
  EXPECT_EQ(empty.Health(two_down, false).state, "undersized+peered");
  // A shard to rebuild on an up OSD as well as one down: recovery_wait, then recovering.
  PgTable r;
  Peer(r, one_down, {{"a", At(5, 100, {0, 3})}});
  EXPECT_EQ(r.Health(one_down, false).state, "active+recovery_wait+undersized+degraded");
  EXPECT_EQ(r.Health(one_down, true).state, "active+recovering+undersized+degraded");
  // An object fewer than k shards settle: incomplete.
  PgTable u;
  ASSERT_EQ(u.BeginPeering(all, 0), PgTable::Peer::kMustPeer);
  u.FinishPeering(all, {}, {"lost"});
  EXPECT_EQ(u.Health(all, false).state, "incomplete");
}

// The counter the stats publisher watches moves with every map and peering, not with lookups.
TEST(PgTable, ChangesMoveWithMapsAndPeering) {
  PgTable t;
  const auto loc = Loc();
  std::uint64_t c = t.Changes();
  ASSERT_EQ(t.BeginPeering(loc, 0), PgTable::Peer::kMustPeer);
  EXPECT_GT(t.Changes(), c);
  c = t.Changes();
  t.FinishPeering(loc, {{"a", At(5, 100, {0, 1, 2})}}, {});
  EXPECT_GT(t.Changes(), c);
  c = t.Changes();
  EXPECT_TRUE(t.Lookup(loc, "a"));
  (void)t.Health(loc, false);
  EXPECT_EQ(t.BeginPeering(loc, 0), PgTable::Peer::kReady);
  EXPECT_EQ(t.Changes(), c);
  ASSERT_EQ(t.BeginPeering(Loc({10, 11, cluster::kItemNone}), 0), PgTable::Peer::kMustPeer);
  EXPECT_GT(t.Changes(), c);
  c = t.Changes();
  t.AbortPeering(Loc({10, 11, cluster::kItemNone}));
  EXPECT_GT(t.Changes(), c);
}

TEST(PgTable, AForgottenObjectIsUnknownUntilUpdated) {
  PgTable t;
  const auto loc = Loc();
  Peer(t, loc, {{"a", At(5, 100, {0, 1, 2})}});
  t.Forget("1.0", "a");
  EXPECT_FALSE(t.Lookup("1.0", "a"));
  EXPECT_EQ(t.Unknown(loc, 10), std::vector<std::string>{"a"});
  // A state learnt with another interval's location is not this one's.
  t.Update(Loc({10, 11, cluster::kItemNone}), "a", At(5, 100, {0, 1, 2}));
  EXPECT_FALSE(t.Lookup("1.0", "a"));
  t.Update(loc, "a", At(5, 100, {0, 1, 2}));
  EXPECT_TRUE(t.Lookup("1.0", "a"));
  EXPECT_TRUE(t.Unknown(loc, 10).empty());
}

TEST(PgTable, ALookupByLocationAnswersOnlyForThePeeredInterval) {
  PgTable t;
  const auto loc = Loc();
  EXPECT_FALSE(t.Lookup(loc, "a"));  // never peered
  Peer(t, loc, {{"a", At(5, 100, {0, 1, 2})}});
  auto a = t.Lookup(loc, "a");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->version, 5u);
  auto absent = t.Lookup(loc, "zzz");
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->exists);
  // Another interval (an OSD went down): not known until peered for it, though the PG's table
  // still holds the old interval's states.
  const auto moved = Loc({10, 11, cluster::kItemNone});
  EXPECT_FALSE(t.Lookup(moved, "a"));
  EXPECT_TRUE(t.Lookup("1.0", "a"));
  t.Forget("1.0", "a");
  EXPECT_FALSE(t.Lookup(loc, "a"));
}

// Clean() is what read leases need (read_lease.h), kept as objects change, not recounted.
TEST(PgTable, CleanFollowsEveryChangeOfTheObjects) {
  PgTable t;
  const auto loc = Loc();
  EXPECT_FALSE(t.Clean(loc));  // never peered
  Peer(t, loc, {{"a", At(5, 100, {0, 1, 2})}, {"b", At(6, 10, {0, 1})}});
  EXPECT_FALSE(t.Clean(loc));  // b lacks position 2
  t.MarkRecovered(loc, "b", 2, 6);
  EXPECT_TRUE(t.Clean(loc));
  t.Update(loc, "a", At(7, 100, {0, 1}));  // a write position 2 did not take
  EXPECT_FALSE(t.Clean(loc));
  t.Update(loc, "a", At(8, 100, {0, 1, 2}));
  EXPECT_TRUE(t.Clean(loc));
  t.Forget("1.0", "a");  // a write that failed midway: unsettled
  EXPECT_FALSE(t.Clean(loc));
  t.Update(loc, "a", At(8, 100, {0, 1, 2}));
  EXPECT_TRUE(t.Clean(loc));
  // A remove that position 1 missed, until recovery deletes the stale shard.
  ObjectState removed;
  removed.version = 9;
  removed.current = {0, 2};
  removed.stale = {{1, 8}};
  t.Update(loc, "a", removed);
  EXPECT_FALSE(t.Clean(loc));
  t.MarkRecovered(loc, "a", 1, 9);
  EXPECT_TRUE(t.Clean(loc));
  // A position down is not clean (undersized), nor another interval.
  EXPECT_FALSE(t.Clean(Loc({10, cluster::kItemNone, 12})));
  auto other = Loc();
  other.acting = {10, 11, 13};
  other.up = {10, 11, 13};
  EXPECT_FALSE(t.Clean(other));
}

// The PG's location in `map` (observed first, as the primary does).
cluster::PgLocation ObserveAndLocate(PgTable& t, const cluster::ObjectLocator& map) {
  EXPECT_TRUE(t.Observe(map));
  auto loc = map.LocatePg(1, 0);
  EXPECT_TRUE(loc.ok());
  return loc.ok() ? *loc : cluster::PgLocation{};
}

// Positions of `loc` but `skip`.
std::vector<int> AllBut(const cluster::PgLocation& loc, int skip) {
  std::vector<int> out;
  for (int p = 0; p < static_cast<int>(loc.acting.size()); ++p) {
    if (p != skip) out.push_back(p);
  }
  return out;
}

// A non-primary OSD of the PG goes down and comes back: the table is kept, and only the objects
// it does not hold (written, created or removed while it was down, or missing before) are asked
// of their shards again; the others need no round trip.
TEST(PgTable, AnOsdThatComesBackIsCaughtUpWithWhatItMissedOnly) {
  PgTable t;
  auto all = ObserveAndLocate(t, *MapWithDown(7, -1));
  const int x = 2;  // the returning position; its OSD is not the primary
  const int osd = all.acting[x];
  ASSERT_EQ(t.BeginPeering(all, 7), PgTable::Peer::kMustPeer);
  ObjectState missing_before = At(4, 10, AllBut(all, x));
  t.FinishPeering(all,
                  {{"a", At(5, 100, {0, 1, 2})},
                   {"b", At(5, 100, {0, 1, 2})},
                   {"c", At(5, 100, {0, 1, 2})},
                   {"e", missing_before}},
                  {});
  auto down = ObserveAndLocate(t, *MapWithDown(8, osd));
  EXPECT_EQ(t.Health(down, false).state, "peering");
  ASSERT_EQ(t.BeginPeering(down, 8), PgTable::Peer::kCatchUp);
  EXPECT_EQ(t.FinishCatchUp(down), 0u);  // nobody came back
  ASSERT_TRUE(t.Lookup(down, "a"));
  EXPECT_EQ(t.Lookup(down, "a")->version, 5u);
  // While it is down: b written, d created, c removed (its position left stale at 5).
  ObjectState b = At(9, 100, AllBut(all, x));
  b.stale[x] = 5;
  t.Update(down, "b", b);
  t.Update(down, "d", At(10, 50, AllBut(all, x)));
  ObjectState c;
  c.version = 11;
  c.current = AllBut(all, x);
  c.stale[x] = 5;
  t.Update(down, "c", c);
  EXPECT_EQ(t.Health(down, false).state, "active+undersized+degraded");

  auto back = ObserveAndLocate(t, *MapWithDown(9, -1));
  ASSERT_EQ(t.BeginPeering(back, 9), PgTable::Peer::kCatchUp);
  EXPECT_EQ(t.FinishCatchUp(back), 4u);  // b, c, d and e
  EXPECT_EQ(t.Unknown(back, 10), (std::vector<std::string>{"b", "c", "d", "e"}));
  ASSERT_TRUE(t.Lookup(back, "a"));  // held by every position: no round trip
  EXPECT_EQ(t.Lookup(back, "a")->version, 5u);
  for (const char* name : {"b", "c", "d", "e"}) EXPECT_FALSE(t.Lookup(back, name)) << name;
  EXPECT_FALSE(t.Clean(back));
  EXPECT_EQ(t.BeginPeering(back, 9), PgTable::Peer::kReady);
  // Their resolves settle them; recovery then lists what the position lacks.
  ObjectState b_settled = At(9, 100, AllBut(all, x));
  b_settled.stale[x] = 5;
  t.Update(back, "b", b_settled);
  t.Update(back, "e", At(4, 10, {0, 1, 2}));
  const auto missing = t.Missing(back, 10, {});
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].object, "b");
  EXPECT_EQ(missing[0].position, x);
}

// What a catch-up cannot start from: a new primary (the old one went down; this process never
// served the interval in between), a jump over epochs, a position whose OSD was down when the PG
// peered (its shards were never scanned) or whose scan failed, another OSD at a position.
TEST(PgTable, OnlyOsdsComingAndGoingUnderTheSamePrimaryAreCaughtUpWith) {
  const auto peer_all = [](PgTable& t, std::int64_t epoch,
                           const std::optional<std::set<int>>& scanned = std::nullopt) {
    auto loc = ObserveAndLocate(t, *MapWithDown(epoch, -1));
    EXPECT_EQ(t.BeginPeering(loc, epoch), PgTable::Peer::kMustPeer);
    t.FinishPeering(loc, {{"a", At(5, 100, {0, 1, 2})}}, {}, {}, scanned);
    return loc;
  };
  {
    PgTable t;
    auto all = peer_all(t, 7);
    auto primary_down = ObserveAndLocate(t, *MapWithDown(8, all.acting[0]));
    EXPECT_EQ(t.BeginPeering(primary_down, 8), PgTable::Peer::kMustPeer);
  }
  {
    PgTable t;
    auto all = peer_all(t, 7);
    auto jumped = ObserveAndLocate(t, *MapWithDown(9, all.acting[2]));
    EXPECT_EQ(t.BeginPeering(jumped, 9), PgTable::Peer::kMustPeer);
  }
  {
    PgTable t;
    auto all = peer_all(t, 7);
    const int osd = all.acting[2];
    auto down = ObserveAndLocate(t, *MapWithDown(8, osd));
    ASSERT_EQ(t.BeginPeering(down, 8), PgTable::Peer::kCatchUp);
    t.AbortPeering(down);  // a failed catch-up keeps nothing
    EXPECT_EQ(t.BeginPeering(down, 8), PgTable::Peer::kMustPeer);
    t.FinishPeering(down, {{"a", At(5, 100, AllBut(all, 2))}}, {});
    // Peered while osd was down: its position's shards were never scanned.
    auto back = ObserveAndLocate(t, *MapWithDown(9, -1));
    EXPECT_EQ(t.BeginPeering(back, 9), PgTable::Peer::kMustPeer);
  }
  {
    PgTable t;
    auto all = peer_all(t, 7, std::set<int>{0, 1});  // position 2's scan failed
    auto down = ObserveAndLocate(t, *MapWithDown(8, all.acting[1]));
    EXPECT_EQ(t.BeginPeering(down, 8), PgTable::Peer::kMustPeer);
  }
  {
    // Another acting set: Loc()'s OSDs are not the map's.
    PgTable t;
    peer_all(t, 7);
    ASSERT_TRUE(t.Observe(*MapWithDown(8, -1)));
    EXPECT_EQ(t.BeginPeering(Loc(), 8), PgTable::Peer::kMustPeer);
  }
}

// An operation prepared in an earlier interval that finishes after the table was kept: its
// outcome may or may not have reached the shards, so its object is asked again (Update and
// Forget alike), never taken as the new interval's state nor dropped.
TEST(PgTable, AnOperationOfAnEarlierIntervalMarksItsObjectUnknownInAKeptTable) {
  PgTable t;
  auto all = ObserveAndLocate(t, *MapWithDown(7, -1));
  ASSERT_EQ(t.BeginPeering(all, 7), PgTable::Peer::kMustPeer);
  t.FinishPeering(all, {{"a", At(5, 100, {0, 1, 2})}, {"b", At(5, 100, {0, 1, 2})}}, {});
  auto down = ObserveAndLocate(t, *MapWithDown(8, all.acting[2]));
  t.Forget(all.pgid, "b", {1});  // kept, not yet caught up
  ASSERT_EQ(t.BeginPeering(down, 8), PgTable::Peer::kCatchUp);
  EXPECT_EQ(t.FinishCatchUp(down), 0u);
  t.Update(all, "a", At(6, 100, {0, 1, 2}));  // learnt through the earlier interval
  EXPECT_FALSE(t.Lookup(down, "a"));
  EXPECT_FALSE(t.Lookup(down, "b"));
  EXPECT_EQ(t.Unknown(down, 10), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(t.Suspect(all.pgid, "b").empty());  // the catch-up's fences hold them back
  t.Update(down, "a", At(6, 100, AllBut(all, 2)));
  ASSERT_TRUE(t.Lookup(down, "a"));
  EXPECT_EQ(t.Lookup(down, "a")->version, 6u);
}

// A removed object stays in the table while a position whose shards are known does not hold the
// removal, even neither current nor stale (its OSD was down when the object was settled): when
// that OSD comes back the object is asked again, which finds its older shard there. Held by
// every position, the removal is forgotten.
TEST(PgTable, ARemovalAnAwayPositionLacksIsAskedAgainWhenItComesBack) {
  PgTable t;
  auto all = ObserveAndLocate(t, *MapWithDown(7, -1));
  ASSERT_EQ(t.BeginPeering(all, 7), PgTable::Peer::kMustPeer);
  t.FinishPeering(all, {{"a", At(5, 100, {0, 1, 2})}, {"b", At(5, 100, {0, 1, 2})}}, {});
  auto down = ObserveAndLocate(t, *MapWithDown(8, all.acting[2]));
  ASSERT_EQ(t.BeginPeering(down, 8), PgTable::Peer::kCatchUp);
  t.FinishCatchUp(down);
  ObjectState removed;
  removed.version = 9;
  removed.current = AllBut(all, 2);  // resolved while position 2 was unreachable: not stale
  t.Update(down, "a", removed);
  ObjectState everywhere;
  everywhere.version = 10;
  everywhere.current = {0, 1, 2};
  t.Update(down, "b", everywhere);
  ASSERT_TRUE(t.Lookup(down, "a"));
  EXPECT_FALSE(t.Lookup(down, "a")->exists);
  auto back = ObserveAndLocate(t, *MapWithDown(9, -1));
  ASSERT_EQ(t.BeginPeering(back, 9), PgTable::Peer::kCatchUp);
  EXPECT_EQ(t.FinishCatchUp(back), 1u);
  EXPECT_EQ(t.Unknown(back, 10), std::vector<std::string>{"a"});
  auto b = t.Lookup(back, "b");
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->exists);
  EXPECT_EQ(b->version, 0u);  // not in the table: absent everywhere
}

// A map that jumps over epochs while a PG peers (another primary may have served it in them, and
// written after this peering's scans): what the peering found is not installed, even for the
// same interval, and the next operation peers again.
TEST(PgTable, APeeringOvertakenByAJumpOverEpochsIsNotInstalled) {
  PgTable t;
  auto all = ObserveAndLocate(t, *MapWithDown(7, -1));
  ASSERT_EQ(t.BeginPeering(all, 7), PgTable::Peer::kMustPeer);
  auto later = ObserveAndLocate(t, *MapWithDown(10, -1));  // the same interval, epochs 8-9 unseen
  t.FinishPeering(all, {{"a", At(5, 100, {0, 1, 2})}}, {});
  EXPECT_FALSE(t.Lookup(later, "a"));
  EXPECT_EQ(t.BeginPeering(later, 10), PgTable::Peer::kMustPeer);
  t.FinishPeering(later, {{"a", At(6, 100, {0, 1, 2})}}, {});
  ASSERT_TRUE(t.Lookup(later, "a"));
  EXPECT_EQ(t.Lookup(later, "a")->version, 6u);
}

}  // namespace
}  // namespace ec::osd::pg
