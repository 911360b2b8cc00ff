#include "cluster/etcd/http_connection.h"

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <charconv>

namespace ec::etcd {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {
constexpr auto kPollSlice = std::chrono::milliseconds(50);
constexpr std::size_t kStreamChunk = 16384;

constexpr std::string_view kTlsHint =
    " (TLS: etcd refused this client's certificate, or this client refused etcd's, or the other "
    "side does not speak TLS: check etcd_endpoints' scheme, etcd_ca_file, etcd_cert_file and "
    "etcd_key_file)";

// A refusal or a failure of TLS itself; a stream cut without TLS's close_notify (a peer that
// died) is a reset like any other.
bool IsTlsError(const boost::system::error_code& ec) {
  if (ec == asio::ssl::error::stream_truncated) return false;
  return ec.category() == asio::error::get_ssl_category() ||
         ec.category() == asio::ssl::error::get_stream_category();
}
}  // namespace

class TlsContext {
 public:
  TlsContext() : ctx(asio::ssl::context::tls_client) {}
  // Streams are made on it from any thread (OpenSSL's SSL_CTX is thread-safe once set up).
  mutable asio::ssl::context ctx;
};

struct HttpConnection::TlsStream {
  TlsStream(beast::tcp_stream& next, asio::ssl::context& ctx) : stream(next, ctx) {}
  asio::ssl::stream<beast::tcp_stream&> stream;
};

Result<std::shared_ptr<TlsContext>> MakeTlsContext(const TlsFiles& files) {
  if (files.ca_file.empty()) {
    return Status::Invalid("etcd over TLS needs etcd_ca_file (the CA of etcd's certificate)");
  }
  if (files.cert_file.empty() != files.key_file.empty()) {
    return Status::Invalid(
        "etcd_cert_file and etcd_key_file go together (a client certificate and its key)");
  }
  auto t = std::make_shared<TlsContext>();
  boost::system::error_code ec;
  t->ctx.set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                         asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                         asio::ssl::context::no_tlsv1_1,
                     ec);
  if (ec) return Status::Invalid("etcd TLS: " + ec.message());
  t->ctx.load_verify_file(files.ca_file, ec);
  if (ec) return Status::Invalid("etcd_ca_file " + files.ca_file + ": " + ec.message());
  t->ctx.set_verify_mode(asio::ssl::verify_peer, ec);
  if (ec) return Status::Invalid("etcd TLS: " + ec.message());
  if (!files.cert_file.empty()) {
    t->ctx.use_certificate_chain_file(files.cert_file, ec);
    if (ec) return Status::Invalid("etcd_cert_file " + files.cert_file + ": " + ec.message());
    t->ctx.use_private_key_file(files.key_file, asio::ssl::context::pem, ec);
    if (ec) return Status::Invalid("etcd_key_file " + files.key_file + ": " + ec.message());
  }
  return t;
}

Result<EndpointsAndTls> ParseEndpointsWithTls(std::string_view list, const TlsFiles& files) {
  Result<std::vector<Endpoint>> endpoints = ParseEndpoints(list);
  if (!endpoints.ok()) return endpoints.status();
  EndpointsAndTls out;
  out.endpoints = std::move(endpoints).value();
  const bool any_tls = std::any_of(out.endpoints.begin(), out.endpoints.end(),
                                   [](const Endpoint& e) { return e.tls; });
  if (!any_tls && files.empty()) return out;
  if (!any_tls) {
    return Status::Invalid(
        "etcd_ca_file, etcd_cert_file or etcd_key_file set but no etcd endpoint is https: the "
        "connections to etcd would not be protected");
  }
  Result<std::shared_ptr<TlsContext>> tls = MakeTlsContext(files);
  if (!tls.ok()) return tls.status();
  out.tls = std::move(tls).value();
  return out;
}

Result<std::vector<Endpoint>> ParseEndpoints(std::string_view list) {
  std::vector<Endpoint> out;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    std::string whole(item);
    bool tls = false;
    if (item.starts_with("https://")) {
      tls = true;
      item.remove_prefix(8);
    } else if (item.starts_with("http://")) {
      item.remove_prefix(7);
    } else if (item.find("://") != std::string_view::npos) {
      return Status::Invalid("etcd endpoint '" + whole + "': only http:// and https:// are known");
    }
    if (!item.empty() && item.back() == '/') item.remove_suffix(1);
    std::size_t colon = item.rfind(':');
    if (colon == std::string_view::npos || colon == 0) {
      return Status::Invalid("etcd endpoint '" + whole + "': expected host:port");
    }
    std::string_view port_text = item.substr(colon + 1);
    unsigned port = 0;
    auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port == 0 ||
        port > 65535) {
      return Status::Invalid("etcd endpoint '" + whole + "': bad port");
    }
    std::string_view host = item.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    out.push_back(Endpoint{std::string(host), static_cast<std::uint16_t>(port), tls});
  }
  if (out.empty()) return Status::Invalid("no etcd endpoint given");
  return out;
}

Status NetError(const boost::system::error_code& ec, std::string_view what) {
  std::string msg = std::string(what) + ": " + ec.message();
  if (IsTlsError(ec)) return Status::Error(EACCES, msg + std::string(kTlsHint));
  if (ec == asio::error::connection_refused) return Status::Retryable(ECONNREFUSED, msg);
  if (ec == asio::error::timed_out || ec == beast::error::timeout) {
    return Status::Retryable(ETIMEDOUT, msg);
  }
  if (ec == asio::error::host_not_found || ec == asio::error::host_not_found_try_again ||
      ec == asio::error::host_unreachable || ec == asio::error::network_unreachable) {
    return Status::Retryable(EHOSTUNREACH, msg);
  }
  if (ec == http::error::body_limit) return Status::Retryable(EPROTO, msg + " (reply too large)");
  if (ec.category() == boost::system::error_code(http::error::end_of_stream).category() &&
      ec != http::error::end_of_stream && ec != http::error::partial_message) {
    return Status::Retryable(EPROTO, msg + " (not a valid HTTP reply)");
  }
  return Status::Retryable(ECONNRESET, msg);
}

HttpConnection::HttpConnection(const std::atomic<bool>* stop, std::shared_ptr<TlsContext> tls)
    : stop_(stop), tls_(std::move(tls)), stream_(ioc_) {}

template <typename F>
void HttpConnection::WithStream(F&& f) {
  if (tls_stream_) {
    f(tls_stream_->stream);
  } else {
    f(stream_);
  }
}

HttpConnection::~HttpConnection() {
  Close();
}

void HttpConnection::Close() {
  boost::system::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.socket().close(ignored);
  tls_stream_.reset();
  parser_.reset();
  buffer_.clear();
}

// Runs the io_context until the started operation sets done. On deadline or stop the socket is
// closed and the operation drained, so that no handler outlives the caller's stack frame.
Status HttpConnection::Run(bool& done, Clock::time_point deadline) {
  ioc_.restart();
  Status result;
  while (!done) {
    auto now = Clock::now();
    if (stop_ != nullptr && stop_->load()) {
      result = Status::Error(ECANCELED, "stopped");
    } else if (now >= deadline) {
      result = Status::Retryable(ETIMEDOUT, "timed out");
    } else {
      auto slice = std::min<Clock::duration>(kPollSlice, deadline - now);
      ioc_.run_one_for(slice);
      continue;
    }
    boost::system::error_code ignored;
    stream_.socket().close(ignored);
    ioc_.restart();
    while (!done) ioc_.run_one();
    break;
  }
  return result;
}

Status HttpConnection::Connect(const Endpoint& endpoint, Clock::time_point deadline) {
  Close();
  keep_alive_ = true;
  host_header_ = endpoint.ToString();
  if (endpoint.tls && !tls_) {
    return Status::Invalid("etcd https://" + endpoint.ToString() +
                           ": an https endpoint needs etcd_ca_file (and, for etcd's "
                           "--client-cert-auth, etcd_cert_file and etcd_key_file)");
  }
  tcp::resolver resolver(ioc_);
  bool done = false;
  boost::system::error_code error;
  tcp::resolver::results_type results;
  resolver.async_resolve(endpoint.host, std::to_string(endpoint.port),
                         [&](const boost::system::error_code& ec, tcp::resolver::results_type r) {
                           error = ec;
                           results = std::move(r);
                           done = true;
                         });
  std::string what = "etcd " + endpoint.ToString();
  ioc_.restart();
  Status s;
  {
    // The resolver is not the stream: cancel it by hand when Run would give up.
    while (!done) {
      auto now = Clock::now();
      if ((stop_ != nullptr && stop_->load()) || now >= deadline) {
        resolver.cancel();
        while (!done) ioc_.run_one();
        if (stop_ != nullptr && stop_->load()) return Status::Error(ECANCELED, what + ": stopped");
        return Status::Retryable(ETIMEDOUT, what + ": resolve timed out");
      }
      ioc_.run_one_for(std::min<Clock::duration>(kPollSlice, deadline - now));
    }
  }
  if (error) return NetError(error, what + ": resolve");
  done = false;
  asio::async_connect(stream_.socket(), results,
                      [&](const boost::system::error_code& ec, const tcp::endpoint&) {
                        error = ec;
                        done = true;
                      });
  s = Run(done, deadline);
  if (!s.ok()) return s.WithPrefix(what + ": connect");
  if (error) return NetError(error, what + ": connect");
  boost::system::error_code ignored;
  stream_.socket().set_option(tcp::no_delay(true), ignored);
  if (endpoint.tls) return Handshake(endpoint, deadline);
  return Status::OK();
}

Status HttpConnection::Handshake(const Endpoint& endpoint, Clock::time_point deadline) {
  const std::string what = "etcd https://" + endpoint.ToString() + ": TLS handshake";
  tls_stream_ = std::make_unique<TlsStream>(stream_, tls_->ctx);
  SSL* ssl = tls_stream_->stream.native_handle();
  boost::system::error_code ec;
  asio::ip::make_address(endpoint.host, ec);
  // SNI for a host name (not for an address, as RFC 6066 says).
  if (ec && SSL_set_tlsext_host_name(ssl, endpoint.host.c_str()) != 1) {
    return Status::Invalid(what + ": bad host name for SNI");
  }
  tls_stream_->stream.set_verify_callback(asio::ssl::host_name_verification(endpoint.host), ec);
  if (ec) return NetError(ec, what);
  bool done = false;
  boost::system::error_code error;
  tls_stream_->stream.async_handshake(asio::ssl::stream_base::client,
                                      [&](const boost::system::error_code& e) {
                                        error = e;
                                        done = true;
                                      });
  Status s = Run(done, deadline);
  if (!s.ok()) return s.WithPrefix(what);
  if (error) return NetError(error, what);
  return Status::OK();
}

Status HttpConnection::WriteRequest(std::string_view target, std::string_view body,
                                    Clock::time_point deadline) {
  http::request<http::string_body> req{http::verb::post, std::string(target), 11};
  req.set(http::field::host, host_header_);
  req.set(http::field::content_type, "application/json");
  // Without an Accept header etcd 3.4 does not know a request came through its gateway and, with
  // --client-cert-auth and no token, takes the CN of the gateway's own certificate as its user.
  req.set(http::field::accept, "application/json");
  // gRPC metadata hasleader=true (clientv3's WithRequireLeader): a member without a leader answers
  // UNAVAILABLE "no leader" at once, and cancels a watch stream when it loses its leader.
  req.set("Grpc-Metadata-Hasleader", "true");
  // etcd's auth token (etcd_auth.h): the gateway passes the Authorization header to etcd.
  if (!token_.empty()) req.set(http::field::authorization, token_);
  req.body() = std::string(body);
  req.prepare_payload();
  bool done = false;
  boost::system::error_code error;
  WithStream([&](auto& stream) {
    http::async_write(stream, req, [&](const boost::system::error_code& ec, std::size_t) {
      error = ec;
      done = true;
    });
  });
  std::string what = "etcd " + host_header_ + std::string(target);
  EC_RETURN_IF_ERROR(Run(done, deadline).WithPrefix(what + ": send"));
  if (error) return NetError(error, what + ": send");
  return Status::OK();
}

Result<HttpConnection::Reply> HttpConnection::Post(std::string_view target, std::string_view body,
                                                   std::size_t max_body,
                                                   Clock::time_point deadline) {
  EC_RETURN_IF_ERROR(WriteRequest(target, body, deadline));
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_body);
  bool done = false;
  boost::system::error_code error;
  WithStream([&](auto& stream) {
    http::async_read(stream, buffer_, parser,
                     [&](const boost::system::error_code& ec, std::size_t) {
                       error = ec;
                       done = true;
                     });
  });
  std::string what = "etcd " + host_header_ + std::string(target);
  Status s = Run(done, deadline);
  if (!s.ok()) return s.WithPrefix(what + ": reply");
  if (error == http::error::end_of_stream && !tls_stream_) {
    return NetError(error, what +
                               ": reply (closed without a reply: etcd stopped, or it serves "
                               "https and this endpoint says http://)");
  }
  if (error) return NetError(error, what + ": reply");
  keep_alive_ = parser.get().keep_alive();
  Reply reply;
  reply.status = parser.get().result_int();
  reply.body = std::move(parser.get().body());
  return reply;
}

Result<unsigned> HttpConnection::StartStream(std::string_view target, std::string_view body,
                                             Clock::time_point deadline) {
  EC_RETURN_IF_ERROR(WriteRequest(target, body, deadline));
  parser_.emplace();
  parser_->body_limit(boost::none);
  bool done = false;
  boost::system::error_code error;
  WithStream([&](auto& stream) {
    http::async_read_header(stream, buffer_, *parser_,
                            [&](const boost::system::error_code& ec, std::size_t) {
                              error = ec;
                              done = true;
                            });
  });
  std::string what = "etcd " + host_header_ + std::string(target);
  Status s = Run(done, deadline);
  if (!s.ok()) return s.WithPrefix(what + ": reply header");
  if (error) return NetError(error, what + ": reply header");
  return static_cast<unsigned>(parser_->get().result_int());
}

Result<std::string> HttpConnection::ReadSome(Clock::time_point deadline) {
  std::string what = "etcd " + host_header_ + " stream";
  if (!parser_) return Status::Error(EINVAL, what + ": no stream started");
  std::string out;
  while (out.empty()) {
    if (parser_->is_done()) return Status::Retryable(ECONNRESET, what + ": ended");
    out.resize(kStreamChunk);
    parser_->get().body().data = out.data();
    parser_->get().body().size = out.size();
    bool done = false;
    boost::system::error_code error;
    WithStream([&](auto& stream) {
      http::async_read_some(stream, buffer_, *parser_,
                            [&](const boost::system::error_code& ec, std::size_t) {
                              error = ec;
                              done = true;
                            });
    });
    Status s = Run(done, deadline);
    if (!s.ok()) return s.WithPrefix(what);
    if (error && error != http::error::need_buffer) return NetError(error, what);
    out.resize(kStreamChunk - parser_->get().body().size);
  }
  return out;
}

}  // namespace ec::etcd
