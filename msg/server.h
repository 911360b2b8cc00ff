// Server: the receiving side of the OSD protocol on Boost.Asio. It listens on one TCP address,
// performs the handshake on each connection, reads frames, checks them (frame.h, messages.h) and
// hands every request to a RequestHandler, which answers through a Responder whenever it likes
// (typically later, from a worker thread: the io threads never wait for the disk).
//
//   socket -> [fixed header][message header] -> limits/crc checks -> payload read straight into
//   one ec::Buffer of the declared length -> RequestHandler::Handle(Request, Responder)
//   Responder::Send(reply, payload buffers) -> one gathered async_write (no copy of the payload)
//
// Backpressure: at most ServerOptions::max_inflight requests per connection are with the handler
// at once; when that many are outstanding the server stops reading that socket until one reply
// has been sent. There is no unbounded queue anywhere.
//
// Bad input (bad magic, version, crc, flags, oversized length, unknown type, malformed message
// header, a reply sent to the server, a frame before the handshake, a handshake timeout, a peer
// that stalls mid-frame for longer than frame_timeout, a frame whose MAC does not match on an
// authenticated connection) closes that connection after logging the reason at warn level and
// counting it (ServerCounters::protocol_errors); the handler never sees anything of such a frame,
// and other connections are unaffected.
//
// Authentication (ServerOptions::auth cephx; issue 32, msg/PROTOCOL.md "Authentication"): each
// connection must prove the key of the entity it claims (msg/auth/handshake.h) before any request
// is read; a client that offers no authentication, claims an entity the KeyServer does not know,
// or fails its proof (a wrong key, a replayed handshake) is refused with EACCES and a message
// saying which, counted in ServerCounters::auth_refusals, and closed. Afterwards every frame both
// ways carries a MAC, and every request passes Authorize (msg/authorize.h: sub-operations from
// OSDs only, object operations within the peer's caps) before anything else: a refusal is an
// EACCES error reply, counted too; the connection stays open. With auth none (the default, for
// benchmarks) nothing of this happens and the Hello's entity is only a claim.
//
// Thread safety: Server's methods may be called from any thread. Handle() is called on an io
// thread and must not block. Responder::Send may be called from any thread, once.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "msg/auth/handshake.h"
#include "msg/auth/key_server.h"
#include "msg/authorize.h"
#include "msg/frame.h"
#include "msg/messages.h"

namespace spdlog {
class logger;
}

namespace ec::msg {

struct ServerOptions {
  std::string address = "127.0.0.1";     // IPv4 or IPv6 literal to bind
  std::uint16_t port = 0;                // 0: the kernel chooses (see Server::port())
  int io_threads = 1;                    // threads running the io_context (1..64)
  std::uint32_t max_inflight = 32;       // requests per connection with the handler at once (>= 1)
  std::uint32_t max_connections = 1024;  // more are accepted and closed at once (counted)
  std::chrono::milliseconds handshake_timeout{5000};  // connect -> valid Hello
  // Once the first byte of a frame has arrived, the rest must arrive within this time.
  std::chrono::milliseconds frame_timeout{10000};
  // A connection with no request in flight and no byte received for this long is closed
  // (0: never). Not a protocol error: counted in ServerCounters::idle_closed.
  std::chrono::milliseconds idle_timeout{0};
  Limits limits;                           // what the server accepts
  std::string name = "ec-osd";             // sent in HelloReply
  std::shared_ptr<spdlog::logger> logger;  // null: spdlog's default logger
  // Ceph's auth_cluster_required: kCephx requires every connection to authenticate (then `keys`
  // is required: where the peers' keys and caps are found, asked once per connection on an io
  // thread); kNone accepts anyone.
  auth::AuthMode auth = auth::AuthMode::kNone;
  std::shared_ptr<const auth::KeyServer> keys;
  // Pool id -> name in the OSD's map, for the caps of object operations (Authorize). May be
  // null: then only caps that cover every pool allow them.
  PoolNameFn pool_name;
};

// One decoded request. The payload is exactly the frame's payload (crc-checked), in one Buffer
// owned by the request (the handler may keep it, e.g. inside a store Transaction).
struct Request {
  std::uint64_t tag = 0;
  RequestBody body;
  Buffer payload;
  std::uint64_t connection_id = 0;  // for logs
  std::string peer;                 // "127.0.0.1:54321"
  std::string peer_name;            // the name the client gave in its Hello ("osd.3", "client")
  // The entity of the connection ("client.app", "osd.3"): proven when `authenticated` (auth
  // cephx), else only what the Hello claimed (may be empty).
  std::string entity;
  bool authenticated = false;
  // The connection already held more received bytes when this request was handed over: more
  // requests are queued behind it (a hint for handlers choosing between latency and parallelism).
  bool more_queued = false;
};

// Sends the one reply to one request. Obtained by the handler from Handle(); keep the shared_ptr
// until the reply is sent. If the last reference to the server's responder is dropped without
// Send, the server answers EIO "request dropped by the handler" so that the client and the
// in-flight count never hang.
//
// The server's responder is one implementation; a test of a RequestHandler may derive its own
// (implementing Deliver) to drive the handler without sockets.
class Responder {
 public:
  virtual ~Responder() = default;
  Responder(const Responder&) = delete;
  Responder& operator=(const Responder&) = delete;

  // Queues the reply for sending: `body` must be the reply type of the request (a PingReply for
  // a Ping, ...); `payload` is sent after the message header with gather I/O, and its Buffers are
  // kept alive until written. Returns OK once queued, even if the connection has gone away (the
  // reply is then dropped and counted in replies_dropped). Errors: EALREADY for a second call
  // (nothing sent); from the server's responder, EINVAL when body's type does not answer the
  // request, or EMSGSIZE when the payload exceeds the client's announced max_payload_len or the
  // message header the client's max_header_len: in both cases an error reply with that status is
  // sent instead.
  Status Send(ReplyBody body, std::vector<Buffer> payload = {});
  // Shorthand: an error reply of the right type carrying `status`.
  Status SendError(Status status);

  MsgType request_type() const { return type_; }
  std::uint64_t tag() const { return tag_; }

 protected:
  Responder(MsgType type, std::uint64_t tag) : type_(type), tag_(tag) {}
  // The reply, once (Send has refused a second call). Returns what Send returns.
  virtual Status Deliver(ReplyBody body, std::vector<Buffer> payload) = 0;
  bool sent() const { return sent_; }

 private:
  MsgType type_;
  std::uint64_t tag_;
  bool sent_ = false;
};

// Implemented by the daemon (and by tests).
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;
  // Called on an io thread for each well-formed request, in arrival order per connection. Must not
  // block: queue the work and answer through `responder` later (from any thread).
  virtual void Handle(Request request, std::shared_ptr<Responder> responder) = 0;
};

// A snapshot of the server's counters (monotonic since Start, except the *_open / inflight
// gauges). requests[] and protocol_errors[] are indexed by MsgType value (1..kMaxRequestType)
// and by FrameError.
struct ServerCounters {
  std::uint64_t connections_accepted = 0;
  std::uint64_t connections_open = 0;
  std::uint64_t connections_refused = 0;  // over max_connections, or handshake refused
  std::uint64_t idle_closed = 0;
  // Connections whose Hello announced kFeatureBackground and whose socket was marked so.
  std::uint64_t background_connections = 0;
  std::array<std::uint64_t, kMaxRequestType + 1> requests{};
  std::uint64_t bytes_in = 0;   // every byte read from sockets
  std::uint64_t bytes_out = 0;  // every byte written to sockets
  std::array<std::uint64_t, static_cast<std::size_t>(FrameError::kCount)> protocol_errors{};
  std::uint64_t inflight = 0;         // requests handed to the handler, reply not yet sent
  std::uint64_t replies_dropped = 0;  // reply sent after its connection closed
  // Connections that completed an authenticated handshake, and refusals by AuthRefusal (those of
  // the handshake also count in connections_refused; frames failing their MAC count in
  // protocol_errors[kBadMac]).
  std::uint64_t authenticated_connections = 0;
  std::array<std::uint64_t, static_cast<std::size_t>(AuthRefusal::kCount)> auth_refusals{};
  std::uint64_t protocol_errors_total() const;
};

class Server {
 public:
  // Binds, listens and starts the io threads. Errors: EINVAL for bad options (an unparsable
  // address, io_threads or max_inflight out of range, auth cephx without keys); the bind/listen
  // errno (EADDRINUSE, EACCES, ...) with the address in the message.
  static Result<std::unique_ptr<Server>> Start(ServerOptions options,
                                               std::shared_ptr<RequestHandler> handler);
  // Stops (Stop with the default deadline) if still running.
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The bound port (the kernel's choice when ServerOptions::port was 0) and address.
  std::uint16_t port() const;
  const std::string& address() const;

  // Stops accepting, stops reading new requests, waits until every in-flight request has been
  // answered and written or `deadline` has passed, then closes every connection and joins the io
  // threads. Replies sent after that are dropped. Idempotent; must not be called from an io
  // thread (i.e. from Handle).
  void Stop(std::chrono::milliseconds deadline = std::chrono::milliseconds(10000));

  ServerCounters counters() const;

  class Impl;

 private:
  explicit Server(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace ec::msg
