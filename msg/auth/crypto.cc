#include "msg/auth/crypto.h"

#include <fmt/format.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace ec::msg::auth {

namespace {

Status LibraryFailure(std::string_view what) {
  return Status::IOError(fmt::format("libcrypto: {} failed", what));
}

// Fetched once: a fetch looks the algorithm up in the provider tables, far dearer than a use.
EVP_MAC* HmacAlgorithm() {
  static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  return mac;
}

const unsigned char* AsUchar(std::span<const std::byte> b) {
  return reinterpret_cast<const unsigned char*>(b.data());
}
unsigned char* AsUchar(std::span<std::byte> b) {
  return reinterpret_cast<unsigned char*>(b.data());
}

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree>;

Status CheckAeadLengths(std::span<const std::byte> key, std::span<const std::byte> nonce) {
  if (key.size() != kAeadKeyLen || nonce.size() != kAeadNonceLen) {
    return Status::Invalid(fmt::format("AES-256-GCM needs a {}-byte key and a {}-byte nonce",
                                       kAeadKeyLen, kAeadNonceLen));
  }
  return Status::OK();
}

bool IsBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

// The kernel's CSPRNG (getrandom(2), blocking only until it is seeded at boot) rather than
// RAND_bytes: OpenSSL keeps a DRBG per calling thread, made on the first call from each io
// thread and freed only if that thread ends through OpenSSL's thread-exit hook, which a program
// exiting with its io threads alive never reaches (LeakSanitizer reported those DRBGs in every
// ec-rados refused by an OSD). Nonces and keys need no more than the kernel gives.
Status RandomBytes(std::span<std::byte> out) {
  std::size_t done = 0;
  while (done < out.size()) {
    const ssize_t n = ::getrandom(out.data() + done, out.size() - done, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status::IOError(fmt::format("getrandom: {}", n < 0 ? std::strerror(errno) : "EOF"));
    }
    done += static_cast<std::size_t>(n);
  }
  return Status::OK();
}

bool Equal(std::span<const std::byte> a, std::span<const std::byte> b) {
  if (a.size() != b.size()) return false;
  return a.empty() || CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

struct HmacSha256::Ctx {
  EVP_MAC_CTX* ctx = nullptr;
  ~Ctx() { EVP_MAC_CTX_free(ctx); }
};

HmacSha256::HmacSha256(std::unique_ptr<Ctx> ctx) : ctx_(std::move(ctx)) {}
HmacSha256::HmacSha256(HmacSha256&&) noexcept = default;
HmacSha256& HmacSha256::operator=(HmacSha256&&) noexcept = default;
HmacSha256::~HmacSha256() = default;

Result<HmacSha256> HmacSha256::Create(std::span<const std::byte> key) {
  if (key.empty()) return Status::Invalid("HMAC-SHA256 needs a key");
  if (HmacAlgorithm() == nullptr) return LibraryFailure("EVP_MAC_fetch(HMAC)");
  auto c = std::make_unique<Ctx>();
  c->ctx = EVP_MAC_CTX_new(HmacAlgorithm());
  if (c->ctx == nullptr) return LibraryFailure("EVP_MAC_CTX_new");
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
                               OSSL_PARAM_construct_end()};
  if (EVP_MAC_init(c->ctx, AsUchar(key), key.size(), params) != 1)
    return LibraryFailure("EVP_MAC_init");
  return HmacSha256(std::move(c));
}

void HmacSha256::Update(std::span<const std::byte> bytes) {
  if (bytes.empty()) return;
  if (EVP_MAC_update(ctx_->ctx, AsUchar(bytes), bytes.size()) != 1) std::abort();
}

Digest HmacSha256::Final() {
  Digest d{};
  std::size_t n = 0;
  if (EVP_MAC_final(ctx_->ctx, AsUchar(std::span<std::byte>(d)), &n, d.size()) != 1 ||
      n != d.size()) {
    std::abort();
  }
  // No key: HMAC starts over with the key it has (OpenSSL 3's hmac_init), for the next message.
  if (EVP_MAC_init(ctx_->ctx, nullptr, 0, nullptr) != 1) std::abort();
  return d;
}

Result<Digest> HmacSha256::Of(std::span<const std::byte> key,
                              std::initializer_list<std::span<const std::byte>> parts) {
  auto h = Create(key);
  if (!h.ok()) return h.status();
  for (const auto& p : parts) h->Update(p);
  return h->Final();
}

struct Gmac::Ctx {
  EVP_CIPHER_CTX* raw = nullptr;
  ~Ctx() { EVP_CIPHER_CTX_free(raw); }
};

Gmac::Gmac(std::unique_ptr<Ctx> ctx) : ctx_(std::move(ctx)) {}
Gmac::Gmac(Gmac&&) noexcept = default;
Gmac& Gmac::operator=(Gmac&&) noexcept = default;
Gmac::~Gmac() = default;

// The key schedule and the hash key are computed here, once; Begin then only sets the nonce,
// which in OpenSSL 3 allocates nothing (HMAC's restart copies two digest contexts, each a new
// allocation: most of what the per-frame HMAC cost in the OSDs, bench/README.md).
Result<Gmac> Gmac::Create(std::span<const std::byte> key) {
  if (key.size() != kGmacKeyLen) {
    return Status::Invalid(fmt::format("GMAC needs a {}-byte key", kGmacKeyLen));
  }
  auto c = std::make_unique<Ctx>();
  c->raw = EVP_CIPHER_CTX_new();
  if (c->raw == nullptr) return LibraryFailure("EVP_CIPHER_CTX_new");
  if (EVP_EncryptInit_ex(c->raw, EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(c->raw, EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kGmacNonceLen),
                          nullptr) != 1 ||
      EVP_EncryptInit_ex(c->raw, nullptr, nullptr, AsUchar(key), nullptr) != 1) {
    return LibraryFailure("AES-256-GCM key set-up");
  }
  return Gmac(std::move(c));
}

void Gmac::Begin(const std::array<std::byte, kGmacNonceLen>& nonce) {
  if (EVP_EncryptInit_ex(ctx_->raw, nullptr, nullptr, nullptr,
                         AsUchar(std::span<const std::byte>(nonce))) != 1) {
    std::abort();
  }
}

void Gmac::Update(std::span<const std::byte> bytes) {
  // EVP takes an int length: a payload above 1 GiB (none is: frames are bounded far below) goes
  // in pieces; associated data may come in any number of calls before Final.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kPiece);
    int len = 0;
    if (EVP_EncryptUpdate(ctx_->raw, nullptr, &len, AsUchar(bytes.first(n)), static_cast<int>(n)) !=
        1) {
      std::abort();
    }
    bytes = bytes.subspan(n);
  }
}

GmacTag Gmac::Final() {
  GmacTag tag{};
  unsigned char none[16];
  int len = 0;
  if (EVP_EncryptFinal_ex(ctx_->raw, none, &len) != 1 || len != 0 ||
      EVP_CIPHER_CTX_ctrl(ctx_->raw, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kGmacTagLen),
                          tag.data()) != 1) {
    std::abort();
  }
  return tag;
}

Status Hkdf(std::span<const std::byte> ikm, std::span<const std::byte> salt, std::string_view info,
            std::span<std::byte> out) {
  if (ikm.empty() || out.empty() || out.size() > 255 * kSha256Len) {
    return Status::Invalid("HKDF-SHA256: bad key or output length");
  }
  EVP_KDF* kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  if (kdf == nullptr) return LibraryFailure("EVP_KDF_fetch(HKDF)");
  EVP_KDF_CTX* ctx = EVP_KDF_CTX_new(kdf);
  EVP_KDF_free(kdf);
  if (ctx == nullptr) return LibraryFailure("EVP_KDF_CTX_new");
  char digest[] = "SHA256";
  OSSL_PARAM params[5];
  OSSL_PARAM* p = params;
  *p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, digest, 0);
  *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, const_cast<std::byte*>(ikm.data()),
                                           ikm.size());
  if (!salt.empty()) {
    *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT,
                                             const_cast<std::byte*>(salt.data()), salt.size());
  }
  *p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, const_cast<char*>(info.data()),
                                           info.size());
  *p = OSSL_PARAM_construct_end();
  const int ok = EVP_KDF_derive(ctx, AsUchar(out), out.size(), params);
  EVP_KDF_CTX_free(ctx);
  if (ok != 1) return LibraryFailure("EVP_KDF_derive(HKDF)");
  return Status::OK();
}

Result<std::vector<std::byte>> Seal(std::span<const std::byte> key,
                                    std::span<const std::byte> nonce,
                                    std::span<const std::byte> aad,
                                    std::span<const std::byte> plaintext) {
  EC_RETURN_IF_ERROR(CheckAeadLengths(key, nonce));
  if (plaintext.size() > (1u << 30)) return Status::Invalid("AES-256-GCM: plaintext too long");
  CipherCtx c(EVP_CIPHER_CTX_new());
  if (!c) return LibraryFailure("EVP_CIPHER_CTX_new");
  std::vector<std::byte> out(plaintext.size() + kAeadTagLen);
  int len = 0;
  int last = 0;
  if (EVP_EncryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kAeadNonceLen),
                          nullptr) != 1 ||
      EVP_EncryptInit_ex(c.get(), nullptr, nullptr, AsUchar(key), AsUchar(nonce)) != 1 ||
      (!aad.empty() && EVP_EncryptUpdate(c.get(), nullptr, &len, AsUchar(aad),
                                         static_cast<int>(aad.size())) != 1) ||
      (!plaintext.empty() &&
       EVP_EncryptUpdate(c.get(), AsUchar(std::span<std::byte>(out)), &len, AsUchar(plaintext),
                         static_cast<int>(plaintext.size())) != 1) ||
      EVP_EncryptFinal_ex(c.get(),
                          AsUchar(std::span<std::byte>(out)) + (plaintext.empty() ? 0 : len),
                          &last) != 1 ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_GET_TAG, static_cast<int>(kAeadTagLen),
                          out.data() + plaintext.size()) != 1) {
    return LibraryFailure("AES-256-GCM encryption");
  }
  return out;
}

Result<std::vector<std::byte>> Open(std::span<const std::byte> key,
                                    std::span<const std::byte> nonce,
                                    std::span<const std::byte> aad,
                                    std::span<const std::byte> sealed) {
  EC_RETURN_IF_ERROR(CheckAeadLengths(key, nonce));
  if (sealed.size() < kAeadTagLen) return Status::Invalid("AES-256-GCM: sealed text too short");
  if (sealed.size() > (1u << 30)) return Status::Invalid("AES-256-GCM: sealed text too long");
  const std::size_t n = sealed.size() - kAeadTagLen;
  CipherCtx c(EVP_CIPHER_CTX_new());
  if (!c) return LibraryFailure("EVP_CIPHER_CTX_new");
  std::vector<std::byte> out(n);
  std::array<std::byte, kAeadTagLen> tag;
  std::copy(sealed.begin() + static_cast<long>(n), sealed.end(), tag.begin());
  int len = 0;
  if (EVP_DecryptInit_ex(c.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_IVLEN, static_cast<int>(kAeadNonceLen),
                          nullptr) != 1 ||
      EVP_DecryptInit_ex(c.get(), nullptr, nullptr, AsUchar(key), AsUchar(nonce)) != 1 ||
      (!aad.empty() && EVP_DecryptUpdate(c.get(), nullptr, &len, AsUchar(aad),
                                         static_cast<int>(aad.size())) != 1) ||
      (n > 0 && EVP_DecryptUpdate(c.get(), AsUchar(std::span<std::byte>(out)), &len,
                                  AsUchar(sealed), static_cast<int>(n)) != 1) ||
      EVP_CIPHER_CTX_ctrl(c.get(), EVP_CTRL_GCM_SET_TAG, static_cast<int>(kAeadTagLen),
                          tag.data()) != 1) {
    return LibraryFailure("AES-256-GCM decryption");
  }
  std::array<unsigned char, 16> rest{};
  if (EVP_DecryptFinal_ex(c.get(), rest.data(), &len) != 1) {
    return Status::Error(EBADMSG, "authentication failed (changed, or sealed under another key)");
  }
  return out;
}

std::string Base64Encode(std::span<const std::byte> bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), AsUchar(bytes),
                                static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

Result<std::vector<std::byte>> Base64Decode(std::string_view text, std::size_t max_bytes) {
  if (text.size() % 4 != 0) {
    return Status::Error(EBADMSG,
                         fmt::format("base64: length {} is not a multiple of 4", text.size()));
  }
  std::size_t pad = 0;
  if (!text.empty() && text.back() == '=')
    pad = text.size() >= 2 && text[text.size() - 2] == '=' ? 2 : 1;
  for (std::size_t i = 0; i + pad < text.size(); ++i) {
    if (!IsBase64Char(text[i])) {
      return Status::Error(EBADMSG, fmt::format("base64: bad character at {}", i));
    }
  }
  const std::size_t n = text.size() / 4 * 3 - pad;
  if (n > max_bytes) {
    return Status::Error(EMSGSIZE,
                         fmt::format("base64: {} bytes exceed the limit {}", n, max_bytes));
  }
  std::vector<std::byte> out(text.size() / 4 * 3);
  if (!text.empty()) {
    const int got = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                    reinterpret_cast<const unsigned char*>(text.data()),
                                    static_cast<int>(text.size()));
    if (got < 0 || static_cast<std::size_t>(got) != out.size()) {
      return Status::Error(EBADMSG, "base64: does not decode");
    }
  }
  out.resize(n);
  return out;
}

}  // namespace ec::msg::auth
