// AuthDbWatcher: an OSD's KeyServer (msg/auth/key_server.h): the auth database (auth_db.h) held in
// memory and followed in etcd, so that the messenger finds a connecting entity's key and caps
// without waiting on etcd, and sees `ec-admin auth get-or-create` / `auth rm` within a moment.
//
// Start loads every record once (the OSD does not serve before it knows the keys); then an
// etcd::PrefixFollower (prefix_follower.h) follows <prefix>auth/ from that revision + 1 and loads
// the whole database again after any change (it is small: one record per entity), swapping the
// new table in at once; a failed load is retried every `retry`, keeping the last table meanwhile.
// A record that does not open (changed by a writer of etcd, sealed under another mon. key) is
// left out, as if absent, and reported to on_error once per load.
// Entities removed keep the connections they have (as Ceph's tickets outlive `auth rm` until
// they expire); new connections are refused.
//
// Thread safety: Find from any thread (a shared lock over an immutable table); on_error runs on
// the watcher's threads, one call at a time, never after Stop() returned; it must not call
// Stop(). Stop() from any other thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "cluster/auth/auth_db.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/prefix_follower.h"
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
  // Swaps in the table of `db` (reporting the records left out); db's revision.
  std::int64_t Install(const AuthDb& db);
  // Loads the database and installs it; the revision it read at.
  Result<std::int64_t> Load();
  void ReportError(const Status& st);

  const std::string prefix_;
  const AuthDbKey key_;
  const ErrorCallback on_error_;  // from Start, then from the follower's callbacks (one at a time)
  etcd::Client client_;

  const etcd::ClientOptions client_options_;  // the follower's
  const std::chrono::milliseconds retry_;

  mutable std::shared_mutex table_mu_;
  std::shared_ptr<const Table> table_;
  // Started by Start after the first load; last: its thread uses the members above.
  std::unique_ptr<etcd::PrefixFollower> follower_;
};

}  // namespace ec::cluster
