// MapWatcher: follows the cluster map in etcd and hands each new epoch's map to a callback.
//
// It starts from a map read by MapStore::Load() (or an empty map at revision R) and watches the
// prefix from map.revision + 1 with etcd::Watch. Events are applied to its copy of the map; the
// map is delivered when the epoch key's PUT arrives. MapStore writes the epoch key as the last
// operation of each txn, and etcd numbers the events of one txn by one revision in operation
// order, so at that point every key of that revision has been applied: the callback sees whole
// epochs, in order, each exactly once (epochs strictly increasing; an epoch is skipped only after a
// compaction, below). Keys under the prefix that are not map keys (liveness) are ignored.
//
// Faults:
//   - etcd restarted / unreachable: etcd::Watch reconnects and resumes from the next revision,
//     so nothing is missed; retryable errors go to on_error (may be ignored).
//   - compaction (ERANGE) or a cancelled watch: the watcher reloads with Load() and starts a new
//     watch from that revision + 1; the loaded map is delivered if its epoch is newer (epochs
//     between are not seen: their keys are gone). on_error gets the ERANGE first.
//   - a value that does not decode (EBADMSG naming the key): reported to on_error; the watcher's
//     copy is then not trusted: at the next epoch it reloads with Load() (retrying at each later
//     epoch while that fails) and delivers only a map that loaded. The Load reads the newest
//     revision, so epochs written meanwhile may be skipped in this case.
//
// Threading: on_map and on_error run on the watcher's own threads, one call at a time (a
// mutex), never after Stop() or the destructor returned; they must not call Stop() or destroy the
// watcher. last_epoch() may be called from any thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_watch.h"
#include "cluster/map/cluster_map.h"
#include "cluster/map/map_store.h"
#include "common/status.h"

namespace ec::cluster {

class MapWatcher {
 public:
  using MapCallback = std::function<void(const ClusterMap&)>;
  using ErrorCallback = std::function<void(const Status&)>;

  // Follows the map from `initial` (its revision must be > 0: a Load()'s result). on_map is not
  // called for `initial` itself.
  MapWatcher(etcd::ClientOptions client, std::string prefix, ClusterMap initial, MapCallback on_map,
             ErrorCallback on_error);
  ~MapWatcher();  // Stop()
  MapWatcher(const MapWatcher&) = delete;
  MapWatcher& operator=(const MapWatcher&) = delete;

  // Ends the watch and joins the threads. Idempotent.
  void Stop();

  // The epoch of the last map delivered (or of `initial`).
  std::int64_t last_epoch() const { return last_epoch_.load(); }

 private:
  void StartWatch(std::int64_t from_revision);  // under mu_
  void OnEvent(const etcd::Event& ev);
  void OnError(const Status& st);
  void Supervise();
  // Delivers map_ if its epoch is newer than the last delivered. Under cb_mu_.
  void Deliver();

  const etcd::ClientOptions client_options_;
  const std::string prefix_;
  const MapCallback on_map_;
  const ErrorCallback on_error_;
  etcd::Client client_;
  MapStore store_;

  std::mutex cb_mu_;  // serialises callbacks and guards map_, loaded_revision_, stale_
  ClusterMap map_;
  std::int64_t loaded_revision_;  // events at or below it are already in map_
  bool stale_ = false;
  std::atomic<std::int64_t> last_epoch_;

  std::mutex mu_;  // guards watch_, restart_, stop_
  std::condition_variable cv_;
  std::unique_ptr<etcd::Watch> watch_;
  bool restart_ = false;
  bool stop_ = false;
  std::thread supervisor_;
};

}  // namespace ec::cluster
