#include "msg/authorize.h"

#include <fmt/format.h>

#include "msg/auth/keyring.h"

namespace ec::msg {

namespace {

// The pool and the permission an object operation needs; nullopt for the others.
struct PoolNeed {
  std::uint64_t pool = 0;
  std::uint8_t perms = 0;
};

std::optional<PoolNeed> PoolNeedOf(const RequestBody& body) {
  return std::visit(
      [](const auto& m) -> std::optional<PoolNeed> {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, ObjReadRequest> || std::is_same_v<T, ObjStatRequest> ||
                      std::is_same_v<T, ObjListRequest> || std::is_same_v<T, ObjGetXattrsRequest> ||
                      std::is_same_v<T, ObjDirectReadRequest>) {
          return PoolNeed{m.pool, auth::kCapRead};
        } else if constexpr (std::is_same_v<T, ObjWriteRequest> ||
                             std::is_same_v<T, ObjRemoveRequest> ||
                             std::is_same_v<T, ObjSetXattrsRequest>) {
          return PoolNeed{m.pool, auth::kCapWrite};
        } else {
          return std::nullopt;
        }
      },
      body);
}

std::string_view PermWord(std::uint8_t perms) {
  return perms == auth::kCapRead ? "read" : "write";
}

}  // namespace

std::string_view AuthRefusalName(AuthRefusal why) {
  switch (why) {
    case AuthRefusal::kNoAuth:
      return "no_auth";
    case AuthRefusal::kUnknownEntity:
      return "unknown_entity";
    case AuthRefusal::kBadProof:
      return "bad_proof";
    case AuthRefusal::kNotOsd:
      return "not_osd";
    case AuthRefusal::kCaps:
      return "caps";
    case AuthRefusal::kCount:
      break;
  }
  return "unknown";
}

Status Authorize(const RequestBody& body, std::string_view entity, const auth::OsdCaps* caps,
                 const PoolNameFn& pool_name, AuthRefusal* why) {
  const MsgType type = TypeOf(body);
  if (type == MsgType::kPing || auth::IsOsdEntity(entity)) return Status::OK();
  const std::optional<PoolNeed> need = PoolNeedOf(body);
  if (!need) {
    *why = AuthRefusal::kNotOsd;
    return Status::Error(EACCES, fmt::format("permission denied: {} is an OSD's request and {} is "
                                             "not an OSD (only osd.N entities may send it)",
                                             TypeName(type), entity));
  }
  const auto denied = [&](std::string_view pool) {
    *why = AuthRefusal::kCaps;
    return Status::Error(
        EACCES, fmt::format("permission denied: {} may not {} pool {} (its osd caps: '{}')", entity,
                            PermWord(need->perms), pool, caps ? caps->text() : ""));
  };
  if (caps == nullptr) return denied(fmt::format("{}", need->pool));
  if (caps->AllowsEveryPool(need->perms)) return Status::OK();
  std::optional<std::string> name = pool_name ? pool_name(need->pool) : std::nullopt;
  if (!name) {
    return Status::Retryable(
        ESTALE, fmt::format("pool {} is not in this OSD's map yet: {}'s caps cannot be checked",
                            need->pool, entity));
  }
  if (!caps->Allows(*name, need->perms)) return denied("'" + *name + "'");
  return Status::OK();
}

}  // namespace ec::msg
