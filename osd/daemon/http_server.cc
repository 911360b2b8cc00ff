#include "osd/daemon/http_server.h"
#include "common/thread_name.h"

#include <fmt/format.h>
#include <spdlog/logger.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <optional>
#include <thread>

namespace ec::osd::daemon {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// One connection. Not in an anonymous namespace because Impl (external linkage) names it.
class HttpSession;

struct HttpServer::Impl {
  HttpServerOptions options;
  const MetricsRegistry* registry = nullptr;
  StatusCallback status;
  TextCallback cluster_metrics;
  std::shared_ptr<spdlog::logger> logger;

  // Declared first so that it is destroyed last: pending handlers own the sessions.
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::uint16_t port = 0;
  std::thread thread;
  std::mutex stop_mu;
  bool stopped = false;
  // Only touched on the server thread.
  std::list<std::weak_ptr<HttpSession>> sessions;

  void Accept();
  void Run();
  http::response<http::string_body> Respond(const http::request<http::string_body>& req);

  template <typename... Args>
  void Debug(fmt::format_string<Args...> f, Args&&... args) {
    if (logger) logger->debug(f, std::forward<Args>(args)...);
  }
};

class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(tcp::socket socket, HttpServer::Impl& server)
      : stream_(std::move(socket)), server_(server), buffer_(server.options.max_request_bytes) {}

  void Start() { Read(); }
  void Close() {
    beast::error_code ignored;
    stream_.socket().close(ignored);
  }

 private:
  void Read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(
        std::min<std::size_t>(server_.options.max_request_bytes, UINT32_MAX)));
    parser_->body_limit(server_.options.max_request_bytes);
    stream_.expires_after(server_.options.request_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::header_limit || ec == http::error::body_limit ||
        ec == http::error::buffer_overflow) {
      server_.Debug("http: request too large: {}", ec.message());
      return Reply(Simple(http::status::payload_too_large, "request too large\n"), false);
    }
    if (ec && ec.category() == http::make_error_code(http::error::end_of_stream).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message) {
      server_.Debug("http: bad request: {}", ec.message());
      return Reply(Simple(http::status::bad_request, "bad request\n"), false);
    }
    if (ec) {  // end of stream, timeout, reset, or aborted by Stop
      if (ec != http::error::end_of_stream) server_.Debug("http: connection: {}", ec.message());
      return Close();
    }
    const http::request<http::string_body>& req = parser_->get();
    if (req.version() != 10 && req.version() != 11) {
      return Reply(Simple(http::status::http_version_not_supported, "HTTP/1.0 or 1.1 only\n"),
                   false);
    }
    Reply(server_.Respond(req), req.keep_alive());
  }

  static http::response<http::string_body> Simple(http::status status, std::string body) {
    http::response<http::string_body> res{status, 11};
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.body() = std::move(body);
    return res;
  }

  void Reply(http::response<http::string_body> res, bool keep_alive) {
    res.set(http::field::server, "ec-osd");
    res.keep_alive(keep_alive);
    if (res.find(http::field::content_length) == res.end()) res.prepare_payload();
    response_ = std::move(res);
    stream_.expires_after(server_.options.request_timeout);
    http::async_write(stream_, response_,
                      [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
                        if (ec || !keep_alive) {
                          beast::error_code ignored;
                          self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          return self->Close();
                        }
                        self->Read();
                      });
  }

  beast::tcp_stream stream_;
  HttpServer::Impl& server_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
};

http::response<http::string_body> HttpServer::Impl::Respond(
    const http::request<http::string_body>& req) {
  http::response<http::string_body> res{http::status::ok, req.version()};
  const bool head = req.method() == http::verb::head;
  if (req.method() != http::verb::get && !head) {
    res.result(http::status::method_not_allowed);
    res.set(http::field::allow, "GET, HEAD");
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.body() = "method not allowed\n";
    res.prepare_payload();
    return res;
  }
  std::string_view target(req.target().data(), req.target().size());
  target = target.substr(0, target.find('?'));
  if (target == "/metrics") {
    res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    if (registry != nullptr) res.body() = registry->RenderPrometheus();
  } else if (target == "/metrics/cluster" && cluster_metrics) {
    res.set(http::field::content_type, "text/plain; version=0.0.4; charset=utf-8");
    try {
      Result<std::string> text = cluster_metrics();
      if (text.ok()) {
        res.body() = std::move(text).value();
      } else {
        res.result(http::status::service_unavailable);
        res.set(http::field::content_type, "text/plain; charset=utf-8");
        res.body() = text.status().message() + "\n";
      }
    } catch (const std::exception& e) {
      res.result(http::status::internal_server_error);
      res.set(http::field::content_type, "text/plain; charset=utf-8");
      res.body() = std::string(e.what()) + "\n";
    }
  } else if (target == "/status") {
    res.set(http::field::content_type, "application/json");
    try {
      const nlohmann::json j = status ? status() : nlohmann::json::object();
      res.body() = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    } catch (const std::exception& e) {
      res.result(http::status::internal_server_error);
      res.body() = nlohmann::json{{"error", e.what()}}.dump(
                       -1, ' ', false, nlohmann::json::error_handler_t::replace) +
                   "\n";
    }
  } else {
    res.result(http::status::not_found);
    res.set(http::field::content_type, "text/plain; charset=utf-8");
    res.body() = "not found\n";
  }
  res.prepare_payload();
  // A HEAD answer keeps the Content-Length of the GET answer but carries no body.
  if (head) res.body().clear();
  return res;
}

void HttpServer::Impl::Accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // EMFILE and the like: keep accepting rather than go deaf; the next accept may succeed.
      Debug("http: accept: {}", ec.message());
      return Accept();
    }
    sessions.remove_if([](const std::weak_ptr<HttpSession>& w) { return w.expired(); });
    if (sessions.size() >= options.max_connections) {
      Debug("http: too many connections ({}), closing a new one", sessions.size());
      beast::error_code ignored;
      socket.close(ignored);
      return Accept();
    }
    auto session = std::make_shared<HttpSession>(std::move(socket), *this);
    sessions.push_back(session);
    session->Start();
    Accept();
  });
}

void HttpServer::Impl::Run() {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      // A handler threw (out of memory, most likely): drop that work, keep serving.
      if (logger) logger->error("http: {}", e.what());
    }
  }
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  Stop();
}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      const MetricsRegistry* registry,
                                                      StatusCallback status,
                                                      std::shared_ptr<spdlog::logger> logger,
                                                      TextCallback cluster_metrics) {
  beast::error_code ec;
  const asio::ip::address address = asio::ip::make_address(options.host, ec);
  if (ec) {
    return Status::Invalid(
        fmt::format("http: bad listen address '{}': not an IP address", options.host));
  }
  if (options.max_request_bytes == 0 || options.max_connections == 0) {
    return Status::Invalid("http: max_request_bytes and max_connections must be positive");
  }
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->registry = registry;
  impl->status = std::move(status);
  impl->cluster_metrics = std::move(cluster_metrics);
  impl->logger = std::move(logger);
  const tcp::endpoint endpoint(address, options.port);
  const auto fail = [&](const char* what) {
    return Status::Error(ec.value(), fmt::format("http: cannot listen on {}:{}: {} ({})",
                                                 options.host, options.port, ec.message(), what));
  };
  if (impl->acceptor.open(endpoint.protocol(), ec)) return fail("open");
  if (impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec)) return fail("option");
  if (impl->acceptor.bind(endpoint, ec)) return fail("bind");
  if (impl->acceptor.listen(asio::socket_base::max_listen_connections, ec)) return fail("listen");
  impl->port = impl->acceptor.local_endpoint(ec).port();
  if (ec) return fail("getsockname");

  impl->Accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] {
    NameCurrentThread("http");
    raw->Run();
  });
  if (raw->logger)
    raw->logger->info("http: serving /metrics{} and /status on {}:{}",
                      raw->cluster_metrics ? ", /metrics/cluster" : "", options.host, raw->port);
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

std::uint16_t HttpServer::port() const {
  return impl_->port;
}

void HttpServer::Stop() {
  std::lock_guard lock(impl_->stop_mu);
  if (impl_->stopped) return;
  impl_->stopped = true;
  Impl* impl = impl_.get();
  asio::post(impl->ioc, [impl] {
    beast::error_code ignored;
    impl->acceptor.close(ignored);
    for (const std::weak_ptr<HttpSession>& w : impl->sessions) {
      if (auto s = w.lock()) s->Close();
    }
    // Handlers still queued (the aborted reads) are destroyed with the io_context, unrun.
    impl->ioc.stop();
  });
  if (impl->thread.joinable()) impl->thread.join();
  if (impl->logger) impl->logger->info("http: stopped");
}

}  // namespace ec::osd::daemon
