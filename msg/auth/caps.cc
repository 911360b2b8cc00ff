#include "msg/auth/caps.h"

#include <fmt/format.h>

#include "msg/auth/keyring.h"

namespace ec::msg::auth {

namespace {

constexpr std::size_t kMaxPoolNameLen = 255;

// A cursor over caps text; every Take* either consumes what it names or leaves the position.
class CapsCursor {
 public:
  explicit CapsCursor(std::string_view text) : text_(text) {}

  void SkipSpaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  bool AtSeparator() const { return !AtEnd() && (text_[pos_] == ',' || text_[pos_] == ';'); }
  bool AtWordEnd(std::size_t at) const {
    return at >= text_.size() || text_[at] == ' ' || text_[at] == '\t' || text_[at] == ',' ||
           text_[at] == ';';
  }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void Skip(std::size_t n) { pos_ += n; }
  // The word `w` followed by a word end (or `then`, when given).
  bool TakeWord(std::string_view w, char then = '\0') {
    if (text_.substr(pos_, w.size()) != w) return false;
    const std::size_t after = pos_ + w.size();
    if (then != '\0' && after < text_.size() && text_[after] == then) {
      pos_ = after;
      return true;
    }
    if (!AtWordEnd(after)) return false;
    pos_ = after;
    return true;
  }
  // A bare word (up to a space or separator) or a quoted one.
  bool TakeName(std::string* out) {
    if (AtEnd()) return false;
    const char q = text_[pos_];
    if (q == '"' || q == '\'') {
      const auto close = text_.find(q, pos_ + 1);
      if (close == std::string_view::npos || close == pos_ + 1) return false;
      *out = std::string(text_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
      return AtWordEnd(pos_);
    }
    std::size_t end = pos_;
    while (!AtWordEnd(end)) ++end;
    if (end == pos_) return false;
    *out = std::string(text_.substr(pos_, end - pos_));
    pos_ = end;
    return true;
  }
  // Letters from `allowed`, each at most once, up to a word end: their bits.
  bool TakePerms(std::uint8_t* bits) {
    std::size_t end = pos_;
    std::uint8_t got = 0;
    while (!AtWordEnd(end)) {
      std::uint8_t bit = 0;
      switch (text_[end]) {
        case 'r':
          bit = kCapRead;
          break;
        case 'w':
          bit = kCapWrite;
          break;
        case 'x':
          bit = kCapExec;
          break;
        default:
          return false;
      }
      if ((got & bit) != 0) return false;
      got |= bit;
      ++end;
    }
    if (got == 0) return false;
    *bits = got;
    pos_ = end;
    return true;
  }
  std::size_t pos() const { return pos_; }
  std::string_view Rest(std::size_t from) const { return text_.substr(from); }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

Status ParseFailed(std::string_view service, std::string_view text, const CapsCursor& c,
                   std::size_t at) {
  return Status::Invalid(fmt::format("{} capability parse failed, stopped at '{}' of '{}'", service,
                                     c.Rest(at), text));
}

// The grants of osd caps text, or the position where parsing stopped.
Result<std::vector<OsdGrant>> ParseOsdGrants(std::string_view text) {
  CapsCursor c(text);
  std::vector<OsdGrant> grants;
  if (text.size() > kMaxCapsTextLen) {
    return Status::Invalid(fmt::format("osd capability longer than {} bytes", kMaxCapsTextLen));
  }
  c.SkipSpaces();
  while (true) {
    const std::size_t grant_at = c.pos();
    if (!c.TakeWord("allow")) return ParseFailed("osd", text, c, grant_at);
    c.SkipSpaces();
    OsdGrant g;
    const std::size_t spec_at = c.pos();
    if (c.Peek() == '*' && c.AtWordEnd(c.pos() + 1)) {
      g.perms = kCapAll;
      c.Skip(1);
    } else if (!c.TakePerms(&g.perms)) {
      return ParseFailed("osd", text, c, spec_at);
    }
    c.SkipSpaces();
    if (!c.AtEnd() && !c.AtSeparator()) {
      const std::size_t match_at = c.pos();
      if (c.TakeWord("pool", '=')) {
        if (c.Peek() == '=') {
          c.Skip(1);
        } else {
          c.SkipSpaces();
        }
        std::string name;
        if (!c.TakeName(&name) || name.size() > kMaxPoolNameLen) {
          return ParseFailed("osd", text, c, match_at);
        }
        g.pool = std::move(name);
      } else {
        return ParseFailed("osd", text, c, match_at);
      }
      c.SkipSpaces();
    }
    grants.push_back(std::move(g));
    if (c.AtEnd()) break;
    if (!c.AtSeparator()) return ParseFailed("osd", text, c, c.pos());
    c.Skip(1);
    c.SkipSpaces();
  }
  return grants;
}

}  // namespace

Result<OsdCaps> OsdCaps::Parse(std::string_view text) {
  auto grants = ParseOsdGrants(text);
  if (!grants.ok()) return grants.status();
  OsdCaps caps;
  caps.grants_ = std::move(*grants);
  caps.text_ = std::string(text);
  return caps;
}

bool OsdCaps::Allows(std::string_view pool, std::uint8_t need) const {
  std::uint8_t have = 0;
  for (const OsdGrant& g : grants_) {
    if (!g.pool || *g.pool == pool) have |= g.perms;
  }
  return (have & need) == need;
}

bool OsdCaps::AllowsEveryPool(std::uint8_t need) const {
  std::uint8_t have = 0;
  for (const OsdGrant& g : grants_) {
    if (!g.pool) have |= g.perms;
  }
  return (have & need) == need;
}

Status ValidateMonCaps(std::string_view text) {
  if (text.size() > kMaxCapsTextLen) {
    return Status::Invalid(fmt::format("mon capability longer than {} bytes", kMaxCapsTextLen));
  }
  CapsCursor c(text);
  c.SkipSpaces();
  while (true) {
    const std::size_t grant_at = c.pos();
    if (!c.TakeWord("allow")) return ParseFailed("mon", text, c, grant_at);
    c.SkipSpaces();
    const std::size_t spec_at = c.pos();
    std::uint8_t perms = 0;
    std::string profile;
    if (c.Peek() == '*' && c.AtWordEnd(c.pos() + 1)) {
      c.Skip(1);
    } else if (c.TakeWord("profile")) {
      c.SkipSpaces();
      if (!c.TakeName(&profile)) return ParseFailed("mon", text, c, spec_at);
    } else if (!c.TakePerms(&perms)) {
      return ParseFailed("mon", text, c, spec_at);
    }
    c.SkipSpaces();
    if (c.AtEnd()) break;
    if (!c.AtSeparator()) return ParseFailed("mon", text, c, c.pos());
    c.Skip(1);
    c.SkipSpaces();
  }
  return Status::OK();
}

Status ValidateCaps(std::string_view service, std::string_view text) {
  if (service == "osd") return OsdCaps::Parse(text).status();
  if (service == "mon") return ValidateMonCaps(text);
  return Status::Invalid(fmt::format("unknown cap type '{}'", service));
}

Result<std::map<std::string, std::string>> ParseCapsArgs(const std::vector<std::string>& args) {
  if (args.size() % 2 != 0) {
    return Status::Invalid("bad capabilities request; odd number of arguments");
  }
  std::map<std::string, std::string> caps;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    EC_RETURN_IF_ERROR(ValidateCaps(args[i], args[i + 1]));
    caps[args[i]] = args[i + 1];
  }
  return caps;
}

}  // namespace ec::msg::auth
