// The OSD stats report's codec: round trip, versions 1 to 3 still read, bad values refused (strict
// and bounded).
#include "cluster/map/osd_stats.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace ec::cluster {
namespace {

OsdStatsReport SampleOsd() {
  OsdStatsReport r;
  r.osd = 3;
  r.stamp_ms = 1700000000000;
  r.statfs = {1 << 30, 600 << 20, 400 << 20, 0, 24 << 20};
  r.io = {10, 40960, 5, 20480};
  r.rates = {2, 8192, 1, 4096};
  r.pools[1] = {10, 40960, 5, 20480};
  r.pools[7] = {};
  r.perf = {0.84, 0.84, 120};
  r.op_latency = {123456789, 987654321};
  r.device = {2, 1, 5};
  r.slow_ops_interval = 3;
  return r;
}

TEST(OsdStats, RoundTrips) {
  const OsdStatsReport r = SampleOsd();
  auto back = DecodeOsdStats("k", EncodeOsdStats(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  EXPECT_EQ(back->statfs.used(), (1 << 30) - (600 << 20));
  EXPECT_EQ(OsdStatsKey("/ecstore/", 3), "/ecstore/osdstats/3");
}

// A version 1 report, as OSDs before the perf_stat field wrote it: read with a zero perf_stat.
TEST(OsdStats, ReadsVersion1) {
  const std::string v1 =
      R"({"io":{"rd":10,"rd_bytes":40960,"wr":5,"wr_bytes":20480},"osd":3,)"
      R"("pools":{"1":{"rd":10,"rd_bytes":40960,"wr":5,"wr_bytes":20480},)"
      R"("7":{"rd":0,"rd_bytes":0,"wr":0,"wr_bytes":0}},)"
      R"("rates":{"rd":2,"rd_bytes":8192,"wr":1,"wr_bytes":4096},"stamp_ms":1700000000000,)"
      R"("statfs":{"available":629145600,"data":419430400,"meta":25165824,"omap":0,)"
      R"("total":1073741824},"v":1})";
  auto back = DecodeOsdStats("k", v1);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  OsdStatsReport want = SampleOsd();
  want.perf = {};
  want.op_latency = {};
  want.device = {};
  want.slow_ops_interval = 0;
  EXPECT_EQ(*back, want);
  // Strict still: version 1 with the later fields is refused.
  std::string v1_with_perf = EncodeOsdStats(SampleOsd());
  v1_with_perf.replace(v1_with_perf.find("\"v\":4"), 5, "\"v\":1");
  EXPECT_EQ(DecodeOsdStats("k", v1_with_perf).status().code(), EBADMSG);
}

// A version 2 report, as OSDs before the op_latency field wrote it: read with zero latency sums;
// version 2 with op_latency is refused.
// (JSON keys come sorted: "device" first.)
const std::string kDevice =
    "\"device\":{\"read_errors\":2,\"slow_ops\":5,\"slow_ops_interval\":3,"
    "\"write_errors\":1},";

TEST(OsdStats, ReadsVersion2) {
  std::string v3 = EncodeOsdStats(SampleOsd());
  ASSERT_NE(v3.find(kDevice), std::string::npos) << v3;
  v3.erase(v3.find(kDevice), kDevice.size());
  v3.replace(v3.find("\"v\":4"), 5, "\"v\":3");
  std::string v2 = v3;
  const std::string lat = ",\"op_latency\":{\"rd_ns\":123456789,\"wr_ns\":987654321}";
  ASSERT_NE(v2.find(lat), std::string::npos) << v2;
  v2.erase(v2.find(lat), lat.size());
  v2.replace(v2.find("\"v\":3"), 5, "\"v\":2");
  auto back = DecodeOsdStats("k", v2);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  OsdStatsReport want = SampleOsd();
  want.op_latency = {};
  want.device = {};
  want.slow_ops_interval = 0;
  EXPECT_EQ(*back, want);
  v3.replace(v3.find("\"v\":3"), 5, "\"v\":2");
  EXPECT_EQ(DecodeOsdStats("k", v3).status().code(), EBADMSG);
}

// A version 3 report, as OSDs before the device field wrote it: read with a healthy device;
// version 3 with the device field is refused.
TEST(OsdStats, ReadsVersion3) {
  std::string v4 = EncodeOsdStats(SampleOsd());
  std::string v3 = v4;
  v3.erase(v3.find(kDevice), kDevice.size());
  v3.replace(v3.find("\"v\":4"), 5, "\"v\":3");
  auto back = DecodeOsdStats("k", v3);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  OsdStatsReport want = SampleOsd();
  want.device = {};
  want.slow_ops_interval = 0;
  EXPECT_EQ(*back, want);
  v4.replace(v4.find("\"v\":4"), 5, "\"v\":3");
  EXPECT_EQ(DecodeOsdStats("k", v4).status().code(), EBADMSG);
}

TEST(OsdStats, RefusesBadValuesNamingTheKey) {
  const std::string good = EncodeOsdStats(SampleOsd());
  const auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  const std::string bad[] = {
      "",
      "[]",
      "{",
      replace("\"v\":4", "\"v\":5"),
      replace("\"v\":4", "\"v\":0"),
      replace("\"osd\":3", "\"osd\":-3"),
      replace("\"osd\":3", "\"osd\":\"3\""),
      replace("\"total\":1073741824", "\"total\":1"),       // parts above total
      replace("\"total\":1073741824", "\"total\":-1"),      // negative
      replace("\"data\":419430400", "\"data\":1e3"),        // not an integer
      replace("\"rd\":10", "\"rd\":18446744073709551615"),  // above INT64_MAX
      replace("\"pools\":{\"1\"", "\"pools\":{\"01\""),     // padded pool id
      replace("\"pools\":{\"1\"", "\"pools\":{\"-1\""),
      replace("\"pools\":{\"1\"", "\"pools\":{\"x\""),
      replace("\"v\":4", "\"v\":4,\"extra\":0"),
      replace("\"wr_bytes\":4096", "\"wr_bytes\":4096,\"more\":1"),
      // perf_stat: missing, not an object, a field missing, extra, of the wrong type or range.
      replace(",\"perf_stat\":{\"apply_latency_ms\":0.84,\"commit_latency_ms\":0.84,\"ops\":120}",
              ""),
      replace("{\"apply_latency_ms\":0.84,\"commit_latency_ms\":0.84,\"ops\":120}", "7"),
      replace("\"apply_latency_ms\":0.84,", ""),
      replace("\"ops\":120", "\"ops\":120,\"x\":0"),
      replace("\"ops\":120", "\"ops\":-1"),
      replace("\"ops\":120", "\"ops\":1.5"),
      replace("\"commit_latency_ms\":0.84", "\"commit_latency_ms\":-1"),
      replace("\"commit_latency_ms\":0.84", "\"commit_latency_ms\":1e12"),
      replace("\"commit_latency_ms\":0.84", "\"commit_latency_ms\":\"1\""),
      replace("\"apply_latency_ms\":0.84", "\"apply_latency_ms\":null"),
      // op_latency: missing, not an object, a sum missing, extra, negative or not an integer.
      replace(",\"op_latency\":{\"rd_ns\":123456789,\"wr_ns\":987654321}", ""),
      replace("{\"rd_ns\":123456789,\"wr_ns\":987654321}", "[]"),
      replace("\"rd_ns\":123456789,", ""),
      replace("\"wr_ns\":987654321", "\"wr_ns\":987654321,\"x\":1"),
      replace("\"wr_ns\":987654321", "\"wr_ns\":-1"),
      replace("\"rd_ns\":123456789", "\"rd_ns\":1.5"),
      // device: missing, a count missing, extra, negative, more slow in the interval than in all.
      replace(kDevice, ""),
      replace("\"read_errors\":2,", ""),
      replace("\"write_errors\":1", "\"write_errors\":1,\"x\":0"),
      replace("\"write_errors\":1", "\"write_errors\":-1"),
      replace("\"slow_ops_interval\":3", "\"slow_ops_interval\":6"),
      std::string(kMaxOsdStatsBytes + 1, ' '),
  };
  for (const std::string& value : bad) {
    auto r = DecodeOsdStats("/p/osdstats/3", value);
    ASSERT_FALSE(r.ok()) << value.substr(0, 200);
    EXPECT_EQ(r.status().code(), EBADMSG);
    EXPECT_EQ(r.status().message().rfind("bad osd stats at /p/osdstats/3: ", 0), 0u)
        << r.status().message();
  }
}

TEST(OsdStats, RefusesTooManyPools) {
  OsdStatsReport r = SampleOsd();
  for (std::int64_t i = 0; i <= static_cast<std::int64_t>(kMaxOsdStatsPools); ++i) r.pools[i] = {};
  auto back = DecodeOsdStats("k", EncodeOsdStats(r));
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), EBADMSG);
}

}  // namespace
}  // namespace ec::cluster
