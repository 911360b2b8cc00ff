#include "osd/daemon/osd_auth.h"

#include <fmt/format.h>

#include "osd/daemon/cluster_membership.h"

namespace ec::osd::daemon {

Result<OsdAuth> SetUpOsdAuth(const OsdConfig& c, const std::shared_ptr<spdlog::logger>& log) {
  OsdAuth out;
  const std::string self = fmt::format("osd.{}", c.osd_id);
  out.client.entity = self;
  auto mode = msg::auth::ParseAuthMode(c.auth_cluster_required);
  if (!mode.ok()) return mode.status();
  out.mode = out.client.mode = *mode;
  if (out.mode == msg::auth::AuthMode::kNone) return out;
  const auto prefix = [](const Status& s) { return s.WithPrefix("auth_cluster_required = cephx"); };
  auto ring = msg::auth::Keyring::Load(c.keyring);
  if (!ring.ok()) return prefix(ring.status());
  const msg::auth::KeyringEntry* own = ring->Find(self);
  if (own == nullptr) {
    return prefix(Status::Error(EACCES, fmt::format("no [{}] key in {}", self, c.keyring)));
  }
  out.client.key = own->key;
  if (c.etcd_endpoints.empty()) {
    auto keys = msg::auth::KeyringKeyServer::Create(*ring);
    if (!keys.ok()) return prefix(keys.status());
    out.keys = std::move(*keys);
    return out;
  }
  const msg::auth::KeyringEntry* mon = ring->Find("mon.");
  if (mon == nullptr) {
    return prefix(Status::Error(
        EACCES, fmt::format("no [mon.] key in {}: an OSD checks its peers against the auth "
                            "database, which is sealed with it",
                            c.keyring)));
  }
  auto etcd = EtcdOptionsFor(c);
  if (!etcd.ok()) return etcd.status();
  auto db = cluster::AuthDbWatcher::Start(*etcd, c.etcd_prefix, mon->key, [log](const Status& s) {
    log->warn("auth database: {}", s.message());
  });
  if (!db.ok()) return prefix(db.status());
  // Its peers would refuse it: say so now rather than at its first sub-operation.
  const std::optional<msg::auth::PeerAuth> me = (*db)->Find(self);
  if (!me) {
    return prefix(Status::Error(
        EACCES, fmt::format("{} has no key in the auth database (ec-admin auth get-or-create {})",
                            self, self)));
  }
  if (!me->key.SameSecret(own->key)) {
    return prefix(
        Status::Error(EACCES, fmt::format("the [{}] key in {} is not {}'s key in the auth database",
                                          self, c.keyring, self)));
  }
  log->info("auth: cephx as {}, {} entities in the auth database", self, (*db)->size());
  out.database = *db;
  out.keys = *db;
  return out;
}

}  // namespace ec::osd::daemon
