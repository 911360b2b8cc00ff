// The JSON side of etcd's gRPC gateway: base64 keys and values, int64 fields as strings, fields at
// their default omitted. Internal to the etcd client; every reader is defensive: a wrong type, a
// bad base64 string or a missing object is EPROTO naming the field, never an exception or a crash.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_types.h"
#include "common/status.h"

namespace ec::etcd::gw {

std::string Base64Encode(std::string_view bytes);
// Strict: only the standard alphabet, length a multiple of 4, '=' padding only at the end.
Result<std::string> Base64Decode(std::string_view text);

// Readers of one field of obj; a missing field (or JSON null) gives the default. EPROTO when obj
// is not an object, or the field has the wrong type or does not parse.
Result<std::int64_t> GetInt64(const nlohmann::json& obj, const char* field);
Result<bool> GetBool(const nlohmann::json& obj, const char* field);
Result<std::string> GetString(const nlohmann::json& obj, const char* field);
Result<std::string> GetBytes(const nlohmann::json& obj, const char* field);  // base64 decoded

// Parses a body as JSON; EPROTO when it is not JSON or not an object.
Result<nlohmann::json> ParseObject(std::string_view body, std::string_view what);

// Message readers: obj is the gateway's JSON of that message.
Result<KeyValue> ParseKeyValue(const nlohmann::json& obj);
Result<std::int64_t> ParseHeaderRevision(const nlohmann::json& reply);  // reply.header.revision
Result<RangeResponse> ParseRange(const nlohmann::json& reply);
Result<TxnResponse> ParseTxn(const nlohmann::json& reply);
Result<Event> ParseEvent(const nlohmann::json& obj);

// An error reply of the gateway as a Status: `body` is {"error","message","code"} (unary calls) or
// {"error":{"grpc_code","message",...}} (streaming calls), `where` names the endpoint and call.
// The message is etcd's; the gRPC code decides the errno: InvalidArgument EINVAL, NotFound ENOENT,
// OutOfRange ERANGE, ResourceExhausted EMSGSIZE, PermissionDenied and Unauthenticated EACCES
// (etcd's users, etcd_auth.h), DeadlineExceeded ETIMEDOUT (retryable),
// Unavailable EAGAIN (retryable) except etcd's "request timed out" family, ETIMEDOUT (retryable):
// a proposal etcd stopped waiting for, which may still commit. Without a code, the HTTP status
// decides (404 ENOENT, 400 EINVAL, 503 EAGAIN); anything else is EIO.
Status GatewayError(unsigned http_status, std::string_view body, std::string_view where);
// Whether an error of GatewayError says the member has no leader ("etcdserver: no leader"): it
// applied nothing, and another member (or the same after an election) may serve the request.
bool IsNoLeader(const Status& s);

// Request builders.
nlohmann::json RangeJson(const RangeRequest& req);
nlohmann::json PutJson(const PutRequest& req);
nlohmann::json DeleteJson(const DeleteRequest& req);
nlohmann::json TxnJson(const TxnRequest& req);

}  // namespace ec::etcd::gw
