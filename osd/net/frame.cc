#include "osd/net/frame.h"

#include <fmt/format.h>
#include <isa-l/crc.h>

namespace ec::net {

namespace {

template <typename T>
void Put(std::byte* p, T v) {
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}

template <typename T>
T Get(const std::byte* p) {
  T v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    v |= static_cast<T>(static_cast<T>(std::to_integer<std::uint8_t>(p[i])) << (8 * i));
  }
  return v;
}

constexpr std::size_t kFrameCrcOffset = 36;

Status Refuse(FrameError reason, FrameError* out, int code, std::string message) {
  if (out) *out = reason;
  return Status::Error(code, std::move(message));
}

}  // namespace

bool IsKnownType(std::uint16_t type) {
  const std::uint16_t base = type & ~kReplyBit;
  return base >= 1 && base <= kMaxRequestType;
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
    case FrameError::kCount:
      break;
  }
  return "unknown";
}

std::uint32_t Crc32c(std::span<const std::byte> bytes) {
  return Crc32cExtend(0, bytes);
}

std::uint32_t Crc32cExtend(std::uint32_t crc, std::span<const std::byte> bytes) {
  // crc32_iscsi neither pre- nor post-inverts; the standard crc32c does both, so undo the final
  // inversion of `crc` to continue it.
  if (bytes.empty()) return crc;
  auto* p = const_cast<unsigned char*>(reinterpret_cast<const unsigned char*>(bytes.data()));
  return ~crc32_iscsi(p, static_cast<int>(bytes.size()), ~crc);
}

void EncodeFrameHeader(const FrameHeader& h, std::span<std::byte, kFrameHeaderSize> out) {
  std::byte* p = out.data();
  Put<std::uint32_t>(p + 0, kFrameMagic);
  Put<std::uint16_t>(p + 4, h.version);
  Put<std::uint16_t>(p + 6, h.type);
  Put<std::uint16_t>(p + 8, h.flags);
  Put<std::uint16_t>(p + 10, 0);
  Put<std::uint32_t>(p + 12, h.header_len);
  Put<std::uint64_t>(p + 16, h.tag);
  Put<std::uint32_t>(p + 24, h.payload_len);
  Put<std::uint32_t>(p + 28, h.header_crc);
  Put<std::uint32_t>(p + 32, h.payload_crc);
  Put<std::uint32_t>(p + kFrameCrcOffset, Crc32c({p, kFrameCrcOffset}));
}

Result<FrameHeader> DecodeFrameHeader(std::span<const std::byte> bytes, const Limits& limits,
                                      FrameError* error) {
  if (error) *error = FrameError::kNone;
  if (bytes.size() < kFrameHeaderSize) {
    return Refuse(
        FrameError::kTruncated, error, EBADMSG,
        fmt::format("truncated frame header: {} of {} bytes", bytes.size(), kFrameHeaderSize));
  }
  const std::byte* p = bytes.data();
  const auto magic = Get<std::uint32_t>(p);
  if (magic != kFrameMagic) {
    return Refuse(FrameError::kBadMagic, error, EBADMSG,
                  fmt::format("bad magic {:#010x} (expected {:#010x})", magic, kFrameMagic));
  }
  const auto crc = Get<std::uint32_t>(p + kFrameCrcOffset);
  const auto actual = Crc32c({p, kFrameCrcOffset});
  if (crc != actual) {
    return Refuse(
        FrameError::kBadFrameCrc, error, EBADMSG,
        fmt::format("bad frame header crc32c: got {:#010x}, frame says {:#010x}", actual, crc));
  }
  FrameHeader h;
  h.version = Get<std::uint16_t>(p + 4);
  h.type = Get<std::uint16_t>(p + 6);
  h.flags = Get<std::uint16_t>(p + 8);
  const auto reserved = Get<std::uint16_t>(p + 10);
  h.header_len = Get<std::uint32_t>(p + 12);
  h.tag = Get<std::uint64_t>(p + 16);
  h.payload_len = Get<std::uint32_t>(p + 24);
  h.header_crc = Get<std::uint32_t>(p + 28);
  h.payload_crc = Get<std::uint32_t>(p + 32);
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
                              FrameError* error, std::size_t* consumed) {
  auto header = DecodeFrameHeader(bytes, limits, error);
  if (!header.ok()) return header.status();
  const FrameHeader& h = *header;
  const std::uint64_t total =
      kFrameHeaderSize + static_cast<std::uint64_t>(h.header_len) + h.payload_len;
  if (bytes.size() < total) {
    return Refuse(FrameError::kTruncated, error, EBADMSG,
                  fmt::format("truncated frame: {} of {} bytes", bytes.size(), total));
  }
  FrameView view;
  view.header = h;
  view.message_header = bytes.subspan(kFrameHeaderSize, h.header_len);
  view.payload = bytes.subspan(kFrameHeaderSize + h.header_len, h.payload_len);
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

}  // namespace ec::net
