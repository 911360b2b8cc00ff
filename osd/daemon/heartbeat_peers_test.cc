// HeartbeatPeers (heartbeat_peers.h) with made-up times: pings in flight, failing after the grace
// from the last answer or from when a peer appeared, a peer booted again starting afresh, late
// answers of an earlier boot ignored, and Healthy's ratio.
#include "osd/daemon/heartbeat_peers.h"

#include <gtest/gtest.h>

namespace ec::osd::daemon {
namespace {

using std::chrono::milliseconds;
using HbClock = HeartbeatPeers::Clock;

const HbClock::time_point kT0 = HbClock::time_point(std::chrono::hours(1));

HeartbeatPeer Peer(int id, std::int64_t stamp = 100) {
  return HeartbeatPeer{id, "127.0.0.1:" + std::to_string(6800 + id), stamp};
}

std::vector<int> Ids(const std::vector<HeartbeatPeers::Failing>& f) {
  std::vector<int> ids;
  for (const auto& x : f) ids.push_back(x.peer.id);
  return ids;
}

TEST(HeartbeatPeers, OnePingInFlightPerPeer) {
  HeartbeatPeers p(milliseconds(4000));
  p.SetPeers({Peer(1), Peer(2)}, kT0);
  EXPECT_EQ(p.TakeDuePings(kT0).size(), 2u);
  EXPECT_TRUE(p.TakeDuePings(kT0 + milliseconds(1000)).empty());
  p.PingDone(1, 100, kT0, kT0 + milliseconds(5), true);
  const auto due = p.TakeDuePings(kT0 + milliseconds(1000));
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].id, 1);
  // A failed ping frees the slot too, but proves nothing.
  p.PingDone(2, 100, kT0, kT0 + milliseconds(1500), false);
  EXPECT_EQ(p.TakeDuePings(kT0 + milliseconds(2000)).size(), 1u);
}

TEST(HeartbeatPeers, FailingWhenAPingGoesUnansweredForTheGrace) {
  HeartbeatPeers p(milliseconds(4000));
  p.SetPeers({Peer(1), Peer(2)}, kT0);
  EXPECT_TRUE(p.FailingPeers(kT0 + milliseconds(9000)).empty()) << "never pinged";
  (void)p.TakeDuePings(kT0);
  p.PingDone(1, 100, kT0, kT0 + milliseconds(3000), true);
  // osd.2 never answered: failing once the grace has passed since its first ping.
  EXPECT_TRUE(p.FailingPeers(kT0 + milliseconds(4000)).empty());
  auto failing = p.FailingPeers(kT0 + milliseconds(4001));
  ASSERT_EQ(Ids(failing), std::vector<int>{2});
  EXPECT_EQ(failing[0].since, kT0);  // since it became a peer: it never answered
  // osd.1 answered at +3 s and is pinged again at +3.5 s: failing from +7.5 s on, since +3 s.
  (void)p.TakeDuePings(kT0 + milliseconds(3500));
  EXPECT_EQ(Ids(p.FailingPeers(kT0 + milliseconds(7500))), std::vector<int>{2});
  failing = p.FailingPeers(kT0 + milliseconds(7501));
  ASSERT_EQ(Ids(failing), (std::vector<int>{1, 2}));
  EXPECT_EQ(failing[0].since, kT0 + milliseconds(3000));
  // osd.2 answers at last: no longer failing.
  p.PingDone(2, 100, kT0, kT0 + milliseconds(7600), true);
  EXPECT_EQ(Ids(p.FailingPeers(kT0 + milliseconds(7700))), std::vector<int>{1});
}

// A peer frozen for less than the grace: the pings it could not answer were sent after it froze,
// so it is not failing by the time it answers again, however long ago its last answer was.
TEST(HeartbeatPeers, AFreezeShorterThanTheGraceIsNotAFailure) {
  HeartbeatPeers p(milliseconds(4000));
  p.SetPeers({Peer(1)}, kT0);
  (void)p.TakeDuePings(kT0);
  p.PingDone(1, 100, kT0, kT0 + milliseconds(10), true);  // its last answer before the freeze
  // Frozen from +900 ms; the next ping goes at +1 s, answered after the freeze, at +4.9 s.
  const auto next = kT0 + milliseconds(1000);
  (void)p.TakeDuePings(next);
  EXPECT_TRUE(p.FailingPeers(kT0 + milliseconds(4800)).empty());
  p.PingDone(1, 100, next, kT0 + milliseconds(4900), true);
  EXPECT_TRUE(p.FailingPeers(kT0 + milliseconds(5100)).empty());
  // A ping that times out after the grace: failing from the grace after it was sent, on.
  (void)p.TakeDuePings(kT0 + milliseconds(5000));
  p.PingDone(1, 100, kT0 + milliseconds(5000), kT0 + milliseconds(9000), false);
  EXPECT_EQ(Ids(p.FailingPeers(kT0 + milliseconds(9001))), std::vector<int>{1});
  // The next ping (sent after the timeout) does not move the deadline.
  (void)p.TakeDuePings(kT0 + milliseconds(9100));
  EXPECT_EQ(Ids(p.FailingPeers(kT0 + milliseconds(9200))), std::vector<int>{1});
}

TEST(HeartbeatPeers, APeerBootedAgainStartsAfreshAndItsOldAnswersAreIgnored) {
  HeartbeatPeers p(milliseconds(4000));
  p.SetPeers({Peer(1, 100)}, kT0);
  (void)p.TakeDuePings(kT0);
  EXPECT_EQ(Ids(p.FailingPeers(kT0 + milliseconds(5000))), std::vector<int>{1});
  // It booted again (another stamp): a new peer, not failing, no ping in flight.
  p.SetPeers({Peer(1, 200)}, kT0 + milliseconds(5000));
  EXPECT_TRUE(p.FailingPeers(kT0 + milliseconds(8000)).empty());
  EXPECT_EQ(p.TakeDuePings(kT0 + milliseconds(5000)).size(), 1u);
  // The answer to the ping of its previous boot counts for nothing.
  p.PingDone(1, 100, kT0, kT0 + milliseconds(8500), true);
  auto failing = p.FailingPeers(kT0 + milliseconds(9001));
  ASSERT_EQ(Ids(failing), std::vector<int>{1});
  EXPECT_EQ(failing[0].since, kT0 + milliseconds(5000));
  // A new address of the same boot keeps its history; a peer gone is forgotten.
  p.SetPeers({HeartbeatPeer{1, "127.0.0.1:7000", 200}}, kT0 + milliseconds(9100));
  EXPECT_EQ(Ids(p.FailingPeers(kT0 + milliseconds(9200))), std::vector<int>{1});
  p.SetPeers({}, kT0 + milliseconds(9300));
  EXPECT_TRUE(p.FailingPeers(kT0 + milliseconds(9400)).empty());
  EXPECT_EQ(p.size(), 0u);
}

TEST(HeartbeatPeers, HealthyWhenAThirdAnswers) {
  HeartbeatPeers p(milliseconds(4000));
  EXPECT_TRUE(p.Healthy(kT0));  // no peers
  p.SetPeers({Peer(1), Peer(2), Peer(3)}, kT0);
  (void)p.TakeDuePings(kT0);
  EXPECT_TRUE(p.Healthy(kT0 + milliseconds(4000)));
  EXPECT_FALSE(p.Healthy(kT0 + milliseconds(4001)));
  p.PingDone(3, 100, kT0, kT0 + milliseconds(4500), true);
  // 1 of 3 answers: 0.333 >= 0.33.
  EXPECT_TRUE(p.Healthy(kT0 + milliseconds(5000)));
  EXPECT_FALSE(p.Healthy(kT0 + milliseconds(5000), 0.5));
}

}  // namespace
}  // namespace ec::osd::daemon
