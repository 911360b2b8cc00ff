// build/bin/ec-admin as a program against a real etcd: exit codes, what goes to stdout and what to
// stderr, the config from -c or $EC_CONF (and the error without either), --help, --version, -s
// with --format json, and an etcd that cannot be reached (named, exit 1, within the conf's
// etcd_op_timeout). The commands themselves are covered in cluster/admin/admin_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cluster/etcd/etcd_test_server.h"
#include "tests/osd/osd_process.h"
#include "tests/system_test_support.h"

namespace {

using ec::etcd::testing::EtcdServer;
using ectest::ProcessResult;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Sets (or with nullptr unsets) an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (had_) {
      ::setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::string old_;
  bool had_ = false;
};

ProcessResult Admin(const std::vector<std::string>& args) {
  return ectest::RunProgram(EC_ADMIN_PATH, args);
}

class EcAdminCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = new EtcdServer;
    ec::Status st = server_->Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(server_ != nullptr && server_->running());
    // Each test its own prefix, so they do not see each other's map.
    conf_ = (dir_ / "ecstore.conf").string();
    ectest::WriteText(conf_, "# written by ec_admin_cli_test\n[global]\netcd_endpoints = http://" +
                                 server_->endpoint().ToString() + "\netcd_prefix = /" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                                 "/\netcd_op_timeout = 2s\n");
  }

  static EtcdServer* server_;
  ectest::TempDir dir_;
  std::string conf_;
  ScopedEnv no_conf_{"EC_CONF", nullptr};
};

EtcdServer* EcAdminCli::server_ = nullptr;

TEST(EcAdminProgram, HelpAndVersion) {
  ProcessResult r = Admin({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* c : {"osd erasure-code-profile set", "osd pool create", "osd tree", "osd map",
                        "health [detail]", "-c, --conf", "--format"}) {
    EXPECT_TRUE(Contains(r.out, c)) << c;
  }
  r = Admin({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("ec-admin ", 0), 0u) << r.out;
  // No command: the help on stderr, exit 1.
  r = Admin({});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "usage: ec-admin"));
  r = Admin({"--format", "xml", "status"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "Error EINVAL: unknown format 'xml'")) << r.err;
}

TEST(EcAdminProgram, NoConfigIsAnError) {
  ScopedEnv no_conf("EC_CONF", nullptr);
  ProcessResult r = Admin({"status"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Error EINVAL: no config: pass -c CONF or set EC_CONF\n");
  r = Admin({"-c", "/nonexistent/ecstore.conf", "status"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "Error ENOENT: cannot read config /nonexistent/ecstore.conf"))
      << r.err;
}

TEST_F(EcAdminCli, StdoutStderrAndExitCodes) {
  ProcessResult r = Admin({"-c", conf_, "osd", "erasure-code-profile", "set", "rs", "k=2", "m=1",
                           "crush-failure-domain=osd"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = Admin({"-c", conf_, "osd", "pool", "create", "p", "16", "erasure", "rs"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "pool 'p' created\n");
  r = Admin({"-c", conf_, "osd", "pool", "ls"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "p\n");
  EXPECT_EQ(r.err, "");

  r = Admin({"-c", conf_, "osd", "erasure-code-profile", "get", "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Error ENOENT: unknown erasure code profile 'nope'\n");
  r = Admin({"-c", conf_, "osd", "frobnicate"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "Error EINVAL: invalid command: unknown command 'osd frobnicate'"))
      << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "create", "q", "0", "erasure", "rs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "Error ERANGE: 'pg_num' must be greater than 0")) << r.err;
  r = Admin({"-c", conf_, "osd", "out", "9"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Error ENOENT: osd.9 does not exist.\n");
}

TEST_F(EcAdminCli, StatusJsonWithEcConf) {
  ScopedEnv env("EC_CONF", conf_.c_str());
  ProcessResult r = Admin({"osd", "pool", "create", "p", "8", "erasure"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"-s", "--format", "json"}, {"status", "-f", "json-pretty"}, {"--format=json", "-s"}}) {
    r = Admin(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["osdmap"]["epoch"], 1);
    EXPECT_EQ(j["osdmap"]["num_osds"], 0);
    EXPECT_EQ(j["pgmap"]["num_pgs"], 8);
    EXPECT_EQ(j["pgmap"]["num_pools"], 1);
    EXPECT_EQ(j["pgmap"]["pgs_by_state"][0]["state_name"], "down");
    EXPECT_EQ(j["health"]["status"], "HEALTH_WARN");
  }
  // -c wins over $EC_CONF.
  ectest::TempDir other;
  const std::string other_conf = (other / "ecstore.conf").string();
  ectest::WriteText(other_conf, "[global]\netcd_endpoints = http://" +
                                    server_->endpoint().ToString() +
                                    "\netcd_prefix = /other-cluster/\n");
  r = Admin({"-c", other_conf, "osd", "pool", "ls"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = Admin({"-s"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "    pools:   1 pools, 8 pgs\n")) << r.out;
}

TEST_F(EcAdminCli, UnreachableEtcdFailsQuicklyNamingTheEndpoints) {
  const std::uint16_t port = EtcdServer::FreePort();
  const std::string endpoints = "http://127.0.0.1:" + std::to_string(port);
  ectest::WriteText(conf_,
                    "[global]\netcd_endpoints = " + endpoints + "\netcd_op_timeout = 500ms\n");
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = Admin({"-c", conf_, "-s"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Contains(r.err, "cannot reach etcd at " + endpoints)) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  ectest::WriteText(conf_, "[global]\netcd_prefix = /x/\n");
  r = Admin({"-c", conf_, "-s"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "no etcd_endpoints")) << r.err;
}

}  // namespace
