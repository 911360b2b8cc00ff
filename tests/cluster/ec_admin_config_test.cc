// `ec-admin config` on a real cluster (etcd and three ec-osd; in the ec_admin_cli_test binary):
// a live option set for every OSD reaches each running daemon within a few seconds without a
// restart (its `config show` report and its /status); a restart-only option is stored, said so,
// reported as ignored by the running OSD and taken at its next start; and
// mon_osd_down_out_interval, set at runtime, makes the running monitor mark a killed OSD out
// (ec-osd's default, 600 s, would not within the test); log_level set for one OSD turns its
// debug lines on. About 15 s.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/cluster/cluster_fixture.h"

namespace {

using std::chrono::seconds;

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

TEST(EcAdminConfig, LiveOptionsReachRunningOsdsRestartOnlyOnesTheNextStart) {
  constexpr int kOsds = 3;
  ectest::LocalClusterOptions o;
  o.osds = kOsds;
  o.down_out_seconds = -1;  // ec-osd's 600 s, until `config set` says otherwise
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());
  const std::string conf = c.ToolConf();
  const auto admin = [&](const std::string& line) {
    return ectest::RunAdminLine(EC_ADMIN_PATH, conf, line);
  };
  const auto shows = [&](int osd, const std::string& name, const std::string& value) {
    return admin("config show osd." + std::to_string(osd) + " " + name).out == value + "\n";
  };

  // Every OSD reports its running config at start: the file's and the fixture's --set values.
  ASSERT_TRUE(WaitFor([&] { return admin("config show osd.2").exit_code == 0; }, seconds(5)));
  EXPECT_TRUE(shows(0, "osd_max_backfills", "1"));

  // A live option for every OSD: each running daemon takes it (show and /status) within seconds.
  ectest::ProcessResult r = admin("config set osd osd_max_backfills 4");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out + r.err, "");
  const auto set_at = std::chrono::steady_clock::now();
  for (int id = 0; id < kOsds; ++id) {
    EXPECT_TRUE(WaitFor([&] { return shows(id, "osd_max_backfills", "4"); }, seconds(3)))
        << "osd." << id << "\n"
        << admin("config show osd." + std::to_string(id)).out;
  }
  const auto took = std::chrono::steady_clock::now() - set_at;
  std::printf(
      "config set to every OSD's report: %lld ms\n",
      static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
  const nlohmann::json status =
      nlohmann::json::parse(ectest::HttpGet(c.osds[1]->metrics_port(), "/status"), nullptr, false);
  ASSERT_FALSE(status.is_discarded());
  EXPECT_EQ(status["config"]["osd_max_backfills"],
            nlohmann::json({{"value", "4"}, {"origin", "mon osd"}, {"source", "mon"}}));
  const std::string table = admin("config show osd.1").out;
  EXPECT_NE(table.find("\nosd_max_backfills "), std::string::npos) << table;

  // A restart-only option: stored, said so, ignored by the running OSD until it starts again.
  r = admin("config set osd.1 osd_op_num_threads 4");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err,
            "osd_op_num_threads is stored for osd.1 but cannot change at runtime: osd.1 takes it "
            "at its next start\n");
  EXPECT_TRUE(WaitFor(
      [&] {
        const nlohmann::json j =
            nlohmann::json::parse(admin("-f json config show osd.1").out, nullptr, false);
        if (!j.is_array()) return false;
        for (const auto& e : j) {
          if (e.value("name", "") == "osd_op_num_threads") {
            return e.value("value", "") == "8" && e.value("ignores", "") == "mon";
          }
        }
        return false;
      },
      seconds(3)))
      << admin("config show osd.1").out;
  ASSERT_TRUE(c.Kill(1));
  c.Restart(1);
  EXPECT_TRUE(WaitFor([&] { return shows(1, "osd_op_num_threads", "4"); }, seconds(5)))
      << admin("config show osd.1").out;
  const nlohmann::json after =
      nlohmann::json::parse(admin("-f json config show osd.1").out, nullptr, false);
  ASSERT_TRUE(after.is_array());
  for (const auto& e : after) {
    if (e.value("name", "") != "osd_op_num_threads") continue;
    EXPECT_EQ(e,
              nlohmann::json({{"name", "osd_op_num_threads"}, {"value", "4"}, {"source", "mon"}}));
  }

  // log_level for one OSD: its debug lines (each map epoch it receives) start, the others' not.
  r = admin("config set osd.0 log_level debug");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(WaitFor([&] { return shows(0, "log_level", "debug"); }, seconds(3)));
  EXPECT_EQ(admin("osd set noout").exit_code, 0);  // a new epoch for every OSD
  EXPECT_EQ(admin("osd unset noout").exit_code, 0);
  EXPECT_TRUE(
      WaitFor([&] { return c.osds[0]->LogFile().find("cluster map epoch") != std::string::npos; },
              seconds(3)));
  EXPECT_EQ(c.osds[2]->LogFile().find("cluster map epoch"), std::string::npos);

  // mon_osd_down_out_interval at runtime: the elected monitor marks a killed OSD out.
  r = admin("config set global mon_osd_down_out_interval 1");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::this_thread::sleep_for(seconds(1));  // the monitors take it (their watch: well under this)
  ASSERT_TRUE(c.Kill(2));
  EXPECT_GE(c.WaitForMap(
                 [](const ec::cluster::ClusterMap& m) {
                   auto it = m.osds.find(2);
                   return it != m.osds.end() && !it->second.up && !it->second.in;
                 },
                 std::chrono::milliseconds(10000))
                .count(),
            0)
      << c.DescribeOsds();

  const std::string dump = admin("config dump").out;
  EXPECT_NE(dump.find("global           advanced  mon_osd_down_out_interval  1"), std::string::npos)
      << dump;
  EXPECT_NE(dump.find("    osd.1        advanced  osd_op_num_threads         4      *"),
            std::string::npos)
      << dump;
}

}  // namespace
