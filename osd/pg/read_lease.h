// Read leases: how an OSD vouches for its shard to serve a client's direct read without asking
// the PG primary (issue 28 item 3), and how the primary keeps the promise a lease makes.
//
//   client --ObjDirectRead--> osd.S (position p of PG P)        osd.S --ReadLease--> primary of P
//            <---- bytes ----  lease live? map agrees?                <-- grant: settled_below --
//                              shard's version < settled_below?
//
// The promise. The primary of P grants osd.S, which holds position p of P's acting set A, a lease
// of D ms when P is clean (peered for A, every position up, nothing to recover, no object
// unsettled: PgTable::Clean). S counts the lease from when it SENT the request (before the
// grant; LeaseHolder), the primary from when it granted (LeaseGranter), so on clocks that run at
// the same rate S's lease ends first; S also keeps only kHolderShare of D to absorb rate drift
// between machines. Until then:
//   1. Every write of P the primary acknowledges was applied on S's shard, or left position p
//      unchanged (a partial write): before it acknowledges a write that an up position did not
//      take (its OSD did not answer: object_io.h), the primary waits until every lease it granted
//      to that OSD for P has run out (AckDeadline). And the PG is no longer clean, so it grants
//      that OSD no new one.
//   2. A shard at a version below the lease's settled_below holds the bytes of a settled write
//      (acknowledged, or rolled forward or back everywhere): never rolled back later. The primary
//      gives every write its version here (Assign: above all it gave before) and keeps it "in
//      flight" until Settle; settled_below is below every write in flight, and below every write
//      that ended unsettled (failed, or acknowledged without some up position) until the PG is
//      clean again. A shard that took a write still in flight is at a version at or above
//      settled_below and is refused, so a direct read never returns what a rollback could take
//      back (Ceph's "read instability").
//      Versions of earlier primaries are below the map epoch << 32 (a version begins with its
//      primary's epoch), all settled when the PG is clean: the grant's floor (Grant).
//   So S may answer a read of its shard's bytes when its lease is live, its map still shows A
//   with S at p, and the shard's version is below settled_below: they are the bytes the last
//   settled write to change position p left there; a write in flight that has not reached S yet
//   is one the read is ordered before (it is not acknowledged).
//   3. Leases of another primary: a lease names the acting set it is for, and S drops it when its
//      map moves the PG (another interval) or when a newer primary's peering scan raised the
//      collection's fence above the lease's epoch. A new primary, which cannot know what an
//      earlier one granted, waits D after it begins to peer the PG before it acknowledges a
//      write that an up position did not take (NotePeered, part of AckDeadline); the earlier
//      primary stops granting as soon as its map shows it is no longer P's primary.
// Asking. An OSD asks a PG's primary for a lease when a direct read of the PG arrives (and renews
// it while direct reads keep coming); the read that finds no lease waits for the answer (up to
// 250 ms, direct_read.cc) and is served with the lease granted or refused without one.
// What is assumed: every OSD of the cluster grants and counts the same D (osd_read_lease_ms),
// and a map change reaches the OSDs of a PG within D of one another (they follow etcd's watch;
// an OSD that cannot renew its liveness lease serves nothing: may_serve).
//
// Thread safety: every method of both classes may be called from any thread (one mutex each).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ec::osd::pg {

using LeaseClock = std::chrono::steady_clock;

// The share of a granted duration a holder uses (the rest absorbs clock-rate differences).
inline constexpr double kHolderShare = 0.9;

// The primary's side: versions, writes in flight, leases granted.
class LeaseGranter {
 public:
  // `duration`: what a lease lasts at most (osd_read_lease_ms), also how long a new primary
  // waits for the leases of an earlier one (see the header).
  explicit LeaseGranter(std::chrono::milliseconds duration) : duration_(duration) {}

  std::chrono::milliseconds duration() const { return duration_; }

  // A new write of PG `pgid`: its version, max(candidate, every version given before + 1), now
  // in flight until Settle.
  std::uint64_t Assign(const std::string& pgid, std::uint64_t candidate);
  // The write of `version` ended. `clean`: acknowledged with every up position of the PG holding
  // it (or refused before anything was sent); otherwise (failed after sending, or acknowledged
  // without an up position) settled_below stays at or below `version` until the PG is found clean
  // by a Grant that began after this call (call Settle after the PG table shows the damage:
  // PgTable::Forget or Update first).
  void Settle(const std::string& pgid, std::uint64_t version, bool clean);
  // The PG's settled_below now (see the header).
  std::uint64_t SettledBelow(const std::string& pgid) const;

  // A grant's ticket: read before the PG table is asked whether the PG is clean.
  std::uint64_t Generation(const std::string& pgid) const;
  // Grants `osd` a lease of `asked` (capped at duration()) for `pgid` when `clean` (PgTable::Clean
  // read after `generation` was) and nothing ended unsettled since `generation`; records it until
  // now + the granted duration. Returns settled_below and the duration granted, or nullopt.
  // `floor`: a version above every version the PG's shards may hold from writes of earlier
  // primaries (the map epoch << 32: each write's version begins with its primary's epoch), all
  // settled when the PG is clean; no version given from now on is below it, so that a primary
  // that has written nothing yet still grants a useful watermark.
  struct Granted {
    std::uint64_t settled_below = 0;
    std::chrono::milliseconds duration{0};
  };
  std::optional<Granted> Grant(const std::string& pgid, int osd, std::chrono::milliseconds asked,
                               bool clean, std::uint64_t generation, std::uint64_t floor,
                               LeaseClock::time_point now);

  // This primary began to peer `pgid` at `now` (a new interval, or a restart): leases an earlier
  // primary granted may last until now + duration().
  void NotePeered(const std::string& pgid, LeaseClock::time_point now);
  // When a write of `pgid` that the OSDs `osds` did not take may be acknowledged: the end of the
  // last lease granted to any of them for the PG, and of the wait after the PG's last peering.
  LeaseClock::time_point AckDeadline(const std::string& pgid, const std::vector<int>& osds) const;

 private:
  struct Pg {
    std::multiset<std::uint64_t> inflight;
    std::uint64_t held_below = UINT64_MAX;  // a write that ended unsettled: settled_below <= it
    std::uint64_t generation = 0;           // moves at every unsettled end
    std::map<int, LeaseClock::time_point> leases;  // osd -> end of its last lease
    LeaseClock::time_point peered_at{};
  };
  std::uint64_t SettledBelowLocked(const Pg& pg) const;

  const std::chrono::milliseconds duration_;
  mutable std::mutex mu_;
  std::uint64_t last_version_ = 0;
  std::map<std::string, Pg> pgs_;
};

// The side of an OSD holding shards: the leases it holds and the PGs it wants them for.
class LeaseHolder {
 public:
  struct Lease {
    std::uint64_t epoch = 0;          // the primary's map epoch at the grant
    std::uint64_t settled_below = 0;  // see the header
    std::vector<int> acting;          // the acting set it is for
    LeaseClock::time_point until{};
  };
  // A grant for `pgid` (replaces what was held).
  void Put(const std::string& pgid, Lease lease);
  // A refusal: nothing held for `pgid` from now on.
  void Drop(const std::string& pgid);
  // The lease held for `pgid` if it is live at `now`.
  std::optional<Lease> Get(const std::string& pgid, LeaseClock::time_point now) const;

  // A direct read asked for `pgid` (pool id, PG number) at `now`: renew its lease while wanted.
  // Returns true when the PG was not wanted before (the renewer may ask at once).
  bool Want(const std::string& pgid, std::uint64_t pool, std::uint32_t pg,
            LeaseClock::time_point now);
  struct WantedPg {
    std::string pgid;
    std::uint64_t pool = 0;
    std::uint32_t pg = 0;
  };
  // The PGs wanted within `window` before `now`; forgets the others (and their leases).
  std::vector<WantedPg> Wanted(LeaseClock::time_point now, std::chrono::milliseconds window);

 private:
  mutable std::mutex mu_;
  std::map<std::string, Lease> leases_;
  struct Demand {
    std::uint64_t pool = 0;
    std::uint32_t pg = 0;
    LeaseClock::time_point last{};
  };
  std::map<std::string, Demand> wanted_;
};

}  // namespace ec::osd::pg
