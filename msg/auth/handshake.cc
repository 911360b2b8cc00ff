#include "msg/auth/handshake.h"

#include <fmt/format.h>

#include <optional>

#include "common/codec.h"

namespace ec::msg::auth {

namespace {

constexpr std::string_view kServerLabel = "ecstore-v6 server proof";
constexpr std::string_view kClientLabel = "ecstore-v6 client proof";
constexpr std::string_view kSessionLabel = "ecstore-v6 session";

std::array<std::byte, 4> LengthOf(std::span<const std::byte> b) {
  std::array<std::byte, 4> out{};
  Encoder(std::span<std::byte>(out)).U32(static_cast<std::uint32_t>(b.size()));
  return out;
}

// nullopt only when the library fails (no memory).
std::optional<Proof> ProofOf(const CryptoKey& key,
                             std::initializer_list<std::span<const std::byte>> parts) {
  auto d = HmacSha256::Of(key.secret, parts);
  if (!d.ok()) return std::nullopt;
  return *d;
}

std::optional<Proof> ServerProofOf(const CryptoKey& key, std::span<const std::byte> hello,
                                   std::span<const std::byte> reply) {
  const auto hello_len = LengthOf(hello);
  const auto reply_len = LengthOf(reply);
  return ProofOf(key, {AsBytes(kServerLabel), hello_len, hello, reply_len, reply});
}

std::optional<Proof> ClientProofOf(const CryptoKey& key, std::span<const std::byte> hello,
                                   std::span<const std::byte> reply) {
  const auto hello_len = LengthOf(hello);
  const auto reply_len = LengthOf(reply);
  return ProofOf(key, {AsBytes(kClientLabel), hello_len, hello, reply_len, reply});
}

}  // namespace

std::string_view AuthModeName(AuthMode mode) {
  return mode == AuthMode::kCephx ? "cephx" : "none";
}

Result<AuthMode> ParseAuthMode(std::string_view text) {
  if (text == "cephx") return AuthMode::kCephx;
  if (text == "none") return AuthMode::kNone;
  return Status::Invalid(fmt::format("auth mode '{}': expected cephx or none", text));
}

Result<Nonce> NewNonce() {
  Nonce n;
  EC_RETURN_IF_ERROR(RandomBytes(n));
  return n;
}

Proof ServerProof(const CryptoKey& key, std::span<const std::byte> hello,
                  std::span<const std::byte> reply) {
  // A proof of zeros when the library fails: what the other side checks then fails.
  return ServerProofOf(key, hello, reply).value_or(Proof{});
}

Proof ClientProof(const CryptoKey& key, std::span<const std::byte> hello,
                  std::span<const std::byte> reply) {
  return ClientProofOf(key, hello, reply).value_or(Proof{});
}

bool CheckServerProof(const CryptoKey& key, std::span<const std::byte> hello,
                      std::span<const std::byte> reply, const Proof& got) {
  const std::optional<Proof> want = ServerProofOf(key, hello, reply);
  return want.has_value() && Equal(*want, got);
}

bool CheckClientProof(const CryptoKey& key, std::span<const std::byte> hello,
                      std::span<const std::byte> reply, const Proof& got) {
  const std::optional<Proof> want = ClientProofOf(key, hello, reply);
  return want.has_value() && Equal(*want, got);
}

Result<SessionKeys> DeriveSessionKeys(const CryptoKey& key, const Nonce& client_nonce,
                                      const Nonce& server_nonce, std::span<const std::byte> hello,
                                      std::span<const std::byte> reply) {
  std::array<std::byte, 2 * kNonceLen> salt;
  std::copy(client_nonce.begin(), client_nonce.end(), salt.begin());
  std::copy(server_nonce.begin(), server_nonce.end(), salt.begin() + kNonceLen);
  // The transcript goes into the info as its hash would: HKDF's info is bounded (1 KiB in
  // OpenSSL), so a digest of H and R stands for them.
  auto transcript = HmacSha256::Of(AsBytes(kSessionLabel), {LengthOf(hello), hello, reply});
  if (!transcript.ok()) return transcript.status();
  std::string info(kSessionLabel);
  info.append(reinterpret_cast<const char*>(transcript->data()), transcript->size());
  std::array<std::byte, 2 * kSha256Len> out;
  EC_RETURN_IF_ERROR(Hkdf(key.secret, salt, info, out));
  SessionKeys k;
  std::copy(out.begin(), out.begin() + kSha256Len, k.client_to_server.begin());
  std::copy(out.begin() + kSha256Len, out.end(), k.server_to_client.begin());
  return k;
}

Result<std::unique_ptr<FrameMac>> FrameMac::Create(std::span<const std::byte> key) {
  auto g = Gmac::Create(key);
  if (!g.ok()) return g.status();
  return std::unique_ptr<FrameMac>(new FrameMac(std::move(*g)));
}

void FrameMac::Begin() {
  std::array<std::byte, kGmacNonceLen> nonce{};
  Encoder(std::span<std::byte>(nonce).subspan(4)).U64(sequence_++);
  gmac_.Begin(nonce);
}

MacTag FrameMac::Sign(std::span<const std::byte> fixed_header,
                      std::span<const std::byte> message_header, std::span<const Buffer> payload) {
  Begin();
  gmac_.Update(fixed_header);
  gmac_.Update(message_header);
  for (const Buffer& b : payload) gmac_.Update(b.span());
  return gmac_.Final();
}

bool FrameMac::Verify(std::span<const std::byte> fixed_header,
                      std::span<const std::byte> message_header, std::span<const std::byte> payload,
                      std::span<const std::byte> tag) {
  Begin();
  gmac_.Update(fixed_header);
  gmac_.Update(message_header);
  gmac_.Update(payload);
  const MacTag t = gmac_.Final();
  return Equal(t, tag);
}

}  // namespace ec::msg::auth
