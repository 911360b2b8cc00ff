// ec-bench: micro-benchmarks of every plugin and technique beside the raw ISA-L and jerasure
// calls underneath, on the same data (Google Benchmark; all --benchmark_* flags apply).
//
// Registration order groups everything that shares a layout: for each k+m, chunk size and
// working set, the raw baselines first, then BM_Encode / BM_Decode / BM_Repair of each code. A
// ratio between two of them is therefore measured minutes, not hours, apart and on the same
// bytes. See code_benchmarks.h and raw_benchmarks.h for what each benchmark calls and counts.
//
// Own flags (before or after the --benchmark_* ones):
//   --ec_plugin_dir=DIR   where libec_<plugin>.so are (default $EC_PLUGIN_DIR, else ../lib)
//   --ec_cold_mib=N       bytes a cold working set spans, in MiB (default 128)
//   --ec_sets=warm,cold   working sets to register (default both)
//   --ec_geometries=LIST  k+m pairs to register, e.g. 4+3,8+3 (default the table's five)
//   --version             prints "ec-bench <version>" and exits 0
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "bench/ec_bench/bench_cases.h"
#include "bench/ec_bench/bench_memory.h"
#include "bench/ec_bench/code_benchmarks.h"
#include "bench/ec_bench/raw_benchmarks.h"
#include "ec/plugin.h"

namespace {

constexpr const char* kBytesCounted =
    "bytes_per_second counts data bytes: BM_Encode/BM_Raw*Encode k x chunk per stripe; "
    "BM_Decode/BM_Repair/BM_Raw*Decode the bytes rebuilt (erasures x chunk). bytes_read is what "
    "one operation reads (BM_Repair of CLAY: d helpers x the planned sub-chunks), read_rate the "
    "same per second. Times are CPU time of the one benchmark thread.";

struct Options {
  std::string plugin_dir;
  std::vector<ecbench::WorkingSet> sets = {ecbench::WorkingSet::kWarm, ecbench::WorkingSet::kCold};
  std::vector<ecbench::Geometry> geometries = ecbench::Geometries();
};

// "4+3,8+3" -> {{4,3},{8,3}}; false on anything else (k in 1..32, m in 1..32).
bool ParseGeometries(const std::string& list, std::vector<ecbench::Geometry>* out) {
  out->clear();
  std::size_t pos = 0;
  while (pos <= list.size()) {
    std::size_t end = list.find(',', pos);
    if (end == std::string::npos) end = list.size();
    const std::string item = list.substr(pos, end - pos);
    const std::size_t plus = item.find('+');
    if (plus == std::string::npos) return false;
    char* k_end = nullptr;
    char* m_end = nullptr;
    const long k = std::strtol(item.c_str(), &k_end, 10);
    const long m = std::strtol(item.c_str() + plus + 1, &m_end, 10);
    if (k_end != item.c_str() + plus || *m_end != '\0' || k < 1 || k > 32 || m < 1 || m > 32) {
      return false;
    }
    out->push_back({static_cast<int>(k), static_cast<int>(m)});
    pos = end + 1;
  }
  return !out->empty();
}

void PrintOwnHelp() {
  std::cout << "ec-bench: erasure-code micro-benchmarks (see bench/README.md)\n"
               "  --ec_plugin_dir=DIR   plugin directory (default $EC_PLUGIN_DIR, else ../lib)\n"
               "  --ec_cold_mib=N       span of a cold working set in MiB (default 128)\n"
               "  --ec_sets=LIST        warm, cold or warm,cold (default)\n"
               "  --ec_geometries=LIST  k+m pairs, e.g. 4+3,8+3 (default 4+2,6+3,8+3,10+4,12+4)\n"
               "  --version             print the version and exit\n\n";
}

bool ParseOwnFlags(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      const std::size_t n = std::strlen(flag);
      return arg.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--ec_plugin_dir=")) {
      o->plugin_dir = v;
    } else if (const char* v = value("--ec_cold_mib=")) {
      char* end = nullptr;
      const long mib = std::strtol(v, &end, 10);
      if (end == v || *end != '\0' || mib < 1 || mib > 65536) {
        std::cerr << "ec-bench: --ec_cold_mib wants a number of MiB in [1, 65536], got '" << v
                  << "'\n";
        return false;
      }
      ecbench::SetColdBytes(static_cast<std::size_t>(mib) << 20);
    } else if (const char* v = value("--ec_sets=")) {
      const std::string list = v;
      o->sets.clear();
      if (list == "warm" || list == "warm,cold" || list == "cold,warm")
        o->sets.push_back(ecbench::WorkingSet::kWarm);
      if (list == "cold" || list == "warm,cold" || list == "cold,warm")
        o->sets.push_back(ecbench::WorkingSet::kCold);
      if (o->sets.empty()) {
        std::cerr << "ec-bench: --ec_sets wants warm, cold or warm,cold, got '" << list << "'\n";
        return false;
      }
    } else if (const char* v = value("--ec_geometries=")) {
      if (!ParseGeometries(v, &o->geometries)) {
        std::cerr << "ec-bench: --ec_geometries wants k+m pairs like 4+3,8+3, got '" << v << "'\n";
        return false;
      }
    } else {
      std::cerr << "ec-bench: unknown argument '" << arg << "' (see --help)\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::cout << "ec-bench " << ECSTORE_VERSION << "\n";
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) PrintOwnHelp();
  }
  benchmark::Initialize(&argc, argv);
  Options options;
  if (!ParseOwnFlags(argc, argv, &options)) return 1;
  if (options.plugin_dir.empty()) options.plugin_dir = ec::PluginRegistry::default_directory();

  benchmark::AddCustomContext("bytes_counted", kBytesCounted);
  benchmark::AddCustomContext("plugin_dir", options.plugin_dir);
  benchmark::AddCustomContext("cold_working_set_bytes", std::to_string(ecbench::ColdBytes()));

  std::vector<std::string> notes;
  for (const ecbench::Geometry& g : options.geometries) {
    for (std::size_t chunk : ecbench::ChunkSizes()) {
      const std::vector<ecbench::CodeCase> cases =
          ecbench::MakeCodeCases(g, chunk, options.plugin_dir, &notes);
      for (ecbench::WorkingSet set : options.sets) {
        ecbench::RegisterRawIsaBenchmarks(g, chunk, set, options.plugin_dir);
        ecbench::RegisterRawJerasureBenchmarks(g, chunk, set, options.plugin_dir);
        for (const ecbench::CodeCase& c : cases) ecbench::RegisterCodeBenchmarks(c, set);
      }
    }
  }
  // Each explanation once, in the order found.
  std::set<std::string> seen;
  for (const std::string& note : notes)
    if (seen.insert(note).second) std::cerr << "ec-bench: " << note << "\n";

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
