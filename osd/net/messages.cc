#include "osd/net/messages.h"

#include <fmt/format.h>

#include <type_traits>

#include "common/codec.h"

namespace ec::net {

namespace {

// Smallest encoded sizes, so that a count can be checked against the bytes left.
constexpr std::size_t kMinAttrSize = 8;     // two empty strings
constexpr std::size_t kMinExtentSize = 16;  // offset, length
constexpr std::size_t kMinLengthSize = 8;   // u64
constexpr std::size_t kMinEntrySize = 8;    // empty name, shard

void PutStatus(Encoder& w, const Status& s) {
  w.I32(s.code());
  w.U8(static_cast<std::uint8_t>(s.error_class()));
  const std::size_t max = Limits{}.max_message_len;
  const std::string& m = s.message();
  w.String(m.size() > max ? std::string_view(m).substr(0, max) : std::string_view(m));
}

bool GetStatus(Decoder& r, const Limits& limits, Status* out) {
  std::int32_t code;
  std::uint8_t cls;
  std::string message;
  if (!r.I32(&code, "status.code") || !r.U8(&cls, "status.class") ||
      !r.String(&message, limits.max_message_len, "status.message")) {
    return false;
  }
  const auto c = static_cast<Status::Class>(cls);
  if (cls > static_cast<std::uint8_t>(Status::Class::kRetryable)) {
    return r.Fail(Status::Error(EBADMSG, fmt::format("status.class: bad value {}", cls)));
  }
  if ((c == Status::Class::kOk) != (code == 0) || code < 0) {
    return r.Fail(
        Status::Error(EBADMSG, fmt::format("status: code {} does not match class {}", code, cls)));
  }
  switch (c) {
    case Status::Class::kOk:
      *out = Status::OK();
      break;
    case Status::Class::kError:
      *out = Status::Error(code, std::move(message));
      break;
    case Status::Class::kDataLoss:
      *out = Status::DataLoss(std::move(message));
      break;
    case Status::Class::kRetryable:
      *out = Status::Retryable(code, std::move(message));
      break;
  }
  return true;
}

void PutAttrs(Encoder& w, const std::vector<Attr>& attrs) {
  w.U32(static_cast<std::uint32_t>(attrs.size()));
  for (const Attr& a : attrs) {
    w.String(a.key);
    w.String(a.value);
  }
}

bool GetAttrs(Decoder& r, const Limits& limits, std::string_view what, std::vector<Attr>* attrs) {
  std::uint32_t n;
  if (!r.Count(&n, limits.max_attrs, kMinAttrSize, what)) return false;
  attrs->resize(n);
  for (Attr& a : *attrs) {
    if (!r.String(&a.key, limits.max_attr_len, what) ||
        !r.String(&a.value, limits.max_attr_len, what)) {
      return false;
    }
  }
  return true;
}

// collection, object, shard: the address of one shard.
void PutShardId(Encoder& w, const std::string& coll, const std::string& object,
                std::uint32_t shard) {
  w.String(coll);
  w.String(object);
  w.U32(shard);
}

bool GetShardId(Decoder& r, const Limits& limits, std::string* coll, std::string* object,
                std::uint32_t* shard) {
  return r.String(coll, limits.max_collection_len, "collection") &&
         r.String(object, limits.max_name_len, "object") && r.U32(shard, "shard");
}

void Put(Encoder& w, const PingRequest& m) {
  w.U32(m.response_len);
}
void Put(Encoder& w, const WriteShardRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
  w.U64(m.version);
  w.U64(m.offset);
  w.U32(m.flags);
  PutAttrs(w, m.attrs);
}
void Put(Encoder& w, const ReadShardRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
  w.U32(static_cast<std::uint32_t>(m.extents.size()));
  for (const ByteExtent& e : m.extents) {
    w.U64(e.offset);
    w.U64(e.length);
  }
}
void Put(Encoder& w, const StatRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
}
void Put(Encoder& w, const ListRequest& m) {
  w.String(m.collection);
  w.String(m.cursor);
  w.U32(m.max_entries);
}
void Put(Encoder& w, const RemoveRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
}

void Put(Encoder& w, const PingReply& m) {
  PutStatus(w, m.status);
}
void Put(Encoder& w, const WriteShardReply& m) {
  PutStatus(w, m.status);
}
void Put(Encoder& w, const ReadShardReply& m) {
  PutStatus(w, m.status);
  w.U64(m.object_size);
  w.U64(m.version);
  w.U32(static_cast<std::uint32_t>(m.lengths.size()));
  for (std::uint64_t l : m.lengths) w.U64(l);
}
void Put(Encoder& w, const StatReply& m) {
  PutStatus(w, m.status);
  w.U64(m.size);
  w.U64(m.version);
  PutAttrs(w, m.attrs);
}
void Put(Encoder& w, const ListReply& m) {
  PutStatus(w, m.status);
  w.U32(static_cast<std::uint32_t>(m.entries.size()));
  for (const ListEntry& e : m.entries) {
    w.String(e.object);
    w.U32(e.shard);
  }
  w.String(m.next_cursor);
  w.U8(m.end ? 1 : 0);
}
void Put(Encoder& w, const RemoveReply& m) {
  PutStatus(w, m.status);
}

bool Get(Decoder& r, const Limits&, PingRequest* m) {
  return r.U32(&m->response_len, "response_len");
}
bool Get(Decoder& r, const Limits& limits, WriteShardRequest* m) {
  if (!GetShardId(r, limits, &m->collection, &m->object, &m->shard) ||
      !r.U64(&m->version, "version") || !r.U64(&m->offset, "offset") ||
      !r.U32(&m->flags, "flags")) {
    return false;
  }
  if ((m->flags & ~kKnownWriteFlags) != 0) {
    return r.Fail(Status::Error(EBADMSG, fmt::format("flags: unknown bits {:#x}", m->flags)));
  }
  return GetAttrs(r, limits, "attrs", &m->attrs);
}
bool Get(Decoder& r, const Limits& limits, ReadShardRequest* m) {
  std::uint32_t n;
  if (!GetShardId(r, limits, &m->collection, &m->object, &m->shard) ||
      !r.Count(&n, limits.max_extents, kMinExtentSize, "extents")) {
    return false;
  }
  m->extents.resize(n);
  for (ByteExtent& e : m->extents) {
    if (!r.U64(&e.offset, "extent.offset") || !r.U64(&e.length, "extent.length")) return false;
  }
  return true;
}
bool Get(Decoder& r, const Limits& limits, StatRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard);
}
bool Get(Decoder& r, const Limits& limits, ListRequest* m) {
  return r.String(&m->collection, limits.max_collection_len, "collection") &&
         r.String(&m->cursor, limits.max_name_len, "cursor") &&
         r.U32(&m->max_entries, "max_entries");
}
bool Get(Decoder& r, const Limits& limits, RemoveRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard);
}

bool Get(Decoder& r, const Limits& limits, PingReply* m) {
  return GetStatus(r, limits, &m->status);
}
bool Get(Decoder& r, const Limits& limits, WriteShardReply* m) {
  return GetStatus(r, limits, &m->status);
}
bool Get(Decoder& r, const Limits& limits, ReadShardReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) || !r.U64(&m->object_size, "object_size") ||
      !r.U64(&m->version, "version") ||
      !r.Count(&n, limits.max_extents, kMinLengthSize, "lengths")) {
    return false;
  }
  m->lengths.resize(n);
  for (std::uint64_t& l : m->lengths) {
    if (!r.U64(&l, "length")) return false;
  }
  return true;
}
bool Get(Decoder& r, const Limits& limits, StatReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->size, "size") &&
         r.U64(&m->version, "version") && GetAttrs(r, limits, "attrs", &m->attrs);
}
bool Get(Decoder& r, const Limits& limits, ListReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) ||
      !r.Count(&n, limits.max_list_entries, kMinEntrySize, "entries")) {
    return false;
  }
  m->entries.resize(n);
  for (ListEntry& e : m->entries) {
    if (!r.String(&e.object, limits.max_name_len, "entry.object") ||
        !r.U32(&e.shard, "entry.shard")) {
      return false;
    }
  }
  std::uint8_t end;
  if (!r.String(&m->next_cursor, limits.max_name_len, "next_cursor") || !r.U8(&end, "end")) {
    return false;
  }
  if (end > 1) return r.Fail(Status::Error(EBADMSG, fmt::format("end: bad value {}", end)));
  m->end = end == 1;
  return true;
}
bool Get(Decoder& r, const Limits& limits, RemoveReply* m) {
  return GetStatus(r, limits, &m->status);
}

// Index i of RequestBody / ReplyBody is message type i + 2 (Ping = 2 ... Remove = 7).
constexpr std::uint16_t kFirstOpType = static_cast<std::uint16_t>(MsgType::kPing);

template <typename Variant, std::size_t I = 0>
bool DecodeAlternative(std::size_t index, Decoder& r, const Limits& limits, Variant* out) {
  if constexpr (I < std::variant_size_v<Variant>) {
    if (index == I) {
      std::variant_alternative_t<I, Variant> m;
      if (!Get(r, limits, &m)) return false;
      *out = std::move(m);
      return true;
    }
    return DecodeAlternative<Variant, I + 1>(index, r, limits, out);
  }
  return false;
}

template <typename Variant>
Result<Variant> DecodeBody(MsgType type, bool reply, std::span<const std::byte> bytes,
                           const Limits& limits) {
  const auto raw = static_cast<std::uint16_t>(type);
  const std::uint16_t base = raw & ~kReplyBit;
  if (IsReply(type) != reply || base < kFirstOpType || base > kMaxRequestType) {
    return Status::Error(
        EBADMSG, fmt::format("message type {:#06x} is not a {}", raw, reply ? "reply" : "request"));
  }
  Decoder r(bytes);
  Variant out;
  DecodeAlternative<Variant>(base - kFirstOpType, r, limits, &out);
  EC_RETURN_IF_ERROR(r.Finish(TypeName(type)));
  return out;
}

}  // namespace

MsgType TypeOf(const RequestBody& body) {
  return static_cast<MsgType>(kFirstOpType + body.index());
}

MsgType TypeOf(const ReplyBody& body) {
  return ReplyTypeOf(static_cast<MsgType>(kFirstOpType + body.index()));
}

const Status& StatusOf(const ReplyBody& body) {
  return std::visit([](const auto& m) -> const Status& { return m.status; }, body);
}

ReplyBody ErrorReply(MsgType request, Status status) {
  const std::uint16_t base = static_cast<std::uint16_t>(request) & ~kReplyBit;
  ReplyBody body;
  switch (static_cast<MsgType>(base)) {
    case MsgType::kWriteShard:
      body = WriteShardReply{};
      break;
    case MsgType::kReadShard:
      body = ReadShardReply{};
      break;
    case MsgType::kStat:
      body = StatReply{};
      break;
    case MsgType::kList:
      body = ListReply{};
      break;
    case MsgType::kRemove:
      body = RemoveReply{};
      break;
    default:
      body = PingReply{};
      break;
  }
  std::visit([&](auto& m) { m.status = std::move(status); }, body);
  return body;
}

void EncodeHello(const Hello& m, std::vector<std::byte>& out) {
  Encoder w(out);
  w.U16(m.min_version);
  w.U16(m.max_version);
  w.U64(m.features);
  w.U32(m.max_header_len);
  w.U32(m.max_payload_len);
  w.String(m.name);
}

void EncodeHelloReply(const HelloReply& m, std::vector<std::byte>& out) {
  Encoder w(out);
  PutStatus(w, m.status);
  w.U16(m.version);
  w.U64(m.features);
  w.U32(m.max_header_len);
  w.U32(m.max_payload_len);
  w.U32(m.max_inflight);
  w.U32(m.max_extents);
  w.U32(m.max_attrs);
  w.U32(m.max_list_entries);
  w.String(m.name);
}

void EncodeRequest(const RequestBody& m, std::vector<std::byte>& out) {
  Encoder w(out);
  std::visit([&](const auto& body) { Put(w, body); }, m);
}

void EncodeReply(const ReplyBody& m, std::vector<std::byte>& out) {
  Encoder w(out);
  std::visit([&](const auto& body) { Put(w, body); }, m);
}

Result<Hello> DecodeHello(std::span<const std::byte> bytes, const Limits& limits) {
  Decoder r(bytes);
  Hello m;
  r.U16(&m.min_version, "min_version") && r.U16(&m.max_version, "max_version") &&
      r.U64(&m.features, "features") && r.U32(&m.max_header_len, "max_header_len") &&
      r.U32(&m.max_payload_len, "max_payload_len") &&
      r.String(&m.name, limits.max_name_len, "name");
  EC_RETURN_IF_ERROR(r.Finish("Hello"));
  return m;
}

Result<HelloReply> DecodeHelloReply(std::span<const std::byte> bytes, const Limits& limits) {
  Decoder r(bytes);
  HelloReply m;
  GetStatus(r, limits, &m.status) && r.U16(&m.version, "version") &&
      r.U64(&m.features, "features") && r.U32(&m.max_header_len, "max_header_len") &&
      r.U32(&m.max_payload_len, "max_payload_len") && r.U32(&m.max_inflight, "max_inflight") &&
      r.U32(&m.max_extents, "max_extents") && r.U32(&m.max_attrs, "max_attrs") &&
      r.U32(&m.max_list_entries, "max_list_entries") &&
      r.String(&m.name, limits.max_name_len, "name");
  EC_RETURN_IF_ERROR(r.Finish("HelloReply"));
  return m;
}

Result<RequestBody> DecodeRequest(MsgType type, std::span<const std::byte> bytes,
                                  const Limits& limits) {
  return DecodeBody<RequestBody>(type, false, bytes, limits);
}

Result<ReplyBody> DecodeReply(MsgType type, std::span<const std::byte> bytes,
                              const Limits& limits) {
  return DecodeBody<ReplyBody>(type, true, bytes, limits);
}

Status ValidateRequest(const RequestBody& body, std::uint64_t payload_len, const Limits& limits,
                       std::uint64_t reply_payload_limit) {
  auto check_names = [](const std::string& coll, const std::string* object) -> Status {
    if (coll.empty()) return Status::Invalid("empty collection name");
    if (object && object->empty()) return Status::Invalid("empty object name");
    return Status::OK();
  };
  if (const auto* m = std::get_if<WriteShardRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
    if (m->offset > UINT64_MAX - payload_len) {
      return Status::Invalid(
          fmt::format("write offset {} + length {} overflows", m->offset, payload_len));
    }
  } else if (const auto* m = std::get_if<ReadShardRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
    if (m->extents.empty() || m->extents.size() > limits.max_extents) {
      return Status::Invalid(
          fmt::format("{} extents (allowed 1..{})", m->extents.size(), limits.max_extents));
    }
    std::uint64_t total = 0;
    for (const ByteExtent& e : m->extents) {
      if (e.offset > UINT64_MAX - e.length) {
        return Status::Invalid(fmt::format("extent {}+{} overflows", e.offset, e.length));
      }
      total += e.length;
      if (total > reply_payload_limit) {
        return Status::Error(EMSGSIZE, fmt::format("extents total more than the reply limit {}",
                                                   reply_payload_limit));
      }
    }
  } else if (const auto* m = std::get_if<StatRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
  } else if (const auto* m = std::get_if<RemoveRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, &m->object));
  } else if (const auto* m = std::get_if<ListRequest>(&body)) {
    EC_RETURN_IF_ERROR(check_names(m->collection, nullptr));
    if (m->max_entries == 0 || m->max_entries > limits.max_list_entries) {
      return Status::Invalid(
          fmt::format("max_entries {} (allowed 1..{})", m->max_entries, limits.max_list_entries));
    }
  } else if (const auto* m = std::get_if<PingRequest>(&body)) {
    if (m->response_len > reply_payload_limit) {
      return Status::Error(EMSGSIZE, fmt::format("response_len {} exceeds the reply limit {}",
                                                 m->response_len, reply_payload_limit));
    }
  }
  return Status::OK();
}

}  // namespace ec::net
