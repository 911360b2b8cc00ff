// The monitor's decision from failure reports (failure_policy.h) as a pure function, and the
// reports' key and value codec (liveness_keys.h): every rule on a made-up map, and random and
// mutated bytes that must decode to a clean error, never a crash.
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cluster/liveness/failure_policy.h"
#include "cluster/liveness/liveness_keys.h"

namespace ec::cluster {
namespace {

constexpr std::int64_t kNow = 1'700'000'000'000;
constexpr std::int64_t kGraceMs = 4000;
const std::string kPfx = "/ecstore/";

// OSDs 0..n-1 up, osd.i on host "h<host_of[i]>", booted at stamp 1000 + i.
ClusterMap MakeMap(const std::vector<int>& host_of) {
  ClusterMap m;
  m.epoch = 10;
  for (int i = 0; i < static_cast<int>(host_of.size()); ++i) {
    OsdEntry o;
    o.id = i;
    o.addr = "127.0.0.1:" + std::to_string(6800 + i);
    o.host = "h" + std::to_string(host_of[static_cast<std::size_t>(i)]);
    o.up = true;
    o.uuid = "u" + std::to_string(i);
    o.up_stamp_ms = 1000 + i;
    m.osds[i] = o;
  }
  return m;
}

// A report of `target` by `reporter`, failing for 5 s, written 100 ms ago.
FailureReport Rep(const ClusterMap& m, int target, int reporter) {
  FailureReport r;
  r.target = target;
  r.reporter = reporter;
  r.target_up_stamp_ms = m.osds.at(target).up_stamp_ms;
  r.failed_since_ms = kNow - 5000;
  r.stamp_ms = kNow - 100;
  return r;
}

FailurePolicy Policy(int min_reporters = 2, ReporterSubtree subtree = ReporterSubtree::kHost) {
  FailurePolicy p;
  p.min_down_reporters = min_reporters;
  p.subtree = subtree;
  p.grace = std::chrono::milliseconds(kGraceMs);
  return p;
}

std::vector<int> DownIds(const FailureDecision& d) {
  std::vector<int> ids;
  for (const FailureVerdict& v : d.down) ids.push_back(v.target);
  return ids;
}

TEST(FailurePolicy, MinReportersFromDistinctHosts) {
  const ClusterMap m = MakeMap({1, 2, 3, 4});  // one OSD per host
  // One reporter is not enough; two are.
  EXPECT_TRUE(DecideFailures(m, std::vector{Rep(m, 0, 1)}, kNow, Policy()).down.empty());
  FailureDecision d = DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 2)}, kNow, Policy());
  ASSERT_EQ(DownIds(d), std::vector<int>{0});
  EXPECT_EQ(d.down[0].reporters, (std::vector<int>{1, 2}));
  EXPECT_EQ(d.down[0].subtrees, 2);
  EXPECT_EQ(d.down[0].failed_for_ms, 5000);
  // min 3: two are not enough, three are.
  EXPECT_TRUE(
      DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 2)}, kNow, Policy(3)).down.empty());
  EXPECT_EQ(DownIds(DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 2), Rep(m, 0, 3)}, kNow,
                                   Policy(3))),
            std::vector<int>{0});
  // A reporter repeated counts once.
  EXPECT_TRUE(
      DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 1)}, kNow, Policy()).down.empty());
  // min 1: one reporter is enough.
  EXPECT_EQ(DownIds(DecideFailures(m, std::vector{Rep(m, 0, 1)}, kNow, Policy(1))),
            std::vector<int>{0});
}

TEST(FailurePolicy, ReportersOnOneHostCountOnceUnlessTheSubtreeIsOsd) {
  // osd.0 on h1; osd.1 and osd.2 on h2; osd.3 on h3.
  const ClusterMap m = MakeMap({1, 2, 2, 3});
  const std::vector<FailureReport> same_host = {Rep(m, 0, 1), Rep(m, 0, 2)};
  FailureDecision d = DecideFailures(m, same_host, kNow, Policy());
  EXPECT_TRUE(d.down.empty());
  EXPECT_EQ(DownIds(DecideFailures(m, same_host, kNow, Policy(2, ReporterSubtree::kOsd))),
            std::vector<int>{0});
  // A third reporter on another host makes two hosts.
  d = DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 2), Rep(m, 0, 3)}, kNow, Policy());
  ASSERT_EQ(DownIds(d), std::vector<int>{0});
  EXPECT_EQ(d.down[0].subtrees, 2);
  EXPECT_EQ(d.down[0].reporters, (std::vector<int>{1, 2, 3}));
}

TEST(FailurePolicy, TheTargetsOwnReportsAreIgnored) {
  const ClusterMap m = MakeMap({1, 2, 3});
  EXPECT_TRUE(
      DecideFailures(m, std::vector{Rep(m, 0, 0), Rep(m, 0, 1)}, kNow, Policy()).down.empty());
  // The cut-off OSD reports every peer, alone: nobody is marked down for it.
  EXPECT_TRUE(
      DecideFailures(m, std::vector{Rep(m, 1, 0), Rep(m, 2, 0)}, kNow, Policy()).down.empty());
}

TEST(FailurePolicy, AReporterThatIsDownIsIgnored) {
  ClusterMap m = MakeMap({1, 2, 3, 4});
  m.osds.at(2).up = false;
  EXPECT_TRUE(
      DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 2)}, kNow, Policy()).down.empty());
  // Or not in the map at all.
  FailureReport ghost = Rep(m, 0, 1);
  ghost.reporter = 9;
  EXPECT_TRUE(DecideFailures(m, std::vector{Rep(m, 0, 1), ghost}, kNow, Policy()).down.empty());
  EXPECT_EQ(DownIds(DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 3)}, kNow, Policy())),
            std::vector<int>{0});
}

TEST(FailurePolicy, ReportsOlderThanTheGraceAreIgnored) {
  const ClusterMap m = MakeMap({1, 2, 3});
  FailureReport stale = Rep(m, 0, 2);
  stale.stamp_ms = kNow - kGraceMs - 1;
  EXPECT_TRUE(DecideFailures(m, std::vector{Rep(m, 0, 1), stale}, kNow, Policy()).down.empty());
  stale.stamp_ms = kNow - kGraceMs;  // exactly the grace: still fresh
  EXPECT_EQ(DownIds(DecideFailures(m, std::vector{Rep(m, 0, 1), stale}, kNow, Policy())),
            std::vector<int>{0});
  // A stamp further than the grace in the future is not believed either.
  FailureReport future = Rep(m, 0, 2);
  future.stamp_ms = kNow + kGraceMs + 1;
  EXPECT_TRUE(DecideFailures(m, std::vector{Rep(m, 0, 1), future}, kNow, Policy()).down.empty());
}

TEST(FailurePolicy, AFailureShorterThanTheGraceIsNotEnough) {
  const ClusterMap m = MakeMap({1, 2, 3});
  FailureReport young = Rep(m, 0, 2);
  young.failed_since_ms = kNow - kGraceMs + 1;
  EXPECT_TRUE(DecideFailures(m, std::vector{Rep(m, 0, 1), young}, kNow, Policy()).down.empty());
  young.failed_since_ms = kNow - kGraceMs;
  FailureDecision d = DecideFailures(m, std::vector{Rep(m, 0, 1), young}, kNow, Policy());
  ASSERT_EQ(DownIds(d), std::vector<int>{0});
  EXPECT_EQ(d.down[0].failed_for_ms, kGraceMs);  // from the latest failed_since
}

TEST(FailurePolicy, AReportOfAnEarlierBootOrOfADownTargetIsIgnored) {
  ClusterMap m = MakeMap({1, 2, 3});
  const std::vector<FailureReport> reports = {Rep(m, 0, 1), Rep(m, 0, 2)};
  m.osds.at(0).up_stamp_ms += 7;  // osd.0 booted again since the reports were written
  EXPECT_TRUE(DecideFailures(m, reports, kNow, Policy()).down.empty());
  m = MakeMap({1, 2, 3});
  m.osds.at(0).up = false;  // down already
  EXPECT_TRUE(DecideFailures(m, reports, kNow, Policy()).down.empty());
  m.osds.erase(0);  // not in the map
  EXPECT_TRUE(DecideFailures(m, reports, kNow, Policy()).down.empty());
}

TEST(FailurePolicy, TwoHalvesReportingEachOtherLeaveOneHalfUp) {
  // h1, h2 | h3, h4: each side reports the other.
  const ClusterMap m = MakeMap({1, 2, 3, 4});
  std::vector<FailureReport> reports;
  for (int a : {0, 1})
    for (int b : {2, 3}) {
      reports.push_back(Rep(m, a, b));
      reports.push_back(Rep(m, b, a));
    }
  FailureDecision d = DecideFailures(m, reports, kNow, Policy());
  // osd.0 goes first (ties: lowest id); its reports no longer count, so osd.2 and osd.3 keep
  // one reporter each, and osd.1, still reported by both of them, goes too.
  EXPECT_EQ(DownIds(d), (std::vector<int>{0, 1}));
  EXPECT_TRUE(d.held.empty());
}

TEST(FailurePolicy, MostReportedFirstAndMinUpRatio) {
  // Ten OSDs on ten hosts; everyone reports everyone (a network that answers nobody).
  const ClusterMap m = MakeMap({0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<FailureReport> reports;
  for (int t = 0; t < 10; ++t)
    for (int r = 0; r < 10; ++r)
      if (t != r) reports.push_back(Rep(m, t, r));
  FailurePolicy p = Policy();
  FailureDecision d = DecideFailures(m, reports, kNow, p);
  // Marked while at least 30% are up before each mark: 10/10 ... 3/10, so 8 go (then 2 of 10 are
  // up); no OSD is left with two reporters after that, so none is held.
  EXPECT_EQ(d.down.size(), 8u);
  // With min_down_reporters 1 the last two are still reported by each other: held.
  p.min_down_reporters = 1;
  d = DecideFailures(m, reports, kNow, p);
  EXPECT_EQ(d.down.size(), 8u);
  EXPECT_EQ(d.held.size(), 2u);
  // The most-reported first: osd.3 by three hosts, osd.1 by two.
  const ClusterMap m2 = MakeMap({0, 1, 2, 3, 4, 5});
  d = DecideFailures(
      m2, std::vector{Rep(m2, 1, 4), Rep(m2, 1, 5), Rep(m2, 3, 0), Rep(m2, 3, 4), Rep(m2, 3, 5)},
      kNow, Policy());
  EXPECT_EQ(DownIds(d), (std::vector<int>{3, 1}));
}

TEST(FailurePolicy, DescribeVerdictInCephsWords) {
  const ClusterMap m = MakeMap({1, 2, 3});
  FailureDecision d = DecideFailures(m, std::vector{Rep(m, 0, 1), Rep(m, 0, 2)}, kNow, Policy());
  ASSERT_EQ(d.down.size(), 1u);
  EXPECT_EQ(DescribeVerdict(m, d.down[0], Policy()),
            "osd.0 failed (root=default,host=h1) (2 reporters from different host after 5.0 >= "
            "grace 4.0: osd.1, osd.2)");
  EXPECT_TRUE(ParseReporterSubtree("host").ok());
  EXPECT_TRUE(ParseReporterSubtree("osd").ok());
  EXPECT_EQ(ParseReporterSubtree("rack").status().code(), EINVAL);
}

TEST(FailureKeys, RoundTripAndStrict) {
  FailureReport r{3, 12, 1700000000123, 1700000000456, 1700000000789};
  const std::string key = FailureKey(kPfx, 3, 12);
  EXPECT_EQ(key, "/ecstore/failure/3/12");
  auto back = DecodeFailure(kPfx, key, EncodeFailure(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);
  const std::string good = EncodeFailure(r);
  // Keys that are not <target>/<reporter>, or name other ids than the value.
  for (const char* bad_key :
       {"/ecstore/failure/3", "/ecstore/failure/3/", "/ecstore/failure//12",
        "/ecstore/failure/03/12", "/ecstore/failure/3/12/1", "/ecstore/failure/-3/12",
        "/ecstore/failure/3/x", "/ecstore/failure/99999999999/12", "/ecstore/failure/4/12",
        "/ecstore/failure/3/13", "/ecstore/alive/3", "/other/failure/3/12"}) {
    auto d = DecodeFailure(kPfx, bad_key, good);
    ASSERT_FALSE(d.ok()) << bad_key;
    EXPECT_EQ(d.status().code(), EBADMSG) << bad_key;
    EXPECT_NE(d.status().message().find(bad_key), std::string::npos) << d.status().message();
  }
  for (const std::string& bad : std::vector<std::string>{
           "", "{", "[]", "null",
           R"({"v":2,"target":3,"reporter":12,"target_up_stamp_ms":1,)"
           R"("failed_since_ms":1,"stamp_ms":1})",
           R"({"v":1,"target":3,"reporter":12,"target_up_stamp_ms":1,"failed_since_ms":1})",
           R"({"v":1,"target":3,"reporter":12,"target_up_stamp_ms":-1,"failed_since_ms":1,)"
           R"("stamp_ms":1})",
           R"({"v":1,"target":3,"reporter":12,"target_up_stamp_ms":1.5,"failed_since_ms":1,)"
           R"("stamp_ms":1})",
           R"({"v":1,"target":"3","reporter":12,"target_up_stamp_ms":1,"failed_since_ms":1,)"
           R"("stamp_ms":1})",
           R"({"v":1,"target":3,"reporter":12,"target_up_stamp_ms":1,"failed_since_ms":1,)"
           R"("stamp_ms":18446744073709551615})",
           R"({"v":1,"target":3,"reporter":12,"target_up_stamp_ms":1,"failed_since_ms":1,)"
           R"("stamp_ms":1,"extra":0})",
           std::string(kMaxFailureValueBytes + 1, ' ')}) {
    auto d = DecodeFailure(kPfx, key, bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_EQ(d.status().code(), EBADMSG);
    EXPECT_NE(d.status().message().find(key), std::string::npos);
  }
}

// Random bytes, and the good value with bytes flipped, cut or repeated: a result or EBADMSG, never
// a crash, an exception or a report naming ids other than the key's. The seed is printed.
TEST(FailureKeys, FuzzedValuesNeverCrash) {
  const std::uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  const std::string key = FailureKey(kPfx, 7, 8);
  const std::string good = EncodeFailure(FailureReport{7, 8, 11, 22, 33});
  const std::string alphabet = "{}[]\":,0123456789-.eE tfnrualsv_xyz\\\x01\xff";
  int ok = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string v;
    switch (i % 4) {
      case 0: {
        v.resize(rng() % 80);
        for (char& c : v) c = alphabet[rng() % alphabet.size()];
        break;
      }
      case 1: {
        v = good;
        for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n)
          v[rng() % v.size()] = static_cast<char>(rng());
        break;
      }
      case 2:
        v = good.substr(0, rng() % good.size());
        break;
      default: {
        v = good;
        const std::size_t at = rng() % v.size();
        v.insert(at, v.substr(at, rng() % 40));
        break;
      }
    }
    Result<FailureReport> d = DecodeFailure(kPfx, key, v);
    if (d.ok()) {
      ++ok;
      EXPECT_EQ(d->target, 7);
      EXPECT_EQ(d->reporter, 8);
    } else {
      EXPECT_EQ(d.status().code(), EBADMSG) << "seed " << seed;
    }
  }
  std::printf("%d of 20000 mutated values decoded\n", ok);
}

}  // namespace
}  // namespace ec::cluster
