// The libcrypto wrappers against published vectors (RFC 4231 for HMAC-SHA256, RFC 5869 for HKDF,
// the GCM specification's test case 13 for GMAC), GMAC against AES-256-GCM's one-shot path,
// AES-256-GCM's refusals, and the strict base64 codec.
#include "msg/auth/crypto.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

namespace ec::msg::auth {
namespace {

std::vector<std::byte> Hex(std::string_view hex) {
  std::vector<std::byte> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::byte>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

TEST(Crypto, HmacSha256Rfc4231Case2) {
  auto d = HmacSha256::Of(AsBytes("Jefe"), {AsBytes("what do ya want for nothing?")});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(std::vector<std::byte>(d->begin(), d->end()),
            Hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

TEST(Crypto, HmacContextIsReusedAcrossMessages) {
  auto h = HmacSha256::Create(AsBytes("Jefe"));
  ASSERT_TRUE(h.ok());
  h->Update(AsBytes("what do ya "));
  h->Update(AsBytes("want for nothing?"));
  const Digest first = h->Final();
  h->Update(AsBytes("what do ya want for nothing?"));
  EXPECT_EQ(h->Final(), first);
  h->Update(AsBytes("something else"));
  EXPECT_NE(h->Final(), first);
}

// McGrew and Viega, "The Galois/Counter Mode of Operation", test case 13: AES-256, key and IV
// of zeros, no plaintext, no associated data.
TEST(Crypto, GmacGcmSpecCase13) {
  const std::array<std::byte, kGmacKeyLen> key{};
  auto g = Gmac::Create(key);
  ASSERT_TRUE(g.ok()) << g.status().message();
  g->Begin({});
  const GmacTag tag = g->Final();
  EXPECT_EQ(std::vector<std::byte>(tag.begin(), tag.end()),
            Hex("530f8afbc74536b9a963b4f1c4cb738b"));
}

// The tag of a message given in pieces of every awkward size is Seal's tag for an empty
// plaintext with the whole message as associated data; the context is reused across messages.
TEST(Crypto, GmacIsGcmsTagOverAssociatedDataInAnyPieces) {
  std::array<std::byte, kGmacKeyLen> key{};
  for (std::size_t i = 0; i < key.size(); ++i) key[i] = static_cast<std::byte>(7 * i + 1);
  std::array<std::byte, kGmacNonceLen> nonce{};
  nonce[11] = std::byte{5};
  std::vector<std::byte> message(5000);
  for (std::size_t i = 0; i < message.size(); ++i) message[i] = static_cast<std::byte>(i * 31);
  auto sealed = Seal(key, nonce, message, {});
  ASSERT_TRUE(sealed.ok()) << sealed.status().message();
  ASSERT_EQ(sealed->size(), kGmacTagLen);
  auto g = Gmac::Create(key);
  ASSERT_TRUE(g.ok());
  for (const std::size_t piece : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17},
                                  std::size_t{40}, std::size_t{4096}}) {
    g->Begin(nonce);
    for (std::size_t at = 0; at < message.size(); at += piece) {
      g->Update(std::span(message).subspan(at, std::min(piece, message.size() - at)));
    }
    const GmacTag tag = g->Final();
    EXPECT_EQ(std::vector<std::byte>(tag.begin(), tag.end()), *sealed) << "pieces of " << piece;
  }
  // Another nonce or one byte changed gives another tag.
  auto other_nonce = nonce;
  other_nonce[0] = std::byte{1};
  g->Begin(other_nonce);
  g->Update(message);
  const GmacTag t1 = g->Final();
  EXPECT_NE(std::vector<std::byte>(t1.begin(), t1.end()), *sealed);
  message[4999] ^= std::byte{0x80};
  g->Begin(nonce);
  g->Update(message);
  const GmacTag t2 = g->Final();
  EXPECT_NE(std::vector<std::byte>(t2.begin(), t2.end()), *sealed);
}

TEST(Crypto, GmacRefusesAKeyOfAnotherLength) {
  const std::array<std::byte, 16> short_key{};
  auto g = Gmac::Create(short_key);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), EINVAL);
}

TEST(Crypto, HkdfRfc5869Case1) {
  const auto ikm = Hex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b");
  const auto salt = Hex("000102030405060708090a0b0c");
  const auto info = Hex("f0f1f2f3f4f5f6f7f8f9");
  std::vector<std::byte> okm(42);
  ASSERT_TRUE(Hkdf(ikm, salt,
                   std::string_view(reinterpret_cast<const char*>(info.data()), info.size()), okm)
                  .ok());
  EXPECT_EQ(okm, Hex("3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b8"
                     "87185865"));
}

TEST(Crypto, SealOpenAndEveryChangeRefused) {
  std::vector<std::byte> key(kAeadKeyLen), nonce(kAeadNonceLen);
  ASSERT_TRUE(RandomBytes(key).ok());
  ASSERT_TRUE(RandomBytes(nonce).ok());
  const auto aad = AsBytes("client.app");
  auto sealed = Seal(key, nonce, aad, AsBytes("the secret"));
  ASSERT_TRUE(sealed.ok());
  auto opened = Open(key, nonce, aad, *sealed);
  ASSERT_TRUE(opened.ok());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(opened->data()), opened->size()),
            "the secret");
  for (std::size_t i = 0; i < sealed->size(); ++i) {
    auto flipped = *sealed;
    flipped[i] ^= std::byte{0x01};
    EXPECT_EQ(Open(key, nonce, aad, flipped).status().code(), EBADMSG) << "byte " << i;
  }
  EXPECT_EQ(Open(key, nonce, AsBytes("client.other"), *sealed).status().code(), EBADMSG);
  auto other_key = key;
  other_key[0] ^= std::byte{0x80};
  EXPECT_EQ(Open(other_key, nonce, aad, *sealed).status().code(), EBADMSG);
  EXPECT_EQ(Open(key, nonce, aad, std::span(*sealed).first(5)).status().code(), EINVAL);
  EXPECT_EQ(Seal(std::span(key).first(16), nonce, aad, AsBytes("x")).status().code(), EINVAL);
  auto empty = Seal(key, nonce, {}, {});
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(Open(key, nonce, {}, *empty).ok());
}

TEST(Crypto, RandomBytesDiffer) {
  std::array<std::byte, 32> a{}, b{};
  ASSERT_TRUE(RandomBytes(a).ok());
  ASSERT_TRUE(RandomBytes(b).ok());
  EXPECT_NE(a, b);
}

TEST(Crypto, Base64StrictAndRoundTrip) {
  for (std::size_t n = 0; n < 40; ++n) {
    std::vector<std::byte> bytes(n);
    for (std::size_t i = 0; i < n; ++i) bytes[i] = static_cast<std::byte>(i * 37 + 1);
    auto back = Base64Decode(Base64Encode(bytes), 64);
    ASSERT_TRUE(back.ok()) << n;
    EXPECT_EQ(*back, bytes);
  }
  EXPECT_EQ(Base64Encode(AsBytes("foobar")), "Zm9vYmFy");
  for (std::string_view bad : {"Zm9", "Zm9vY mFy", "Zm9v\nYmFy", "Zm=vYmFy", "Z===", "Zm9vYmF*"}) {
    EXPECT_EQ(Base64Decode(bad, 64).status().code(), EBADMSG) << bad;
  }
  EXPECT_EQ(Base64Decode("Zm9vYmFy", 5).status().code(), EMSGSIZE);
  EXPECT_TRUE(Equal(AsBytes("abc"), AsBytes("abc")));
  EXPECT_FALSE(Equal(AsBytes("abc"), AsBytes("abd")));
  EXPECT_FALSE(Equal(AsBytes("abc"), AsBytes("ab")));
}

}  // namespace
}  // namespace ec::msg::auth
