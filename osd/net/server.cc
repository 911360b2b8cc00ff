#include "osd/net/server.h"

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

#include "osd/net/out_frame.h"

namespace ec::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Smallest reply limits a client may announce: every error reply must fit.
constexpr std::uint32_t kMinPeerHeaderLen = 8 * 1024;

struct AtomicCounters {
  std::atomic<std::uint64_t> connections_accepted{0};
  std::atomic<std::uint64_t> connections_open{0};
  std::atomic<std::uint64_t> connections_refused{0};
  std::atomic<std::uint64_t> idle_closed{0};
  std::array<std::atomic<std::uint64_t>, kMaxRequestType + 1> requests{};
  std::atomic<std::uint64_t> bytes_in{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::array<std::atomic<std::uint64_t>, static_cast<std::size_t>(FrameError::kCount)>
      protocol_errors{};
  std::atomic<std::uint64_t> inflight{0};
  std::atomic<std::uint64_t> replies_dropped{0};
};

// One frame queued for sending: fixed header, message header, payload buffers (kept alive here
// until the write completes).
OutFrame BuildFrame(MsgType type, std::uint64_t tag, std::vector<std::byte> header,
                    std::vector<Buffer> payload, bool is_reply) {
  OutFrame f;
  FrameHeader h;
  h.type = static_cast<std::uint16_t>(type);
  h.tag = tag;
  h.header_len = static_cast<std::uint32_t>(header.size());
  h.header_crc = Crc32c(header);
  std::uint64_t total = 0;
  std::uint32_t crc = 0;
  for (const Buffer& b : payload) {
    crc = Crc32cExtend(crc, b.span());
    total += b.size();
  }
  h.payload_len = static_cast<std::uint32_t>(total);
  h.payload_crc = crc;
  EncodeFrameHeader(h, f.fixed);
  f.header = std::move(header);
  f.payload = std::move(payload);
  f.is_reply = is_reply;
  return f;
}

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
  AtomicCounters counters_;

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

class ServerConnection : public std::enable_shared_from_this<ServerConnection> {
 public:
  ServerConnection(std::shared_ptr<Server::Impl> server, tcp::socket socket, std::uint64_t id)
      : server_(std::move(server)),
        socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        id_(id) {
    boost::system::error_code ec;
    auto ep = socket_.remote_endpoint(ec);
    peer_ = ec ? std::string("?") : fmt::format("{}:{}", ep.address().to_string(), ep.port());
  }

  // Runs on the connection's strand from here on.
  void Start() {
    boost::system::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    socket_.non_blocking(true, ignored);  // for the speculative body reads in ReadBody
    ArmTimer(server_->options_.handshake_timeout, "no handshake within the handshake timeout");
    ReadHeader();
  }

  // Called from any thread (Responder::Send).
  void QueueReply(OutFrame frame) {
    auto self = shared_from_this();
    const bool posted = server_->PostUnlessStopped(
        socket_.get_executor(),
        [self, f = std::move(frame)]() mutable { self->EnqueueWrite(std::move(f)); });
    if (!posted) {
      // The server has stopped: the connection is closed and its strand no longer runs.
      server_->counters_.replies_dropped.fetch_add(1);
      server_->ReplyDone();
    }
  }

  // Stop: no more requests are read from this connection (in-flight ones still get replies).
  void StopReading() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] {
      self->stop_reading_ = true;
      boost::system::error_code ignored;
      if (!self->closed_) self->socket_.shutdown(tcp::socket::shutdown_receive, ignored);
    });
  }
  void CloseNow() {
    asio::post(socket_.get_executor(), [self = shared_from_this()] { self->Close(); });
  }

  tcp::socket::executor_type executor() { return socket_.get_executor(); }
  const Limits& peer_limits() const { return peer_limits_; }
  Server::Impl& server() { return *server_; }

 private:
  void ArmTimer(std::chrono::milliseconds d, const char* reason) {
    ++timer_gen_;
    if (d.count() <= 0) return;
    timer_.expires_after(d);
    timer_.async_wait(
        [self = shared_from_this(), gen = timer_gen_, reason](const boost::system::error_code& ec) {
          if (ec || gen != self->timer_gen_ || self->closed_) return;
          if (self->idle_wait_) {
            self->server_->counters_.idle_closed.fetch_add(1);
            self->server_->log_->info("osd net: closing idle connection {} from {}", self->id_,
                                      self->peer_);
            self->Close();
            return;
          }
          self->ProtocolError(FrameError::kTimeout, reason);
        });
  }
  void DisarmTimer() {
    ++timer_gen_;
    timer_.cancel();
  }

  void ReadHeader() {
    if (closed_ || stop_reading_) return;
    if (inflight_ >= server_->options_.max_inflight) {
      paused_ = true;  // backpressure: resumed by the reply that frees a slot
      return;
    }
    paused_ = false;
    hdr_got_ = 0;
    if (handshaken_ && inflight_ == 0 && server_->options_.idle_timeout.count() > 0) {
      idle_wait_ = true;
      ArmTimer(server_->options_.idle_timeout, "idle");
    }
    socket_.async_read_some(
        asio::buffer(hdr_.data(), hdr_.size()),
        [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
          self->OnHeaderBytes(ec, n);
        });
  }

  void OnHeaderBytes(const boost::system::error_code& ec, std::size_t n) {
    server_->counters_.bytes_in.fetch_add(n);
    const bool first = hdr_got_ == 0 && n > 0;
    hdr_got_ += n;
    if (first && idle_wait_) {
      idle_wait_ = false;
      DisarmTimer();
    }
    if (ec) return OnReadError(ec);
    if (hdr_got_ < kFrameHeaderSize) {
      if (first) ArmFrameTimer();
      asio::async_read(
          socket_, asio::buffer(hdr_.data() + hdr_got_, kFrameHeaderSize - hdr_got_),
          [self = shared_from_this()](const boost::system::error_code& ec2, std::size_t n2) {
            self->OnHeaderBytes(ec2, n2);
          });
      return;
    }
    FrameError why;
    auto h = DecodeFrameHeader(hdr_, server_->options_.limits, &why);
    if (!h.ok()) return ProtocolError(why, h.status().message());
    frame_ = *h;
    const auto type = static_cast<MsgType>(frame_.type);
    if (!handshaken_ && type != MsgType::kHello) {
      return ProtocolError(FrameError::kUnexpected,
                           fmt::format("{} before the handshake", TypeName(type)));
    }
    if (handshaken_ && (type == MsgType::kHello || IsReply(type))) {
      return ProtocolError(FrameError::kUnexpected,
                           fmt::format("{} is not a request", TypeName(type)));
    }
    // Lengths were checked against Limits by DecodeFrameHeader: allocating them is bounded.
    msg_.resize(frame_.header_len);
    payload_ = frame_.payload_len ? Buffer::Allocate(frame_.payload_len, false) : Buffer();
    ReadBody();
  }

  // The frame timer runs only while a frame is incomplete and we wait for the rest: a frame that
  // arrives whole costs no timer operations.
  void ArmFrameTimer() {
    if (handshaken_) ArmTimer(server_->options_.frame_timeout, "peer stalled mid-frame");
  }

  // Reads the message header and payload: first whatever the socket already holds (usually all
  // of a small frame, saving a trip through the reactor), then the rest asynchronously.
  void ReadBody() {
    const std::size_t total = msg_.size() + payload_.size();
    std::array<asio::mutable_buffer, 2> bufs{asio::buffer(msg_.data(), msg_.size()),
                                             asio::buffer(payload_.data(), payload_.size())};
    std::size_t got = 0;
    if (total > 0) {
      boost::system::error_code ec;
      got = socket_.read_some(bufs, ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) {
        ec.clear();
        got = 0;
      }
      if (ec) {
        body_pending_ = true;
        return OnReadError(ec);
      }
    }
    if (got == total) return OnBody({}, got);
    server_->counters_.bytes_in.fetch_add(got);
    ArmFrameTimer();
    const std::size_t in_msg = std::min(got, msg_.size());
    const std::size_t in_payload = got - in_msg;
    std::array<asio::mutable_buffer, 2> rest{
        asio::buffer(msg_.data() + in_msg, msg_.size() - in_msg),
        asio::buffer(payload_.data() + in_payload, payload_.size() - in_payload)};
    asio::async_read(socket_, rest,
                     [self = shared_from_this()](const boost::system::error_code& ec2,
                                                 std::size_t n2) { self->OnBody(ec2, n2); });
  }

  void OnReadError(const boost::system::error_code& ec) {
    if (closed_) return;
    const bool mid_frame = hdr_got_ > 0 || body_pending_;
    if (stop_reading_) return;  // our own shutdown(receive) during Stop
    if (ec == asio::error::eof && !mid_frame) {
      server_->log_->debug("osd net: connection {} from {} closed by the peer", id_, peer_);
      return Close();
    }
    if (ec == asio::error::operation_aborted) return Close();
    if (mid_frame) {
      return ProtocolError(FrameError::kTruncated,
                           fmt::format("connection ended mid-frame ({})", ec.message()));
    }
    server_->log_->info("osd net: connection {} from {}: read error: {}", id_, peer_, ec.message());
    Close();
  }

  void OnBody(const boost::system::error_code& ec, std::size_t n) {
    server_->counters_.bytes_in.fetch_add(n);
    if (ec) {
      body_pending_ = true;
      return OnReadError(ec);
    }
    DisarmTimer();
    if (Status s = CheckCrc(msg_, frame_.header_crc, "header"); !s.ok()) {
      return ProtocolError(FrameError::kBadHeaderCrc, s.message());
    }
    if (Status s = CheckCrc(payload_.span(), frame_.payload_crc, "payload"); !s.ok()) {
      return ProtocolError(FrameError::kBadPayloadCrc, s.message());
    }
    const auto type = static_cast<MsgType>(frame_.type);
    if (type == MsgType::kHello) return OnHello();
    auto body = DecodeRequest(type, msg_, server_->options_.limits);
    if (!body.ok()) return ProtocolError(FrameError::kMalformed, body.status().message());
    Dispatch(std::move(body).value());
    ReadHeader();
  }

  void OnHello() {
    const Limits& limits = server_->options_.limits;
    auto hello = DecodeHello(msg_, limits);
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
      peer_limits_.max_header_len = hello->max_header_len;
      peer_limits_.max_payload_len = hello->max_payload_len;
      handshaken_ = true;
      DisarmTimer();
      server_->log_->debug("osd net: connection {} from {} ('{}') speaks version {}", id_, peer_,
                           hello->name, hi);
    }
    std::vector<std::byte> header;
    EncodeHelloReply(reply, header);
    EnqueueWrite(BuildFrame(MsgType::kHelloReply, frame_.tag, std::move(header), {}, false));
    if (handshaken_) ReadHeader();
  }

  void Dispatch(RequestBody body) {
    const MsgType type = TypeOf(body);
    server_->counters_.requests[static_cast<std::size_t>(type)].fetch_add(1);
    ++inflight_;
    server_->counters_.inflight.fetch_add(1);
    std::shared_ptr<Responder> responder(new Responder(shared_from_this(), type, frame_.tag));
    Status valid = ValidateRequest(body, payload_.size(), server_->options_.limits,
                                   peer_limits_.max_payload_len);
    if (!valid.ok()) {
      (void)responder->SendError(std::move(valid));
      return;
    }
    Request req;
    req.tag = frame_.tag;
    req.body = std::move(body);
    req.payload = std::move(payload_);
    req.connection_id = id_;
    req.peer = peer_;
    boost::system::error_code ignored;
    req.more_queued = socket_.available(ignored) > 0;
    try {
      server_->handler_->Handle(std::move(req), std::move(responder));
    } catch (const std::exception& e) {
      // The responder (if the handler dropped it) answers EIO; the connection carries on.
      server_->log_->error("osd net: request handler threw: {}", e.what());
    }
  }

  void ProtocolError(FrameError why, std::string_view message) {
    if (closed_) return;
    server_->counters_.protocol_errors[static_cast<std::size_t>(why)].fetch_add(1);
    server_->log_->warn("osd net: closing connection {} from {}: {} ({})", id_, peer_, message,
                        FrameErrorName(why));
    Close();
  }

  void EnqueueWrite(OutFrame f) {
    if (closed_) {
      if (f.is_reply) DropReply();
      return;
    }
    queue_.push_back(std::move(f));
    if (!writing_) WriteQueued();
  }

  // Writes everything queued in one gathered write.
  void WriteQueued() {
    writing_ = true;
    in_write_.clear();
    std::swap(in_write_, queue_);
    std::vector<asio::const_buffer> bufs;
    bufs.reserve(in_write_.size() * 3);
    AppendGather(in_write_, bufs);
    asio::async_write(socket_, bufs,
                      [self = shared_from_this()](const boost::system::error_code& ec,
                                                  std::size_t n) { self->OnWritten(ec, n); });
  }

  void OnWritten(const boost::system::error_code& ec, std::size_t n) {
    writing_ = false;
    server_->counters_.bytes_out.fetch_add(n);
    std::size_t replies = 0;
    for (const OutFrame& f : in_write_) replies += f.is_reply ? 1 : 0;
    in_write_.clear();
    for (std::size_t i = 0; i < replies; ++i) {
      if (ec) server_->counters_.replies_dropped.fetch_add(1);
      --inflight_;
      server_->ReplyDone();
    }
    if (ec) {
      if (!closed_) {
        server_->log_->info("osd net: connection {} from {}: write error: {}", id_, peer_,
                            ec.message());
      }
      return Close();
    }
    if (close_after_write_) return Close();
    if (!queue_.empty()) return WriteQueued();
    if (paused_ && inflight_ < server_->options_.max_inflight) ReadHeader();
  }

  void DropReply() {
    server_->counters_.replies_dropped.fetch_add(1);
    server_->ReplyDone();
    if (inflight_ > 0) --inflight_;
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    DisarmTimer();
    boost::system::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    // Queued replies will never be written: count them as dropped and free their slots.
    for (const OutFrame& f : queue_) {
      if (f.is_reply) DropReply();
    }
    queue_.clear();
    server_->counters_.connections_open.fetch_sub(1);
    server_->Forget(id_);
  }

  std::shared_ptr<Server::Impl> server_;
  tcp::socket socket_;
  asio::steady_timer timer_;
  std::uint64_t id_;
  std::string peer_;
  std::uint64_t timer_gen_ = 0;
  bool idle_wait_ = false;

  std::array<std::byte, kFrameHeaderSize> hdr_{};
  std::size_t hdr_got_ = 0;
  bool body_pending_ = false;
  FrameHeader frame_;
  std::vector<std::byte> msg_;
  Buffer payload_;

  bool handshaken_ = false;
  bool closed_ = false;
  bool stop_reading_ = false;
  bool paused_ = false;
  bool close_after_write_ = false;
  std::uint32_t inflight_ = 0;
  Limits peer_limits_;

  std::vector<OutFrame> queue_;
  std::vector<OutFrame> in_write_;
  bool writing_ = false;
};

}  // namespace detail

Responder::Responder(std::shared_ptr<detail::ServerConnection> conn, MsgType type,
                     std::uint64_t tag)
    : conn_(std::move(conn)), type_(type), tag_(tag) {}

Responder::~Responder() {
  if (!sent_) (void)SendError(Status::IOError("request dropped by the handler"));
}

Status Responder::Send(ReplyBody body, std::vector<Buffer> payload) {
  if (sent_) return Status::Error(EALREADY, "reply already sent");
  sent_ = true;
  Status result;
  const Limits& peer = conn_->peer_limits();
  std::uint64_t total = 0;
  for (const Buffer& b : payload) total += b.size();
  std::vector<std::byte> header;
  if (TypeOf(body) != ReplyTypeOf(type_)) {
    result = Status::Invalid(
        fmt::format("reply {} does not answer {}", TypeName(TypeOf(body)), TypeName(type_)));
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
    conn_->server().log_->error("osd net: bad reply to {} tag {}: {}", TypeName(type_), tag_,
                                result.message());
    header.clear();
    EncodeReply(ErrorReply(type_, result), header);
    payload.clear();
  }
  conn_->QueueReply(
      BuildFrame(ReplyTypeOf(type_), tag_, std::move(header), std::move(payload), true));
  return result;
}

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
    threads_.emplace_back([this] { io_.run(); });
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
  for (std::size_t i = 0; i < c.requests.size(); ++i) c.requests[i] = counters_.requests[i];
  c.bytes_in = counters_.bytes_in;
  c.bytes_out = counters_.bytes_out;
  for (std::size_t i = 0; i < c.protocol_errors.size(); ++i) {
    c.protocol_errors[i] = counters_.protocol_errors[i];
  }
  c.inflight = counters_.inflight;
  c.replies_dropped = counters_.replies_dropped;
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

}  // namespace ec::net
