// The fixed frame header of the OSD protocol (msg/PROTOCOL.md) and its codec, plus the limits
// a receiver enforces. Pure code: no I/O, no Asio, and no allocation before a length has been
// checked against Limits. This is what the fuzzer (msg/fuzz/frame_fuzzer.cc) drives.
//
//   0        4     6     8     10    12        16              24        28        32        36 40
//   | magic  | ver | type|flags| rsv | hdr_len |      tag      | pay_len | hdr_crc | pay_crc | crc|
//   +--------+-----+-----+-----+-----+---------+---------------+---------+---------+---------+----+
//   followed by hdr_len bytes of message header, then pay_len bytes of payload.
//
// All integers little-endian, encoded with common/codec.h. Every crc is ec::Crc32c
// (common/crc32c.h, included here for the users of these fields); `crc` is that of bytes [0, 36) of
// the fixed header. Thread safety: pure functions and plain values.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "common/crc32c.h"
#include "common/status.h"

namespace ec::msg {

inline constexpr std::uint32_t kFrameMagic = 0x4f434345;  // bytes "ECCO" on the wire
inline constexpr std::uint16_t kProtocolVersionMin = 8;
inline constexpr std::uint16_t kProtocolVersionMax = 8;
inline constexpr std::size_t kFrameHeaderSize = 40;

// Message types. A reply's type is its request's type | kReplyBit.
enum class MsgType : std::uint16_t {
  kHello = 1,
  kPing = 2,
  kWriteShard = 3,
  kReadShard = 4,
  kStat = 5,
  kList = 6,
  kRemove = 7,
  // PG sub-operations (a PG primary -> the OSD holding one shard).
  kSubWrite = 8,
  kSubResolve = 9,
  kSubState = 10,
  // Recovery (a PG primary -> the OSDs of its shards).
  kSubScan = 11,
  kSubPull = 12,
  kSubReadBatch = 13,   // shard reads of many objects in one request (recovery pulls)
  kObjDirectRead = 14,  // a client -> the OSD of one data shard (direct reads)
  kReadLease = 15,      // an OSD -> a PG primary: leases to serve direct reads
  // Object operations (a client -> the primary of the object's PG).
  kObjWrite = 16,
  kObjRead = 17,
  kObjStat = 18,
  kObjRemove = 19,
  kObjList = 20,
  // Object metadata (issue 29): user xattrs and mtime.
  kObjSetXattrs = 21,
  kObjGetXattrs = 22,
  // Authentication (issue 32, version 6): the client's proof, after an authenticating
  // HelloReply (msg/auth/handshake.h). Like Hello, never handed to a RequestHandler.
  kAuth = 23,
  kSubRepairChain = 24,  // a rebuilding OSD -> a chain of helpers (pipelined repair)
  kHelloReply = 0x8001,
  kPingReply = 0x8002,
  kWriteShardReply = 0x8003,
  kReadShardReply = 0x8004,
  kStatReply = 0x8005,
  kListReply = 0x8006,
  kRemoveReply = 0x8007,
  kSubWriteReply = 0x8008,
  kSubResolveReply = 0x8009,
  kSubStateReply = 0x800a,
  kSubScanReply = 0x800b,
  kSubPullReply = 0x800c,
  kSubReadBatchReply = 0x800d,
  kObjDirectReadReply = 0x800e,
  kReadLeaseReply = 0x800f,
  kObjWriteReply = 0x8010,
  kObjReadReply = 0x8011,
  kObjStatReply = 0x8012,
  kObjRemoveReply = 0x8013,
  kObjListReply = 0x8014,
  kObjSetXattrsReply = 0x8015,
  kObjGetXattrsReply = 0x8016,
  kAuthReply = 0x8017,
  kSubRepairChainReply = 0x8018,
};
inline constexpr std::uint16_t kReplyBit = 0x8000;
// Request types are at most kMaxRequestType (index arrays of per-type counters with them); not
// every number below it is a type (0 is not).
inline constexpr std::uint16_t kMaxRequestType = 24;

// True for the 48 types above (each request type and its reply).
bool IsKnownType(std::uint16_t type);
bool IsReply(MsgType type);
// The reply type of a request type (kPing -> kPingReply).
MsgType ReplyTypeOf(MsgType request);
// "Ping", "WriteShardReply", ... ("Unknown" for others). Never allocates.
std::string_view TypeName(MsgType type);

// Frame flags. Version 1 defines none: a frame with any flag bit set is refused (kBadFlags).
inline constexpr std::uint16_t kKnownFlags = 0;

// What a receiver accepts. Every length and count is compared with these before anything is
// allocated for it. Both sides announce theirs in the handshake; each sender stays within the
// other side's limits.
struct Limits {
  std::uint32_t max_header_len = 64 * 1024;          // message-specific header bytes
  std::uint32_t max_payload_len = 64 * 1024 * 1024;  // payload bytes of one frame
  std::uint32_t max_name_len = 4096;                 // object names, list cursors
  std::uint32_t max_collection_len = 255;            // collection names
  std::uint32_t max_extents = 1024;                  // extents of one ReadShard / SubWrite
  std::uint32_t max_attrs = 64;                      // attributes of one WriteShard / Stat
  std::uint32_t max_attr_len = 64 * 1024;            // one attribute key or value
  std::uint32_t max_list_entries = 4096;             // entries of one List / ObjList page
  std::uint32_t max_batch_items = 128;               // items of one SubReadBatch
  std::uint32_t max_message_len = 4096;              // a reply status message
};

// The fixed header, decoded. `type` is kept as the raw number so that a decoder can report an
// unknown type with its value.
struct FrameHeader {
  std::uint16_t version = kProtocolVersionMax;
  std::uint16_t type = 0;
  std::uint16_t flags = 0;
  std::uint64_t tag = 0;
  std::uint32_t header_len = 0;
  std::uint32_t payload_len = 0;
  std::uint32_t header_crc = 0;   // crc32c of the header_len message-header bytes
  std::uint32_t payload_crc = 0;  // crc32c of the payload_len payload bytes
};

// Why a frame was refused; the server counts protocol errors by this reason.
enum class FrameError : std::uint8_t {
  kNone = 0,
  kTruncated,  // fewer bytes than the frame declares (or the peer closed mid-frame)
  kBadMagic,
  kBadVersion,   // version outside [kProtocolVersionMin, kProtocolVersionMax] or not the
                 // negotiated one
  kBadFrameCrc,  // the fixed header's own crc32c
  kBadFlags,     // unknown flag bits or non-zero reserved field
  kUnknownType,
  kOversized,     // header_len or payload_len above Limits
  kBadHeaderCrc,  // message header crc32c
  kBadPayloadCrc,
  kMalformed,   // message header does not decode (bad count, length, trailing bytes, ...)
  kUnexpected,  // a valid frame at the wrong moment (a reply sent to the server, no Hello)
  kTimeout,     // handshake timeout or a peer stalled mid-frame
  kBadMac,  // an authenticated connection's frame whose MAC does not match (msg/auth/handshake.h)
  kCount,
};
// "truncated", "bad_magic", ... (metric label values). Never allocates.
std::string_view FrameErrorName(FrameError e);

// Writes the 40-byte fixed header for `h`, computing its own crc. The caller fills header_crc and
// payload_crc (ec::Crc32c of common/crc32c.h). Cannot fail.
void EncodeFrameHeader(const FrameHeader& h, std::span<std::byte, kFrameHeaderSize> out);

// Decodes and validates a fixed header: at least kFrameHeaderSize bytes (else kTruncated), magic,
// frame crc (checked before any other field is trusted), version range, flags, known type, and
// header_len / payload_len against `limits` (kOversized). Returns the header or an error Status
// (EBADMSG; EMSGSIZE for kOversized; EPROTO for kBadVersion) whose message names the field and
// value; `*error` (if given) receives the reason, kNone on success. Only the first
// kFrameHeaderSize bytes are read.
Result<FrameHeader> DecodeFrameHeader(std::span<const std::byte> bytes, const Limits& limits,
                                      FrameError* error = nullptr);

// Checks a received part against its crc; kind is "header" or "payload" (for the message).
// Errors: EBADMSG "bad <kind> crc32c: got X, frame says Y".
Status CheckCrc(std::span<const std::byte> bytes, std::uint32_t expected, std::string_view kind);

// On an authenticated connection (protocol version 6, after the handshake) every frame ends with
// a MAC of this many bytes after its payload, counted in neither length (msg/auth/handshake.h).
inline constexpr std::size_t kFrameMacLen = 16;

// A whole frame held in one contiguous byte span (tests, the fuzzer). Views into the input.
struct FrameView {
  FrameHeader header;
  std::span<const std::byte> message_header;
  std::span<const std::byte> payload;
  std::span<const std::byte> mac;  // the trailer (mac_len bytes; empty when mac_len is 0)
};
// DecodeFrameHeader, then the lengths (plus `mac_len` trailer bytes: kFrameMacLen on an
// authenticated connection, whose MAC the caller checks) against bytes.size() (kTruncated;
// trailing bytes are ignored and reported by `consumed`), then both crcs. `*consumed` = total
// frame size on success.
Result<FrameView> DecodeFrame(std::span<const std::byte> bytes, const Limits& limits,
                              FrameError* error = nullptr, std::size_t* consumed = nullptr,
                              std::size_t mac_len = 0);

}  // namespace ec::msg
