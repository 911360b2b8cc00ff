#include "msg/frame.h"

#include <gtest/gtest.h>

#include <string>

#include <cstring>
#include <vector>

#include "common/codec.h"
#include "msg/test_hex.h"

namespace ec::msg {
namespace {

std::vector<std::byte> Bytes(std::string_view s) {
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  return {p, p + s.size()};
}

// A complete frame with the given message header and payload.
std::vector<std::byte> MakeFrame(FrameHeader h, std::string_view header, std::string_view payload) {
  h.header_len = static_cast<std::uint32_t>(header.size());
  h.payload_len = static_cast<std::uint32_t>(payload.size());
  h.header_crc = Crc32c(Bytes(header));
  h.payload_crc = Crc32c(Bytes(payload));
  std::vector<std::byte> out(kFrameHeaderSize);
  EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(out.data(), kFrameHeaderSize));
  auto a = Bytes(header), b = Bytes(payload);
  out.insert(out.end(), a.begin(), a.end());
  out.insert(out.end(), b.begin(), b.end());
  return out;
}

// Rewrites the fixed header's own crc after a test has changed a field.
void Reseal(std::vector<std::byte>& f) {
  Encoder(std::span<std::byte>(f).subspan(36, 4)).U32(Crc32c({f.data(), 36}));
}

using testing::Hex;

FrameHeader PingHeader() {
  FrameHeader h;
  h.type = static_cast<std::uint16_t>(MsgType::kPing);
  h.tag = 0x0123456789abcdefULL;
  return h;
}

// The fixed header byte for byte (as the protocol's first codec wrote it): little-endian fields at
// the offsets of frame.h's picture.
TEST(FrameTest, KnownAnswerBytes) {
  FrameHeader h;
  h.type = static_cast<std::uint16_t>(MsgType::kReadShard);
  h.tag = 0x0123456789abcdefULL;
  h.header_len = 0x11;
  h.payload_len = 0x2233;
  h.header_crc = 0xdeadbeef;
  h.payload_crc = 0x01020304;
  std::vector<std::byte> out(kFrameHeaderSize);
  EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(out.data(), kFrameHeaderSize));
  EXPECT_EQ(Hex(out),
            "4543434f"  // magic "ECCO"
            "0800"
            "0400"  // version 8, type ReadShard
            "0000"
            "0000"              // flags, reserved
            "11000000"          // header_len
            "efcdab8967452301"  // tag
            "33220000"          // payload_len
            "efbeadde"          // header_crc
            "04030201"          // payload_crc
            "6ae22ea7");        // crc32c of the 36 bytes before
  auto back = DecodeFrameHeader(out, Limits{});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->tag, h.tag);
  EXPECT_EQ(back->payload_len, h.payload_len);
  EXPECT_EQ(back->header_crc, h.header_crc);
}

TEST(FrameTest, RoundTrip) {
  auto f = MakeFrame(PingHeader(), "hdr!", "payload bytes");
  ASSERT_EQ(f.size(), kFrameHeaderSize + 4 + 13);
  // Pinned layout: magic "ECCO" and the tag's position.
  EXPECT_EQ(std::memcmp(f.data(), "ECCO", 4), 0);
  EXPECT_EQ(std::to_integer<int>(f[16]), 0xef);
  std::size_t consumed = 0;
  FrameError why;
  auto v = DecodeFrame(f, Limits{}, &why, &consumed);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(why, FrameError::kNone);
  EXPECT_EQ(consumed, f.size());
  EXPECT_EQ(v->header.tag, 0x0123456789abcdefULL);
  EXPECT_EQ(v->header.type, static_cast<std::uint16_t>(MsgType::kPing));
  EXPECT_EQ(v->header.version, kProtocolVersionMax);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(v->message_header.data()), 4), "hdr!");
  EXPECT_EQ(v->payload.size(), 13u);
}

struct BadCase {
  const char* name;
  std::function<void(std::vector<std::byte>&)> mutate;
  FrameError expected;
  int code;
  const char* text;
};

class FrameErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(FrameErrorTest, DecodeRefuses) {
  const BadCase& c = GetParam();
  auto f = MakeFrame(PingHeader(), "hdr!", "payload bytes");
  c.mutate(f);
  Limits limits;
  limits.max_header_len = 64;
  limits.max_payload_len = 64;
  FrameError why = FrameError::kNone;
  auto v = DecodeFrame(f, limits, &why);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(why, c.expected) << FrameErrorName(why);
  EXPECT_EQ(v.status().code(), c.code);
  EXPECT_NE(v.status().message().find(c.text), std::string::npos) << v.status().message();
}

void SetU16(std::vector<std::byte>& f, std::size_t at, std::uint16_t v) {
  std::memcpy(f.data() + at, &v, 2);
  Reseal(f);
}
void SetU32(std::vector<std::byte>& f, std::size_t at, std::uint32_t v) {
  std::memcpy(f.data() + at, &v, 4);
  Reseal(f);
}

INSTANTIATE_TEST_SUITE_P(
    All, FrameErrorTest,
    ::testing::Values(BadCase{"short_fixed", [](auto& f) { f.resize(20); }, FrameError::kTruncated,
                              EBADMSG, "truncated frame header"},
                      BadCase{"short_body", [](auto& f) { f.pop_back(); }, FrameError::kTruncated,
                              EBADMSG, "truncated frame"},
                      BadCase{"magic", [](auto& f) { f[0] = std::byte{'X'}; },
                              FrameError::kBadMagic, EBADMSG, "bad magic"},
                      BadCase{"frame_crc", [](auto& f) { f[20] ^= std::byte{1}; },
                              FrameError::kBadFrameCrc, EBADMSG, "bad frame header crc32c"},
                      BadCase{"version", [](auto& f) { SetU16(f, 4, 9); }, FrameError::kBadVersion,
                              EPROTO, "unsupported protocol version 9"},
                      BadCase{"flags", [](auto& f) { SetU16(f, 8, 1); }, FrameError::kBadFlags,
                              EBADMSG, "unknown frame flags"},
                      BadCase{"reserved", [](auto& f) { SetU16(f, 10, 1); }, FrameError::kBadFlags,
                              EBADMSG, "reserved"},
                      BadCase{"type", [](auto& f) { SetU16(f, 6, 0x77); }, FrameError::kUnknownType,
                              EBADMSG, "unknown message type 0x0077"},
                      BadCase{"type0", [](auto& f) { SetU16(f, 6, 0); }, FrameError::kUnknownType,
                              EBADMSG, "unknown message type"},
                      BadCase{"header_len", [](auto& f) { SetU32(f, 12, 65); },
                              FrameError::kOversized, EMSGSIZE,
                              "message header length 65 exceeds the limit 64"},
                      BadCase{"payload_len", [](auto& f) { SetU32(f, 24, 0xFFFFFFFF); },
                              FrameError::kOversized, EMSGSIZE,
                              "payload length 4294967295 exceeds"},
                      BadCase{"header_crc", [](auto& f) { f[kFrameHeaderSize] ^= std::byte{1}; },
                              FrameError::kBadHeaderCrc, EBADMSG, "bad header crc32c"},
                      BadCase{"payload_crc", [](auto& f) { f.back() ^= std::byte{1}; },
                              FrameError::kBadPayloadCrc, EBADMSG, "bad payload crc32c"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(FrameTest, ValidatesFixedHeaderOnlyOnFirst40Bytes) {
  auto f = MakeFrame(PingHeader(), "", "");
  f.push_back(std::byte{0xAA});  // trailing bytes belong to the next frame
  std::size_t consumed = 0;
  auto v = DecodeFrame(f, Limits{}, nullptr, &consumed);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(consumed, kFrameHeaderSize);
}

TEST(FrameTest, TypeHelpers) {
  EXPECT_TRUE(IsKnownType(0x8007));
  // 8..10 (PG sub-operations), 11..13 (recovery), 14..15 (direct reads and their leases) and
  // 16..20 (object operations), 21..22 (object metadata), 23 (authentication) and 24
  // (SubRepairChain) are types too; 0 and 25 not.
  for (std::uint16_t t : {8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24}) {
    EXPECT_TRUE(IsKnownType(t)) << t;
    EXPECT_TRUE(IsKnownType(t | kReplyBit)) << t;
    EXPECT_NE(TypeName(static_cast<MsgType>(t)), "Unknown") << t;
    EXPECT_NE(TypeName(static_cast<MsgType>(t | kReplyBit)), "Unknown") << t;
  }
  for (std::uint16_t t : {0, 25, 0x8000 | 25, 0x8010 | 0x20}) {
    EXPECT_FALSE(IsKnownType(t)) << t;
  }
  EXPECT_TRUE(IsKnownType(0x800e));
  EXPECT_EQ(TypeName(MsgType::kObjDirectRead), "ObjDirectRead");
  EXPECT_EQ(TypeName(MsgType::kReadLeaseReply), "ReadLeaseReply");
  EXPECT_EQ(TypeName(MsgType::kSubScanReply), "SubScanReply");
  EXPECT_EQ(TypeName(MsgType::kSubPull), "SubPull");
  EXPECT_EQ(TypeName(MsgType::kObjSetXattrs), "ObjSetXattrs");
  EXPECT_EQ(TypeName(MsgType::kObjGetXattrsReply), "ObjGetXattrsReply");
  EXPECT_FALSE(IsKnownType(0x8000));
  EXPECT_EQ(ReplyTypeOf(MsgType::kObjList), MsgType::kObjListReply);
  EXPECT_EQ(TypeName(MsgType::kSubResolveReply), "SubResolveReply");
  EXPECT_EQ(ReplyTypeOf(MsgType::kReadShard), MsgType::kReadShardReply);
  EXPECT_TRUE(IsReply(MsgType::kHelloReply));
  EXPECT_EQ(TypeName(MsgType::kListReply), "ListReply");
  EXPECT_EQ(FrameErrorName(FrameError::kBadPayloadCrc), "bad_payload_crc");
  EXPECT_EQ(FrameErrorName(FrameError::kBadMac), "bad_mac");
  EXPECT_EQ(TypeName(MsgType::kAuth), "Auth");
  EXPECT_EQ(TypeName(MsgType::kAuthReply), "AuthReply");
}

}  // namespace
}  // namespace ec::msg
