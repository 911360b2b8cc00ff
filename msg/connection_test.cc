// FramedConnection on its own: a probe subclass on one end of a loopback TCP connection records
// every hook; the test drives the other end with raw bytes.
#include "msg/connection.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <variant>

#include "msg/messages.h"

namespace ec::msg::detail {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

struct GotFrame {
  FrameHeader header;
  std::vector<std::byte> message;
  Buffer payload;
};
struct GotFrameError {
  FrameError why;
  std::string message;
};
struct GotReadError {
  boost::system::error_code ec;
  bool mid_frame;
};
struct GotTimer {
  FramedConnection::Timer which;
};
struct GotWritten {
  std::size_t frames;
  boost::system::error_code ec;
};
using Event = std::variant<GotFrame, GotFrameError, GotReadError, GotTimer, GotWritten>;

class Probe : public FramedConnection {
 public:
  Probe(tcp::socket socket, Options options) : FramedConnection(std::move(socket), options) {}

  // Run on the connection's executor (the test's io thread).
  void Start() {
    Run([this] { Prepare(); });
  }
  void Read(bool idle = false) {
    Run([this, idle] { ReadFrame(idle); });
  }
  void SendFrames(std::vector<OutFrame> frames) {
    Run([this, &frames] {
      for (OutFrame& f : frames) Send(std::move(f));
    });
  }
  void Deadline(std::chrono::milliseconds d) {
    Run([this, d] { ArmDeadline(d); });
  }
  std::size_t CloseNow() {
    std::size_t unsent = 0;
    Run([this, &unsent] { unsent = Close().size(); });
    return unsent;
  }
  // Refuse every header of this type in CheckHeader.
  void RefuseType(MsgType t) { refused_ = t; }

  // The next event, or nothing within `within`.
  std::optional<Event> Next(std::chrono::milliseconds within = 5000ms) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, within, [this] { return !events_.empty(); })) return std::nullopt;
    Event e = std::move(events_.front());
    events_.pop_front();
    return e;
  }

 private:
  // Runs `fn` on the executor and waits for it.
  template <typename Fn>
  void Run(Fn fn) {
    std::promise<void> done;
    asio::post(executor(), [&] {
      fn();
      done.set_value();
    });
    done.get_future().wait();
  }
  void Push(Event e) {
    std::lock_guard lock(mu_);
    events_.push_back(std::move(e));
    cv_.notify_all();
  }

  FrameError CheckHeader(const FrameHeader& h, std::string* why) override {
    if (refused_ && static_cast<MsgType>(h.type) == *refused_) {
      *why = "refused by the owner";
      return FrameError::kUnexpected;
    }
    return FrameError::kNone;
  }
  void OnFrame(const FrameHeader& h, std::span<const std::byte> message, Buffer payload) override {
    Push(GotFrame{h, {message.begin(), message.end()}, std::move(payload)});
  }
  void OnFrameError(FrameError why, std::string_view message) override {
    Push(GotFrameError{why, std::string(message)});
  }
  void OnReadError(const boost::system::error_code& ec, bool mid_frame) override {
    Push(GotReadError{ec, mid_frame});
  }
  void OnTimer(Timer which) override { Push(GotTimer{which}); }
  void OnWritten(const std::vector<OutFrame>& frames,
                 const boost::system::error_code& ec) override {
    Push(GotWritten{frames.size(), ec});
  }

  std::optional<MsgType> refused_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Event> events_;
};

std::vector<std::byte> Bytes(std::size_t n, std::uint8_t seed) {
  std::vector<std::byte> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::byte>((i * 31 + seed) & 0xff);
  return v;
}

// The bytes of a Ping frame with `payload_len` payload bytes (pattern from seed).
std::vector<std::byte> PingFrame(std::uint64_t tag, std::size_t payload_len, std::uint8_t seed) {
  std::vector<std::byte> header;
  EncodeRequest(PingRequest{7}, header);
  OutFrame f = MakeOutFrame(MsgType::kPing, tag, header, {Buffer::Copy(Bytes(payload_len, seed))});
  std::vector<std::byte> out(kFrameHeaderSize + f.header.size() + payload_len);
  std::memcpy(out.data(), f.fixed.data(), kFrameHeaderSize);
  std::memcpy(out.data() + kFrameHeaderSize, f.header.data(), f.header.size());
  if (payload_len > 0) {
    std::memcpy(out.data() + kFrameHeaderSize + f.header.size(), f.payload[0].data(), payload_len);
  }
  return out;
}

class ConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(FramedConnection::Options{}); }
  void TearDown() override {
    if (probe_) (void)probe_->CloseNow();
    work_.reset();
    if (thread_.joinable()) thread_.join();
  }

  void Open(FramedConnection::Options options) {
    options.bytes_in = &bytes_in_;
    options.bytes_out = &bytes_out_;
    tcp::acceptor acceptor(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
    peer_.connect(acceptor.local_endpoint());
    tcp::socket accepted(asio::make_strand(io_));
    acceptor.accept(accepted);
    probe_ = std::make_shared<Probe>(std::move(accepted), options);
    thread_ = std::thread([this] { io_.run(); });
    probe_->Start();
  }
  void Reopen(FramedConnection::Options options) {
    (void)probe_->CloseNow();
    probe_.reset();
    work_.reset();
    thread_.join();
    io_.restart();
    work_.emplace(asio::make_work_guard(io_));
    peer_.close();
    Open(options);
  }

  void PeerSend(const std::vector<std::byte>& bytes) {
    asio::write(peer_, asio::buffer(bytes.data(), bytes.size()));
  }
  std::vector<std::byte> PeerRead(std::size_t n) {
    std::vector<std::byte> got(n);
    asio::read(peer_, asio::buffer(got.data(), n));
    return got;
  }

  asio::io_context io_;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_{
      asio::make_work_guard(io_)};
  std::thread thread_;
  asio::io_context peer_io_;
  tcp::socket peer_{peer_io_};
  std::atomic<std::uint64_t> bytes_in_{0};
  std::atomic<std::uint64_t> bytes_out_{0};
  std::shared_ptr<Probe> probe_;
};

template <typename T>
T Expect(std::optional<Event> e) {
  EXPECT_TRUE(e.has_value()) << "no event";
  if (!e) return T{};
  EXPECT_TRUE(std::holds_alternative<T>(*e)) << "event index " << e->index();
  if (!std::holds_alternative<T>(*e)) return T{};
  return std::get<T>(std::move(*e));
}

TEST_F(ConnectionTest, FrameArrivingByteByByteIsDeliveredWholeAndChecked) {
  const auto bytes = PingFrame(42, 3000, 1);
  probe_->Read();
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    PeerSend({bytes[i]});
    if (i % 500 == 0) std::this_thread::sleep_for(1ms);  // let the reads see partial frames
  }
  auto f = Expect<GotFrame>(probe_->Next());
  EXPECT_EQ(f.header.tag, 42u);
  EXPECT_EQ(f.header.type, static_cast<std::uint16_t>(MsgType::kPing));
  auto ping = DecodeRequest(MsgType::kPing, f.message, Limits{});
  ASSERT_TRUE(ping.ok()) << ping.status().message();
  EXPECT_EQ(std::get<PingRequest>(*ping).response_len, 7u);
  const auto want = Bytes(3000, 1);
  ASSERT_EQ(f.payload.size(), want.size());
  EXPECT_TRUE(std::equal(want.begin(), want.end(), f.payload.data()));
  EXPECT_EQ(bytes_in_.load(), bytes.size());

  // Two frames in one segment: the second waits in the socket until asked for.
  const auto two = [] {
    auto a = PingFrame(1, 0, 0);
    auto b = PingFrame(2, 10, 2);
    a.insert(a.end(), b.begin(), b.end());
    return a;
  }();
  PeerSend(two);
  probe_->Read();
  EXPECT_EQ(Expect<GotFrame>(probe_->Next()).header.tag, 1u);
  EXPECT_FALSE(probe_->Next(50ms).has_value()) << "read a frame nobody asked for";
  probe_->Read();
  EXPECT_EQ(Expect<GotFrame>(probe_->Next()).header.tag, 2u);
}

TEST_F(ConnectionTest, OversizedLengthIsRefusedFromTheHeaderAlone) {
  Reopen([] {
    FramedConnection::Options o;
    o.limits.max_payload_len = 1 << 20;
    return o;
  }());
  auto bytes = PingFrame(1, 0, 0);
  // Claim a 4 GiB payload (and fix the frame crc): only the 40 header bytes are sent.
  FrameHeader h = *DecodeFrameHeader(bytes, Limits{});
  h.payload_len = 0xffffffffu;
  EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(bytes.data(), kFrameHeaderSize));
  bytes.resize(kFrameHeaderSize);
  probe_->Read();
  PeerSend(bytes);
  auto e = Expect<GotFrameError>(probe_->Next());
  EXPECT_EQ(e.why, FrameError::kOversized) << e.message;
}

TEST_F(ConnectionTest, OwnerRefusalStopsBeforeTheBody) {
  probe_->RefuseType(MsgType::kPing);
  auto bytes = PingFrame(1, 100000, 3);
  bytes.resize(kFrameHeaderSize);  // the body never comes: the refusal must not wait for it
  probe_->Read();
  PeerSend(bytes);
  auto e = Expect<GotFrameError>(probe_->Next());
  EXPECT_EQ(e.why, FrameError::kUnexpected);
  EXPECT_EQ(e.message, "refused by the owner");
}

TEST_F(ConnectionTest, CrcMismatchesAreReportedAndNothingIsDelivered) {
  auto bytes = PingFrame(1, 64, 4);
  bytes.back() ^= std::byte{0x10};
  probe_->Read();
  PeerSend(bytes);
  EXPECT_EQ(Expect<GotFrameError>(probe_->Next()).why, FrameError::kBadPayloadCrc);

  Reopen({});
  bytes = PingFrame(1, 0, 0);
  bytes[kFrameHeaderSize] ^= std::byte{1};  // first byte of the message header
  probe_->Read();
  PeerSend(bytes);
  EXPECT_EQ(Expect<GotFrameError>(probe_->Next()).why, FrameError::kBadHeaderCrc);

  Reopen({});
  bytes = PingFrame(1, 0, 0);
  bytes[20] ^= std::byte{1};  // inside the fixed header: its own crc fails
  probe_->Read();
  PeerSend(bytes);
  EXPECT_EQ(Expect<GotFrameError>(probe_->Next()).why, FrameError::kBadFrameCrc);
}

TEST_F(ConnectionTest, EndOfStreamSaysWhetherAFrameWasCut) {
  probe_->Read();
  peer_.shutdown(tcp::socket::shutdown_send);
  auto clean = Expect<GotReadError>(probe_->Next());
  EXPECT_EQ(clean.ec, asio::error::eof);
  EXPECT_FALSE(clean.mid_frame);

  Reopen({});
  auto bytes = PingFrame(1, 1000, 5);
  bytes.resize(kFrameHeaderSize + 100);
  probe_->Read();
  PeerSend(bytes);
  peer_.shutdown(tcp::socket::shutdown_send);
  auto cut = Expect<GotReadError>(probe_->Next());
  EXPECT_TRUE(cut.mid_frame);

  Reopen({});
  probe_->Read();
  PeerSend({bytes.begin(), bytes.begin() + 10});  // part of the fixed header only
  peer_.shutdown(tcp::socket::shutdown_send);
  EXPECT_TRUE(Expect<GotReadError>(probe_->Next()).mid_frame);
}

TEST_F(ConnectionTest, FrameIdleAndOwnerTimers) {
  FramedConnection::Options o;
  o.frame_timeout = 100ms;
  o.idle_timeout = 100ms;
  Reopen(o);
  // A peer that stalls mid-frame.
  auto bytes = PingFrame(1, 1000, 6);
  probe_->Read();
  PeerSend({bytes.begin(), bytes.begin() + 60});
  EXPECT_EQ(Expect<GotTimer>(probe_->Next()).which, FramedConnection::Timer::kFrame);

  // Nothing at all while idle; without `idle`, no timer.
  Reopen(o);
  probe_->Read(/*idle=*/false);
  EXPECT_FALSE(probe_->Next(300ms).has_value());
  Reopen(o);
  probe_->Read(/*idle=*/true);
  EXPECT_EQ(Expect<GotTimer>(probe_->Next()).which, FramedConnection::Timer::kIdle);

  // A whole frame disarms the idle timer and arms nothing.
  Reopen(o);
  probe_->Read(/*idle=*/true);
  PeerSend(PingFrame(9, 10, 7));
  EXPECT_EQ(Expect<GotFrame>(probe_->Next()).header.tag, 9u);
  EXPECT_FALSE(probe_->Next(300ms).has_value());

  // The owner's deadline wins over the frame timer.
  Reopen(o);
  probe_->Deadline(400ms);
  probe_->Read();
  PeerSend({bytes.begin(), bytes.begin() + 60});
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(Expect<GotTimer>(probe_->Next()).which, FramedConnection::Timer::kDeadline);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 250ms);
}

TEST_F(ConnectionTest, FramesQueuedDuringAWriteGoOutTogetherAndCloseReturnsTheUnsent) {
  // A big first frame keeps the write busy while three more are queued behind it.
  constexpr std::size_t kBig = 8 << 20;
  std::vector<OutFrame> frames;
  std::vector<std::byte> header;
  EncodeRequest(PingRequest{0}, header);
  frames.push_back(MakeOutFrame(MsgType::kPing, 1, header, {Buffer::Copy(Bytes(kBig, 8))}));
  for (std::uint64_t tag = 2; tag <= 4; ++tag) {
    frames.push_back(MakeOutFrame(MsgType::kPing, tag, header, {Buffer::Copy(Bytes(100, 9))}));
  }
  probe_->SendFrames(std::move(frames));
  // Read everything on the peer and check each frame.
  std::uint64_t total = 0;
  for (std::uint64_t tag = 1; tag <= 4; ++tag) {
    auto fixed = PeerRead(kFrameHeaderSize);
    auto h = DecodeFrameHeader(fixed, Limits{});
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h->tag, tag);
    auto rest = PeerRead(h->header_len + h->payload_len);
    EXPECT_TRUE(CheckCrc(std::span(rest).subspan(h->header_len), h->payload_crc, "payload").ok());
    total += kFrameHeaderSize + rest.size();
  }
  auto first = Expect<GotWritten>(probe_->Next());
  EXPECT_EQ(first.frames, 1u);
  EXPECT_FALSE(first.ec);
  auto second = Expect<GotWritten>(probe_->Next());
  EXPECT_EQ(second.frames, 3u) << "the queued frames were not gathered into one write";
  EXPECT_EQ(bytes_out_.load(), total);

  // Close with frames queued behind a write the peer does not read: the queued ones come back,
  // the one in the write is reported failed.
  frames.clear();
  frames.push_back(MakeOutFrame(MsgType::kPing, 5, header, {Buffer::Copy(Bytes(64 << 20, 1))}));
  frames.push_back(MakeOutFrame(MsgType::kPing, 6, header, {}));
  frames.push_back(MakeOutFrame(MsgType::kPing, 7, header, {}));
  probe_->SendFrames(std::move(frames));
  EXPECT_EQ(probe_->CloseNow(), 2u);
  auto failed = Expect<GotWritten>(probe_->Next());
  EXPECT_EQ(failed.frames, 1u);
  EXPECT_TRUE(failed.ec);
  EXPECT_EQ(probe_->CloseNow(), 0u);  // idempotent
}

}  // namespace
}  // namespace ec::msg::detail
