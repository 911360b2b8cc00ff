// KeyServer: where an authenticating server (an OSD's messenger) finds the key and caps of the
// entity a connection claims to be. The messenger asks it once per connection, on an io thread:
// Find must answer from memory, never block.
//
// Implementations: KeyringKeyServer (below: a keyring held in memory, for tests, benchmarks and
// ec-osd-bench --self-server) and cluster/auth/auth_db_watcher.h (an OSD's: the auth database in
// etcd, followed with a watch).
//
// Thread safety: Find may be called from any thread concurrently.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/status.h"
#include "msg/auth/caps.h"
#include "msg/auth/keyring.h"

namespace ec::msg::auth {

// What a server knows of one entity.
struct PeerAuth {
  std::string entity;  // "client.app", "osd.3"
  CryptoKey key;
  // The entity's osd caps, parsed (null: it has none, so a client may touch no pool).
  std::shared_ptr<const OsdCaps> osd_caps;
};

class KeyServer {
 public:
  virtual ~KeyServer() = default;
  // The entity's key and caps; nullopt when it is unknown. Must not block.
  virtual std::optional<PeerAuth> Find(std::string_view entity) const = 0;
};

// Makes a PeerAuth from a keyring entry. Errors: the caps' parse error (EINVAL) naming the
// entity.
Result<PeerAuth> PeerAuthOf(const std::string& entity, const KeyringEntry& entry);

// A fixed set of entities. Entities "mon." are not peers and are left out.
class KeyringKeyServer : public KeyServer {
 public:
  // Errors: PeerAuthOf's for any entry.
  static Result<std::shared_ptr<KeyringKeyServer>> Create(const Keyring& keyring);
  std::optional<PeerAuth> Find(std::string_view entity) const override;

 private:
  std::unordered_map<std::string, PeerAuth> peers_;
};

}  // namespace ec::msg::auth
