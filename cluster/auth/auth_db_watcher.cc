#include "cluster/auth/auth_db_watcher.h"

#include <utility>

namespace ec::cluster {

Result<std::shared_ptr<AuthDbWatcher>> AuthDbWatcher::Start(etcd::ClientOptions client,
                                                            std::string prefix,
                                                            const msg::auth::CryptoKey& mon_key,
                                                            ErrorCallback on_error,
                                                            std::chrono::milliseconds retry) {
  auto key = AuthDbKey::From(mon_key);
  if (!key.ok()) return key.status();
  auto w = std::make_shared<AuthDbWatcher>(std::move(client), std::move(prefix), *key,
                                           std::move(on_error), retry);
  // The first table is read here (an error is Start's); the follower watches from its revision.
  auto first = LoadAuthDb(w->client_, w->prefix_, w->key_);
  if (!first.ok()) return first.status().WithPrefix("loading the auth database");
  const std::int64_t revision = w->Install(*first);
  etcd::PrefixFollower::Options follow;
  follow.prefix = AuthDir(w->prefix_);
  follow.retry = w->retry_;
  follow.loaded_revision = revision;
  follow.thread_name = "auth-watch";
  AuthDbWatcher* raw = w.get();
  w->follower_ = std::make_unique<etcd::PrefixFollower>(
      w->client_options_, std::move(follow), [raw] { return raw->Load(); },
      [raw](const Status& st) { raw->ReportError(st); });
  return w;
}

AuthDbWatcher::AuthDbWatcher(etcd::ClientOptions client, std::string prefix, AuthDbKey key,
                             ErrorCallback on_error, std::chrono::milliseconds retry)
    : prefix_(std::move(prefix)),
      key_(key),
      on_error_(std::move(on_error)),
      client_(client),
      client_options_(std::move(client)),
      retry_(retry),
      table_(std::make_shared<Table>()) {}

AuthDbWatcher::~AuthDbWatcher() {
  Stop();
}

void AuthDbWatcher::Stop() {
  if (follower_) follower_->Stop();
}

std::optional<msg::auth::PeerAuth> AuthDbWatcher::Find(std::string_view entity) const {
  std::shared_ptr<const Table> table;
  {
    std::shared_lock lock(table_mu_);
    table = table_;
  }
  auto it = table->find(std::string(entity));
  if (it == table->end()) return std::nullopt;
  return it->second;
}

std::size_t AuthDbWatcher::size() const {
  std::shared_lock lock(table_mu_);
  return table_->size();
}

void AuthDbWatcher::ReportError(const Status& st) {
  if (on_error_) on_error_(st);
}

std::int64_t AuthDbWatcher::Install(const AuthDb& db) {
  auto table = std::make_shared<Table>();
  for (const auto& [name, e] : db.entities) {
    auto peer = msg::auth::PeerAuthOf(name, msg::auth::KeyringEntry{e.key, e.caps});
    if (peer.ok()) {
      table->emplace(name, std::move(*peer));
    } else {
      ReportError(peer.status());
    }
  }
  for (const Status& bad : db.bad) ReportError(bad);
  {
    std::unique_lock lock(table_mu_);
    table_ = std::move(table);
  }
  return db.revision;
}

Result<std::int64_t> AuthDbWatcher::Load() {
  auto db = LoadAuthDb(client_, prefix_, key_);
  if (!db.ok()) return db.status().WithPrefix("loading the auth database");
  return Install(*db);
}

}  // namespace ec::cluster
