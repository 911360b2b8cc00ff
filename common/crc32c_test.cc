#include "common/crc32c.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

namespace ec {
namespace {

// The bit-at-a-time definition (reflected polynomial 0x82F63B78), to check ISA-L against.
std::uint32_t ReferenceCrc32c(std::span<const std::byte> bytes) {
  std::uint32_t crc = 0xFFFFFFFFu;
  for (std::byte b : bytes) {
    crc ^= std::to_integer<std::uint32_t>(b);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
  }
  return ~crc;
}

std::vector<std::byte> Filled(std::size_t n, auto f) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>(f(i));
  return v;
}

std::span<const std::byte> Text(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}

TEST(Crc32c, CheckValue) {
  EXPECT_EQ(Crc32c(Text("123456789")), 0xE3069283u);
  EXPECT_EQ(Crc32c(std::span<const std::byte>()), 0u);
}

// RFC 3720 appendix B.4.
TEST(Crc32c, Rfc3720Vectors) {
  EXPECT_EQ(Crc32c(Filled(32, [](std::size_t) { return 0x00; })), 0x8A9136AAu);
  EXPECT_EQ(Crc32c(Filled(32, [](std::size_t) { return 0xFF; })), 0x62A8AB43u);
  EXPECT_EQ(Crc32c(Filled(32, [](std::size_t i) { return i; })), 0x46DD794Eu);
  EXPECT_EQ(Crc32c(Filled(32, [](std::size_t i) { return 31 - i; })), 0x113FDB5Cu);
  // An iSCSI SCSI Read (10) command PDU.
  const std::array<int, 48> pdu = {0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00,
                                   0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00,
                                   0x00, 0x18, 0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
                                   0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  EXPECT_EQ(Crc32c(Filled(48, [&](std::size_t i) { return pdu[i]; })), 0xD9963A56u);
}

TEST(Crc32c, ExtendContinuesAnyCut) {
  const std::string_view s = "123456789";
  const auto* p = reinterpret_cast<const std::byte*>(s.data());
  for (std::size_t cut = 0; cut <= s.size(); ++cut) {
    EXPECT_EQ(Crc32cExtend(Crc32c(std::span<const std::byte>(p, cut)),
                           std::span<const std::byte>(p + cut, s.size() - cut)),
              0xE3069283u)
        << "cut " << cut;
  }
  EXPECT_EQ(Crc32cExtend(0, std::span<const std::byte>(p, s.size())), 0xE3069283u);
}

// ISA-L's kernels against the definition on random lengths, alignments and contents.
TEST(Crc32c, MatchesReferenceOnRandomInputs) {
  const char* env = std::getenv("ECSTORE_TEST_SEED");
  const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
  std::cout << "seed " << seed << " (ECSTORE_TEST_SEED replays)" << std::endl;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::byte> buf(70000);
  for (std::byte& b : buf) b = static_cast<std::byte>(rng());
  for (int i = 0; i < 300; ++i) {
    const std::size_t off = rng() % 64;
    const std::size_t len = rng() % (i < 250 ? 600 : buf.size() - off);
    std::span<const std::byte> piece(buf.data() + off, len);
    ASSERT_EQ(Crc32c(piece), ReferenceCrc32c(piece)) << "offset " << off << " length " << len;
  }
}

}  // namespace
}  // namespace ec
