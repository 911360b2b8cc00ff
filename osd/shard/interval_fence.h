// IntervalFence: the shard side of fencing PG sub-operations by interval (Ceph drops sub-ops sent
// before the PG's current interval began; here the interval is named by the map epoch its
// primary peered at).
//
// Why: a primary stopped (SIGSTOP, a long stall) past the heartbeat grace is marked down and a new
// primary peers the PG: it scans every shard (SubScan) and settles every object from what the
// scans show. An operation the old primary had in flight goes on when it resumes; a SubWrite that
// lands after the new primary's scan of that shard is an object version the new primary never
// settled (an object it took as absent, later "created" behind its back). So each SubScan carries
// the peering primary's epoch and raises this collection's fence to it; from then on, this OSD
// refuses SubWrite, SubResolve and SubPull of the collection sent at an older epoch.
//
// Ordering: Raise() returns only once every admitted operation of an older epoch on that
// collection has finished, so a scan page that follows it sees each of them applied or not at all,
// never one half-way: what a primary's scan reports is final for the intervals before its own.
//
// The fence lives in memory: an OSD that restarts forgets it (a resumed old primary is held back
// by its own lease check too, ClusterMembership::MayServe).
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"

namespace ec::osd::shard {

class IntervalFence {
 public:
  // Holds one admitted operation: while it lives, Raise() to a newer epoch on its collection
  // waits. Movable; releasing an empty guard does nothing.
  class Guard {
   public:
    Guard() = default;
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&& other) noexcept;
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard();

   private:
    friend class IntervalFence;
    struct Entry;
    Guard(Entry* entry, std::uint64_t epoch) : entry_(entry), epoch_(epoch) {}
    void Release();
    Entry* entry_ = nullptr;
    std::uint64_t epoch_ = 0;
  };

  IntervalFence();
  ~IntervalFence();
  IntervalFence(const IntervalFence&) = delete;
  IntervalFence& operator=(const IntervalFence&) = delete;

  // Raises `collection`'s fence to `epoch` (no change when it is already there or above), then
  // waits until no operation admitted at an older epoch is still running on it.
  void Raise(const std::string& collection, std::uint64_t epoch);

  // Admits an operation sent at `epoch` on `collection`: a guard to hold while it runs, or
  // Retryable ESTALE "... was peered at epoch F by a newer primary; this <what> is from epoch E"
  // when epoch < the fence. `what` names the operation in that message.
  Result<Guard> Admit(const std::string& collection, std::uint64_t epoch, const char* what);

  // The collection's fence (0: never raised).
  std::uint64_t FenceOf(const std::string& collection) const;

 private:
  using Entry = Guard::Entry;
  Entry& EntryOf(const std::string& collection);

  mutable std::mutex mu_;  // guards entries_ (the map itself; each entry has its own lock)
  std::map<std::string, std::unique_ptr<Entry>> entries_;
};

}  // namespace ec::osd::shard
