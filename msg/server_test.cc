// The server and the client together: every operation, many requests in flight, concurrent
// clients, backpressure, timeouts, reconnection and a clean stop.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "msg/client.h"
#include "msg/io_threads.h"
#include "msg/server.h"
#include "msg/test_store.h"

namespace ec::msg {
namespace {

Buffer Pattern(std::size_t n, std::uint8_t seed) {
  Buffer b = Buffer::Allocate(n, false);
  for (std::size_t i = 0; i < n; ++i) b.data()[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  return b;
}

std::string Str(const Buffer& b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

struct Fixture {
  explicit Fixture(ServerOptions so = {}, MemoryShardStore::Options mo = {}) {
    store = std::make_shared<MemoryShardStore>(mo);
    auto s = Server::Start(std::move(so), store);
    EXPECT_TRUE(s.ok()) << s.status().message();
    server = std::move(s).value();
  }
  std::unique_ptr<OsdClient> Client(ClientOptions co = {}) {
    co.port = server->port();
    auto c = OsdClient::Create(std::move(co));
    EXPECT_TRUE(c.ok()) << c.status().message();
    return std::move(c).value();
  }
  std::shared_ptr<MemoryShardStore> store;
  std::unique_ptr<Server> server;
};

TEST(ServerTest, AllOperations) {
  Fixture f;
  ASSERT_NE(f.server->port(), 0);
  auto c = f.Client();
  ASSERT_TRUE(c->Connect().ok());

  Buffer data = Pattern(10000, 1);
  WriteShardRequest w{"pg.1", "obj", 3, 7, 0, kWriteReplace, {{"hinfo", "abc"}}};
  // The data travels as two buffers (gathered on the wire).
  ASSERT_TRUE(c->WriteShard(w, {data.Slice(0, 4000), data.Slice(4000, 6000)}).ok());

  auto st = c->Stat({"pg.1", "obj", 3});
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(st->size, 10000u);
  EXPECT_EQ(st->version, 7u);
  EXPECT_EQ(st->attrs, (std::vector<Attr>{{"hinfo", "abc"}}));

  auto rd = c->ReadShard({"pg.1", "obj", 3, {{0, 100}, {5000, 10}, {9990, 100}, {20000, 5}}});
  ASSERT_TRUE(rd.ok()) << rd.status().message();
  ASSERT_EQ(rd->extents.size(), 4u);
  EXPECT_EQ(Str(rd->extents[0]), Str(data.Slice(0, 100)));
  EXPECT_EQ(Str(rd->extents[1]), Str(data.Slice(5000, 10)));
  EXPECT_EQ(Str(rd->extents[2]), Str(data.Slice(9990, 10)));  // cut at the end of the shard
  EXPECT_TRUE(rd->extents[3].empty());
  EXPECT_EQ(rd->object_size, 10000u);
  EXPECT_EQ(rd->version, 7u);

  // Errors travel back with code and message; the connection stays usable.
  auto missing = c->Stat({"pg.1", "nope", 0});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ENOENT);
  EXPECT_NE(missing.status().message().find("nope"), std::string::npos);
  auto bad = c->ReadShard({"pg.1", "obj", 3, {}});  // no extents: refused by ValidateRequest
  EXPECT_EQ(bad.status().code(), EINVAL);

  // List in pages of 2 over 5 shards.
  for (std::uint32_t s = 0; s < 4; ++s) {
    ASSERT_TRUE(c->WriteShard({"pg.2", "o" + std::to_string(s), s, 1, 0, 0, {}}, {}).ok());
  }
  ASSERT_TRUE(c->WriteShard({"pg.2", "o0", 9, 1, 0, 0, {}}, {}).ok());
  std::vector<ListEntry> all;
  std::string cursor;
  int pages = 0;
  while (true) {
    auto page = c->List({"pg.2", cursor, 2});
    ASSERT_TRUE(page.ok()) << page.status().message();
    ++pages;
    all.insert(all.end(), page->entries.begin(), page->entries.end());
    if (page->end) break;
    cursor = page->next_cursor;
    ASSERT_LT(pages, 10);
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(all, (std::vector<ListEntry>{{"o0", 0}, {"o0", 9}, {"o1", 1}, {"o2", 2}, {"o3", 3}}));

  ASSERT_TRUE(c->Remove({"pg.2", "o1", 1}).ok());
  EXPECT_EQ(c->Remove({"pg.2", "o1", 1}).code(), ENOENT);
  EXPECT_EQ(c->Stat({"pg.2", "o1", 1}).status().code(), ENOENT);

  auto pong = c->Ping({Pattern(1000, 2)}, 4096);
  ASSERT_TRUE(pong.ok());
  EXPECT_EQ(pong->size(), 4096u);
  auto empty = c->Ping({}, 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  auto counters = f.server->counters();
  EXPECT_EQ(counters.requests[static_cast<int>(MsgType::kWriteShard)], 6u);
  EXPECT_EQ(counters.requests[static_cast<int>(MsgType::kPing)], 2u);
  EXPECT_EQ(counters.protocol_errors_total(), 0u);
  EXPECT_GT(counters.bytes_in, 10000u);
  EXPECT_EQ(counters.connections_open, 1u);
}

// Clients on shared IoThreads: both work, their completions run on the one shared thread, a
// client destroyed with a call in flight completes it exactly once, and the threads may be let go
// last from one of their own completions.
TEST(ServerTest, ClientsShareIoThreads) {
  Fixture a, b;
  auto io = IoThreads::Start(1, "test-io", 0, nullptr);
  ASSERT_TRUE(io.ok()) << io.status().message();
  std::shared_ptr<IoThreads> shared = std::move(io).value();
  ClientOptions co;
  co.shared_io = shared;
  co.io_threads = 64;  // ignored: the shared threads serve it
  auto ca = a.Client(co);
  auto cb = b.Client(co);
  ASSERT_TRUE(ca->WriteShard({"pg.1", "x", 0, 1, 0, kWriteReplace, {}}, {Pattern(100, 1)}).ok());
  ASSERT_TRUE(cb->WriteShard({"pg.1", "y", 0, 2, 0, kWriteReplace, {}}, {Pattern(100, 2)}).ok());
  EXPECT_EQ(ca->Stat({"pg.1", "x", 0}).value().version, 1u);
  EXPECT_EQ(cb->Stat({"pg.1", "y", 0}).value().version, 2u);
  EXPECT_EQ(cb->Stat({"pg.1", "x", 0}).status().code(), ENOENT);  // each reaches its own server
  std::promise<std::thread::id> ta, tb;
  ca->PingAsync({}, 0, [&](Result<Buffer>) { ta.set_value(std::this_thread::get_id()); });
  cb->PingAsync({}, 0, [&](Result<Buffer>) { tb.set_value(std::this_thread::get_id()); });
  const std::thread::id ida = ta.get_future().get();
  EXPECT_EQ(ida, tb.get_future().get());
  EXPECT_NE(ida, std::this_thread::get_id());

  // Destroyed with a call in flight: its completion comes exactly once (answered or ESHUTDOWN).
  std::atomic<int> calls{0};
  std::promise<Status> outcome;
  ca->PingAsync({Pattern(1 << 20, 3)}, 1 << 20, [&](Result<Buffer> r) {
    if (calls.fetch_add(1) == 0) outcome.set_value(r.status());
  });
  ca.reset();
  const Status s = outcome.get_future().get();
  EXPECT_TRUE(s.ok() || s.code() == ESHUTDOWN) << s.ToString();
  EXPECT_TRUE(cb->Ping({}, 0).ok());  // the other client is unaffected
  EXPECT_EQ(calls.load(), 1);

  // The last owner of the threads lets go inside a completion on one of them.
  std::promise<void> released;
  cb->PingAsync({}, 0, [keep = std::move(shared), &released](Result<Buffer>) mutable {
    keep.reset();
    released.set_value();
  });
  released.get_future().get();
  cb.reset();  // held the threads too: now they may stop (from their own thread or this one)
}

TEST(ServerTest, ManyInFlightAndConcurrentClients) {
  ServerOptions so;
  so.io_threads = 2;
  Fixture f(so, MemoryShardStore::Options{true, std::chrono::microseconds(0)});
  constexpr int kClients = 4, kPerClient = 200;
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < kClients; ++t) {
    threads.emplace_back([&, t] {
      ClientOptions co;
      co.connections = 2;
      auto c = f.Client(co);
      std::vector<std::future<Status>> writes;
      for (int i = 0; i < kPerClient; ++i) {
        auto p = std::make_shared<std::promise<Status>>();
        writes.push_back(p->get_future());
        c->WriteShardAsync({"pg." + std::to_string(t),
                            "o" + std::to_string(i),
                            0,
                            static_cast<std::uint64_t>(i),
                            0,
                            0,
                            {}},
                           {Pattern(1000 + i, static_cast<std::uint8_t>(i))},
                           [p](Status s) { p->set_value(std::move(s)); });
      }
      for (auto& w : writes) EXPECT_TRUE(w.get().ok());
      std::vector<std::future<Result<ReadShardResult>>> reads;
      for (int i = 0; i < kPerClient; ++i) {
        auto p = std::make_shared<std::promise<Result<ReadShardResult>>>();
        reads.push_back(p->get_future());
        c->ReadShardAsync({"pg." + std::to_string(t), "o" + std::to_string(i), 0, {{0, 5000}}},
                          [p](Result<ReadShardResult> r) { p->set_value(std::move(r)); });
      }
      for (int i = 0; i < kPerClient; ++i) {
        auto r = reads[i].get();
        ASSERT_TRUE(r.ok()) << r.status().message();
        if (Str(r->extents[0]) == Str(Pattern(1000 + i, static_cast<std::uint8_t>(i)))) ++good;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(good.load(), kClients * kPerClient);
  EXPECT_EQ(f.store->shard_count(), static_cast<std::size_t>(kClients * kPerClient));
}

TEST(ServerTest, BackpressureBoundsOutstandingRequestsPerConnection) {
  ServerOptions so;
  so.max_inflight = 2;
  Fixture f(so, MemoryShardStore::Options{true, std::chrono::microseconds(2000)});
  ClientOptions co;
  co.max_inflight = 64;  // the client would send more; the server must not read them
  auto c = f.Client(co);
  constexpr int kN = 40;
  std::vector<std::future<Result<Buffer>>> pings;
  for (int i = 0; i < kN; ++i) {
    auto p = std::make_shared<std::promise<Result<Buffer>>>();
    pings.push_back(p->get_future());
    c->PingAsync({}, 16, [p](Result<Buffer> r) { p->set_value(std::move(r)); });
  }
  for (auto& p : pings) EXPECT_TRUE(p.get().ok());
  EXPECT_EQ(f.store->requests_seen(), static_cast<std::uint64_t>(kN));
  EXPECT_LE(f.store->max_outstanding_per_connection(), 2u);
  EXPECT_EQ(f.store->max_outstanding_per_connection(), 2u);  // and the limit was reached
  // The server counts a reply out of flight once written, which may be just after the client
  // has read it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (f.server->counters().inflight != 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::yield();
  }
  EXPECT_EQ(f.server->counters().inflight, 0u);
}

// A handler that never answers until told to: timeouts, dropped responders, Stop's deadline.
class HoldingHandler : public RequestHandler {
 public:
  void Handle(Request, std::shared_ptr<Responder> r) override {
    std::lock_guard lock(mu_);
    held_.push_back(std::move(r));
  }
  void ReleaseAll() {
    std::lock_guard lock(mu_);
    held_.clear();  // dropping a Responder answers EIO
  }
  std::size_t held() {
    std::lock_guard lock(mu_);
    return held_.size();
  }

 private:
  std::mutex mu_;
  std::vector<std::shared_ptr<Responder>> held_;
};

TEST(ServerTest, TimeoutDroppedResponderAndStop) {
  auto handler = std::make_shared<HoldingHandler>();
  auto server = Server::Start(ServerOptions{}, handler);
  ASSERT_TRUE(server.ok());
  ClientOptions co;
  co.port = (*server)->port();
  auto c = OsdClient::Create(co);
  ASSERT_TRUE(c.ok());
  auto t0 = std::chrono::steady_clock::now();
  auto r = (*c)->Stat({"c", "o", 0}, CallOptions{std::chrono::milliseconds(100)});
  EXPECT_EQ(r.status().code(), ETIMEDOUT);
  EXPECT_TRUE(r.status().is_retryable());
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(100));
  EXPECT_EQ((*c)->counters().timeouts, 1u);

  std::promise<Status> p;
  (*c)->RemoveAsync({"c", "o", 0}, [&p](Status s) { p.set_value(std::move(s)); });
  while (handler->held() < 2) std::this_thread::yield();
  handler->ReleaseAll();
  Status s = p.get_future().get();
  EXPECT_EQ(s.code(), EIO);
  EXPECT_NE(s.message().find("dropped by the handler"), std::string::npos);

  // Stop with a request still held: gives up after the deadline, then replies are dropped.
  std::promise<Status> q;
  (*c)->RemoveAsync({"c", "o", 0}, [&q](Status s2) { q.set_value(std::move(s2)); });
  while (handler->held() < 1) std::this_thread::yield();
  (*server)->Stop(std::chrono::milliseconds(50));
  Status s3 = q.get_future().get();
  EXPECT_TRUE(s3.is_retryable()) << s3.ToString();  // connection closed by the stop
  handler->ReleaseAll();
  EXPECT_EQ((*server)->counters().inflight, 0u);
  EXPECT_EQ((*server)->counters().replies_dropped, 1u);
}

TEST(ServerTest, StopWaitsForInFlightRepliesAndClientReconnects) {
  auto store = std::make_shared<MemoryShardStore>(
      MemoryShardStore::Options{true, std::chrono::microseconds(50000)});
  auto server = Server::Start(ServerOptions{}, store);
  ASSERT_TRUE(server.ok());
  const std::uint16_t port = (*server)->port();
  ClientOptions co;
  co.port = port;
  auto c = OsdClient::Create(co);
  ASSERT_TRUE(c.ok());
  std::promise<Status> p;
  (*c)->WriteShardAsync({"c", "o", 0, 1, 0, 0, {}}, {Pattern(100, 0)},
                        [&p](Status s) { p.set_value(std::move(s)); });
  while (store->requests_seen() < 1) std::this_thread::yield();
  (*server)->Stop();
  Status written = p.get_future().get();
  EXPECT_TRUE(written.ok()) << written.ToString();  // answered before the connection closed
  EXPECT_EQ(store->shard_count(), 1u);

  // The server is gone: a request fails (retryable), not hangs.
  auto r = (*c)->Ping({}, 0, CallOptions{std::chrono::milliseconds(2000)});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().is_retryable()) << r.status().ToString();

  // A new server on the same port: the client reconnects by itself.
  ServerOptions so;
  so.port = port;
  auto again = Server::Start(so, store);
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto ok = (*c)->Stat({"c", "o", 0});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size, 100u);
  EXPECT_GE((*c)->counters().connects, 2u);
}

// Request::more_queued tells the handler whether more requests were already waiting on the
// connection when this one was handed over.
TEST(ServerTest, MoreQueuedFlagsPipelinedRequests) {
  class Recording : public RequestHandler {
   public:
    void Handle(Request r, std::shared_ptr<Responder> responder) override {
      // Holding the io thread on the first request lets the others reach the socket.
      if (first_.exchange(false)) std::this_thread::sleep_for(std::chrono::milliseconds(200));
      {
        std::lock_guard lock(mu_);
        flags_.push_back(r.more_queued);
      }
      (void)responder->Send(PingReply{});
    }
    std::vector<bool> flags() {
      std::lock_guard lock(mu_);
      return flags_;
    }

   private:
    std::atomic<bool> first_{true};
    std::mutex mu_;
    std::vector<bool> flags_;
  };
  auto handler = std::make_shared<Recording>();
  auto server = Server::Start(ServerOptions{}, handler);
  ASSERT_TRUE(server.ok()) << server.status().message();
  ClientOptions co;
  co.port = (*server)->port();
  auto c = OsdClient::Create(co);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->Connect().ok());

  constexpr int kPipelined = 8;
  std::vector<std::promise<Status>> done(kPipelined);
  for (auto& p : done) {
    (*c)->PingAsync({}, 0, [&p](Result<Buffer> r) { p.set_value(r.status()); });
  }
  for (auto& p : done) EXPECT_TRUE(p.get_future().get().ok());
  auto flags = handler->flags();
  ASSERT_EQ(flags.size(), static_cast<std::size_t>(kPipelined));
  EXPECT_TRUE(flags[1]);       // six more were waiting behind the second
  EXPECT_FALSE(flags.back());  // nothing behind the last

  ASSERT_TRUE((*c)->Ping({}, 0).ok());  // a lone request
  flags = handler->flags();
  ASSERT_EQ(flags.size(), static_cast<std::size_t>(kPipelined + 1));
  EXPECT_FALSE(flags.back());
  (*server)->Stop();
}

TEST(ServerTest, ClientErrors) {
  EXPECT_EQ(OsdClient::Create(ClientOptions{}).status().code(), EINVAL);  // port 0
  Fixture f;
  auto c = f.Client();
  c->Close();
  EXPECT_EQ(c->Ping({}, 0).status().code(), ESHUTDOWN);
  // Nothing listens on a closed server's port.
  const std::uint16_t port = f.server->port();
  f.server->Stop();
  ClientOptions co;
  co.port = port;
  auto c2 = OsdClient::Create(co);
  ASSERT_TRUE(c2.ok());
  Status s = (*c2)->Connect();
  EXPECT_EQ(s.code(), ECONNREFUSED) << s.ToString();
  // Too big for the server's limits: refused by the client, not sent.
  ServerOptions so;
  so.limits.max_payload_len = 1000;
  Fixture small(so);
  auto c3 = small.Client();
  EXPECT_EQ(c3->WriteShard({"c", "o", 0, 0, 0, 0, {}}, {Pattern(1001, 0)}).code(), EMSGSIZE);
  EXPECT_TRUE(c3->WriteShard({"c", "o", 0, 0, 0, 0, {}}, {Pattern(1000, 0)}).ok());
  // A reply larger than the client accepts is refused by the server with EMSGSIZE.
  ClientOptions tiny;
  tiny.limits.max_payload_len = 100;
  auto c4 = f.Client(tiny);
  (void)c4;
  Fixture f2;
  auto c5 = f2.Client(tiny);
  EXPECT_EQ(c5->Ping({}, 101).status().code(), EMSGSIZE);
  EXPECT_TRUE(c5->Ping({}, 100).ok());
}

// A background client (recovery) announces it in the Hello; the server marks its side of the
// connection, and counts it. A client of the default class is left unmarked.
TEST(ServerTest, BackgroundConnectionsAreMarkedByTheServer) {
  Fixture f;
  auto plain = f.Client();
  ASSERT_TRUE(plain->Ping({}, 8).ok());
  EXPECT_EQ(f.server->counters().background_connections, 0u);
  ClientOptions bg;
  bg.traffic_class = TrafficClass::kBackground;
  bg.connections = 2;
  bg.io_nice = 5;
  auto recovery = f.Client(bg);
  ASSERT_TRUE(recovery->Connect().ok());
  ASSERT_TRUE(recovery->Ping({}, 8).ok());
  EXPECT_EQ(f.server->counters().background_connections, 2u);
  EXPECT_EQ(f.server->counters().connections_open, 3u);
}

TEST(ServerTest, StartErrors) {
  auto store = std::make_shared<MemoryShardStore>();
  ServerOptions bad;
  bad.address = "not-an-ip";
  EXPECT_EQ(Server::Start(bad, store).status().code(), EINVAL);
  ServerOptions threads;
  threads.io_threads = 0;
  EXPECT_EQ(Server::Start(threads, store).status().code(), EINVAL);
  auto first = Server::Start(ServerOptions{}, store);
  ASSERT_TRUE(first.ok());
  ServerOptions same;
  same.port = (*first)->port();
  auto second = Server::Start(same, store);
  EXPECT_EQ(second.status().code(), EADDRINUSE) << second.status().ToString();
}

}  // namespace
}  // namespace ec::msg
