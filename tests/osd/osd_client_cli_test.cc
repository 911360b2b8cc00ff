// ec-osd-client from the shell: arguments the OSD would refuse get a local message before any
// connection is tried (the --osd address below has nothing listening, so reaching the network
// would say "cannot connect"), and a round trip through a real ec-osd.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace ectest {
namespace {

ProcessResult Client(const std::vector<std::string>& args) {
  return RunProgram(std::string(ECSTORE_BIN_DIR) + "/ec-osd-client", args);
}

std::vector<std::string> Nowhere(std::vector<std::string> args) {
  args.insert(args.begin(), {"--osd", "127.0.0.1:1"});
  return args;
}

void ExpectLocalRefusal(const std::vector<std::string>& args, const std::string& says) {
  ProcessResult r = Client(Nowhere(args));
  std::string line;
  for (const std::string& a : args) line += " " + a.substr(0, 40);
  EXPECT_EQ(r.exit_code, 1) << line << "\n" << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << line << "\n" << r.err;
  EXPECT_EQ(r.err.find("connect"), std::string::npos) << line << ": tried the network\n" << r.err;
}

TEST(OsdClientCli, ChecksArgumentsBeforeConnecting) {
  ExpectLocalRefusal({"--timeout", "-1", "ping"}, "bad --timeout");
  ExpectLocalRefusal({"--timeout", "0", "ping"}, "bad --timeout");
  ExpectLocalRefusal({"--timeout", "nan", "ping"}, "bad --timeout");
  ExpectLocalRefusal({"--timeout", "inf", "ping"}, "bad --timeout");
  ExpectLocalRefusal({"--timeout", "1e10", "ping"}, "bad --timeout");

  for (const std::string bad : {" 1:5", "1:5 ", "+1:5", "1:-5", "0x10:5", "1:", ":5", "15", "1:5:6",
                                "1k:5", "18446744073709551616:1", "18446744073709551615:1"}) {
    ExpectLocalRefusal({"get", "pg.1", "obj", "0", "/tmp/out", "--extent", bad}, "bad --extent");
  }
  std::vector<std::string> many = {"get", "pg.1", "obj", "0", "/tmp/out"};
  for (int i = 0; i < 1025; ++i) {
    many.push_back("--extent");
    many.push_back(std::to_string(i) + ":1");
  }
  ExpectLocalRefusal(many, "1025 extents");
  ExpectLocalRefusal(
      {"get", "pg.1", "obj", "0", "/tmp/out", "--extent", "0:67108864", "--extent", "0:1"},
      "more than the 67108864 bytes");

  const std::string long_name(4097, 'n');
  const std::string long_coll(256, 'c');
  ExpectLocalRefusal({"stat", "pg.1", long_name, "0"}, "object name is 4097 bytes");
  ExpectLocalRefusal({"rm", long_coll, "obj", "0"}, "collection name is 256 bytes");
  ExpectLocalRefusal({"ls", long_coll}, "collection name is 256 bytes");
  ExpectLocalRefusal({"stat", "", "obj", "0"}, "collection name is empty");
  ExpectLocalRefusal({"stat", "pg.1", "", "0"}, "object name is empty");

  TempDir dir;
  WriteText(dir / "shard", "data");
  const std::string file = (dir / "shard").string();
  ExpectLocalRefusal({"put", "pg.1", "obj", "0", file, "--attr", "novalue"}, "bad --attr");
  ExpectLocalRefusal({"put", "pg.1", "obj", "0", file, "--attr", "k=" + std::string(65537, 'v')},
                     "longer than the 65536 bytes");
  std::vector<std::string> attrs = {"put", "pg.1", "obj", "0", file};
  for (int i = 0; i < 65; ++i) {
    attrs.push_back("--attr");
    attrs.push_back("k" + std::to_string(i) + "=v");
  }
  ExpectLocalRefusal(attrs, "65 attributes");

  // A keyring that cannot be read, or without the entity's key, is refused before connecting.
  ExpectLocalRefusal({"--keyring", (dir / "absent.keyring").string(), "ping"},
                     "cannot read keyring");
  WriteText(dir / "osd.keyring", "[osd.1]\n\tkey = AQAA8VNlewAAABAAAAECAwQFBgcICQoLDA0ODw==\n");
  ExpectLocalRefusal({"--keyring", (dir / "osd.keyring").string(), "--name", "osd.2", "ping"},
                     "no key for osd.2");

  // At the limits exactly, the arguments pass and the network is tried.
  ProcessResult at_limit = Client(
      Nowhere({"--timeout", "0.5", "stat", std::string(255, 'c'), std::string(4096, 'n'), "0"}));
  EXPECT_EQ(at_limit.exit_code, 1);
  EXPECT_NE(at_limit.err.find("cannot connect"), std::string::npos) << at_limit.err;
}

TEST(OsdClientCli, RoundTripThroughADaemon) {
  TempDir dir;
  OsdProcess osd(dir.path(), 0);
  ASSERT_EQ(osd.Mkfs().exit_code, 0);
  ASSERT_TRUE(osd.Start());
  const std::string addr = "127.0.0.1:" + std::to_string(osd.port());
  WriteText(dir / "shard", "hello, shard");
  ProcessResult put = Client({"--osd", addr, "put", "pg.1", "obj", "3", (dir / "shard").string(),
                              "--version", "7", "--attr", "k=v"});
  ASSERT_EQ(put.exit_code, 0) << put.err;
  ProcessResult get = Client({"--osd", addr, "get", "pg.1", "obj", "3", (dir / "out").string(),
                              "--extent", "0:5", "--extent", "7:100"});
  ASSERT_EQ(get.exit_code, 0) << get.err;
  std::ifstream in(dir / "out");
  std::string got((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, "helloshard");
  ProcessResult stat = Client({"--osd", addr, "stat", "pg.1", "obj", "3"});
  ASSERT_EQ(stat.exit_code, 0) << stat.err;
  auto j = nlohmann::json::parse(stat.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << stat.out;
  EXPECT_EQ(j["size"], 12);
  EXPECT_EQ(j["version"], 7);
  EXPECT_EQ(j["attrs"]["k"], "v");
  ProcessResult ls = Client({"--osd", addr, "ls", "pg.1"});
  EXPECT_EQ(ls.exit_code, 0) << ls.err;
  EXPECT_EQ(ls.out, "obj 3\n");
  EXPECT_EQ(Client({"--osd", addr, "rm", "pg.1", "obj", "3"}).exit_code, 0);
  ProcessResult gone = Client({"--osd", addr, "stat", "pg.1", "obj", "3"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_FALSE(gone.err.empty());
  EXPECT_EQ(osd.Terminate(), 0);
}

}  // namespace
}  // namespace ectest
