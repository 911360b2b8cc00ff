// etcd::Client: a blocking etcd v3 client over etcd's JSON gateway (HTTP/1.1 POST to /v3/...),
// for one etcd or a cluster of several members.
//
// Every call opens a connection to an endpoint, sends one request and reads one reply, all within
// ClientOptions::timeout per endpoint tried. Endpoints are tried in order starting with the last
// one that answered; the client moves to the next endpoint when
//   - the connect fails or times out (the request was not sent), or
//   - etcd answers UNAVAILABLE saying nothing was applied (HTTP 503: "no leader", "leader
//     changed", shutting down), or
//   - the request was sent but no reply came, or etcd answered that it stopped waiting for it
//     ("request timed out", e.g. after its leader died), and the request is a read (Range,
//     LeaseKeepAlive).
// A write (Put, DeleteRange, Txn, LeaseGrant, LeaseRevoke) sent without a reply, or that etcd
// timed out, is not resent: it returns ETIMEDOUT/ECONNRESET and may or may not have been applied.
// Every request asks for a member with a leader (gRPC metadata hasleader=true, etcd clientv3's
// WithRequireLeader): a member cut off from its quorum answers "no leader" at once rather than
// queueing the request until etcd's own 7 s timeout. When every member answered "no leader" (an
// election under way; or the quorum is lost) and nothing was sent anywhere, the call tries the
// endpoints again every 100 ms until it has taken `timeout`, then fails EAGAIN.
//
// Errors (ec::Status codes):
//   ECONNREFUSED / ETIMEDOUT / ECONNRESET / EHOSTUNREACH  no endpoint answered (retryable); the
//                  message names every endpoint tried and what happened;
//   EPROTO         a reply that is not etcd's: not HTTP, not JSON, a field of the wrong type, bad
//                  base64, a body above max_reply_bytes;
//   EINVAL         the request is refused locally (a txn over max_txn_ops operations, a request
//                  above max_request_bytes) or by etcd (gRPC InvalidArgument);
//   ENOENT         the lease does not exist or has expired (LeaseKeepAlive, LeaseRevoke, Put
//                  with a lease);
//   ERANGE         Range at a revision that has been compacted (gRPC OutOfRange);
//   EAGAIN         every endpoint answered UNAVAILABLE, or the members that answered have no
//                  leader and the others could not be reached (retryable); the message names every
//                  endpoint and says when no member has a leader;
//   EMSGSIZE       etcd refused a message above its gRPC size cap (ResourceExhausted);
//   EACCES         etcd's users (etcd_auth.h): the user's password refused ("authentication
//                  failed", naming the user and the endpoint), the user's roles do not permit
//                  the request ("permission denied", naming the user), or etcd's auth is enabled
//                  and the client names no user; TLS refusals (http_connection.h);
//   EIO            another error from etcd; the message is etcd's.
// An error from etcd carries etcd's own message ("etcd 127.0.0.1:2379: etcdserver: ...").
//
// etcd's users: with ClientOptions::credentials, each call sends the token the credentials hold
// (authenticating first on the call's connection when they hold none). When etcd refuses the
// token (it expired after --auth-token-ttl unused, the member restarted and forgot it, or the
// auth store changed since), etcd applied nothing: the call authenticates again on the same
// connection and resends the request once, a write included.
//
// Thread safety: every method may be called from any thread concurrently; each call uses its own
// connection. The Client shares only ClientOptions::tls and ::credentials (thread-safe) with the
// clients and watches made from the same options.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_types.h"
#include "cluster/etcd/http_connection.h"
#include "common/status.h"

namespace ec::etcd {

class Credentials;  // etcd_auth.h

struct ClientOptions {
  std::vector<Endpoint> endpoints;               // at least one
  std::chrono::milliseconds timeout{5000};       // per endpoint tried (and per election wait)
  std::size_t max_reply_bytes = 64u << 20;       // a bigger reply is EPROTO
  std::size_t max_request_bytes = 1536u * 1024;  // etcd's --max-request-bytes default
  std::size_t max_txn_ops = 128;                 // etcd's --max-txn-ops default
  // The TLS context of https endpoints (ParseEndpointsWithTls; null: http only).
  std::shared_ptr<TlsContext> tls;
  // The etcd user and its token (etcd_auth.h; null: no user, etcd's auth off).
  std::shared_ptr<Credentials> credentials;
};

// What a program's config names for etcd: etcd_endpoints, etcd_op_timeout (0: the default), the
// TLS files, etcd_user and etcd_password_file.
struct ClientSettings {
  std::string endpoints;
  std::chrono::milliseconds timeout{0};
  TlsFiles tls;
  std::string user;
  std::string password_file;
};

// The ClientOptions of those settings: the endpoints and the TLS context (ParseEndpointsWithTls),
// and the credentials, the password read from its file (ReadPasswordFile). Errors:
// ParseEndpointsWithTls's, prefixed "etcd_endpoints 'LIST': "; EINVAL for etcd_user without
// etcd_password_file or the reverse; ReadPasswordFile's.
Result<ClientOptions> MakeClientOptions(const ClientSettings& settings);

class Client {
 public:
  explicit Client(ClientOptions options);

  // Reads a key or a range. An empty range has no kvs (count 0), not an error.
  Result<RangeResponse> Range(const RangeRequest& req) const;
  // Convenience: the one key, or ENOENT when it does not exist.
  Result<KeyValue> Get(std::string_view key) const;
  // Every key starting with prefix, in key order.
  Result<RangeResponse> GetPrefix(std::string_view prefix) const;

  Result<PutResponse> Put(const PutRequest& req) const;
  Result<DeleteResponse> DeleteRange(const DeleteRequest& req) const;
  Result<DeleteResponse> DeletePrefix(std::string_view prefix) const;

  // Atomically: if every compare holds, run success, else failure. EINVAL (nothing sent) when
  // success or failure has more than max_txn_ops operations.
  Result<TxnResponse> Txn(const TxnRequest& req) const;

  // Grants a lease of ttl_seconds (> 0). id 0 lets etcd choose the id.
  Result<LeaseGrant> LeaseGrantTtl(std::int64_t ttl_seconds, std::int64_t id = 0) const;
  // Renews the lease once; returns its TTL again. ENOENT when the lease has expired or is unknown.
  Result<std::int64_t> LeaseKeepAlive(std::int64_t id) const;
  // Revokes the lease and deletes its keys. ENOENT when it does not exist.
  Status LeaseRevoke(std::int64_t id) const;

  const ClientOptions& options() const { return options_; }

  // Sends one JSON request to path ("/v3/kv/range") and returns the reply body as an object.
  // Exposed for the watch and tests; the methods above are the API.
  Result<nlohmann::json> Call(std::string_view path, const nlohmann::json& body,
                              bool idempotent) const;

 private:
  // Each endpoint once, from the preferred one (the list above). *election: every endpoint refused
  // without applying anything and one of them has no leader (worth trying again soon).
  Result<nlohmann::json> TryEndpoints(std::string_view path, const std::string& text,
                                      bool idempotent, bool* election) const;
  // The request on one connected endpoint, with the credentials' token (authenticated again and
  // resent once when etcd refuses the token). *sent: the request reached etcd.
  Result<HttpConnection::Reply> PostAuthorized(HttpConnection& conn, const Endpoint& ep,
                                               std::string_view path, const std::string& text,
                                               Clock::time_point deadline, bool* sent) const;

  ClientOptions options_;
  mutable std::atomic<std::size_t> preferred_{0};
};

}  // namespace ec::etcd
