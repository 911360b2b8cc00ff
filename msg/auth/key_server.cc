#include "msg/auth/key_server.h"

#include <fmt/format.h>

namespace ec::msg::auth {

Result<PeerAuth> PeerAuthOf(const std::string& entity, const KeyringEntry& entry) {
  PeerAuth p;
  p.entity = entity;
  p.key = entry.key;
  auto osd = entry.caps.find("osd");
  if (osd != entry.caps.end()) {
    auto caps = OsdCaps::Parse(osd->second);
    if (!caps.ok()) return caps.status().WithPrefix(fmt::format("{}'s caps", entity));
    p.osd_caps = std::make_shared<const OsdCaps>(std::move(*caps));
  }
  return p;
}

Result<std::shared_ptr<KeyringKeyServer>> KeyringKeyServer::Create(const Keyring& keyring) {
  auto ks = std::make_shared<KeyringKeyServer>();
  for (const auto& [entity, entry] : keyring.entries) {
    if (entity == "mon.") continue;
    auto peer = PeerAuthOf(entity, entry);
    if (!peer.ok()) return peer.status();
    ks->peers_.emplace(entity, std::move(*peer));
  }
  return ks;
}

std::optional<PeerAuth> KeyringKeyServer::Find(std::string_view entity) const {
  auto it = peers_.find(std::string(entity));
  if (it == peers_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ec::msg::auth
