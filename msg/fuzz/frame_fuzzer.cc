// libFuzzer target: arbitrary bytes through the frame decoder and, when a frame decodes, its
// message header through the decoder of its type (with small limits so that the limit paths are
// reached too). Any crash, sanitizer report or leak is a finding. Built by scripts/fuzz.sh.
//
// The first input byte is a mode: bit 0 odd = use the rest as is; even = first make the first
// frame's three crc32c fields right, so that mutations reach the message decoders instead of
// stopping at a crc mismatch. Bit 1 set = the frames are those of an authenticated connection
// (protocol versions 6 and up): each ends with a 16-byte MAC, checked with a fixed session key in
// sequence (msg/auth/handshake.h FrameMac), as a server does after the handshake. The handshake's
// own messages (Hello and HelloReply with their cephx fields, Auth, AuthReply) go through their
// decoders, and a decoded Hello or Auth through the proof checks a server makes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/codec.h"
#include "msg/auth/handshake.h"
#include "msg/frame.h"
#include "msg/messages.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace ec::msg;
  if (size == 0) return 0;
  const bool fix_crcs = (data[0] & 1) == 0;
  const bool authenticated = (data[0] & 2) != 0;
  const std::size_t mac_len = authenticated ? kFrameMacLen : 0;
  // A fixed key: what is fuzzed is the checking, not the key.
  static const ec::msg::auth::CryptoKey key = [] {
    ec::msg::auth::CryptoKey k;
    k.secret.fill(std::byte{0x5a});
    return k;
  }();
  std::unique_ptr<ec::msg::auth::FrameMac> rx;
  if (authenticated) {
    // A session key as the handshake derives it (32 bytes; the entity key above is 16).
    std::array<std::byte, ec::msg::auth::kSha256Len> session{};
    session.fill(std::byte{0xa5});
    auto made = ec::msg::auth::FrameMac::Create(session);
    if (!made.ok()) __builtin_trap();
    rx = std::move(made).value();
  }
  std::vector<std::byte> last_hello;
  std::vector<std::byte> input(reinterpret_cast<const std::byte*>(data) + 1,
                               reinterpret_cast<const std::byte*>(data) + size);
  if (fix_crcs && input.size() >= kFrameHeaderSize) {
    const std::span<std::byte> in(input);
    std::uint32_t header_len = 0, payload_len = 0;
    ec::Decoder(in.subspan(12, 4)).U32(&header_len, "header_len");
    ec::Decoder(in.subspan(24, 4)).U32(&payload_len, "payload_len");
    const std::size_t body = input.size() - kFrameHeaderSize;
    if (header_len <= body) {
      ec::Encoder(in.subspan(28, 4)).U32(ec::Crc32c(in.subspan(kFrameHeaderSize, header_len)));
      if (payload_len <= body - header_len) {
        ec::Encoder(in.subspan(32, 4))
            .U32(ec::Crc32c(in.subspan(kFrameHeaderSize + header_len, payload_len)));
      }
    }
    ec::Encoder(in.subspan(36, 4)).U32(ec::Crc32c(in.first(36)));
  }
  std::span<const std::byte> bytes(input);
  Limits limits;
  limits.max_header_len = 16 * 1024;
  limits.max_payload_len = 64 * 1024;
  limits.max_extents = 64;
  limits.max_attrs = 8;
  limits.max_list_entries = 64;
  limits.max_name_len = 256;
  // Several frames may follow each other, as on a connection.
  while (!bytes.empty()) {
    FrameError why;
    std::size_t consumed = 0;
    auto frame = DecodeFrame(bytes, limits, &why, &consumed, mac_len);
    if (!frame.ok()) {
      // The decoder must name a reason for every refusal.
      if (why == FrameError::kNone) __builtin_trap();
      break;
    }
    if (rx) {
      if (frame->mac.size() != kFrameMacLen) __builtin_trap();
      // A failed check ends a real connection; here the next frames are checked all the same.
      (void)rx->Verify(bytes.first(kFrameHeaderSize), frame->message_header, frame->payload,
                       frame->mac);
    }
    const auto type = static_cast<MsgType>(frame->header.type);
    if (type == MsgType::kHello) {
      auto hello = DecodeHello(frame->message_header, limits);
      if (hello.ok()) {
        if (hello->entity.size() > kMaxEntityNameLen) __builtin_trap();
        last_hello.assign(frame->message_header.begin(), frame->message_header.end());
        std::vector<std::byte> again;
        EncodeHello(*hello, again);
        if (again.size() != frame->message_header.size()) __builtin_trap();
      }
    } else if (type == MsgType::kHelloReply) {
      auto reply = DecodeHelloReply(frame->message_header, limits);
      if (reply.ok() && reply->auth == HelloAuth::kCephx && !last_hello.empty()) {
        // What a server answers and a client checks: the proofs over this transcript.
        (void)ec::msg::auth::ClientProof(key, last_hello, frame->message_header);
        (void)ec::msg::auth::ServerProof(key, last_hello, frame->message_header);
      }
    } else if (type == MsgType::kAuth) {
      auto proof = DecodeAuthRequest(frame->message_header);
      if (proof.ok() && !last_hello.empty()) {
        (void)ec::msg::auth::CheckClientProof(key, last_hello, frame->message_header, proof->proof);
      }
    } else if (type == MsgType::kAuthReply) {
      auto verdict = DecodeAuthReply(frame->message_header, limits);
      if (verdict.ok()) {
        // What a verdict encodes to decodes back to the same encoding and proof. (Not always the
        // input's bytes: an OK status's message is not kept, as in every reply.)
        std::vector<std::byte> again, twice;
        EncodeAuthReply(*verdict, again);
        auto back = DecodeAuthReply(again, limits);
        if (!back.ok() || back->status.ok() != verdict->status.ok()) __builtin_trap();
        if (verdict->status.ok() && back->proof != verdict->proof) __builtin_trap();
        EncodeAuthReply(*back, twice);
        if (again != twice) __builtin_trap();
      }
    } else if (IsReply(type)) {
      auto reply = DecodeReply(type, frame->message_header, limits);
      if (reply.ok()) {
        if (TypeOf(*reply) != type) __builtin_trap();
        // What a reply encodes to decodes back to the same encoding. (Not always the input's
        // bytes: an OK status's message is not kept.)
        std::vector<std::byte> again, twice;
        EncodeReply(*reply, again);
        auto back = DecodeReply(type, again, limits);
        if (!back.ok()) __builtin_trap();
        EncodeReply(*back, twice);
        if (again != twice) __builtin_trap();
      }
    } else {
      auto req = DecodeRequest(type, frame->message_header, limits);
      if (req.ok()) {
        if (TypeOf(*req) != type) __builtin_trap();
        (void)ValidateRequest(*req, frame->payload.size(), limits, limits.max_payload_len);
        // Re-encoding a decoded request gives the same bytes (the encoding is canonical).
        std::vector<std::byte> again;
        EncodeRequest(*req, again);
        if (again.size() != frame->message_header.size()) __builtin_trap();
      }
    }
    bytes = bytes.subspan(consumed);
  }
  return 0;
}
