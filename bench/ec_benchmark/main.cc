// ec-benchmark: Ceph's ceph_erasure_code_benchmark for ecstore's plugins (options: options.h,
// workloads: workloads.h). Prints one line "<seconds>\t<KB>" so that Ceph's
// qa/workunits/erasure-code/bench.sh style scripts work unchanged.
#include <iostream>

#include "bench/ec_benchmark/options.h"
#include "bench/ec_benchmark/workloads.h"

int main(int argc, char** argv) {
  ecbench::BenchOptions options;
  const int parsed = ecbench::ParseOptions(argc, argv, &options, std::cout, std::cerr);
  if (parsed >= 0) return parsed;
  return ecbench::RunWorkload(options, std::cout, std::cerr);
}
