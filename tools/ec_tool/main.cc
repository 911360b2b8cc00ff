// ec-tool: Ceph's ceph-erasure-code-tool (test-plugin-exists, validate-profile, calc-chunk-size,
// encode, decode) and ceph_erasure_code_non_regression (non-regression) in one program, with the
// same arguments, outputs and file names. This file only wires the command line to the commands.
//
// Exit status: 0 on success (and for --help, --version), 1 on any error (the message goes to
// stderr), also for a usage error and for no arguments at all (the usage goes to stderr).
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "common/cli.h"
#include "tools/ec_tool/code_loader.h"
#include "tools/ec_tool/decode_command.h"
#include "tools/ec_tool/encode_command.h"
#include "tools/ec_tool/file_io.h"
#include "tools/ec_tool/info_commands.h"
#include "tools/ec_tool/non_regression.h"
#include "tools/ec_tool/repair_command.h"

namespace ec_tool = ec::tools::ec_tool;

namespace {

constexpr const char* kProfileHelp =
    "erasure-code profile: key=value settings separated by commas or spaces, "
    "e.g. plugin=jerasure,technique=reed_sol_van,k=3,m=2";

constexpr const char* kStripeUnitHelp =
    "stripe unit: bytes of each chunk per stripe (binary suffixes allowed: 4k = 4096, 1M)";

int Report(const ec::Status& status) {
  if (status.ok()) return 0;
  std::cerr << status.message() << std::endl;
  return 1;
}

std::string JoinedDisplayParams() {
  std::string out;
  for (const std::string& p : ec_tool::DisplayParams()) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "Erasure-code tool compatible with Ceph's ceph-erasure-code-tool and "
      "ceph_erasure_code_non_regression.",
      "ec-tool"};
  app.require_subcommand(1);
  app.fallthrough();  // global options may also follow the subcommand
  ec::cli::AddVersionFlag(app, "ec-tool");

  std::string plugin_dir;
  bool sync = false;
  app.add_option("--erasure-code-dir", plugin_dir,
                 "directory holding the libec_<plugin>.so files (default: $EC_PLUGIN_DIR, else "
                 "../lib next to this program)");
  app.add_flag("--fsync", sync, "fsync output files before renaming them into place");

  std::string plugin;
  auto* exists = app.add_subcommand("test-plugin-exists", "load a plugin; exit 0 if it exists");
  exists->add_option("plugin", plugin, "plugin name")->required();

  std::string profile;
  std::vector<std::string> params;
  auto* validate =
      app.add_subcommand("validate-profile", "check a profile and print the code's chunk counts");
  validate->add_option("profile", profile, kProfileHelp)->required();
  validate->add_option("display-param", params,
                       "parameter to display (all if none): " + JoinedDisplayParams());

  std::string object_size;
  auto* chunk_size =
      app.add_subcommand("calc-chunk-size", "print the chunk size of an object of the given size");
  chunk_size->add_option("profile", profile, kProfileHelp)->required();
  chunk_size->add_option("object_size", object_size, "object size in bytes (4k, 1M allowed)")
      ->required();

  std::string stripe_unit;
  std::string shards;
  std::string fname;
  auto* encode = app.add_subcommand(
      "encode", "encode FNAME, padded to whole stripes, into FNAME.<shard> for every shard");
  encode->add_option("profile", profile, kProfileHelp)->required();
  encode->add_option("stripe_unit", stripe_unit, kStripeUnitHelp)->required();
  encode
      ->add_option("want_to_encode", shards,
                   "comma separated list of shards to encode (checked; all shards are written)")
      ->required();
  encode->add_option("fname", fname, "input file; the shards go to {fname}.{shard}")->required();

  auto* decode = app.add_subcommand(
      "decode", "rebuild FNAME (padded to whole stripes) from the FNAME.<shard> files listed");
  decode->add_option("profile", profile, kProfileHelp)->required();
  decode->add_option("stripe_unit", stripe_unit, kStripeUnitHelp)->required();
  decode
      ->add_option("want_to_decode", shards,
                   "comma separated list of the available shards to decode from")
      ->required();
  decode->add_option("fname", fname, "output file; the shards are read from {fname}.{shard}")
      ->required();

  std::string lost_shard;
  auto* repair = app.add_subcommand(
      "repair",
      "rebuild FNAME.<lost_shard> from the other shard files, reading only what the code's plan "
      "needs (CLAY: d helpers x 1/q of each chunk), and print what was read as one JSON line");
  repair->add_option("profile", profile, kProfileHelp)->required();
  repair->add_option("stripe_unit", stripe_unit, kStripeUnitHelp)->required();
  repair->add_option("lost_shard", lost_shard, "the shard to rebuild")->required();
  repair->add_option("fname", fname, "the shards are {fname}.{shard}")->required();

  ec_tool::NonRegressionOptions nr;
  auto* non_regression =
      app.add_subcommand("non-regression",
                         "create or check a ceph-erasure-code-corpus folder "
                         "(\"{base}/plugin={plugin} stripe-width={stripe-width} {parameter}...\")");
  non_regression
      ->add_option("-s,--stripe-width", nr.stripe_width,
                   "stripe_width, i.e. the size of the buffer to be encoded (4k, 1M allowed)")
      ->transform(CLI::AsSizeValue(false))
      ->capture_default_str();
  non_regression->add_option("-p,--plugin", nr.plugin, "erasure code plugin name")
      ->capture_default_str();
  non_regression->add_option("--base", nr.base, "prefix all paths with base")
      ->capture_default_str();
  non_regression
      ->add_option("-P,--parameter", nr.parameters,
                   "add a parameter key=value to the erasure code profile (repeatable)")
      ->take_all()
      ->expected(1);
  non_regression->add_flag("--create", nr.create, "create the erasure coded content in the folder");
  non_regression->add_flag("--check", nr.check,
                           "check the content in the folder matches the chunks and vice versa");

  if (argc <= 1) {
    std::cerr << app.help();
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (app.get_subcommands().empty() && !app.remaining().empty() && e.get_exit_code() != 0) {
      std::cerr << "invalid command: " << app.remaining().front() << "\n"
                << "Run with --help for more information." << std::endl;
      return 1;
    }
    int code = app.exit(e);  // prints the help, or the error and a hint
    return code == 0 ? 0 : 1;
  }

  ec_tool::RemoveTemporaryFilesOnSignal();
  const std::string dir = ec_tool::PluginDirectory(plugin_dir);
  auto run = [&]() -> ec::Status {
    if (*exists) return ec_tool::RunTestPluginExists(plugin, dir);
    if (*validate) return ec_tool::RunValidateProfile(profile, params, dir, std::cout);
    if (*chunk_size) return ec_tool::RunCalcChunkSize(profile, object_size, dir, std::cout);
    if (*encode) return ec_tool::RunEncode({profile, stripe_unit, shards, fname, dir, sync});
    if (*decode) return ec_tool::RunDecode({profile, stripe_unit, shards, fname, dir, sync});
    if (*repair) {
      return ec_tool::RunRepair({profile, stripe_unit, lost_shard, fname, dir, sync}, std::cout);
    }
    nr.plugin_dir = dir;
    return ec_tool::RunNonRegression(nr, &std::cerr);
  };
  try {
    return Report(run());
  } catch (const std::exception& e) {  // std::bad_alloc for a huge stripe, mostly
    std::cerr << "ec-tool: " << e.what() << std::endl;
    return 1;
  }
}
