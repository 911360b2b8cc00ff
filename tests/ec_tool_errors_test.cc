// Bad input to build/bin/ec-tool: every case must exit with status 1 (no crash, no other code),
// print a clear message (Ceph's exact text where Ceph has one), and leave the folder exactly as
// it was: no new file, no temporary file, no existing file changed.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "tests/system_test_support.h"

namespace {

namespace fs = std::filesystem;

// test_example: k data chunks and one XOR parity; never rounds a stripe unit.
const std::string kExample = "plugin=test_example,k=3";
const std::string kAllShards = "0,1,2,3";
constexpr std::size_t kStripeUnit = 4096;

// Every entry of a folder: size and hash of a file's bytes, or a marker for folders.
using Snapshot = std::map<std::string, std::pair<std::size_t, std::size_t>>;

Snapshot Take(const fs::path& dir) {
  Snapshot snapshot;
  for (const std::string& name : ectest::ListDir(dir)) {
    if (fs::is_directory(dir / name)) {
      snapshot[name] = {0, 1};
      continue;
    }
    const std::vector<std::byte> bytes = ectest::ReadBytes(dir / name);
    const std::string_view view(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    snapshot[name] = {bytes.size(), std::hash<std::string_view>{}(view)};
  }
  return snapshot;
}

class EcToolErrorsTest : public ::testing::Test {
 protected:
  std::string P(const std::string& name) const { return (tmp_ / name).string(); }

  // A 3-stripe input and its shards f.0 .. f.3.
  void EncodeExample() {
    ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(3 * 3 * kStripeUnit - 100, 1));
    ectest::ToolRun run = ectest::RunTool({"encode", kExample, "4096", kAllShards, P("f")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
  }

  // Runs the tool and checks: exit status 1, `message` in stderr (or, with exact, the first line
  // of stderr equals it), and the folder unchanged.
  void ExpectFailure(const std::vector<std::string>& args, const std::string& message,
                     bool exact = false) {
    const Snapshot before = Take(tmp_.path());
    ectest::ToolRun run = ectest::RunTool(args);
    EXPECT_EQ(run.exit_code, 1) << ectest::Describe(args) << "\n" << run.err;
    if (exact) {
      EXPECT_EQ(run.err.substr(0, run.err.find('\n')), message) << ectest::Describe(args);
    } else {
      EXPECT_NE(run.err.find(message), std::string::npos)
          << ectest::Describe(args) << "\nstderr: " << run.err << "\nexpected: " << message;
    }
    const Snapshot after = Take(tmp_.path());
    EXPECT_TRUE(after == before) << ectest::Describe(args) << " changed the folder";
    for (const auto& [name, bytes] : after) {
      EXPECT_TRUE(before.count(name)) << ectest::Describe(args) << " left " << name << " behind";
    }
  }

  ectest::TempDir tmp_;
};

TEST_F(EcToolErrorsTest, UnknownPlugin) {
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(1000, 2));
  ExpectFailure({"encode", "plugin=no_such_plugin,k=3", "4096", kAllShards, P("f")},
                "invalid profile: load dlopen(");
  ExpectFailure({"validate-profile", "plugin=no_such_plugin"}, "invalid profile: load dlopen(");
  ExpectFailure({"test-plugin-exists", "no_such_plugin"}, "libec_no_such_plugin.so");
}

TEST_F(EcToolErrorsTest, PluginDirectoryWithoutThePlugin) {
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(1000, 3));
  ExpectFailure(
      {"--erasure-code-dir", P("nowhere"), "encode", kExample, "4096", kAllShards, P("f")},
      "invalid profile: load dlopen(" + P("nowhere") + "/libec_test_example.so)");
}

TEST_F(EcToolErrorsTest, ProfileWithoutPlugin) {
  ExpectFailure({"validate-profile", "k=3,m=2"}, "invalid profile: plugin not specified", true);
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(1000, 4));
  ExpectFailure({"encode", "k=3,m=2", "4096", kAllShards, P("f")},
                "invalid profile: plugin not specified", true);
}

TEST_F(EcToolErrorsTest, MalformedOrRejectedProfile) {
  ExpectFailure({"validate-profile", "plugin=test_example,k"}, "invalid profile: 'k' is not");
  ExpectFailure({"validate-profile", "plugin=test_example,k=1"}, "invalid profile: k=1");
  ExpectFailure({"calc-chunk-size", "plugin=test_example,k=x", "100"},
                "invalid profile: could not convert k=x to int");
}

TEST_F(EcToolErrorsTest, StripeUnitNotAPositiveNumber) {
  EncodeExample();
  for (const char* su : {"0", "-4096", "abc", "4096x", ""}) {
    ExpectFailure({"encode", kExample, su, kAllShards, P("f")}, "invalid stripe unit", true);
    ExpectFailure({"decode", kExample, su, kAllShards, P("f")}, "invalid stripe unit", true);
  }
}

TEST_F(EcToolErrorsTest, StripeUnitTheLibraryRoundsUp) {
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(10000, 5));
  // isa: chunk = roundup(ceil(sw/k), 32).
  ExpectFailure({"encode", "plugin=isa,technique=reed_sol_van,k=2,m=1", "100", "0,1,2", P("f")},
                "invalid stripe unit: the plugin rounds it up to 128", true);
  ExpectFailure({"decode", "plugin=isa,technique=reed_sol_van,k=2,m=1", "100", "0,1", P("f")},
                "invalid stripe unit: the plugin rounds it up to 128", true);
  // jerasure cauchy_orig (Ceph's workunit case): alignment k*w*packetsize*4 = 131072.
  ExpectFailure(
      {"encode", "plugin=jerasure,technique=cauchy_orig,k=2,m=1", "4096", "0,1,2", P("f")},
      "invalid stripe unit: the plugin rounds it up to 65536", true);
}

TEST_F(EcToolErrorsTest, EncodeInputMissing) {
  ExpectFailure({"encode", kExample, "4096", kAllShards, P("missing")},
                "failed to read " + P("missing") + ": No such file or directory", true);
}

TEST_F(EcToolErrorsTest, EncodeInputEmpty) {
  ectest::WriteBytes(tmp_ / "f", {});
  ExpectFailure({"encode", kExample, "4096", kAllShards, P("f")},
                "failed to read " + P("f") + ": the file is empty");
}

TEST_F(EcToolErrorsTest, EncodeInputIsADirectory) {
  fs::create_directory(tmp_ / "d");
  ExpectFailure({"encode", kExample, "4096", kAllShards, P("d")},
                "failed to read " + P("d") + ": Is a directory", true);
}

TEST_F(EcToolErrorsTest, ShardListNotNumbersOrOutOfRange) {
  EncodeExample();
  ExpectFailure({"encode", kExample, "4096", "0,x", P("f")}, "invalid shard 'x': not a number",
                true);
  ExpectFailure({"encode", kExample, "4096", "0,4", P("f")}, "invalid shard 4: out of range [0,4)",
                true);
  ExpectFailure({"encode", kExample, "4096", ",", P("f")}, "no shard given", true);
  ExpectFailure({"decode", kExample, "4096", "0,1,-2", P("f")}, "invalid shard '-2': not a number",
                true);
  ExpectFailure({"decode", kExample, "4096", "0,1,2,99", P("f")},
                "invalid shard 99: out of range [0,4)", true);
  ExpectFailure({"decode", kExample, "4096", "0,1,2x", P("f")}, "invalid shard '2x': not a number",
                true);
}

TEST_F(EcToolErrorsTest, DecodeTooFewShards) {
  EncodeExample();
  fs::remove(tmp_ / "f");
  ExpectFailure({"decode", kExample, "4096", "0,3", P("f")}, "cannot decode from shards 0,3: ");
}

TEST_F(EcToolErrorsTest, DecodeShardFileMissing) {
  EncodeExample();
  fs::remove(tmp_ / "f");
  fs::remove(tmp_ / "f.1");
  ExpectFailure({"decode", kExample, "4096", "0,1,2", P("f")},
                "failed to read " + P("f.1") + ": No such file or directory", true);
}

TEST_F(EcToolErrorsTest, DecodeShardFilesOfDifferentSizes) {
  EncodeExample();
  fs::remove(tmp_ / "f");
  fs::resize_file(tmp_ / "f.2", 2 * kStripeUnit);  // one stripe lost
  ExpectFailure({"decode", kExample, "4096", "0,1,2", P("f")},
                "shard file " + P("f.2") + " has 8192 bytes but " + P("f.0") + " has 12288");
  fs::resize_file(tmp_ / "f.2", 3 * kStripeUnit - 1);
  ExpectFailure({"decode", kExample, "4096", "0,1,2", P("f")},
                "shard file " + P("f.2") + " has 12287 bytes but");
}

TEST_F(EcToolErrorsTest, DecodeShardSizeNotAMultipleOfTheStripeUnit) {
  EncodeExample();
  fs::remove(tmp_ / "f");
  for (const char* shard : {"f.0", "f.1", "f.2", "f.3"}) fs::resize_file(tmp_ / shard, 5000);
  ExpectFailure(
      {"decode", kExample, "4096", "1,2,3", P("f")},
      "shard file " + P("f.1") + " has 5000 bytes, not a multiple of the stripe unit 4096");
  // The same shards read with another stripe unit.
  for (const char* shard : {"f.0", "f.1", "f.2", "f.3"}) fs::resize_file(tmp_ / shard, 8192);
  ExpectFailure({"decode", kExample, "3000", "0,1,2", P("f")},
                "not a multiple of the stripe unit 3000");
}

TEST_F(EcToolErrorsTest, DecodeEmptyShards) {
  EncodeExample();
  fs::remove(tmp_ / "f");
  for (const char* shard : {"f.0", "f.1", "f.2", "f.3"}) fs::resize_file(tmp_ / shard, 0);
  ExpectFailure({"decode", kExample, "4096", "0,1,2", P("f")},
                "shard file " + P("f.0") + " is empty", true);
}

// A failed decode must not replace (or touch) an existing good output.
TEST_F(EcToolErrorsTest, DecodeFailureKeepsTheExistingOutput) {
  EncodeExample();
  fs::resize_file(tmp_ / "f.3", 100);
  ExpectFailure({"decode", kExample, "4096", "1,2,3", P("f")}, "shard file " + P("f.3"));
}

TEST_F(EcToolErrorsTest, DecodeOutputNotWritable) {
  EncodeExample();
  fs::remove(tmp_ / "f");
  fs::create_directory(tmp_ / "f");
  ExpectFailure({"decode", kExample, "4096", "0,1,2", P("f")},
                "failed to write " + P("f") + ": Is a directory", true);
}

// Existing shards stay as they were when one of the new shards cannot be written.
TEST_F(EcToolErrorsTest, EncodeOutputNotWritable) {
  EncodeExample();
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(50000, 6));  // new content
  fs::remove(tmp_ / "f.2");
  fs::create_directory(tmp_ / "f.2");
  ExpectFailure({"encode", kExample, "4096", kAllShards, P("f")},
                "failed to write " + P("f.2") + ": Is a directory", true);
}

// A signal in the middle of an encode removes the temporary shard files and leaves the old
// shards in place.
TEST_F(EcToolErrorsTest, InterruptedEncodeLeavesNothingBehind) {
  EncodeExample();
  ectest::WriteBytes(tmp_ / "f", std::vector<std::byte>(std::size_t{256} << 20, std::byte{7}));
  const Snapshot before = Take(tmp_.path());
  const int pid = ectest::SpawnTool({"encode", kExample, "4096", kAllShards, P("f")});
  // Wait until the temporary files exist, then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (ectest::ListDir(tmp_.path()).size() == before.size() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  ::kill(pid, SIGTERM);
  EXPECT_EQ(ectest::WaitTool(pid), 128 + SIGTERM) << "the encode finished before the signal";
  const Snapshot after = Take(tmp_.path());
  EXPECT_TRUE(after == before);
  for (const auto& [name, digest] : after)
    EXPECT_TRUE(before.count(name)) << name << " left behind";
}

TEST_F(EcToolErrorsTest, StripeUnitWithABadUnit) {
  EncodeExample();
  for (const char* su :
       {"4kk", "4 k", "4x", "k", "4kibb", "99999999999999999999", "17179869184e"}) {
    ExpectFailure({"encode", kExample, su, kAllShards, P("f")}, "invalid stripe unit", true);
    ExpectFailure({"repair", kExample, su, "1", P("f")}, "invalid stripe unit", true);
  }
  ExpectFailure({"calc-chunk-size", kExample, "4G"}, "invalid object size", true);  // >= 4 GiB
}

// Issue 12: decode and repair refuse shard files whose sizes do not fit the profile and stripe
// unit, before anything is written.
TEST_F(EcToolErrorsTest, RepairShardsOfAnotherStripeUnit) {
  EncodeExample();  // 3 stripes of 4096: shards of 12288 bytes
  fs::remove(tmp_ / "f.1");
  ExpectFailure({"repair", kExample, "8192", "1", P("f")},
                "has 12288 bytes, not a multiple of the stripe unit 8192");
  ExpectFailure({"decode", kExample, "8k", "0,2,3", P("f")},
                "has 12288 bytes, not a multiple of the stripe unit 8192");
}

// Every shard file present must fit, not only the ones the plan reads: a shard of another size
// means files of different objects (or encodes) side by side.
TEST_F(EcToolErrorsTest, RepairChecksEveryShardFilePresent) {
  const std::string rs = "plugin=jerasure,technique=reed_sol_van,k=4,m=2";
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(100000, 8));
  ASSERT_EQ(ectest::RunTool({"encode", rs, "4096", "0", P("f")}).exit_code, 0);
  fs::remove(tmp_ / "f.5");
  fs::resize_file(tmp_ / "f.4", 4096);  // not among the k=4 helpers (0..3) of the plan
  ExpectFailure({"repair", rs, "4096", "5", P("f")},
                "shard file " + P("f.4") + " has 4096 bytes but " + P("f.0") + " has 28672");
}

// Shards of a code with more chunks than the profile: FNAME.<k+m> exists.
TEST_F(EcToolErrorsTest, RepairShardsOfAWiderProfile) {
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(100000, 9));
  ASSERT_EQ(ectest::RunTool({"encode", "plugin=isa,k=4,m=3", "4096", "0", P("f")}).exit_code, 0);
  fs::remove(tmp_ / "f.1");
  ExpectFailure({"repair", "plugin=isa,k=4,m=2", "4096", "1", P("f")},
                "shard file " + P("f.6") + " exists but this profile has 6 shards (0..5)");
}

// README's old walk-through repaired isa shards with a clay profile. That is caught when the
// stripe unit does not fit clay; at 4096 it fits both codes and the sizes cannot tell (the
// shards carry no profile): see repair_command.h.
TEST_F(EcToolErrorsTest, RepairIsaShardsAsClay) {
  ectest::WriteBytes(tmp_ / "f", ectest::RandomBytes(100000, 10));
  ASSERT_EQ(ectest::RunTool({"encode", "plugin=isa,k=4,m=2", "2080", "0", P("f")}).exit_code, 0);
  fs::remove(tmp_ / "f.1");
  ExpectFailure({"repair", "plugin=clay,k=4,m=2,d=5", "2080", "1", P("f")},
                "invalid stripe unit: the plugin rounds it up to 2304", true);
}

TEST_F(EcToolErrorsTest, NoArgumentsIsAUsageError) {
  ectest::ToolRun run = ectest::RunTool({});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("Usage:"), std::string::npos) << run.err;
}

TEST_F(EcToolErrorsTest, ValidateProfileUnknownDisplayParam) {
  ExpectFailure({"validate-profile", kExample, "chunk_count", "bogus"},
                "invalid display param: bogus", true);
}

TEST_F(EcToolErrorsTest, CalcChunkSizeInvalidObjectSize) {
  for (const char* size : {"0", "-1", "abc", "99999999999"}) {
    ExpectFailure({"calc-chunk-size", kExample, size}, "invalid object size", true);
  }
}

TEST_F(EcToolErrorsTest, CommandLineErrors) {
  ExpectFailure({"encode", kExample, "4096", kAllShards}, "fname is required");
  ExpectFailure({"decode", kExample}, "is required");
  ExpectFailure({"calc-chunk-size", kExample}, "object_size is required");
  ExpectFailure({"no-such-command"}, "no-such-command");
  ExpectFailure({"encode", "--no-such-option", kExample, "4096", kAllShards, P("f")},
                "--no-such-option");
}

TEST_F(EcToolErrorsTest, NonRegressionNeedsCheckOrCreate) {
  ExpectFailure({"non-regression", "--base", P("."), "-p", "test_example", "-P", "k=3"},
                "must specifify either --check, or --create", true);
}

TEST_F(EcToolErrorsTest, NonRegressionFolderMissingOrExisting) {
  const std::vector<std::string> args = {
      "non-regression", "--base", tmp_.path().string(), "-p", "test_example", "-P", "k=3"};
  std::vector<std::string> check = args;
  check.push_back("--check");
  ExpectFailure(check, "failed to read " + P("plugin=test_example stripe-width=4096 k=3") +
                           "/content: No such file or directory");
  std::vector<std::string> create = args;
  create.push_back("--create");
  ASSERT_EQ(ectest::RunTool(create).exit_code, 0);
  ExpectFailure(create,
                "mkdir(" + P("plugin=test_example stripe-width=4096 k=3") + "): File exists", true);
}

TEST_F(EcToolErrorsTest, NonRegressionCheckDetectsCorruption) {
  const std::vector<std::string> args = {"non-regression",
                                         "--base",
                                         tmp_.path().string(),
                                         "-p",
                                         "test_example",
                                         "-s",
                                         "4651",
                                         "-P",
                                         "k=3"};
  std::vector<std::string> create = args;
  create.push_back("--create");
  ASSERT_EQ(ectest::RunTool(create).exit_code, 0);
  const fs::path folder = tmp_ / "plugin=test_example stripe-width=4651 k=3";
  std::vector<std::byte> chunk = ectest::ReadBytes(folder / "1");
  chunk[17] ^= std::byte{1};
  ectest::WriteBytes(folder / "1", chunk);
  std::vector<std::string> check = args;
  check.push_back("--check");
  ExpectFailure(check, "chunk 1 encodes differently", true);
}

TEST_F(EcToolErrorsTest, NonRegressionUnknownPlugin) {
  ExpectFailure(
      {"non-regression", "--base", tmp_.path().string(), "-p", "no_such_plugin", "--create"},
      "invalid profile: load dlopen(");
}

}  // namespace
