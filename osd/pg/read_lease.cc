#include "osd/pg/read_lease.h"

#include <algorithm>

namespace ec::osd::pg {

std::uint64_t LeaseGranter::Assign(const std::string& pgid, std::uint64_t candidate) {
  std::lock_guard lock(mu_);
  // One sequence for every PG: a version is above every version this primary gave before, so a
  // settled_below computed now is below every version given later.
  const std::uint64_t version = std::max(candidate, last_version_ + 1);
  last_version_ = version;
  pgs_[pgid].inflight.insert(version);
  return version;
}

void LeaseGranter::Settle(const std::string& pgid, std::uint64_t version, bool clean) {
  std::lock_guard lock(mu_);
  Pg& pg = pgs_[pgid];
  auto it = pg.inflight.find(version);
  if (it != pg.inflight.end()) pg.inflight.erase(it);
  if (!clean) {
    pg.held_below = std::min(pg.held_below, version);
    ++pg.generation;
  }
}

std::uint64_t LeaseGranter::SettledBelowLocked(const Pg& pg) const {
  std::uint64_t below = last_version_ + 1;
  if (!pg.inflight.empty()) below = std::min(below, *pg.inflight.begin());
  return std::min(below, pg.held_below);
}

std::uint64_t LeaseGranter::SettledBelow(const std::string& pgid) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end()) return last_version_ + 1;
  return SettledBelowLocked(it->second);
}

std::uint64_t LeaseGranter::Generation(const std::string& pgid) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  return it == pgs_.end() ? 0 : it->second.generation;
}

std::optional<LeaseGranter::Granted> LeaseGranter::Grant(const std::string& pgid, int osd,
                                                         std::chrono::milliseconds asked,
                                                         bool clean, std::uint64_t generation,
                                                         std::uint64_t floor,
                                                         LeaseClock::time_point now) {
  std::lock_guard lock(mu_);
  Pg& pg = pgs_[pgid];
  if (!clean || pg.generation != generation) return std::nullopt;
  last_version_ = std::max(last_version_, floor);
  // Clean, and nothing ended unsettled since the table said so: every write that did is settled
  // now (resolved, its positions recovered), so the watermark may pass it.
  pg.held_below = UINT64_MAX;
  const auto d = std::min(asked, duration_);
  if (d <= std::chrono::milliseconds(0)) return std::nullopt;
  auto& end = pg.leases[osd];
  end = std::max(end, now + d);
  return Granted{SettledBelowLocked(pg), d};
}

void LeaseGranter::NotePeered(const std::string& pgid, LeaseClock::time_point now) {
  std::lock_guard lock(mu_);
  Pg& pg = pgs_[pgid];
  pg.peered_at = std::max(pg.peered_at, now);
}

LeaseClock::time_point LeaseGranter::AckDeadline(const std::string& pgid,
                                                 const std::vector<int>& osds) const {
  std::lock_guard lock(mu_);
  auto it = pgs_.find(pgid);
  if (it == pgs_.end()) return LeaseClock::time_point{};
  const Pg& pg = it->second;
  // A primary that never peered the PG (no NotePeered) waits for none of an earlier one's.
  LeaseClock::time_point deadline =
      pg.peered_at == LeaseClock::time_point{} ? pg.peered_at : pg.peered_at + duration_;
  for (int osd : osds) {
    auto l = pg.leases.find(osd);
    if (l != pg.leases.end()) deadline = std::max(deadline, l->second);
  }
  return deadline;
}

void LeaseHolder::Put(const std::string& pgid, Lease lease) {
  std::lock_guard lock(mu_);
  leases_[pgid] = std::move(lease);
}

void LeaseHolder::Drop(const std::string& pgid) {
  std::lock_guard lock(mu_);
  leases_.erase(pgid);
}

std::optional<LeaseHolder::Lease> LeaseHolder::Get(const std::string& pgid,
                                                   LeaseClock::time_point now) const {
  std::lock_guard lock(mu_);
  auto it = leases_.find(pgid);
  if (it == leases_.end() || it->second.until <= now) return std::nullopt;
  return it->second;
}

bool LeaseHolder::Want(const std::string& pgid, std::uint64_t pool, std::uint32_t pg,
                       LeaseClock::time_point now) {
  std::lock_guard lock(mu_);
  auto [it, added] = wanted_.try_emplace(pgid, Demand{pool, pg, now});
  it->second.last = now;
  return added;
}

std::vector<LeaseHolder::WantedPg> LeaseHolder::Wanted(LeaseClock::time_point now,
                                                       std::chrono::milliseconds window) {
  std::vector<WantedPg> out;
  std::lock_guard lock(mu_);
  for (auto it = wanted_.begin(); it != wanted_.end();) {
    if (now - it->second.last > window) {
      leases_.erase(it->first);
      it = wanted_.erase(it);
      continue;
    }
    out.push_back(WantedPg{it->first, it->second.pool, it->second.pg});
    ++it;
  }
  return out;
}

}  // namespace ec::osd::pg
