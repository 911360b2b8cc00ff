// MapHolder: the newest cluster map a process knows, shared by the threads that route requests
// with it (the PG primary in ec-osd, the client library). A MapWatcher's callback (or a Load)
// Set()s each map; readers Get() an immutable snapshot and may wait for a newer epoch.
//
// Thread safety: every method may be called from any thread. Set ignores a map whose epoch is not
// above the current one, so a late or duplicated delivery never takes the map backwards.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "cluster/map/cluster_map.h"

namespace ec::cluster {

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

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  std::shared_ptr<const ClusterMap> map_ = std::make_shared<const ClusterMap>();
};

}  // namespace ec::cluster
