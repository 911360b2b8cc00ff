// HttpConnection: one blocking HTTP/1.1 connection to one etcd endpoint, over Boost.Beast.
// Internal to the etcd client (etcd_client.h, etcd_watch.h); not a general HTTP client.
//
// Every call takes an absolute deadline and returns by then: ETIMEDOUT when it passed. A call
// also returns early (ECANCELED) when the optional stop flag becomes true; the flag is polled
// every 50 ms, which is how a watch thread is told to quit while it waits for events.
// Errors: ECONNREFUSED (nothing listens), ETIMEDOUT, ECONNRESET (peer closed or reset), EPROTO
// (not HTTP, or a reply body above the cap), EHOSTUNREACH (the name does not resolve). All of
// them are Status::Retryable: another endpoint or a later attempt may succeed.
//
// TLS (an https endpoint): the connection verifies etcd's certificate against the CA of its
// TlsContext and the endpoint's host (an IP address against the certificate's IP SANs), and
// presents the client certificate when the context has one (etcd's --client-cert-auth). A TLS
// failure (a certificate refused either way, no TLS on the other side) is EACCES, not retryable,
// with a message naming the options to check.
//
// Every request carries the gRPC metadata hasleader=true (header Grpc-Metadata-Hasleader), so that
// a member without a leader refuses it at once (etcd_client.h), Accept: application/json (etcd
// 3.4 tells a gateway request by it: without it, with --client-cert-auth, a request without a
// token acts as the user named by the gateway's own certificate's CN), and the etcd auth token
// given to set_token, if any (header Authorization, which the gateway passes to etcd).
//
// Thread safety: none; one thread uses one connection. The connection owns its io_context.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/buffer_body.hpp>
#include <boost/beast/http/parser.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::etcd {

using Clock = std::chrono::steady_clock;

// One etcd client URL, "http://host:port", "https://host:port" (tls) or "host:port".
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  bool tls = false;
  std::string ToString() const { return host + ":" + std::to_string(port); }
};

// Parses a comma-separated list of endpoints ("http://127.0.0.1:2379,10.0.0.2:2379").
// Errors: EINVAL for an empty list, a scheme other than http and https, a missing host or a port
// outside 1..65535.
Result<std::vector<Endpoint>> ParseEndpoints(std::string_view list);

// The files of etcd over TLS, as the config names them (etcd_ca_file, etcd_cert_file,
// etcd_key_file): PEM, the CA required, the certificate and key both or neither.
struct TlsFiles {
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  bool empty() const { return ca_file.empty() && cert_file.empty() && key_file.empty(); }
};

// A TLS client context (OpenSSL's, through Boost.Asio), made once per client and shared by its
// connections (thread-safe once made). Opaque: Boost.Asio's SSL headers stay in the .cc.
class TlsContext;

// Errors (EINVAL, naming the option and the file): no CA file; a certificate without a key or a
// key without a certificate; a file that cannot be read or is not PEM of its kind; a key that does
// not match the certificate.
Result<std::shared_ptr<TlsContext>> MakeTlsContext(const TlsFiles& files);

// The endpoints of `list` and the TLS context they need: null when no endpoint is https and no
// file is given. Errors: ParseEndpoints's; EINVAL for https endpoints without etcd_ca_file, for
// TLS files with only http endpoints (a config that believes it is protected and is not), and
// MakeTlsContext's.
struct EndpointsAndTls {
  std::vector<Endpoint> endpoints;
  std::shared_ptr<TlsContext> tls;
};
Result<EndpointsAndTls> ParseEndpointsWithTls(std::string_view list, const TlsFiles& files);

class HttpConnection {
 public:
  // stop may be null; when given it must outlive the connection. `tls` is the context of https
  // endpoints (null: Connect refuses an https endpoint, EINVAL).
  explicit HttpConnection(const std::atomic<bool>* stop = nullptr,
                          std::shared_ptr<TlsContext> tls = nullptr);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Resolves and connects. A connection already open is closed first.
  Status Connect(const Endpoint& endpoint, Clock::time_point deadline);

  struct Reply {
    unsigned status = 0;
    std::string body;
  };
  // POSTs a JSON body to target and reads the whole reply (chunked or not). A body longer than
  // max_body bytes is EPROTO. The connection stays usable after a complete reply unless the
  // server said it closes it (reusable()).
  Result<Reply> Post(std::string_view target, std::string_view body, std::size_t max_body,
                     Clock::time_point deadline);

  // Streaming: POSTs body and reads the reply header; returns the HTTP status. Then ReadSome
  // returns body bytes as they arrive (never empty); ECONNRESET when the stream ended.
  Result<unsigned> StartStream(std::string_view target, std::string_view body,
                               Clock::time_point deadline);
  Result<std::string> ReadSome(Clock::time_point deadline);

  // False after a reply that closes the connection (Connection: close, HTTP/1.0): Connect again
  // before another request. True after Connect.
  bool reusable() const { return keep_alive_; }

  // The etcd auth token sent with every later request (etcd_auth.h); empty: none. The caller
  // checks it holds no control character or space (Credentials does).
  void set_token(std::string token) { token_ = std::move(token); }

  void Close();

 private:
  struct TlsStream;
  Status Run(bool& done, Clock::time_point deadline);
  Status WriteRequest(std::string_view target, std::string_view body, Clock::time_point deadline);
  Status Handshake(const Endpoint& endpoint, Clock::time_point deadline);
  // Calls f with the stream requests go through: the TLS stream over stream_, or stream_ itself.
  template <typename F>
  void WithStream(F&& f);

  const std::atomic<bool>* stop_;
  std::shared_ptr<TlsContext> tls_;
  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_;
  std::unique_ptr<TlsStream> tls_stream_;  // while connected to an https endpoint
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
  std::string host_header_;
  std::string token_;
  bool keep_alive_ = true;
};

// Maps a Boost error to a Status ("what: message"), ETIMEDOUT/ECONNREFUSED/ECONNRESET/EPROTO.
Status NetError(const boost::system::error_code& ec, std::string_view what);

}  // namespace ec::etcd
