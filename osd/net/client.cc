#include "osd/net/client.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <boost/asio.hpp>
#include <deque>
#include <future>
#include <thread>
#include <unordered_map>

#include "osd/net/out_frame.h"

namespace ec::net {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

// Completion of one request: a transport/protocol Status, else the decoded reply and its payload.
using RawCallback = std::function<void(Status, ReplyBody, Buffer)>;

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

// How often a connection looks for timed-out requests while it has any: one timer per
// connection instead of one per request keeps timer syscalls off the request path. Timeouts fire
// up to this much late.
constexpr std::chrono::milliseconds kSweepInterval{10};

struct AtomicClientCounters {
  std::atomic<std::uint64_t> requests_sent{0};
  std::atomic<std::uint64_t> replies_received{0};
  std::atomic<std::uint64_t> timeouts{0};
  std::atomic<std::uint64_t> connects{0};
  std::atomic<std::uint64_t> connection_failures{0};
  std::atomic<std::uint64_t> bytes_out{0};
  std::atomic<std::uint64_t> bytes_in{0};
};

Status Shutdown() {
  return Status::Error(ESHUTDOWN, "client closed");
}

}  // namespace

class ClientConnection;

class OsdClient::Impl {
 public:
  explicit Impl(ClientOptions options)
      : options_(std::move(options)),
        log_(options_.logger ? options_.logger : spdlog::default_logger()),
        work_(asio::make_work_guard(io_)) {}

  void Submit(Call call);
  Status ConnectAll();
  void Close();
  void Join() {
    work_.reset();
    for (std::thread& t : threads_) t.join();
    threads_.clear();
  }

  ClientOptions options_;
  std::shared_ptr<spdlog::logger> log_;
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  std::vector<std::thread> threads_;
  std::vector<std::shared_ptr<ClientConnection>> conns_;
  std::atomic<std::uint64_t> next_conn_{0};
  std::atomic<bool> closed_{false};
  AtomicClientCounters counters_;
};

// One TCP connection and its requests. Every member is used on the connection's strand only.
class ClientConnection : public std::enable_shared_from_this<ClientConnection> {
 public:
  enum class State { kDisconnected, kConnecting, kReady };

  ClientConnection(OsdClient::Impl& client, int index)
      : client_(client),
        strand_(asio::make_strand(client.io_)),
        socket_(strand_),
        resolver_(strand_),
        connect_timer_(strand_),
        sweep_timer_(strand_),
        index_(index) {}

  void Submit(Call call) {
    // dispatch: a request issued from a completion callback (on this strand) goes out at once.
    asio::dispatch(strand_, [self = shared_from_this(), c = std::move(call)]() mutable {
      self->OnSubmit(std::move(c));
    });
  }

  // Connects if needed; `done` receives the outcome of the handshake (on the strand).
  void EnsureConnected(std::function<void(Status)> done) {
    asio::post(strand_, [self = shared_from_this(), done = std::move(done)]() mutable {
      if (self->closed_) return done(Shutdown());
      if (self->state_ == State::kReady) return done(Status::OK());
      self->connect_waiters_.push_back(std::move(done));
      if (self->state_ == State::kDisconnected) self->StartConnect();
    });
  }

  void Close() {
    asio::post(strand_, [self = shared_from_this()] {
      self->closed_ = true;
      self->Fail(Shutdown());
    });
  }

 private:
  void OnSubmit(Call call) {
    if (closed_) return call.done(Shutdown(), {}, {});
    call.tag = next_tag_++;
    call.deadline = std::chrono::steady_clock::now() + call.timeout;
    ArmSweep();
    if (waiting_.size() >= client_.options_.max_queued) {
      return Finish(std::move(call),
                    Status::Retryable(EAGAIN, "too many requests waiting for a connection"));
    }
    waiting_.push_back(std::move(call));
    if (state_ == State::kDisconnected) return StartConnect();
    if (state_ == State::kReady) SendWaiting();
  }

  void Finish(Call call, Status s, ReplyBody body = {}, Buffer payload = {}) {
    call.done(std::move(s), std::move(body), std::move(payload));
  }

  void ArmSweep() {
    if (sweep_armed_) return;
    sweep_armed_ = true;
    sweep_timer_.expires_after(kSweepInterval);
    sweep_timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      self->sweep_armed_ = false;
      if (!ec) self->Sweep();
    });
  }

  // Fails every request whose deadline has passed with ETIMEDOUT.
  void Sweep() {
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
      client_.counters_.timeouts.fetch_add(1);
      call.done(
          Status::Retryable(ETIMEDOUT, fmt::format("{} timed out after {} ms", TypeName(call.type),
                                                   call.timeout.count())),
          {}, {});
    }
    if (state_ == State::kReady) SendWaiting();
  }

  void StartConnect() {
    state_ = State::kConnecting;
    const ClientOptions& o = client_.options_;
    connect_timer_.expires_after(o.connect_timeout);
    connect_timer_.async_wait(
        [self = shared_from_this(), gen = ++connect_gen_](const boost::system::error_code& ec) {
          if (ec || gen != self->connect_gen_ || self->state_ != State::kConnecting) return;
          self->ConnectFailed(Status::Retryable(
              ETIMEDOUT, fmt::format("connect to {}:{} timed out", self->client_.options_.host,
                                     self->client_.options_.port)));
        });
    resolver_.async_resolve(
        o.host, std::to_string(o.port),
        [self = shared_from_this(), gen = connect_gen_](const boost::system::error_code& ec,
                                                        tcp::resolver::results_type results) {
          if (gen != self->connect_gen_ || self->state_ != State::kConnecting) return;
          if (ec) return self->ConnectFailed(self->ErrorStatus(ec, "resolve"));
          asio::async_connect(
              self->socket_, results,
              [self, gen](const boost::system::error_code& ec2, const auto&) {
                if (gen != self->connect_gen_ || self->state_ != State::kConnecting) {
                  return;
                }
                if (ec2) return self->ConnectFailed(self->ErrorStatus(ec2, "connect"));
                self->SendHello();
              });
        });
  }

  Status ErrorStatus(const boost::system::error_code& ec, std::string_view what) const {
    return Status::Retryable(ec.value() > 0 ? ec.value() : EIO,
                             fmt::format("{} {}:{}: {}", what, client_.options_.host,
                                         client_.options_.port, ec.message()));
  }

  void SendHello() {
    boost::system::error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);
    socket_.non_blocking(true, ignored);  // for the speculative body reads in OnHeader
    Hello hello;
    hello.max_header_len = client_.options_.limits.max_header_len;
    hello.max_payload_len = client_.options_.limits.max_payload_len;
    hello.name = client_.options_.name;
    std::vector<std::byte> header;
    EncodeHello(hello, header);
    QueueFrame(MsgType::kHello, 0, std::move(header), {}, 0, 0);
    ReadHeader();
  }

  void OnHelloReply() {
    auto reply = DecodeHelloReply(msg_, client_.options_.limits);
    if (!reply.ok()) {
      return ConnectFailed(
          Status::Error(EPROTO, fmt::format("malformed HelloReply: {}", reply.status().message())));
    }
    if (!reply->status.ok()) {
      return ConnectFailed(Status::Error(
          EPROTO, fmt::format("server refused the connection: {}", reply->status.message())));
    }
    server_ = *reply;
    max_inflight_ = server_.max_inflight;
    if (client_.options_.max_inflight > 0 &&
        (max_inflight_ == 0 || client_.options_.max_inflight < max_inflight_)) {
      max_inflight_ = client_.options_.max_inflight;
    }
    if (max_inflight_ == 0) max_inflight_ = 1;
    state_ = State::kReady;
    ++connect_gen_;
    connect_timer_.cancel();
    client_.counters_.connects.fetch_add(1);
    for (auto& w : std::exchange(connect_waiters_, {})) w(Status::OK());
    SendWaiting();
  }

  void ConnectFailed(Status s) {
    client_.counters_.connection_failures.fetch_add(1);
    client_.log_->debug("osd client: connection {}: {}", index_, s.message());
    Fail(std::move(s));
  }

  // Closes the socket and fails every pending and waiting request (and connect waiter) with s.
  void Fail(Status s) {
    ++connect_gen_;
    connect_timer_.cancel();
    sweep_timer_.cancel();
    resolver_.cancel();
    boost::system::error_code ignored;
    socket_.close(ignored);
    state_ = State::kDisconnected;
    ++epoch_;
    inflight_ = 0;
    writing_ = false;
    queue_.clear();
    auto pending = std::exchange(pending_, {});
    auto waiting = std::exchange(waiting_, {});
    for (auto& w : std::exchange(connect_waiters_, {})) w(s);
    for (auto& [tag, call] : pending) Finish(std::move(call), s);
    for (Call& call : waiting) Finish(std::move(call), s);
  }

  void SendWaiting() {
    while (state_ == State::kReady && !waiting_.empty() && inflight_ < max_inflight_) {
      Call call = std::move(waiting_.front());
      waiting_.pop_front();
      if (call.header.size() > server_.max_header_len ||
          call.payload_len > server_.max_payload_len) {
        Finish(std::move(call),
               Status::Error(EMSGSIZE, fmt::format("request exceeds the server's limits "
                                                   "(header {} > {} or payload {} > {})",
                                                   call.header.size(), server_.max_header_len,
                                                   call.payload_len, server_.max_payload_len)));
        continue;
      }
      QueueFrame(call.type, call.tag, std::move(call.header), std::move(call.payload),
                 call.header_crc, call.payload_crc, call.payload_len);
      ++inflight_;
      client_.counters_.requests_sent.fetch_add(1);
      const std::uint64_t tag = call.tag;
      pending_.emplace(tag, std::move(call));
    }
  }

  void QueueFrame(MsgType type, std::uint64_t tag, std::vector<std::byte> header,
                  std::vector<Buffer> payload, std::uint32_t header_crc, std::uint32_t payload_crc,
                  std::uint64_t payload_len = 0) {
    OutFrame f;
    FrameHeader h;
    h.type = static_cast<std::uint16_t>(type);
    h.tag = tag;
    h.header_len = static_cast<std::uint32_t>(header.size());
    h.header_crc = type == MsgType::kHello ? Crc32c(header) : header_crc;
    h.payload_len = static_cast<std::uint32_t>(payload_len);
    h.payload_crc = payload_crc;
    EncodeFrameHeader(h, f.fixed);
    f.header = std::move(header);
    f.payload = std::move(payload);
    queue_.push_back(std::move(f));
    if (!writing_) WriteQueued();
  }

  void WriteQueued() {
    writing_ = true;
    in_write_.clear();
    std::swap(in_write_, queue_);
    std::vector<asio::const_buffer> bufs;
    bufs.reserve(in_write_.size() * 3);
    AppendGather(in_write_, bufs);
    asio::async_write(socket_, bufs,
                      [self = shared_from_this(), epoch = epoch_](
                          const boost::system::error_code& ec, std::size_t n) {
                        if (epoch != self->epoch_) return;  // the connection was reset
                        self->client_.counters_.bytes_out.fetch_add(n);
                        self->writing_ = false;
                        self->in_write_.clear();
                        if (ec) return self->ConnectionError(ec, "write");
                        if (!self->queue_.empty()) self->WriteQueued();
                      });
  }

  void ConnectionError(const boost::system::error_code& ec, std::string_view what) {
    if (state_ == State::kConnecting) return ConnectFailed(ErrorStatus(ec, what));
    const int code = ec == asio::error::eof ? ECONNRESET : (ec.value() > 0 ? ec.value() : EIO);
    client_.counters_.connection_failures.fetch_add(1);
    Fail(Status::Retryable(code,
                           fmt::format("connection to {}:{} failed ({}): {}", client_.options_.host,
                                       client_.options_.port, what, ec.message())));
  }

  void ProtocolFailure(Status s) {
    client_.log_->warn("osd client: closing connection to {}:{}: {}", client_.options_.host,
                       client_.options_.port, s.message());
    client_.counters_.connection_failures.fetch_add(1);
    Fail(Status::Error(EPROTO, s.message()));
  }

  void ReadHeader() {
    asio::async_read(socket_, asio::buffer(hdr_.data(), hdr_.size()),
                     [self = shared_from_this(), epoch = epoch_](
                         const boost::system::error_code& ec, std::size_t n) {
                       if (epoch != self->epoch_) return;
                       self->client_.counters_.bytes_in.fetch_add(n);
                       if (ec) return self->ConnectionError(ec, "read");
                       self->OnHeader();
                     });
  }

  void OnHeader() {
    auto h = DecodeFrameHeader(hdr_, client_.options_.limits);
    if (!h.ok()) return ProtocolFailure(h.status());
    frame_ = *h;
    const auto type = static_cast<MsgType>(frame_.type);
    const bool want_hello = state_ == State::kConnecting;
    if (!IsReply(type) || (type == MsgType::kHelloReply) != want_hello) {
      return ProtocolFailure(
          Status::Error(EPROTO, fmt::format("unexpected {} from the server", TypeName(type))));
    }
    msg_.resize(frame_.header_len);
    payload_ = frame_.payload_len ? Buffer::Allocate(frame_.payload_len, false) : Buffer();
    // Whatever the socket already holds first (usually all of a small reply), then the rest.
    std::size_t got = 0;
    if (msg_.size() + payload_.size() > 0) {
      std::array<asio::mutable_buffer, 2> all{asio::buffer(msg_.data(), msg_.size()),
                                              asio::buffer(payload_.data(), payload_.size())};
      boost::system::error_code ec;
      got = socket_.read_some(all, ec);
      if (ec == asio::error::would_block || ec == asio::error::try_again) {
        got = 0;
      } else if (ec) {
        return ConnectionError(ec, "read");
      }
      client_.counters_.bytes_in.fetch_add(got);
    }
    if (got == msg_.size() + payload_.size()) return OnBody();
    const std::size_t in_msg = std::min(got, msg_.size());
    const std::size_t in_payload = got - in_msg;
    std::array<asio::mutable_buffer, 2> bufs{
        asio::buffer(msg_.data() + in_msg, msg_.size() - in_msg),
        asio::buffer(payload_.data() + in_payload, payload_.size() - in_payload)};
    asio::async_read(socket_, bufs,
                     [self = shared_from_this(), epoch = epoch_](
                         const boost::system::error_code& ec, std::size_t n) {
                       if (epoch != self->epoch_) return;
                       self->client_.counters_.bytes_in.fetch_add(n);
                       if (ec) return self->ConnectionError(ec, "read");
                       self->OnBody();
                     });
  }

  void OnBody() {
    if (Status s = CheckCrc(msg_, frame_.header_crc, "header"); !s.ok()) {
      return ProtocolFailure(s);
    }
    if (Status s = CheckCrc(payload_.span(), frame_.payload_crc, "payload"); !s.ok()) {
      return ProtocolFailure(s);
    }
    const auto type = static_cast<MsgType>(frame_.type);
    if (type == MsgType::kHelloReply) {
      OnHelloReply();
      if (state_ == State::kReady) ReadHeader();
      return;
    }
    auto it = pending_.find(frame_.tag);
    if (it == pending_.end()) {
      // A reply to a request that timed out: drop it.
      ReadHeader();
      return;
    }
    if (ReplyTypeOf(it->second.type) != type) {
      return ProtocolFailure(
          Status::Error(EPROTO, fmt::format("reply {} to a {} request (tag {})", TypeName(type),
                                            TypeName(it->second.type), frame_.tag)));
    }
    auto body = DecodeReply(type, msg_, client_.options_.limits);
    if (!body.ok()) return ProtocolFailure(body.status());
    Call call = std::move(it->second);
    pending_.erase(it);
    --inflight_;
    client_.counters_.replies_received.fetch_add(1);
    Finish(std::move(call), Status::OK(), std::move(body).value(), std::move(payload_));
    payload_ = Buffer();
    SendWaiting();
    ReadHeader();
  }

  OsdClient::Impl& client_;
  asio::strand<asio::io_context::executor_type> strand_;
  tcp::socket socket_;
  tcp::resolver resolver_;
  asio::steady_timer connect_timer_;
  asio::steady_timer sweep_timer_;
  bool sweep_armed_ = false;
  int index_;
  State state_ = State::kDisconnected;
  bool closed_ = false;
  std::uint64_t connect_gen_ = 0;
  std::uint64_t epoch_ = 0;  // bumped on every reset, so stale completions are ignored
  std::vector<std::function<void(Status)>> connect_waiters_;
  HelloReply server_;
  std::uint32_t max_inflight_ = 1;
  std::uint32_t inflight_ = 0;
  std::uint64_t next_tag_ = 1;
  std::deque<Call> waiting_;
  std::unordered_map<std::uint64_t, Call> pending_;
  std::vector<OutFrame> queue_;
  std::vector<OutFrame> in_write_;
  bool writing_ = false;
  std::array<std::byte, kFrameHeaderSize> hdr_{};
  FrameHeader frame_;
  std::vector<std::byte> msg_;
  Buffer payload_;
};

void OsdClient::Impl::Submit(Call call) {
  if (closed_) return call.done(Shutdown(), {}, {});
  if (call.timeout.count() <= 0) call.timeout = options_.request_timeout;
  call.header_crc = Crc32c(call.header);
  for (const Buffer& b : call.payload) {
    call.payload_crc = Crc32cExtend(call.payload_crc, b.span());
    call.payload_len += b.size();
  }
  if (call.payload_len > UINT32_MAX) {
    return call.done(Status::Error(EMSGSIZE, "payload larger than 4 GiB"), {}, {});
  }
  const std::size_t i = next_conn_.fetch_add(1) % conns_.size();
  conns_[i]->Submit(std::move(call));
}

Status OsdClient::Impl::ConnectAll() {
  if (closed_) return Shutdown();
  std::vector<std::future<Status>> results;
  for (auto& c : conns_) {
    auto p = std::make_shared<std::promise<Status>>();
    results.push_back(p->get_future());
    c->EnsureConnected([p](Status s) { p->set_value(std::move(s)); });
  }
  Status first;
  for (auto& f : results) {
    Status s = f.get();
    if (first.ok() && !s.ok()) first = std::move(s);
  }
  return first;
}

void OsdClient::Impl::Close() {
  if (closed_.exchange(true)) return;
  for (auto& c : conns_) c->Close();
}

namespace {

// Turns a raw completion into a typed one: transport errors and error replies become the Result's
// Status; `convert` builds the value from a successful reply.
template <typename Reply, typename T, typename Convert>
RawCallback Typed(Callback<T> done, Convert convert) {
  return [done = std::move(done), convert = std::move(convert)](Status s, ReplyBody body,
                                                                Buffer payload) mutable {
    if (!s.ok()) return done(Result<T>(std::move(s)));
    auto* reply = std::get_if<Reply>(&body);
    if (reply == nullptr) return done(Result<T>(Status::Error(EPROTO, "wrong reply type")));
    if (!reply->status.ok()) return done(Result<T>(reply->status));
    done(convert(*reply, std::move(payload)));
  };
}

RawCallback StatusOnly(StatusCallback done) {
  return [done = std::move(done)](Status s, ReplyBody body, Buffer) {
    if (!s.ok()) return done(std::move(s));
    done(StatusOf(body));
  };
}

template <typename T, typename Start>
Result<T> Wait(Start start) {
  std::promise<Result<T>> p;
  auto f = p.get_future();
  start([&p](Result<T> r) { p.set_value(std::move(r)); });
  return f.get();
}

Status WaitStatus(const std::function<void(StatusCallback)>& start) {
  std::promise<Status> p;
  auto f = p.get_future();
  start([&p](Status s) { p.set_value(std::move(s)); });
  return f.get();
}

Call MakeCall(const RequestBody& body, std::vector<Buffer> payload, CallOptions options,
              RawCallback done) {
  Call c;
  c.type = TypeOf(body);
  EncodeRequest(body, c.header);
  c.payload = std::move(payload);
  c.timeout = options.timeout;
  c.done = std::move(done);
  return c;
}

}  // namespace

Result<std::unique_ptr<OsdClient>> OsdClient::Create(ClientOptions options) {
  if (options.port == 0) return Status::Invalid("client: port 0");
  if (options.connections < 1 || options.connections > 64) {
    return Status::Invalid(
        fmt::format("client: connections {} out of range 1..64", options.connections));
  }
  if (options.io_threads < 1 || options.io_threads > 64) {
    return Status::Invalid(
        fmt::format("client: io_threads {} out of range 1..64", options.io_threads));
  }
  auto impl = std::make_shared<Impl>(std::move(options));
  for (int i = 0; i < impl->options_.connections; ++i) {
    impl->conns_.push_back(std::make_shared<ClientConnection>(*impl, i));
  }
  for (int i = 0; i < impl->options_.io_threads; ++i) {
    impl->threads_.emplace_back([raw = impl.get()] { raw->io_.run(); });
  }
  return std::unique_ptr<OsdClient>(new OsdClient(std::move(impl)));
}

OsdClient::OsdClient(std::shared_ptr<Impl> impl) : impl_(std::move(impl)) {}

OsdClient::~OsdClient() {
  impl_->Close();
  impl_->Join();
  impl_->conns_.clear();
}

Status OsdClient::Connect() {
  return impl_->ConnectAll();
}
void OsdClient::Close() {
  impl_->Close();
}

ClientCounters OsdClient::counters() const {
  const auto& a = impl_->counters_;
  ClientCounters c;
  c.requests_sent = a.requests_sent;
  c.replies_received = a.replies_received;
  c.timeouts = a.timeouts;
  c.connects = a.connects;
  c.connection_failures = a.connection_failures;
  c.bytes_out = a.bytes_out;
  c.bytes_in = a.bytes_in;
  return c;
}

void OsdClient::PingAsync(std::vector<Buffer> request_payload, std::uint32_t response_len,
                          Callback<Buffer> done, CallOptions options) {
  impl_->Submit(MakeCall(
      PingRequest{response_len}, std::move(request_payload), options,
      Typed<PingReply, Buffer>(std::move(done), [response_len](const PingReply&, Buffer p) {
        if (p.size() != response_len) {
          return Result<Buffer>(Status::Error(EBADMSG, "ping reply of wrong size"));
        }
        return Result<Buffer>(std::move(p));
      })));
}

Result<Buffer> OsdClient::Ping(std::vector<Buffer> request_payload, std::uint32_t response_len,
                               CallOptions options) {
  return Wait<Buffer>([&](Callback<Buffer> cb) {
    PingAsync(std::move(request_payload), response_len, std::move(cb), options);
  });
}

void OsdClient::WriteShardAsync(WriteShardRequest request, std::vector<Buffer> data,
                                StatusCallback done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), std::move(data), options, StatusOnly(std::move(done))));
}

Status OsdClient::WriteShard(WriteShardRequest request, std::vector<Buffer> data,
                             CallOptions options) {
  return WaitStatus([&](StatusCallback cb) {
    WriteShardAsync(std::move(request), std::move(data), std::move(cb), options);
  });
}

void OsdClient::ReadShardAsync(ReadShardRequest request, Callback<ReadShardResult> done,
                               CallOptions options) {
  std::vector<ByteExtent> asked = request.extents;
  auto convert = [asked = std::move(asked)](const ReadShardReply& r,
                                            Buffer payload) -> Result<ReadShardResult> {
    if (r.lengths.size() != asked.size()) {
      return Status::Error(EBADMSG, fmt::format("ReadShard reply has {} lengths for {} extents",
                                                r.lengths.size(), asked.size()));
    }
    ReadShardResult out;
    out.object_size = r.object_size;
    out.version = r.version;
    std::uint64_t pos = 0;
    for (std::size_t i = 0; i < asked.size(); ++i) {
      if (r.lengths[i] > asked[i].length || r.lengths[i] > payload.size() - pos) {
        return Status::Error(EBADMSG, fmt::format("ReadShard reply length {} of extent {} does "
                                                  "not fit the request or the payload",
                                                  r.lengths[i], i));
      }
      out.extents.push_back(payload.Slice(pos, r.lengths[i]));
      pos += r.lengths[i];
    }
    if (pos != payload.size()) {
      return Status::Error(EBADMSG, fmt::format("ReadShard reply payload {} != sum of lengths {}",
                                                payload.size(), pos));
    }
    return out;
  };
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<ReadShardReply, ReadShardResult>(std::move(done), std::move(convert))));
}

Result<ReadShardResult> OsdClient::ReadShard(ReadShardRequest request, CallOptions options) {
  return Wait<ReadShardResult>([&](Callback<ReadShardResult> cb) {
    ReadShardAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::StatAsync(StatRequest request, Callback<StatResult> done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<StatReply, StatResult>(std::move(done), [](const StatReply& r, Buffer) {
                 return Result<StatResult>(StatResult{r.size, r.version, r.attrs});
               })));
}

Result<StatResult> OsdClient::Stat(StatRequest request, CallOptions options) {
  return Wait<StatResult>(
      [&](Callback<StatResult> cb) { StatAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::ListAsync(ListRequest request, Callback<ListResult> done, CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<ListReply, ListResult>(std::move(done), [](const ListReply& r, Buffer) {
                 return Result<ListResult>(ListResult{r.entries, r.next_cursor, r.end});
               })));
}

Result<ListResult> OsdClient::List(ListRequest request, CallOptions options) {
  return Wait<ListResult>(
      [&](Callback<ListResult> cb) { ListAsync(std::move(request), std::move(cb), options); });
}

void OsdClient::RemoveAsync(RemoveRequest request, StatusCallback done, CallOptions options) {
  impl_->Submit(MakeCall(std::move(request), {}, options, StatusOnly(std::move(done))));
}

Status OsdClient::Remove(RemoveRequest request, CallOptions options) {
  return WaitStatus(
      [&](StatusCallback cb) { RemoveAsync(std::move(request), std::move(cb), options); });
}

}  // namespace ec::net
