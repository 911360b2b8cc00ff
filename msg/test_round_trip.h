// Tests only: a message encoded and decoded again, for the codec's round-trip checks.
#pragma once

#include <gtest/gtest.h>

#include <variant>
#include <vector>

#include "msg/messages.h"

namespace ec::msg::testing {

// `m` through EncodeRequest and DecodeRequest (under `limits`); a failed decode is a gtest failure
// and gives T{}.
template <typename T>
T RoundTripRequest(const T& m, const Limits& limits = Limits{}) {
  std::vector<std::byte> bytes;
  EncodeRequest(m, bytes);
  auto back = DecodeRequest(TypeOf(RequestBody(m)), bytes, limits);
  EXPECT_TRUE(back.ok()) << back.status().message();
  if (!back.ok()) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*back));
  return std::get<T>(*back);
}

// The same for a reply.
template <typename T>
T RoundTripReply(const T& m) {
  std::vector<std::byte> bytes;
  EncodeReply(m, bytes);
  auto back = DecodeReply(TypeOf(ReplyBody(m)), bytes, Limits{});
  EXPECT_TRUE(back.ok()) << back.status().message();
  if (!back.ok()) return T{};
  return std::get<T>(*back);
}

}  // namespace ec::msg::testing
