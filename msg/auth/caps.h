// Capabilities, in Ceph's syntax (`ceph auth get-or-create client.app osd 'allow rw pool=data'`),
// parsed strictly, and the one question the messenger asks of them: may this entity do that to
// that pool?
//
// osd caps (what an OSD enforces; OsdCaps):
//   CAPS   := GRANT ( (',' | ';') GRANT )*          spaces allowed around separators
//   GRANT  := 'allow' SPEC [ MATCH ]
//   SPEC   := '*' | any of 'r', 'w', 'x' (each at most once, in any order: r, rw, rwx, wx, ...)
//   MATCH  := 'pool=' NAME | 'pool' ' ' NAME       NAME: 1..255 bytes without space, ',', ';',
//                                                  or quoted "..." / '...'
// Without MATCH a grant covers every pool. Grants add up: "allow r, allow w pool=a" reads every
// pool and writes a. '*' is every permission. x (Ceph's class methods) is accepted and stored;
// ecstore has no operation that needs it.
//
// mon caps (stored and shown; ecstore has no monitor service to enforce them on, and ec-admin
// talks to etcd directly, whose own permissions are another step):
//   CAPS := GRANT ( (',' | ';') GRANT )*,  GRANT := 'allow' ( '*' | [rwx]+ | 'profile' NAME )
//
// Errors (EINVAL, Ceph's words): "osd capability parse failed, stopped at 'REST' of 'TEXT'" (and
// "mon ..."), "unknown cap type 'x'" for a service other than mon and osd, "bad capabilities
// request; odd number of arguments" for a caps list without a value for its last service.
//
// Thread safety: plain values; OsdCaps is immutable once parsed and may be shared.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::msg::auth {

// Permission bits of an osd grant.
inline constexpr std::uint8_t kCapRead = 1;
inline constexpr std::uint8_t kCapWrite = 2;
inline constexpr std::uint8_t kCapExec = 4;
inline constexpr std::uint8_t kCapAll = kCapRead | kCapWrite | kCapExec;

struct OsdGrant {
  std::uint8_t perms = 0;           // kCap* bits ('*': kCapAll)
  std::optional<std::string> pool;  // nullopt: every pool
};

class OsdCaps {
 public:
  static Result<OsdCaps> Parse(std::string_view text);

  // Whether the grants together give every bit of `need` on pool `pool`.
  bool Allows(std::string_view pool, std::uint8_t need) const;
  // Whether they give `need` on every pool (no pool name needed to decide).
  bool AllowsEveryPool(std::uint8_t need) const;
  const std::vector<OsdGrant>& grants() const { return grants_; }
  const std::string& text() const { return text_; }

 private:
  std::vector<OsdGrant> grants_;
  std::string text_;
};

// Checks mon caps. Errors: see the header.
Status ValidateMonCaps(std::string_view text);

// Checks the caps of one service ("mon" or "osd"). Errors: see the header.
Status ValidateCaps(std::string_view service, std::string_view text);

// A command line's caps ("mon", "allow r", "osd", "allow rw pool=a") as service -> text, each
// checked. A service given twice keeps its last text (as Ceph's map does). Errors: see the
// header.
Result<std::map<std::string, std::string>> ParseCapsArgs(const std::vector<std::string>& args);

}  // namespace ec::msg::auth
