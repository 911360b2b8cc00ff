#include "bench/ec_benchmark/options.h"
#include "common/cli.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <set>

#include "ec/plugin.h"

namespace ecbench {

namespace {

constexpr const char* kGenerationHelp =
    "If set to 'random', pick the number of chunks to recover (as specified by --erasures) at "
    "random. If set to 'exhaustive' try all combinations of erasures (i.e. k=4,m=3 with one "
    "erasure will try to recover from the erasure of the first chunk, then the second etc.)";

// Ceph splits on every '=' and keeps the pair only when there are exactly two pieces.
void AddParameters(const std::vector<std::string>& params, ec::Profile* profile,
                   std::ostream& err) {
  for (const std::string& p : params) {
    if (std::count(p.begin(), p.end(), '=') != 1) {
      err << "--parameter " << p
          << " ignored because it does not contain exactly one =" << std::endl;
      continue;
    }
    const std::size_t eq = p.find('=');
    (*profile)[p.substr(0, eq)] = p.substr(eq + 1);
  }
}

}  // namespace

int ParseOptions(int argc, char** argv, BenchOptions* o, std::ostream& out, std::ostream& err) {
  CLI::App app{
      "ec-benchmark: time encode, decode or repair of an erasure code, with the options "
      "and output (\"<seconds>\\t<KB>\") of Ceph's ceph_erasure_code_benchmark",
      "ec-benchmark"};
  app.set_help_flag("-h,--help", "produce help message");
  std::vector<std::string> params;
  std::string generation = "random";
  app.add_flag("-v,--verbose", o->verbose, "explain what happens");
  app.add_option("-s,--size", o->size, "size of the buffer to be encoded (4k, 1M: binary units)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  app.add_option("-i,--iterations", o->iterations, "number of encode/decode runs")
      ->capture_default_str();
  app.add_option("-p,--plugin", o->plugin, "erasure code plugin name")->capture_default_str();
  app.add_option("-w,--workload", o->workload,
                 "run either encode, decode or repair (repair: rebuild one lost chunk from the "
                 "sub-chunks minimum_to_decode plans)")
      ->capture_default_str();
  app.add_option("-e,--erasures", o->erasures, "number of erasures when decoding")
      ->capture_default_str();
  app.add_option("--erased", o->erased, "erased chunk (repeat if more than one chunk is erased)")
      ->take_all()
      ->expected(1);
  app.add_option("-E,--erasures-generation", generation, kGenerationHelp)->capture_default_str();
  app.add_option("-P,--parameter", params, "add a parameter to the erasure code profile")
      ->take_all()
      ->expected(1);
  app.add_option("--erasure-code-dir", o->plugin_dir,
                 "directory of the libec_<plugin>.so files (default: $EC_PLUGIN_DIR, else "
                 "../lib next to this program)");
  ec::cli::AddVersionFlag(app, "ec-benchmark");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    out << app.help();
    return 0;
  } catch (const CLI::CallForVersion& e) {
    out << e.what() << std::endl;
    return 0;
  } catch (const CLI::ParseError& e) {
    err << "ec-benchmark: " << e.what() << " (see --help)" << std::endl;
    return 1;
  }

  AddParameters(params, &o->profile, err);
  if (o->plugin_dir.empty()) o->plugin_dir = ec::PluginRegistry::default_directory();
  if (generation != "random" && generation != "exhaustive") {
    err << "ec-benchmark: --erasures-generation must be random or exhaustive, not '" << generation
        << "'" << std::endl;
    return 1;
  }
  o->exhaustive = generation == "exhaustive";
  if (o->workload != "encode" && o->workload != "decode" && o->workload != "repair") {
    err << "ec-benchmark: --workload must be encode, decode or repair, not '" << o->workload << "'"
        << std::endl;
    return 1;
  }
  if (o->size <= 0) {
    err << "ec-benchmark: --size must be > 0, not " << o->size << std::endl;
    return 1;
  }
  if (o->iterations < 0) {
    err << "ec-benchmark: --iterations must be >= 0, not " << o->iterations << std::endl;
    return 1;
  }
  if (o->erasures < 0) {
    err << "ec-benchmark: --erasures must be >= 0, not " << o->erasures << std::endl;
    return 1;
  }
  std::set<int> unique(o->erased.begin(), o->erased.end());
  if (unique.size() != o->erased.size()) {
    err << "ec-benchmark: --erased names the same chunk twice" << std::endl;
    return 1;
  }

  // A plugin that is not there at all: say so, and which ones are, before anything else.
  const std::vector<std::string> plugins = ec::PluginRegistry::instance().available(o->plugin_dir);
  if (std::find(plugins.begin(), plugins.end(), o->plugin) == plugins.end()) {
    std::string names;
    for (const std::string& name : plugins) names += (names.empty() ? "" : ", ") + name;
    err << "ec-benchmark: no plugin '" << o->plugin << "' in " << o->plugin_dir
        << "; available plugins: " << (names.empty() ? "none" : names) << std::endl;
    return 1;
  }

  // Ceph reads k and m with atoi(profile["k"]), which also puts empty entries in the profile.
  o->k = std::atoi(o->profile["k"].c_str());
  o->m = std::atoi(o->profile["m"].c_str());
  if (o->k <= 0) {
    out << "parameter k is " << o->k << ". But k needs to be > 0." << std::endl;
    return 1;
  }
  if (o->m < 0) {
    out << "parameter m is " << o->m << ". But m needs to be >= 0." << std::endl;
    return 1;
  }
  return -1;
}

}  // namespace ecbench
