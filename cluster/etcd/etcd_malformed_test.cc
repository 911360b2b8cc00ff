// Replies that are not etcd's, from a tiny local HTTP server: every one is a clean error
// (EPROTO, or etcd's own error mapped), never a crash or a hang.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "cluster/etcd/etcd_auth.h"
#include "cluster/etcd/etcd_client.h"
#include "cluster/etcd/etcd_json.h"
#include "cluster/etcd/etcd_test_server.h"
#include "cluster/etcd/etcd_watch.h"

namespace ec::etcd {
namespace {

// Answers every request with the same canned bytes, then closes the connection.
class CannedServer {
 public:
  explicit CannedServer(std::string reply) : reply_(std::move(reply)) {
    fd_ = testing::EtcdServer::BindLoopback(true, &port_);
    thread_ = std::thread([this] { Serve(); });
  }
  ~CannedServer() {
    stop_.store(true);
    thread_.join();
    ::close(fd_);
  }
  ClientOptions options() const {
    ClientOptions o;
    o.endpoints = {Endpoint{"127.0.0.1", port_}};
    o.timeout = std::chrono::milliseconds(1000);
    o.max_reply_bytes = 1u << 20;
    return o;
  }
  int requests() const { return requests_.load(); }
  // The last request's header and body as received.
  std::string last_request() const {
    std::lock_guard lock(mu_);
    return last_request_;
  }

 private:
  void Serve() {
    while (!stop_.load()) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::string request = ReadRequest(c);
      {
        std::lock_guard lock(mu_);
        last_request_ = std::move(request);
      }
      ++requests_;
      std::size_t off = 0;
      while (off < reply_.size() && !stop_.load()) {
        ssize_t n = ::send(c, reply_.data() + off, reply_.size() - off, MSG_NOSIGNAL);
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
      }
      ::close(c);
    }
  }
  // Reads the header and a Content-Length body, so that the close is not a reset.
  static std::string ReadRequest(int c) {
    std::string in;
    char buf[4096];
    std::size_t need = std::string::npos;
    while (in.size() < need) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 1000) <= 0) return in;
      ssize_t n = ::recv(c, buf, sizeof(buf), 0);
      if (n <= 0) return in;
      in.append(buf, static_cast<std::size_t>(n));
      std::size_t end = in.find("\r\n\r\n");
      if (end != std::string::npos && need == std::string::npos) {
        std::size_t cl = in.find("Content-Length: ");
        std::size_t len = cl == std::string::npos ? 0 : std::stoul(in.substr(cl + 16));
        need = end + 4 + len;
      }
    }
    return in;
  }

  std::string reply_;
  int fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> requests_{0};
  mutable std::mutex mu_;
  std::string last_request_;
  std::thread thread_;
};

std::string Http(int status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) +
         " X\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

int RangeCode(const std::string& reply) {
  CannedServer server(reply);
  auto r = Client(server.options()).Range({"k", {}, 0, 0});
  EXPECT_FALSE(r.ok());
  return r.status().code();
}

TEST(EtcdMalformed, RangeRepliesThatAreNotEtcdsAreEproto) {
  const std::string hdr = R"("header":{"revision":"5"})";
  EXPECT_EQ(RangeCode("garbage\r\n\r\n"), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "not json")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "[1,2]")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"kvs":{}})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"kvs":[1]})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"kvs":[{"key":"!!!!"}]})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"kvs":[{"key":"YQ="}]})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"kvs":[{"key":5}]})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"kvs":[{"key":"YQ==","version":"x"}]})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"count":{}})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"count":"99999999999999999999"})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, "{" + hdr + R"(,"more":"yes"})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, R"({"header":{"revision":"abc"}})")), EPROTO);
  EXPECT_EQ(RangeCode(Http(200, R"({"header":7})")), EPROTO);
  // A body above max_reply_bytes is refused before it is read whole.
  EXPECT_EQ(RangeCode(Http(200, std::string(2u << 20, ' '))), EPROTO);
  // Chunked with a bad chunk size.
  EXPECT_EQ(RangeCode("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"), EPROTO);
}

TEST(EtcdMalformed, WellFormedMinimalReplyParses) {
  CannedServer server(
      Http(200, R"({"header":{"revision":"5"},"kvs":[{"key":"YQ==","value":"Yg=="}],"count":1})"));
  auto r = Client(server.options()).Range({"a", {}, 0, 0});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->revision, 5);
  ASSERT_EQ(r->kvs.size(), 1u);
  EXPECT_EQ(r->kvs[0].key, "a");
  EXPECT_EQ(r->kvs[0].value, "b");
  EXPECT_EQ(r->kvs[0].mod_revision, 0);  // omitted: default
  EXPECT_EQ(r->count, 1);
}

TEST(EtcdMalformed, ConnectionClosedMidReplyIsAnErrorNotAHang) {
  CannedServer server("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"hea");
  auto r = Client(server.options()).Range({"a", {}, 0, 0});
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.status().is_retryable()) << r.status().ToString();
}

TEST(EtcdMalformed, EtcdErrorsCarryEtcdsMessage) {
  {
    CannedServer server(Http(
        404,
        R"({"error":"etcdserver: requested lease not found","message":"etcdserver: requested lease not found","code":5})"));
    Status s = Client(server.options()).LeaseRevoke(1);
    EXPECT_EQ(s.code(), ENOENT);
    EXPECT_NE(s.message().find("requested lease not found"), std::string::npos) << s.message();
  }
  {
    CannedServer server(Http(500, R"({"message":"boom","code":13})"));
    auto r = Client(server.options()).Put({"a", "b", 0});
    EXPECT_EQ(r.status().code(), EIO);
    EXPECT_NE(r.status().message().find("boom"), std::string::npos);
  }
  {
    CannedServer server(Http(502, "<html>bad gateway</html>"));
    auto r = Client(server.options()).Put({"a", "b", 0});
    EXPECT_EQ(r.status().code(), EIO);
    EXPECT_NE(r.status().message().find("bad gateway"), std::string::npos);
  }
  {
    // UNAVAILABLE without "no leader": nothing was applied; tried on every endpoint (here the
    // same one twice), then EAGAIN.
    CannedServer server(Http(503, R"({"message":"etcdserver: leader changed","code":14})"));
    ClientOptions o = server.options();
    o.endpoints.push_back(o.endpoints[0]);
    auto r = Client(o).Put({"a", "b", 0});
    EXPECT_EQ(r.status().code(), EAGAIN);
    EXPECT_TRUE(r.status().is_retryable());
    EXPECT_EQ(server.requests(), 2);
  }
}

// A cluster of several members: what a member without a leader, and one whose leader died while it
// waited, answer.
TEST(EtcdMalformed, NoLeaderIsTriedAgainUntilTheTimeoutAndSaysSo) {
  CannedServer server(Http(503, R"({"message":"etcdserver: no leader","code":14})"));
  ClientOptions o = server.options();
  o.endpoints.push_back(o.endpoints[0]);
  o.timeout = std::chrono::milliseconds(600);
  const auto start = std::chrono::steady_clock::now();
  auto r = Client(o).Put({"a", "b", 0});
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(r.status().code(), EAGAIN);
  EXPECT_TRUE(r.status().is_retryable());
  EXPECT_NE(r.status().message().find("etcd has lost its quorum"), std::string::npos)
      << r.status().message();
  // Both endpoints again every 100 ms for the 600 ms timeout (at least twice), then the error.
  EXPECT_GE(server.requests(), 4);
  EXPECT_GE(took, std::chrono::milliseconds(500));
  EXPECT_LT(took, std::chrono::milliseconds(1500));
  // Every request asks for a member with a leader.
  EXPECT_NE(server.last_request().find("Grpc-Metadata-Hasleader: true"), std::string::npos)
      << server.last_request();
}

TEST(EtcdMalformed, RequestTimedOutIsAWriteWithoutReply) {
  const std::string timed_out = Http(
      503,
      R"({"message":"etcdserver: request timed out, possibly due to previous leader failure","code":14})");
  {
    // A write etcd gave up waiting for may still be applied: not sent to the next endpoint.
    CannedServer server(timed_out);
    ClientOptions o = server.options();
    o.endpoints.push_back(o.endpoints[0]);
    auto r = Client(o).Txn({});
    EXPECT_EQ(r.status().code(), ETIMEDOUT);
    EXPECT_TRUE(r.status().is_retryable());
    EXPECT_NE(r.status().message().find("may have been applied"), std::string::npos)
        << r.status().message();
    EXPECT_EQ(server.requests(), 1);
  }
  {
    // A read is tried on the next endpoint.
    CannedServer server(timed_out);
    ClientOptions o = server.options();
    o.endpoints.push_back(o.endpoints[0]);
    auto r = Client(o).Range({"a", {}, 0, 0});
    EXPECT_EQ(r.status().code(), ETIMEDOUT);
    EXPECT_EQ(server.requests(), 2);
  }
  {
    // A streaming call's error ({"error":{...}} inside a 200 stream) is etcd's, mapped.
    CannedServer server(Http(
        200,
        R"({"error":{"grpc_code":14,"http_code":503,"message":"etcdserver: no leader","http_status":"Service Unavailable"}})"));
    auto r = Client(server.options()).LeaseKeepAlive(5);
    EXPECT_EQ(r.status().code(), EAGAIN);
    EXPECT_NE(r.status().message().find("etcdserver: no leader"), std::string::npos)
        << r.status().message();
  }
}

TEST(EtcdMalformed, TxnLeaseAndDeleteRepliesAreChecked) {
  {
    CannedServer server(Http(200, R"({"succeeded":true,"responses":[{"response_what":{}}]})"));
    EXPECT_EQ(Client(server.options()).Txn({}).status().code(), EPROTO);
  }
  {
    CannedServer server(Http(200, R"({"succeeded":"true"})"));
    EXPECT_EQ(Client(server.options()).Txn({}).status().code(), EPROTO);
  }
  {
    CannedServer server(Http(200, R"({"responses":{}})"));
    EXPECT_EQ(Client(server.options()).Txn({}).status().code(), EPROTO);
  }
  {
    CannedServer server(Http(200, R"({"header":{}})"));
    EXPECT_EQ(Client(server.options()).LeaseGrantTtl(5).status().code(), EPROTO);
  }
  {
    CannedServer server(Http(200, R"({"ID":[1],"TTL":"5"})"));
    EXPECT_EQ(Client(server.options()).LeaseGrantTtl(5).status().code(), EPROTO);
  }
  {
    CannedServer server(Http(200, R"({"header":{}})"));
    EXPECT_EQ(Client(server.options()).LeaseKeepAlive(5).status().code(), EPROTO);
  }
  {
    CannedServer server(Http(200, R"({"deleted":true})"));
    EXPECT_EQ(Client(server.options()).DeleteRange({"a", {}}).status().code(), EPROTO);
  }
}

// etcd's users (etcd_auth.h): an authentication reply without a token that could go in a header
// is EPROTO, a refused password EACCES naming the user; a good token is sent on the request,
// with the Accept header etcd needs to tell a gateway request.
TEST(EtcdMalformed, AuthenticationRepliesAreChecked) {
  auto code = [](const std::string& reply) {
    CannedServer server(reply);
    ClientOptions o = server.options();
    o.credentials = std::make_shared<Credentials>("osd", "pw");
    auto r = Client(o).Range({"k", {}, 0, 0});
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(server.requests(), 1);  // nothing more after the refused authentication
    EXPECT_NE(server.last_request().find("/v3/auth/authenticate"), std::string::npos);
    return r.status().code();
  };
  EXPECT_EQ(code(Http(200, "not json")), EPROTO);
  EXPECT_EQ(code(Http(200, "{}")), EPROTO);
  EXPECT_EQ(code(Http(200, R"({"token":5})")), EPROTO);
  EXPECT_EQ(code(Http(200, R"({"token":"a b"})")), EPROTO);
  EXPECT_EQ(code(Http(200, R"({"token":"a\r\nX-Evil: 1"})")), EPROTO);
  EXPECT_EQ(code(Http(200, R"({"token":")" + std::string(5000, 'a') + R"("})")), EPROTO);
  EXPECT_EQ(code(Http(400, R"({"error":"etcdserver: authentication failed, invalid user ID or )"
                           R"(password","code":3})")),
            EACCES);

  // The canned server closes every connection after its reply, and says so: the client connects
  // again for the request.
  std::string reply = Http(200, R"({"token":"tok.1"})");
  reply.insert(reply.find("\r\n") + 2, "Connection: close\r\n");
  CannedServer server(reply);
  ClientOptions o = server.options();
  o.credentials = std::make_shared<Credentials>("osd", "pw");
  ASSERT_TRUE(Client(o).Call("/v3/kv/range", {{"key", "aw=="}}, true).ok());
  EXPECT_EQ(server.requests(), 2);
  EXPECT_NE(server.last_request().find("Authorization: tok.1\r\n"), std::string::npos)
      << server.last_request();
  EXPECT_NE(server.last_request().find("Accept: application/json\r\n"), std::string::npos)
      << server.last_request();
  EXPECT_EQ(o.credentials->authentications(), 1u);
}

TEST(EtcdMalformed, WatchOnGarbageReportsRetryableErrorsAndStops) {
  const std::string bad_events = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + [] {
    std::string line = R"({"result":{"created":true,"header":{"revision":"3"}}})"
                       "\n"
                       R"({"result":{"events":[{"type":"BOGUS","kv":{"key":"YQ=="}}]}})"
                       "\n";
    char size[16];
    std::snprintf(size, sizeof(size), "%zx", line.size());
    return std::string(size) + "\r\n" + line + "\r\n0\r\n\r\n";
  }();
  for (const std::string& reply :
       {std::string("garbage\r\n\r\n"), Http(200, "not json\n"), Http(200, "[1]\n"),
        Http(200, R"({"result":{"events":{}}})"
                  "\n"),
        Http(200, R"({"result":{"events":[{"kv":{"key":"!"}}]}})"
                  "\n"),
        Http(404, "{}"), bad_events}) {
    CannedServer server(reply);
    std::mutex mu;
    std::vector<Status> errors;
    int events = 0;
    {
      Watch w(
          server.options(), WatchOptions{"a", {}, 0, 1u << 20},
          [&](const Event&) {
            std::lock_guard lock(mu);
            ++events;
          },
          [&](const Status& s) {
            std::lock_guard lock(mu);
            errors.push_back(s);
          });
      const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
      while (std::chrono::steady_clock::now() < until) {
        {
          std::lock_guard lock(mu);
          if (errors.size() >= 2) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      EXPECT_FALSE(w.finished());
    }
    std::lock_guard lock(mu);
    EXPECT_EQ(events, 0) << reply.substr(0, 60);
    ASSERT_GE(errors.size(), 2u) << reply.substr(0, 60);
    for (const Status& s : errors) EXPECT_TRUE(s.is_retryable()) << s.ToString();
  }
}

TEST(EtcdJson, Base64IsStrict) {
  EXPECT_EQ(*gw::Base64Decode(gw::Base64Encode(std::string("\0\xff\x10", 3))),
            std::string("\0\xff\x10", 3));
  EXPECT_EQ(*gw::Base64Decode(""), "");
  EXPECT_EQ(*gw::Base64Decode("YWI="), "ab");
  EXPECT_FALSE(gw::Base64Decode("YWI").ok());
  EXPECT_FALSE(gw::Base64Decode("Y=WI").ok());
  EXPECT_FALSE(gw::Base64Decode("Y===").ok());
  EXPECT_FALSE(gw::Base64Decode("YW-_").ok());
  EXPECT_FALSE(gw::Base64Decode("YW\nI").ok());
}

}  // namespace
}  // namespace ec::etcd
