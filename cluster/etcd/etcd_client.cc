#include "cluster/etcd/etcd_client.h"

#include <thread>

#include "cluster/etcd/etcd_auth.h"
#include "cluster/etcd/etcd_json.h"

namespace ec::etcd {

using nlohmann::json;

namespace {

bool NotSent(const Status& s, bool connected) {
  return !connected && s.is_retryable();
}

constexpr auto kElectionRetry = std::chrono::milliseconds(100);

}  // namespace

Result<ClientOptions> MakeClientOptions(const ClientSettings& settings) {
  auto endpoints = ParseEndpointsWithTls(settings.endpoints, settings.tls);
  if (!endpoints.ok()) {
    return Status::Invalid("etcd_endpoints '" + settings.endpoints +
                           "': " + endpoints.status().message());
  }
  ClientOptions o;
  o.endpoints = std::move(endpoints->endpoints);
  o.tls = std::move(endpoints->tls);
  if (settings.timeout.count() > 0) o.timeout = settings.timeout;
  if (settings.user.empty() != settings.password_file.empty()) {
    return Status::Invalid(settings.user.empty()
                               ? "etcd_password_file is set but etcd_user is not"
                               : "etcd_user '" + settings.user +
                                     "' needs etcd_password_file (the file of its password)");
  }
  if (!settings.user.empty()) {
    Result<std::string> password = ReadPasswordFile(settings.password_file);
    if (!password.ok()) return password.status();
    o.credentials = std::make_shared<Credentials>(settings.user, std::move(*password));
  }
  return o;
}

Client::Client(ClientOptions options) : options_(std::move(options)) {}

Result<json> Client::Call(std::string_view path, const json& body, bool idempotent) const {
  if (options_.endpoints.empty()) return Status::Invalid("etcd client: no endpoint");
  std::string text = body.dump();
  if (text.size() > options_.max_request_bytes) {
    return Status::Invalid("etcd request of " + std::to_string(text.size()) +
                           " bytes exceeds max_request_bytes " +
                           std::to_string(options_.max_request_bytes));
  }
  // A member without a leader answers at once (the requests ask for one): while an election is
  // under way, the endpoints are tried again until the call has taken `timeout`.
  const auto give_up = Clock::now() + options_.timeout;
  for (;;) {
    bool election = false;
    Result<json> reply = TryEndpoints(path, text, idempotent, &election);
    if (!election || Clock::now() + kElectionRetry >= give_up) return reply;
    std::this_thread::sleep_for(kElectionRetry);
  }
}

Result<json> Client::TryEndpoints(std::string_view path, const std::string& text, bool idempotent,
                                  bool* election) const {
  const std::size_t n = options_.endpoints.size();
  const std::size_t first = preferred_.load() % n;
  std::string tried;
  Status last;
  bool all_unapplied = true;  // every endpoint refused without applying anything
  bool no_leader = false;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t index = (first + i) % n;
    const Endpoint& ep = options_.endpoints[index];
    const std::string where = "etcd " + ep.ToString() + std::string(path);
    const auto deadline = Clock::now() + options_.timeout;
    HttpConnection conn(nullptr, options_.tls);
    Status s = conn.Connect(ep, deadline);
    bool connected = s.ok();
    if (connected) {
      bool sent = false;
      Result<HttpConnection::Reply> reply = PostAuthorized(conn, ep, path, text, deadline, &sent);
      if (reply.ok()) {
        if (reply->status == 200) {
          preferred_.store(index);
          return gw::ParseObject(reply->body, where);
        }
        s = AuthError(gw::GatewayError(reply->status, reply->body, where),
                      options_.credentials.get());
        if (s.code() != EAGAIN && !(s.code() == ETIMEDOUT && s.is_retryable())) {
          preferred_.store(index);
          return s;
        }
        // UNAVAILABLE (no leader, leader changed): nothing was applied, another member may serve
        // it. etcd's "request timed out": the proposal may still commit, as a write without reply.
        connected = s.code() == ETIMEDOUT;
        no_leader = no_leader || gw::IsNoLeader(s);
      } else {
        s = reply.status();
        // A bad reply, or etcd refused the password: the same at every member.
        if (s.code() == EPROTO || (!sent && !s.is_retryable())) return s;
        // The authentication failed before the request went out: as a connect that failed.
        connected = sent;
        no_leader = no_leader || gw::IsNoLeader(s);
      }
    }
    if (!tried.empty()) tried += "; ";
    tried += s.message();
    last = s;
    all_unapplied = all_unapplied && NotSent(s, connected);
    if (!NotSent(s, connected) && !idempotent) {
      tried += " (a write without a reply is not resent: it may have been applied)";
      break;
    }
  }
  *election = no_leader && all_unapplied;
  if (no_leader) {
    tried +=
        " (no member that answered has a leader: an election is under way, or etcd has lost "
        "its quorum)";
  }
  return Status::Retryable(no_leader && all_unapplied ? EAGAIN : last.code(),
                           "etcd: no endpoint answered: " + tried);
}

Result<HttpConnection::Reply> Client::PostAuthorized(HttpConnection& conn, const Endpoint& ep,
                                                     std::string_view path, const std::string& text,
                                                     Clock::time_point deadline, bool* sent) const {
  *sent = false;
  Credentials* credentials = options_.credentials.get();
  std::string token;
  if (credentials != nullptr) {
    Result<std::string> t = credentials->Token(conn, ep, options_.max_reply_bytes, deadline);
    if (!t.ok()) return t.status();
    token = std::move(*t);
  }
  conn.set_token(token);
  *sent = true;
  Result<HttpConnection::Reply> reply = conn.Post(path, text, options_.max_reply_bytes, deadline);
  if (credentials == nullptr || !reply.ok() || reply->status == 200 ||
      !IsTokenRefused(gw::GatewayError(reply->status, reply->body, path))) {
    return reply;
  }
  // etcd refused the token before applying anything: a new one, and the request once more.
  credentials->Forget(token);
  Result<std::string> t = credentials->Token(conn, ep, options_.max_reply_bytes, deadline);
  if (!t.ok()) {
    *sent = false;
    return t.status();
  }
  conn.set_token(*t);
  return conn.Post(path, text, options_.max_reply_bytes, deadline);
}

Result<RangeResponse> Client::Range(const RangeRequest& req) const {
  Result<json> reply = Call("/v3/kv/range", gw::RangeJson(req), true);
  if (!reply.ok()) return reply.status();
  return gw::ParseRange(*reply);
}

Result<KeyValue> Client::Get(std::string_view key) const {
  Result<RangeResponse> r = Range(RangeRequest{std::string(key), {}, 0, 0});
  if (!r.ok()) return r.status();
  if (r->kvs.empty()) return Status::NotFound("etcd key '" + std::string(key) + "' not found");
  return std::move(r->kvs.front());
}

Result<RangeResponse> Client::GetPrefix(std::string_view prefix) const {
  return Range(RangeRequest{std::string(prefix), PrefixEnd(prefix), 0, 0});
}

Result<PutResponse> Client::Put(const PutRequest& req) const {
  Result<json> reply = Call("/v3/kv/put", gw::PutJson(req), false);
  if (!reply.ok()) return reply.status();
  Result<std::int64_t> rev = gw::ParseHeaderRevision(*reply);
  if (!rev.ok()) return rev.status();
  return PutResponse{*rev};
}

Result<DeleteResponse> Client::DeleteRange(const DeleteRequest& req) const {
  Result<json> reply = Call("/v3/kv/deleterange", gw::DeleteJson(req), false);
  if (!reply.ok()) return reply.status();
  Result<std::int64_t> rev = gw::ParseHeaderRevision(*reply);
  if (!rev.ok()) return rev.status();
  Result<std::int64_t> deleted = gw::GetInt64(*reply, "deleted");
  if (!deleted.ok()) return deleted.status();
  return DeleteResponse{*rev, *deleted};
}

Result<DeleteResponse> Client::DeletePrefix(std::string_view prefix) const {
  return DeleteRange(DeleteRequest{std::string(prefix), PrefixEnd(prefix)});
}

Result<TxnResponse> Client::Txn(const TxnRequest& req) const {
  for (const auto* branch : {&req.success, &req.failure}) {
    if (branch->size() > options_.max_txn_ops) {
      return Status::Invalid("etcd txn has " + std::to_string(branch->size()) +
                             " operations in one branch, more than max_txn_ops " +
                             std::to_string(options_.max_txn_ops));
    }
  }
  if (req.compare.size() > options_.max_txn_ops) {
    return Status::Invalid("etcd txn has " + std::to_string(req.compare.size()) +
                           " compares, more than max_txn_ops " +
                           std::to_string(options_.max_txn_ops));
  }
  Result<json> reply = Call("/v3/kv/txn", gw::TxnJson(req), false);
  if (!reply.ok()) return reply.status();
  return gw::ParseTxn(*reply);
}

Result<LeaseGrant> Client::LeaseGrantTtl(std::int64_t ttl_seconds, std::int64_t id) const {
  if (ttl_seconds <= 0) return Status::Invalid("etcd lease TTL must be > 0");
  json body{{"TTL", std::to_string(ttl_seconds)}};
  if (id != 0) body["ID"] = std::to_string(id);
  Result<json> reply = Call("/v3/lease/grant", body, false);
  if (!reply.ok()) return reply.status();
  LeaseGrant out;
  Result<std::int64_t> got_id = gw::GetInt64(*reply, "ID");
  if (!got_id.ok()) return got_id.status();
  Result<std::int64_t> ttl = gw::GetInt64(*reply, "TTL");
  if (!ttl.ok()) return ttl.status();
  Result<std::string> error = gw::GetString(*reply, "error");
  if (!error.ok()) return error.status();
  if (!error->empty()) return Status::Error(EIO, "etcd lease grant: " + *error);
  if (*got_id == 0 || *ttl <= 0) {
    return Status::Error(EPROTO, "etcd lease grant: reply without ID or TTL");
  }
  out.id = *got_id;
  out.ttl = *ttl;
  return out;
}

Result<std::int64_t> Client::LeaseKeepAlive(std::int64_t id) const {
  // A streaming RPC on the gateway: one request in the body, the reply wrapped in "result".
  Result<json> reply = Call("/v3/lease/keepalive", json{{"ID", std::to_string(id)}}, true);
  if (!reply.ok()) return reply.status();
  auto it = reply->find("result");
  if (it == reply->end() || !it->is_object()) {
    // An error after the stream started ({"error":{"grpc_code":14,...}}): etcd's, mapped.
    if (reply->contains("error"))
      return gw::GatewayError(200, reply->dump(), "etcd lease keepalive");
    return Status::Error(EPROTO, "etcd lease keepalive: reply without 'result'");
  }
  Result<std::int64_t> ttl = gw::GetInt64(*it, "TTL");
  if (!ttl.ok()) return ttl.status();
  // An expired or unknown lease is answered with TTL 0 (omitted), not an error.
  if (*ttl <= 0) return Status::NotFound("etcd lease " + std::to_string(id) + " not found");
  return *ttl;
}

Status Client::LeaseRevoke(std::int64_t id) const {
  Result<json> reply = Call("/v3/lease/revoke", json{{"ID", std::to_string(id)}}, false);
  return reply.ok() ? Status::OK() : reply.status();
}

}  // namespace ec::etcd
