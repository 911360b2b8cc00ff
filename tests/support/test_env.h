// Where tests find their environment, written once for every test program (plugin tests next to
// their plugin, the whole-system tests of tests/):
//   SharedDir()  the shared data folder (ceph-erasure-code-corpus/, ceph-vectors/);
//   Seed()       the seed of a run's random inputs, printed so that a failure can be replayed.
//
// Environment, with build-time defaults:
//   ECSTORE_SHARED     the shared data folder; default ../shared next to the source tree (CTest
//                      sets it to the configured ECSTORE_SHARED_DIR). A missing data set is a
//                      failure of the test that needs it, never a skip: these functions only
//                      name places, the tests check them.
//   ECSTORE_TEST_SEED  a decimal seed to replay; default a random one.
//
// Thread safety: both functions may be called from any thread.
#pragma once

#include <cstdint>
#include <filesystem>

namespace ectest {

// $ECSTORE_SHARED when set and not empty, else <source dir>/../shared. Never fails; the folder
// may not exist.
std::filesystem::path SharedDir();

// The seed of this process: $ECSTORE_TEST_SEED when set and not empty (parsed as strtoull does),
// else drawn from std::random_device. Chosen once: every call in a process returns the same value,
// and the first call prints "seed N (replay with ECSTORE_TEST_SEED=N)" to stdout. Tests that need
// several streams derive them (Seed() + 1, ...).
std::uint64_t Seed();

}  // namespace ectest
