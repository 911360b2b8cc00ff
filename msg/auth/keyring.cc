#include "msg/auth/keyring.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "common/codec.h"
#include "msg/auth/crypto.h"

namespace ec::msg::auth {

namespace {

constexpr std::uint16_t kCephCryptoAes = 1;
constexpr std::size_t kEncodedKeyLen = 2 + 4 + 4 + 2 + kSecretLen;

bool IsIdChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

std::string_view TrimSpace(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

Status BadLine(std::string_view origin, std::size_t line, std::string_view what) {
  return Status::Invalid(fmt::format("{}:{}: {}", origin, line, what));
}

}  // namespace

Result<CryptoKey> CryptoKey::Generate() {
  CryptoKey k;
  EC_RETURN_IF_ERROR(RandomBytes(k.secret));
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
  k.created_sec = static_cast<std::uint32_t>(ns / 1000000000);
  k.created_nsec = static_cast<std::uint32_t>(ns % 1000000000);
  return k;
}

Result<CryptoKey> CryptoKey::FromBase64(std::string_view text) {
  auto bytes = Base64Decode(text, 64);
  if (!bytes.ok()) return Status::Invalid(fmt::format("bad key: {}", bytes.status().message()));
  if (bytes->size() != kEncodedKeyLen) {
    return Status::Invalid(
        fmt::format("bad key: {} bytes, a cephx key has {}", bytes->size(), kEncodedKeyLen));
  }
  Decoder r(*bytes);
  std::uint16_t type = 0;
  std::uint16_t len = 0;
  CryptoKey k;
  r.U16(&type, "type") && r.U32(&k.created_sec, "created") && r.U32(&k.created_nsec, "created") &&
      r.U16(&len, "len");
  if (!r.ok() || type != kCephCryptoAes || len != kSecretLen) {
    return Status::Invalid(fmt::format(
        "bad key: type {} length {} (a cephx key is type 1, AES, of 16 bytes)", type, len));
  }
  if (!r.Raw(k.secret, "secret") || !r.AtEnd()) return Status::Invalid("bad key: truncated");
  return k;
}

std::string CryptoKey::ToBase64() const {
  std::vector<std::byte> bytes;
  Encoder w(bytes);
  w.U16(kCephCryptoAes);
  w.U32(created_sec);
  w.U32(created_nsec);
  w.U16(static_cast<std::uint16_t>(kSecretLen));
  w.Raw(secret);
  return Base64Encode(bytes);
}

bool CryptoKey::SameSecret(const CryptoKey& other) const {
  return Equal(secret, other.secret);
}

Result<EntityName> EntityName::Parse(std::string_view text) {
  const auto bad = [&] { return Status::Invalid(fmt::format("bad entity name '{}'", text)); };
  const auto dot = text.find('.');
  if (dot == std::string_view::npos) return bad();
  const std::string_view type = text.substr(0, dot);
  const std::string_view id = text.substr(dot + 1);
  EntityName n;
  if (type == "mon") {
    if (!id.empty()) return bad();  // "mon." alone: the cluster's key
    n.type = EntityType::kMon;
    return n;
  }
  if (type == "osd") {
    if (id.empty() || id.size() > 10 || (id.size() > 1 && id[0] == '0')) return bad();
    std::uint64_t v = 0;
    for (char c : id) {
      if (c < '0' || c > '9') return bad();
      v = v * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (v > 0x7fffffff) return bad();
    n.type = EntityType::kOsd;
    n.id = std::string(id);
    return n;
  }
  if (type == "client") {
    if (id.empty() || id.size() > kMaxEntityIdLen) return bad();
    for (char c : id) {
      if (!IsIdChar(c)) return bad();
    }
    n.type = EntityType::kClient;
    n.id = std::string(id);
    return n;
  }
  return bad();
}

std::string EntityName::ToString() const {
  switch (type) {
    case EntityType::kClient:
      return "client." + id;
    case EntityType::kOsd:
      return "osd." + id;
    case EntityType::kMon:
      return "mon.";
  }
  return {};
}

bool IsOsdEntity(std::string_view text) {
  auto n = EntityName::Parse(text);
  return n.ok() && n->is_osd();
}

Result<Keyring> Keyring::Parse(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxKeyringBytes) {
    return Status::Error(EFBIG,
                         fmt::format("{}: keyring larger than {} bytes", origin, kMaxKeyringBytes));
  }
  Keyring ring;
  std::string section;  // the current one ("": none yet)
  bool has_key = false;
  std::size_t section_line = 0;
  const auto close_section = [&]() -> Status {
    if (!section.empty() && !has_key) {
      return BadLine(origin, section_line, fmt::format("no key for [{}]", section));
    }
    return Status::OK();
  };
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = TrimSpace(text.substr(pos, end - pos));
    ++line_no;
    pos = end + 1;
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line.front() == '[') {
      if (line.back() != ']') return BadLine(origin, line_no, "a section line must end with ']'");
      EC_RETURN_IF_ERROR(close_section());
      const std::string_view name = TrimSpace(line.substr(1, line.size() - 2));
      auto entity = EntityName::Parse(name);
      if (!entity.ok()) return BadLine(origin, line_no, entity.status().message());
      section = entity->ToString();
      if (ring.entries.count(section) != 0) {
        return BadLine(origin, line_no, fmt::format("[{}] appears twice", section));
      }
      if (ring.entries.size() >= kMaxKeyringEntities) {
        return BadLine(origin, line_no, fmt::format("more than {} entities", kMaxKeyringEntities));
      }
      ring.entries[section];
      has_key = false;
      section_line = line_no;
      continue;
    }
    if (section.empty()) return BadLine(origin, line_no, "a setting before any [entity] section");
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) return BadLine(origin, line_no, "expected NAME = VALUE");
    const std::string_view name = TrimSpace(line.substr(0, eq));
    std::string_view value = TrimSpace(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    KeyringEntry& entry = ring.entries[section];
    if (name == "key") {
      if (has_key) return BadLine(origin, line_no, fmt::format("a second key for [{}]", section));
      auto key = CryptoKey::FromBase64(value);
      if (!key.ok()) return BadLine(origin, line_no, key.status().message());
      entry.key = *key;
      has_key = true;
    } else if (name.substr(0, 5) == "caps ") {
      const std::string service(TrimSpace(name.substr(5)));
      if (service.empty() || service.find_first_of(" \t") != std::string::npos) {
        return BadLine(origin, line_no, fmt::format("bad caps line '{}'", name));
      }
      if (value.size() > kMaxCapsTextLen) {
        return BadLine(origin, line_no, fmt::format("caps longer than {} bytes", kMaxCapsTextLen));
      }
      if (!entry.caps.emplace(service, std::string(value)).second) {
        return BadLine(origin, line_no, fmt::format("caps {} given twice", service));
      }
    } else {
      return BadLine(origin, line_no, fmt::format("unknown setting '{}'", name));
    }
  }
  EC_RETURN_IF_ERROR(close_section());
  return ring;
}

Result<Keyring> Keyring::Load(const std::string& path) {
  errno = 0;
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    const int err = errno != 0 ? errno : ENOENT;
    return Status::Error(err, fmt::format("cannot read keyring {}: {}", path, std::strerror(err)));
  }
  std::string text;
  text.resize(kMaxKeyringBytes + 1);
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(f.gcount()));
  if (f.bad()) return Status::IOError(fmt::format("cannot read keyring {}", path));
  return Parse(text, path);
}

const KeyringEntry* Keyring::Find(std::string_view entity) const {
  auto it = entries.find(std::string(entity));
  return it == entries.end() ? nullptr : &it->second;
}

std::string RenderKeyringEntry(const std::string& entity, const KeyringEntry& entry,
                               bool with_caps) {
  std::string out = fmt::format("[{}]\n\tkey = {}\n", entity, entry.key.ToBase64());
  if (with_caps) {
    for (const auto& [service, text] : entry.caps) {
      out += fmt::format("\tcaps {} = \"{}\"\n", service, text);
    }
  }
  return out;
}

std::string Keyring::Render() const {
  std::string out;
  for (const auto& [entity, entry] : entries) out += RenderKeyringEntry(entity, entry, true);
  return out;
}

Status Keyring::Save(const std::string& path) const {
  const std::string text = Render();
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int err = errno;
    return Status::Error(err, fmt::format("cannot write keyring {}: {}", tmp, std::strerror(err)));
  }
  std::size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  ::close(fd);
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return Status::Error(err, fmt::format("cannot write keyring {}: {}", path, std::strerror(err)));
  }
  return Status::OK();
}

}  // namespace ec::msg::auth
