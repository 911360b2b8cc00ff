// The cluster's central config (MonSetting, `ec-admin config set`) as a layer of ecstore.conf's
// resolution: its place between the file and --set, osd.N over osd over global, the sources and
// overrides `config show` prints, and settings that cannot apply ignored and named, never an
// error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/config.h"

namespace ec {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using Overrides = std::vector<std::pair<std::string, std::string>>;

const char kFile[] =
    "[global]\n"
    "osd_max_backfills = 2\n"
    "[osd.1]\n"
    "osd_recovery_max_active = 7\n";

OsdConfig Resolve(int id, const std::vector<MonSetting>& mon,
                  const std::vector<ConfigOverride>& overrides = {}) {
  Result<OsdConfig> c = ParseOsdConfig(kFile, "t.conf", id, overrides, mon);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : OsdConfig{};
}

TEST(ConfigMon, EtcdIsAboveTheFileAndBelowTheCommandLine) {
  OsdConfig c = Resolve(1, {});
  EXPECT_EQ(c.osd_max_backfills, 2u);
  EXPECT_EQ(c.effective.at("osd_max_backfills").level, "file");
  EXPECT_EQ(c.effective.at("osd_max_scrubs").level, "default");
  EXPECT_TRUE(c.effective.at("osd_max_scrubs").overrides.empty());

  c = Resolve(1, {{"global", "osd_max_backfills", "3"}});
  EXPECT_EQ(c.osd_max_backfills, 3u);
  EXPECT_EQ(c.effective.at("osd_max_backfills").value, "3");
  EXPECT_EQ(c.effective.at("osd_max_backfills").origin, "mon global");
  EXPECT_EQ(c.effective.at("osd_max_backfills").level, "mon");
  EXPECT_EQ(c.effective.at("osd_max_backfills").overrides, (Overrides{{"file", "2"}}));

  // osd.N over osd over global, whatever their order in the list.
  const std::vector<MonSetting> all = {{"osd.1", "osd_max_backfills", "5"},
                                       {"osd", "osd_max_backfills", "4"},
                                       {"global", "osd_max_backfills", "3"},
                                       {"osd.2", "osd_max_backfills", "9"}};
  c = Resolve(1, all);
  EXPECT_EQ(c.osd_max_backfills, 5u);
  EXPECT_EQ(c.effective.at("osd_max_backfills").origin, "mon osd.1");
  // One override per level: the file's value and, of etcd's, only the one in force.
  EXPECT_EQ(c.effective.at("osd_max_backfills").overrides, (Overrides{{"file", "2"}}));
  EXPECT_TRUE(c.mon_ignored.empty());  // osd.2's setting is another daemon's, not an error
  EXPECT_EQ(Resolve(2, all).osd_max_backfills, 9u);
  EXPECT_EQ(Resolve(3, all).osd_max_backfills, 4u);

  // --set (Ceph's command line) beats etcd.
  c = Resolve(1, all, {{"osd_max_backfills", "6"}});
  EXPECT_EQ(c.osd_max_backfills, 6u);
  EXPECT_EQ(c.effective.at("osd_max_backfills").level, "cmdline");
  EXPECT_EQ(c.effective.at("osd_max_backfills").origin, "--set");
  EXPECT_EQ(c.effective.at("osd_max_backfills").overrides,
            (Overrides{{"file", "2"}, {"mon", "5"}}));

  // Names in any spelling; values trimmed, sizes and durations as written.
  c = Resolve(0, {{"osd", "osd recovery-sleep", " 250ms "}, {"osd", "osd_max_object_size", "1G"}});
  EXPECT_EQ(c.osd_recovery_sleep, std::chrono::milliseconds(250));
  EXPECT_EQ(c.effective.at("osd_recovery_sleep").value, "250ms");
  EXPECT_EQ(c.osd_max_object_size, 1ull << 30);
}

TEST(ConfigMon, SettingsThatCannotApplyAreIgnoredAndNamed) {
  const OsdConfig c = Resolve(1, {{"osd", "osd_max_backfills", "lots"},
                                  {"osd", "osd_max_scrubs", "0"},
                                  {"osd", "osd_no_such_thing", "1"},
                                  {"global", "etcd_endpoints", "http://10.0.0.1:2379"},
                                  {"mon", "osd_max_scrubs", "2"},
                                  {"osd", "log_file", "/tmp/a\nb"},
                                  {"osd.1", "osd_scrub_sleep", "1s"}});
  EXPECT_EQ(c.osd_max_backfills, 2u);  // the file's value stays
  EXPECT_EQ(c.osd_max_scrubs, 1u);
  EXPECT_EQ(c.etcd_endpoints, "");
  EXPECT_EQ(c.log_file, "");
  EXPECT_EQ(c.osd_scrub_sleep, std::chrono::seconds(1));  // the good one applies
  EXPECT_THAT(
      c.mon_ignored,
      ElementsAre("config osd/osd_max_backfills = 'lots': not an integer",
                  "config osd/osd_max_scrubs = '0': out of range [1, 64]",
                  "config osd/osd_no_such_thing = '1': unknown option",
                  "config global/etcd_endpoints = 'http://10.0.0.1:2379': only ecstore.conf and "
                  "--set may set it",
                  "config mon/osd_max_scrubs = '2': not global, osd or osd.N",
                  "config osd/log_file = '/tmp/a\nb': control characters are not allowed"));
}

TEST(ConfigMon, StringsFromEtcdAreExpanded) {
  Result<OsdConfig> c = ParseOsdConfig("[osd]\nosd_data = /srv/osd-$id\n", "t", 4, {},
                                       {{"osd", "log_file", "$osd_data/log"}});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->log_file, "/srv/osd-4/log");
  // An expansion that fails names the setting (the daemon keeps its configuration then).
  c = ParseOsdConfig("", "t", 4, {}, {{"osd", "log_file", "$nope"}});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("config osd/log_file: "));
  EXPECT_THAT(c.status().message(), HasSubstr("unknown variable '$nope'"));
}

TEST(ConfigMon, CheckOptionValue) {
  const OptionSpec* backfills = FindOsdOption("osd_max_backfills");
  ASSERT_NE(backfills, nullptr);
  EXPECT_TRUE(CheckOptionValue(*backfills, " 4 ").ok());
  EXPECT_EQ(CheckOptionValue(*backfills, "65").message(), "out of range [1, 64]");
  EXPECT_EQ(CheckOptionValue(*backfills, "65").code(), EINVAL);
  EXPECT_EQ(CheckOptionValue(*FindOsdOption("log_level"), "loud").message(),
            "expected one of trace|debug|info|warn|error|critical|off");
  EXPECT_TRUE(CheckOptionValue(*FindOsdOption("osd_recovery_sleep"), "0.5").ok());
  EXPECT_FALSE(CheckOptionValue(*FindOsdOption("public_addr"), "localhost").ok());
}

TEST(ConfigMon, EveryOptionSaysWhenAChangeApplies) {
  // How a daemon finds etcd and its store can only come from the file or --set.
  for (const char* name : {"etcd_endpoints", "etcd_prefix", "osd_data", "bluestore_block_path",
                           "osd_db_path", "cluster"}) {
    EXPECT_EQ(FindOsdOption(name)->update, OptionUpdate::kFileOnly) << name;
  }
  // What a running daemon applies (osd/daemon/runtime_config.h).
  for (const char* name : {"log_level", "mon_osd_down_out_interval", "osd_max_backfills",
                           "osd_recovery_max_active", "osd_recovery_sleep", "osd_scrub_sleep",
                           "osd_max_scrubs", "osd_min_size_wait", "osd_max_object_size"}) {
    EXPECT_EQ(FindOsdOption(name)->update, OptionUpdate::kLive) << name;
  }
  for (const char* name : {"osd_op_num_threads", "osd_heartbeat_grace", "osd_port"}) {
    EXPECT_EQ(FindOsdOption(name)->update, OptionUpdate::kRestart) << name;
  }
  EXPECT_EQ(OptionUpdateName(OptionUpdate::kFileOnly), "file only");
  EXPECT_EQ(OptionLevelName(FindOsdOption("public_addr")->level), "basic");
  EXPECT_EQ(OptionLevelName(FindOsdOption("osd_max_backfills")->level), "advanced");
  EXPECT_THAT(OptionsHelpText(), HasSubstr("  osd_max_backfills (int, 1 .. 64)\n"
                                           "      default: 1; applies: live\n"));
}

}  // namespace
}  // namespace ec
