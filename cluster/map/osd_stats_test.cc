#include "cluster/map/osd_stats.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <string>

namespace ec::cluster {
namespace {

OsdStatsReport Sample() {
  OsdStatsReport r;
  r.osd = 3;
  r.stamp_ms = 1700000000000;
  r.statfs = {1 << 30, 600 << 20, 400 << 20, 0, 24 << 20};
  r.io = {10, 40960, 5, 20480};
  r.rates = {2, 8192, 1, 4096};
  r.pools[1] = {10, 40960, 5, 20480};
  r.pools[7] = {};
  return r;
}

TEST(OsdStats, RoundTrips) {
  const OsdStatsReport r = Sample();
  auto back = DecodeOsdStats("k", EncodeOsdStats(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  EXPECT_EQ(back->statfs.used(), (1 << 30) - (600 << 20));
  EXPECT_EQ(OsdStatsKey("/ecstore/", 3), "/ecstore/osdstats/3");
}

TEST(OsdStats, RefusesBadValuesNamingTheKey) {
  const std::string good = EncodeOsdStats(Sample());
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
      replace("\"v\":1", "\"v\":2"),
      replace("\"osd\":3", "\"osd\":-3"),
      replace("\"osd\":3", "\"osd\":\"3\""),
      replace("\"total\":1073741824", "\"total\":1"),       // parts above total
      replace("\"total\":1073741824", "\"total\":-1"),      // negative
      replace("\"data\":419430400", "\"data\":1e3"),        // not an integer
      replace("\"rd\":10", "\"rd\":18446744073709551615"),  // above INT64_MAX
      replace("\"pools\":{\"1\"", "\"pools\":{\"01\""),     // padded pool id
      replace("\"pools\":{\"1\"", "\"pools\":{\"-1\""),
      replace("\"pools\":{\"1\"", "\"pools\":{\"x\""),
      replace("\"v\":1", "\"v\":1,\"extra\":0"),
      replace("\"wr_bytes\":4096", "\"wr_bytes\":4096,\"more\":1"),
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
  OsdStatsReport r = Sample();
  for (std::int64_t i = 0; i <= static_cast<std::int64_t>(kMaxOsdStatsPools); ++i) r.pools[i] = {};
  auto back = DecodeOsdStats("k", EncodeOsdStats(r));
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), EBADMSG);
}

}  // namespace
}  // namespace ec::cluster
