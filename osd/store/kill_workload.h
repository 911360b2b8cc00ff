// The deterministic workload of the SIGKILL test, shared by the writer program
// (kill_writer_main.cc) and the test that kills it (kill_test.cc). Transaction i rewrites two of
// kObjects objects in collection "kill" with contents that depend on i in every byte, and records
// i in their attribute "tx". So after any crash each object must equal exactly the version written
// by the last applied transaction that touched it. Odd transactions write the new version under a
// temporary name and rename it over the object (as a full rewrite keeping an undo copy does), so
// no temporary name may survive a crash either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "osd/store/transaction.h"

namespace ec::osd::store::testing {

inline constexpr std::uint64_t kKillObjects = 8;

inline std::string KillObjectName(std::uint64_t k) {
  return "o" + std::to_string(k);
}

// The two objects transaction i touches.
inline std::vector<std::uint64_t> KillTouched(std::uint64_t i) {
  return {i % kKillObjects, (i + 3) % kKillObjects};
}

inline std::vector<std::byte> KillContent(std::uint64_t i, std::uint64_t object) {
  std::size_t size = 1 + (i * 7919 + object * 104729) % 40000;
  std::vector<std::byte> v(size);
  for (std::size_t p = 0; p < size; ++p) {
    v[p] = static_cast<std::byte>((i * 131 + object * 17 + p * 7 + (p >> 8)) & 0xFF);
  }
  return v;
}

inline Transaction KillTransaction(std::uint64_t i) {
  Transaction t;
  for (std::uint64_t k : KillTouched(i)) {
    auto data = KillContent(i, k);
    if (i % 2 == 1) {
      std::string tmp = KillObjectName(k) + ".new";
      t.Write("kill", tmp, 0, data);
      t.SetAttr("kill", tmp, "tx", std::to_string(i));
      t.Rename("kill", tmp, KillObjectName(k));
      continue;
    }
    t.Write("kill", KillObjectName(k), 0, data);
    t.Truncate("kill", KillObjectName(k), data.size());
    t.SetAttr("kill", KillObjectName(k), "tx", std::to_string(i));
  }
  return t;
}

}  // namespace ec::osd::store::testing
