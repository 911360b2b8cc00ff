// AuthDbWatcher: an OSD's KeyServer (msg/auth/key_server.h): the auth database (auth_db.h) held in
// memory and followed in etcd, so that the messenger finds a connecting entity's key and caps
// without waiting on etcd, and sees `ec-admin auth get-or-create` / `auth rm` within a moment.
//
// Start loads every record once (the OSD does not serve before it knows the keys); then a thread
// watches <prefix>auth/ from that revision + 1 and loads the whole database again after any event
// (it is small: one record per entity), swapping the new table in at once; when the watch ends
// (compaction, cancel) or a load fails it loads again (every `retry` until etcd answers), keeping
// the last table meanwhile. A record that does not open (changed by a writer of etcd, sealed
// under another mon. key) is left out, as if absent, and reported to on_error once per load.
// Entities removed keep the connections they have (as Ceph's tickets outlive `auth rm` until
// they expire); new connections are refused.
//
// Thread safety: Find from any thread (a shared lock over an immutable table); on_error runs on
// the watcher's threads, one call at a time, never after Stop() returned; it must not call
// Stop(). Stop() from any other thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>

#include "cluster/auth/auth_db.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_watch.h"
#include "common/status.h"
#include "msg/auth/key_server.h"

namespace ec::cluster {

class AuthDbWatcher : public msg::auth::KeyServer {
 public:
  using ErrorCallback = std::function<void(const Status&)>;

  // Loads the database and starts following it. Errors: the first load's (etcd's), EIO (key
  // derivation).
  static Result<std::shared_ptr<AuthDbWatcher>> Start(
      etcd::ClientOptions client, std::string prefix, const msg::auth::CryptoKey& mon_key,
      ErrorCallback on_error, std::chrono::milliseconds retry = std::chrono::milliseconds(1000));
  ~AuthDbWatcher() override;  // Stop()

  std::optional<msg::auth::PeerAuth> Find(std::string_view entity) const override;
  // Entities known now.
  std::size_t size() const;
  // Ends the watch and joins the threads. Idempotent.
  void Stop();

  AuthDbWatcher(etcd::ClientOptions client, std::string prefix, AuthDbKey key,
                ErrorCallback on_error, std::chrono::milliseconds retry);  // use Start

 private:
  using Table = std::unordered_map<std::string, msg::auth::PeerAuth>;
  bool Load();
  void Run();
  void ReportError(const Status& st);

  const etcd::ClientOptions client_options_;
  const std::string prefix_;
  const AuthDbKey key_;
  const ErrorCallback on_error_;
  const std::chrono::milliseconds retry_;
  etcd::Client client_;

  mutable std::shared_mutex table_mu_;
  std::shared_ptr<const Table> table_;
  std::atomic<std::int64_t> loaded_revision_{0};

  std::mutex cb_mu_;
  std::mutex mu_;  // guards the flags and watch_
  std::condition_variable cv_;
  bool stop_ = false;
  bool dirty_ = false;
  bool restart_ = false;
  std::unique_ptr<etcd::Watch> watch_;
  std::thread thread_;
};

}  // namespace ec::cluster
