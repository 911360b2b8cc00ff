// etcd's own users and roles (issue 32 item 3): a program that names an etcd user
// (etcd_user, its password in etcd_password_file) authenticates with etcd
// (POST /v3/auth/authenticate {"name","password"}) and sends the token etcd answers on every
// request (header Authorization; etcd_client.h, etcd_watch.h). etcd then checks each request
// against the user's roles: read or readwrite on a key or a prefix.
//
// Why passwords and not the client certificate's CN: etcd 3.4 takes a certificate's CN as the
// user for gRPC clients only; through its JSON gateway, which ecstore speaks, a certificate with a
// CN is refused once auth is enabled ("CommonName of client sending a request against gateway
// will be ignored and not used as expected", HTTP 400). Client certificates then carry no CN
// (scripts/etcd_certs.sh) and TLS still decides who may connect at all.
//
// Tokens (etcd's default "simple" tokens, checked against etcd 3.4.23): every member knows every
// token, but a token unused at a member for --auth-token-ttl (300 s) expires there, a restarted
// member has forgotten them (but those whose authentication it replays from its log after a
// crash), and a password change drops the user's. A request with a token etcd does not take is
// refused before anything is applied ("invalid auth token", gRPC Unauthenticated; also "user
// name is empty" for a request without a token once auth was enabled, and "revision of auth
// store is old" when users or roles changed while it was checked): IsTokenRefused. The client
// then authenticates again and resends (etcd_client.h); a watch reconnects. When etcd's
// auth is not enabled, Authenticate's answer ("authentication is not enabled") makes the
// credentials send no token (etcd refuses any token then) until etcd asks for one.
//
// Thread safety: Credentials may be used from any thread; the clients and watches made from one
// ClientOptions share one.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "cluster/etcd/http_connection.h"
#include "common/status.h"

namespace ec::etcd {

// Reads the password in the file at `path` (etcd_password_file): its one line, without the line
// end. Errors: the system's ("cannot read etcd_password_file PATH: ..."; ENOENT, EACCES, ...);
// EACCES when its group or others have any permission on it ("etcd_password_file PATH is mode
// 0644: it holds a password, so only its owner may read it (chmod 600 PATH)"), as ssh refuses
// such a key; EINVAL when it is not a regular file, is empty, holds more than one line, is above
// 1 KiB or holds a control character.
Result<std::string> ReadPasswordFile(const std::string& path);

class Credentials {
 public:
  Credentials(std::string user, std::string password);
  Credentials(const Credentials&) = delete;
  Credentials& operator=(const Credentials&) = delete;

  const std::string& user() const { return user_; }

  // The token to send: the one held, or a new one from etcd over `conn` (connected to `ep`;
  // connected again if etcd closed it after answering, so that the request may follow on it).
  // "" when etcd's auth is not enabled. Errors: EACCES when
  // etcd refuses the user or its password ("etcd user 'U' at HOST:PORT: etcdserver:
  // authentication failed, invalid user ID or password (HTTP 400) (check etcd_user and
  // etcd_password_file)"); EPROTO for a reply without a usable token (empty, above 4 KiB, or
  // with a space or a control character, which could not go in a header); the connection's
  // errors and etcd's others (GatewayError: no leader is EAGAIN, retryable).
  Result<std::string> Token(HttpConnection& conn, const Endpoint& ep, std::size_t max_reply,
                            Clock::time_point deadline);
  // Forgets `token` after etcd refused it (IsTokenRefused); a newer one that another thread got
  // meanwhile is kept.
  void Forget(const std::string& token);

  // How many times etcd answered an authentication with a token (for tests and logs).
  std::uint64_t authentications() const;

 private:
  const std::string user_;
  const std::string password_;
  mutable std::mutex mu_;
  std::optional<std::string> token_;  // "" while etcd's auth is off
  std::uint64_t authentications_ = 0;
};

// Whether etcd refused a request for its token, before applying anything: "invalid auth token"
// (expired, or unknown to a restarted member), "user name is empty" (no token, auth enabled
// since) or "revision of auth store is old". Authenticating again and resending is safe.
bool IsTokenRefused(const Status& s);

// The error of a request etcd refused for its user or token, as the client returns it: EACCES,
// naming the user (or saying none is configured) and what to check. Other errors unchanged.
Status AuthError(const Status& s, const Credentials* credentials);

}  // namespace ec::etcd
