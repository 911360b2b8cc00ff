// Command line of ec-benchmark: the options of Ceph's ceph_erasure_code_benchmark, with the same
// names, defaults and messages, plus --workload repair and --erasure-code-dir.
//
//   -h, --help                       this help (exit 0; Ceph exits 1 after its help)
//   -v, --verbose                    show which chunks are erased / how a repair reads
//   -s, --size N                     bytes encoded per iteration (default 1048576; binary
//                                    units allowed: 4k = 4096, 1M = 1048576)
//   -i, --iterations N               encode/decode runs (default 1)
//   -p, --plugin NAME                plugin (default jerasure)
//   -w, --workload W                 encode (default), decode, or repair
//   -e, --erasures N                 chunks erased per decode (default 1)
//       --erased ID                  erase this chunk (repeatable); fixes the erasures
//   -E, --erasures-generation G      random (default) or exhaustive
//   -P, --parameter KEY=VALUE        profile entry (repeatable); an argument without exactly
//                                    one '=' is ignored with Ceph's warning
//       --erasure-code-dir DIR       plugin directory (default $EC_PLUGIN_DIR, else ../lib)
//       --version                    "ec-benchmark <version>" (exit 0)
//
// Checks, with Ceph's messages on stdout where Ceph has one:
//   "parameter k is K. But k needs to be > 0."  "parameter m is M. But m needs to be >= 0."
// and ecstore's own (on stderr) for a plugin that does not exist ("no plugin 'X' in DIR; available
// plugins: clay, isa, ..."), and for what Ceph does not check and then crashes or loops on:
// non-positive size, negative iterations or erasures, unknown workload or generation, erased
// chunk ids that repeat. Every error exits 1, usage errors included (CLI11's own codes are not
// passed on).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "ec/profile.h"

namespace ecbench {

struct BenchOptions {
  int size = 1024 * 1024;
  int iterations = 1;
  std::string plugin = "jerasure";
  std::string workload = "encode";
  int erasures = 1;
  std::vector<int> erased;
  bool exhaustive = false;
  bool verbose = false;
  ec::Profile profile;
  std::string plugin_dir;
  // From the profile, as Ceph reads them (atoi of profile["k"] / profile["m"]).
  int k = 0;
  int m = 0;
};

// Parses argv into *options. Returns -1 when the benchmark should run, otherwise the exit status
// (0 after --help, 1 after an error already printed to `out` / `err`).
int ParseOptions(int argc, char** argv, BenchOptions* options, std::ostream& out,
                 std::ostream& err);

}  // namespace ecbench
