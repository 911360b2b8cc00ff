// build/bin/ec-admin as a program against a real etcd: exit codes (the errno of the error, as
// ceph's: ENOENT, EINVAL, EPERM, ERANGE, EBUSY; 0 for ceph's successes with a message), an unknown
// command named with the closest commands, what goes to stdout and what to stderr, the config
// from -c or $EC_CONF (and the error without either), --help, --version, -s with --format json,
// and an etcd that cannot be reached (named, ECONNREFUSED, within the conf's etcd_op_timeout); and
// on a real cluster (etcd and seven ec-osd), the recovery figures of `-s` and `progress` after an
// OSD is killed and marked out. The commands themselves are covered in cluster/admin/admin_test.cc
// and progress_report_test.cc.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_test_server.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

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

// etcd alone (no OSDs), shared by the suite's cases.
class EcAdminCli : public ectest::ClusterTest {
 protected:
  static void SetUpTestSuite() {
    ectest::LocalClusterOptions o;
    o.osds = 0;
    StartCluster(std::move(o));
  }
  void SetUp() override {
    ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    // Each test its own prefix, so they do not see each other's map.
    conf_ = (dir_ / "ecstore.conf").string();
    ectest::WriteText(conf_, "# written by ec_admin_cli_test\n[global]\netcd_endpoints = " +
                                 cluster_->Endpoints() + "\netcd_prefix = /" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                                 "/\netcd_op_timeout = 2s\n");
  }

  ectest::TempDir dir_;
  std::string conf_;
  ScopedEnv no_conf_{"EC_CONF", nullptr};
};

TEST(EcAdminProgram, HelpAndVersion) {
  ProcessResult r = Admin({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* c : {"osd erasure-code-profile set", "osd pool create", "osd tree", "osd map",
                        "health [detail]", "-c, --conf", "--format"}) {
    EXPECT_TRUE(Contains(r.out, c)) << c;
  }
  EXPECT_TRUE(Contains(r.out, "exit status: 0 on success")) << r.out;
  r = Admin({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("ec-admin ", 0), 0u) << r.out;
  // No command: the help on stderr, exit EINVAL (a usage error, as ceph's).
  r = Admin({});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_TRUE(Contains(r.err, "usage: ec-admin"));
  r = Admin({"--format", "xml", "status"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_TRUE(Contains(r.err, "Error EINVAL: unknown format 'xml'")) << r.err;
}

TEST(EcAdminProgram, OneCommandsHelp) {
  ProcessResult r = Admin({"progress", "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: ec-admin progress [json]\n", 0), 0u) << r.out;
  EXPECT_TRUE(Contains(r.out, "No ongoing recovery")) << r.out;
  r = Admin({"osd", "pool", "-h"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("usage: ec-admin osd pool create", 0), 0u) << r.out;
}

TEST(EcAdminProgram, NoConfigIsAnError) {
  ScopedEnv no_conf("EC_CONF", nullptr);
  ProcessResult r = Admin({"status"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Error EINVAL: no config: pass -c CONF or set EC_CONF\n");
  r = Admin({"-c", "/nonexistent/ecstore.conf", "status"});
  EXPECT_EQ(r.exit_code, ENOENT);
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

  // Errors exit with their errno, as ceph's.
  r = Admin({"-c", conf_, "osd", "erasure-code-profile", "get", "nope"});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Error ENOENT: unknown erasure code profile 'nope'\n");
  r = Admin({"-c", conf_, "osd", "erasure-code-profile", "set", "bad", "plugin=nosuchplugin"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err.rfind("Error EINVAL: ", 0), 0u) << r.err;
  r = Admin({"-c", conf_, "osd", "erasure-code-profile", "set", "rs", "k=3", "m=1"});
  EXPECT_EQ(r.exit_code, EPERM);
  EXPECT_TRUE(Contains(r.err, "Error EPERM: will not override erasure code profile rs")) << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "create", "q", "0", "erasure", "rs"});
  EXPECT_EQ(r.exit_code, ERANGE);
  EXPECT_TRUE(Contains(r.err, "Error ERANGE: 'pg_num' must be greater than 0")) << r.err;
  r = Admin({"-c", conf_, "osd", "out", "9"});
  EXPECT_EQ(r.exit_code, ENOENT);
  EXPECT_EQ(r.err, "Error ENOENT: osd.9 does not exist.\n");
  r = Admin({"-c", conf_, "osd", "erasure-code-profile", "rm", "rs"});
  EXPECT_EQ(r.exit_code, EBUSY);
  // As ceph: removing a pool that does not exist is a success with a message.
  r = Admin({"-c", conf_, "osd", "pool", "rm", "nosuchpool", "nosuchpool",
             "--yes-i-really-really-mean-it"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "pool 'nosuchpool' does not exist\n");
  // An unknown command is named plainly, with the closest commands (ceph's words), EINVAL.
  r = Admin({"-c", conf_, "osd", "frobnicate"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("no valid command found; 'osd frobnicate' is not a command (see ec-admin "
                        "--help); 10 closest matches:\nosd ",
                        0),
            0u)
      << r.err;
  EXPECT_TRUE(Contains(r.err, "\nError EINVAL: invalid command\n")) << r.err;
  r = Admin({"-c", conf_, "osd", "foo"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err.rfind("no valid command found; 'osd foo' is not a command", 0), 0u) << r.err;
  // A shell sees the code.
  r = ectest::RunProgram("/bin/sh", {"-c", std::string(EC_ADMIN_PATH) + " -c " + conf_ +
                                               " osd erasure-code-profile get nope 2>/dev/null;"
                                               " echo $?"});
  EXPECT_EQ(r.out, "2\n");
}

// osd_pool_default_flag_ec_optimizations from the config's [global] reaches `osd pool create`:
// unset, ecstore's default (true) makes an unpadded pool; false, a padded one.
TEST_F(EcAdminCli, PoolCreateTakesEcOptimizationsFromTheConfig) {
  ProcessResult r = Admin({"-c", conf_, "osd", "pool", "create", "fast", "8", "erasure"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string padded_conf = (dir_ / "padded.conf").string();
  ectest::WriteText(padded_conf,
                    ectest::ReadText(conf_) + "\nosd pool default flag ec optimizations = false\n");
  r = Admin({"-c", padded_conf, "osd", "pool", "create", "padded", "8", "erasure"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "ls", "detail"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "'fast' erasure profile default size 4 min_size 3 pg_num 8 pgp_num 8 "
                       "flags ec_optimizations stripe_width 8192\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out,
                       "'padded' erasure profile default size 4 min_size 3 pg_num 8 "
                       "pgp_num 8 stripe_width 8192\n"))
      << r.out;
  // A value that is not a bool is the config's error, naming the option.
  ectest::WriteText(padded_conf,
                    ectest::ReadText(conf_) + "\nosd_pool_default_flag_ec_optimizations = maybe\n");
  r = Admin({"-c", padded_conf, "osd", "pool", "create", "x", "8", "erasure"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_TRUE(
      Contains(r.err, "bad value 'maybe' for option 'osd_pool_default_flag_ec_optimizations'"))
      << r.err;
}

// Replicated pools (issue 30) through the program: created with Ceph's syntax and the config's
// osd_pool_default_size, `osd pool get|set` outputs on stdout / stderr and their exit codes (the
// errno: EINVAL 22, EACCES 13, EPERM 1, ENOENT 2); a size set to another.
TEST_F(EcAdminCli, ReplicatedPoolGetSetOutputsAndExitCodes) {
  ProcessResult r = Admin({"-c", conf_, "osd", "pool", "create", "rep", "8", "replicated"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "pool 'rep' created\n");
  const std::string two_conf = (dir_ / "two.conf").string();
  ectest::WriteText(two_conf, ectest::ReadText(conf_) + "\nosd pool default size = 2\n");
  r = Admin({"-c", two_conf, "osd", "pool", "create", "two", "8"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "ls", "detail"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "'rep' replicated size 3 min_size 2 pg_num 8 pgp_num 8 "
                       "stripe_width 0\n"))
      << r.out;
  EXPECT_TRUE(Contains(r.out,
                       "'two' replicated size 2 min_size 1 pg_num 8 pgp_num 8 "
                       "stripe_width 0\n"))
      << r.out;
  r = Admin({"-c", conf_, "osd", "pool", "get", "rep", "all"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "size: 3\nmin_size: 2\npg_num: 8\npgp_num: 8\n");
  r = Admin({"-c", conf_, "osd", "pool", "get", "rep", "size", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "\"size\":3")) << r.out;
  r = Admin({"-c", conf_, "osd", "pool", "get", "rep", "erasure_code_profile"});
  EXPECT_EQ(r.exit_code, EACCES);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Error EACCES: pool 'rep' is not a erasure pool: variable not applicable\n");
  r = Admin({"-c", conf_, "osd", "pool", "set", "rep", "min_size", "1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "min_size to 1\n")) << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "set", "rep", "min_size", "4"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_EQ(r.err, "Error EINVAL: pool min_size must be between 1 and size, which is set to 3\n");
  r = Admin({"-c", conf_, "osd", "pool", "set", "rep", "size", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "set", "rep", "size", "4"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "size to 4\n")) << r.err;
  r = Admin({"-c", conf_, "osd", "pool", "set", "rep", "size", "1"});
  EXPECT_EQ(r.exit_code, EPERM);
  r = Admin({"-c", conf_, "osd", "pool", "set", "rep", "size", "11"});
  EXPECT_EQ(r.exit_code, EINVAL);
  r = Admin({"-c", conf_, "osd", "pool", "create", "one", "8", "replicated", "--size", "1"});
  EXPECT_EQ(r.exit_code, EPERM);
  r = Admin({"-c", conf_, "osd", "pool", "get", "nope", "size"});
  EXPECT_EQ(r.exit_code, ENOENT);
  r = Admin({"-c", conf_, "osd", "pool", "get", "rep", "min_size"});
  EXPECT_EQ(r.out, "min_size: 1\n");
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
  ectest::WriteText(other_conf, "[global]\netcd_endpoints = " + cluster_->Endpoints() +
                                    "\netcd_prefix = /other-cluster/\n");
  r = Admin({"-c", other_conf, "osd", "pool", "ls"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  r = Admin({"-s"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out, "    pools:   1 pools, 8 pgs\n")) << r.out;
}

TEST_F(EcAdminCli, UnreachableEtcdFailsQuicklyNamingTheEndpoints) {
  const std::uint16_t port = ec::etcd::testing::EtcdServer::FreePort();
  const std::string endpoints = "http://127.0.0.1:" + std::to_string(port);
  ectest::WriteText(conf_,
                    "[global]\netcd_endpoints = " + endpoints + "\netcd_op_timeout = 500ms\n");
  const auto start = std::chrono::steady_clock::now();
  ProcessResult r = Admin({"-c", conf_, "-s"});
  EXPECT_EQ(r.exit_code, ECONNREFUSED);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(Contains(r.err, "Error ECONNREFUSED: cannot reach etcd at " + endpoints)) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));

  ectest::WriteText(conf_, "[global]\netcd_prefix = /x/\n");
  r = Admin({"-c", conf_, "-s"});
  EXPECT_EQ(r.exit_code, EINVAL);
  EXPECT_TRUE(Contains(r.err, "no etcd_endpoints")) << r.err;
}

// Issue 15 item 6 on a real cluster: seven ec-osd on seven hosts, a CLAY(4,2,5) pool, objects
// written with ec-rados; one OSD killed and marked out. Once its shards are rebuilt, `-s --format
// json` shows the recovery totals, the same as the OSDs' Prometheus counters, with exactly d/q =
// 2.5 network bytes per rebuilt byte (CLAY's minimum), every PG active+clean, and `progress json`
// lists no running event, only the recovery as a completed one. (Recovery is slowed by
// osd_recovery_sleep so that the events can be seen while it runs; what is seen then is printed and
// checked for shape, not required: timing.)
TEST(EcAdminRecovery, StatusShowsTheMinimumBytesAndProgressEndsEmpty) {
  constexpr int kOsds = 7;
  constexpr int kVictim = 5;
  constexpr int kObjects = 32;
  ectest::LocalClusterOptions o;
  o.osds = kOsds;
  o.grace_seconds = 3;
  o.down_out_seconds = 600;
  o.fast_failure = false;
  o.osd_options = {"osd_mon_report_interval=200ms", "osd_recovery_max_active=1",
                   "osd_recovery_sleep=100ms"};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());
  const ectest::TempDir& dir = c.dir;
  const std::string conf = c.ToolConf();
  const auto admin = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"-c", conf});
    return Admin(args);
  };
  const auto json_of = [&](std::vector<std::string> args) {
    ProcessResult r = admin(std::move(args));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  };
  const auto wait_for = [](const std::function<bool()>& done, std::chrono::seconds limit) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return done();
  };
  // Every OSD up before the pool exists, so that nothing moves before the kill.
  ASSERT_TRUE(wait_for(
      [&] {
        return json_of({"-s", "--format", "json"})["osdmap"]["num_up_osds"] == kOsds;
      },
      std::chrono::seconds(20)));
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"osd", "erasure-code-profile", "set", "clay", "plugin=clay", "k=4",
                                 "m=2", "d=5", "crush-failure-domain=host"},
        std::vector<std::string>{"osd", "pool", "create", "p", "8", "8", "erasure", "clay"}}) {
    ProcessResult r = admin(cmd);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Objects of 1, 2, 3 and 7 whole stripes (16 KiB of data each); the victim's shard of each object
  // it holds is one chunk (4 KiB) per stripe. Whole stripes: the pool stores shards without
  // padding (Fast EC, ec-admin's default), and a partial stripe's absent bytes would be neither
  // read nor rebuilt, so the ratio below would be less than CLAY's 2.5 (pool_io_test counts those
  // exactly).
  const std::vector<std::size_t> sizes = {16384, 32768, 49152, 114688};
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    ectest::WriteBytes(dir / ("in" + std::to_string(i)),
                       ectest::RandomBytes(sizes[i], static_cast<unsigned>(i + 1)));
  }
  ProcessResult put = ectest::RunProgram(
      "/bin/sh", {"-c", "i=0; while [ $i -lt " + std::to_string(kObjects) + " ]; do " +
                            std::string(EC_RADOS_PATH) + " -c " + conf + " -p p put obj-$i " +
                            (dir / "in").string() + "$((i % 4)) || exit 1; i=$((i + 1)); done"});
  ASSERT_EQ(put.exit_code, 0) << put.err;
  std::uint64_t expect_rebuilt = 0;
  int expect_objects = 0;
  for (int i = 0; i < kObjects; ++i) {
    nlohmann::json m = json_of({"osd", "map", "p", "obj-" + std::to_string(i), "-f", "json"});
    for (const auto& osd : m["acting"]) {
      if (osd == kVictim) {
        expect_rebuilt += (sizes[i % 4] + 16383) / 16384 * 4096;
        ++expect_objects;
      }
    }
  }
  ASSERT_GT(expect_objects, 0);
  nlohmann::json s = json_of({"-s", "--format", "json"});
  EXPECT_EQ(s["pgmap"]["recovery"]["rebuilt_bytes"], 0);
  EXPECT_TRUE(s["pgmap"]["recovery"]["network_per_rebuilt"].is_null());

  ASSERT_TRUE(c.Kill(kVictim));
  ASSERT_TRUE(wait_for(
      [&] {
        return json_of({"-s", "--format", "json"})["osdmap"]["num_up_osds"] == kOsds - 1;
      },
      std::chrono::seconds(15)));
  ProcessResult out = admin({"osd", "out", std::to_string(kVictim)});
  ASSERT_EQ(out.exit_code, 0) << out.err;

  // Until every shard is rebuilt and the primaries say so.
  nlohmann::json seen;  // an event seen while recovery ran
  std::string seen_plain;
  nlohmann::json progress;
  const bool clean = wait_for(
      [&] {
        s = json_of({"-s", "--format", "json"});
        progress = json_of({"progress", "json"});
        if (!progress["events"].empty() && seen.is_null()) {
          seen = progress["events"][0];
          seen_plain = admin({"progress"}).out;
        }
        const auto& states = s["pgmap"]["pgs_by_state"];
        return s["pgmap"]["recovery"]["rebuilt_bytes"] == expect_rebuilt &&
               progress["events"].empty() && states.size() == 1 &&
               states[0]["state_name"] == "active+clean";
      },
      std::chrono::seconds(90));
  ASSERT_TRUE(clean) << s.dump() << "\n" << progress.dump();
  const nlohmann::json& rec = s["pgmap"]["recovery"];
  EXPECT_EQ(rec["rebuilt_bytes"], expect_rebuilt);
  EXPECT_EQ(rec["network_bytes"], expect_rebuilt * 5 / 2);  // d = 5 helpers x C/q, q = 2
  EXPECT_EQ(rec["network_per_rebuilt"], 2.5);
  EXPECT_GE(rec["helper_device_bytes"].get<std::uint64_t>(), expect_rebuilt * 5 / 2);
  EXPECT_GE(rec["objects_recovered"].get<int>(), expect_objects);
  EXPECT_EQ(rec["missing_bytes"], 0);
  EXPECT_FALSE(s["pgmap"].contains("degraded_objects"));
  EXPECT_FALSE(s["pgmap"].contains("misplaced_objects"));
  EXPECT_EQ(s["progress_events"], nlohmann::json::object());
  // The recovery that ended stays as Ceph's completed event (when a primary's report named the
  // missing shards at all: an event was seen, or recovery outran every report).
  EXPECT_EQ(progress["events"], nlohmann::json::array());
  ASSERT_LE(progress["completed"].size(), 1u) << progress.dump();
  if (!seen.is_null()) {
    ASSERT_EQ(progress["completed"].size(), 1u) << progress.dump();
  }
  if (!progress["completed"].empty()) {
    const nlohmann::json& done = progress["completed"][0];
    EXPECT_EQ(done["message"], "Global Recovery Event");
    EXPECT_EQ(done["progress"], 1.0);
    EXPECT_EQ(done["failed"], false);
    EXPECT_LE(done["started_at"].get<double>(), done["finished_at"].get<double>());
    const std::string plain_progress = admin({"progress"}).out;
    EXPECT_EQ(plain_progress.rfind("[Complete]: Global Recovery Event (took ", 0), 0u)
        << plain_progress;
  } else {
    EXPECT_EQ(admin({"progress"}).out, "No ongoing recovery\n");
  }
  const std::string plain = admin({"-s"}).out;
  EXPECT_TRUE(Contains(plain, "    recovery bytes: 2.50 network per rebuilt (")) << plain;
  EXPECT_FALSE(Contains(plain, "progress:")) << plain;
  // The same totals as the OSDs' own counters.
  EXPECT_EQ(c.MetricSum("ecstore_recovery_network_bytes_total{pool=\"p\"}"),
            rec["network_bytes"].get<std::uint64_t>());
  EXPECT_EQ(c.MetricSum("ecstore_recovery_rebuilt_bytes_total{pool=\"p\"}"), expect_rebuilt);

  std::printf("recovery of osd.%d: %d objects, %llu bytes rebuilt, network/rebuilt %.3f\n", kVictim,
              expect_objects, static_cast<unsigned long long>(expect_rebuilt),
              rec["network_per_rebuilt"].get<double>());
  if (seen.is_null()) {
    std::printf("no progress event seen while recovery ran (it ended between two polls)\n");
  } else {
    std::printf("seen while recovering:\n%s%s\n", seen_plain.c_str(), seen.dump().c_str());
    EXPECT_EQ(seen["id"], "global-recovery");
    EXPECT_EQ(seen["message"], "Global Recovery Event");
    EXPECT_GE(seen["progress"].get<double>(), 0.0);
    EXPECT_LT(seen["progress"].get<double>(), 1.0);
    EXPECT_GT(seen["missing_bytes"].get<std::uint64_t>(), 0u);
  }
}

}  // namespace
