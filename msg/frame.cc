#include "msg/frame.h"

#include <fmt/format.h>

#include "common/codec.h"

namespace ec::msg {

namespace {

constexpr std::size_t kFrameCrcOffset = 36;

Status Refuse(FrameError reason, FrameError* out, int code, std::string message) {
  if (out) *out = reason;
  return Status::Error(code, std::move(message));
}

}  // namespace

bool IsKnownType(std::uint16_t type) {
  const std::uint16_t base = type & ~kReplyBit;
  return base >= static_cast<std::uint16_t>(MsgType::kHello) &&
         base <= static_cast<std::uint16_t>(MsgType::kSubRepairChain);
}

bool IsReply(MsgType type) {
  return (static_cast<std::uint16_t>(type) & kReplyBit) != 0;
}

MsgType ReplyTypeOf(MsgType request) {
  return static_cast<MsgType>(static_cast<std::uint16_t>(request) | kReplyBit);
}

std::string_view TypeName(MsgType type) {
  switch (type) {
    case MsgType::kHello:
      return "Hello";
    case MsgType::kPing:
      return "Ping";
    case MsgType::kWriteShard:
      return "WriteShard";
    case MsgType::kReadShard:
      return "ReadShard";
    case MsgType::kStat:
      return "Stat";
    case MsgType::kList:
      return "List";
    case MsgType::kRemove:
      return "Remove";
    case MsgType::kSubWrite:
      return "SubWrite";
    case MsgType::kSubResolve:
      return "SubResolve";
    case MsgType::kSubState:
      return "SubState";
    case MsgType::kSubScan:
      return "SubScan";
    case MsgType::kSubPull:
      return "SubPull";
    case MsgType::kSubReadBatch:
      return "SubReadBatch";
    case MsgType::kObjDirectRead:
      return "ObjDirectRead";
    case MsgType::kReadLease:
      return "ReadLease";
    case MsgType::kObjWrite:
      return "ObjWrite";
    case MsgType::kObjRead:
      return "ObjRead";
    case MsgType::kObjStat:
      return "ObjStat";
    case MsgType::kObjRemove:
      return "ObjRemove";
    case MsgType::kObjList:
      return "ObjList";
    case MsgType::kObjSetXattrs:
      return "ObjSetXattrs";
    case MsgType::kObjGetXattrs:
      return "ObjGetXattrs";
    case MsgType::kSubRepairChain:
      return "SubRepairChain";
    case MsgType::kHelloReply:
      return "HelloReply";
    case MsgType::kPingReply:
      return "PingReply";
    case MsgType::kWriteShardReply:
      return "WriteShardReply";
    case MsgType::kReadShardReply:
      return "ReadShardReply";
    case MsgType::kStatReply:
      return "StatReply";
    case MsgType::kListReply:
      return "ListReply";
    case MsgType::kRemoveReply:
      return "RemoveReply";
    case MsgType::kSubWriteReply:
      return "SubWriteReply";
    case MsgType::kSubResolveReply:
      return "SubResolveReply";
    case MsgType::kSubStateReply:
      return "SubStateReply";
    case MsgType::kSubScanReply:
      return "SubScanReply";
    case MsgType::kSubPullReply:
      return "SubPullReply";
    case MsgType::kSubReadBatchReply:
      return "SubReadBatchReply";
    case MsgType::kObjDirectReadReply:
      return "ObjDirectReadReply";
    case MsgType::kReadLeaseReply:
      return "ReadLeaseReply";
    case MsgType::kObjWriteReply:
      return "ObjWriteReply";
    case MsgType::kObjReadReply:
      return "ObjReadReply";
    case MsgType::kObjStatReply:
      return "ObjStatReply";
    case MsgType::kObjRemoveReply:
      return "ObjRemoveReply";
    case MsgType::kObjListReply:
      return "ObjListReply";
    case MsgType::kObjSetXattrsReply:
      return "ObjSetXattrsReply";
    case MsgType::kObjGetXattrsReply:
      return "ObjGetXattrsReply";
    case MsgType::kAuth:
      return "Auth";
    case MsgType::kAuthReply:
      return "AuthReply";
    case MsgType::kSubRepairChainReply:
      return "SubRepairChainReply";
  }
  return "Unknown";
}

std::string_view FrameErrorName(FrameError e) {
  switch (e) {
    case FrameError::kNone:
      return "none";
    case FrameError::kTruncated:
      return "truncated";
    case FrameError::kBadMagic:
      return "bad_magic";
    case FrameError::kBadVersion:
      return "bad_version";
    case FrameError::kBadFrameCrc:
      return "bad_frame_crc";
    case FrameError::kBadFlags:
      return "bad_flags";
    case FrameError::kUnknownType:
      return "unknown_type";
    case FrameError::kOversized:
      return "oversized";
    case FrameError::kBadHeaderCrc:
      return "bad_header_crc";
    case FrameError::kBadPayloadCrc:
      return "bad_payload_crc";
    case FrameError::kMalformed:
      return "malformed";
    case FrameError::kUnexpected:
      return "unexpected";
    case FrameError::kTimeout:
      return "timeout";
    case FrameError::kBadMac:
      return "bad_mac";
    case FrameError::kCount:
      break;
  }
  return "unknown";
}

void EncodeFrameHeader(const FrameHeader& h, std::span<std::byte, kFrameHeaderSize> out) {
  Encoder w{std::span<std::byte>(out)};
  w.U32(kFrameMagic);
  w.U16(h.version);
  w.U16(h.type);
  w.U16(h.flags);
  w.U16(0);  // reserved
  w.U32(h.header_len);
  w.U64(h.tag);
  w.U32(h.payload_len);
  w.U32(h.header_crc);
  w.U32(h.payload_crc);
  w.U32(Crc32c(out.first(kFrameCrcOffset)));
}

Result<FrameHeader> DecodeFrameHeader(std::span<const std::byte> bytes, const Limits& limits,
                                      FrameError* error) {
  if (error) *error = FrameError::kNone;
  if (bytes.size() < kFrameHeaderSize) {
    return Refuse(
        FrameError::kTruncated, error, EBADMSG,
        fmt::format("truncated frame header: {} of {} bytes", bytes.size(), kFrameHeaderSize));
  }
  // Exactly kFrameHeaderSize bytes, present: none of these reads can run out.
  Decoder r(bytes.first(kFrameHeaderSize));
  FrameHeader h;
  std::uint32_t magic = 0, crc = 0;
  std::uint16_t reserved = 0;
  r.U32(&magic, "magic") && r.U16(&h.version, "version") && r.U16(&h.type, "type") &&
      r.U16(&h.flags, "flags") && r.U16(&reserved, "reserved") &&
      r.U32(&h.header_len, "header_len") && r.U64(&h.tag, "tag") &&
      r.U32(&h.payload_len, "payload_len") && r.U32(&h.header_crc, "header_crc") &&
      r.U32(&h.payload_crc, "payload_crc") && r.U32(&crc, "crc");
  if (!r.ok()) return Refuse(FrameError::kTruncated, error, EBADMSG, r.status().message());
  if (magic != kFrameMagic) {
    return Refuse(FrameError::kBadMagic, error, EBADMSG,
                  fmt::format("bad magic {:#010x} (expected {:#010x})", magic, kFrameMagic));
  }
  // The header's own crc is checked before any other field is trusted.
  const auto actual = Crc32c(bytes.first(kFrameCrcOffset));
  if (crc != actual) {
    return Refuse(
        FrameError::kBadFrameCrc, error, EBADMSG,
        fmt::format("bad frame header crc32c: got {:#010x}, frame says {:#010x}", actual, crc));
  }
  if (h.version < kProtocolVersionMin || h.version > kProtocolVersionMax) {
    return Refuse(FrameError::kBadVersion, error, EPROTO,
                  fmt::format("unsupported protocol version {} (supported {}..{})", h.version,
                              kProtocolVersionMin, kProtocolVersionMax));
  }
  if ((h.flags & ~kKnownFlags) != 0 || reserved != 0) {
    return Refuse(
        FrameError::kBadFlags, error, EBADMSG,
        fmt::format("unknown frame flags {:#06x} or reserved field {:#06x}", h.flags, reserved));
  }
  if (!IsKnownType(h.type)) {
    return Refuse(FrameError::kUnknownType, error, EBADMSG,
                  fmt::format("unknown message type {:#06x}", h.type));
  }
  if (h.header_len > limits.max_header_len) {
    return Refuse(FrameError::kOversized, error, EMSGSIZE,
                  fmt::format("message header length {} exceeds the limit {}", h.header_len,
                              limits.max_header_len));
  }
  if (h.payload_len > limits.max_payload_len) {
    return Refuse(FrameError::kOversized, error, EMSGSIZE,
                  fmt::format("payload length {} exceeds the limit {}", h.payload_len,
                              limits.max_payload_len));
  }
  return h;
}

Status CheckCrc(std::span<const std::byte> bytes, std::uint32_t expected, std::string_view kind) {
  const std::uint32_t actual = Crc32c(bytes);
  if (actual == expected) return Status::OK();
  return Status::Error(EBADMSG, fmt::format("bad {} crc32c: got {:#010x}, frame says {:#010x}",
                                            kind, actual, expected));
}

Result<FrameView> DecodeFrame(std::span<const std::byte> bytes, const Limits& limits,
                              FrameError* error, std::size_t* consumed, std::size_t mac_len) {
  auto header = DecodeFrameHeader(bytes, limits, error);
  if (!header.ok()) return header.status();
  const FrameHeader& h = *header;
  const std::uint64_t total =
      kFrameHeaderSize + static_cast<std::uint64_t>(h.header_len) + h.payload_len + mac_len;
  if (bytes.size() < total) {
    return Refuse(FrameError::kTruncated, error, EBADMSG,
                  fmt::format("truncated frame: {} of {} bytes", bytes.size(), total));
  }
  FrameView view;
  view.header = h;
  view.message_header = bytes.subspan(kFrameHeaderSize, h.header_len);
  view.payload = bytes.subspan(kFrameHeaderSize + h.header_len, h.payload_len);
  view.mac = bytes.subspan(kFrameHeaderSize + h.header_len + h.payload_len, mac_len);
  if (Status s = CheckCrc(view.message_header, h.header_crc, "header"); !s.ok()) {
    if (error) *error = FrameError::kBadHeaderCrc;
    return s;
  }
  if (Status s = CheckCrc(view.payload, h.payload_crc, "payload"); !s.ok()) {
    if (error) *error = FrameError::kBadPayloadCrc;
    return s;
  }
  if (consumed) *consumed = static_cast<std::size_t>(total);
  return view;
}

}  // namespace ec::msg
