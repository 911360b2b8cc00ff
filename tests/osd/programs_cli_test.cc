// The command lines of ec-osd's companion programs and the benchmarks (ec-osd-client, ec-osd-bench,
// ec-store-bench, ec-clay-bench, tcp-pingpong; the benchmarks when built): --version, --help, usage
// errors exiting 1 (CLI11's own codes are 105-109; ec-rados: EINVAL, its errno rule), and size
// suffixes where they take sizes.
#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace ectest {
namespace {

std::vector<std::string> Programs() {
  std::vector<std::string> out;
  std::stringstream ss(ECSTORE_CLI_PROGRAMS);
  for (std::string p; std::getline(ss, p, ',');) out.push_back(p);
  return out;
}

bool Built(const std::string& program) {
  for (const std::string& p : Programs()) {
    if (p == program) return true;
  }
  return false;
}

std::string PathOf(const std::string& program) {
  return std::string(ECSTORE_BIN_DIR) + "/" + program;
}

ProcessResult RunNamed(const std::string& program, const std::vector<std::string>& args) {
  return RunProgram(PathOf(program), args);
}

TEST(ProgramsCli, VersionHelpAndUsageErrors) {
  ASSERT_FALSE(Programs().empty());
  for (const std::string& p : Programs()) {
    SCOPED_TRACE(p);
    ProcessResult v = RunNamed(p, {"--version"});
    EXPECT_EQ(v.exit_code, 0) << v.err;
    EXPECT_EQ(v.out, p + " " + ECSTORE_VERSION + "\n");
    ProcessResult h = RunNamed(p, {"--help"});
    EXPECT_EQ(h.exit_code, 0) << h.err;
    EXPECT_FALSE((h.out + h.err).empty());
    // ec-osd-client first asks for its missing subcommand.
    ProcessResult bad = p == "ec-osd-client" ? RunNamed(p, {"ping", "--no-such-option"})
                                             : RunNamed(p, {"--no-such-option"});
    // ec-rados exits with the errno of its error, EINVAL for a usage error (as ceph).
    EXPECT_EQ(bad.exit_code, p == "ec-rados" ? EINVAL : 1) << bad.out << bad.err;
    EXPECT_NE(bad.err.find("no-such-option"), std::string::npos) << bad.err;
  }
}

// A bad value is a usage error too (exit 1 with CLI11's message), per program.
TEST(ProgramsCli, BadValuesExitOne) {
  std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"ec-osd-client", {"ping", "extra"}},
      {"ec-osd-client", {"stat", "c", "o", "-1"}},
      {"ec-osd-client", {"--timeout", "soon", "ping"}},
      {"ec-osd-client", {}},  // no subcommand
      {"ec-osd-bench", {"--repetitions", "0"}},
      {"ec-osd-bench", {"--shard-write", "12q"}},
      {"ec-store-bench", {"-s", "0"}},
      {"ec-store-bench", {"-s", "2G"}},  // over the 1 GiB limit
      {"ec-store-bench", {"-R", "X"}},
      {"tcp-pingpong", {"--size", "0"}},
      {"tcp-pingpong", {"--iterations", "x"}},
  };
  for (const auto& [program, args] : cases) {
    if (!Built(program)) continue;
    ProcessResult r = RunNamed(program, args);
    std::string line = program;
    for (const std::string& a : args) line += " " + a;
    EXPECT_EQ(r.exit_code, 1) << line << "\n" << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << line;
  }
}

TEST(ProgramsCli, SizeSuffixes) {
  if (Built("ec-store-bench")) {
    ProcessResult r =
        RunNamed("ec-store-bench", {"-s", "1M", "-o", "2", "-R", "U;p", "--device-size", "64M"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("value 1048576 B"), std::string::npos) << r.out;
  }
  if (Built("ec-store-bench")) {
    // --watched: the device as ec-osd opens it; every run line says its CPU per operation.
    ProcessResult r = RunNamed("ec-store-bench", {"-s", "4k", "-o", "20", "-R", "U;p F;p",
                                                  "--device-size", "64M", "--watched"});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("(uring, watched)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("update  ops       20"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fetch   ops       20"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cpu us/op"), std::string::npos) << r.out;
  }
  if (Built("ec-osd-bench")) {
    ProcessResult r =
        RunNamed("ec-osd-bench",
                 {"--self-server", "--shard-write", "64k", "--objects", "2", "--shard-ops", "4",
                  "--message-sizes", "(1k 4KiB) (b2k 0)", "--repetitions", "4", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["message_sizes"][0]["request_bytes"], 1024);
    EXPECT_EQ(j["message_sizes"][0]["response_bytes"], 4096);
    EXPECT_EQ(j["message_sizes"][1]["request_bytes"], 2048);
    EXPECT_EQ(j["shard_write"]["shard_bytes"], 65536) << j.dump();
  }
  if (Built("tcp-pingpong")) {
    ProcessResult r = RunNamed("tcp-pingpong", {"--size", "4k", "--iterations", "10", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["size"], 4096);
  }
}

}  // namespace
}  // namespace ectest
