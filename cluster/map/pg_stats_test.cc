// The pg stats codec (no etcd): v5 round trips, v1 to v4 values still decode (the fields they
// lack are 0 / empty), and every malformed value is EBADMSG naming the key, never a crash.
#include "cluster/map/pg_stats.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ec::cluster {
namespace {

constexpr const char* kKey = "/ecstore/pgstats/3";
constexpr int kItemNoneInJson = -1;

PgStatsReport Sample() {
  PgStatsReport r;
  r.osd = 3;
  r.epoch = 12;
  r.stamp_ms = 1'700'000'000'123;
  PgStat a;
  a.objects = 40;
  a.state = "active+recovering+degraded";
  a.degraded = 7;
  a.misplaced = 2;
  a.missing = 9;
  a.unfound = 1;
  a.missing_bytes = 36864;
  a.recovered = 5;
  a.recovered_bytes = 20480;
  a.up = {2, kItemNoneInJson, 1};
  a.acting = {2, 0, 1};
  a.bytes = 163840;
  r.pgs["1.1f"] = a;
  r.pgs["2.0"] = PgStat{3, "active+clean", 0, 0, 0, 0, 0, 0, 0, {}, {}};
  r.recovery = RecoveryTotals{
      1000, 4096, 400, 3, 200, 1, 1'700'000'000'000, 1'699'999'000'000, 1'699'999'500'000};
  return r;
}

void ExpectBad(const std::string& value, const std::string& why) {
  auto r = DecodePgStats(kKey, value);
  ASSERT_FALSE(r.ok()) << value;
  EXPECT_EQ(r.status().code(), EBADMSG) << value;
  EXPECT_NE(r.status().message().find(kKey), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(why), std::string::npos)
      << value << ": " << r.status().message();
}

TEST(PgStats, RoundTripV5) {
  const PgStatsReport r = Sample();
  const std::string text = EncodePgStats(r);
  EXPECT_EQ(nlohmann::json::parse(text)["v"], 5);
  EXPECT_EQ(nlohmann::json::parse(text)["pgs"]["1.1f"]["bytes"], 163840);
  EXPECT_EQ(nlohmann::json::parse(text)["recovery"]["last_done_ms"], 1'699'999'500'000);
  EXPECT_EQ(nlohmann::json::parse(text)["pgs"]["1.1f"]["up"], nlohmann::json::parse("[2,-1,1]"));
  EXPECT_EQ(nlohmann::json::parse(text)["pgs"]["2.0"]["acting"], nlohmann::json::array());
  auto back = DecodePgStats(kKey, text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  // Empty and extreme values too.
  PgStatsReport e;
  e.recovery.network_bytes = INT64_MAX;
  back = DecodePgStats(kKey, EncodePgStats(e));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, e);
}

TEST(PgStats, OldVersionsDecodeWithTheNewFieldsZero) {
  auto v1 = DecodePgStats(
      kKey, R"({"v":1,"osd":3,"epoch":12,"stamp_ms":5,"pgs":{"1.1f":{"objects":40}}})");
  ASSERT_TRUE(v1.ok()) << v1.status().ToString();
  EXPECT_EQ(v1->osd, 3);
  EXPECT_EQ(v1->epoch, 12);
  EXPECT_EQ(v1->stamp_ms, 5);
  EXPECT_EQ(v1->pgs.at("1.1f"), (PgStat{40, "", 0, 0, 0, 0, 0, 0, 0, {}, {}}));
  EXPECT_EQ(v1->recovery, RecoveryTotals{});

  auto v2 = DecodePgStats(kKey, R"({"v":2,"osd":3,"epoch":12,"stamp_ms":5,"pgs":{"1.1f":
      {"objects":40,"state":"active+recovering","degraded":4,"missing":6,"unfound":1}}})");
  ASSERT_TRUE(v2.ok()) << v2.status().ToString();
  EXPECT_EQ(v2->pgs.at("1.1f"), (PgStat{40, "active+recovering", 4, 0, 6, 1, 0, 0, 0, {}, {}}));
  EXPECT_EQ(v2->recovery, RecoveryTotals{});

  // v3: no interval (up, acting empty).
  auto v3 = DecodePgStats(kKey, R"({"v":3,"osd":3,"epoch":12,"stamp_ms":5,"pgs":{"1.1f":
      {"objects":40,"state":"active+clean","degraded":0,"misplaced":0,"missing":0,"unfound":0,
       "missing_bytes":0,"recovered":0,"recovered_bytes":0}},"recovery":{"network_bytes":1,
       "helper_device_bytes":2,"rebuilt_bytes":3,"objects":4,"rebuilt_bytes_per_sec":5,
       "objects_per_sec":6,"since_ms":7}})");
  ASSERT_TRUE(v3.ok()) << v3.status().ToString();
  EXPECT_EQ(v3->pgs.at("1.1f"), (PgStat{40, "active+clean", 0, 0, 0, 0, 0, 0, 0, {}, {}}));
  EXPECT_EQ(v3->recovery, (RecoveryTotals{1, 2, 3, 4, 5, 6, 7}));
}

TEST(PgStats, BadValuesAreEbadmsg) {
  const std::string pg4 =
      R"("state":"active+clean","degraded":0,"misplaced":0,"missing":0,"unfound":0,)"
      R"("missing_bytes":0,"recovered":0,"recovered_bytes":0,"up":[0,-1],"acting":[0,1])";
  const std::string rec =
      R"({"network_bytes":1,"helper_device_bytes":2,"rebuilt_bytes":3,"objects":4,)"
      R"("rebuilt_bytes_per_sec":5,"objects_per_sec":6,"since_ms":7})";
  const auto v4 = [&](const std::string& pg, const std::string& recovery) {
    return R"({"v":4,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{"1.0":{"objects":1,)" + pg +
           R"(}},"recovery":)" + recovery + "}";
  };
  ASSERT_TRUE(DecodePgStats(kKey, v4(pg4, rec)).ok());
  // v5 needs its PG bytes and the recovery's last run; v4 has neither.
  const std::string rec5 =
      rec.substr(0, rec.size() - 1) + R"(,"last_since_ms":8,"last_done_ms":9})";
  const auto v5 = [&](const std::string& pg, const std::string& recovery) {
    return R"({"v":5,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{"1.0":{"objects":1,)" + pg +
           R"(}},"recovery":)" + recovery + "}";
  };
  ASSERT_TRUE(DecodePgStats(kKey, v5(pg4 + R"(,"bytes":4096)", rec5)).ok());
  ExpectBad(v5(pg4, rec5), "pg 1.0");
  ExpectBad(v5(pg4 + R"(,"bytes":-1)", rec5), "pg 1.0 bytes");
  ExpectBad(v5(pg4 + R"(,"bytes":4096)", rec), "recovery");
  ExpectBad(v4(pg4, rec5), "recovery");
  // A v3 value with v4's interval fields.
  ExpectBad(R"({"v":3,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{"1.0":{"objects":1,)" + pg4 +
                R"(}},"recovery":)" + rec + "}",
            "pg 1.0");
  // The interval: missing, not an array, a bad id, lengths that differ, more than 256 positions.
  const std::string good_sets = R"("up":[0,-1],"acting":[0,1])";
  for (const auto& [sets, why] : std::vector<std::pair<std::string, std::string>>{
           {R"("up":[0,-1],"other":[0,1])", "pg 1.0 acting"},
           {R"("up":{},"acting":[0,1])", "pg 1.0 up"},
           {R"("up":[0,-2],"acting":[0,1])", "pg 1.0 up"},
           {R"("up":[0,"1"],"acting":[0,1])", "pg 1.0 up"},
           {R"("up":[0,1.5],"acting":[0,1])", "pg 1.0 up"},
           {R"("up":[0,-1],"acting":[0,2147483648])", "pg 1.0 acting"},
           {R"("up":[0],"acting":[0,1])", "differ in size"}}) {
    std::string pg = pg4;
    pg.replace(pg.find(good_sets), good_sets.size(), sets);
    ExpectBad(v4(pg, rec), why);
  }
  {
    std::string many = "[";
    for (int i = 0; i < 257; ++i) many += (i ? ",0" : "0");
    many += "]";
    std::string pg = pg4;
    pg.replace(pg.find(good_sets), good_sets.size(), R"("up":)" + many + R"(,"acting":)" + many);
    ExpectBad(v4(pg, rec), "pg 1.0 up");
  }

  ExpectBad("", "not a JSON object");
  ExpectBad("[1]", "not a JSON object");
  ExpectBad(R"({"v":6,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{}})", "unknown format");
  ExpectBad(R"({"v":0,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{}})", "unknown format");
  ExpectBad(R"({"v":"3","osd":3,"epoch":1,"stamp_ms":1,"pgs":{}})", "v");
  ExpectBad(R"({"v":3,"osd":-1,"epoch":1,"stamp_ms":1,"pgs":{},"recovery":)" + rec + "}", "osd");
  ExpectBad(R"({"v":3,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{}})", "recovery");
  ExpectBad(R"({"v":3,"osd":3,"epoch":1,"stamp_ms":1,"pgs":[],"recovery":)" + rec + "}", "pgs");
  ExpectBad(R"({"v":3,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{},"recovery":[]})", "recovery");
  ExpectBad(R"({"v":3,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{},"recovery":)" + rec + R"(,"x":1})",
            "unknown field");
  // A v2 value with the v3 "recovery" object, and v2 PG fields in a v4 value.
  ExpectBad(R"({"v":2,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{},"recovery":)" + rec + "}",
            "unknown field");
  ExpectBad(R"({"v":3,"osd":3,"epoch":1,"stamp_ms":1,"pgs":{"1.0":{"objects":1,"state":"x",)"
            R"("degraded":0,"missing":0,"unfound":0}},"recovery":)" +
                rec + "}",
            "pg 1.0");
  // Each PG count negative, fractional, a string, above INT64_MAX, or missing.
  for (const char* field : {"degraded", "misplaced", "missing", "unfound", "missing_bytes",
                            "recovered", "recovered_bytes"}) {
    const std::string name = std::string("\"") + field + "\":0";
    for (const char* v : {"-1", "1.5", "\"1\"", "9223372036854775808", "null"}) {
      std::string pg = pg4;
      pg.replace(pg.find(name), name.size(), std::string("\"") + field + "\":" + v);
      ExpectBad(v4(pg, rec), std::string("pg 1.0 ") + field);
    }
    std::string without = pg4;
    without.replace(without.find(name), name.size(), R"("other":0)");
    ExpectBad(v4(without, rec), std::string("pg 1.0 ") + field);
  }
  std::string no_state = pg4;
  no_state.replace(0, std::string(R"("state":"active+clean")").size(), R"("state":1)");
  ExpectBad(v4(no_state, rec), "pg 1.0 state");
  // Each recovery field negative or missing; an extra one.
  for (const char* field : {"network_bytes", "helper_device_bytes", "rebuilt_bytes", "objects",
                            "rebuilt_bytes_per_sec", "objects_per_sec", "since_ms"}) {
    nlohmann::json r = nlohmann::json::parse(rec);
    r[field] = -5;
    ExpectBad(v4(pg4, r.dump()), std::string("recovery ") + field);
    r.erase(field);
    ExpectBad(v4(pg4, r.dump()), "recovery");
  }
  nlohmann::json extra = nlohmann::json::parse(rec);
  extra["more"] = 1;
  ExpectBad(v4(pg4, extra.dump()), "recovery: unknown field");
}

// Random damage to a valid value: a clean error or a decoded report, never a crash.
TEST(PgStats, DamagedValuesNeverCrash) {
  const std::string good = EncodePgStats(Sample());
  std::mt19937 rng(15);
  int rejected = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string v = good;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % v.size();
      switch (rng() % 3) {
        case 0:
          v[at] = static_cast<char>(rng() % 128);
          break;
        case 1:
          v.erase(at, 1 + rng() % 8);
          break;
        default:
          v.insert(at, 1, "{}[],:\"-09e."[rng() % 12]);
      }
      if (v.empty()) v = "x";
    }
    auto r = DecodePgStats(kKey, v);
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), EBADMSG) << v;
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace ec::cluster
