// The cryptography of ecstore's authentication, and nothing home-made: thin wrappers over OpenSSL's
// libcrypto (Debian libssl-dev, OpenSSL 3.0) that speak ecstore's error model.
//
//   RandomBytes      getrandom(2) (the kernel's CSPRNG): every key and nonce
//   HmacSha256       HMAC-SHA256 (EVP_MAC) with a key set once: the handshake's proofs and
//                    their transcript; one context is reused for every message under its key
//   Gmac             GMAC: AES-256-GCM authenticating without encrypting (everything is
//                    associated data), a key set once and a nonce per message: the per-frame MACs
//   Hkdf             HKDF-SHA256 (RFC 5869, EVP_KDF): session keys and the auth database's key
//   Seal / Open      AES-256-GCM (EVP_CIPHER): the records of the auth database in etcd
//   Equal            CRYPTO_memcmp: comparison in constant time (proofs, MACs)
//   Base64 codec     EVP_EncodeBlock / EVP_DecodeBlock, the decoder made strict (alphabet,
//                    padding, no whitespace)
//
// Errors: EIO "libcrypto: <what> failed" when the library refuses (it never does with valid
// arguments); EINVAL for a key or nonce of the wrong length; EBADMSG from Open when the record or
// its associated data was changed (or the key is not the one it was sealed with) and from the
// base64 decoder for text that is not strict base64.
//
// Thread safety: the free functions are thread-safe; an HmacSha256 or Gmac object is used by one
// thread at a time (each connection direction owns one Gmac).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::msg::auth {

inline constexpr std::size_t kSha256Len = 32;
using Digest = std::array<std::byte, kSha256Len>;

// Fills `out` from the kernel's CSPRNG (getrandom). Errors: EIO.
Status RandomBytes(std::span<std::byte> out);

// Constant-time equality of two byte strings (false when the lengths differ).
bool Equal(std::span<const std::byte> a, std::span<const std::byte> b);

// HMAC-SHA256 under one key: Update any number of times, then Final, which gives the MAC and
// leaves the object ready for the next message under the same key. Move-only.
class HmacSha256 {
 public:
  // Errors: EIO (library), EINVAL for an empty key.
  static Result<HmacSha256> Create(std::span<const std::byte> key);
  HmacSha256(HmacSha256&&) noexcept;
  HmacSha256& operator=(HmacSha256&&) noexcept;
  ~HmacSha256();

  void Update(std::span<const std::byte> bytes);
  void Update(std::string_view text) {
    Update(std::span(reinterpret_cast<const std::byte*>(text.data()), text.size()));
  }
  // The MAC of everything given since the last Final (or Create). Cannot fail with a valid
  // object (a library failure aborts: it would mean memory corruption).
  Digest Final();

  // One message at once.
  static Result<Digest> Of(std::span<const std::byte> key,
                           std::initializer_list<std::span<const std::byte>> parts);

 private:
  struct Ctx;
  explicit HmacSha256(std::unique_ptr<Ctx> ctx);
  std::unique_ptr<Ctx> ctx_;
};

inline constexpr std::size_t kGmacKeyLen = 32;
inline constexpr std::size_t kGmacNonceLen = 12;
inline constexpr std::size_t kGmacTagLen = 16;
using GmacTag = std::array<std::byte, kGmacTagLen>;

// GMAC (NIST SP 800-38D): the tag AES-256-GCM gives for an empty plaintext and the message as
// associated data. A key (32 bytes) set once, then per message Begin(nonce), Update any number of
// times, Final. The caller must never use one nonce twice under one key (a repeated nonce lets a
// forger recover the hash key): FrameMac derives it from a sequence that only counts up, under a
// key of its own per connection direction. Move-only.
class Gmac {
 public:
  // Errors: EINVAL for a key that is not 32 bytes, EIO (library).
  static Result<Gmac> Create(std::span<const std::byte> key);
  Gmac(Gmac&&) noexcept;
  Gmac& operator=(Gmac&&) noexcept;
  ~Gmac();

  // Starts a message under `nonce`. Cannot fail with a valid object (a library failure aborts,
  // as in HmacSha256: it would mean memory corruption).
  void Begin(const std::array<std::byte, kGmacNonceLen>& nonce);
  void Update(std::span<const std::byte> bytes);
  // The tag of everything given since Begin.
  GmacTag Final();

 private:
  struct Ctx;
  explicit Gmac(std::unique_ptr<Ctx> ctx);
  std::unique_ptr<Ctx> ctx_;
};

// HKDF-SHA256 of `ikm` with `salt` and `info`, `out.size()` bytes (1..8160). Errors: EIO, EINVAL.
Status Hkdf(std::span<const std::byte> ikm, std::span<const std::byte> salt, std::string_view info,
            std::span<std::byte> out);

inline constexpr std::size_t kAeadKeyLen = 32;
inline constexpr std::size_t kAeadNonceLen = 12;
inline constexpr std::size_t kAeadTagLen = 16;

// AES-256-GCM: `plaintext` sealed under `key` (32 bytes) and `nonce` (12 bytes, never reused
// with the key: callers draw it from RandomBytes), with `aad` authenticated but not encrypted.
// Returns ciphertext || 16-byte tag. Errors: EINVAL (lengths), EIO.
Result<std::vector<std::byte>> Seal(std::span<const std::byte> key,
                                    std::span<const std::byte> nonce,
                                    std::span<const std::byte> aad,
                                    std::span<const std::byte> plaintext);
// The inverse. Errors: EBADMSG "authentication failed" when anything (ciphertext, tag, aad) was
// changed or the key is another; EINVAL (lengths, a sealed text shorter than the tag), EIO.
Result<std::vector<std::byte>> Open(std::span<const std::byte> key,
                                    std::span<const std::byte> nonce,
                                    std::span<const std::byte> aad,
                                    std::span<const std::byte> sealed);

// Standard base64 (RFC 4648, with padding).
std::string Base64Encode(std::span<const std::byte> bytes);
// Strict: length a multiple of 4, only the alphabet, '=' only as one or two final characters.
// At most `max_bytes` decoded bytes (EMSGSIZE above). Errors: EBADMSG naming what is wrong.
Result<std::vector<std::byte>> Base64Decode(std::string_view text, std::size_t max_bytes);

// The bytes of a string, for the span-taking functions above.
inline std::span<const std::byte> AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

}  // namespace ec::msg::auth
