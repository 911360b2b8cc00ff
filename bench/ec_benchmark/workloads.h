// The three workloads of ec-benchmark. Each makes the code with the registry, checks that it has
// the k and m asked for (Ceph's "parameter k is K/m is M. But data chunk count is ..." on stdout),
// times `iterations` runs and prints one line "<seconds>\t<KB>" with KB = iterations *
// (size / 1024), exactly as Ceph's tool does (for every workload, repair included).
//
//   encode  encode() of `size` bytes of 'X' with every chunk wanted, per iteration.
//   decode  encode once, then per iteration, as Ceph:
//             exhaustive: every combination of `erasures` erased chunks is decoded and checked
//                         ("chunk N content and recovered content are different");
//             --erased:   decode of every chunk with those chunks removed;
//             otherwise:  `erasures` chunks picked with rand() % (k+m) are removed, then decode.
//   repair  encode once; per iteration one lost chunk (--erased ID, else rand() % (k+m); each
//           chunk in turn and checked when exhaustive) is rebuilt by decode() from exactly the
//           sub-chunks minimum_to_decode plans for it, gathered before the clock starts (the read
//           is not timed, the decode is). For scalar codes that is k whole chunks; for CLAY d
//           helpers x sub_chunks/q sub-chunks each.
// Returns the exit status: 0, or 1 after printing the error.
#pragma once

#include <iosfwd>

#include "bench/ec_benchmark/options.h"

namespace ecbench {

int RunWorkload(const BenchOptions& options, std::ostream& out, std::ostream& err);

}  // namespace ecbench
