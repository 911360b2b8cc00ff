// HttpServer: the daemon's small HTTP/1.1 endpoint for monitoring (Boost.Beast).
//
//   GET /metrics  200, Content-Type: text/plain; version=0.0.4; charset=utf-8, the registry's
//                 RenderPrometheus()
//   GET /metrics/cluster
//                 with a cluster-metrics callback: 200 with its Prometheus text (the cluster
//                 exporter, cluster/admin/prometheus_exporter.h; an empty page from an OSD that
//                 is not the elected monitor, as ceph-mgr's standbys answer), or 503 text/plain
//                 with its error; without one, 404
//   GET /status   200, Content-Type: application/json, the status callback's JSON (500 with a
//                 JSON error object if the callback throws)
//   GET other     404 text/plain
//   other method  405 with "Allow: GET" (HEAD is answered like GET without a body)
//
// The server runs its own I/O thread. Connections are served concurrently (keep-alive honoured);
// each request must arrive within HttpServerOptions::request_timeout and its header and body stay
// under max_request_bytes, otherwise the connection is closed (a 400/413 is sent when the request
// was at least parseable). Garbage input closes that connection only; the server keeps serving.
// Connections beyond max_connections are closed right after accept.
//
// Thread safety: Start, port, Stop and the destructor may be called from any thread, Stop more
// than once. The callbacks and the registry's render run on the server's thread, one request at
// a time (a slow callback delays the other requests: the cluster metrics read etcd, bounded by
// the etcd client's timeout); they must be safe to call concurrently with the daemon's own work.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "common/metrics.h"
#include "common/status.h"

namespace spdlog {
class logger;
}

namespace ec::osd::daemon {

struct HttpServerOptions {
  std::string host = "127.0.0.1";             // IPv4 or IPv6 literal (not a name)
  std::uint16_t port = 0;                     // 0: kernel-chosen, see HttpServer::port()
  std::size_t max_request_bytes = 16 * 1024;  // header + body
  std::chrono::milliseconds request_timeout{10000};
  std::size_t max_connections = 64;
};

class HttpServer {
 public:
  using StatusCallback = std::function<nlohmann::json()>;
  // The page of /metrics/cluster, or an error (503).
  using TextCallback = std::function<Result<std::string>()>;

  // Binds, listens and starts the server thread. `registry` is borrowed and must outlive the
  // server; `status` may be empty (then /status answers {}); `logger` may be null (no logging;
  // otherwise connection errors are logged at debug level, start/stop at info);
  // `cluster_metrics` may be empty (then /metrics/cluster is 404).
  // Errors: EINVAL for a host that is not an IP literal; the bind/listen errno (EADDRINUSE,
  // EACCES, EADDRNOTAVAIL) with "http: cannot listen on HOST:PORT: <reason>".
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   const MetricsRegistry* registry,
                                                   StatusCallback status,
                                                   std::shared_ptr<spdlog::logger> logger = {},
                                                   TextCallback cluster_metrics = {});

  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the kernel's choice when options.port was 0).
  std::uint16_t port() const;

  // Stops accepting, closes every connection, joins the thread. Idempotent; returns once no
  // callback is running or will run.
  void Stop();

 private:
  friend class HttpSession;  // one connection, in http_server.cc
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ec::osd::daemon
