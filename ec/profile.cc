#include "ec/profile.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace ec {

Result<Profile> ParseProfile(std::string_view text) {
  Profile profile;
  std::size_t pos = 0;
  while (pos < text.size()) {
    // A comma or space ends the piece, except inside JSON brackets (lrc's layers=[[...],[...]]).
    std::size_t end = pos;
    int depth = 0;
    bool in_string = false, escaped = false;
    for (; end < text.size(); ++end) {
      const char c = text[end];
      if (in_string) {
        if (escaped) {
          escaped = false;
        } else if (c == '\\') {
          escaped = true;
        } else if (c == '"') {
          in_string = false;
        }
      } else if (c == '"' && depth > 0) {
        in_string = true;
      } else if (c == '[' || c == '{') {
        ++depth;
      } else if ((c == ']' || c == '}') && depth > 0) {
        --depth;
      } else if ((c == ',' || c == ' ') && depth == 0) {
        break;
      }
    }
    std::string_view piece = text.substr(pos, end - pos);
    pos = end + 1;
    if (piece.empty()) continue;
    std::size_t eq = piece.find('=');
    if (eq == std::string_view::npos) {
      return Status::Invalid("'" + std::string(piece) + "' is not of the form key=value");
    }
    if (eq == 0) return Status::Invalid("'" + std::string(piece) + "' has an empty key");
    profile[std::string(piece.substr(0, eq))] = std::string(piece.substr(eq + 1));
  }
  return profile;
}

std::string ProfileToString(const Profile& profile) {
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : profile) {
    if (!first) out += ",";
    first = false;
    out += k;
    out += "=";
    out += v;
  }
  out += "}";
  return out;
}

bool StrictToInt(const std::string& s, int* out, std::string* err) {
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (errno == ERANGE || v > INT_MAX || v < INT_MIN) {
    *err = "strict_strtol: integer underflow or overflow parsing '" + s + "'";
    return false;
  }
  if (end == s.c_str() || *end != '\0') {
    *err = "strict_strtol: expected integer, got: '" + s + "'";
    return false;
  }
  *out = static_cast<int>(v);
  return true;
}

Status ProfileToInt(const std::string& name, Profile& profile, int* out,
                    const std::string& default_value) {
  auto it = profile.find(name);
  if (it == profile.end() || it->second.empty()) profile[name] = default_value;
  const std::string& value = profile[name];
  std::string err;
  if (!StrictToInt(value, out, &err)) {
    int def = 0;
    std::string ignored;
    StrictToInt(default_value, &def, &ignored);
    *out = def;
    return Status::Invalid("could not convert " + name + "=" + value + " to int because " + err +
                           ", set to default " + default_value);
  }
  return Status::OK();
}

Status ProfileToBool(const std::string& name, Profile& profile, bool* out,
                     const std::string& default_value) {
  auto it = profile.find(name);
  if (it == profile.end() || it->second.empty()) profile[name] = default_value;
  const std::string& value = profile[name];
  *out = value == "yes" || value == "true";
  return Status::OK();
}

Status ProfileToString(const std::string& name, Profile& profile, std::string* out,
                       const std::string& default_value) {
  auto it = profile.find(name);
  if (it == profile.end() || it->second.empty()) profile[name] = default_value;
  *out = profile[name];
  return Status::OK();
}

}  // namespace ec
