// HeartbeatPeers: the bookkeeping of an OSD's heartbeats (heartbeat.h), without threads, sockets
// or clocks of its own, so that a test drives it with made-up times.
//
// A peer is an OSD up in the map other than this one (its id, address and boot stamp). For each,
// it keeps when the peer last answered a ping, whether a ping is in flight, and when the oldest
// ping it has not answered was sent. A peer is **failing** when that ping was sent longer than the
// grace ago (Ceph's OSD judges its peers by the same deadline: a ping unanswered for the grace),
// so a peer frozen for less than the grace is never failing. Its failure counts **since** its
// last answer, or since it became a peer (added, or booted again: another up_stamp_ms) if it
// never answered (heartbeat_check's "no reply from osd.N since").
//
// Healthy (Ceph's OSD::_is_healthy, for an OSD waiting to boot again): at least `min_ratio` of the
// peers are not failing; with no peers, healthy.
//
// Thread safety: none; heartbeat.h holds a mutex around it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ec::osd::daemon {

// Ceph's osd_heartbeat_min_healthy_ratio default (a float option: kept fixed here).
inline constexpr double kHeartbeatMinHealthyRatio = 0.33;

struct HeartbeatPeer {
  int id = 0;
  std::string addr;              // "host:port" of its messenger
  std::int64_t up_stamp_ms = 0;  // the map's up_stamp_ms: which boot of it
  bool operator==(const HeartbeatPeer&) const = default;
};

class HeartbeatPeers {
 public:
  using Clock = std::chrono::steady_clock;

  explicit HeartbeatPeers(std::chrono::milliseconds grace) : grace_(grace) {}

  // The peers from now on. One already known with the same up_stamp_ms keeps its history (a new
  // address keeps it too: the same boot moved nothing); a new one, or one booted again, starts
  // at `now`. Peers not in `peers` are forgotten.
  void SetPeers(const std::vector<HeartbeatPeer>& peers, Clock::time_point now);

  // The peers without a ping in flight; each is marked as having one sent at `now`.
  std::vector<HeartbeatPeer> TakeDuePings(Clock::time_point now);

  // The ping sent at `sent` to boot `up_stamp_ms` of `id` ended at `now`: answered (`ok`) or not
  // (an error or a timeout). Ignored when the peer was forgotten or booted again since.
  void PingDone(int id, std::int64_t up_stamp_ms, Clock::time_point sent, Clock::time_point now,
                bool ok);

  struct Failing {
    HeartbeatPeer peer;
    Clock::time_point since;  // its last answer, or when it became a peer
  };
  // The failing peers (above), by id.
  std::vector<Failing> FailingPeers(Clock::time_point now) const;

  bool Healthy(Clock::time_point now, double min_ratio = kHeartbeatMinHealthyRatio) const;

  std::size_t size() const { return peers_.size(); }

 private:
  struct State {
    HeartbeatPeer peer;
    Clock::time_point since{};  // last answer, or when it became a peer
    bool in_flight = false;
    Clock::time_point sent{};              // of the ping in flight
    bool unanswered = false;               // a ping was sent after the last answer:
    Clock::time_point unanswered_since{};  // when the first of them was
  };
  bool IsFailing(const State& s, Clock::time_point now) const {
    return s.unanswered && now - s.unanswered_since > grace_;
  }

  std::chrono::milliseconds grace_;
  std::map<int, State> peers_;
};

}  // namespace ec::osd::daemon
