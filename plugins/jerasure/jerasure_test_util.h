// Helpers shared by the jerasure plugin tests.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "ec/profile.h"
#include "plugins/jerasure/jerasure_plugin.h"

namespace ec::jerasure::testing {

// A code made by the plugin factory from "k=v k=v" text; fails the test on error.
inline std::shared_ptr<ErasureCodeInterface> MakeCode(const std::string& text) {
  Result<Profile> profile = ParseProfile(text);
  EXPECT_TRUE(profile.ok()) << profile.status().message();
  if (!profile.ok()) return nullptr;
  ErasureCodeInterfaceRef code;
  JerasurePlugin plugin;
  Status s = plugin.factory("", *profile, &code);
  EXPECT_TRUE(s.ok()) << text << ": " << s.message();
  return s.ok() ? code : nullptr;
}

// The status of factory() for a profile text, and the profile it leaves behind.
inline Status FactoryStatus(const std::string& text, Profile* normalised = nullptr) {
  Result<Profile> profile = ParseProfile(text);
  if (!profile.ok()) return profile.status();
  ErasureCodeInterfaceRef code;
  JerasurePlugin plugin;
  Status s = plugin.factory("", *profile, &code);
  if (normalised) *normalised = *profile;
  return s;
}

inline std::vector<std::uint8_t> RandomBytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

inline std::span<const std::byte> Bytes(const std::vector<std::uint8_t>& v) {
  return {reinterpret_cast<const std::byte*>(v.data()), v.size()};
}

inline bool SameBytes(const Buffer& a, const Buffer& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace ec::jerasure::testing
