// ConfigWatcher against a real etcd: the first state, each change within a moment as a whole
// state, nothing delivered twice, keys that are not settings, and a restart of etcd in between.
#include "cluster/config/config_watcher.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_test_server.h"

namespace ec::cluster {
namespace {

using std::chrono::milliseconds;

// The states a watcher delivered, and its errors.
struct Sink {
  std::mutex mu;
  std::vector<ConfigDb> states;
  std::vector<Status> errors;

  ConfigWatcher::ChangeCallback OnChange() {
    return [this](const ConfigDb& db) {
      std::lock_guard lock(mu);
      states.push_back(db);
    };
  }
  ConfigWatcher::ErrorCallback OnError() {
    return [this](const Status& st) {
      std::lock_guard lock(mu);
      errors.push_back(st);
    };
  }

  // Waits until a delivered state satisfies `done` (2 s); the number of states then, or 0.
  std::size_t WaitFor(const std::function<bool(const ConfigDb&)>& done,
                      milliseconds limit = milliseconds(2000)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    for (;;) {
      {
        std::lock_guard lock(mu);
        if (!states.empty() && done(states.back())) return states.size();
      }
      if (std::chrono::steady_clock::now() > until) return 0;
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
};

bool Has(const ConfigDb& db, const MonSetting& s) {
  for (const MonSetting& m : db.settings) {
    if (m == s) return true;
  }
  return false;
}

TEST(ConfigWatcher, DeliversEveryChangeAsAWholeState) {
  etcd::testing::EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  etcd::Client client(server.client_options());
  ASSERT_TRUE(PutConfig(client, "/w/", "global", "osd_max_backfills", "2").ok());
  Sink sink;
  ConfigWatcher watcher(server.client_options(), "/w/", sink.OnChange(), sink.OnError());
  ASSERT_EQ(sink.WaitFor([](const ConfigDb& db) {
    return Has(db, {"global", "osd_max_backfills", "2"});
  }),
            1u);

  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(PutConfig(client, "/w/", "osd.1", "osd_max_backfills", "4").ok());
  EXPECT_EQ(sink.WaitFor([](const ConfigDb& db) {
    return Has(db, {"osd.1", "osd_max_backfills", "4"}) &&
           Has(db, {"global", "osd_max_backfills", "2"});
  }),
            2u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, milliseconds(1000));

  // The same value again changes nothing: no new state. Another prefix is not watched.
  ASSERT_TRUE(PutConfig(client, "/w/", "osd.1", "osd_max_backfills", "4").ok());
  ASSERT_TRUE(PutConfig(client, "/x/", "osd.1", "osd_max_backfills", "9").ok());
  ASSERT_TRUE(DeleteConfig(client, "/w/", "global", "osd_max_backfills").ok());
  EXPECT_EQ(sink.WaitFor([](const ConfigDb& db) { return db.settings.size() == 1; }), 3u);

  // A key that is not a setting is delivered as such.
  ASSERT_TRUE(client.Put(etcd::PutRequest{"/w/config/mon/x", "1", 0}).ok());
  EXPECT_EQ(sink.WaitFor([](const ConfigDb& db) { return db.bad.size() == 1; }), 4u);

  // etcd killed and restarted: the watch reconnects, and a change made after is delivered.
  server.Kill();
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_TRUE(server.Restart().ok());
  ASSERT_TRUE(PutConfig(client, "/w/", "osd", "log_level", "debug").ok());
  EXPECT_GT(sink.WaitFor(
                [](const ConfigDb& db) {
                  return Has(db, {"osd", "log_level", "debug"});
                },
                milliseconds(5000)),
            4u);
  watcher.Stop();
  std::lock_guard lock(sink.mu);
  EXPECT_FALSE(sink.errors.empty());  // the reconnects were reported
}

TEST(ConfigWatcher, RetriesUntilEtcdAnswers) {
  etcd::testing::EtcdServer server;
  ASSERT_TRUE(server.Start().ok());
  etcd::ClientOptions options = server.client_options();
  options.timeout = milliseconds(300);
  server.Kill();
  Sink sink;
  ConfigWatcher watcher(options, "/r/", sink.OnChange(), sink.OnError(), milliseconds(100));
  std::this_thread::sleep_for(milliseconds(400));
  {
    std::lock_guard lock(sink.mu);
    EXPECT_TRUE(sink.states.empty());
    EXPECT_FALSE(sink.errors.empty());
  }
  ASSERT_TRUE(server.Restart().ok());
  etcd::Client client(server.client_options());
  ASSERT_TRUE(PutConfig(client, "/r/", "osd", "osd_max_scrubs", "2").ok());
  EXPECT_GT(sink.WaitFor(
                [](const ConfigDb& db) {
                  return Has(db, {"osd", "osd_max_scrubs", "2"});
                },
                milliseconds(5000)),
            0u);
}

}  // namespace
}  // namespace ec::cluster
