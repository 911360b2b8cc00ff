#include "common/config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace ec {
namespace {

using ::testing::HasSubstr;

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ec_osd_config_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& text, const std::string& name = "ecstore.conf") {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }

  std::string dir_;
};

// The message of a load that must fail with EINVAL.
std::string Error(std::string_view text, int id = 0, std::vector<ConfigOverride> overrides = {}) {
  Result<OsdConfig> c = ParseOsdConfig(text, "test.conf", id, overrides);
  EXPECT_FALSE(c.ok()) << "parsed:\n" << text;
  if (c.ok()) return "";
  EXPECT_EQ(c.status().code(), EINVAL) << c.status().message();
  return c.status().message();
}

TEST(Config, DefaultsWithoutAFile) {
  Result<OsdConfig> c = LoadOsdConfig("", 3);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->osd_id, 3);
  EXPECT_EQ(c->cluster, "ecstore");
  EXPECT_EQ(c->osd_data, "/var/lib/ecstore/osd-3");
  EXPECT_EQ(c->bluestore_block_path, "/var/lib/ecstore/osd-3/block");
  EXPECT_EQ(c->osd_db_path, "/var/lib/ecstore/osd-3/db");
  EXPECT_EQ(c->bluestore_block_size, 1ull << 30);
  EXPECT_EQ(c->bluestore_prefer_deferred_size, 64u * 1024);
  EXPECT_EQ(c->osd_journal_size, 32u);
  EXPECT_EQ(c->osd_inline_read_max_size, 64u * 1024);
  EXPECT_EQ(c->osd_io_backend, IoBackendKind::kUring);
  EXPECT_EQ(c->public_addr, "127.0.0.1");
  EXPECT_EQ(c->osd_port, 6803);
  EXPECT_EQ(c->ms_max_message_size, 64u << 20);
  EXPECT_EQ(c->ms_max_inflight_per_connection, 64u);
  EXPECT_EQ(c->ms_async_op_threads, 1u);
  EXPECT_EQ(c->osd_op_num_threads, 8u);
  EXPECT_EQ(c->ms_handshake_timeout, std::chrono::seconds(10));
  EXPECT_EQ(c->ms_connection_idle_timeout, std::chrono::seconds(900));
  EXPECT_EQ(c->log_file, "");
  EXPECT_EQ(c->log_level, "info");
  EXPECT_TRUE(c->osd_metrics_enabled);
  EXPECT_EQ(c->osd_metrics_addr, "127.0.0.1");
  EXPECT_EQ(c->osd_metrics_port, 9286);
  EXPECT_EQ(c->effective.at("osd_port").value, "6803");
  EXPECT_EQ(c->effective.at("osd_port").origin, "default");
  EXPECT_EQ(c->effective.size(), OsdOptionTable().size());
}

TEST(Config, Precedence) {
  const std::string text =
      "[global]\n"
      "log_level = warn\n"
      "osd_op_num_threads = 3\n"
      "ms_async_op_threads = 3\n"
      "osd_port = 7000\n"
      "[osd]\n"
      "osd_op_num_threads = 4\n"
      "osd_port = 7100\n"
      "[osd.1]\n"
      "osd_port = 7201\n"
      "[osd.2]\n"
      "osd_port = 7202\n"
      "osd_op_num_threads = 9\n";
  Result<OsdConfig> one = ParseOsdConfig(text, "t", 1);
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_EQ(one->osd_port, 7201);           // [osd.1] over [osd] over [global]
  EXPECT_EQ(one->osd_op_num_threads, 4u);   // [osd] over [global]
  EXPECT_EQ(one->ms_async_op_threads, 3u);  // [global] over the default
  EXPECT_EQ(one->log_level, "warn");
  EXPECT_EQ(one->ms_max_inflight_per_connection, 64u);  // default
  EXPECT_EQ(one->effective.at("osd_port").origin, "[osd.1]");
  EXPECT_EQ(one->effective.at("osd_op_num_threads").origin, "[osd]");
  EXPECT_EQ(one->effective.at("log_level").origin, "[global]");

  Result<OsdConfig> two = ParseOsdConfig(text, "t", 2);
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->osd_port, 7202);
  EXPECT_EQ(two->osd_op_num_threads, 9u);

  Result<OsdConfig> five = ParseOsdConfig(text, "t", 5);  // no [osd.5]: [osd] applies
  ASSERT_TRUE(five.ok());
  EXPECT_EQ(five->osd_port, 7100);

  // --set beats every section.
  Result<OsdConfig> set =
      ParseOsdConfig(text, "t", 1, {{"osd_port", "7301"}, {"osd op num threads", "7"}});
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->osd_port, 7301);
  EXPECT_EQ(set->osd_op_num_threads, 7u);
  EXPECT_EQ(set->effective.at("osd_port").origin, "--set");
  // Of two overrides of one option the last wins, as on a command line.
  Result<OsdConfig> twice = ParseOsdConfig(text, "t", 1, {{"osd_port", "1"}, {"osd_port", "2"}});
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->osd_port, 2);
}

TEST(Config, CephSpellingsAndComments) {
  const std::string text =
      "# a comment\n"
      "; another comment\n"
      "   [global]   # trailing comment on a section\n"
      "  log level  =  debug   ; trailing comment\n"
      "[osd]\r\n"
      "osd data = /srv/osd-$id # where it lives\n"
      "osd-op-num-threads = 5\n"
      "log_file = \"/tmp/a#b;c.log\"  # quoted: '#' and ';' are kept\n"
      "\n";
  Result<OsdConfig> c = ParseOsdConfig(text, "t", 7);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->log_level, "debug");
  EXPECT_EQ(c->osd_data, "/srv/osd-7");
  EXPECT_EQ(c->osd_op_num_threads, 5u);
  EXPECT_EQ(c->log_file, "/tmp/a#b;c.log");
  EXPECT_EQ(NormaliseOptionName("  osd   data "), "osd_data");
  EXPECT_EQ(NormaliseOptionName("osd--data"), "osd_data");
  EXPECT_NE(FindOsdOption("public addr"), nullptr);
  EXPECT_EQ(FindOsdOption("Public addr"), nullptr);  // names are case-sensitive, as in Ceph
}

TEST(Config, Expansion) {
  Result<OsdConfig> c = ParseOsdConfig(
      "[global]\n"
      "cluster = prod\n"
      "[osd]\n"
      "osd_data = /data/$cluster-$id\n"
      "osd_db_path = /fast/${name}.$type/db\n"
      "log_file = $osd_data/log-$$id\n",
      "t", 12);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->osd_data, "/data/prod-12");
  EXPECT_EQ(c->bluestore_block_path, "/data/prod-12/block");  // default refers to $osd_data
  EXPECT_EQ(c->osd_db_path, "/fast/osd.12.osd/db");
  EXPECT_EQ(c->log_file, "/data/prod-12/log-$id");
  EXPECT_EQ(c->effective.at("bluestore_block_path").value, "/data/prod-12/block");

  EXPECT_EQ(Error("[osd]\nosd_data = /x/$nope\n"),
            "test.conf:2: option 'osd_data' (from [osd]): unknown variable '$nope'");
  EXPECT_EQ(Error("[osd]\nosd_data = /x/${id\n"),
            "test.conf:2: option 'osd_data' (from [osd]): unterminated '${'");
  EXPECT_EQ(Error("[osd]\nosd_data = /x/$osd_port\n"),  // only string options are variables
            "test.conf:2: option 'osd_data' (from [osd]): unknown variable '$osd_port'");
  EXPECT_EQ(Error("[osd]\nosd_data = $log_file\nlog_file = $osd_data/log\n"),
            "test.conf:2: option 'osd_data' (from [osd]): reference loop $osd_data -> $log_file "
            "-> $osd_data");
  EXPECT_EQ(Error("[osd]\nlog_file = x\n[osd.0]\nosd_data = ${osd data}\n"),
            "test.conf:4: option 'osd_data' (from [osd.0]): reference loop $osd_data -> "
            "$osd_data");
  EXPECT_EQ(Error("[osd]\nlog_file = $\n"),
            "test.conf:2: option 'log_file' (from [osd]): unknown variable '$'");
}

TEST(Config, Sizes) {
  EXPECT_EQ(*ParseSize("0"), 0u);
  EXPECT_EQ(*ParseSize("4096"), 4096u);
  EXPECT_EQ(*ParseSize("64K"), 64u << 10);
  EXPECT_EQ(*ParseSize("64k"), 64u << 10);
  EXPECT_EQ(*ParseSize("64KiB"), 64u << 10);
  EXPECT_EQ(*ParseSize("64KB"), 64u << 10);
  EXPECT_EQ(*ParseSize("3M"), 3u << 20);
  EXPECT_EQ(*ParseSize("2G"), 2ull << 30);
  EXPECT_EQ(*ParseSize("1T"), 1ull << 40);
  EXPECT_EQ(*ParseSize("512B"), 512u);
  EXPECT_EQ(*ParseSize(" 8M "), 8u << 20);
  for (const char* bad : {"", "K", "1.5G", "-1", "12Q", "1KK", "1 K", "0x10", "1iB", "G1"}) {
    Result<std::uint64_t> r = ParseSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), HasSubstr("not a size")) << bad;
    }
  }
  EXPECT_EQ(ParseSize("99999999999999999999").status().message(), "size too large");
  EXPECT_EQ(ParseSize("17179869184G").status().message(), "size too large");
  for (std::uint64_t v : {0ull, 1ull, 1000ull, 1024ull, 1536ull, 64ull << 10, 3ull << 20,
                          1ull << 30, 1ull << 46, 5000ull << 40}) {
    EXPECT_EQ(*ParseSize(FormatSize(v)), v) << v;
  }
  EXPECT_EQ(FormatSize(65536), "64K");
  EXPECT_EQ(FormatSize(1536), "1536");
  EXPECT_EQ(FormatSize(1ull << 46), "64T");

  Result<OsdConfig> c = ParseOsdConfig("[osd]\nbluestore block size = 16M\n", "t", 0);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->bluestore_block_size, 16u << 20);
  EXPECT_EQ(c->effective.at("bluestore_block_size").value, "16M");
  // The two recovery caps: none by default, each read into its own field.
  EXPECT_EQ(c->osd_recovery_max_bytes_per_sec, 0u);
  EXPECT_EQ(c->osd_recovery_max_network_bytes_per_sec, 0u);
  c = ParseOsdConfig(
      "[osd]\nosd_recovery_max_bytes_per_sec = 1M\nosd recovery max network bytes per sec = 4M\n",
      "t", 0);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->osd_recovery_max_bytes_per_sec, 1u << 20);
  EXPECT_EQ(c->osd_recovery_max_network_bytes_per_sec, 4u << 20);
  EXPECT_FALSE(ParseOsdConfig("[osd]\nosd_recovery_max_network_bytes_per_sec = 2T\n", "t", 0).ok());
}

// osd_network_bandwidth (issue 33): bytes/s, as a byte rate or a bit rate in tc's decimal units.
TEST(Config, Bandwidths) {
  EXPECT_EQ(*ParseBandwidth("0"), 0u);
  EXPECT_EQ(*ParseBandwidth("1gbit"), 125'000'000u);
  EXPECT_EQ(*ParseBandwidth("1Gbit"), 125'000'000u);
  EXPECT_EQ(*ParseBandwidth("100mbit"), 12'500'000u);
  EXPECT_EQ(*ParseBandwidth("10gbps"), 1'250'000'000u);
  EXPECT_EQ(*ParseBandwidth("8kbit"), 1000u);
  EXPECT_EQ(*ParseBandwidth("800bit"), 100u);
  EXPECT_EQ(*ParseBandwidth("125M"), 125u << 20);
  EXPECT_EQ(*ParseBandwidth(" 4096 "), 4096u);
  for (const char* bad : {"", "fast", "1.5gbit", "-1", "1 gbit", "1gbitx", "gbit", "1xbit"}) {
    auto v = ParseBandwidth(bad);
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_EQ(v.status().code(), EINVAL) << bad;
  }
  EXPECT_EQ(ParseBandwidth("99999999999999999999gbit").status().message(), "bandwidth too large");
  EXPECT_EQ(ParseBandwidth("20000000000tbit").status().message(), "bandwidth too large");
  EXPECT_EQ(ParseBandwidth("99999999999T").status().message(), "bandwidth too large");
  for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{125'000'000}, std::uint64_t{12'500'000},
                          std::uint64_t{1000}, std::uint64_t{125} << 20, std::uint64_t{4097},
                          std::uint64_t{1} << 40}) {
    auto back = ParseBandwidth(FormatBandwidth(v));
    ASSERT_TRUE(back.ok()) << FormatBandwidth(v);
    EXPECT_EQ(*back, v) << FormatBandwidth(v);
  }
  EXPECT_EQ(FormatBandwidth(125'000'000), "1gbit");
  EXPECT_EQ(FormatBandwidth(12'500'000), "100mbit");
  EXPECT_EQ(FormatBandwidth(0), "0");
  // The option: default unknown, a value from the file, its range (0 .. 2^40 bytes/s).
  Result<OsdConfig> none = ParseOsdConfig("", "t", 0);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->osd_network_bandwidth, 0u);
  Result<OsdConfig> set = ParseOsdConfig("[osd]\nosd_network_bandwidth = 100mbit\n", "t", 0);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_EQ(set->osd_network_bandwidth, 12'500'000u);
  EXPECT_EQ(set->effective.at("osd_network_bandwidth").value, "100mbit");
  EXPECT_EQ(Error("[osd]\nosd_network_bandwidth = 10tbit\n"),
            "test.conf:2: bad value '10tbit' for option 'osd_network_bandwidth' in [osd]: out of "
            "range [0, 1T]");
  EXPECT_EQ(Error("[osd]\nosd_network_bandwidth = fast\n"),
            "test.conf:2: bad value 'fast' for option 'osd_network_bandwidth' in [osd]: not a "
            "bandwidth (expected e.g. 1gbit, 100mbit, 125M, 0)");
  ASSERT_NE(FindOsdOption("osd_network_bandwidth"), nullptr);
  EXPECT_EQ(OptionTypeName(FindOsdOption("osd_network_bandwidth")->type), "bandwidth");
}

TEST(Config, BoolsAndDurations) {
  for (const char* t : {"true", "TRUE", "yes", "on", "1"}) EXPECT_TRUE(*ParseBool(t)) << t;
  for (const char* f : {"false", "No", "off", "0"}) EXPECT_FALSE(*ParseBool(f)) << f;
  EXPECT_FALSE(ParseBool("2").ok());
  EXPECT_FALSE(ParseBool("").ok());
  using std::chrono::milliseconds;
  EXPECT_EQ(*ParseDuration("10"), milliseconds(10000));
  EXPECT_EQ(*ParseDuration("1.5"), milliseconds(1500));
  EXPECT_EQ(*ParseDuration("250ms"), milliseconds(250));
  EXPECT_EQ(*ParseDuration("30s"), milliseconds(30000));
  EXPECT_EQ(*ParseDuration("2m"), milliseconds(120000));
  EXPECT_EQ(*ParseDuration("1h"), milliseconds(3600000));
  for (const char* bad : {"", "-1", "1d", "ten", "nan", "inf", "1e3", "1 s x"}) {
    EXPECT_FALSE(ParseDuration(bad).ok()) << bad;
  }
  EXPECT_FALSE(ParseDuration("99999999999h").ok());
}

// kRanges values (bdev_inject_read_eio, bdev_inject_write_eio): none, all, or OFFSET+LENGTH
// lists; a bad one is refused with the part that is wrong, as every option value.
TEST(Config, ByteRanges) {
  auto none = ParseByteRanges("  ");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->all);
  EXPECT_TRUE(none->ranges.empty());
  auto all = ParseByteRanges("all");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->all);
  auto some = ParseByteRanges("1M+4K, 8192+4096");
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  ASSERT_EQ(some->ranges.size(), 2u);
  EXPECT_EQ(some->ranges[0], std::make_pair(std::uint64_t{1} << 20, std::uint64_t{4096}));
  EXPECT_EQ(some->ranges[1], std::make_pair(std::uint64_t{8192}, std::uint64_t{4096}));
  for (const char* bad : {"12", "x+4K", "4K+0", "4K+", "+4K", "18446744073709551615+2", "al"}) {
    auto r = ParseByteRanges(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), EINVAL) << bad;
  }
  std::string many;
  for (int i = 0; i < 65; ++i) many += (i ? "," : "") + std::to_string(i * 4096) + "+4096";
  EXPECT_FALSE(ParseByteRanges(many).ok());
  const OptionSpec* spec = FindOsdOption("bdev_inject_read_eio");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(OptionTypeName(spec->type), "ranges");
  EXPECT_TRUE(CheckOptionValue(*spec, "0+4K").ok());
  Status s = CheckOptionValue(*spec, "zero");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_NE(s.message().find("OFFSET+LENGTH"), std::string::npos) << s.message();
  EXPECT_EQ(Error("[osd]\nbdev_inject_write_eio = 4K\n"),
            "test.conf:2: bad value '4K' for option 'bdev_inject_write_eio' in [osd]: '4K': "
            "expected OFFSET+LENGTH, or all");
}

TEST(Config, ValueErrors) {
  EXPECT_EQ(
      Error("[osd]\nosd_port = 70000\n"),
      "test.conf:2: bad value '70000' for option 'osd_port' in [osd]: out of range [0, 65535]");
  EXPECT_EQ(Error("[osd]\nosd_port = 68OO\n"),
            "test.conf:2: bad value '68OO' for option 'osd_port' in [osd]: not an integer");
  EXPECT_EQ(Error("[global]\n\nosd_op_num_threads = \n"),
            "test.conf:3: bad value '' for option 'osd_op_num_threads' in [global]: not an "
            "integer");
  EXPECT_EQ(Error("[osd.0]\nbluestore_block_size = 1.5G\n"),
            "test.conf:2: bad value '1.5G' for option 'bluestore_block_size' in [osd.0]: not a "
            "size (expected e.g. 4096, 64K, 1M, 2G)");
  EXPECT_EQ(Error("[osd]\nbluestore_block_size = 4K\n"),
            "test.conf:2: bad value '4K' for option 'bluestore_block_size' in [osd]: out of "
            "range [1M, 64T]");
  EXPECT_EQ(Error("[osd]\nosd_metrics_enabled = maybe\n"),
            "test.conf:2: bad value 'maybe' for option 'osd_metrics_enabled' in [osd]: not a "
            "boolean (true/false, yes/no, on/off, 1/0)");
  EXPECT_EQ(Error("[osd]\npublic_addr = 127.0.0.1:6800\n"),
            "test.conf:2: bad value '127.0.0.1:6800' for option 'public_addr' in [osd]: not an "
            "IPv4 or IPv6 address");
  EXPECT_EQ(Error("[osd]\nosd_metrics_addr = localhost\n"),
            "test.conf:2: bad value 'localhost' for option 'osd_metrics_addr' in [osd]: not an "
            "IPv4 or IPv6 address");
  EXPECT_EQ(Error("[osd]\nms_handshake_timeout = 0\n"),
            "test.conf:2: bad value '0' for option 'ms_handshake_timeout' in [osd]: out of range "
            "[0.001, 3600] s");
  EXPECT_EQ(Error("[osd]\nms_handshake_timeout = soon\n"),
            "test.conf:2: bad value 'soon' for option 'ms_handshake_timeout' in [osd]: not a "
            "duration (seconds, or with a unit: 250ms, 30s, 5m, 1h)");
  EXPECT_EQ(Error("[osd]\nosd_io_backend = aio\n"),
            "test.conf:2: bad value 'aio' for option 'osd_io_backend' in [osd]: expected one of "
            "io_uring|sync");
  EXPECT_EQ(Error("[osd]\nlog_level = loud\n"),
            "test.conf:2: bad value 'loud' for option 'log_level' in [osd]: expected one of "
            "trace|debug|info|warn|error|critical|off");
  // A section for another daemon is still checked: a typo there is not silently ignored.
  EXPECT_EQ(Error("[osd.4]\nosd_port = x\n", 0),
            "test.conf:2: bad value 'x' for option 'osd_port' in [osd.4]: not an integer");
  EXPECT_EQ(Error("[osd]\nlog_file = \"abc\n"),
            "test.conf:2: option 'log_file': unterminated quote");
  // A default plus a large id that leaves the port range.
  EXPECT_EQ(Error("", 60000),
            "option 'osd_port': the default 6800 + osd id 60000 = 66800 is out of range; set it "
            "explicitly");
  EXPECT_TRUE(ParseOsdConfig("[osd]\nosd_port = 1\nosd_metrics_port = 2\n", "t", 60000).ok());
}

TEST(Config, UnknownOptionsAndSections) {
  EXPECT_EQ(Error("[osd.0]\nosd_dta = /x\n"), "test.conf:2: unknown option 'osd_dta' in [osd.0]");
  EXPECT_EQ(Error("[global]\n# c\nosd  dta = /x\n"),
            "test.conf:3: unknown option 'osd_dta' in [global]");
  EXPECT_EQ(Error("[mon]\nmon_host = x\n"),
            "test.conf:1: unknown section [mon] (expected [global], [osd], [osd.N], [client] or "
            "[client.ID])");
  for (const char* s : {"[osd.]", "[osd.x]", "[osd.-1]", "[osd.01]", "[osd.1.2]", "[]", "[client.]",
                        "[client.a b]", "[client.a/b]", "[clients]"}) {
    EXPECT_THAT(Error(std::string("\n") + s + "\n"), HasSubstr("test.conf:2: unknown section"))
        << s;
  }
  EXPECT_EQ(Error("log_level = info\n[osd]\n"),
            "test.conf:1: option 'log_level' outside of a section ([global], [osd], [osd.N], "
            "[client] or [client.ID])");
  EXPECT_EQ(Error("[osd] junk\n"), "test.conf:1: unexpected text after the section header");
  EXPECT_EQ(Error("[osd\n"), "test.conf:1: unmatched '['");
  EXPECT_EQ(Error("[osd]\nosd_data /x\n"), "test.conf:2: '=' character not found in line");
  EXPECT_EQ(Error("[osd]\n = 3\n"), "test.conf:2: key expected");
  EXPECT_EQ(Error("[osd]\nosd_data = /a\nosd data = /b\n"), "test.conf:3: duplicate key name");
  EXPECT_EQ(Error("[osd]\nosd_data = /a\n[osd]\nlog_level = info\n"),
            "test.conf:3: duplicate section name");
  EXPECT_EQ(Error("[osd]\n", -1), "bad osd id -1: must be >= 0");

  EXPECT_EQ(Error("", 0, {{"osd_dta", "1"}}), "--set: unknown option 'osd_dta'");
  EXPECT_EQ(Error("", 0, {{"osd_port", "x"}}),
            "--set: bad value 'x' for option 'osd_port': not an integer");
}

TEST(Config, ParseOverride) {
  Result<ConfigOverride> o = ParseConfigOverride("osd data=/a=b");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->name, "osd_data");
  EXPECT_EQ(o->value, "/a=b");
  EXPECT_EQ(ParseConfigOverride("osd_data").status().message(),
            "bad --set 'osd_data': expected name=value");
  EXPECT_FALSE(ParseConfigOverride("=x").ok());
}

TEST_F(ConfigFile, LoadsAFile) {
  const std::string path = Write("[osd]\nosd_port = 6900\n[osd.2]\nosd data = " + dir_ + "/d\n");
  Result<OsdConfig> c = LoadOsdConfig(path, 2, {{"log_level", "error"}});
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->osd_port, 6900);
  EXPECT_EQ(c->osd_data, dir_ + "/d");
  EXPECT_EQ(c->bluestore_block_path, dir_ + "/d/block");
  EXPECT_EQ(c->log_level, "error");

  const std::string bad = Write("[osd]\n\nosd_dta = 1\n", "bad.conf");
  Result<OsdConfig> b = LoadOsdConfig(bad, 0);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), bad + ":3: unknown option 'osd_dta' in [osd]");
}

TEST_F(ConfigFile, MissingUnreadableAndHugeFiles) {
  Result<OsdConfig> missing = LoadOsdConfig(dir_ + "/nope.conf", 0);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ENOENT);
  EXPECT_EQ(missing.status().message(),
            "cannot read config " + dir_ + "/nope.conf: No such file or directory");

  // A directory opens but cannot be read as a file (chmod 000 would not stop root).
  Result<OsdConfig> dir = LoadOsdConfig(dir_, 0);
  ASSERT_FALSE(dir.ok());
  EXPECT_EQ(dir.status().code(), EISDIR);
  EXPECT_EQ(dir.status().message(), "cannot read config " + dir_ + ": Is a directory");

  const std::string big = Write(std::string((1 << 20) + 1, '#'), "big.conf");
  Result<OsdConfig> huge = LoadOsdConfig(big, 0);
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), EFBIG);
  EXPECT_THAT(huge.status().message(), HasSubstr("larger than 1048576 bytes"));
}

TEST(Config, TableIsConsistent) {
  std::set<std::string_view> names;
  for (const OptionSpec& o : OsdOptionTable()) {
    EXPECT_TRUE(names.insert(o.name).second) << "duplicate " << o.name;
    EXPECT_EQ(NormaliseOptionName(o.name), o.name);
    EXPECT_FALSE(o.description.empty()) << o.name;
    EXPECT_EQ(FindOsdOption(o.name), &o);
    EXPECT_THAT(OptionsHelpText(), HasSubstr(std::string(o.name)));
  }
  // Every default must load for a range of ids (the test above covers each value).
  for (int id : {0, 1, 100, 50000}) EXPECT_TRUE(ParseOsdConfig("", "t", id).ok()) << id;
}

// osd/daemon/README.md embeds the generated table; it must not drift from the code.
// A client takes [global] (and [client], below), not [osd] or [osd.N], which are still validated.
TEST(Config, ClientConfigTakesGlobalOnly) {
  const std::string text =
      "[global]\netcd endpoints = http://127.0.0.1:2379\netcd op timeout = 7s\n"
      "[osd]\netcd_endpoints = http://10.0.0.1:2379\nosd data = /x/$name\n"
      "[osd.0]\netcd_op_timeout = 3s\n";
  const std::string path = ::testing::TempDir() + "client.conf";
  {
    std::ofstream out(path);
    out << text;
  }
  auto c = LoadClientConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->etcd_endpoints, "http://127.0.0.1:2379");
  EXPECT_EQ(c->etcd_op_timeout, std::chrono::seconds(7));
  auto osd = LoadOsdConfig(path, 0);
  ASSERT_TRUE(osd.ok()) << osd.status().ToString();
  EXPECT_EQ(osd->etcd_endpoints, "http://10.0.0.1:2379");
  EXPECT_EQ(osd->etcd_op_timeout, std::chrono::seconds(3));
  EXPECT_EQ(osd->osd_data, "/x/osd.0");
  {
    std::ofstream out(path);
    out << text << "[osd.1]\nosd_heartbeat_grace = soon\n";
  }
  auto bad = LoadClientConfig(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("osd_heartbeat_grace"), std::string::npos);

  ::setenv("EC_CONF", "/from/env.conf", 1);
  EXPECT_EQ(ConfigPath(""), "/from/env.conf");
  EXPECT_EQ(ConfigPath("/flag.conf"), "/flag.conf");
  ::unsetenv("EC_CONF");
  EXPECT_EQ(ConfigPath(""), "");
}

// Ceph's [client] and [client.ID]: a client takes [client.ID] of its name over [client] over
// [global]; a daemon neither (and a client no [osd] section). Each is validated for everyone.
TEST(Config, ClientSectionsApplyToTheirClientsOnly) {
  const std::string text =
      "[global]\netcd_user = nobody\netcd_op_timeout = 7s\n"
      "[osd]\netcd_user = osd\netcd_password_file = /d/etcd.osd.password\n"
      "[client]\netcd_user = client\netcd_password_file = /d/etcd.$type.password\n"
      "[client.admin]\netcd_user = root\netcd_password_file = /d/etcd.root.password\n"
      "[client.app-1.x]\netcd_op_timeout = 3s\n";
  const std::string path = ::testing::TempDir() + "client_sections.conf";
  {
    std::ofstream out(path);
    out << text;
  }
  auto admin = LoadClientConfig(path);
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  EXPECT_EQ(admin->etcd_user, "root");
  EXPECT_EQ(admin->etcd_password_file, "/d/etcd.root.password");
  EXPECT_EQ(admin->etcd_op_timeout, std::chrono::seconds(7));
  auto app = LoadClientConfig(path, {}, "client.app-1.x");
  ASSERT_TRUE(app.ok()) << app.status().ToString();
  EXPECT_EQ(app->etcd_user, "client");
  EXPECT_EQ(app->etcd_password_file, "/d/etcd.client.password");
  EXPECT_EQ(app->etcd_op_timeout, std::chrono::seconds(3));
  auto other = LoadClientConfig(path, {{"etcd_user", "cli"}}, "client.other");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(other->etcd_user, "cli");
  EXPECT_EQ(other->etcd_op_timeout, std::chrono::seconds(7));
  auto osd = LoadOsdConfig(path, 0);
  ASSERT_TRUE(osd.ok()) << osd.status().ToString();
  EXPECT_EQ(osd->etcd_user, "osd");
  EXPECT_EQ(osd->etcd_password_file, "/d/etcd.osd.password");
  EXPECT_EQ(osd->effective.at("etcd_user").origin, "[osd]");
  EXPECT_EQ(osd->etcd_op_timeout, std::chrono::seconds(7));
  {
    std::ofstream out(path);
    out << text << "[client.bob]\netcd_op_timeout = soon\n";
  }
  auto bad = LoadOsdConfig(path, 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("bad value 'soon' for option 'etcd_op_timeout' in "
                                                "[client.bob]"));
  // The central config's who stays global, osd, osd.N: not a client section.
  EXPECT_FALSE(IsConfigSection("client"));
  EXPECT_FALSE(IsConfigSection("client.admin"));
}

// ec-admin's pool default: Ceph's name, ecstore's default true (Ceph's is false), from [global].
TEST(Config, PoolDefaultFlagEcOptimizations) {
  const OptionSpec* spec = FindOsdOption("osd pool default flag ec optimizations");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->type, OptionType::kBool);
  EXPECT_EQ(spec->default_value, "true");
  EXPECT_THAT(std::string(spec->description), HasSubstr("Ceph's is false"));
  const std::string path = ::testing::TempDir() + "pool_default.conf";
  {
    std::ofstream out(path);
    out << "[global]\netcd endpoints = http://127.0.0.1:2379\n";
  }
  auto c = LoadClientConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->osd_pool_default_flag_ec_optimizations);
  {
    std::ofstream out(path);
    out << "[global]\nosd_pool_default_flag_ec_optimizations = off\n";
  }
  c = LoadClientConfig(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->osd_pool_default_flag_ec_optimizations);
  {
    std::ofstream out(path);
    out << "[global]\nosd_pool_default_flag_ec_optimizations = 2\n";
  }
  c = LoadClientConfig(path);
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("bad value '2' for option 'osd_pool_default_flag_ec_optimizations'"));
}

TEST(Config, ReadmeListsEveryOption) {
  std::ifstream in(ECSTORE_DAEMON_README);
  ASSERT_TRUE(in) << ECSTORE_DAEMON_README;
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string readme = ss.str();
  const std::string begin = "<!-- options:begin -->\n";
  const std::size_t b = readme.find(begin);
  const std::size_t e = readme.find("<!-- options:end -->");
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  EXPECT_EQ(readme.substr(b + begin.size(), e - b - begin.size()), OptionsMarkdownTable())
      << "regenerate the table in osd/daemon/README.md from OptionsMarkdownTable()";
}

}  // namespace
}  // namespace ec
