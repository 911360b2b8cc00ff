// MapHolder: the newest cluster map a process knows, shared by the threads that route requests
// with it (the PG primary in ec-osd, the client library). A MapWatcher's callback (or a Load)
// Set()s each map; readers Get() an immutable snapshot and may wait for a newer epoch. The last
// kMapHistory maps stay reachable (Recent): the PG primary shows its PG table the maps it did not
// route with (two epochs that came together), since a PG keeps its table across an interval
// change only when the table saw every epoch (osd/pg/pg_table.h, catching up).
//
// Thread safety: every method may be called from any thread. Set ignores a map whose epoch is not
// above the current one, so a late or duplicated delivery never takes the map backwards.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "cluster/map/cluster_map.h"

namespace ec::cluster {

inline constexpr std::size_t kMapHistory = 16;

class MapHolder {
 public:
  // Returns true when `map` became the current map.
  bool Set(ClusterMap map);
  // The current map (an empty map at epoch 0 before the first Set). Never null.
  std::shared_ptr<const ClusterMap> Get() const;
  std::int64_t epoch() const;
  // Waits until the epoch is at least `epoch` or `timeout` passed; returns the map then current.
  std::shared_ptr<const ClusterMap> WaitForEpoch(std::int64_t epoch,
                                                 std::chrono::milliseconds timeout) const;
  // The maps Set, oldest first, at most kMapHistory; the current map last (empty before the
  // first Set). Epochs the process never received are not there.
  std::vector<std::shared_ptr<const ClusterMap>> Recent() const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::shared_ptr<const ClusterMap> map_ = std::make_shared<const ClusterMap>();
  std::deque<std::shared_ptr<const ClusterMap>> recent_;  // map_ last
};

}  // namespace ec::cluster
