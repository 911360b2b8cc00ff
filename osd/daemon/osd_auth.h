// The daemon's authentication (issue 32): with auth_cluster_required = cephx, the key this OSD
// proves to the OSDs it calls (its keyring's [osd.N]) and the KeyServer its messenger checks every
// peer with: the auth database in etcd, followed and opened with the keyring's [mon.] key
// (cluster/auth/auth_db_watcher.h), or for an OSD outside any cluster (no etcd_endpoints) the
// keyring file itself. With none: nothing (the Hello's entity is a mere claim).
//
// Errors (the daemon does not start): the keyring's (ENOENT "cannot read keyring FILE: ...",
// EINVAL for a malformed file), EACCES "no [osd.N] key in FILE" / "no [mon.] key in FILE", EACCES
// when the auth database has no osd.N or another key for it (its peers would refuse it), the auth
// database's first load (etcd unreachable).
//
// Thread safety: made once at start; the KeyServer is thread-safe.
#pragma once

#include <spdlog/logger.h>
#include <memory>

#include "cluster/auth/auth_db_watcher.h"
#include "common/config.h"
#include "common/status.h"
#include "msg/auth/key_server.h"
#include "msg/client.h"
#include "msg/server.h"

namespace ec::osd::daemon {

struct OsdAuth {
  msg::auth::AuthMode mode = msg::auth::AuthMode::kNone;
  msg::ClientAuth client;                            // for the primary's and pulls' connections
  std::shared_ptr<const msg::auth::KeyServer> keys;  // for the messenger (null with none)
  std::shared_ptr<cluster::AuthDbWatcher> database;  // when the keys come from etcd
};

Result<OsdAuth> SetUpOsdAuth(const OsdConfig& c, const std::shared_ptr<spdlog::logger>& log);

}  // namespace ec::osd::daemon
