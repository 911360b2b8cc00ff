// The watch against a real etcd: order, start revision, lease expiry, compaction, and a restart
// of etcd in the middle of a watch.
#include "cluster/etcd/etcd_watch.h"

#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_test_server.h"

namespace ec::etcd {
namespace {

using testing::EtcdServer;

// Collects events and errors from a watch's thread.
struct Sink {
  std::mutex mu;
  std::vector<Event> events;
  std::vector<Status> errors;

  Watch::EventCallback OnEvent() {
    return [this](const Event& e) {
      std::lock_guard lock(mu);
      events.push_back(e);
    };
  }
  Watch::ErrorCallback OnError() {
    return [this](const Status& s) {
      std::lock_guard lock(mu);
      errors.push_back(s);
    };
  }
  // Waits until n events arrived (or 10 s passed); returns a copy.
  std::vector<Event> WaitFor(std::size_t n,
                             std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      {
        std::lock_guard lock(mu);
        if (events.size() >= n) return events;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::lock_guard lock(mu);
    return events;
  }
  bool HasError(int code) {
    std::lock_guard lock(mu);
    for (const Status& s : errors) {
      if (s.code() == code) return true;
    }
    return false;
  }
};

class EtcdWatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status s = server_.Start();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  EtcdServer server_;
};

TEST_F(EtcdWatchTest, FromStartRevisionSeesEveryEventInOrder) {
  Client c(server_.client_options());
  std::vector<std::int64_t> revs;
  for (int i = 0; i < 5; ++i) {
    auto p = c.Put({"/w/" + std::to_string(i), "v" + std::to_string(i), 0});
    ASSERT_TRUE(p.ok());
    revs.push_back(p->revision);
  }
  ASSERT_TRUE(c.Put({"/other", "x", 0}).ok());  // outside the prefix
  auto d = c.DeleteRange({"/w/0", {}});
  ASSERT_TRUE(d.ok());

  Sink sink;
  Watch w(server_.client_options(), WatchOptions{"/w/", PrefixEnd("/w/"), revs[0], 1u << 20},
          sink.OnEvent(), sink.OnError());
  // A txn writes two keys at one revision: both events arrive.
  TxnRequest t;
  t.success = {TxnOp::Put("/w/t1", "a"), TxnOp::Put("/w/t2", "b")};
  auto tr = c.Txn(t);
  ASSERT_TRUE(tr.ok());
  auto events = sink.WaitFor(8);
  ASSERT_EQ(events.size(), 8u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(events[i].type, Event::Type::kPut);
    EXPECT_EQ(events[i].kv.key, "/w/" + std::to_string(i));
    EXPECT_EQ(events[i].kv.value, "v" + std::to_string(i));
    EXPECT_EQ(events[i].kv.mod_revision, revs[i]);
  }
  EXPECT_EQ(events[5].type, Event::Type::kDelete);
  EXPECT_EQ(events[5].kv.key, "/w/0");
  EXPECT_EQ(events[5].kv.mod_revision, d->revision);
  EXPECT_EQ(events[6].kv.key, "/w/t1");
  EXPECT_EQ(events[7].kv.key, "/w/t2");
  EXPECT_EQ(events[6].kv.mod_revision, tr->revision);
  EXPECT_EQ(events[7].kv.mod_revision, tr->revision);
  EXPECT_EQ(w.next_revision(), tr->revision + 1);
  w.Stop();
  EXPECT_EQ(sink.WaitFor(9, std::chrono::milliseconds(100)).size(), 8u);
}

TEST_F(EtcdWatchTest, LeaseExpirySeenAsDelete) {
  Client c(server_.client_options());
  Sink sink;
  Watch w(server_.client_options(), WatchOptions{"/live/1", {}, 0, 1u << 20}, sink.OnEvent(),
          sink.OnError());
  // A watch from "now" only sees writes after it was created; wait for that.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (w.next_revision() == 0 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(w.next_revision(), 0);
  auto lease = c.LeaseGrantTtl(1);
  ASSERT_TRUE(lease.ok()) << lease.status().ToString();
  ASSERT_TRUE(c.Put({"/live/1", "up", lease->id}).ok());
  auto events = sink.WaitFor(2);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].type, Event::Type::kPut);
  EXPECT_EQ(events[0].kv.lease, lease->id);
  EXPECT_EQ(events[1].type, Event::Type::kDelete);
  EXPECT_EQ(events[1].kv.key, "/live/1");
}

TEST_F(EtcdWatchTest, RestartOfEtcdMidWatchMissesNothing) {
  Client c(server_.client_options());
  Sink sink;
  auto first = c.Put({"/r/0", "0", 0});
  ASSERT_TRUE(first.ok());
  Watch w(server_.client_options(),
          WatchOptions{"/r/", PrefixEnd("/r/"), first->revision, 1u << 20}, sink.OnEvent(),
          sink.OnError());
  for (int i = 1; i < 5; ++i) ASSERT_TRUE(c.Put({"/r/" + std::to_string(i), "v", 0}).ok());
  ASSERT_EQ(sink.WaitFor(5).size(), 5u);

  server_.Kill();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the watch sees the break
  Status s = server_.Restart();
  ASSERT_TRUE(s.ok()) << s.ToString();
  // Written right after the restart, most likely before the watch reconnected.
  for (int i = 5; i < 10; ++i) ASSERT_TRUE(c.Put({"/r/" + std::to_string(i), "v", 0}).ok());
  ASSERT_TRUE(c.DeleteRange({"/r/2", {}}).ok());
  // A second crash and restart while events keep coming.
  server_.Kill();
  ASSERT_TRUE(server_.Restart().ok());
  for (int i = 10; i < 15; ++i) ASSERT_TRUE(c.Put({"/r/" + std::to_string(i), "v", 0}).ok());

  auto events = sink.WaitFor(16);
  ASSERT_EQ(events.size(), 16u);
  std::int64_t prev = 0;
  int put = 0;
  for (const Event& e : events) {
    EXPECT_GT(e.kv.mod_revision, prev) << "out of order or repeated";
    prev = e.kv.mod_revision;
    if (e.type == Event::Type::kPut) {
      EXPECT_EQ(e.kv.key, "/r/" + std::to_string(put));
      ++put;
    } else {
      EXPECT_EQ(e.kv.key, "/r/2");
    }
  }
  EXPECT_EQ(put, 15);
  EXPECT_TRUE(sink.HasError(ECONNRESET) || sink.HasError(ECONNREFUSED));
  EXPECT_FALSE(w.finished());
  // Nothing more arrives: no replay after the reconnect.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(sink.WaitFor(17, std::chrono::milliseconds(10)).size(), 16u);
}

TEST_F(EtcdWatchTest, CompactedStartRevisionIsReportedAndEndsTheWatch) {
  Client c(server_.client_options());
  std::int64_t rev = 0;
  for (int i = 0; i < 5; ++i) rev = c.Put({"/c", std::to_string(i), 0})->revision;
  auto compact = c.Call("/v3/kv/compaction", {{"revision", std::to_string(rev)}}, false);
  ASSERT_TRUE(compact.ok()) << compact.status().ToString();
  // Reading below the compaction is ERANGE too.
  EXPECT_EQ(c.Range({"/c", {}, 0, rev - 2}).status().code(), ERANGE);

  Sink sink;
  Watch w(server_.client_options(), WatchOptions{"/c", {}, rev - 2, 1u << 20}, sink.OnEvent(),
          sink.OnError());
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!w.finished() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(w.finished());
  EXPECT_TRUE(sink.HasError(ERANGE));
  EXPECT_TRUE(sink.WaitFor(1, std::chrono::milliseconds(10)).empty());
}

TEST(EtcdWatchStop, StopsPromptlyWhileEtcdIsDown) {
  Sink sink;
  ClientOptions o;
  o.endpoints = {Endpoint{"127.0.0.1", EtcdServer::FreePort()}};
  o.timeout = std::chrono::milliseconds(200);
  auto w = std::make_unique<Watch>(o, WatchOptions{"/a", {}, 0, 1u << 20}, sink.OnEvent(),
                                   sink.OnError());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto start = std::chrono::steady_clock::now();
  w.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  EXPECT_TRUE(sink.HasError(ECONNREFUSED));
}

}  // namespace
}  // namespace ec::etcd
