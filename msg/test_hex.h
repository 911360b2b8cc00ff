// Tests only: bytes as lower-case hex, for known-answer checks of encoded frames and messages.
#pragma once

#include <cstddef>
#include <span>
#include <string>

namespace ec::msg::testing {

inline std::string Hex(std::span<const std::byte> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::byte x : bytes) {
    s += kHex[std::to_integer<unsigned>(x) >> 4];
    s += kHex[std::to_integer<unsigned>(x) & 15];
  }
  return s;
}

}  // namespace ec::msg::testing
