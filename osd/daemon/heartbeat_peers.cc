#include "osd/daemon/heartbeat_peers.h"

#include <algorithm>

namespace ec::osd::daemon {

void HeartbeatPeers::SetPeers(const std::vector<HeartbeatPeer>& peers, Clock::time_point now) {
  std::map<int, State> next;
  for (const HeartbeatPeer& p : peers) {
    const auto it = peers_.find(p.id);
    if (it != peers_.end() && it->second.peer.up_stamp_ms == p.up_stamp_ms) {
      State kept = it->second;
      kept.peer.addr = p.addr;
      next.emplace(p.id, std::move(kept));
    } else {
      State fresh;
      fresh.peer = p;
      fresh.since = now;
      next.emplace(p.id, std::move(fresh));
    }
  }
  peers_ = std::move(next);
}

std::vector<HeartbeatPeer> HeartbeatPeers::TakeDuePings(Clock::time_point now) {
  std::vector<HeartbeatPeer> due;
  for (auto& [id, s] : peers_) {
    if (s.in_flight) continue;
    s.in_flight = true;
    s.sent = now;
    if (!s.unanswered) {
      s.unanswered = true;
      s.unanswered_since = now;
    }
    due.push_back(s.peer);
  }
  return due;
}

void HeartbeatPeers::PingDone(int id, std::int64_t up_stamp_ms, Clock::time_point sent,
                              Clock::time_point now, bool ok) {
  const auto it = peers_.find(id);
  if (it == peers_.end() || it->second.peer.up_stamp_ms != up_stamp_ms) return;
  State& s = it->second;
  if (s.in_flight && s.sent == sent) s.in_flight = false;
  // An answer proves the peer alive when it answered: every ping sent before is accounted for
  // (one is in flight at a time).
  if (ok) {
    s.since = std::max(s.since, now);
    s.unanswered = false;
  }
}

std::vector<HeartbeatPeers::Failing> HeartbeatPeers::FailingPeers(Clock::time_point now) const {
  std::vector<Failing> out;
  for (const auto& [id, s] : peers_)
    if (IsFailing(s, now)) out.push_back(Failing{s.peer, s.since});
  return out;
}

bool HeartbeatPeers::Healthy(Clock::time_point now, double min_ratio) const {
  if (peers_.empty()) return true;
  std::size_t answering = 0;
  for (const auto& [id, s] : peers_) answering += IsFailing(s, now) ? 0 : 1;
  return static_cast<double>(answering) >= static_cast<double>(peers_.size()) * min_ratio;
}

}  // namespace ec::osd::daemon
