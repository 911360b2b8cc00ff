// RuntimeConfig in-process: a live option's change applied and reported at once, a restart-only
// one kept for the next start and reported as ignored, bad settings from etcd ignored and logged
// once, a settings state that does not resolve changing nothing, and what is published.
#include "osd/daemon/runtime_config.h"

#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/ostream_sink.h>

#include <sstream>
#include <string>
#include <vector>

namespace ec::osd::daemon {
namespace {

const char kFile[] = "[osd]\nosd_max_backfills = 2\n";

struct Harness {
  std::ostringstream logged;
  std::vector<OsdConfig> applied;
  std::vector<cluster::RunningConfig> published;
  std::unique_ptr<RuntimeConfig> rt;

  explicit Harness(const std::vector<MonSetting>& at_start = {}) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(logged);
    auto log = std::make_shared<spdlog::logger>("t", sink);
    Result<OsdConfig> started = ParseOsdConfig(kFile, "t.conf", 1, {}, at_start);
    EXPECT_TRUE(started.ok());
    RuntimeConfig::Hooks hooks;
    hooks.apply = [this](const OsdConfig& c) { applied.push_back(c); };
    hooks.publish = [this](const cluster::RunningConfig& r) {
      published.push_back(r);
      return Status::OK();
    };
    hooks.now_ms = [] { return std::int64_t{1234}; };
    rt = std::make_unique<RuntimeConfig>(kFile, "t.conf", 1, std::vector<ConfigOverride>{},
                                         *started, at_start, hooks, log);
  }
  const cluster::RunningOption& Option(const std::string& name) {
    static cluster::RunningConfig last;
    last = rt->Report();
    for (const cluster::RunningOption& o : last.options) {
      if (o.name == name) return o;
    }
    ADD_FAILURE() << name;
    return last.options.front();
  }
};

using Overrides = std::vector<std::pair<std::string, std::string>>;

TEST(RuntimeConfig, ALiveOptionIsAppliedAndReported) {
  Harness h;
  EXPECT_EQ(h.Option("osd_max_backfills").value, "2");
  EXPECT_EQ(h.Option("osd_max_backfills").source, "file");
  h.rt->Update({{"osd", "osd_max_backfills", "4"}});
  ASSERT_EQ(h.applied.size(), 1u);
  EXPECT_EQ(h.applied[0].osd_max_backfills, 4u);
  ASSERT_EQ(h.published.size(), 1u);
  EXPECT_EQ(h.published[0].osd, 1);
  EXPECT_EQ(h.published[0].stamp_ms, 1234);
  EXPECT_EQ(h.published[0].options.size(), OsdOptionTable().size());
  const cluster::RunningOption& o = h.Option("osd_max_backfills");
  EXPECT_EQ(o.value, "4");
  EXPECT_EQ(o.source, "mon");
  EXPECT_EQ(o.overrides, (Overrides{{"file", "2"}}));
  EXPECT_FALSE(o.ignores_mon);
  EXPECT_NE(h.logged.str().find("config: osd_max_backfills = 4 (mon osd), was 2 ([osd])"),
            std::string::npos)
      << h.logged.str();
  EXPECT_EQ(h.rt->StatusJson()["osd_max_backfills"],
            nlohmann::json({{"value", "4"}, {"origin", "mon osd"}, {"source", "mon"}}));

  // The same state again: nothing to do. osd.1 over osd; then removed: back to the file's.
  h.rt->Update({{"osd", "osd_max_backfills", "4"}});
  EXPECT_EQ(h.applied.size(), 1u);
  EXPECT_EQ(h.published.size(), 1u);
  h.rt->Update({{"osd", "osd_max_backfills", "4"}, {"osd.1", "osd_max_backfills", "6"}});
  ASSERT_EQ(h.applied.size(), 2u);
  EXPECT_EQ(h.applied[1].osd_max_backfills, 6u);
  h.rt->Update({});
  ASSERT_EQ(h.applied.size(), 3u);
  EXPECT_EQ(h.applied[2].osd_max_backfills, 2u);
  EXPECT_EQ(h.Option("osd_max_backfills").source, "file");
  EXPECT_EQ(h.published.size(), 3u);
}

TEST(RuntimeConfig, ARestartOnlyOptionWaitsForTheNextStart) {
  Harness h;
  h.rt->Update({{"osd", "osd_op_num_threads", "4"}});
  EXPECT_TRUE(h.applied.empty());
  ASSERT_EQ(h.published.size(), 1u);
  const cluster::RunningOption& o = h.Option("osd_op_num_threads");
  EXPECT_EQ(o.value, "8");
  EXPECT_EQ(o.source, "default");
  EXPECT_EQ(o.overrides, (Overrides{{"mon", "4"}}));
  EXPECT_TRUE(o.ignores_mon);
  EXPECT_EQ(h.rt->StatusJson()["osd_op_num_threads"]["pending"], "4");
  EXPECT_NE(h.logged.str().find("config: at the next start: osd_op_num_threads = 4 (mon osd) "
                                "cannot change at runtime: running with 8 (default)"),
            std::string::npos)
      << h.logged.str();
  // A live change beside it applies; the pending one stays pending, logged once.
  h.rt->Update({{"osd", "osd_op_num_threads", "4"}, {"osd", "osd_scrub_sleep", "1s"}});
  ASSERT_EQ(h.applied.size(), 1u);
  EXPECT_EQ(h.applied[0].osd_scrub_sleep, std::chrono::seconds(1));
  EXPECT_TRUE(h.Option("osd_op_num_threads").ignores_mon);
  const std::string log = h.logged.str();
  EXPECT_EQ(log.find("osd_op_num_threads = 4"), log.rfind("osd_op_num_threads = 4")) << log;
  // Removed again: nothing pending any more.
  h.rt->Update({{"osd", "osd_scrub_sleep", "1s"}});
  EXPECT_FALSE(h.Option("osd_op_num_threads").ignores_mon);
  EXPECT_TRUE(h.Option("osd_op_num_threads").overrides.empty());
  EXPECT_EQ(h.published.size(), 3u);
}

TEST(RuntimeConfig, TheStartTakesWhatEtcdHeld) {
  Harness h({{"osd", "osd_op_num_threads", "4"}});
  const cluster::RunningOption& o = h.Option("osd_op_num_threads");
  EXPECT_EQ(o.value, "4");
  EXPECT_EQ(o.source, "mon");
  EXPECT_FALSE(o.ignores_mon);
  h.rt->Update({{"osd", "osd_op_num_threads", "4"}});  // as at start: nothing
  EXPECT_TRUE(h.published.empty());
}

TEST(RuntimeConfig, BadSettingsAreIgnoredAndLoggedOnce) {
  Harness h;
  h.rt->Update({{"osd", "osd_max_backfills", "lots"}});
  h.rt->Update({{"osd", "osd_max_backfills", "lots"}, {"osd", "osd_scrub_sleep", "2s"}});
  ASSERT_EQ(h.applied.size(), 1u);
  EXPECT_EQ(h.applied[0].osd_max_backfills, 2u);  // the file's, untouched
  const std::string log = h.logged.str();
  const std::string line = "config: ignored: config osd/osd_max_backfills = 'lots': not an integer";
  EXPECT_NE(log.find(line), std::string::npos) << log;
  EXPECT_EQ(log.find(line), log.rfind(line)) << log;

  // A state that does not resolve as a whole changes nothing.
  h.rt->Update({{"osd", "log_level", "debug"}, {"osd", "log_file", "$nope"}});
  EXPECT_EQ(h.applied.size(), 1u);
  EXPECT_EQ(h.Option("log_level").value, "info");
  EXPECT_NE(h.logged.str().find("do not resolve; keeping those in force"), std::string::npos);
}

}  // namespace
}  // namespace ec::osd::daemon
