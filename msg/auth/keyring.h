// Keys, entity names and keyring files, in Ceph's formats (cephx), so that anyone who knows Ceph
// reads them at a glance:
//
//   [client.admin]
//           key = AQBm0UxmAAAAABAAm7OzTnNe0NGkuo9yXTHBUw==
//           caps mon = "allow *"
//           caps osd = "allow *"
//
// A key (CryptoKey) is Ceph's CryptoKey encoding in base64: u16 type (1, AES, the only type
// Ceph makes), u32 seconds and u32 nanoseconds of its creation, u16 length (16), then the 16
// random secret bytes (RandomBytes: libcrypto's CSPRNG), all little-endian: 28 bytes, 40 base64
// characters starting "AQ". ecstore uses the secret as the HMAC-SHA256 key of the handshake
// (handshake.h); Ceph uses it as an AES key. Either reads the other's keyrings.
//
// Entity names (EntityName): "client.ID" (ID: 1..64 of [A-Za-z0-9_.-]), "osd.N" (N a decimal
// id without leading zeros, below 2^31) and "mon." (the cluster's own key, Ceph's monitor key:
// it seals the auth database in etcd; cluster/auth/auth_db.h). Anything else is EINVAL "bad
// entity name" (Ceph's words).
//
// A keyring file: sections "[ENTITY]", each with exactly one "key = KEY" and any "caps SERVICE =
// TEXT" lines (TEXT in double quotes, as Ceph writes it, or bare); blank lines and lines starting
// with '#' or ';' are ignored; leading whitespace is free. Parse checks everything: a bad entity
// name, a key that does not decode, an unknown line, a section twice, a section without a key or
// caps before any section are EINVAL naming the origin and line; at most kMaxKeyringBytes bytes
// (EFBIG) and kMaxKeyringEntities sections. Caps are kept as text here; caps.h parses them.
//
// Thread safety: plain values and reentrant functions.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace ec::msg::auth {

inline constexpr std::size_t kSecretLen = 16;
inline constexpr std::size_t kMaxKeyringBytes = 64 * 1024;
inline constexpr std::size_t kMaxKeyringEntities = 1024;
inline constexpr std::size_t kMaxEntityIdLen = 64;
inline constexpr std::size_t kMaxCapsTextLen = 4096;

struct CryptoKey {
  std::array<std::byte, kSecretLen> secret{};
  std::uint32_t created_sec = 0;
  std::uint32_t created_nsec = 0;

  // A new random key stamped with the wall clock. Errors: EIO (the CSPRNG).
  static Result<CryptoKey> Generate();
  // Ceph's base64 form. Errors: EINVAL "bad key: ..." (not base64, not 28 bytes, type other than
  // 1, length other than 16).
  static Result<CryptoKey> FromBase64(std::string_view text);
  std::string ToBase64() const;
  // Two keys are the same key when their secrets are (the stamp is informative).
  bool SameSecret(const CryptoKey& other) const;
};

enum class EntityType { kClient, kOsd, kMon };

struct EntityName {
  EntityType type = EntityType::kClient;
  std::string id;  // "admin", "3", "" (mon.)

  // Errors: EINVAL "bad entity name" (with the text).
  static Result<EntityName> Parse(std::string_view text);
  std::string ToString() const;  // "client.admin", "osd.3", "mon."
  bool is_osd() const { return type == EntityType::kOsd; }
};

// Whether `text` names an OSD entity ("osd.N"): what the messenger asks of a sub-operation's peer.
bool IsOsdEntity(std::string_view text);

struct KeyringEntry {
  CryptoKey key;
  std::map<std::string, std::string> caps;  // service ("mon", "osd") -> its caps text
};

struct Keyring {
  std::map<std::string, KeyringEntry> entries;  // by entity name

  // Errors: see the header; `origin` names the text in messages ("/etc/ecstore/x.keyring").
  static Result<Keyring> Parse(std::string_view text, std::string_view origin);
  // Reads and parses the file. Errors: ENOENT/EACCES/... "cannot read keyring FILE: <why>", EFBIG,
  // Parse's.
  static Result<Keyring> Load(const std::string& path);
  // The entry of `entity`; nullptr when absent.
  const KeyringEntry* Find(std::string_view entity) const;
  // Every entry in Ceph's layout, in entity-name order.
  std::string Render() const;
  // Writes Render() to `path` with mode 0600 (a temporary file renamed over it: a reader sees the
  // old or the new file). Errors: the system's, naming the path.
  Status Save(const std::string& path) const;
};

// One section in Ceph's layout: "[ENTITY]\n\tkey = KEY\n" and, with `with_caps`, a
// "\tcaps SERVICE = \"TEXT\"\n" line per service in name order.
std::string RenderKeyringEntry(const std::string& entity, const KeyringEntry& entry,
                               bool with_caps);

}  // namespace ec::msg::auth
