// Issue 29 item 2 on a real cluster: the PG states `ec-admin -s` and `ec-admin health detail`
// show while an OSD is killed and then marked out, sampled every half second until the cluster
// is clean again, through the real ec-admin (json). Seven ec-osd on seven hosts, an RS(4,2) pool
// (min_size k = 4), the OSDs' own 5 s osd_mon_report_interval (a state change must be reported at
// once, not at the next interval) and a slowed recovery (so that its states can be seen).
//
// Every sample: each PG line of PG_AVAILABILITY and PG_DEGRADED names a state that
// pgmap.pgs_by_state counts, and a state with `active` in it is never PG_AVAILABILITY's; once
// kPeeringAllowance has passed since the sample that first showed the map's epoch, no PG is
// peering (its primary peers in milliseconds and reports it at once). After the kill, once the
// map says down: active+undersized+degraded PGs, PG_DEGRADED and not PG_AVAILABILITY. After the
// out: recovery states (recovering / recovery_wait / backfilling) before every PG is active+clean.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cluster/map/map_store.h"
#include "cluster/map/pg_state.h"
#include "tests/cluster/cluster_fixture.h"

namespace {

using Clock = std::chrono::steady_clock;
using ec::cluster::MapChange;
using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr int kOsds = 7;
constexpr int kVictim = 3;
constexpr int kObjects = 128;
// How long after a sample first shows a new epoch PGs may still be peering: the sample may come up
// to kSample after the change, the primaries peer within milliseconds and report within the
// publisher's state check (200 ms); on a loaded 2-core machine give it seconds.
constexpr auto kPeeringAllowance = seconds(3);
constexpr auto kSample = milliseconds(500);

struct Sample {
  double at = 0;  // seconds since the kill
  std::int64_t epoch = 0;
  std::map<std::string, std::uint64_t> states;  // pgs_by_state
  json checks;                                  // health detail's checks
};

std::string Describe(const Sample& s) {
  std::string out = "t=" + std::to_string(s.at) + " epoch " + std::to_string(s.epoch) + ":";
  for (const auto& [state, n] : s.states) out += " " + std::to_string(n) + " " + state + ";";
  for (const auto& [code, c] : s.checks.items()) {
    out += " [" + code + "] " + c["summary"]["message"].get<std::string>();
  }
  return out;
}

TEST(PgStates, AsCephShowsThemWhileAnOsdIsKilledAndMarkedOut) {
  ectest::LocalClusterOptions o;
  o.osds = kOsds;
  o.pools = {ectest::PoolSpec{"rs", ectest::RsProfile(4, 2), 4096, 16}};
  o.osd_options = {"osd_mon_report_interval=5s", "osd_max_backfills=1", "osd_recovery_max_active=1",
                   "osd_recovery_sleep=300ms"};
  ectest::LocalCluster c(std::move(o));
  ASSERT_TRUE(c.Whole());
  const std::string conf = c.ToolConf();
  const auto json_of = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"-c", conf});
    args.insert(args.end(), {"--format", "json"});
    const ectest::ProcessResult r = ectest::RunProgram(EC_ADMIN_PATH, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  };

  auto io = c.Pool("rs");
  std::mt19937 rng(29);
  for (int i = 0; i < kObjects; ++i) {
    ASSERT_TRUE(
        io.WriteFull("obj-" + std::to_string(i), ectest::RandomBytes(4096 * (1 + rng() % 6), rng()))
            .ok());
  }
  ASSERT_TRUE(c.WaitClean(seconds(30)));

  const double allowance = std::chrono::duration<double>(kPeeringAllowance).count();
  const auto t0 = Clock::now();
  std::vector<Sample> samples;
  std::map<std::int64_t, double> epoch_seen;  // epoch -> when a sample first showed it
  const auto sample = [&] {
    Sample s;
    // `-s` and `health detail` are two commands: a PG that changes state between them (a peering
    // finishing) shows in one state in the first and another in the second. Take a pair that
    // agrees (every detail line's state counted by pgs_by_state), a few tries at most.
    const auto agree = [](const Sample& x) {
      for (const char* code : {"PG_AVAILABILITY", "PG_DEGRADED"}) {
        if (!x.checks.contains(code)) continue;
        for (const json& d : x.checks[code]["detail"]) {
          const std::string line = d["message"].get<std::string>();
          const std::size_t is = line.find(" is "), comma = line.find(", acting ");
          if (is == std::string::npos || comma == std::string::npos) continue;
          if (x.states.count(line.substr(is + 4, comma - is - 4)) == 0) return false;
        }
      }
      return true;
    };
    for (int attempt = 0; attempt < 5; ++attempt) {
      s = Sample{};
      const json status = json_of({"-s"});
      const json health = json_of({"health", "detail"});
      s.at = std::chrono::duration<double>(Clock::now() - t0).count();
      s.epoch = status["osdmap"]["epoch"].get<std::int64_t>();
      for (const json& st : status["pgmap"]["pgs_by_state"]) {
        s.states[st["state_name"].get<std::string>()] = st["count"].get<std::uint64_t>();
      }
      s.checks = health["checks"];
      if (agree(s)) break;
    }
    epoch_seen.emplace(s.epoch, s.at);
    samples.push_back(s);
    SCOPED_TRACE(Describe(s));
    // The detail lines name the states pgs_by_state counts; active PGs are available.
    for (const char* code : {"PG_AVAILABILITY", "PG_DEGRADED"}) {
      if (!s.checks.contains(code)) continue;
      for (const json& d : s.checks[code]["detail"]) {
        const std::string line = d["message"].get<std::string>();
        const std::size_t is = line.find(" is ");
        const std::size_t comma = line.find(", acting ");
        if (is == std::string::npos || comma == std::string::npos) {
          ADD_FAILURE() << "not Ceph's PG line: " << line;
          continue;
        }
        const std::string state = line.substr(is + 4, comma - is - 4);
        EXPECT_EQ(s.states.count(state), 1u) << code << ": " << line;
        const auto flags = ec::cluster::ParsePgState(state);
        if (!flags) {
          ADD_FAILURE() << "not a PG state: " << line;
          continue;
        }
        if (std::string(code) == "PG_AVAILABILITY") {
          EXPECT_EQ(*flags & ec::cluster::pg_state::kActive, 0u) << line;
        }
      }
    }
    if (s.at - epoch_seen.at(s.epoch) > allowance) {
      EXPECT_EQ(s.states.count("peering"), 0u)
          << "peering " << kPeeringAllowance.count() << " s after the map changed";
    }
    return s;
  };
  const auto has = [](const Sample& s, const std::string& word) {
    for (const auto& [state, n] : s.states) {
      if (state.find(word) != std::string::npos) return true;
    }
    return false;
  };

  // Killed: until the monitor marks it down (the grace) its PGs are as last reported; then the
  // primaries peer the PGs it held and report them active+undersized+degraded, which holds.
  ASSERT_TRUE(c.Kill(kVictim));
  std::int64_t down_epoch = 0;
  int degraded_samples = 0;  // taken after the allowance, with the victim down
  const auto down_deadline = Clock::now() + seconds(c.options.grace_seconds + 15);
  while (Clock::now() < down_deadline && degraded_samples < 3) {
    const Sample s = sample();
    if (HasFatalFailure()) return;
    if (down_epoch == 0 && !c.Map().osds.at(kVictim).up) down_epoch = c.Map().epoch;
    if (down_epoch != 0 && s.epoch >= down_epoch && s.at - epoch_seen.at(s.epoch) > allowance) {
      ++degraded_samples;
      EXPECT_EQ(s.states.count("peering"), 0u) << Describe(s);
      EXPECT_NE(s.states.count("active+undersized+degraded"), 0u) << Describe(s);
      EXPECT_TRUE(s.checks.contains("PG_DEGRADED")) << Describe(s);
      EXPECT_FALSE(s.checks.contains("PG_AVAILABILITY")) << Describe(s);
      EXPECT_TRUE(s.checks.contains("OSD_DOWN")) << Describe(s);
      if (s.checks.contains("PG_DEGRADED")) {
        const std::string summary = s.checks["PG_DEGRADED"]["summary"]["message"];
        EXPECT_EQ(summary.rfind("Degraded data redundancy: ", 0), 0u) << summary;
        EXPECT_NE(summary.find("objects degraded"), std::string::npos) << summary;
        EXPECT_NE(summary.find("undersized"), std::string::npos) << summary;
      }
    }
    std::this_thread::sleep_for(kSample);
  }
  ASSERT_EQ(degraded_samples, 3) << (samples.empty() ? "" : Describe(samples.back()));

  // Out: its positions move to the seventh OSD, which rebuilds them; recovery states show until
  // every PG is active+clean.
  auto out = c.store->Apply({MapChange::OsdOut(kVictim, false)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  bool recovery_seen = false, clean = false;
  const auto clean_deadline = Clock::now() + seconds(45);
  while (Clock::now() < clean_deadline && !clean) {
    std::this_thread::sleep_for(kSample);
    const Sample s = sample();
    if (HasFatalFailure()) return;
    recovery_seen = recovery_seen || has(s, "recovering") || has(s, "recovery_wait") ||
                    has(s, "backfilling") || has(s, "backfill_wait");
    clean = s.states.size() == 1 && s.states.count("active+clean") == 1;
    if (clean) {
      EXPECT_TRUE(s.checks.empty()) << Describe(s);  // out and down: no OSD_DOWN either
    }
  }
  for (const Sample& s : samples) std::printf("%s\n", Describe(s).c_str());
  EXPECT_TRUE(clean) << Describe(samples.back());
  EXPECT_TRUE(recovery_seen) << "no recovery state between the out and active+clean";
  std::size_t checked = 0;
  for (const Sample& s : samples) checked += s.at - epoch_seen.at(s.epoch) > allowance ? 1 : 0;
  EXPECT_GE(checked, 6u) << "too few samples late enough after a map change to check peering";
}

}  // namespace
