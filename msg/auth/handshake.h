// ecstore's authenticated connections (protocol versions 6 and up, msg/PROTOCOL.md
// "Authentication"): the pure parts, with no socket, so that every refusal can be tested in
// process.
//
//   client                                          server (an OSD)
//   Hello {..., auth cephx, entity, client nonce Nc}  ------>
//                                                   looks the entity's key K up (KeyServer)
//        <------  HelloReply {..., auth cephx, server nonce Ns}
//   Auth {client proof Pc}                          ------>
//                                                   checks Pc (the client holds K)
//        <------  AuthReply {status, server proof Ps}
//   checks Ps (the server holds K)
//   every frame from here on, both ways, carries a 16-byte MAC (FrameMac)
//
//   Pc = HMAC-SHA256(K, "ecstore-v6 client proof" | u32 len(H) | H | u32 len(R) | R)
//   Ps = HMAC-SHA256(K, "ecstore-v6 server proof" | u32 len(H) | H | u32 len(R) | R)
//        H: the Hello's message header as sent; R: the HelloReply's
//
// The client proves first (as cephx clients do to the monitor), so that a wrong key is found by
// the server, which counts it and says so; the client trusts nothing before Ps checks out.
//   session = HKDF-SHA256(ikm K, salt Nc | Ns, info "ecstore-v6 session" | H | R), 64 bytes:
//        the client -> server MAC key, then the server -> client one
//
// Both proofs cover both fresh 32-byte nonces (inside H and R) and every negotiated field
// (versions, limits, features, names): a captured handshake replayed to a server meets a new Ns and
// its Pc no longer matches; replayed to a client, a new Nc and Ps no longer matches; a man in the
// middle who changes a limit or a feature bit breaks both proofs. The labels differ per direction,
// so a proof cannot be reflected. K never crosses the wire.
//
// FrameMac: per direction, MAC = GMAC-AES-256(direction key, nonce 0x00000000 | u64 sequence,
// fixed header (40 bytes) | message header | payload): the 16-byte tag AES-256-GCM gives with an
// empty plaintext and the frame as associated data (NIST SP 800-38D), the sequence counting that
// direction's frames from 0 after the handshake, sent only as the nonce. A frame replayed,
// dropped, reordered, moved to another connection or changed in any bit (the MAC included) fails
// its check. GCM needs a nonce never used twice under a key: each direction has its own key,
// fresh per connection (HKDF over both fresh nonces), and its sequence only counts up (2^64
// frames). A forger's chance is about frame blocks / 2^128 per try (below 2^-100 at the largest
// frame) and one failed check closes the connection (a new try costs a new handshake and keys).
// Why GMAC rather than HMAC-SHA256 (protocol version 7): on AES-NI/CLMUL CPUs it costs a fifth of
// HMAC per 4 KiB frame and, set up once, allocates nothing per frame (bench/README.md).
//
// Thread safety: pure functions; a FrameMac is used by the one thread of its connection's strand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "common/status.h"
#include "ec/buffer.h"
#include "msg/auth/crypto.h"
#include "msg/auth/keyring.h"

namespace ec::msg::auth {

inline constexpr std::size_t kNonceLen = 32;
inline constexpr std::size_t kProofLen = kSha256Len;
inline constexpr std::size_t kMacLen = kGmacTagLen;
using Nonce = std::array<std::byte, kNonceLen>;
using Proof = Digest;
using MacTag = std::array<std::byte, kMacLen>;

// Ceph's option auth_cluster_required: "cephx" (keys, proofs and a MAC on every frame) or "none".
enum class AuthMode : std::uint8_t { kNone = 0, kCephx = 1 };
std::string_view AuthModeName(AuthMode mode);
// Errors: EINVAL "auth mode 'x': expected cephx or none".
Result<AuthMode> ParseAuthMode(std::string_view text);

// A fresh nonce. Errors: EIO.
Result<Nonce> NewNonce();

// The proofs to send (a proof of zeros in the rare case the library fails: the peer's check of
// it then fails).
Proof ServerProof(const CryptoKey& key, std::span<const std::byte> hello,
                  std::span<const std::byte> reply);
Proof ClientProof(const CryptoKey& key, std::span<const std::byte> hello,
                  std::span<const std::byte> reply);
// Whether a received proof is the one the key gives, in constant time; false too when the
// library fails (a check never passes on a proof it could not compute).
bool CheckServerProof(const CryptoKey& key, std::span<const std::byte> hello,
                      std::span<const std::byte> reply, const Proof& got);
bool CheckClientProof(const CryptoKey& key, std::span<const std::byte> hello,
                      std::span<const std::byte> reply, const Proof& got);

struct SessionKeys {
  std::array<std::byte, kSha256Len> client_to_server{};
  std::array<std::byte, kSha256Len> server_to_client{};
};
// Errors: EIO (library).
Result<SessionKeys> DeriveSessionKeys(const CryptoKey& key, const Nonce& client_nonce,
                                      const Nonce& server_nonce, std::span<const std::byte> hello,
                                      std::span<const std::byte> reply);

// The MAC of one direction of one connection.
class FrameMac {
 public:
  // Errors: EIO (library).
  static Result<std::unique_ptr<FrameMac>> Create(std::span<const std::byte> key);

  // The MAC of the next frame sent (the sequence advances).
  MacTag Sign(std::span<const std::byte> fixed_header, std::span<const std::byte> message_header,
              std::span<const Buffer> payload);
  // Whether `tag` is the MAC of the next frame received (the sequence advances either way: a
  // failed check ends the connection).
  bool Verify(std::span<const std::byte> fixed_header, std::span<const std::byte> message_header,
              std::span<const std::byte> payload, std::span<const std::byte> tag);
  // Frames signed or checked so far.
  std::uint64_t sequence() const { return sequence_; }

 private:
  explicit FrameMac(Gmac gmac) : gmac_(std::move(gmac)) {}
  void Begin();
  Gmac gmac_;
  std::uint64_t sequence_ = 0;
};

}  // namespace ec::msg::auth
