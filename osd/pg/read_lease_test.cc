// The read leases' bookkeeping (read_lease.h): versions and the settled watermark, grants and
// what a write that an OSD did not take must wait for, and the holder's side.
#include "osd/pg/read_lease.h"

#include <gtest/gtest.h>

namespace ec::osd::pg {
namespace {

using std::chrono::milliseconds;
const LeaseClock::time_point kT0 = LeaseClock::time_point{} + std::chrono::hours(1);

TEST(LeaseGranter, VersionsRiseAcrossPgsAndTheWatermarkStaysBelowWritesInFlight) {
  LeaseGranter g(milliseconds(2000));
  const std::uint64_t a = g.Assign("1.0", 100);
  EXPECT_EQ(a, 100u);
  // A lower candidate (another epoch's counter) still gets a higher version.
  const std::uint64_t b = g.Assign("1.1", 50);
  EXPECT_EQ(b, 101u);
  EXPECT_EQ(g.SettledBelow("1.0"), 100u);  // a in flight
  EXPECT_EQ(g.SettledBelow("1.1"), 101u);
  EXPECT_EQ(g.SettledBelow("1.7"), 102u);  // a PG without writes: above every version given
  g.Settle("1.0", a, true);
  EXPECT_EQ(g.SettledBelow("1.0"), 102u);
  const std::uint64_t c = g.Assign("1.0", 0);
  const std::uint64_t d = g.Assign("1.0", 0);
  g.Settle("1.0", d, true);
  EXPECT_EQ(g.SettledBelow("1.0"), c);  // c still in flight holds it, whatever ends after it
  g.Settle("1.0", c, true);
  EXPECT_EQ(g.SettledBelow("1.0"), d + 1);
}

TEST(LeaseGranter, AnUnsettledEndHoldsTheWatermarkUntilACleanGrantBegunAfterIt) {
  LeaseGranter g(milliseconds(2000));
  const std::uint64_t v = g.Assign("1.0", 10);
  const std::uint64_t ticket = g.Generation("1.0");
  g.Settle("1.0", v, false);  // failed after sending: shards may hold it
  g.Assign("1.0", 0);
  EXPECT_EQ(g.SettledBelow("1.0"), v);
  // A grant whose clean verdict was read before the failure is refused.
  EXPECT_FALSE(g.Grant("1.0", 3, milliseconds(1000), true, ticket, 0, kT0));
  // Not clean: refused.
  EXPECT_FALSE(g.Grant("1.0", 3, milliseconds(1000), false, g.Generation("1.0"), 0, kT0));
  EXPECT_EQ(g.SettledBelow("1.0"), v);
  // Clean after it: granted, and the watermark passes v (up to the write still in flight).
  auto granted = g.Grant("1.0", 3, milliseconds(1000), true, g.Generation("1.0"), 0, kT0);
  ASSERT_TRUE(granted);
  EXPECT_EQ(granted->settled_below, v + 1);
  EXPECT_EQ(granted->duration, milliseconds(1000));
}

TEST(LeaseGranter, AFloorFromTheMapEpochCoversEarlierPrimariesWrites) {
  LeaseGranter g(milliseconds(2000));
  // A new primary at epoch 7 that has written nothing: shards hold versions of epochs <= 6 (and
  // of 7 by an earlier process), all settled as the PG is clean.
  auto granted = g.Grant("1.0", 3, milliseconds(1000), true, 0, 7ull << 32, kT0);
  ASSERT_TRUE(granted);
  EXPECT_EQ(granted->settled_below, (7ull << 32) + 1);
  // Every later version is above what was granted.
  EXPECT_GT(g.Assign("1.1", 5ull << 32), granted->settled_below - 1);
}

TEST(LeaseGranter, GrantsAreCappedAndAWriteWithoutAnOsdWaitsForItsLeases) {
  LeaseGranter g(milliseconds(2000));
  EXPECT_EQ(g.AckDeadline("1.0", {3}), LeaseClock::time_point{});
  auto granted = g.Grant("1.0", 3, milliseconds(60000), true, 0, 0, kT0);
  ASSERT_TRUE(granted);
  EXPECT_EQ(granted->duration, milliseconds(2000));
  EXPECT_EQ(g.AckDeadline("1.0", {3}), kT0 + milliseconds(2000));
  EXPECT_EQ(g.AckDeadline("1.0", {4}), LeaseClock::time_point{});
  EXPECT_EQ(g.AckDeadline("1.1", {3}), LeaseClock::time_point{});
  // A shorter grant later does not shorten what was promised.
  ASSERT_TRUE(g.Grant("1.0", 3, milliseconds(10), true, 0, 0, kT0 + milliseconds(5)));
  EXPECT_EQ(g.AckDeadline("1.0", {3, 4}), kT0 + milliseconds(2000));
  // After peering, an earlier primary's leases are waited out too.
  g.NotePeered("1.0", kT0 + milliseconds(1000));
  EXPECT_EQ(g.AckDeadline("1.0", {4}), kT0 + milliseconds(3000));
}

TEST(LeaseHolder, LeasesEndAndUnwantedPgsAreForgotten) {
  LeaseHolder h;
  EXPECT_FALSE(h.Get("1.0", kT0));
  EXPECT_TRUE(h.Want("1.0", 1, 0, kT0));
  EXPECT_FALSE(h.Want("1.0", 1, 0, kT0 + milliseconds(1)));
  h.Put("1.0", LeaseHolder::Lease{5, 77, {1, 2, 3}, kT0 + milliseconds(100)});
  auto l = h.Get("1.0", kT0 + milliseconds(99));
  ASSERT_TRUE(l);
  EXPECT_EQ(l->settled_below, 77u);
  EXPECT_EQ(l->acting, (std::vector<int>{1, 2, 3}));
  EXPECT_FALSE(h.Get("1.0", kT0 + milliseconds(100)));
  h.Put("1.0", LeaseHolder::Lease{5, 77, {1, 2, 3}, kT0 + milliseconds(500)});
  h.Drop("1.0");
  EXPECT_FALSE(h.Get("1.0", kT0));
  h.Put("1.0", LeaseHolder::Lease{5, 77, {1, 2, 3}, kT0 + milliseconds(500)});
  auto wanted = h.Wanted(kT0 + milliseconds(50), milliseconds(100));
  ASSERT_EQ(wanted.size(), 1u);
  EXPECT_EQ(wanted[0].pgid, "1.0");
  EXPECT_EQ(wanted[0].pool, 1u);
  // Not wanted for longer than the window: forgotten with its lease.
  EXPECT_TRUE(h.Wanted(kT0 + milliseconds(300), milliseconds(100)).empty());
  EXPECT_FALSE(h.Get("1.0", kT0 + milliseconds(400)));
}

}  // namespace
}  // namespace ec::osd::pg
