#include "osd/daemon/http_server.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace ec::osd::daemon {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A blocking loopback client with a receive timeout, so that a server bug fails the test instead
// of hanging it.
class Client {
 public:
  explicit Client(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~Client() { ::close(fd_); }

  bool connected() const { return connected_; }
  void ShutdownWrite() { ::shutdown(fd_, SHUT_WR); }
  bool Send(std::string_view data) {
    return ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(data.size());
  }
  // Everything until the server closes the connection. `closed` tells whether it did (EOF or
  // reset) before the 5 s timeout.
  std::string ReadAll(bool* closed) {
    std::string out;
    char buf[4096];
    for (;;) {
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      *closed = n == 0 || errno == ECONNRESET;
      return out;
    }
  }
  // One response on a kept-alive connection: headers, then Content-Length bytes of body.
  std::string ReadResponse() {
    std::string out;
    char c;
    while (out.find("\r\n\r\n") == std::string::npos) {
      if (::recv(fd_, &c, 1, 0) != 1) return out;
      out.push_back(c);
    }
    const std::size_t cl = out.find("Content-Length: ");
    if (cl == std::string::npos) return out;
    std::size_t left = std::stoul(out.substr(cl + 16));
    while (left > 0) {
      if (::recv(fd_, &c, 1, 0) != 1) return out;
      out.push_back(c);
      --left;
    }
    return out;
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string Body(const std::string& response) {
  const std::size_t p = response.find("\r\n\r\n");
  return p == std::string::npos ? "" : response.substr(p + 4);
}

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.GetCounter("ecstore_test_requests_total", "Requests.").Inc(7);
    StartServer({});
  }

  void StartServer(HttpServerOptions options) {
    server_.reset();
    options.host = "127.0.0.1";
    options.port = 0;
    auto s = HttpServer::Start(
        options, &registry_,
        [this] {
          ++status_calls_;
          if (throw_) throw std::runtime_error("status \"broken\"");
          return nlohmann::json{{"osd", 3}, {"state", "up"}};
        },
        nullptr,
        [this]() -> Result<std::string> {
          if (cluster_fails_) return Status::Error(ECONNREFUSED, "cannot reach etcd at x");
          return std::string("ceph_health_status 0\n");
        });
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    ASSERT_NE(server_->port(), 0);
  }

  std::string Get(const std::string& request, bool* closed = nullptr) {
    Client c(server_->port());
    EXPECT_TRUE(c.connected());
    EXPECT_TRUE(c.Send(request));
    bool was_closed = false;
    std::string out = c.ReadAll(&was_closed);
    EXPECT_TRUE(was_closed) << "the server kept the connection open";
    if (closed != nullptr) *closed = was_closed;
    return out;
  }

  std::string GetMetrics() {
    return Get("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  }

  MetricsRegistry registry_;
  std::atomic<int> status_calls_{0};
  std::atomic<bool> throw_{false};
  std::atomic<bool> cluster_fails_{false};
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, Metrics) {
  const std::string r = GetMetrics();
  EXPECT_THAT(r, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(r, HasSubstr("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  EXPECT_EQ(Body(r), registry_.RenderPrometheus());
  EXPECT_THAT(Body(r), HasSubstr("ecstore_test_requests_total 7\n"));
  // A query string is ignored.
  EXPECT_THAT(Get("GET /metrics?x=1 HTTP/1.0\r\n\r\n"), StartsWith("HTTP/1.0 200 OK\r\n"));
}

// The cluster exporter's page: the callback's text, or 503 with its error; without a callback
// the path is not served.
TEST_F(HttpServerTest, ClusterMetrics) {
  const std::string r =
      Get("GET /metrics/cluster HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(r, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(r, HasSubstr("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"));
  EXPECT_EQ(Body(r), "ceph_health_status 0\n");
  cluster_fails_ = true;
  const std::string bad = Get("GET /metrics/cluster HTTP/1.0\r\n\r\n");
  EXPECT_THAT(bad, StartsWith("HTTP/1.0 503 Service Unavailable\r\n"));
  EXPECT_EQ(Body(bad), "cannot reach etcd at x\n");

  MetricsRegistry registry;
  HttpServerOptions options;
  auto plain = HttpServer::Start(options, &registry, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  Client c((*plain)->port());
  ASSERT_TRUE(c.connected());
  ASSERT_TRUE(c.Send("GET /metrics/cluster HTTP/1.0\r\n\r\n"));
  bool closed = false;
  EXPECT_THAT(c.ReadAll(&closed), StartsWith("HTTP/1.0 404 Not Found\r\n"));
}

TEST_F(HttpServerTest, Status) {
  const std::string r = Get("GET /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(r, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(r, HasSubstr("Content-Type: application/json\r\n"));
  EXPECT_EQ(nlohmann::json::parse(Body(r)), (nlohmann::json{{"osd", 3}, {"state", "up"}}));
  EXPECT_EQ(status_calls_.load(), 1);

  throw_ = true;
  const std::string bad = Get("GET /status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(bad, StartsWith("HTTP/1.1 500 Internal Server Error\r\n"));
  EXPECT_EQ(nlohmann::json::parse(Body(bad)), (nlohmann::json{{"error", "status \"broken\""}}));
}

TEST_F(HttpServerTest, NotFoundAndMethodNotAllowed) {
  const std::string nf = Get("GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(nf, StartsWith("HTTP/1.1 404 Not Found\r\n"));
  const std::string post =
      Get("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi");
  EXPECT_THAT(post, StartsWith("HTTP/1.1 405 Method Not Allowed\r\n"));
  EXPECT_THAT(post, HasSubstr("Allow: GET, HEAD\r\n"));
  EXPECT_THAT(Get("DELETE /status HTTP/1.1\r\nConnection: close\r\n\r\n"),
              StartsWith("HTTP/1.1 405 "));
  EXPECT_EQ(status_calls_.load(), 0);

  const std::string head = Get("HEAD /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_THAT(head, StartsWith("HTTP/1.1 200 OK\r\n"));
  EXPECT_THAT(
      head, HasSubstr(fmt::format("Content-Length: {}\r\n", registry_.RenderPrometheus().size())));
  EXPECT_EQ(Body(head), "");
}

TEST_F(HttpServerTest, KeepAlive) {
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    registry_.GetCounter("ecstore_test_requests_total", "Requests.").Inc();
    ASSERT_TRUE(c.Send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"));
    const std::string r = c.ReadResponse();
    EXPECT_THAT(r, StartsWith("HTTP/1.1 200 OK\r\n"));
    EXPECT_THAT(Body(r), HasSubstr(fmt::format("ecstore_test_requests_total {}\n", 8 + i)));
  }
}

TEST_F(HttpServerTest, GarbageClosesTheConnectionOnly) {
  const std::vector<std::string> garbage = {
      std::string("\x00\xff\x13garbage\r\n\r\n", 13),
      "GET /metrics HTTP/9.9\r\n\r\n",
      "GET\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
      "GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "GET /metrics HTTP/1.1\r\nBad Header\r\n\r\n",
      "GET /metrics HTTP/1.1\r\n",  // then the client half-closes: a truncated request
  };
  for (const std::string& g : garbage) {
    Client c(server_->port());
    ASSERT_TRUE(c.connected());
    c.Send(g);
    if (g.find("\r\n\r\n") == std::string::npos) c.ShutdownWrite();
    bool closed = false;
    const std::string r = c.ReadAll(&closed);
    EXPECT_TRUE(closed) << g;
    // Refused: 400, or 505 for the version (a truncated request may get no answer at all).
    if (g.find("\r\n\r\n") != std::string::npos || !r.empty()) {
      EXPECT_THAT(r, ::testing::MatchesRegex("HTTP/1.1 (400|505) .*")) << g;
    }
    EXPECT_THAT(GetMetrics(), StartsWith("HTTP/1.1 200 OK\r\n")) << "after " << g;
  }
}

TEST_F(HttpServerTest, OversizedRequestIsRefused) {
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  c.Send("GET /metrics HTTP/1.1\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n");
  bool closed = false;
  const std::string r = c.ReadAll(&closed);
  EXPECT_TRUE(closed);
  if (!r.empty()) {
    EXPECT_THAT(r, StartsWith("HTTP/1.1 413 Payload Too Large\r\n"));
  }
  // A body over the limit: refused from its Content-Length, before it is read.
  const std::string body = Get("GET /metrics HTTP/1.1\r\nContent-Length: 1000000\r\n\r\n");
  EXPECT_THAT(body, StartsWith("HTTP/1.1 413 Payload Too Large\r\n"));
  EXPECT_THAT(GetMetrics(), StartsWith("HTTP/1.1 200 OK\r\n"));
}

TEST_F(HttpServerTest, StalledClientTimesOut) {
  HttpServerOptions options;
  options.request_timeout = std::chrono::milliseconds(200);
  StartServer(options);
  Client c(server_->port());
  ASSERT_TRUE(c.connected());
  c.Send("GET /metrics HTTP/1.1\r\n");  // and nothing more
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  c.ReadAll(&closed);
  EXPECT_TRUE(closed) << "no close within the client's 5 s";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  EXPECT_THAT(GetMetrics(), StartsWith("HTTP/1.1 200 OK\r\n"));
}

TEST_F(HttpServerTest, ConnectionLimit) {
  HttpServerOptions options;
  options.max_connections = 2;
  StartServer(options);
  std::vector<std::unique_ptr<Client>> held;
  for (int i = 0; i < 2; ++i) {
    held.push_back(std::make_unique<Client>(server_->port()));
    ASSERT_TRUE(held.back()->Send("GET /metrics HTTP/1.1\r\n\r\n"));
    // An answer proves the server has taken this connection on.
    ASSERT_THAT(held.back()->ReadResponse(), StartsWith("HTTP/1.1 200 OK"));
  }
  Client third(server_->port());
  ASSERT_TRUE(third.connected());
  bool closed = false;
  EXPECT_EQ(third.ReadAll(&closed), "");
  EXPECT_TRUE(closed);
  held.clear();
  // The server notices the two closes asynchronously: poll until a connection is served again.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::string r;
  while (std::chrono::steady_clock::now() < deadline) {
    Client c(server_->port());
    c.Send("GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
    bool ignored = false;
    r = c.ReadAll(&ignored);
    if (!r.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(r, StartsWith("HTTP/1.1 200 OK"));
}

TEST_F(HttpServerTest, StopClosesEverything) {
  Client idle(server_->port());
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(idle.Send("GET /metrics HTTP/1.1\r\n\r\n"));
  ASSERT_THAT(idle.ReadResponse(), StartsWith("HTTP/1.1 200 OK"));
  const std::uint16_t port = server_->port();
  server_->Stop();
  server_->Stop();  // idempotent
  bool closed = false;
  idle.ReadAll(&closed);
  EXPECT_TRUE(closed);
  Client after(port);
  EXPECT_FALSE(after.connected());
}

TEST(HttpServerStart, Errors) {
  MetricsRegistry registry;
  HttpServerOptions bad_host;
  bad_host.host = "localhost";
  auto a = HttpServer::Start(bad_host, &registry, nullptr);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), EINVAL);
  EXPECT_EQ(a.status().message(), "http: bad listen address 'localhost': not an IP address");

  // A port someone else listens on.
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor taken(
      ioc, boost::asio::ip::tcp::endpoint(boost::asio::ip::make_address("127.0.0.1"), 0));
  HttpServerOptions busy;
  busy.port = taken.local_endpoint().port();
  auto b = HttpServer::Start(busy, &registry, nullptr);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), EADDRINUSE);
  EXPECT_THAT(b.status().message(),
              HasSubstr(fmt::format("http: cannot listen on 127.0.0.1:{}: ", busy.port)));

  // No status callback and no registry: empty answers, not crashes.
  auto c = HttpServer::Start(HttpServerOptions{}, nullptr, nullptr);
  ASSERT_TRUE(c.ok()) << c.status().message();
  Client client((*c)->port());
  client.Send("GET /status HTTP/1.1\r\nConnection: close\r\n\r\n");
  bool closed = false;
  EXPECT_EQ(Body(client.ReadAll(&closed)), "{}\n");
  Client m((*c)->port());
  m.Send("GET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(Body(m.ReadAll(&closed)), "");
}

}  // namespace
}  // namespace ec::osd::daemon
