#include "cluster/etcd/etcd_json.h"

#include <boost/beast/core/detail/base64.hpp>
#include <charconv>

namespace ec::etcd {

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto last = static_cast<unsigned char>(end.back());
    if (last < 0xff) {
      end.back() = static_cast<char>(last + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');
}

Compare Compare::Number(std::string key, Target target, std::int64_t number, Result result) {
  Compare c;
  c.target = target;
  c.result = result;
  c.key = std::move(key);
  c.number = number;
  return c;
}

TxnOp TxnOp::Put(std::string key, std::string value, std::int64_t lease) {
  TxnOp op;
  op.kind = Kind::kPut;
  op.key = std::move(key);
  op.value = std::move(value);
  op.lease = lease;
  return op;
}

TxnOp TxnOp::Delete(std::string key, std::string range_end) {
  TxnOp op;
  op.kind = Kind::kDelete;
  op.key = std::move(key);
  op.range_end = std::move(range_end);
  return op;
}

TxnOp TxnOp::Range(std::string key, std::string range_end, std::int64_t limit) {
  TxnOp op;
  op.kind = Kind::kRange;
  op.key = std::move(key);
  op.range_end = std::move(range_end);
  op.limit = limit;
  return op;
}

namespace gw {

namespace b64 = boost::beast::detail::base64;
using nlohmann::json;

std::string Base64Encode(std::string_view bytes) {
  std::string out(b64::encoded_size(bytes.size()), '\0');
  out.resize(b64::encode(out.data(), bytes.data(), bytes.size()));
  return out;
}

Result<std::string> Base64Decode(std::string_view text) {
  // Boost's decoder stops silently at the first bad character, so the text is checked first.
  if (text.size() % 4 != 0) return Status::Error(EPROTO, "base64 length not a multiple of 4");
  std::size_t pad = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    bool alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '+' || c == '/';
    if (c == '=') {
      ++pad;
    } else if (!alpha || pad > 0) {
      return Status::Error(EPROTO, "bad base64 character");
    }
  }
  if (pad > 2) return Status::Error(EPROTO, "bad base64 padding");
  std::string out(b64::decoded_size(text.size()), '\0');
  auto [written, read] = b64::decode(out.data(), text.data(), text.size());
  (void)read;
  out.resize(written);
  return out;
}

namespace {
Status WrongType(const char* field, const char* want) {
  return Status::Error(EPROTO, std::string("etcd reply field '") + field + "': expected " + want);
}
const json* Find(const json& obj, const char* field) {
  auto it = obj.find(field);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}
}  // namespace

Result<std::int64_t> GetInt64(const json& obj, const char* field) {
  if (!obj.is_object()) return WrongType(field, "an object around it");
  const json* v = Find(obj, field);
  if (v == nullptr) return std::int64_t{0};
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() && v->get<std::uint64_t>() > INT64_MAX) {
      return WrongType(field, "an int64");
    }
    return v->get<std::int64_t>();
  }
  if (!v->is_string()) return WrongType(field, "an int64 string");
  const std::string& s = v->get_ref<const std::string&>();
  std::int64_t out = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return WrongType(field, "an int64 string");
  }
  return out;
}

Result<bool> GetBool(const json& obj, const char* field) {
  if (!obj.is_object()) return WrongType(field, "an object around it");
  const json* v = Find(obj, field);
  if (v == nullptr) return false;
  if (!v->is_boolean()) return WrongType(field, "a boolean");
  return v->get<bool>();
}

Result<std::string> GetString(const json& obj, const char* field) {
  if (!obj.is_object()) return WrongType(field, "an object around it");
  const json* v = Find(obj, field);
  if (v == nullptr) return std::string();
  if (!v->is_string()) return WrongType(field, "a string");
  return v->get<std::string>();
}

Result<std::string> GetBytes(const json& obj, const char* field) {
  Result<std::string> text = GetString(obj, field);
  if (!text.ok()) return text.status();
  Result<std::string> bytes = Base64Decode(*text);
  if (!bytes.ok())
    return bytes.status().WithPrefix(std::string("etcd reply field '") + field + "'");
  return bytes;
}

Result<json> ParseObject(std::string_view body, std::string_view what) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Error(EPROTO, std::string(what) + ": reply is not JSON");
  if (!j.is_object()) return Status::Error(EPROTO, std::string(what) + ": reply is not an object");
  return j;
}

namespace {
constexpr std::string_view kNoLeader = "etcdserver: no leader";
}  // namespace

Status GatewayError(unsigned http_status, std::string_view body, std::string_view where) {
  std::string message;
  std::int64_t code = -1;
  json j = json::parse(body, nullptr, false);
  // Streaming calls nest the error: {"error":{"grpc_code":14,"message":"..."}}.
  if (j.is_object()) {
    if (auto it = j.find("error"); it != j.end() && it->is_object()) {
      json inner = *it;
      j = std::move(inner);
    }
  }
  if (j.is_object()) {
    if (auto it = j.find("message"); it != j.end() && it->is_string()) message = *it;
    if (message.empty()) {
      if (auto it = j.find("error"); it != j.end() && it->is_string()) message = *it;
    }
    for (const char* field : {"code", "grpc_code"}) {
      if (auto it = j.find(field); it != j.end() && it->is_number_integer()) code = *it;
    }
  }
  if (message.empty()) message = std::string(body.substr(0, 200));
  const std::string text =
      std::string(where) + ": " + message + " (HTTP " + std::to_string(http_status) + ")";
  switch (code) {
    case 3:
      return Status::Error(EINVAL, text);
    case 4:
      return Status::Retryable(ETIMEDOUT, text);
    case 5:
      return Status::NotFound(text);
    case 11:
      return Status::Error(ERANGE, text);
    case 8:
      return Status::Error(EMSGSIZE, text);
    case 7:   // PermissionDenied: the user's roles do not allow the request
    case 16:  // Unauthenticated: a token etcd does not take (etcd_auth.h)
      return Status::Error(EACCES, text);
    case 14:
      // "request timed out" (possibly due to a previous leader failure or a lost connection):
      // etcd stopped waiting for a proposal that may still be applied.
      if (message.find("request timed out") != std::string::npos) {
        return Status::Retryable(ETIMEDOUT, text);
      }
      return Status::Retryable(EAGAIN, text);
    default:
      break;
  }
  if (http_status == 404) return Status::NotFound(text);
  if (http_status == 400) return Status::Error(EINVAL, text);
  if (http_status == 503) return Status::Retryable(EAGAIN, text);
  return Status::Error(EIO, text);
}

bool IsNoLeader(const Status& s) {
  return s.code() == EAGAIN && s.message().find(kNoLeader) != std::string::npos;
}

#define EC_ASSIGN(lhs, expr)                \
  do {                                      \
    auto ec_r_ = (expr);                    \
    if (!ec_r_.ok()) return ec_r_.status(); \
    lhs = std::move(ec_r_).value();         \
  } while (0)

Result<KeyValue> ParseKeyValue(const json& obj) {
  if (!obj.is_object()) return WrongType("kv", "an object");
  KeyValue kv;
  EC_ASSIGN(kv.key, GetBytes(obj, "key"));
  EC_ASSIGN(kv.value, GetBytes(obj, "value"));
  EC_ASSIGN(kv.create_revision, GetInt64(obj, "create_revision"));
  EC_ASSIGN(kv.mod_revision, GetInt64(obj, "mod_revision"));
  EC_ASSIGN(kv.version, GetInt64(obj, "version"));
  EC_ASSIGN(kv.lease, GetInt64(obj, "lease"));
  return kv;
}

Result<std::int64_t> ParseHeaderRevision(const json& reply) {
  if (!reply.is_object()) return WrongType("header", "an object around it");
  const json* header = Find(reply, "header");
  if (header == nullptr) return std::int64_t{0};
  if (!header->is_object()) return WrongType("header", "an object");
  return GetInt64(*header, "revision");
}

Result<RangeResponse> ParseRange(const json& reply) {
  RangeResponse out;
  EC_ASSIGN(out.revision, ParseHeaderRevision(reply));
  EC_ASSIGN(out.more, GetBool(reply, "more"));
  EC_ASSIGN(out.count, GetInt64(reply, "count"));
  if (const json* kvs = Find(reply, "kvs")) {
    if (!kvs->is_array()) return WrongType("kvs", "an array");
    for (const json& item : *kvs) {
      KeyValue kv;
      EC_ASSIGN(kv, ParseKeyValue(item));
      out.kvs.push_back(std::move(kv));
    }
  }
  return out;
}

Result<TxnResponse> ParseTxn(const json& reply) {
  TxnResponse out;
  EC_ASSIGN(out.revision, ParseHeaderRevision(reply));
  EC_ASSIGN(out.succeeded, GetBool(reply, "succeeded"));
  const json* responses = Find(reply, "responses");
  if (responses == nullptr) return out;
  if (!responses->is_array()) return WrongType("responses", "an array");
  for (const json& item : *responses) {
    if (!item.is_object()) return WrongType("responses[]", "an object");
    TxnOpResponse r;
    if (const json* p = Find(item, "response_put")) {
      r.kind = TxnOp::Kind::kPut;
      EC_ASSIGN(r.put.revision, ParseHeaderRevision(*p));
    } else if (const json* d = Find(item, "response_delete_range")) {
      r.kind = TxnOp::Kind::kDelete;
      EC_ASSIGN(r.del.revision, ParseHeaderRevision(*d));
      EC_ASSIGN(r.del.deleted, GetInt64(*d, "deleted"));
    } else if (const json* g = Find(item, "response_range")) {
      r.kind = TxnOp::Kind::kRange;
      EC_ASSIGN(r.range, ParseRange(*g));
    } else {
      return WrongType("responses[]", "response_put, response_delete_range or response_range");
    }
    out.responses.push_back(std::move(r));
  }
  return out;
}

Result<Event> ParseEvent(const json& obj) {
  if (!obj.is_object()) return WrongType("events[]", "an object");
  Event ev;
  std::string type;
  EC_ASSIGN(type, GetString(obj, "type"));
  if (type.empty() || type == "PUT") {
    ev.type = Event::Type::kPut;  // PUT is the enum's default, so the gateway omits it
  } else if (type == "DELETE") {
    ev.type = Event::Type::kDelete;
  } else {
    return WrongType("type", "PUT or DELETE");
  }
  const json* kv = Find(obj, "kv");
  if (kv == nullptr) return WrongType("kv", "an object");
  EC_ASSIGN(ev.kv, ParseKeyValue(*kv));
  return ev;
}

#undef EC_ASSIGN

namespace {
const char* TargetName(Compare::Target t) {
  switch (t) {
    case Compare::Target::kCreate:
      return "CREATE";
    case Compare::Target::kVersion:
      return "VERSION";
    case Compare::Target::kMod:
      return "MOD";
    case Compare::Target::kValue:
      return "VALUE";
    case Compare::Target::kLease:
      return "LEASE";
  }
  return "MOD";
}
const char* ResultName(Compare::Result r) {
  switch (r) {
    case Compare::Result::kEqual:
      return "EQUAL";
    case Compare::Result::kGreater:
      return "GREATER";
    case Compare::Result::kLess:
      return "LESS";
    case Compare::Result::kNotEqual:
      return "NOT_EQUAL";
  }
  return "EQUAL";
}
json OpJson(const TxnOp& op) {
  switch (op.kind) {
    case TxnOp::Kind::kPut:
      return json{{"request_put", PutJson(PutRequest{op.key, op.value, op.lease})}};
    case TxnOp::Kind::kDelete:
      return json{{"request_delete_range", DeleteJson(DeleteRequest{op.key, op.range_end})}};
    case TxnOp::Kind::kRange:
      return json{{"request_range", RangeJson(RangeRequest{op.key, op.range_end, op.limit, 0})}};
  }
  return json::object();
}
}  // namespace

json RangeJson(const RangeRequest& req) {
  json j{{"key", Base64Encode(req.key)}};
  if (!req.range_end.empty()) j["range_end"] = Base64Encode(req.range_end);
  if (req.limit != 0) j["limit"] = std::to_string(req.limit);
  if (req.revision != 0) j["revision"] = std::to_string(req.revision);
  return j;
}

json PutJson(const PutRequest& req) {
  json j{{"key", Base64Encode(req.key)}, {"value", Base64Encode(req.value)}};
  if (req.lease != 0) j["lease"] = std::to_string(req.lease);
  return j;
}

json DeleteJson(const DeleteRequest& req) {
  json j{{"key", Base64Encode(req.key)}};
  if (!req.range_end.empty()) j["range_end"] = Base64Encode(req.range_end);
  return j;
}

json TxnJson(const TxnRequest& req) {
  json compare = json::array();
  for (const Compare& c : req.compare) {
    json j{{"key", Base64Encode(c.key)},
           {"target", TargetName(c.target)},
           {"result", ResultName(c.result)}};
    if (!c.range_end.empty()) j["range_end"] = Base64Encode(c.range_end);
    switch (c.target) {
      case Compare::Target::kCreate:
        j["create_revision"] = std::to_string(c.number);
        break;
      case Compare::Target::kVersion:
        j["version"] = std::to_string(c.number);
        break;
      case Compare::Target::kMod:
        j["mod_revision"] = std::to_string(c.number);
        break;
      case Compare::Target::kLease:
        j["lease"] = std::to_string(c.number);
        break;
      case Compare::Target::kValue:
        j["value"] = Base64Encode(c.value);
        break;
    }
    compare.push_back(std::move(j));
  }
  json success = json::array();
  for (const TxnOp& op : req.success) success.push_back(OpJson(op));
  json failure = json::array();
  for (const TxnOp& op : req.failure) failure.push_back(OpJson(op));
  return json{{"compare", compare}, {"success", success}, {"failure", failure}};
}

}  // namespace gw
}  // namespace ec::etcd
