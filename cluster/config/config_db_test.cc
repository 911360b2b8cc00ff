// The cluster's central config in etcd: its keys, Ceph's checks of `config set`, keys that are not
// settings, and the running-config report's strict codec (running_config.h); the settings against
// a real etcd.
#include "cluster/config/config_db.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/config/running_config.h"
#include "cluster/etcd/etcd_test_server.h"

namespace ec::cluster {
namespace {

TEST(ConfigDb, CheckConfigSetAsCephsMonitor) {
  Result<const OptionSpec*> ok = CheckConfigSet("osd.3", "osd max backfills", "4");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)->name, "osd_max_backfills");
  EXPECT_TRUE(CheckConfigSet("global", "osd_op_num_threads", "4").ok());
  EXPECT_TRUE(CheckConfigSet("osd", "log_level", "debug").ok());

  const auto fails = [](const char* who, const char* name, const std::string& value) {
    Result<const OptionSpec*> r = CheckConfigSet(who, name, value);
    EXPECT_FALSE(r.ok()) << who << " " << name;
    EXPECT_EQ(r.status().code(), EINVAL);
    return r.status().message();
  };
  EXPECT_EQ(fails("mon", "osd_max_backfills", "4"),
            "unrecognized config target 'mon' (global, osd or osd.N)");
  EXPECT_EQ(fails("osd.03", "osd_max_backfills", "4"),
            "unrecognized config target 'osd.03' (global, osd or osd.N)");
  EXPECT_EQ(fails("osd", "osd_max_backfils", "4"), "unrecognized config option 'osd_max_backfils'");
  EXPECT_EQ(fails("osd", "etcd_endpoints", "http://1.2.3.4:2379"),
            "etcd_endpoints is special and cannot be stored by the mon: set it in ecstore.conf");
  EXPECT_EQ(fails("osd", "osd_max_backfills", "100"),
            "error parsing value: '100' for osd_max_backfills: out of range [1, 64]");
  EXPECT_EQ(fails("osd", "osd_recovery_sleep", "soon"),
            "error parsing value: 'soon' for osd_recovery_sleep: not a duration (seconds, or with "
            "a unit: 250ms, 30s, 5m, 1h)");
  EXPECT_EQ(fails("osd", "log_file", std::string(kMaxConfigValueBytes + 1, 'x')),
            "error parsing value: 4097 bytes, more than 4096");
}

TEST(ConfigDb, KeysThatAreNotSettingsAreListedApart) {
  const std::string p = "/e/";
  const std::vector<etcd::KeyValue> kvs = {
      {p + "config/global/osd_max_backfills", "2"},
      {p + "config/osd.1/log_level", "debug"},
      {p + "config/osd/no_such_option", "1"},  // a setting still: the reader judges it
      {p + "config/mon/osd_max_backfills", "2"},
      {p + "config/osd", "x"},
      {p + "config/osd/a/b", "x"},
      {p + "config/osd/log_file", std::string(kMaxConfigValueBytes + 1, 'x')},
      {p + "pool/1", "{}"},  // outside config/
  };
  const ConfigDb db = DecodeConfigDb(p, kvs, 42);
  EXPECT_EQ(db.revision, 42);
  EXPECT_EQ(db.settings, (std::vector<MonSetting>{{"global", "osd_max_backfills", "2"},
                                                  {"osd.1", "log_level", "debug"},
                                                  {"osd", "no_such_option", "1"}}));
  EXPECT_EQ(db.bad, (std::vector<std::string>{
                        "/e/config/mon/osd_max_backfills: unrecognized config target 'mon'",
                        "/e/config/osd: not config/<who>/<name>",
                        "/e/config/osd/a/b: not config/<who>/<name>",
                        "/e/config/osd/log_file: value of 4097 bytes, more than 4096"}));
}

TEST(ConfigDb, SetLoadAndRemoveInEtcd) {
  etcd::testing::EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  etcd::Client client(server.client_options());
  ASSERT_TRUE(PutConfig(client, "/c/", "osd", "osd_max_backfills", "3").ok());
  ASSERT_TRUE(PutConfig(client, "/c/", "global", "log_level", "warn").ok());
  ASSERT_TRUE(PutConfig(client, "/other/", "global", "log_level", "debug").ok());
  Result<ConfigDb> db = LoadConfigDb(client, "/c/");
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_EQ(db->settings, (std::vector<MonSetting>{{"global", "log_level", "warn"},
                                                   {"osd", "osd_max_backfills", "3"}}));
  EXPECT_TRUE(db->bad.empty());
  EXPECT_GT(db->revision, 0);
  bool existed = false;
  ASSERT_TRUE(DeleteConfig(client, "/c/", "osd", "osd_max_backfills", &existed).ok());
  EXPECT_TRUE(existed);
  ASSERT_TRUE(DeleteConfig(client, "/c/", "osd", "osd_max_backfills", &existed).ok());
  EXPECT_FALSE(existed);
  db = LoadConfigDb(client, "/c/");
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(db->settings.size(), 1u);
}

RunningConfig Sample() {
  RunningConfig c;
  c.osd = 3;
  c.stamp_ms = 1700000000000;
  c.options = {{"osd_max_backfills", "4", "mon", {{"file", "2"}}, false},
               {"osd_op_num_threads", "8", "default", {{"mon", "4"}}, true},
               {"log_level", "info", "default", {}, false}};
  return c;
}

TEST(RunningConfig, RoundTripAndKey) {
  EXPECT_EQ(RunningConfigKey("/e/", 3), "/e/running_config/3");
  const std::string text = EncodeRunningConfig(Sample());
  EXPECT_EQ(text.substr(0, 42), R"({"options":[{"name":"osd_max_backfills","o)");
  Result<RunningConfig> back = DecodeRunningConfig("k", text);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, Sample());
}

TEST(RunningConfig, StrictDecoding) {
  const auto bad = [](const std::string& value) {
    Result<RunningConfig> r = DecodeRunningConfig("/e/running_config/3", value);
    EXPECT_FALSE(r.ok()) << value;
    EXPECT_EQ(r.status().code(), EBADMSG);
    return r.ok() ? std::string() : r.status().message();
  };
  const std::string head = R"({"v":1,"osd":3,"stamp_ms":5,"options":[)";
  const auto with = [&](const std::string& option) { return head + option + "]}"; };
  EXPECT_EQ(bad("nope"), "bad running config at /e/running_config/3: not a JSON object");
  EXPECT_EQ(bad(R"({"v":2,"osd":3,"stamp_ms":5,"options":[]})"),
            "bad running config at /e/running_config/3: unknown format");
  EXPECT_EQ(bad(R"({"v":1,"osd":-1,"stamp_ms":5,"options":[]})"),
            "bad running config at /e/running_config/3: osd");
  EXPECT_EQ(bad(R"({"v":1,"osd":3,"stamp_ms":5,"options":[],"x":1})"),
            "bad running config at /e/running_config/3: unknown field");
  EXPECT_EQ(bad(with(R"({"value":"1","source":"mon"})")),
            "bad running config at /e/running_config/3: an option without a name");
  EXPECT_EQ(bad(with(R"({"name":"a","value":1,"source":"mon"})")),
            "bad running config at /e/running_config/3: a: value");
  EXPECT_EQ(bad(with(R"({"name":"a","value":"1","source":"env"})")),
            "bad running config at /e/running_config/3: a: source");
  EXPECT_EQ(bad(with(R"({"name":"a","value":"1","source":"mon","overrides":[]})")),
            "bad running config at /e/running_config/3: a: overrides");
  EXPECT_EQ(bad(with(R"({"name":"a","value":"1","source":"mon","overrides":[{"source":"x",)"
                     R"("value":"2"}]})")),
            "bad running config at /e/running_config/3: a: overrides");
  EXPECT_EQ(bad(with(R"({"name":"a","value":"1","source":"mon","ignores":"file"})")),
            "bad running config at /e/running_config/3: a: ignores");
  EXPECT_EQ(bad(with(R"({"name":"a","value":"1","source":"mon","extra":true})")),
            "bad running config at /e/running_config/3: a: unknown field");
  EXPECT_EQ(bad(with(R"({"name":"a","value":")" + std::string(kMaxConfigValueBytes + 1, 'x') +
                     R"(","source":"mon"})")),
            "bad running config at /e/running_config/3: a: value");
  EXPECT_EQ(bad(std::string(kMaxRunningConfigBytes + 1, ' ')),
            "bad running config at /e/running_config/3: value of 262145 bytes, more than 262144");
  std::string many = head;
  for (std::size_t i = 0; i <= kMaxRunningConfigOptions; ++i) {
    many += std::string(i == 0 ? "" : ",") + R"({"name":"a","value":"1","source":"mon"})";
  }
  EXPECT_EQ(bad(many + "]}"), "bad running config at /e/running_config/3: more than 1024 options");
}

TEST(RunningConfig, PublishAndLoad) {
  etcd::testing::EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  etcd::Client client(server.client_options());
  EXPECT_EQ(LoadRunningConfig(client, "/e/", 3).status().code(), ENOENT);
  ASSERT_TRUE(PublishRunningConfig(client, "/e/", Sample()).ok());
  Result<RunningConfig> got = LoadRunningConfig(client, "/e/", 3);
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(*got, Sample());
  // A report under another OSD's key is refused.
  etcd::PutRequest put{RunningConfigKey("/e/", 4), EncodeRunningConfig(Sample()), 0};
  ASSERT_TRUE(client.Put(put).ok());
  EXPECT_EQ(LoadRunningConfig(client, "/e/", 4).status().code(), EBADMSG);
}

}  // namespace
}  // namespace ec::cluster
