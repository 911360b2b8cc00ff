#include "cluster/auth/auth_db.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "msg/auth/caps.h"

namespace ec::cluster {

namespace {

using nlohmann::json;
namespace auth = msg::auth;

constexpr std::string_view kDbKeyInfo = "ecstore auth db v1";
constexpr std::string_view kAadPrefix = "ecstore auth v1\n";

std::string AuthAad(std::string_view entity) {
  return std::string(kAadPrefix) + std::string(entity);
}

Status BadAuthRecord(std::string_view etcd_key, std::string_view why) {
  return Status::Error(EBADMSG, fmt::format("auth record {}: {}", etcd_key, why));
}

// The plaintext of a record: {"key":..,"caps":{..}}, every field checked.
Result<AuthEntity> DecodeAuthPlain(std::string_view etcd_key, std::string_view entity,
                                   std::string_view text) {
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.size() != 2 || !j.contains("key") || !j.contains("caps") ||
      !j["key"].is_string() || !j["caps"].is_object()) {
    return BadAuthRecord(etcd_key, "its content is not {\"key\",\"caps\"}");
  }
  AuthEntity e;
  e.entity = std::string(entity);
  auto key = auth::CryptoKey::FromBase64(j["key"].get<std::string>());
  if (!key.ok()) return BadAuthRecord(etcd_key, key.status().message());
  e.key = *key;
  for (const auto& [service, caps] : j["caps"].items()) {
    if (!caps.is_string()) return BadAuthRecord(etcd_key, "caps are not strings");
    const std::string text_caps = caps.get<std::string>();
    if (Status ok = auth::ValidateCaps(service, text_caps); !ok.ok()) {
      return BadAuthRecord(etcd_key, ok.message());
    }
    e.caps[service] = text_caps;
  }
  return e;
}

}  // namespace

Result<AuthDbKey> AuthDbKey::From(const auth::CryptoKey& mon_key) {
  AuthDbKey k;
  EC_RETURN_IF_ERROR(auth::Hkdf(mon_key.secret, {}, kDbKeyInfo, k.bytes));
  return k;
}

std::string AuthDir(std::string_view prefix) {
  return std::string(prefix) + "auth/";
}

std::string AuthKeyOf(std::string_view prefix, std::string_view entity) {
  return AuthDir(prefix) + std::string(entity);
}

Result<std::string> SealAuthEntity(const AuthDbKey& key, const AuthEntity& e) {
  json caps = json::object();
  for (const auto& [service, text] : e.caps) caps[service] = text;
  const std::string plain = json{{"key", e.key.ToBase64()}, {"caps", caps}}.dump();
  std::array<std::byte, auth::kAeadNonceLen> nonce;
  EC_RETURN_IF_ERROR(auth::RandomBytes(nonce));
  const std::string aad = AuthAad(e.entity);
  auto sealed = auth::Seal(key.bytes, nonce, auth::AsBytes(aad), auth::AsBytes(plain));
  if (!sealed.ok()) return sealed.status();
  return json{{"v", 1},
              {"entity", e.entity},
              {"nonce", auth::Base64Encode(nonce)},
              {"sealed", auth::Base64Encode(*sealed)}}
      .dump();
}

Result<AuthEntity> OpenAuthEntity(const AuthDbKey& key, std::string_view prefix,
                                  std::string_view etcd_key, std::string_view value) {
  const std::string dir = AuthDir(prefix);
  if (etcd_key.substr(0, dir.size()) != dir) return BadAuthRecord(etcd_key, "not under auth/");
  const std::string_view name = etcd_key.substr(dir.size());
  if (Status named = auth::EntityName::Parse(name).status(); !named.ok()) {
    return BadAuthRecord(etcd_key, named.message());
  }
  if (value.size() > kMaxAuthRecordBytes) {
    return BadAuthRecord(etcd_key,
                         fmt::format("{} bytes, more than {}", value.size(), kMaxAuthRecordBytes));
  }
  const json j = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.size() != 4 || !j.contains("v") || !j["v"].is_number_integer() ||
      j["v"].get<std::int64_t>() != 1 || !j.contains("entity") || !j["entity"].is_string() ||
      !j.contains("nonce") || !j["nonce"].is_string() || !j.contains("sealed") ||
      !j["sealed"].is_string()) {
    return BadAuthRecord(etcd_key, "not {\"v\":1,\"entity\",\"nonce\",\"sealed\"}");
  }
  if (j["entity"].get<std::string>() != name) {
    return BadAuthRecord(etcd_key,
                         fmt::format("names entity '{}'", j["entity"].get<std::string>()));
  }
  auto nonce = auth::Base64Decode(j["nonce"].get<std::string>(), auth::kAeadNonceLen);
  if (!nonce.ok() || nonce->size() != auth::kAeadNonceLen) {
    return BadAuthRecord(etcd_key, "bad nonce");
  }
  auto sealed = auth::Base64Decode(j["sealed"].get<std::string>(), kMaxAuthRecordBytes);
  if (!sealed.ok()) return BadAuthRecord(etcd_key, "sealed: " + sealed.status().message());
  const std::string aad = AuthAad(name);
  auto plain = auth::Open(key.bytes, *nonce, auth::AsBytes(aad), *sealed);
  if (!plain.ok()) {
    return BadAuthRecord(etcd_key, fmt::format("does not open with this cluster's mon. key: {}",
                                               plain.status().message()));
  }
  return DecodeAuthPlain(
      etcd_key, name,
      std::string_view(reinterpret_cast<const char*>(plain->data()), plain->size()));
}

Result<AuthDb> LoadAuthDb(const etcd::Client& client, std::string_view prefix,
                          const AuthDbKey& key) {
  etcd::RangeRequest range;
  range.key = AuthDir(prefix);
  range.range_end = etcd::PrefixEnd(range.key);
  auto got = client.Range(range);
  if (!got.ok()) return got.status();
  AuthDb db;
  db.revision = got->revision;
  for (const etcd::KeyValue& kv : got->kvs) {
    auto e = OpenAuthEntity(key, prefix, kv.key, kv.value);
    if (!e.ok()) {
      db.bad.push_back(e.status());
      continue;
    }
    db.entities.emplace(e->entity, std::move(*e));
  }
  return db;
}

Result<std::optional<AuthEntity>> GetAuthEntity(const etcd::Client& client, std::string_view prefix,
                                                const AuthDbKey& key, std::string_view entity) {
  const std::string k = AuthKeyOf(prefix, entity);
  auto got = client.Get(k);
  if (!got.ok()) {
    if (got.status().code() == ENOENT) return std::optional<AuthEntity>();
    return got.status();
  }
  auto e = OpenAuthEntity(key, prefix, k, got->value);
  if (!e.ok()) return e.status();
  return std::optional<AuthEntity>(std::move(*e));
}

Result<AuthEntity> CreateAuthEntityIfAbsent(const etcd::Client& client, std::string_view prefix,
                                            const AuthDbKey& key, const AuthEntity& e,
                                            bool* created) {
  auto value = SealAuthEntity(key, e);
  if (!value.ok()) return value.status();
  const std::string k = AuthKeyOf(prefix, e.entity);
  etcd::TxnRequest txn;
  txn.compare.push_back(etcd::Compare::Number(k, etcd::Compare::Target::kCreate, 0));
  txn.success.push_back(etcd::TxnOp::Put(k, *value));
  txn.failure.push_back(etcd::TxnOp::Range(k));
  auto reply = client.Txn(txn);
  if (!reply.ok()) return reply.status();
  *created = reply->succeeded;
  if (reply->succeeded) return e;
  if (reply->responses.empty() || reply->responses[0].range.kvs.empty()) {
    return Status::Retryable(EAGAIN, fmt::format("{} changed while it was created", k));
  }
  return OpenAuthEntity(key, prefix, k, reply->responses[0].range.kvs[0].value);
}

Result<bool> RemoveAuthEntity(const etcd::Client& client, std::string_view prefix,
                              std::string_view entity) {
  etcd::DeleteRequest del;
  del.key = AuthKeyOf(prefix, entity);
  auto r = client.DeleteRange(del);
  if (!r.ok()) return r.status();
  return r->deleted > 0;
}

}  // namespace ec::cluster
