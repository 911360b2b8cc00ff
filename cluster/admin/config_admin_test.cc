// config set|get|rm|dump|help|show in-process against a real etcd (admin_test_fixture.h): Ceph's
// syntax, output, JSON and errnos; osd.N over osd over global; nothing stored by a refusal; the
// running config an OSD reports shown as Ceph's manager shows it; the cluster's
// osd_pool_default_flag_ec_optimizations reaching `osd pool create`.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cluster/admin/admin_command.h"
#include "cluster/admin/admin_test_fixture.h"
#include "cluster/config/config_db.h"
#include "cluster/config/running_config.h"

namespace ec::cluster::admin {
namespace {

using nlohmann::json;
using test_support::Contains;
using test_support::kNow;

class ConfigAdminTest : public test_support::AdminFixture {
 protected:
  std::size_t Stored() {
    Result<ConfigDb> db = LoadConfigDb(*client_, prefix_);
    EXPECT_TRUE(db.ok());
    return db.ok() ? db->settings.size() : 0;
  }
};

TEST_F(ConfigAdminTest, SetGetRmAndDumpWithCephsPrecedence) {
  CommandResult r = Ok("config set osd osd_max_backfills 4");
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");  // a live option: Ceph's silence
  Ok("config set global osd_max_backfills 2");
  Ok("config set osd.1 osd-max-backfills 6");  // any spelling; stored by its canonical name
  Ok("config set global log_level warn");
  Ok("config set osd.10 osd_scrub_sleep 250ms");
  EXPECT_EQ(Ok("config get osd.1 osd_max_backfills").out, "6\n");  // osd.N over osd
  EXPECT_EQ(Ok("config get osd.2 osd_max_backfills").out, "4\n");  // osd over global
  EXPECT_EQ(Ok("config get osd osd_max_backfills").out, "4\n");
  EXPECT_EQ(Ok("config get global osd_max_backfills").out, "2\n");
  EXPECT_EQ(Ok("config get osd.2 log_level").out, "warn\n");
  EXPECT_EQ(Ok("config get osd.2 osd_max_scrubs").out, "1\n");  // not set: the default
  EXPECT_EQ(Ok("config get osd.3 osd_port").out, "6803\n");     // the id-based default

  EXPECT_EQ(Ok("config dump").out,
            "WHO         MASK  LEVEL     OPTION             VALUE  RO\n"
            "global            advanced  log_level          warn\n"
            "global            advanced  osd_max_backfills  2\n"
            "  osd             advanced  osd_max_backfills  4\n"
            "    osd.1         advanced  osd_max_backfills  6\n"
            "    osd.10        advanced  osd_scrub_sleep    250ms\n");
  const json dump = Json("config dump");
  ASSERT_TRUE(dump.is_array());
  ASSERT_EQ(dump.size(), 5u);
  EXPECT_EQ(dump[2], json({{"section", "osd"},
                           {"name", "osd_max_backfills"},
                           {"value", "4"},
                           {"level", "advanced"},
                           {"can_update_at_runtime", true},
                           {"mask", ""}}));

  // Without NAME: what applies to WHO, each from the section it comes from.
  EXPECT_EQ(Ok("config get osd.1").out,
            "WHO     MASK  LEVEL     OPTION             VALUE  RO\n"
            "global        advanced  log_level          warn\n"
            "osd.1         advanced  osd_max_backfills  6\n");
  const json get = Json("config get osd.1");
  EXPECT_EQ(get["osd_max_backfills"], json({{"value", "6"},
                                            {"section", "osd.1"},
                                            {"mask", json::object()},
                                            {"can_update_at_runtime", true}}));
  EXPECT_EQ(get.size(), 2u);

  r = Ok("config rm osd.1 osd_max_backfills");
  EXPECT_EQ(r.out + r.err, "");
  EXPECT_EQ(Ok("config get osd.1 osd_max_backfills").out, "4\n");
  Ok("config rm osd.1 osd_max_backfills");  // absent: nothing to do, as Ceph
  EXPECT_EQ(Stored(), 4u);
}

TEST_F(ConfigAdminTest, RefusalsStoreNothing) {
  EXPECT_EQ(Fails("config set osd osd_max_backfils 4", "EINVAL"),
            "Error EINVAL: unrecognized config option 'osd_max_backfils'\n");
  EXPECT_EQ(Fails("config set osd osd_max_backfills 100", "EINVAL"),
            "Error EINVAL: error parsing value: '100' for osd_max_backfills: out of range "
            "[1, 64]\n");
  EXPECT_EQ(Fails("config set osd osd_recovery_sleep lots", "EINVAL"),
            "Error EINVAL: error parsing value: 'lots' for osd_recovery_sleep: not a duration "
            "(seconds, or with a unit: 250ms, 30s, 5m, 1h)\n");
  EXPECT_EQ(Fails("config set mon osd_max_backfills 4", "EINVAL"),
            "Error EINVAL: unrecognized config target 'mon' (global, osd or osd.N)\n");
  EXPECT_EQ(Fails("config set global etcd_prefix /x/", "EINVAL"),
            "Error EINVAL: etcd_prefix is special and cannot be stored by the mon: set it in "
            "ecstore.conf\n");
  EXPECT_TRUE(Contains(Fails("config set osd osd_max_backfills", "EINVAL"),
                       "usage: config set WHO NAME VALUE"));
  EXPECT_EQ(Stored(), 0u);

  EXPECT_EQ(Fails("config get osd.1 nope", "ENOENT"), "Error ENOENT: unrecognized key 'nope'\n");
  EXPECT_EQ(Fails("config get client.admin", "EINVAL"),
            "Error EINVAL: unrecognized entity 'client.admin'\n");
  EXPECT_EQ(Fails("config get osd osd_data", "EINVAL"),
            "Error EINVAL: osd_data is special and cannot be stored by the mon\n");
  EXPECT_EQ(Fails("config rm nobody osd_max_backfills", "EINVAL"),
            "Error EINVAL: unrecognized config target 'nobody' (global, osd or osd.N)\n");
  Unknown("config frob", "config frob");
}

TEST_F(ConfigAdminTest, RestartOnlyOptionsAreStoredAndSaidSo) {
  CommandResult r = Ok("config set osd osd_op_num_threads 4");
  EXPECT_EQ(r.err,
            "osd_op_num_threads is stored for osd but cannot change at runtime: daemons take it "
            "at their next start\n");
  r = Ok("config set osd.2 osd_heartbeat_grace 30s");
  EXPECT_EQ(r.err,
            "osd_heartbeat_grace is stored for osd.2 but cannot change at runtime: osd.2 takes it "
            "at its next start\n");
  EXPECT_EQ(Ok("config get osd.2 osd_op_num_threads").out, "4\n");
  EXPECT_EQ(Ok("config dump").out,
            "WHO        MASK  LEVEL     OPTION               VALUE  RO\n"
            "  osd            advanced  osd_op_num_threads   4      *\n"
            "    osd.2        advanced  osd_heartbeat_grace  30s    *\n");
}

TEST_F(ConfigAdminTest, KeysThatAreNoSettingsAreNamed) {
  ASSERT_TRUE(client_->Put(etcd::PutRequest{prefix_ + "config/mon/x", "1", 0}).ok());
  ASSERT_TRUE(client_->Put(etcd::PutRequest{prefix_ + "config/osd/old_option", "1", 0}).ok());
  const CommandResult r = Ok("config dump");
  EXPECT_EQ(r.out,
            "WHO    MASK  LEVEL    OPTION      VALUE  RO\n"
            "  osd        unknown  old_option  1      *\n");
  EXPECT_EQ(r.err, "ignored key " + prefix_ + "config/mon/x: unrecognized config target 'mon'\n");
  Ok("config rm osd old_option");  // a setting this version does not know can go
  EXPECT_EQ(Stored(), 0u);
}

TEST_F(ConfigAdminTest, Help) {
  EXPECT_EQ(Ok("config help osd_max_backfills").out,
            "osd_max_backfills - PGs a primary recovers or backfills at once (Ceph's option)\n"
            "  (int, advanced)\n"
            "  Default: 1\n"
            "  Minimum: 1\n"
            "  Maximum: 64\n"
            "  Can update at runtime: true\n");
  EXPECT_TRUE(Contains(Ok("config help osd_op_num_threads").out, "Can update at runtime: false"));
  EXPECT_TRUE(Contains(Ok("config help etcd_endpoints").out, "Set only in ecstore.conf"));
  const json j = Json("config help log_level");
  EXPECT_EQ(j["enum_values"], "trace|debug|info|warn|error|critical|off");
  EXPECT_EQ(j["can_update_at_runtime"], true);
  EXPECT_EQ(Fails("config help nope", "ENOENT"),
            "Error ENOENT: configuration option 'nope' not recognized\n");
}

RunningConfig Report(int osd, std::int64_t stamp_ms) {
  RunningConfig c;
  c.osd = osd;
  c.stamp_ms = stamp_ms;
  c.options = {{"osd_max_backfills", "4", "mon", {{"file", "2"}}, false},
               {"osd_op_num_threads", "8", "default", {{"mon", "4"}}, true},
               {"log_level", "info", "default", {}, false},
               {"osd_recovery_sleep", "0s", "cmdline", {{"file", "0s"}, {"mon", "1s"}}, false}};
  return c;
}

TEST_F(ConfigAdminTest, ShowIsWhatTheOsdReported) {
  Boot(1, "h1");
  EXPECT_EQ(Fails("config show osd.1", "ENOENT"),
            "Error ENOENT: no config state for daemon osd.1\n");
  ASSERT_TRUE(PublishRunningConfig(*client_, prefix_, Report(1, kNow - 5000)).ok());
  CommandResult r = Ok("config show osd.1");
  EXPECT_EQ(r.out,
            "NAME                VALUE  SOURCE   OVERRIDES           IGNORES\n"
            "osd_max_backfills   4      mon      file[2]\n"
            "osd_op_num_threads  8      default  mon[4]              mon\n"
            "osd_recovery_sleep  0s     cmdline  mon[1s],(file[0s])\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Ok("config show osd.1 osd-max-backfills").out, "4\n");
  EXPECT_EQ(Ok("config show osd.1 log_level").out, "info\n");
  EXPECT_TRUE(Contains(Ok("config show-with-defaults osd.1").out,
                       "\nlog_level           info   default\n"));
  const json j = Json("config show osd.1");
  ASSERT_EQ(j.size(), 3u);
  EXPECT_EQ(j[1], json({{"name", "osd_op_num_threads"},
                        {"value", "8"},
                        {"source", "default"},
                        {"overrides", {{{"source", "mon"}, {"value", "4"}}}},
                        {"ignores", "mon"}}));
  EXPECT_EQ(j[2]["overrides"],
            json({{{"source", "file"}, {"value", "0s"}}, {{"source", "mon"}, {"value", "1s"}}}));
  EXPECT_EQ(Json("config show-with-defaults osd.1").size(), 4u);

  EXPECT_EQ(Fails("config show osd.1 nope", "ENOENT"), "Error ENOENT: unrecognized key 'nope'\n");
  EXPECT_EQ(Fails("config show osd", "EINVAL"),
            "Error EINVAL: invalid daemon name 'osd': use osd.<id>\n");
  // A report older than the OSD's boot, and a down OSD's, are shown with a word on stderr.
  ASSERT_TRUE(PublishRunningConfig(*client_, prefix_, Report(1, kNow - 200'000)).ok());
  EXPECT_EQ(Ok("config show osd.1").err,
            "osd.1 has not reported since it started: the values of its previous run\n");
  Down(1);
  EXPECT_EQ(Ok("config show osd.1").err, "osd.1 is down: the values it reported 200s ago\n");
}

TEST_F(ConfigAdminTest, PoolCreateTakesTheClustersEcOptimizationsDefault) {
  Boot(0, "h0");
  Boot(1, "h1");
  Boot(2, "h2");
  Ok("osd erasure-code-profile set rs k=2 m=1 crush-failure-domain=osd");
  Ok("config set global osd_pool_default_flag_ec_optimizations false");
  Ok("osd pool create padded 8 erasure rs");
  EXPECT_FALSE(Map().FindPool("padded")->ec_optimizations);
  Ok("config rm global osd_pool_default_flag_ec_optimizations");
  Ok("osd pool create unpadded 8 erasure rs");
  EXPECT_TRUE(Map().FindPool("unpadded")->ec_optimizations);  // the file's (here the default)
}

}  // namespace
}  // namespace ec::cluster::admin
