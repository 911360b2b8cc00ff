#include "msg/client_connection.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include "msg/connection.h"
#include "msg/out_frame.h"

namespace ec::msg::detail {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// How often a connection looks for timed-out requests while it has any: one timer per
// connection instead of one per request keeps timer syscalls off the request path. Timeouts fire
// up to this much late.
constexpr std::chrono::milliseconds kSweepInterval{10};

void Finish(Call call, Status s, ReplyBody body = {}, Buffer payload = {}) {
  call.done(std::move(s), std::move(body), std::move(payload));
}

}  // namespace

Status ClientShutdown() {
  return Status::Error(ESHUTDOWN, "client closed");
}

// One TCP connection of a ClientConnection: frames in and out (FramedConnection); everything it
// reads or suffers is handed to its owner, which ignores a session it has already replaced.
class ClientSession : public FramedConnection {
 public:
  ClientSession(std::shared_ptr<ClientConnection> owner, tcp::socket socket, Options options)
      : FramedConnection(std::move(socket), options), owner_(std::move(owner)) {}

  void Begin() { Prepare(); }
  void Next() { ReadFrame(); }
  using FramedConnection::Close;
  using FramedConnection::EnableMac;
  using FramedConnection::Send;

 private:
  FrameError CheckHeader(const FrameHeader& header, std::string* why) override {
    return owner_->CheckHeader(this, header, why);
  }
  void OnFrame(const FrameHeader& header, std::span<const std::byte> message,
               Buffer payload) override {
    owner_->OnFrame(this, header, message, std::move(payload));
  }
  void OnFrameError(FrameError, std::string_view message) override {
    owner_->OnFrameError(this, message);
  }
  void OnReadError(const boost::system::error_code& ec, bool) override {
    owner_->OnReadError(this, ec);
  }
  void OnTimer(Timer) override {}  // the client arms no connection timer
  void OnWritten(const std::vector<OutFrame>&, const boost::system::error_code& ec) override {
    if (ec) owner_->OnWriteError(this, ec);
  }

  // Held: on io threads shared with other clients (ClientOptions::shared_io) a session's last
  // handlers may run after the OsdClient is gone; its owner (and the counters in the owner's
  // context that the session updates) must still be there. The cycle owner -> session_ -> owner
  // ends when the owner drops the session (Fail, which Close and every error reach).
  std::shared_ptr<ClientConnection> owner_;
};

ClientConnection::ClientConnection(std::shared_ptr<ClientContext> client, int index)
    : context_(std::move(client)),
      client_(*context_),
      strand_(asio::make_strand(*client_.io)),
      resolver_(strand_),
      connect_timer_(strand_),
      sweep_timer_(strand_),
      index_(index) {}

void ClientConnection::Submit(Call call) {
  // dispatch: a request issued from a completion callback (on this strand) goes out at once.
  asio::dispatch(strand_, [self = shared_from_this(), c = std::move(call)]() mutable {
    self->OnSubmit(std::move(c));
  });
}

void ClientConnection::EnsureConnected(std::function<void(Status)> done) {
  asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
    if (self->closed_) return done(ClientShutdown());
    if (self->state_ == State::kReady) return done(Status::OK());
    self->connect_waiters_.push_back(std::move(done));
    if (self->state_ == State::kDisconnected) self->StartConnect();
  });
}

void ClientConnection::Close() {
  asio::post(strand_, [self = shared_from_this()] {
    self->closed_ = true;
    self->Fail(ClientShutdown());
  });
}

FrameError ClientConnection::CheckHeader(const ClientSession* s, const FrameHeader& h,
                                         std::string* why) {
  if (s != session_.get()) return FrameError::kUnexpected;
  const auto type = static_cast<MsgType>(h.type);
  const bool handshake_type = type == MsgType::kHelloReply || type == MsgType::kAuthReply;
  const MsgType want = awaiting_auth_ ? MsgType::kAuthReply : MsgType::kHelloReply;
  if (!IsReply(type) || (state_ == State::kConnecting ? type != want : handshake_type)) {
    *why = fmt::format("unexpected {} from the server", TypeName(type));
    return FrameError::kUnexpected;
  }
  return FrameError::kNone;
}

void ClientConnection::OnFrameError(const ClientSession* s, std::string_view message) {
  if (s == session_.get()) ProtocolFailure(Status::Error(EPROTO, std::string(message)));
}

void ClientConnection::OnReadError(const ClientSession* s, const boost::system::error_code& ec) {
  if (s == session_.get()) ConnectionError(ec, "read");
}

void ClientConnection::OnWriteError(const ClientSession* s, const boost::system::error_code& ec) {
  if (s == session_.get()) ConnectionError(ec, "write");
}

void ClientConnection::OnFrame(const ClientSession* s, const FrameHeader& h,
                               std::span<const std::byte> message, Buffer payload) {
  if (s != session_.get()) return;
  const auto type = static_cast<MsgType>(h.type);
  if (type == MsgType::kHelloReply || type == MsgType::kAuthReply) {
    if (type == MsgType::kHelloReply) {
      OnHelloReply(message);
    } else {
      OnAuthReply(message);
    }
    // A failure has dropped the session; else read the AuthReply or the first reply.
    if (session_ && (state_ == State::kReady || awaiting_auth_)) session_->Next();
    return;
  }
  auto it = pending_.find(h.tag);
  if (it == pending_.end()) {
    // A reply to a request that timed out: drop it.
    session_->Next();
    return;
  }
  if (ReplyTypeOf(it->second.type) != type) {
    return ProtocolFailure(
        Status::Error(EPROTO, fmt::format("reply {} to a {} request (tag {})", TypeName(type),
                                          TypeName(it->second.type), h.tag)));
  }
  auto body = DecodeReply(type, message, client_.options.limits);
  if (!body.ok()) return ProtocolFailure(body.status());
  Call call = std::move(it->second);
  pending_.erase(it);
  --inflight_;
  client_.counters.replies_received.fetch_add(1);
  Finish(std::move(call), Status::OK(), std::move(body).value(), std::move(payload));
  // The callback may have failed the connection (or closed the client).
  if (s != session_.get()) return;
  SendWaiting();
  session_->Next();
}

void ClientConnection::OnSubmit(Call call) {
  if (closed_) return call.done(ClientShutdown(), {}, {});
  call.tag = next_tag_++;
  call.deadline = std::chrono::steady_clock::now() + call.timeout;
  ArmSweep();
  if (waiting_.size() >= client_.options.max_queued) {
    return Finish(std::move(call),
                  Status::Retryable(EAGAIN, "too many requests waiting for a connection"));
  }
  waiting_.push_back(std::move(call));
  if (state_ == State::kDisconnected) return StartConnect();
  if (state_ == State::kReady) SendWaiting();
}

void ClientConnection::ArmSweep() {
  if (sweep_armed_) return;
  sweep_armed_ = true;
  sweep_timer_.expires_after(kSweepInterval);
  sweep_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    self->sweep_armed_ = false;
    if (!ec) self->Sweep();
  });
}

// Fails every request whose deadline has passed with ETIMEDOUT.
void ClientConnection::Sweep() {
  const auto now = std::chrono::steady_clock::now();
  std::vector<Call> expired;
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second.deadline <= now) {
      expired.push_back(std::move(it->second));
      it = pending_.erase(it);
      --inflight_;  // the server may still answer; that reply is discarded by tag
    } else {
      ++it;
    }
  }
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    if (it->deadline <= now) {
      expired.push_back(std::move(*it));
      it = waiting_.erase(it);
    } else {
      ++it;
    }
  }
  if (!pending_.empty() || !waiting_.empty()) ArmSweep();
  for (Call& call : expired) {
    client_.counters.timeouts.fetch_add(1);
    call.done(Status::Retryable(ETIMEDOUT, fmt::format("{} timed out after {} ms",
                                                       TypeName(call.type), call.timeout.count())),
              {}, {});
  }
  if (state_ == State::kReady) SendWaiting();
}

void ClientConnection::StartConnect() {
  state_ = State::kConnecting;
  awaiting_auth_ = false;
  hello_bytes_.clear();
  reply_bytes_.clear();
  const ClientOptions& o = client_.options;
  detail::FramedConnection::Options so;
  so.limits = o.limits;
  so.bytes_in = &client_.counters.bytes_in;
  so.bytes_out = &client_.counters.bytes_out;
  auto session = std::make_shared<ClientSession>(shared_from_this(), tcp::socket(strand_), so);
  session_ = session;
  connect_timer_.expires_after(o.connect_timeout);
  connect_timer_.async_wait(
      [self = shared_from_this(), session](const boost::system::error_code& ec) {
        if (ec || session != self->session_ || self->state_ != State::kConnecting) return;
        self->ConnectFailed(Status::Retryable(
            ETIMEDOUT, fmt::format("connect to {}:{} timed out", self->client_.options.host,
                                   self->client_.options.port)));
      });
  resolver_.async_resolve(
      o.host, std::to_string(o.port),
      [self = shared_from_this(), session](const boost::system::error_code& ec,
                                           tcp::resolver::results_type results) {
        if (session != self->session_ || self->state_ != State::kConnecting) return;
        if (ec) return self->ConnectFailed(self->ErrorStatus(ec, "resolve"));
        asio::async_connect(session->socket(), results,
                            [self, session](const boost::system::error_code& ec2, const auto&) {
                              if (session != self->session_ || self->state_ != State::kConnecting) {
                                return;
                              }
                              if (ec2) {
                                return self->ConnectFailed(self->ErrorStatus(ec2, "connect"));
                              }
                              const TrafficClass tc = self->client_.options.traffic_class;
                              Status marked = MarkSocket(session->socket(), tc);
                              if (!marked.ok()) {
                                self->client_.log->warn(
                                    "osd client: {}:{}: {}", self->client_.options.host,
                                    self->client_.options.port, marked.message());
                              }
                              self->SendHello();
                            });
      });
}

Status ClientConnection::ErrorStatus(const boost::system::error_code& ec,
                                     std::string_view what) const {
  return Status::Retryable(
      ec.value() > 0 ? ec.value() : EIO,
      fmt::format("{} {}:{}: {}", what, client_.options.host, client_.options.port, ec.message()));
}

void ClientConnection::SendHello() {
  session_->Begin();
  Hello hello;
  hello.max_header_len = client_.options.limits.max_header_len;
  hello.max_payload_len = client_.options.limits.max_payload_len;
  hello.name = client_.options.name;
  if (client_.options.traffic_class == TrafficClass::kBackground) {
    hello.features |= kFeatureBackground;
  }
  hello.entity = client_.options.entity;
  if (client_.options.auth == auth::AuthMode::kCephx) {
    auto nonce = auth::NewNonce();
    if (!nonce.ok()) return ConnectFailed(nonce.status());
    nonce_ = *nonce;
    hello.auth = HelloAuth::kCephx;
    hello.nonce = nonce_;
  }
  std::vector<std::byte> header;
  EncodeHello(hello, header);
  if (hello.auth == HelloAuth::kCephx) hello_bytes_ = header;
  session_->Send(MakeOutFrame(MsgType::kHello, 0, std::move(header), {}));
  session_->Next();
}

void ClientConnection::OnHelloReply(std::span<const std::byte> message) {
  auto reply = DecodeHelloReply(message, client_.options.limits);
  if (!reply.ok()) {
    return ConnectFailed(
        Status::Error(EPROTO, fmt::format("malformed HelloReply: {}", reply.status().message())));
  }
  if (!reply->status.ok()) {
    if (reply->status.code() == EACCES) {
      return AuthFailed(fmt::format("{}:{} refused the connection: {}", client_.options.host,
                                    client_.options.port, reply->status.message()));
    }
    return ConnectFailed(Status::Error(
        EPROTO, fmt::format("server refused the connection: {}", reply->status.message())));
  }
  const auth::AuthMode mode = client_.options.auth;
  if (mode == auth::AuthMode::kCephx && reply->auth != HelloAuth::kCephx) {
    return AuthFailed(
        fmt::format("{}:{} ('{}') does not authenticate (auth none there) and "
                    "this client requires cephx: not talking to it",
                    client_.options.host, client_.options.port, reply->name));
  }
  if (mode != auth::AuthMode::kCephx && reply->auth == HelloAuth::kCephx) {
    return ConnectFailed(Status::Error(EPROTO, "server answered cephx to a Hello without it"));
  }
  server_ = *reply;
  if (mode != auth::AuthMode::kCephx) return Ready();
  const auth::CryptoKey& key = client_.options.key;
  reply_bytes_.assign(message.begin(), message.end());
  AuthRequest proof;
  proof.proof = auth::ClientProof(key, hello_bytes_, reply_bytes_);
  std::vector<std::byte> header;
  EncodeAuthRequest(proof, header);
  session_->Send(MakeOutFrame(MsgType::kAuth, 0, std::move(header), {}));
  awaiting_auth_ = true;
}

void ClientConnection::OnAuthReply(std::span<const std::byte> message) {
  auto reply = DecodeAuthReply(message, client_.options.limits);
  if (!reply.ok()) {
    return ConnectFailed(
        Status::Error(EPROTO, fmt::format("malformed AuthReply: {}", reply.status().message())));
  }
  if (!reply->status.ok()) {
    return AuthFailed(fmt::format("{}:{} refused the connection: {}", client_.options.host,
                                  client_.options.port, reply->status.message()));
  }
  const auth::CryptoKey& key = client_.options.key;
  if (!auth::CheckServerProof(key, hello_bytes_, reply_bytes_, reply->proof)) {
    return AuthFailed(
        fmt::format("{}:{} ('{}') could not prove it holds {}'s key: not an OSD of "
                    "this cluster, or its key for {} is another",
                    client_.options.host, client_.options.port, server_.name,
                    client_.options.entity, client_.options.entity));
  }
  auto keys = auth::DeriveSessionKeys(client_.options.key, nonce_, server_.nonce, hello_bytes_,
                                      reply_bytes_);
  if (!keys.ok()) return ConnectFailed(keys.status());
  if (Status s = session_->EnableMac(keys->client_to_server, keys->server_to_client); !s.ok()) {
    return ConnectFailed(s);
  }
  awaiting_auth_ = false;
  hello_bytes_.clear();
  reply_bytes_.clear();
  Ready();
}

void ClientConnection::AuthFailed(std::string message) {
  client_.counters.auth_failures.fetch_add(1);
  client_.log->warn("osd client: {}", message);
  ConnectFailed(Status::Error(EACCES, std::move(message)));
}

void ClientConnection::Ready() {
  max_inflight_ = server_.max_inflight;
  if (client_.options.max_inflight > 0 &&
      (max_inflight_ == 0 || client_.options.max_inflight < max_inflight_)) {
    max_inflight_ = client_.options.max_inflight;
  }
  if (max_inflight_ == 0) max_inflight_ = 1;
  state_ = State::kReady;
  connect_timer_.cancel();
  client_.counters.connects.fetch_add(1);
  for (auto& w : std::exchange(connect_waiters_, {})) w(Status::OK());
  SendWaiting();
}

void ClientConnection::ConnectFailed(Status s) {
  client_.counters.connection_failures.fetch_add(1);
  client_.log->debug("osd client: connection {}: {}", index_, s.message());
  Fail(std::move(s));
}

// Closes the session and fails every pending and waiting request (and connect waiter) with s.
void ClientConnection::Fail(Status s) {
  connect_timer_.cancel();
  sweep_timer_.cancel();
  resolver_.cancel();
  if (session_) (void)session_->Close();
  session_.reset();
  state_ = State::kDisconnected;
  inflight_ = 0;
  auto pending = std::exchange(pending_, {});
  auto waiting = std::exchange(waiting_, {});
  for (auto& w : std::exchange(connect_waiters_, {})) w(s);
  for (auto& [tag, call] : pending) Finish(std::move(call), s);
  for (Call& call : waiting) Finish(std::move(call), s);
}

void ClientConnection::SendWaiting() {
  while (state_ == State::kReady && !waiting_.empty() && inflight_ < max_inflight_) {
    Call call = std::move(waiting_.front());
    waiting_.pop_front();
    if (call.header.size() > server_.max_header_len || call.payload_len > server_.max_payload_len) {
      Finish(std::move(call),
             Status::Error(EMSGSIZE, fmt::format("request exceeds the server's limits "
                                                 "(header {} > {} or payload {} > {})",
                                                 call.header.size(), server_.max_header_len,
                                                 call.payload_len, server_.max_payload_len)));
      continue;
    }
    session_->Send(MakeOutFrame(call.type, call.tag, std::move(call.header),
                                std::move(call.payload), call.header_crc, call.payload_crc,
                                call.payload_len));
    ++inflight_;
    client_.counters.requests_sent.fetch_add(1);
    const std::uint64_t tag = call.tag;
    pending_.emplace(tag, std::move(call));
  }
}

void ClientConnection::ConnectionError(const boost::system::error_code& ec, std::string_view what) {
  if (state_ == State::kConnecting) return ConnectFailed(ErrorStatus(ec, what));
  const int code = ec == asio::error::eof ? ECONNRESET : (ec.value() > 0 ? ec.value() : EIO);
  client_.counters.connection_failures.fetch_add(1);
  Fail(Status::Retryable(code,
                         fmt::format("connection to {}:{} failed ({}): {}", client_.options.host,
                                     client_.options.port, what, ec.message())));
}

void ClientConnection::ProtocolFailure(Status s) {
  client_.log->warn("osd client: closing connection to {}:{}: {}", client_.options.host,
                    client_.options.port, s.message());
  client_.counters.connection_failures.fetch_add(1);
  Fail(Status::Error(EPROTO, s.message()));
}

}  // namespace ec::msg::detail
