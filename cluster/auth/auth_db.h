// The auth database: every entity's key and caps (ec-admin auth ..., issue 32 item 1), kept in
// etcd under the cluster's prefix, one record per entity, each sealed with a key derived from the
// cluster's mon. key.
//
//   <prefix>auth/<entity>   {"v":1,"entity":"client.app","nonce":"<12 bytes, base64>",
//                            "sealed":"<AES-256-GCM of {"key":"AQ..","caps":{"osd":".."}}>"}
//
//   database key = HKDF-SHA256(mon. secret, info "ecstore auth db v1"), 32 bytes
//   sealed       = AES-256-GCM(database key, nonce (random per write), plaintext,
//                              aad "ecstore auth v1\n<entity>")
//
// Why this is sound for ecstore, where anyone who can reach etcd reads the whole cluster map (a
// client needs the map, and etcd's own permissions are another step of the issue): a reader of
// etcd sees entity names and nothing else, because the keys and caps are encrypted under a key
// only the holders of the mon. key can derive: the OSDs (their keyring files hold [mon.], as a
// Ceph monitor's does, since they verify everyone) and the administrator (ec-admin's keyring).
// Clients hold only their own key, in their own keyring file. A writer of etcd cannot make a
// record either: GCM authenticates it, and the entity name is its associated data, so a record
// copied under another name (client.admin's sealed key filed as client.evil) fails to open. What
// a writer of etcd can still do is delete records (deny service) or put back an older record of
// the same entity (a removed entity, or older caps) until etcd itself is locked down (issue 32
// item 3: TLS and per-role users); and `auth_cluster_required` is a file-only option, so etcd
// cannot turn authentication off.
//
// Decoding is strict: a record that is not this JSON, names another entity than its key, does
// not open (changed, or sealed under another mon. key), or holds a bad key or caps is EBADMSG
// naming the etcd key; bounded: a record at most kMaxAuthRecordBytes.
//
// Thread safety: functions over a borrowed etcd client, which is thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"
#include "msg/auth/crypto.h"
#include "msg/auth/keyring.h"

namespace ec::cluster {

inline constexpr std::size_t kMaxAuthRecordBytes = 16 * 1024;

struct AuthEntity {
  std::string entity;  // "client.app", "osd.3"
  msg::auth::CryptoKey key;
  std::map<std::string, std::string> caps;  // service -> caps text (msg/auth/caps.h)
};

// The sealing key of the database, derived from the mon. key. Errors: EIO (library).
struct AuthDbKey {
  std::array<std::byte, msg::auth::kAeadKeyLen> bytes{};
  static Result<AuthDbKey> From(const msg::auth::CryptoKey& mon_key);
};

// "<prefix>auth/" and "<prefix>auth/<entity>".
std::string AuthDir(std::string_view prefix);
std::string AuthKeyOf(std::string_view prefix, std::string_view entity);

// The record's JSON for `e` (a fresh random nonce each time). Errors: EIO.
Result<std::string> SealAuthEntity(const AuthDbKey& key, const AuthEntity& e);
// The entity of a record read at etcd key `etcd_key` (its name must be the key's last part).
// Errors: EBADMSG naming the key (see the header).
Result<AuthEntity> OpenAuthEntity(const AuthDbKey& key, std::string_view prefix,
                                  std::string_view etcd_key, std::string_view value);

struct AuthDb {
  std::int64_t revision = 0;                   // etcd's revision of the read
  std::map<std::string, AuthEntity> entities;  // by entity name
  std::vector<Status> bad;                     // records that did not open (EBADMSG each)
};

// Every record (one Range). Records that do not open are in AuthDb::bad, not an error. Errors:
// etcd's.
Result<AuthDb> LoadAuthDb(const etcd::Client& client, std::string_view prefix,
                          const AuthDbKey& key);
// One record; nullopt when absent. Errors: etcd's, EBADMSG for a record that does not open.
Result<std::optional<AuthEntity>> GetAuthEntity(const etcd::Client& client, std::string_view prefix,
                                                const AuthDbKey& key, std::string_view entity);
// Writes `e` only if its entity has no record (one txn); *created says whether it did, and the
// result is the record that is there now (e, or the existing one). Errors: etcd's, EBADMSG.
Result<AuthEntity> CreateAuthEntityIfAbsent(const etcd::Client& client, std::string_view prefix,
                                            const AuthDbKey& key, const AuthEntity& e,
                                            bool* created);
// Removes the entity's record; whether there was one. Errors: etcd's.
Result<bool> RemoveAuthEntity(const etcd::Client& client, std::string_view prefix,
                              std::string_view entity);

}  // namespace ec::cluster
