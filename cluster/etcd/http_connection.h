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
// Every request carries the gRPC metadata hasleader=true (header Grpc-Metadata-Hasleader), so that
// a member without a leader refuses it at once (etcd_client.h).
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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace ec::etcd {

using Clock = std::chrono::steady_clock;

// One etcd client URL, "http://host:port" or "host:port". Only plain http is supported.
struct Endpoint {
  std::string host;
  std::uint16_t port = 0;
  std::string ToString() const { return host + ":" + std::to_string(port); }
};

// Parses a comma-separated list of endpoints ("http://127.0.0.1:2379,10.0.0.2:2379").
// Errors: EINVAL for an empty list, an https URL, a missing host or a port outside 1..65535.
Result<std::vector<Endpoint>> ParseEndpoints(std::string_view list);

class HttpConnection {
 public:
  // stop may be null; when given it must outlive the connection.
  explicit HttpConnection(const std::atomic<bool>* stop = nullptr);
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
  // max_body bytes is EPROTO. The connection stays usable after a complete reply.
  Result<Reply> Post(std::string_view target, std::string_view body, std::size_t max_body,
                     Clock::time_point deadline);

  // Streaming: POSTs body and reads the reply header; returns the HTTP status. Then ReadSome
  // returns body bytes as they arrive (never empty); ECONNRESET when the stream ended.
  Result<unsigned> StartStream(std::string_view target, std::string_view body,
                               Clock::time_point deadline);
  Result<std::string> ReadSome(Clock::time_point deadline);

  void Close();

 private:
  Status Run(bool& done, Clock::time_point deadline);
  Status WriteRequest(std::string_view target, std::string_view body, Clock::time_point deadline);

  const std::atomic<bool>* stop_;
  boost::asio::io_context ioc_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::response_parser<boost::beast::http::buffer_body>> parser_;
  std::string host_header_;
};

// Maps a Boost error to a Status ("what: message"), ETIMEDOUT/ECONNREFUSED/ECONNRESET/EPROTO.
Status NetError(const boost::system::error_code& ec, std::string_view what);

}  // namespace ec::etcd
