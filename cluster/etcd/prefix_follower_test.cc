// The prefix follower against a real etcd: what makes it load again and what does not, a load
// the caller made, failed loads retried, and etcd restarted under it.
#include "cluster/etcd/prefix_follower.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_test_server.h"

namespace ec::etcd {
namespace {

using namespace std::chrono_literals;
using testing::EtcdServer;

// What the follower's loads saw: the number of keys under /f/ at each successful load.
struct Loads {
  std::mutex mu;
  std::vector<std::size_t> keys;
  std::vector<Status> errors;
  int fail_next = 0;  // loads to fail (EIO) before reading

  PrefixFollower::LoadCallback Load(const Client& client) {
    return [this, &client]() -> Result<std::int64_t> {
      {
        std::lock_guard lock(mu);
        if (fail_next > 0) {
          --fail_next;
          return Status::IOError("a load that fails");
        }
      }
      auto r = client.GetPrefix("/f/");
      if (!r.ok()) return r.status();
      std::lock_guard lock(mu);
      keys.push_back(r->kvs.size());
      return r->revision;
    };
  }
  PrefixFollower::ErrorCallback OnError() {
    return [this](const Status& s) {
      std::lock_guard lock(mu);
      errors.push_back(s);
    };
  }
  // Waits (up to 10 s) for a load that saw `n` keys; the loads so far.
  std::vector<std::size_t> WaitForKeys(std::size_t n) {
    const auto until = std::chrono::steady_clock::now() + 10s;
    while (std::chrono::steady_clock::now() < until) {
      {
        std::lock_guard lock(mu);
        if (!keys.empty() && keys.back() == n) return keys;
      }
      std::this_thread::sleep_for(10ms);
    }
    std::lock_guard lock(mu);
    return keys;
  }
  std::size_t count() {
    std::lock_guard lock(mu);
    return keys.size();
  }
};

PrefixFollower::Options Follow(std::int64_t loaded_revision = 0) {
  PrefixFollower::Options o;
  o.prefix = "/f/";
  o.retry = 50ms;
  o.loaded_revision = loaded_revision;
  o.thread_name = "follow-test";
  return o;
}

class PrefixFollowerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = server_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  EtcdServer server_;
};

TEST_F(PrefixFollowerTest, LoadsFirstThenAgainOnlyForChangesUnderThePrefix) {
  Client c(server_.client_options());
  ASSERT_TRUE(c.Put({"/f/a", "1", 0}).ok());
  Loads loads;
  PrefixFollower f(server_.client_options(), Follow(), loads.Load(c), loads.OnError());
  EXPECT_EQ(loads.WaitForKeys(1), (std::vector<std::size_t>{1}));
  ASSERT_TRUE(c.Put({"/f/b", "2", 0}).ok());
  EXPECT_EQ(loads.WaitForKeys(2).back(), 2u);
  const std::size_t before = loads.count();
  // Outside the prefix ("/f0" sorts after every "/f/..." key): no load.
  ASSERT_TRUE(c.Put({"/g/x", "3", 0}).ok());
  ASSERT_TRUE(c.Put({"/f0", "4", 0}).ok());
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(loads.count(), before);
  ASSERT_TRUE(c.DeleteRange({"/f/a", {}}).ok());
  EXPECT_EQ(loads.WaitForKeys(1).back(), 1u);
  f.Stop();
  f.Stop();  // idempotent
  const std::size_t stopped = loads.count();
  ASSERT_TRUE(c.Put({"/f/c", "5", 0}).ok());
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(loads.count(), stopped);  // nothing after Stop
}

TEST_F(PrefixFollowerTest, ACallersLoadIsNotRepeatedAndChangesSinceItAreNotMissed) {
  Client c(server_.client_options());
  auto first = c.Put({"/f/a", "1", 0});
  ASSERT_TRUE(first.ok());
  // A change after the caller's load but before the follower's watch exists: still seen.
  ASSERT_TRUE(c.Put({"/f/b", "2", 0}).ok());
  Loads loads;
  PrefixFollower f(server_.client_options(), Follow(first->revision), loads.Load(c),
                   loads.OnError());
  EXPECT_EQ(loads.WaitForKeys(2), (std::vector<std::size_t>{2}));  // one load, not two
}

TEST_F(PrefixFollowerTest, FailedLoadsAreReportedAndRetriedAndARestartOfEtcdMissesNothing) {
  Client c(server_.client_options());
  Loads loads;
  loads.fail_next = 3;
  PrefixFollower f(server_.client_options(), Follow(), loads.Load(c), loads.OnError());
  EXPECT_EQ(loads.WaitForKeys(0), (std::vector<std::size_t>{0}));
  {
    std::lock_guard lock(loads.mu);
    ASSERT_EQ(loads.errors.size(), 3u);
    EXPECT_EQ(loads.errors[0].code(), EIO);
  }
  server_.Kill();
  std::this_thread::sleep_for(200ms);
  ASSERT_TRUE(server_.Restart().ok());
  ASSERT_TRUE(c.Put({"/f/after", "1", 0}).ok());
  EXPECT_EQ(loads.WaitForKeys(1).back(), 1u);
}

}  // namespace
}  // namespace ec::etcd
