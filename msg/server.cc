#include "msg/server.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <unordered_map>

#include "common/thread_name.h"
#include "msg/connection.h"
#include "msg/out_frame.h"
#include "msg/traffic_class.h"

namespace ec::msg {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace detail {
class ServerConnection;

// The server's counters (Server::Impl's): in a named namespace, as the type of a member of a
// class with external linkage.
struct AtomicCounters {
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_open{0};
  std::atomic<std::uint64_t> connections_refused{0};
  std::atomic<std::uint64_t> idle_closed{0};
  std::atomic<std::uint64_t> background_connections{0};
  std::array<std::atomic<std::uint64_t>, kMaxRequestType + 1> requests{};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(FrameError::kCount)>
      protocol_errors{};
  std::atomic<std::uint64_t> inflight{0};
  std::atomic<std::uint64_t> replies_dropped{0};
  std::atomic<std::uint64_t> authenticated_connections{0};
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(AuthRefusal::kCount)>
      auth_refusals{};
};

}  // namespace detail

namespace {

// Smallest reply limits a client may announce: every error reply must fit.
constexpr std::uint32_t kMinPeerHeaderLen = 8 * 1024;

}  // namespace

class Server::Impl : public std::enable_shared_from_this<Server::Impl> {
 public:
  Impl(ServerOptions options, std::shared_ptr<RequestHandler> handler)
      : options_(std::move(options)),
        handler_(std::move(handler)),
        log_(options_.logger ? options_.logger : spdlog::default_logger()),
        acceptor_(asio::make_strand(io_)),
        work_(asio::make_work_guard(io_)) {}

  Status Listen();
  void StartThreads();
  void Accept();
  void Stop(std::chrono::milliseconds deadline);
  ServerCounters Snapshot() const;

  // Posts `fn` to `executor` unless the server has stopped (then returns false and drops it, so
  // that nothing is queued on an io_context that no thread will run again).
  template <typename Executor, typename Fn>
  bool PostUnlessStopped(const Executor& executor, Fn&& fn) {
    std::shared_lock lock(post_mu_);
    if (stopped_) return false;
    // dispatch: a reply sent from within Handle (on the connection's strand) is written at once.
    asio::dispatch(executor, std::forward<Fn>(fn));
    return true;
  }
  void ReplyDone() {
    std::lock_guard lock(inflight_mu_);
    counters_.inflight.fetch_sub(1);
    inflight_cv_.notify_all();
  }
  void Forget(std::uint64_t id) {
    std::lock_guard lock(conns_mu_);
    conns_.erase(id);
  }

  ServerOptions options_;
  std::shared_ptr<RequestHandler> handler_;
  std::shared_ptr<spdlog::logger> log_;
  asio::io_context io_;
  tcp::acceptor acceptor_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  std::string address_;
  std::uint16_t port_ = 0;
  detail::AtomicCounters counters_;

  std::mutex conns_mu_;
  std::unordered_map<std::uint64_t, std::weak_ptr<detail::ServerConnection>> conns_;
  std::uint64_t next_conn_id_ = 1;
  std::atomic<bool> stopping_{false};

  std::shared_mutex post_mu_;
  bool stopped_ = false;  // guarded by post_mu_

  std::mutex inflight_mu_;
  std::condition_variable inflight_cv_;
  std::mutex stop_mu_;  // serialises Stop calls
  bool stop_done_ = false;
};

namespace detail {

// The server's Responder: checks the reply against the request and the client's limits, then
// queues it on the connection (from any thread).
class ConnectionResponder final : public Responder {
 public:
  ConnectionResponder(std::shared_ptr<ServerConnection> conn, MsgType type, std::uint64_t tag)
      : Responder(type, tag), conn_(std::move(conn)) {}
  ~ConnectionResponder() override;

 private:
  Status Deliver(ReplyBody body, std::vector<Buffer> payload) override;
  std::shared_ptr<ServerConnection> conn_;
};

// The server's side of a connection: the handshake as the answering side, requests handed to the
// RequestHandler in arrival order, at most max_inflight of them outstanding (backpressure: no read
// while that many wait for their reply), and every bad input closing the connection with its
// reason counted. Frames, writes and timers are FramedConnection's.
class ServerConnection : public FramedConnection {
 public:
  ServerConnection(std::shared_ptr<Server::Impl> server, tcp::socket socket, std::uint64_t id)
      : FramedConnection(std::move(socket), ConnectionOptions(*server)),
        server_(std::move(server)),
        id_(id) {
    boost::system::error_code ec;
    auto ep = this->socket().remote_endpoint(ec);
    peer_ = ec ? std::string("?") : fmt::format("{}:{}", ep.address().to_string(), ep.port());
  }

  // Runs on the connection's strand from here on.
  void Start() {
    Prepare();
    ArmDeadline(server_->options_.handshake_timeout);
    ReadHeader();
  }

  // Called from any thread (Responder::Send).
  void QueueReply(OutFrame frame) {
    auto self = Self();
    const bool posted = server_->PostUnlessStopped(
        executor(), [self, f = std::move(frame)]() mutable { self->EnqueueWrite(std::move(f)); });
    if (!posted) {
      // The server has stopped: the connection is closed and its strand no longer runs.
      server_->counters_.replies_dropped.fetch_add(1);
      server_->ReplyDone();
    }
  }

  // Stop: no more requests are read from this connection (in-flight ones still get replies).
  void StopReading() {
    asio::post(executor(), [self = Self()] {
      self->stop_reading_ = true;
      boost::system::error_code ignored;
      if (!self->closed()) self->socket().shutdown(tcp::socket::shutdown_receive, ignored);
    });
  }
  void CloseNow() {
    asio::post(executor(), [self = Self()] { self->CloseConnection(); });
  }

  const Limits& peer_limits() const { return peer_limits_; }
  Server::Impl& server() { return *server_; }

 private:
  static Options ConnectionOptions(Server::Impl& server) {
    Options o;
    o.limits = server.options_.limits;
    o.frame_timeout = server.options_.frame_timeout;
    o.idle_timeout = server.options_.idle_timeout;
    o.bytes_in = &server.counters_.bytes_in;
    o.bytes_out = &server.counters_.bytes_out;
    return o;
  }
  std::shared_ptr<ServerConnection> Self() {
    return std::static_pointer_cast<ServerConnection>(shared_from_this());
  }

  void ReadHeader() {
    if (closed() || stop_reading_) return;
    if (inflight_ >= server_->options_.max_inflight) {
      paused_ = true;  // backpressure: resumed by the reply that frees a slot
      return;
    }
    paused_ = false;
    ReadFrame(/*idle=*/handshaken_ && inflight_ == 0);
  }

  FrameError CheckHeader(const FrameHeader& h, std::string* why) override {
    const auto type = static_cast<MsgType>(h.type);
    const MsgType want = awaiting_auth_ ? MsgType::kAuth : MsgType::kHello;
    if (!handshaken_ && type != want) {
      *why = fmt::format("{} before the handshake ({} expected)", TypeName(type), TypeName(want));
      return FrameError::kUnexpected;
    }
    if (handshaken_ && (type == MsgType::kHello || type == MsgType::kAuth || IsReply(type))) {
      *why = fmt::format("{} is not a request", TypeName(type));
      return FrameError::kUnexpected;
    }
    return FrameError::kNone;
  }

  void OnFrame(const FrameHeader& h, std::span<const std::byte> message, Buffer payload) override {
    const auto type = static_cast<MsgType>(h.type);
    if (type == MsgType::kHello) return OnHello(h, message);
    if (type == MsgType::kAuth) return OnAuth(h, message);
    auto body = DecodeRequest(type, message, server_->options_.limits);
    if (!body.ok()) return ProtocolError(FrameError::kMalformed, body.status().message());
    Dispatch(h.tag, std::move(body).value(), std::move(payload));
    ReadHeader();
  }

  void OnFrameError(FrameError why, std::string_view message) override {
    ProtocolError(why, message);
  }

  void OnReadError(const boost::system::error_code& ec, bool mid_frame) override {
    if (stop_reading_) return;  // our own shutdown(receive) during Stop
    if (ec == asio::error::eof && !mid_frame) {
      server_->log_->debug("osd net: connection {} from {} closed by the peer", id_, peer_);
      return CloseConnection();
    }
    if (ec == asio::error::operation_aborted) return CloseConnection();
    if (mid_frame) {
      return ProtocolError(FrameError::kTruncated,
                           fmt::format("connection ended mid-frame ({})", ec.message()));
    }
    server_->log_->info("osd net: connection {} from {}: read error: {}", id_, peer_, ec.message());
    CloseConnection();
  }

  void OnTimer(Timer which) override {
    switch (which) {
      case Timer::kIdle:
        server_->counters_.idle_closed.fetch_add(1);
        server_->log_->info("osd net: closing idle connection {} from {}", id_, peer_);
        return CloseConnection();
      case Timer::kDeadline:
        return ProtocolError(FrameError::kTimeout, "no handshake within the handshake timeout");
      case Timer::kFrame:
        return ProtocolError(FrameError::kTimeout, "peer stalled mid-frame");
    }
  }

  void OnHello(const FrameHeader& h, std::span<const std::byte> message) {
    const Limits& limits = server_->options_.limits;
    auto hello = DecodeHello(message, limits);
    if (!hello.ok()) return ProtocolError(FrameError::kMalformed, hello.status().message());
    HelloReply reply;
    const std::uint16_t lo = std::max(hello->min_version, kProtocolVersionMin);
    const std::uint16_t hi = std::min(hello->max_version, kProtocolVersionMax);
    if (lo > hi) {
      reply.status = Status::Error(
          EPROTO, fmt::format("no common protocol version: client {}..{}, server {}..{}",
                              hello->min_version, hello->max_version, kProtocolVersionMin,
                              kProtocolVersionMax));
    } else if (hello->max_header_len < kMinPeerHeaderLen) {
      reply.status = Status::Invalid(fmt::format("client max_header_len {} is below {}",
                                                 hello->max_header_len, kMinPeerHeaderLen));
    } else if (server_->options_.auth == auth::AuthMode::kCephx) {
      reply.status = CheckClientAuth(*hello);
    }
    reply.name = server_->options_.name;
    if (!reply.status.ok()) {
      server_->counters_.connections_refused.fetch_add(1);
      server_->log_->warn("osd net: refusing connection {} from {} ('{}'): {}", id_, peer_,
                          hello->name, reply.status.message());
      close_after_write_ = true;
    } else {
      reply.version = hi;
      reply.features = hello->features & kKnownFeatures;
      reply.max_header_len = limits.max_header_len;
      reply.max_payload_len = limits.max_payload_len;
      reply.max_inflight = server_->options_.max_inflight;
      reply.max_extents = limits.max_extents;
      reply.max_attrs = limits.max_attrs;
      reply.max_list_entries = limits.max_list_entries;
      peer_limits_ = limits;
      peer_name_ = hello->name;
      peer_limits_.max_header_len = hello->max_header_len;
      peer_limits_.max_payload_len = hello->max_payload_len;
      entity_ = hello->entity;
      if ((reply.features & kFeatureBackground) != 0) {
        Status marked = MarkSocket(socket(), TrafficClass::kBackground);
        if (marked.ok()) {
          server_->counters_.background_connections.fetch_add(1);
        } else {
          server_->log_->warn("osd net: connection {} from {}: {}", id_, peer_, marked.message());
        }
      }
      if (peer_auth_) {
        reply.auth = HelloAuth::kCephx;
        return SendChallenge(h, message, *hello, std::move(reply));
      }
      handshaken_ = true;
      DisarmTimer();
      server_->log_->debug("osd net: connection {} from {} ('{}') speaks version {}", id_, peer_,
                           hello->name, hi);
    }
    std::vector<std::byte> header;
    EncodeHelloReply(reply, header);
    EnqueueWrite(MakeOutFrame(MsgType::kHelloReply, h.tag, std::move(header), {}));
    if (handshaken_) ReadHeader();
  }

  // With auth cephx: the Hello must offer cephx for an entity the KeyServer knows. OK, or the
  // refusal the HelloReply carries (counted).
  Status CheckClientAuth(const Hello& hello) {
    const std::string who = hello.entity.empty() ? "'" + hello.name + "'" : hello.entity;
    if (hello.auth != HelloAuth::kCephx) {
      CountRefusal(AuthRefusal::kNoAuth);
      return Status::Error(EACCES, fmt::format("authentication required: this OSD has "
                                               "auth_cluster_required = cephx and {} offered none",
                                               who));
    }
    std::optional<auth::PeerAuth> peer =
        server_->options_.keys ? server_->options_.keys->Find(hello.entity) : std::nullopt;
    if (!peer) {
      CountRefusal(AuthRefusal::kUnknownEntity);
      return Status::Error(EACCES, fmt::format("authentication failed: no key for entity '{}' here "
                                               "(ec-admin auth get-or-create makes one)",
                                               hello.entity));
    }
    peer_auth_ = std::move(peer);
    return Status::OK();
  }

  void CountRefusal(AuthRefusal why) {
    server_->counters_.auth_refusals[static_cast<std::size_t>(why)].fetch_add(1);
  }

  // Answers an authenticating Hello with this side's nonce, and waits for the client's proof.
  void SendChallenge(const FrameHeader& h, std::span<const std::byte> hello_bytes,
                     const Hello& hello, HelloReply reply) {
    auto nonce = auth::NewNonce();
    if (!nonce.ok()) return ProtocolError(FrameError::kMalformed, nonce.status().message());
    reply.nonce = *nonce;
    std::vector<std::byte> header;
    EncodeHelloReply(reply, header);
    hello_bytes_.assign(hello_bytes.begin(), hello_bytes.end());
    reply_bytes_ = header;
    client_nonce_ = hello.nonce;
    server_nonce_ = *nonce;
    awaiting_auth_ = true;  // the handshake deadline stays armed until the Auth is checked
    EnqueueWrite(MakeOutFrame(MsgType::kHelloReply, h.tag, std::move(header), {}));
    ReadHeader();
  }

  void OnAuth(const FrameHeader& h, std::span<const std::byte> message) {
    auto req = DecodeAuthRequest(message);
    if (!req.ok()) return ProtocolError(FrameError::kMalformed, req.status().message());
    AuthReply reply;
    Result<auth::SessionKeys> keys = Status::Error(EACCES, "no session");
    if (!auth::CheckClientProof(peer_auth_->key, hello_bytes_, reply_bytes_, req->proof)) {
      CountRefusal(AuthRefusal::kBadProof);
      server_->counters_.connections_refused.fetch_add(1);
      reply.status = Status::Error(
          EACCES, fmt::format("authentication failed for {}: its proof does not match its key "
                              "(a wrong key, or a replayed handshake)",
                              entity_));
      server_->log_->warn("osd net: refusing connection {} from {}: {}", id_, peer_,
                          reply.status.message());
    } else {
      keys = auth::DeriveSessionKeys(peer_auth_->key, client_nonce_, server_nonce_, hello_bytes_,
                                     reply_bytes_);
      if (!keys.ok()) reply.status = keys.status();
      reply.proof = auth::ServerProof(peer_auth_->key, hello_bytes_, reply_bytes_);
    }
    std::vector<std::byte> header;
    EncodeAuthReply(reply, header);
    EnqueueWrite(MakeOutFrame(MsgType::kAuthReply, h.tag, std::move(header), {}));
    if (!reply.status.ok()) {
      close_after_write_ = true;
      return;
    }
    // The AuthReply above went out unsigned; everything after it is signed.
    if (Status s = EnableMac(keys->server_to_client, keys->client_to_server); !s.ok()) {
      return ProtocolError(FrameError::kMalformed, s.message());
    }
    hello_bytes_.clear();
    reply_bytes_.clear();
    awaiting_auth_ = false;
    authenticated_ = true;
    handshaken_ = true;
    DisarmTimer();
    server_->counters_.authenticated_connections.fetch_add(1);
    server_->log_->debug("osd net: connection {} from {} authenticated as {}", id_, peer_, entity_);
    ReadHeader();
  }

  void Dispatch(std::uint64_t tag, RequestBody body, Buffer payload) {
    const MsgType type = TypeOf(body);
    server_->counters_.requests[static_cast<std::size_t>(type)].fetch_add(1);
    ++inflight_;
    server_->counters_.inflight.fetch_add(1);
    auto responder = std::make_shared<ConnectionResponder>(Self(), type, tag);
    if (authenticated_) {
      AuthRefusal why = AuthRefusal::kCount;
      Status allowed =
          Authorize(body, entity_, peer_auth_->osd_caps.get(), server_->options_.pool_name, &why);
      if (!allowed.ok()) {
        if (why != AuthRefusal::kCount) {
          CountRefusal(why);
          server_->log_->warn("osd net: connection {} from {}: {}", id_, peer_, allowed.message());
        }
        (void)responder->SendError(std::move(allowed));
        return;
      }
    }
    Status valid = ValidateRequest(body, payload.size(), server_->options_.limits,
                                   peer_limits_.max_payload_len);
    if (!valid.ok()) {
      (void)responder->SendError(std::move(valid));
      return;
    }
    Request req;
    req.tag = tag;
    req.body = std::move(body);
    req.payload = std::move(payload);
    req.connection_id = id_;
    req.peer = peer_;
    req.peer_name = peer_name_;
    req.entity = entity_;
    req.authenticated = authenticated_;
    boost::system::error_code ignored;
    req.more_queued = socket().available(ignored) > 0;
    try {
      server_->handler_->Handle(std::move(req), std::move(responder));
    } catch (const std::exception& e) {
      // The responder (if the handler dropped it) answers EIO; the connection carries on.
      server_->log_->error("osd net: request handler threw: {}", e.what());
    }
  }

  void ProtocolError(FrameError why, std::string_view message) {
    if (closed()) return;
    server_->counters_.protocol_errors[static_cast<std::size_t>(why)].fetch_add(1);
    server_->log_->warn("osd net: closing connection {} from {}: {} ({})", id_, peer_, message,
                        FrameErrorName(why));
    CloseConnection();
  }

  void EnqueueWrite(OutFrame f) {
    if (closed()) {
      if (f.is_reply) DropReply();
      return;
    }
    Send(std::move(f));
  }

  void OnWritten(const std::vector<OutFrame>& frames,
                 const boost::system::error_code& ec) override {
    for (const OutFrame& f : frames) {
      if (!f.is_reply) continue;
      if (ec) server_->counters_.replies_dropped.fetch_add(1);
      --inflight_;
      server_->ReplyDone();
    }
    if (ec) {
      if (!closed()) {
        server_->log_->info("osd net: connection {} from {}: write error: {}", id_, peer_,
                            ec.message());
      }
      return CloseConnection();
    }
    if (close_after_write_) return CloseConnection();
    if (paused_ && inflight_ < server_->options_.max_inflight) ReadHeader();
  }

  void DropReply() {
    server_->counters_.replies_dropped.fetch_add(1);
    server_->ReplyDone();
    if (inflight_ > 0) --inflight_;
  }

  void CloseConnection() {
    if (closed()) return;
    // Queued replies will never be written: count them as dropped and free their slots.
    for (const OutFrame& f : Close()) {
      if (f.is_reply) DropReply();
    }
    server_->counters_.connections_open.fetch_sub(1);
    server_->Forget(id_);
  }

  std::shared_ptr<Server::Impl> server_;
  std::uint64_t id_;
  std::string peer_;
  std::string peer_name_;  // from the Hello
  std::string entity_;     // from the Hello: proven once authenticated_
  bool handshaken_ = false;
  // Authentication (auth cephx): the peer's key and caps once its Hello named a known entity, the
  // handshake's bytes and nonces until its proof is checked.
  std::optional<auth::PeerAuth> peer_auth_;
  bool awaiting_auth_ = false;
  bool authenticated_ = false;
  std::vector<std::byte> hello_bytes_;
  std::vector<std::byte> reply_bytes_;
  auth::Nonce client_nonce_{};
  auth::Nonce server_nonce_{};
  bool stop_reading_ = false;
  bool paused_ = false;
  bool close_after_write_ = false;
  std::uint32_t inflight_ = 0;
  Limits peer_limits_;
};

}  // namespace detail

Status Responder::Send(ReplyBody body, std::vector<Buffer> payload) {
  if (sent_) return Status::Error(EALREADY, "reply already sent");
  sent_ = true;
  return Deliver(std::move(body), std::move(payload));
}

namespace detail {

ConnectionResponder::~ConnectionResponder() {
  if (!sent()) (void)SendError(Status::IOError("request dropped by the handler"));
}

Status ConnectionResponder::Deliver(ReplyBody body, std::vector<Buffer> payload) {
  const MsgType type = request_type();
  Status result;
  const Limits& peer = conn_->peer_limits();
  std::uint64_t total = 0;
  for (const Buffer& b : payload) total += b.size();
  std::vector<std::byte> header;
  if (TypeOf(body) != ReplyTypeOf(type)) {
    result = Status::Invalid(
        fmt::format("reply {} does not answer {}", TypeName(TypeOf(body)), TypeName(type)));
  } else if (total > peer.max_payload_len) {
    result = Status::Error(EMSGSIZE, fmt::format("reply payload {} exceeds the client's limit {}",
                                                 total, peer.max_payload_len));
  } else {
    EncodeReply(body, header);
    if (header.size() > peer.max_header_len) {
      result = Status::Error(EMSGSIZE, fmt::format("reply header {} exceeds the client's limit {}",
                                                   header.size(), peer.max_header_len));
    }
  }
  if (!result.ok()) {
    conn_->server().log_->error("osd net: bad reply to {} tag {}: {}", TypeName(type), tag(),
                                result.message());
    header.clear();
    EncodeReply(ErrorReply(type, result), header);
    payload.clear();
  }
  OutFrame frame = MakeOutFrame(ReplyTypeOf(type), tag(), std::move(header), std::move(payload));
  frame.is_reply = true;
  conn_->QueueReply(std::move(frame));
  return result;
}

}  // namespace detail

Status Responder::SendError(Status status) {
  return Send(ErrorReply(type_, std::move(status)));
}

Status Server::Impl::Listen() {
  boost::system::error_code ec;
  auto addr = asio::ip::make_address(options_.address, ec);
  if (ec) return Status::Invalid(fmt::format("bad listen address '{}'", options_.address));
  tcp::endpoint ep(addr, options_.port);
  const std::string where = fmt::format("{}:{}", options_.address, options_.port);
  acceptor_.open(ep.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(ep, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return Status::Error(ec.value(), fmt::format("listen on {}: {}", where, ec.message()));
  auto local = acceptor_.local_endpoint(ec);
  if (ec) return Status::Error(ec.value(), fmt::format("listen on {}: {}", where, ec.message()));
  port_ = local.port();
  address_ = local.address().to_string();
  return Status::OK();
}

void Server::Impl::StartThreads() {
  for (int i = 0; i < options_.io_threads; ++i) {
    threads_.emplace_back([this] {
      NameCurrentThread("msg-server");
      io_.run();
    });
  }
}

void Server::Impl::Accept() {
  acceptor_.async_accept(
      asio::make_strand(io_),
      [self = shared_from_this()](const boost::system::error_code& ec, tcp::socket socket) {
        if (ec) {
          if (ec == asio::error::operation_aborted || self->stopping_) return;
          self->log_->warn("osd net: accept failed: {}", ec.message());
          return self->Accept();
        }
        if (self->stopping_) return;
        self->counters_.connections_accepted.fetch_add(1);
        std::shared_ptr<detail::ServerConnection> conn;
        {
          std::lock_guard lock(self->conns_mu_);
          if (self->conns_.size() >= self->options_.max_connections) {
            self->counters_.connections_refused.fetch_add(1);
            self->log_->warn("osd net: refusing a connection: {} open (max_connections)",
                             self->conns_.size());
            boost::system::error_code ignored;
            socket.close(ignored);
            return self->Accept();
          }
          const std::uint64_t id = self->next_conn_id_++;
          conn = std::make_shared<detail::ServerConnection>(self, std::move(socket), id);
          self->conns_.emplace(id, conn);
        }
        self->counters_.connections_open.fetch_add(1);
        asio::post(conn->executor(), [conn] { conn->Start(); });
        self->Accept();
      });
}

void Server::Impl::Stop(std::chrono::milliseconds deadline) {
  std::lock_guard stop_lock(stop_mu_);
  if (stop_done_) return;
  stop_done_ = true;
  stopping_ = true;
  asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::system::error_code ignored;
    self->acceptor_.close(ignored);
  });
  auto each_conn = [this](auto fn) {
    std::vector<std::shared_ptr<detail::ServerConnection>> live;
    {
      std::lock_guard lock(conns_mu_);
      for (auto& [id, weak] : conns_) {
        if (auto c = weak.lock()) live.push_back(std::move(c));
      }
    }
    for (auto& c : live) fn(*c);
  };
  each_conn([](detail::ServerConnection& c) { c.StopReading(); });
  {
    std::unique_lock lock(inflight_mu_);
    if (!inflight_cv_.wait_for(lock, deadline, [this] { return counters_.inflight == 0; })) {
      log_->warn("osd net: stopping with {} requests still in flight", counters_.inflight.load());
    }
  }
  each_conn([](detail::ServerConnection& c) { c.CloseNow(); });
  {
    std::unique_lock lock(post_mu_);
    stopped_ = true;
  }
  // With the sockets closed and nothing more posted, run() returns once the last completion
  // handler has run, so no handler (and no reference to a connection) stays queued.
  work_.reset();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

ServerCounters Server::Impl::Snapshot() const {
  ServerCounters c;
  c.connections_accepted = counters_.connections_accepted;
  c.connections_open = counters_.connections_open;
  c.connections_refused = counters_.connections_refused;
  c.idle_closed = counters_.idle_closed;
  c.background_connections = counters_.background_connections;
  for (std::size_t i = 0; i < c.requests.size(); ++i) c.requests[i] = counters_.requests[i];
  c.bytes_in = counters_.bytes_in;
  c.bytes_out = counters_.bytes_out;
  for (std::size_t i = 0; i < c.protocol_errors.size(); ++i) {
    c.protocol_errors[i] = counters_.protocol_errors[i];
  }
  c.inflight = counters_.inflight;
  c.replies_dropped = counters_.replies_dropped;
  c.authenticated_connections = counters_.authenticated_connections;
  for (std::size_t i = 0; i < c.auth_refusals.size(); ++i) {
    c.auth_refusals[i] = counters_.auth_refusals[i];
  }
  return c;
}

std::uint64_t ServerCounters::protocol_errors_total() const {
  std::uint64_t n = 0;
  for (std::uint64_t v : protocol_errors) n += v;
  return n;
}

Result<std::unique_ptr<Server>> Server::Start(ServerOptions options,
                                              std::shared_ptr<RequestHandler> handler) {
  if (!handler) return Status::Invalid("no request handler");
  if (options.io_threads < 1 || options.io_threads > 64) {
    return Status::Invalid(fmt::format("io_threads {} out of range 1..64", options.io_threads));
  }
  if (options.max_inflight < 1) return Status::Invalid("max_inflight must be at least 1");
  if (options.auth == auth::AuthMode::kCephx && !options.keys) {
    return Status::Invalid("auth cephx needs a KeyServer (ServerOptions::keys)");
  }
  if (options.limits.max_header_len < kMinPeerHeaderLen) {
    return Status::Invalid(
        fmt::format("limits.max_header_len must be at least {}", kMinPeerHeaderLen));
  }
  auto impl = std::make_shared<Impl>(std::move(options), std::move(handler));
  try {
    EC_RETURN_IF_ERROR(impl->Listen());
    impl->Accept();
    impl->StartThreads();
  } catch (const std::exception& e) {
    return Status::IOError(fmt::format("starting the server: {}", e.what()));
  }
  impl->log_->info("osd net: listening on {}:{}", impl->address_, impl->port_);
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  Stop();
}

std::uint16_t Server::port() const {
  return impl_->port_;
}
const std::string& Server::address() const {
  return impl_->address_;
}
void Server::Stop(std::chrono::milliseconds deadline) {
  impl_->Stop(deadline);
}
ServerCounters Server::counters() const {
  return impl_->Snapshot();
}

}  // namespace ec::msg
