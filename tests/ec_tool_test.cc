// build/bin/ec-tool used as intended: help, the information commands, encode/decode round trips
// (with the shard layout checked byte by byte), Ceph's own workunit for its tool
// (qa/workunits/erasure-code/test_ceph-erasure-code-tool.sh) and non-regression folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "tests/system_test_support.h"

namespace {

namespace fs = std::filesystem;

const std::string kExample = "plugin=test_example,k=3";  // 3 data chunks + 1 XOR parity

std::vector<std::byte> Padded(std::vector<std::byte> data, std::size_t stripe_width) {
  data.resize((data.size() + stripe_width - 1) / stripe_width * stripe_width);
  return data;
}

ectest::ToolRun Ok(const std::vector<std::string>& args,
                   const std::map<std::string, std::string>& env = {}) {
  ectest::ToolRun run = ectest::RunTool(args, env);
  EXPECT_EQ(run.exit_code, 0) << ectest::Describe(args) << "\n" << run.err;
  return run;
}

TEST(EcToolTest, HelpOnTheProgramAndEverySubcommand) {
  for (const char* sub : {"", "test-plugin-exists", "validate-profile", "calc-chunk-size", "encode",
                          "decode", "non-regression"}) {
    std::vector<std::string> args;
    if (*sub) args.push_back(sub);
    args.push_back("--help");
    ectest::ToolRun run = Ok(args);
    EXPECT_NE(run.out.find("Usage:"), std::string::npos) << ectest::Describe(args) << run.out;
  }
  // No arguments at all is a usage error (issue 12): the usage goes to stderr, exit status 1.
  ectest::ToolRun bare = ectest::RunTool({});
  EXPECT_EQ(bare.exit_code, 1);
  EXPECT_NE(bare.err.find("Usage:"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("encode"), std::string::npos) << bare.err;
  ectest::ToolRun nr = Ok({"non-regression", "--help"});
  for (const char* option :
       {"--stripe-width", "--plugin", "--base", "--parameter", "--create", "--check"}) {
    EXPECT_NE(nr.out.find(option), std::string::npos) << option;
  }
}

TEST(EcToolTest, Version) {
  ectest::ToolRun run = Ok({"--version"});
  EXPECT_EQ(run.out.rfind("ec-tool ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find_first_of("0123456789"), std::string::npos) << run.out;
}

// Sizes take binary units wherever ec-tool takes a size (issue 12): the same shards from "4k" as
// from "4096", in every command.
TEST(EcToolTest, SizeUnits) {
  EXPECT_EQ(Ok({"calc-chunk-size", kExample, "3k"}).out, "1024\n");
  EXPECT_EQ(Ok({"calc-chunk-size", kExample, "3KiB"}).out, "1024\n");
  EXPECT_EQ(Ok({"calc-chunk-size", "plugin=test_example,k=2", "1M"}).out, "524288\n");
  ectest::TempDir tmp;
  const std::vector<std::byte> data = ectest::RandomBytes(100000, 21);
  ectest::WriteBytes(tmp / "a", data);
  ectest::WriteBytes(tmp / "b", data);
  Ok({"encode", kExample, "4096", "0", (tmp / "a").string()});
  Ok({"encode", kExample, "4k", "0", (tmp / "b").string()});
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(ectest::ReadBytes(tmp / ("a." + std::to_string(i))) ==
                ectest::ReadBytes(tmp / ("b." + std::to_string(i))))
        << "shard " << i;
  }
  fs::remove(tmp / "b");
  Ok({"decode", kExample, "4K", "0,1,3", (tmp / "b").string()});
  EXPECT_TRUE(ectest::ReadBytes(tmp / "b") == Padded(data, 3 * 4096));
  fs::remove(tmp / "b.1");
  Ok({"repair", kExample, "4kib", "1", (tmp / "b").string()});
  EXPECT_TRUE(ectest::ReadBytes(tmp / "b.1") == ectest::ReadBytes(tmp / "a.1"));
}

// The walk-through of README.md ("Using ec-tool"), with one profile for every command: decode
// rebuilds the object, repair rebuilds a CLAY shard from d=5 helpers x C/q.
TEST(EcToolTest, ReadmeWalkThrough) {
  ectest::TempDir tmp;
  const std::string obj = (tmp / "obj").string();
  const std::string profile = "plugin=clay,k=4,m=2,d=5";
  const std::vector<std::byte> data = ectest::RandomBytes(100000, 5);
  ectest::WriteBytes(obj, data);
  Ok({"encode", profile, "4096", "0,1,2,3,4,5", obj});
  const std::vector<std::byte> shard1 = ectest::ReadBytes(obj + ".1");
  fs::remove(obj);
  fs::remove(obj + ".4");
  Ok({"decode", profile, "4096", "0,1,2,3,5", obj});
  EXPECT_TRUE(ectest::ReadBytes(obj) == Padded(data, 4 * 4096));
  Ok({"repair", profile, "4096", "4", obj});  // back to all six shards
  fs::remove(obj + ".1");
  ectest::ToolRun run = Ok({"repair", profile, "4096", "1", obj});
  EXPECT_TRUE(ectest::ReadBytes(obj + ".1") == shard1);
  const std::size_t stripes = shard1.size() / 4096;
  EXPECT_EQ(run.out.rfind("{\"bytes_read\":" + std::to_string(5 * 4096 / 2 * stripes) +
                              ",\"chunk_size\":4096,\"helpers\":[0,2,3,4,5],\"read_ops\":",
                          0),
            0u)
      << run.out;
  EXPECT_NE(run.out.find(",\"shard\":1,\"stripes\":" + std::to_string(stripes) +
                         ",\"sub_chunk_count\":8}\n"),
            std::string::npos)
      << run.out;
}

TEST(EcToolTest, TestPluginExists) {
  Ok({"test-plugin-exists", "test_example"});
  EXPECT_EQ(ectest::RunTool({"test-plugin-exists", "INVALID_PLUGIN"}).exit_code, 1);
}

TEST(EcToolTest, ValidateProfilePrintsCounts) {
  EXPECT_EQ(Ok({"validate-profile", kExample}).out,
            "chunk_count: 4\ndata_chunk_count: 3\ncoding_chunk_count: 1\nsub_chunk_count: 1\n");
  EXPECT_EQ(Ok({"validate-profile", kExample, "chunk_count"}).out, "4\n");
  EXPECT_EQ(Ok({"validate-profile", kExample, "sub_chunk_count"}).out, "1\n");
  EXPECT_EQ(Ok({"validate-profile", kExample, "coding_chunk_count", "data_chunk_count"}).out,
            "coding_chunk_count: 1\ndata_chunk_count: 3\n");
  // Spaces separate settings too.
  EXPECT_EQ(Ok({"validate-profile", "plugin=test_example k=5", "chunk_count"}).out, "6\n");
}

TEST(EcToolTest, CalcChunkSize) {
  EXPECT_EQ(Ok({"calc-chunk-size", kExample, "1000"}).out, "334\n");
  EXPECT_EQ(Ok({"calc-chunk-size", "plugin=isa,technique=reed_sol_van,k=3,m=2", "4651"}).out,
            "1568\n");
  EXPECT_EQ(Ok({"calc-chunk-size", "plugin=jerasure,technique=reed_sol_van,k=3,m=2", "4651"}).out,
            "1568\n");
}

TEST(EcToolTest, ErasureCodeDirOverridesTheEnvironment) {
  const std::string dir = ectest::PluginDir().string();
  const std::map<std::string, std::string> wrong_env = {{"EC_PLUGIN_DIR", "/nonexistent"}};
  EXPECT_EQ(ectest::RunTool({"test-plugin-exists", "test_example"}, wrong_env).exit_code, 1);
  Ok({"--erasure-code-dir", dir, "test-plugin-exists", "test_example"}, wrong_env);
  // Also accepted after the subcommand.
  Ok({"validate-profile", kExample, "--erasure-code-dir", dir}, wrong_env);
}

TEST(EcToolTest, DefaultPluginDirIsTheLibFolderNextToTheProgram) {
  Ok({"test-plugin-exists", "test_example"}, {{"EC_PLUGIN_DIR", ""}});
}

// Several batches of stripes, an object that ends inside a stripe: every shard byte is checked
// against the layout (data piece i of stripe s in shard i at s*su; parity = XOR for
// test_example), then every 3 of the 4 shards rebuild the padded object.
TEST(EcToolTest, EncodeDecodeRoundTripWithShardLayout) {
  ectest::TempDir tmp;
  constexpr std::size_t su = 4096;
  constexpr std::size_t k = 3;
  const std::vector<std::byte> data = ectest::RandomBytes(40 * 1024 * 1024 + 12345, 11);
  ectest::WriteBytes(tmp / "obj", data);
  Ok({"encode", kExample, "4096", "0,1,2,3", (tmp / "obj").string()});
  const std::vector<std::byte> padded = Padded(data, k * su);
  const std::size_t stripes = padded.size() / (k * su);
  std::vector<std::vector<std::byte>> expected(4, std::vector<std::byte>(stripes * su));
  for (std::size_t s = 0; s < stripes; ++s) {
    for (std::size_t i = 0; i < k; ++i) {
      const std::byte* piece = padded.data() + s * k * su + i * su;
      std::copy(piece, piece + su, expected[i].begin() + s * su);
      for (std::size_t b = 0; b < su; ++b) expected[3][s * su + b] ^= piece[b];
    }
  }
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(ectest::ReadBytes(tmp / ("obj." + std::to_string(i))) == expected[i])
        << "shard " << i << " does not hold chunk " << i << " of every stripe";
  }
  EXPECT_EQ(ectest::ListDir(tmp.path()),
            (std::set<std::string>{"obj", "obj.0", "obj.1", "obj.2", "obj.3"}));
  for (const char* available : {"0,1,2", "1,2,3", "0,2,3", "0,1,3", "0,1,2,3", "3,2,1,0"}) {
    fs::remove(tmp / "obj");
    Ok({"decode", kExample, "4096", available, (tmp / "obj").string()});
    EXPECT_TRUE(ectest::ReadBytes(tmp / "obj") == padded) << "from shards " << available;
  }
  EXPECT_EQ(ectest::ListDir(tmp.path()).size(), 5u);
}

TEST(EcToolTest, EncodeReplacesExistingShardsAndDecodeReplacesTheOutput) {
  ectest::TempDir tmp;
  for (int i = 0; i < 4; ++i) ectest::WriteText(tmp / ("o." + std::to_string(i)), "stale");
  const std::vector<std::byte> data = ectest::RandomBytes(3 * 512, 12);
  ectest::WriteBytes(tmp / "o", data);
  Ok({"encode", kExample, "512", "0,1,2,3", (tmp / "o").string()});
  EXPECT_EQ(ectest::ReadBytes(tmp / "o.0"),
            std::vector<std::byte>(data.begin(), data.begin() + 512));
  ectest::WriteText(tmp / "o", "stale");
  Ok({"decode", kExample, "512", "1,2,3", (tmp / "o").string()});
  EXPECT_EQ(ectest::ReadBytes(tmp / "o"), data);
  EXPECT_EQ(ectest::ListDir(tmp.path()).size(), 5u);
}

// Ceph's qa/workunits/erasure-code/test_ceph-erasure-code-tool.sh, for isa and jerasure.
TEST(EcToolTest, CephWorkunit) {
  for (const std::string plugin : {"isa", "jerasure"}) {
    SCOPED_TRACE(plugin);
    const std::string profile = "plugin=" + plugin + ",technique=reed_sol_van,k=2,m=1";
    ectest::TempDir tmp;
    Ok({"test-plugin-exists", plugin});
    Ok({"validate-profile", profile});
    EXPECT_EQ(Ok({"validate-profile", profile, "chunk_count"}).out, "3\n");
    EXPECT_EQ(Ok({"calc-chunk-size", profile, "4194304"}).out, "2097152\n");

    const std::vector<std::byte> data = ectest::RandomBytes(770808, 13);
    ectest::WriteBytes(tmp / "data", data);
    Ok({"encode", profile, "4096", "0,1,2", (tmp / "data").string()});
    for (const char* shard : {"data.0", "data.1", "data.2"}) EXPECT_TRUE(fs::exists(tmp / shard));
    fs::remove(tmp / "data");
    Ok({"decode", profile, "4096", "0,2", (tmp / "data").string()});
    std::vector<std::byte> decoded = ectest::ReadBytes(tmp / "data");
    ASSERT_GE(decoded.size(), data.size());
    decoded.resize(data.size());
    EXPECT_TRUE(decoded == data);

    const std::vector<std::byte> small(data.begin(), data.begin() + 3 * 8192);
    ectest::WriteBytes(tmp / "small", small);
    Ok({"encode", profile, "4096", "0,1,2", (tmp / "small").string()});
    for (const char* shards : {"1,2", "0,2"}) {
      fs::remove(tmp / "small");
      Ok({"decode", profile, "4096", shards, (tmp / "small").string()});
      EXPECT_TRUE(ectest::ReadBytes(tmp / "small") == small) << "from shards " << shards;
    }
  }
}

// With `mapping`, data piece i is stored in shard mapping[i]: "_DD" puts the parity in shard 0.
TEST(EcToolTest, ChunkMappingPlacesDataShards) {
  for (const std::string plugin : {"isa", "jerasure"}) {
    SCOPED_TRACE(plugin);
    const std::string profile = "plugin=" + plugin + ",technique=reed_sol_van,k=2,m=1,mapping=_DD";
    ectest::TempDir tmp;
    const std::vector<std::byte> data = ectest::RandomBytes(2 * 4096 * 5, 14);
    ectest::WriteBytes(tmp / "m", data);
    Ok({"encode", profile, "4096", "0,1,2", (tmp / "m").string()});
    const std::vector<std::byte> s1 = ectest::ReadBytes(tmp / "m.1");
    ASSERT_EQ(s1.size(), 5u * 4096);
    EXPECT_TRUE(std::equal(s1.begin(), s1.begin() + 4096, data.begin())) << "piece 0 in shard 1";
    for (const char* shards : {"0,1", "0,2", "1,2"}) {
      fs::remove(tmp / "m");
      Ok({"decode", profile, "4096", shards, (tmp / "m").string()});
      EXPECT_TRUE(ectest::ReadBytes(tmp / "m") == data) << "from shards " << shards;
    }
  }
}

TEST(EcToolTest, NonRegressionCreateThenCheck) {
  ectest::TempDir tmp;
  Ok({"non-regression", "--create", "--base", tmp.path().string(), "-p", "test_example", "-s",
      "4651", "-P", "k=3", "--parameter", "crush-root=default"});
  const fs::path folder = tmp / "plugin=test_example stripe-width=4651 k=3 crush-root=default";
  ASSERT_TRUE(fs::is_directory(folder)) << "folders: " << ectest::ListDir(tmp.path()).size();
  EXPECT_EQ(ectest::ListDir(folder), (std::set<std::string>{"content", "0", "1", "2", "3"}));
  const std::vector<std::byte> content = ectest::ReadBytes(folder / "content");
  ASSERT_EQ(content.size(), 4651u);
  for (std::size_t i = 0; i < content.size(); ++i) {
    ASSERT_TRUE(content[i] >= std::byte{'a'} && content[i] <= std::byte{'z'}) << i;
    if (i >= 37) {
      ASSERT_EQ(content[i], content[i - 37]) << i;
    }
  }
  EXPECT_EQ(ectest::ReadBytes(folder / "0").size(), 1551u);  // ceil(4651 / 3)
  Ok({"non-regression", "--check", "--base", tmp.path().string(), "-p", "test_example", "-s",
      "4651", "-P", "k=3", "--parameter", "crush-root=default"});
  // --create and --check together, and the defaults (stripe width 4096).
  Ok({"non-regression", "--create", "--check", "--base", tmp.path().string(), "--plugin",
      "test_example", "--parameter=k=4"});
  EXPECT_TRUE(fs::is_directory(tmp / "plugin=test_example stripe-width=4096 k=4"));
  // Units for the stripe width too; the folder still carries the number.
  Ok({"non-regression", "--create", "--base", tmp.path().string(), "-p", "test_example", "-s", "8k",
      "-P", "k=2"});
  EXPECT_TRUE(fs::is_directory(tmp / "plugin=test_example stripe-width=8192 k=2"));
}

// Every subcommand with an lrc profile: 4 data chunks, 2 global and 2 local parities.
TEST(EcToolTest, EverySubcommandWithLrc) {
  const std::string lrc = "plugin=lrc,k=4,m=2,l=3";
  Ok({"test-plugin-exists", "lrc"});
  EXPECT_EQ(Ok({"validate-profile", lrc}).out,
            "chunk_count: 8\ndata_chunk_count: 4\ncoding_chunk_count: 4\nsub_chunk_count: 1\n");
  EXPECT_EQ(Ok({"calc-chunk-size", lrc, "4651"}).out, "1184\n");  // the global layer's
  ectest::ToolRun bad = ectest::RunTool({"validate-profile", "plugin=lrc,k=4,m=2"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("All of k, m, l must be set or none of them in {k=4,l=-1,m=2,plugin=lrc}"),
            std::string::npos)
      << bad.err;

  ectest::TempDir tmp;
  const std::vector<std::byte> data = ectest::RandomBytes(3 * 4 * 4096 + 777, 21);
  ectest::WriteBytes(tmp / "obj", data);
  Ok({"encode", lrc, "4096", "0,1,2,3,4,5,6,7", (tmp / "obj").string()});
  const std::vector<std::byte> padded = Padded(data, 4 * 4096);
  // mapping DD__DD__: data pieces 0..3 of each stripe are shards 0, 1, 4, 5.
  const int data_shard[] = {0, 1, 4, 5};
  for (int piece = 0; piece < 4; ++piece) {
    const auto shard = ectest::ReadBytes(tmp / ("obj." + std::to_string(data_shard[piece])));
    ASSERT_EQ(shard.size(), 4u * 4096);
    for (std::size_t s = 0; s < 4; ++s) {
      EXPECT_TRUE(std::equal(shard.begin() + s * 4096, shard.begin() + (s + 1) * 4096,
                             padded.begin() + (s * 4 + piece) * 4096))
          << "piece " << piece << " stripe " << s;
    }
  }
  // Decode from the data shards, from a local repair (0 lost: group 0 rebuilds it) and from
  // the global layer (0 and 1 lost).
  for (const char* available : {"0,1,4,5", "1,2,3,4,5", "2,4,5,6", "2,3,4,5,6,7"}) {
    fs::remove(tmp / "obj");
    Ok({"decode", lrc, "4096", available, (tmp / "obj").string()});
    EXPECT_TRUE(ectest::ReadBytes(tmp / "obj") == padded) << "from shards " << available;
  }
  ectest::ToolRun few = ectest::RunTool({"decode", lrc, "4096", "2,3,6,7", (tmp / "obj").string()});
  EXPECT_EQ(few.exit_code, 1);

  const auto shard3 = ectest::ReadBytes(tmp / "obj.3");
  fs::remove(tmp / "obj.3");
  Ok({"repair", lrc, "4096", "3", (tmp / "obj").string()});
  EXPECT_TRUE(ectest::ReadBytes(tmp / "obj.3") == shard3);

  Ok({"non-regression", "--create", "--check", "--base", tmp.path().string(), "-p", "lrc", "-s",
      "10000", "-P", "k=8", "-P", "m=4", "-P", "l=3"});
  EXPECT_EQ(ectest::ListDir(tmp / "plugin=lrc stripe-width=10000 k=8 m=4 l=3").size(), 17u);
}

// The tool itself, on a few corpus folders (the corpus test runs the same code on all of them).
TEST(EcToolTest, NonRegressionChecksCorpusFolders) {
  const fs::path base = ectest::SharedDir() / "ceph-erasure-code-corpus" / "v0.92-988";
  const std::vector<std::vector<std::string>> cases = {
      {"jerasure", "4651", "packetsize=32", "technique=cauchy_good", "k=3", "m=2",
       "jerasure-per-chunk-alignment=true"},
      {"jerasure", "65536", "technique=reed_sol_van", "k=9", "m=6"},
      {"isa", "10000", "technique=cauchy", "k=10", "m=4"},
      {"lrc", "4651", "k=4", "m=2", "l=3"},
      {"shec", "4651", "technique=multiple", "k=8", "m=4", "c=3"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {
        "non-regression", "--check", "--base", base.string(), "-p", c[0], "-s", c[1]};
    for (std::size_t i = 2; i < c.size(); ++i) {
      args.push_back("-P");
      args.push_back(c[i]);
    }
    std::string folder = "plugin=" + c[0] + " stripe-width=" + c[1];
    for (std::size_t i = 2; i < c.size(); ++i) folder += " " + c[i];
    ASSERT_TRUE(fs::is_directory(base / folder)) << base / folder;
    Ok(args);
  }
}

// Every subcommand with a SHEC profile, which is not MDS: decode needs SHEC's sets, not any k.
TEST(EcToolTest, EverySubcommandWithShec) {
  const std::string profile = "plugin=shec,k=4,m=3,c=2";  // parities 1111, 1100, 0011
  Ok({"test-plugin-exists", "shec"});
  EXPECT_EQ(Ok({"validate-profile", profile}).out,
            "chunk_count: 7\ndata_chunk_count: 4\ncoding_chunk_count: 3\nsub_chunk_count: 1\n");
  EXPECT_EQ(Ok({"calc-chunk-size", profile, "4651"}).out, "1184\n");
  EXPECT_EQ(Ok({"calc-chunk-size", profile + ",w=16", "4651"}).out, "1216\n");
  ectest::TempDir tmp;
  const std::string obj = (tmp / "obj").string();
  const std::vector<std::byte> data = ectest::RandomBytes(100000, 17);
  ectest::WriteBytes(obj, data);
  Ok({"encode", profile, "4096", "0,1,2,3,4,5,6", obj});
  const std::vector<std::byte> shard0 = ectest::ReadBytes(obj + ".0");
  // Chunk 0 from chunk 1 and the narrow parity 5: four shards are enough here...
  fs::remove(obj);
  Ok({"decode", profile, "4096", "1,2,3,5", obj});
  EXPECT_TRUE(ectest::ReadBytes(obj) == Padded(data, 4 * 4096));
  // ...but not these four: 0 and 1 are both missing and only the narrow parity 5 covers them.
  ectest::ToolRun bad = ectest::RunTool({"decode", profile, "4096", "2,3,5,6", obj});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_FALSE(bad.err.empty());
  fs::remove(obj + ".0");
  ectest::ToolRun run = Ok({"repair", profile, "4096", "0", obj});
  EXPECT_TRUE(ectest::ReadBytes(obj + ".0") == shard0);
  EXPECT_NE(run.out.find("\"helpers\":[1,5]"), std::string::npos) << run.out;
  Ok({"non-regression", "--create", "--check", "--base", tmp.path().string(), "-p", "shec", "-s",
      "10000", "-P", "technique=single", "-P", "k=6", "-P", "m=3", "-P", "c=2", "-P", "w=32"});
  EXPECT_TRUE(fs::is_directory(tmp / "plugin=shec stripe-width=10000 technique=single k=6 m=3 "
                                     "c=2 w=32"));
}

}  // namespace
