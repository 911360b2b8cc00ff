// Typed messages of the OSD protocol and their message-header (de)serialisation
// (osd/net/PROTOCOL.md lists every field). A message travels as a frame: fixed header (frame.h),
// then the message header encoded here, then the payload (bulk bytes: shard data, ping bytes),
// which is never part of these structs: it travels beside them as ec::Buffer(s).
//
// Decoding is bounds-checked: every count and string length is compared with Limits and with the
// bytes left before anything is allocated; trailing bytes are an error. Decode errors are
// Status EBADMSG (EMSGSIZE when a count or length exceeds Limits) naming the message and field.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "osd/net/frame.h"

namespace ec::net {

// Feature bits announced in the handshake. Version 1 defines none.
inline constexpr std::uint64_t kKnownFeatures = 0;

struct Attr {
  std::string key;
  std::string value;
  bool operator==(const Attr&) const = default;
};

struct ByteExtent {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool operator==(const ByteExtent&) const = default;
};

// Handshake. The client's first frame must be a Hello (tag 0); the server answers HelloReply,
// with an error status (then closes) when no version is common or a limit is unacceptable.
struct Hello {
  std::uint16_t min_version = kProtocolVersionMin;
  std::uint16_t max_version = kProtocolVersionMax;
  std::uint64_t features = 0;
  std::uint32_t max_header_len = 0;  // what the client accepts in replies
  std::uint32_t max_payload_len = 0;
  std::string name;  // for logs; at most Limits::max_name_len
};
struct HelloReply {
  Status status;                     // error: refused, the server closes after sending this
  std::uint16_t version = 0;         // chosen version (0 when refused)
  std::uint64_t features = 0;        // common features
  std::uint32_t max_header_len = 0;  // the server's receive limits
  std::uint32_t max_payload_len = 0;
  std::uint32_t max_inflight = 0;  // requests the server reads per connection before waiting
  std::uint32_t max_extents = 0;
  std::uint32_t max_attrs = 0;
  std::uint32_t max_list_entries = 0;
  std::string name;
};

// Ping: the request payload carries N bytes (any content); the reply carries response_len bytes.
struct PingRequest {
  std::uint32_t response_len = 0;
};
struct PingReply {
  Status status;
};

// WriteShard flags.
inline constexpr std::uint32_t kWriteReplace = 1;  // truncate the shard to 0, then write
inline constexpr std::uint32_t kKnownWriteFlags = kWriteReplace;

// Writes the payload at `offset` of one shard and sets `attrs`, all as one store transaction,
// and records `version` as the shard's object version.
struct WriteShardRequest {
  std::string collection;  // placement group, e.g. "pg.1.3"
  std::string object;
  std::uint32_t shard = 0;
  std::uint64_t version = 0;
  std::uint64_t offset = 0;
  std::uint32_t flags = 0;  // kWrite* bits; unknown bits are a decode error
  std::vector<Attr> attrs;
};
struct WriteShardReply {
  Status status;
};

// Reads extents of one shard. The reply's lengths[i] is what extent i returned (shorter than
// asked at the end of the shard); the payload is the extents' bytes concatenated in order.
struct ReadShardRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
  std::vector<ByteExtent> extents;  // at most Limits::max_extents (ValidateRequest: >= 1)
};
struct ReadShardReply {
  Status status;
  std::uint64_t object_size = 0;  // the shard's size (0 if the server does not report it)
  std::uint64_t version = 0;      // the shard's object version (0 if unknown)
  std::vector<std::uint64_t> lengths;
};

struct StatRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
};
struct StatReply {
  Status status;
  std::uint64_t size = 0;
  std::uint64_t version = 0;
  std::vector<Attr> attrs;
};

// Lists the shards of a collection in pages. `cursor` is opaque to the client: empty for the
// first page, then the previous reply's next_cursor (exclusive start).
struct ListRequest {
  std::string collection;
  std::string cursor;
  std::uint32_t max_entries = 0;  // 1..Limits::max_list_entries (ValidateRequest)
};
struct ListEntry {
  std::string object;
  std::uint32_t shard = 0;
  bool operator==(const ListEntry&) const = default;
};
struct ListReply {
  Status status;
  std::vector<ListEntry> entries;
  std::string next_cursor;  // pass back to continue; meaningful when !end
  bool end = true;          // no entries after these
};

struct RemoveRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
};
struct RemoveReply {
  Status status;
};

using RequestBody = std::variant<PingRequest, WriteShardRequest, ReadShardRequest, StatRequest,
                                 ListRequest, RemoveRequest>;
using ReplyBody =
    std::variant<PingReply, WriteShardReply, ReadShardReply, StatReply, ListReply, RemoveReply>;

// The message type of a body.
MsgType TypeOf(const RequestBody& body);
MsgType TypeOf(const ReplyBody& body);
// The status carried by a reply body.
const Status& StatusOf(const ReplyBody& body);
// A reply body of the type answering `request` that carries only `status` (an error reply).
ReplyBody ErrorReply(MsgType request, Status status);

// Semantic checks of a decoded request that the Server makes before calling the handler (a
// failure is answered with an EINVAL error reply; the connection stays open): non-empty
// collection and object names; ReadShard: 1..max_extents extents, no offset + length overflow,
// total length <= reply_payload_limit (the client's announced max_payload_len); List:
// max_entries in 1..limits.max_list_entries; WriteShard: offset + payload_len no overflow.
Status ValidateRequest(const RequestBody& body, std::uint64_t payload_len, const Limits& limits,
                       std::uint64_t reply_payload_limit);

// Encoders append the message header to `out`. A status message longer than
// Limits{}.max_message_len is cut so that the peer accepts it. Cannot fail.
void EncodeHello(const Hello& m, std::vector<std::byte>& out);
void EncodeHelloReply(const HelloReply& m, std::vector<std::byte>& out);
void EncodeRequest(const RequestBody& m, std::vector<std::byte>& out);
void EncodeReply(const ReplyBody& m, std::vector<std::byte>& out);

// Decoders read exactly `bytes` (the frame's message header) as a message of type `type`.
// Errors: EBADMSG for a short or over-long header, a bad enum or flag value, a wrong type for
// this decoder; EMSGSIZE for a count or length above `limits`.
Result<Hello> DecodeHello(std::span<const std::byte> bytes, const Limits& limits);
Result<HelloReply> DecodeHelloReply(std::span<const std::byte> bytes, const Limits& limits);
Result<RequestBody> DecodeRequest(MsgType type, std::span<const std::byte> bytes,
                                  const Limits& limits);
Result<ReplyBody> DecodeReply(MsgType type, std::span<const std::byte> bytes, const Limits& limits);

}  // namespace ec::net
