#include "cluster/etcd/etcd_auth.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cluster/etcd/etcd_json.h"

namespace ec::etcd {

namespace {

constexpr std::size_t kMaxPasswordBytes = 1024;
constexpr std::size_t kMaxTokenBytes = 4096;

constexpr std::string_view kAuthNotEnabled = "authentication is not enabled";
constexpr std::string_view kAuthFailed = "authentication failed";
constexpr std::string_view kPermissionDenied = "permission denied";
constexpr std::string_view kUserEmpty = "user name is empty";

bool Contains(const Status& s, std::string_view what) {
  return s.message().find(what) != std::string::npos;
}

// A token goes into an HTTP header: printable, no space.
bool UsableToken(std::string_view t) {
  return !t.empty() && t.size() <= kMaxTokenBytes &&
         std::all_of(t.begin(), t.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

}  // namespace

Result<std::string> ReadPasswordFile(const std::string& path) {
  const std::string what = "etcd_password_file " + path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) {
    const int e = errno;
    return Status::Error(e, "cannot read " + what + ": " + std::strerror(e));
  }
  struct stat st {};
  Status s;
  std::string text;
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    s = Status::Error(e, "cannot read " + what + ": " + std::strerror(e));
  } else if (!S_ISREG(st.st_mode)) {
    s = Status::Invalid(what + " is not a regular file");
  } else if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    const std::string why = ": it holds a password, so only its owner may read it (chmod 600 ";
    s = Status::Error(EACCES, what + " is mode " + mode + why + path + ")");
  } else if (st.st_size > static_cast<off_t>(kMaxPasswordBytes)) {
    s = Status::Invalid(what + " is larger than " + std::to_string(kMaxPasswordBytes) + " bytes");
  } else {
    text.resize(kMaxPasswordBytes + 1);
    std::size_t got = 0;
    while (got < text.size()) {
      const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        const int e = errno;
        s = Status::Error(e, "cannot read " + what + ": " + std::strerror(e));
        break;
      }
      if (n == 0) break;
      got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    if (s.ok() && got > kMaxPasswordBytes) {
      s = Status::Invalid(what + " is larger than " + std::to_string(kMaxPasswordBytes) + " bytes");
    }
  }
  ::close(fd);
  if (!s.ok()) return s;
  const std::size_t eol = text.find('\n');
  if (eol != std::string::npos) {
    if (text.find_first_not_of("\r\n", eol) != std::string::npos) {
      return Status::Invalid(what + " holds more than one line");
    }
    text.resize(eol);
  }
  if (!text.empty() && text.back() == '\r') text.pop_back();
  if (text.empty()) return Status::Invalid(what + " is empty");
  if (std::any_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
    return Status::Invalid(what + " holds a control character");
  }
  return text;
}

Credentials::Credentials(std::string user, std::string password)
    : user_(std::move(user)), password_(std::move(password)) {}

std::uint64_t Credentials::authentications() const {
  std::lock_guard lock(mu_);
  return authentications_;
}

void Credentials::Forget(const std::string& token) {
  std::lock_guard lock(mu_);
  if (token_ && *token_ == token) token_.reset();
}

Result<std::string> Credentials::Token(HttpConnection& conn, const Endpoint& ep,
                                       std::size_t max_reply, Clock::time_point deadline) {
  {
    std::lock_guard lock(mu_);
    if (token_) return *token_;
  }
  // Not under the lock: another thread may authenticate at the same time; either token works.
  const std::string where = "etcd " + ep.ToString() + "/v3/auth/authenticate";
  const nlohmann::json body{{"name", user_}, {"password", password_}};
  conn.set_token("");
  Result<HttpConnection::Reply> reply =
      conn.Post("/v3/auth/authenticate", body.dump(), max_reply, deadline);
  if (!reply.ok()) return reply.status();
  std::string token;
  if (reply->status != 200) {
    Status s = gw::GatewayError(reply->status, reply->body, where);
    if (!Contains(s, kAuthNotEnabled)) {
      if (Contains(s, kAuthFailed)) {
        const std::string who = "etcd user '" + user_ + "' at " + ep.ToString();
        return Status::Error(EACCES, gw::GatewayError(reply->status, reply->body, who).message() +
                                         " (check etcd_user and etcd_password_file)");
      }
      return s;
    }
    // etcd's auth is off: no token (etcd refuses any token then) until a request needs one.
  } else {
    Result<nlohmann::json> obj = gw::ParseObject(reply->body, where);
    if (!obj.ok()) return obj.status();
    Result<std::string> got = gw::GetString(*obj, "token");
    if (!got.ok()) return got.status();
    if (!UsableToken(*got)) {
      return Status::Error(EPROTO, where + ": reply without a usable token (" +
                                       std::to_string(got->size()) + " bytes)");
    }
    token = std::move(*got);
  }
  {
    std::lock_guard lock(mu_);
    if (!token.empty()) ++authentications_;
    token_ = token;
  }
  if (!conn.reusable()) EC_RETURN_IF_ERROR(conn.Connect(ep, deadline));
  return token;
}

bool IsTokenRefused(const Status& s) {
  if (s.ok()) return false;
  return Contains(s, "invalid auth token") || Contains(s, kUserEmpty) ||
         Contains(s, "revision of auth store is old");
}

Status AuthError(const Status& s, const Credentials* credentials) {
  if (s.ok()) return s;
  if (Contains(s, kPermissionDenied)) {
    if (credentials == nullptr) {
      return Status::Error(EACCES, s.message() + " (this client names no etcd user: etcd_user)");
    }
    return Status::Error(EACCES, s.message() + " (etcd user '" + credentials->user() +
                                     "': its roles do not allow this)");
  }
  if (IsTokenRefused(s)) {
    if (credentials == nullptr) {
      return Status::Error(EACCES, s.message() +
                                       " (etcd's auth is enabled and this client names no etcd "
                                       "user: set etcd_user and etcd_password_file)");
    }
    return Status::Error(EACCES, s.message() + " (etcd user '" + credentials->user() +
                                     "': refused again after a new authentication)");
  }
  return s;
}

}  // namespace ec::etcd
