// ClientConnection: one connection slot of an OsdClient (client.h) to its endpoint. Internal to
// the client library.
//
// The slot owns the requests: it tags them, keeps at most the server's max_inflight outstanding
// (the rest wait, at most ClientOptions::max_queued), matches replies to tags, fails requests
// whose deadline passed, and (re)connects on demand as the asking side of the handshake. The bytes
// travel through a ClientSession, a FramedConnection (connection.h) per TCP connection: after a
// failure the session is closed and forgotten, and the next request opens a new one, so a late
// completion of an old connection can never touch the new one.
//
// Threading: every member runs on the slot's strand, which is also its sessions' executor; the
// public methods may be called from any thread.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "msg/client.h"
#include "msg/frame.h"
#include "msg/messages.h"

namespace ec::msg::detail {

// Completion of one request: a transport/protocol Status, else the decoded reply and its payload.
using RawCallback = std::function<void(Status, ReplyBody, Buffer)>;

// One request on its way: encoded message header, payload, crcs (computed by the caller's thread).
struct Call {
  MsgType type;
  std::vector<std::byte> header;
  std::vector<Buffer> payload;
  std::uint64_t payload_len = 0;
  std::uint32_t header_crc = 0;
  std::uint32_t payload_crc = 0;
  std::chrono::milliseconds timeout;
  RawCallback done;
  std::uint64_t tag = 0;
  std::chrono::steady_clock::time_point deadline;
};

struct AtomicClientCounters {
  std::atomic<std::uint64_t> requests_sent{0};
  std::atomic<std::uint64_t> replies_received{0};
  std::atomic<std::uint64_t> timeouts{0};
  std::atomic<std::uint64_t> connects{0};
  std::atomic<std::uint64_t> connection_failures{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> auth_failures{0};
};

// What the connections of one OsdClient share. Each connection holds it (shared), so that one
// whose last handlers run on a shared io_context after the OsdClient is gone still finds it.
struct ClientContext {
  ClientOptions options;
  std::shared_ptr<spdlog::logger> log;
  boost::asio::io_context* io = nullptr;  // the client's own, or ClientOptions::shared_io's
  AtomicClientCounters counters;
};

// ESHUTDOWN "client closed".
Status ClientShutdown();

class ClientSession;

class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  ClientConnection(std::shared_ptr<ClientContext> client, int index);

  // Sends `call` (connecting first if needed); call.done runs exactly once, on the strand.
  void Submit(Call call);
  // Connects if needed; `done` receives the outcome of the handshake (on the strand).
  void EnsureConnected(std::function<void(Status)> done);
  // Fails every request with ESHUTDOWN and closes the connection; later calls fail the same way.
  void Close();

  // From a session (ClientSession forwards its hooks here; a session that is no longer the
  // slot's current one is ignored).
  FrameError CheckHeader(const ClientSession* s, const FrameHeader& h, std::string* why);
  void OnFrame(const ClientSession* s, const FrameHeader& h, std::span<const std::byte> message,
               Buffer payload);
  void OnFrameError(const ClientSession* s, std::string_view message);
  void OnReadError(const ClientSession* s, const boost::system::error_code& ec);
  void OnWriteError(const ClientSession* s, const boost::system::error_code& ec);

 private:
  enum class State { kDisconnected, kConnecting, kReady };

  void OnSubmit(Call call);
  void ArmSweep();
  void Sweep();
  void StartConnect();
  Status ErrorStatus(const boost::system::error_code& ec, std::string_view what) const;
  void SendHello();
  void OnHelloReply(std::span<const std::byte> message);
  void OnAuthReply(std::span<const std::byte> message);
  void AuthFailed(std::string message);
  void Ready();
  void ConnectFailed(Status s);
  void Fail(Status s);
  void SendWaiting();
  void ConnectionError(const boost::system::error_code& ec, std::string_view what);
  void ProtocolFailure(Status s);

  std::shared_ptr<ClientContext> context_;  // kept alive while this connection lives
  ClientContext& client_;                   // *context_
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::steady_timer connect_timer_;
  boost::asio::steady_timer sweep_timer_;
  bool sweep_armed_ = false;
  int index_;
  State state_ = State::kDisconnected;
  bool closed_ = false;
  std::shared_ptr<ClientSession> session_;  // the TCP connection of the moment (null: none)
  std::vector<std::function<void(Status)>> connect_waiters_;
  HelloReply server_;
  // Authentication (auth cephx), for the connection being made: the Hello and HelloReply bytes
  // and the nonces the proofs and session keys are made of; awaiting_auth_ once our proof is sent.
  bool awaiting_auth_ = false;
  std::vector<std::byte> hello_bytes_;
  std::vector<std::byte> reply_bytes_;
  auth::Nonce nonce_{};
  std::uint32_t max_inflight_ = 1;
  std::uint32_t inflight_ = 0;
  std::uint64_t next_tag_ = 1;
  std::deque<Call> waiting_;
  std::unordered_map<std::uint64_t, Call> pending_;
};

}  // namespace ec::msg::detail
