// The libcrypto wrappers against published vectors (RFC 4231 for HMAC-SHA256, RFC 5869 for HKDF),
// AES-256-GCM's refusals, and the strict base64 codec.
#include "msg/auth/crypto.h"

#include <gtest/gtest.h>

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
