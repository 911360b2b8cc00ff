#include "tests/support/test_env.h"

#include <cstdlib>
#include <iostream>
#include <random>

#ifndef ECSTORE_DEFAULT_SHARED_DIR
#error "ECSTORE_DEFAULT_SHARED_DIR must name the shared data folder (../shared)"
#endif

namespace ectest {

std::filesystem::path SharedDir() {
  const char* env = std::getenv("ECSTORE_SHARED");
  if (env != nullptr && *env != '\0') return env;
  return ECSTORE_DEFAULT_SHARED_DIR;
}

std::uint64_t Seed() {
  // A function-local static: chosen and printed once even when tests run on several threads.
  static const std::uint64_t seed = [] {
    std::uint64_t s = 0;
    if (const char* env = std::getenv("ECSTORE_TEST_SEED"); env != nullptr && *env != '\0') {
      s = std::strtoull(env, nullptr, 10);
    } else {
      std::random_device rd;
      s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
    std::cout << "seed " << s << " (replay with ECSTORE_TEST_SEED=" << s << ")" << std::endl;
    return s;
  }();
  return seed;
}

}  // namespace ectest
