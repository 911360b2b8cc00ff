// Failure reports against a real etcd: the reporter's keys bound to its lease and withdrawn; the
// elected monitor marking an OSD down from reports of two hosts and not from one host, several in
// one epoch; the reported OSD logging "wrongly marked me down", waiting for its peers before it
// boots again, and giving up after osd_max_markdown_count markdowns. Grace 2 s.
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/liveness/failure_reporter.h"
#include "cluster/liveness/liveness_keys.h"
#include "cluster/liveness/monitor.h"
#include "cluster/liveness/osd_registration.h"
#include "cluster/map/map_store.h"

namespace ec::cluster {
namespace {

using FrClock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kFrPrefix = "/ecstore/";
constexpr milliseconds kFrGrace{2000};

class FailureReportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status st = server_.Start();
    ASSERT_TRUE(st.ok()) << st.ToString();
    client_ = std::make_unique<etcd::Client>(server_.client_options());
    store_ = std::make_unique<MapStore>(client_.get(), kFrPrefix);
  }

  RegistrationOptions Reg(int id, const std::string& host) {
    RegistrationOptions o;
    o.osd_id = id;
    o.addr = "127.0.0.1:" + std::to_string(6900 + id);
    o.host = host;
    o.uuid = "u-" + std::to_string(id);
    o.prefix = kFrPrefix;
    o.grace = kFrGrace;
    o.boot_timeout = seconds(10);
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_ += line + "\n";
    };
    return o;
  }
  MonitorOptions Mon() {
    MonitorOptions o;
    o.name = "mon";
    o.prefix = kFrPrefix;
    o.grace = kFrGrace;
    o.log = [this](const std::string& line) {
      std::lock_guard<std::mutex> lock(log_mu_);
      log_ += line + "\n";
    };
    return o;
  }
  std::string Log() {
    std::lock_guard<std::mutex> lock(log_mu_);
    return log_;
  }
  ClusterMap Map() {
    auto m = store_->Load();
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    return m.ok() ? *m : ClusterMap{};
  }
  // Polls until `pred` holds: the time it took, or -1 ms after `limit`.
  milliseconds Until(const std::function<bool()>& pred, milliseconds limit) {
    const auto start = FrClock::now();
    while (FrClock::now() - start < limit) {
      if (pred()) return std::chrono::duration_cast<milliseconds>(FrClock::now() - start);
      std::this_thread::sleep_for(milliseconds(50));
    }
    return milliseconds(-1);
  }
  // Writes a report of `target` by `reporter`, failing for 3 s, bound to the reporter's lease.
  void Report(int target, const OsdRegistration& reporter, int reporter_id) {
    FailureReport r;
    r.target = target;
    r.reporter = reporter_id;
    r.target_up_stamp_ms = Map().osds.at(target).up_stamp_ms;
    r.stamp_ms = WallClockMs();
    r.failed_since_ms = r.stamp_ms - 3000;
    auto put = client_->Put(etcd::PutRequest{FailureKey(kFrPrefix, target, reporter_id),
                                             EncodeFailure(r), reporter.state().lease});
    ASSERT_TRUE(put.ok()) << put.status().ToString();
  }

  etcd::testing::EtcdServer server_;
  std::unique_ptr<etcd::Client> client_;
  std::unique_ptr<MapStore> store_;
  std::mutex log_mu_;
  std::string log_;
};

TEST_F(FailureReportsTest, ReporterKeysFollowTheWantedSetAndTheLease) {
  FailureReporterOptions o;
  o.osd_id = 4;
  o.prefix = kFrPrefix;
  o.grace = kFrGrace;
  auto reporter = FailureReporter::Start(server_.client_options(), o);
  ASSERT_TRUE(reporter.ok()) << reporter.status().ToString();
  auto lease = client_->LeaseGrantTtl(2);
  ASSERT_TRUE(lease.ok());
  const std::string key = FailureKey(kFrPrefix, 1, 4);
  (*reporter)->Set({WantedReport{1, 77, WallClockMs() - 2500}}, lease->id);
  ASSERT_GE(Until([&] { return client_->Get(key).ok(); }, seconds(2)).count(), 0);
  auto kv = client_->Get(key);
  ASSERT_TRUE(kv.ok());
  EXPECT_EQ(kv->lease, lease->id);
  auto r = DecodeFailure(kFrPrefix, key, kv->value);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->target, 1);
  EXPECT_EQ(r->reporter, 4);
  EXPECT_EQ(r->target_up_stamp_ms, 77);
  EXPECT_LE(WallClockMs() - r->stamp_ms, 1000);
  // Rewritten every third of the grace, with a new stamp, while the lease is renewed.
  const std::int64_t first_stamp = r->stamp_ms;
  const milliseconds rewritten = Until(
      [&] {
        (void)client_->LeaseKeepAlive(lease->id);
        auto again = client_->Get(key);
        if (!again.ok()) return false;
        auto d = DecodeFailure(kFrPrefix, key, again->value);
        return d.ok() && d->stamp_ms > first_stamp;
      },
      seconds(3));
  EXPECT_GE(rewritten.count(), 0);
  // Withdrawn when no longer wanted, written again when wanted again.
  (*reporter)->Set({}, lease->id);
  EXPECT_GE(Until([&] { return client_->Get(key).status().code() == ENOENT; }, seconds(2)).count(),
            0);
  (*reporter)->Set({WantedReport{1, 77, WallClockMs() - 2500}}, lease->id);
  ASSERT_GE(Until([&] { return client_->Get(key).ok(); }, seconds(2)).count(), 0);
  // Lease 0 (this OSD is down): nothing reported.
  (*reporter)->Set({WantedReport{1, 77, WallClockMs() - 2500}}, 0);
  EXPECT_GE(Until([&] { return client_->Get(key).status().code() == ENOENT; }, seconds(2)).count(),
            0);
  // A dead reporter's lease takes its reports with it.
  (*reporter)->Set({WantedReport{1, 77, WallClockMs() - 2500}}, lease->id);
  ASSERT_GE(Until([&] { return client_->Get(key).ok(); }, seconds(2)).count(), 0);
  ASSERT_TRUE(client_->LeaseRevoke(lease->id).ok());
  EXPECT_EQ(client_->Get(key).status().code(), ENOENT);
  // Stop withdraws what it wrote.
  auto lease2 = client_->LeaseGrantTtl(2);
  ASSERT_TRUE(lease2.ok());
  (*reporter)->Set({WantedReport{1, 78, WallClockMs() - 2500}}, lease2->id);
  ASSERT_GE(Until([&] { return client_->Get(key).ok(); }, seconds(2)).count(), 0);
  (*reporter)->Stop();
  EXPECT_EQ(client_->Get(key).status().code(), ENOENT) << "Stop withdraws its reports";
  EXPECT_GE((*reporter)->state().puts, 4);
}

TEST_F(FailureReportsTest, MonitorMarksDownOnReportsFromTwoHostsOnly) {
  // osd.0 on h0, osd.1 and osd.2 on h1, osd.3 on h3.
  std::vector<std::unique_ptr<OsdRegistration>> regs;
  std::atomic<bool> peers_answer{false};
  for (const auto& [id, host] :
       std::vector<std::pair<int, std::string>>{{0, "h0"}, {1, "h1"}, {2, "h1"}, {3, "h3"}}) {
    RegistrationOptions o = Reg(id, host);
    if (id == 0) o.may_boot = [&] { return peers_answer.load(); };
    auto r = OsdRegistration::Start(server_.client_options(), o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    regs.push_back(std::move(*r));
  }
  auto mon = Monitor::Start(server_.client_options(), Mon());
  ASSERT_TRUE(mon.ok());
  ASSERT_GE(Until([&] { return (*mon)->is_leader(); }, seconds(3)).count(), 0);
  // Two reporters on one host: not enough (mon_osd_min_down_reporters 2, subtree host).
  Report(0, *regs[1], 1);
  Report(0, *regs[2], 2);
  std::this_thread::sleep_for(milliseconds(1500));  // three monitor ticks
  EXPECT_TRUE(Map().osds.at(0).up);
  const std::int64_t epoch_before = Map().epoch;
  // A reporter on a second host: down within a tick or two, in one epoch. A report counts for
  // the grace (2 s) after its stamp, and real reporters renew theirs every tick: the first two
  // are renewed here too (once, a loaded machine took more than the 0.5 s left of theirs
  // between the sleep above and the monitor's next tick).
  Report(0, *regs[1], 1);
  Report(0, *regs[2], 2);
  Report(0, *regs[3], 3);
  const milliseconds took = Until([&] { return !Map().osds.at(0).up; }, seconds(3));
  ASSERT_GE(took.count(), 0) << Log();
  EXPECT_EQ((*mon)->state().marked_down_by_reports, 1);
  EXPECT_NE(Log().find("osd.0 failed (root=default,host=h0) (2 reporters from different host"),
            std::string::npos)
      << Log();
  // The reported OSD: "wrongly marked me down", then it waits for its peers.
  ASSERT_GE(Until([&] { return regs[0]->state().waiting_healthy; }, seconds(2)).count(), 0)
      << Log();
  EXPECT_NE(Log().find("osd.0: the map wrongly marked me down"), std::string::npos) << Log();
  EXPECT_GE(Map().epoch, epoch_before + 1);
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_FALSE(Map().osds.at(0).up) << "booted again while its peers did not answer";
  EXPECT_NE(Log().find("not booting again until enough of its peers answer"), std::string::npos);
  // Its peers answer: it boots again, and the reports (of its previous boot) no longer count.
  peers_answer = true;
  ASSERT_GE(Until([&] { return Map().osds.at(0).up; }, seconds(3)).count(), 0) << Log();
  // The registration counts the boot after etcd applied it: the map may show it a moment before.
  ASSERT_GE(Until([&] { return regs[0]->state().boots == 2; }, seconds(2)).count(), 0) << Log();
  EXPECT_EQ(regs[0]->state().markdowns, 1);
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_TRUE(Map().osds.at(0).up) << "marked down again on reports of its previous boot";
  EXPECT_EQ((*mon)->state().marked_down_by_reports, 1);
}

TEST_F(FailureReportsTest, SeveralReportedOsdsGoDownInOneEpoch) {
  std::vector<std::unique_ptr<OsdRegistration>> regs;
  for (int id = 0; id < 4; ++id) {
    RegistrationOptions o = Reg(id, "h" + std::to_string(id));
    o.may_boot = [] { return false; };  // stay down once marked down: one epoch to look at
    auto r = OsdRegistration::Start(server_.client_options(), o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    regs.push_back(std::move(*r));
  }
  for (int target : {0, 1})
    for (int reporter : {2, 3}) Report(target, *regs[reporter], reporter);
  // osd.0 and osd.1 report each other too: one reporter each, and theirs stop counting once the
  // first of them is down.
  Report(0, *regs[1], 1);
  Report(1, *regs[0], 0);
  const std::int64_t epoch_before = Map().epoch;
  auto mon = Monitor::Start(server_.client_options(), Mon());
  ASSERT_TRUE(mon.ok());
  ASSERT_GE(Until(
                [&] {
                  const ClusterMap m = Map();
                  return !m.osds.at(0).up && !m.osds.at(1).up;
                },
                seconds(4))
                .count(),
            0)
      << Log();
  const ClusterMap m = Map();
  EXPECT_TRUE(m.osds.at(2).up && m.osds.at(3).up);
  // The two downs in one epoch.
  EXPECT_EQ((*mon)->state().marked_down_by_reports, 2);
  EXPECT_EQ(m.osds.at(0).down_stamp_ms, m.osds.at(1).down_stamp_ms);
  EXPECT_EQ(m.epoch, epoch_before + 1) << Log();
}

TEST_F(FailureReportsTest, TooManyMarkdownsAndTheOsdGivesUp) {
  RegistrationOptions o = Reg(5, "h5");
  o.max_markdown_count = 2;
  o.max_markdown_period = seconds(60);
  auto r = OsdRegistration::Start(server_.client_options(), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (int round = 1; round <= 2; ++round) {
    ASSERT_TRUE(store_->Apply({MapChange::OsdDown(5, WallClockMs())}).ok());
    (*r)->Kick();
    ASSERT_GE(Until([&] { return Map().osds.at(5).up; }, seconds(4)).count(), 0)
        << "round " << round << "\n"
        << Log();
    EXPECT_EQ((*r)->state().markdowns, round);
  }
  ASSERT_TRUE(store_->Apply({MapChange::OsdDown(5, WallClockMs())}).ok());
  (*r)->Kick();
  ASSERT_GE(Until([&] { return (*r)->state().gave_up; }, seconds(2)).count(), 0) << Log();
  EXPECT_NE(Log().find("osd.5: marked down 3 > osd_max_markdown_count 2 in the last 60 s"),
            std::string::npos)
      << Log();
  std::this_thread::sleep_for(milliseconds(1500));
  EXPECT_FALSE(Map().osds.at(5).up) << "booted again after giving up";
  EXPECT_EQ((*r)->state().boots, 3);
}

}  // namespace
}  // namespace ec::cluster
