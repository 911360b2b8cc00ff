// The authenticated messenger end to end in process (issue 32 item 2): a Server with auth cephx and
// real OsdClients over loopback, and raw sockets for what no honest client does (a replayed
// handshake, replayed, reordered and changed frames). Every refusal: the error on the refused side,
// the reason counted on the refusing side, nothing handed to the handler, never a crash.
#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <boost/asio.hpp>
#include <thread>

#include "msg/auth/handshake.h"
#include "msg/auth/key_server.h"
#include "msg/client.h"
#include "msg/server.h"

namespace ec::msg {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Answers every request OK (an empty reply of its type) and counts what it saw.
class AllowAllHandler : public RequestHandler {
 public:
  void Handle(Request request, std::shared_ptr<Responder> responder) override {
    seen_.fetch_add(1);
    last_entity_ = request.entity;
    std::vector<Buffer> payload;
    if (const auto* ping = std::get_if<PingRequest>(&request.body)) {
      payload.push_back(Buffer::Allocate(ping->response_len));
    }
    (void)responder->Send(ErrorReply(TypeOf(request.body), Status::OK()), std::move(payload));
  }
  std::uint64_t seen() const { return seen_; }
  std::string last_entity_;

 private:
  std::atomic<std::uint64_t> seen_{0};
};

auth::CryptoKey MakeKey() {
  auto k = auth::CryptoKey::Generate();
  EXPECT_TRUE(k.ok());
  return *k;
}

std::uint64_t Refusals(const ServerCounters& c, AuthRefusal why) {
  return c.auth_refusals[static_cast<std::size_t>(why)];
}

class AuthMessengerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    app_key_ = MakeKey();
    reader_key_ = MakeKey();
    osd_key_ = MakeKey();
    auth::Keyring ring;
    ring.entries["client.app"] = {app_key_, {{"osd", "allow rw pool=data"}}};
    ring.entries["client.reader"] = {reader_key_, {{"osd", "allow r pool=data"}}};
    ring.entries["client.nocaps"] = {MakeKey(), {}};
    ring.entries["osd.1"] = {osd_key_, {{"osd", "allow *"}}};
    auto keys = auth::KeyringKeyServer::Create(ring);
    ASSERT_TRUE(keys.ok());
    handler_ = std::make_shared<AllowAllHandler>();
    ServerOptions so;
    so.auth = auth::AuthMode::kCephx;
    so.keys = *keys;
    so.handshake_timeout = std::chrono::milliseconds(2000);
    so.pool_name = [](std::uint64_t id) -> std::optional<std::string> {
      if (id == 1) return "data";
      if (id == 2) return "other";
      return std::nullopt;
    };
    auto s = Server::Start(so, handler_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(s).value();
  }

  std::unique_ptr<OsdClient> Client(const std::string& entity, const auth::CryptoKey& key,
                                    auth::AuthMode mode = auth::AuthMode::kCephx,
                                    std::uint16_t port = 0) {
    ClientOptions co;
    co.port = port != 0 ? port : server_->port();
    co.auth = mode;
    co.entity = entity;
    co.key = key;
    co.connect_timeout = std::chrono::milliseconds(3000);
    auto c = OsdClient::Create(co);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return std::move(c).value();
  }

  auth::CryptoKey app_key_, reader_key_, osd_key_;
  std::shared_ptr<AllowAllHandler> handler_;
  std::unique_ptr<Server> server_;
};

TEST_F(AuthMessengerTest, AuthenticatedClientWorks) {
  auto c = Client("client.app", app_key_);
  auto pong = c->Ping({Buffer::Copy(std::vector<std::byte>(4096, std::byte{7}))}, 4096);
  ASSERT_TRUE(pong.ok()) << pong.status().message();
  EXPECT_EQ(pong->size(), 4096u);
  EXPECT_TRUE(c->ObjStat({1, 1, "o"}).ok());
  EXPECT_TRUE(c->ObjWrite({1, 1, "o", ObjWriteMode::kWriteFull, 0},
                          {Buffer::Copy(std::vector<std::byte>(4096, std::byte{1}))})
                  .ok());
  EXPECT_EQ(handler_->last_entity_, "client.app");
  const ServerCounters sc = server_->counters();
  EXPECT_EQ(sc.authenticated_connections, 1u);
  EXPECT_EQ(sc.protocol_errors_total(), 0u);
  EXPECT_EQ(c->counters().auth_failures, 0u);
  EXPECT_EQ(c->counters().connects, 1u);
}

TEST_F(AuthMessengerTest, WrongKeyIsRefusedOnBothSides) {
  auto c = Client("client.app", MakeKey());
  auto pong = c->Ping({}, 0);
  ASSERT_FALSE(pong.ok());
  EXPECT_EQ(pong.status().code(), EACCES);
  EXPECT_NE(pong.status().message().find("authentication failed for client.app: its proof does "
                                         "not match its key"),
            std::string::npos)
      << pong.status().message();
  EXPECT_EQ(c->counters().auth_failures, 1u);
  const ServerCounters sc = server_->counters();
  EXPECT_EQ(Refusals(sc, AuthRefusal::kBadProof), 1u);
  EXPECT_EQ(sc.connections_refused, 1u);
  EXPECT_EQ(sc.authenticated_connections, 0u);
  EXPECT_EQ(handler_->seen(), 0u);
}

TEST_F(AuthMessengerTest, UnknownEntityAndNoAuthAreRefused) {
  auto stranger = Client("client.stranger", MakeKey());
  auto a = stranger->Ping({}, 0);
  EXPECT_EQ(a.status().code(), EACCES);
  EXPECT_NE(a.status().message().find("no key for entity 'client.stranger'"), std::string::npos)
      << a.status().message();
  EXPECT_EQ(stranger->counters().auth_failures, 1u);

  auto plain = Client("client.app", app_key_, auth::AuthMode::kNone);
  auto b = plain->Ping({}, 0);
  EXPECT_EQ(b.status().code(), EACCES);
  EXPECT_NE(b.status().message().find("auth_cluster_required = cephx"), std::string::npos)
      << b.status().message();
  const ServerCounters sc = server_->counters();
  EXPECT_EQ(Refusals(sc, AuthRefusal::kUnknownEntity), 1u);
  EXPECT_EQ(Refusals(sc, AuthRefusal::kNoAuth), 1u);
  EXPECT_EQ(sc.connections_refused, 2u);
  EXPECT_EQ(handler_->seen(), 0u);
}

TEST_F(AuthMessengerTest, CephxClientRefusesAServerWithoutAuth) {
  ServerOptions so;  // auth none
  auto plain = Server::Start(so, handler_);
  ASSERT_TRUE(plain.ok());
  auto c = Client("client.app", app_key_, auth::AuthMode::kCephx, (*plain)->port());
  auto r = c->Ping({}, 0);
  EXPECT_EQ(r.status().code(), EACCES);
  EXPECT_NE(r.status().message().find("does not authenticate"), std::string::npos);
  EXPECT_EQ(c->counters().auth_failures, 1u);
  EXPECT_EQ(handler_->seen(), 0u);
}

TEST_F(AuthMessengerTest, CapsLimitPoolsAndSubOperationsAreForOsds) {
  auto app = Client("client.app", app_key_);
  EXPECT_TRUE(app->ObjStat({1, 1, "o"}).ok());
  auto other = app->ObjStat({2, 1, "o"});
  EXPECT_EQ(other.status().code(), EACCES);
  EXPECT_EQ(other.status().message(),
            "permission denied: client.app may not read pool 'other' (its osd caps: 'allow rw "
            "pool=data')");
  auto unknown = app->ObjStat({9, 1, "o"});
  EXPECT_EQ(unknown.status().code(), ESTALE);
  EXPECT_TRUE(unknown.status().is_retryable());

  auto reader = Client("client.reader", reader_key_);
  EXPECT_TRUE(reader->ObjRead({1, 1, "o", 0, 10}).ok());
  auto w = reader->ObjWrite({1, 1, "o", ObjWriteMode::kWriteFull, 0},
                            {Buffer::Copy(std::vector<std::byte>(8, std::byte{1}))});
  EXPECT_EQ(w.status().code(), EACCES);
  EXPECT_NE(w.status().message().find("may not write pool 'data'"), std::string::npos);

  auto sub = app->SubState({"pg.1.0", "o", 0});
  EXPECT_EQ(sub.status().code(), EACCES);
  EXPECT_NE(sub.status().message().find("SubState is an OSD's request and client.app is not an "
                                        "OSD"),
            std::string::npos)
      << sub.status().message();

  auto osd = Client("osd.1", osd_key_);
  EXPECT_TRUE(osd->SubState({"pg.1.0", "o", 0}).ok());
  EXPECT_TRUE(osd->ObjStat({2, 1, "o"}).ok());

  const ServerCounters sc = server_->counters();
  EXPECT_EQ(Refusals(sc, AuthRefusal::kCaps), 2u);
  EXPECT_EQ(Refusals(sc, AuthRefusal::kNotOsd), 1u);
  // Refused requests are answered, the connections stay open.
  EXPECT_TRUE(app->Ping({}, 0).ok());
  EXPECT_EQ(app->counters().connects, 1u);
}

// --- Raw sockets: what an attacker on the wire does. ---

std::vector<std::byte> RawFrame(MsgType type, std::uint64_t tag,
                                const std::vector<std::byte>& header,
                                const std::vector<std::byte>& payload) {
  FrameHeader h;
  h.type = static_cast<std::uint16_t>(type);
  h.tag = tag;
  h.header_len = static_cast<std::uint32_t>(header.size());
  h.payload_len = static_cast<std::uint32_t>(payload.size());
  h.header_crc = Crc32c(header);
  h.payload_crc = Crc32c(payload);
  std::vector<std::byte> out(kFrameHeaderSize);
  EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(out.data(), kFrameHeaderSize));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// A client speaking the handshake by hand, keeping every byte it sent.
class AuthRawClient {
 public:
  explicit AuthRawClient(std::uint16_t port) : socket_(io_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  void Send(const std::vector<std::byte>& bytes) {
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes.data(), bytes.size()), ec);
  }
  // One frame: fixed header, message header (returned), payload and `mac_len` trailer bytes.
  Result<std::pair<FrameHeader, std::vector<std::byte>>> Read(
      std::size_t mac_len = 0, std::vector<std::byte>* tail = nullptr) {
    std::array<std::byte, kFrameHeaderSize> fixed;
    boost::system::error_code ec;
    asio::read(socket_, asio::buffer(fixed.data(), fixed.size()), ec);
    if (ec) return Status::IOError(ec.message());
    auto h = DecodeFrameHeader(fixed, Limits{});
    if (!h.ok()) return h.status();
    std::vector<std::byte> rest(h->header_len + h->payload_len + mac_len);
    asio::read(socket_, asio::buffer(rest.data(), rest.size()), ec);
    if (ec) return Status::IOError(ec.message());
    if (tail)
      tail->assign(fixed.begin(), fixed.end()), tail->insert(tail->end(), rest.begin(), rest.end());
    rest.resize(h->header_len);
    return std::pair{*h, std::move(rest)};
  }
  // The Hello of `entity`; the HelloReply read back. Fills hello_frame_ and reply_.
  void SendHello(const std::string& entity) {
    Hello hello{kProtocolVersionMin, kProtocolVersionMax, 0, 1 << 20, 1 << 20, "raw"};
    hello.auth = HelloAuth::kCephx;
    hello.entity = entity;
    hello.nonce = *auth::NewNonce();
    nonce_ = hello.nonce;
    hello_.clear();
    EncodeHello(hello, hello_);
    hello_frame_ = RawFrame(MsgType::kHello, 0, hello_, {});
    Send(hello_frame_);
  }
  Result<HelloReply> ReadHelloReply() {
    auto f = Read();
    if (!f.ok()) return f.status();
    reply_ = f->second;
    return DecodeHelloReply(reply_, Limits{});
  }
  std::vector<std::byte> AuthFrame(const auth::CryptoKey& key) {
    AuthRequest a;
    a.proof = auth::ClientProof(key, hello_, reply_);
    std::vector<std::byte> h;
    EncodeAuthRequest(a, h);
    return RawFrame(MsgType::kAuth, 0, h, {});
  }
  // The whole handshake; the session's MACs are ready after it.
  ::testing::AssertionResult Handshake(const std::string& entity, const auth::CryptoKey& key) {
    SendHello(entity);
    auto reply = ReadHelloReply();
    if (!reply.ok() || !reply->status.ok()) return ::testing::AssertionFailure() << "hello";
    auth_frame_ = AuthFrame(key);
    Send(auth_frame_);
    auto done = Read();
    if (!done.ok()) return ::testing::AssertionFailure() << done.status().message();
    auto verdict = DecodeAuthReply(done->second, Limits{});
    if (!verdict.ok() || !verdict->status.ok()) return ::testing::AssertionFailure() << "auth";
    if (verdict->proof != auth::ServerProof(key, hello_, reply_)) {
      return ::testing::AssertionFailure() << "the server's proof";
    }
    auto keys = auth::DeriveSessionKeys(key, nonce_, reply->nonce, hello_, reply_);
    tx_ = std::move(auth::FrameMac::Create(keys->client_to_server)).value();
    rx_ = std::move(auth::FrameMac::Create(keys->server_to_client)).value();
    return ::testing::AssertionSuccess();
  }
  // A Ping frame signed with the next sequence number.
  std::vector<std::byte> SignedPing(std::uint64_t tag, std::size_t payload_len) {
    std::vector<std::byte> h;
    EncodeRequest(PingRequest{8}, h);
    std::vector<std::byte> payload(payload_len, std::byte{0x33});
    auto frame = RawFrame(MsgType::kPing, tag, h, payload);
    std::vector<Buffer> bufs{Buffer::Copy(payload)};
    const auth::MacTag mac = tx_->Sign(std::span(frame).first(kFrameHeaderSize), h, bufs);
    frame.insert(frame.end(), mac.begin(), mac.end());
    return frame;
  }
  // Reads one signed reply and checks its MAC.
  bool ReadSignedReply() {
    std::vector<std::byte> whole;
    auto f = Read(kFrameMacLen, &whole);
    if (!f.ok()) return false;
    const std::size_t body = whole.size() - kFrameHeaderSize - kFrameMacLen;
    return rx_->Verify(std::span(whole).first(kFrameHeaderSize), f->second,
                       std::span(whole).subspan(kFrameHeaderSize + f->first.header_len,
                                                body - f->first.header_len),
                       std::span(whole).last(kFrameMacLen));
  }
  bool ClosedWithin(std::chrono::milliseconds within) {
    const auto deadline = std::chrono::steady_clock::now() + within;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{socket_.native_handle(), POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      std::array<char, 4096> sink;
      boost::system::error_code ec;
      socket_.read_some(asio::buffer(sink), ec);
      if (ec) return true;
    }
  }

  std::vector<std::byte> hello_frame_;
  std::vector<std::byte> auth_frame_;

 private:
  asio::io_context io_;
  tcp::socket socket_;
  std::vector<std::byte> hello_;
  std::vector<std::byte> reply_;
  auth::Nonce nonce_{};
  std::unique_ptr<auth::FrameMac> tx_;
  std::unique_ptr<auth::FrameMac> rx_;
};

TEST_F(AuthMessengerTest, ACapturedHandshakeCannotBeReplayed) {
  AuthRawClient honest(server_->port());
  ASSERT_TRUE(honest.Handshake("client.app", app_key_));
  // The attacker replays the honest client's Hello and Auth on a connection of its own: the
  // server's new nonce makes the captured proof wrong.
  AuthRawClient attacker(server_->port());
  attacker.Send(honest.hello_frame_);
  auto reply = attacker.ReadHelloReply();
  ASSERT_TRUE(reply.ok());
  ASSERT_TRUE(reply->status.ok());
  attacker.Send(honest.auth_frame_);
  auto verdict = attacker.Read();
  ASSERT_TRUE(verdict.ok());
  auto ar = DecodeAuthReply(verdict->second, Limits{});
  ASSERT_TRUE(ar.ok());
  EXPECT_EQ(ar->status.code(), EACCES);
  EXPECT_NE(ar->status.message().find("proof does not match"), std::string::npos);
  EXPECT_TRUE(attacker.ClosedWithin(std::chrono::seconds(5)));
  EXPECT_EQ(Refusals(server_->counters(), AuthRefusal::kBadProof), 1u);
  EXPECT_EQ(handler_->seen(), 0u);
}

TEST_F(AuthMessengerTest, SignedFramesPassAndReplayedOnesCloseTheConnection) {
  AuthRawClient c(server_->port());
  ASSERT_TRUE(c.Handshake("client.app", app_key_));
  const auto ping = c.SignedPing(1, 100);
  c.Send(ping);
  EXPECT_TRUE(c.ReadSignedReply());
  c.Send(ping);  // the same frame again
  EXPECT_TRUE(c.ClosedWithin(std::chrono::seconds(5)));
  EXPECT_EQ(server_->counters().protocol_errors[static_cast<std::size_t>(FrameError::kBadMac)], 1u);
  EXPECT_EQ(handler_->seen(), 1u);
}

TEST_F(AuthMessengerTest, ReorderedFramesCloseTheConnection) {
  AuthRawClient c(server_->port());
  ASSERT_TRUE(c.Handshake("client.app", app_key_));
  const auto first = c.SignedPing(1, 10);
  const auto second = c.SignedPing(2, 10);
  c.Send(second);
  EXPECT_TRUE(c.ClosedWithin(std::chrono::seconds(5)));
  EXPECT_EQ(server_->counters().protocol_errors[static_cast<std::size_t>(FrameError::kBadMac)], 1u);
  EXPECT_EQ(handler_->seen(), 0u);
}

TEST_F(AuthMessengerTest, AFlippedBitAnywhereClosesTheConnection) {
  // A bit of the MAC; a bit of the payload with its crc made right again (only the MAC can tell);
  // an unsigned frame after the handshake.
  const std::vector<std::function<void(std::vector<std::byte>&)>> changes = {
      [](std::vector<std::byte>& f) { f.back() ^= std::byte{0x01}; },
      [](std::vector<std::byte>& f) {
        const std::size_t payload_at = f.size() - kFrameMacLen - 64;
        f[payload_at + 5] ^= std::byte{0x80};
        std::span<std::byte> fixed(f.data(), kFrameHeaderSize);
        FrameHeader h = *DecodeFrameHeader(fixed, Limits{});
        h.payload_crc = Crc32c(std::span(f).subspan(payload_at, 64));
        EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(f.data(), kFrameHeaderSize));
      },
      [](std::vector<std::byte>& f) { f.resize(f.size() - kFrameMacLen); },
  };
  std::uint64_t bad_mac = 0;
  for (const auto& change : changes) {
    AuthRawClient c(server_->port());
    ASSERT_TRUE(c.Handshake("client.app", app_key_));
    auto ping = c.SignedPing(1, 64);
    change(ping);
    c.Send(ping);
    c.Send(c.SignedPing(2, 64));  // more bytes, so that a short frame is not left waiting
    EXPECT_TRUE(c.ClosedWithin(std::chrono::seconds(5)));
    ++bad_mac;
    EXPECT_EQ(server_->counters().protocol_errors[static_cast<std::size_t>(FrameError::kBadMac)],
              bad_mac);
  }
  EXPECT_EQ(handler_->seen(), 0u);
  // An honest client is not disturbed.
  auto good = Client("client.app", app_key_);
  EXPECT_TRUE(good->Ping({}, 0).ok());
}

// A raw OSD for the other direction: it answers one connection's handshake with `key` (and, with
// `bad_proof`, a server proof that is not the key's), then one Ping with a reply whose MAC has a
// flipped bit.
void FakeAuthServer(asio::io_context& io, tcp::acceptor& acceptor, const auth::CryptoKey& key,
                    bool bad_proof) {
  tcp::socket s(io);
  acceptor.accept(s);
  boost::system::error_code ec;
  const auto read_frame = [&](std::vector<std::byte>* header) {
    std::array<std::byte, kFrameHeaderSize> fixed{};
    asio::read(s, asio::buffer(fixed.data(), fixed.size()), ec);
    auto h = DecodeFrameHeader(fixed, Limits{});
    if (ec || !h.ok()) return FrameHeader{};
    header->resize(h->header_len);
    asio::read(s, asio::buffer(header->data(), header->size()), ec);
    std::vector<std::byte> rest(h->payload_len);
    asio::read(s, asio::buffer(rest.data(), rest.size()), ec);
    return *h;
  };
  std::vector<std::byte> hello_bytes;
  read_frame(&hello_bytes);
  auto hello = DecodeHello(hello_bytes, Limits{});
  if (!hello.ok()) return;
  HelloReply reply;
  reply.version = kProtocolVersionMax;
  reply.max_header_len = 65536;
  reply.max_payload_len = 1 << 20;
  reply.max_inflight = 4;
  reply.name = "fake";
  reply.auth = HelloAuth::kCephx;
  reply.nonce = *auth::NewNonce();
  std::vector<std::byte> rb;
  EncodeHelloReply(reply, rb);
  asio::write(s, asio::buffer(RawFrame(MsgType::kHelloReply, 0, rb, {})), ec);
  std::vector<std::byte> auth_bytes;
  read_frame(&auth_bytes);
  AuthReply verdict;
  verdict.proof = auth::ServerProof(key, hello_bytes, rb);
  if (bad_proof) verdict.proof[0] ^= std::byte{1};
  std::vector<std::byte> vb;
  EncodeAuthReply(verdict, vb);
  asio::write(s, asio::buffer(RawFrame(MsgType::kAuthReply, 0, vb, {})), ec);
  if (!bad_proof) {
    auto keys = auth::DeriveSessionKeys(key, hello->nonce, reply.nonce, hello_bytes, rb);
    auto tx = std::move(auth::FrameMac::Create(keys->server_to_client)).value();
    std::vector<std::byte> ping;
    const FrameHeader ph = read_frame(&ping);
    std::array<std::byte, kFrameMacLen> mac_in{};  // the client's MAC, read and not checked
    asio::read(s, asio::buffer(mac_in.data(), mac_in.size()), ec);
    std::vector<std::byte> pong_header;
    EncodeReply(PingReply{}, pong_header);
    auto pong = RawFrame(MsgType::kPingReply, ph.tag, pong_header, {});
    const auth::MacTag mac = tx->Sign(std::span(pong).first(kFrameHeaderSize), pong_header, {});
    pong.insert(pong.end(), mac.begin(), mac.end());
    pong.back() ^= std::byte{0x40};
    asio::write(s, asio::buffer(pong), ec);
  }
  std::array<char, 64> sink{};
  s.read_some(asio::buffer(sink), ec);  // until the client closes
}

std::unique_ptr<OsdClient> FakeServerClient(std::uint16_t port, const auth::CryptoKey& key) {
  ClientOptions co;
  co.port = port;
  co.auth = auth::AuthMode::kCephx;
  co.entity = "client.app";
  co.key = key;
  auto c = OsdClient::Create(co);
  EXPECT_TRUE(c.ok());
  return std::move(c).value();
}

// A reply frame failing its MAC: the client closes the connection and fails the request with
// EPROTO naming the MAC.
TEST(AuthMessengerClientTest, AServerFrameFailingItsMacIsRefused) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auth::CryptoKey key = MakeKey();
  std::thread fake([&] { FakeAuthServer(io, acceptor, key, false); });
  auto c = FakeServerClient(acceptor.local_endpoint().port(), key);
  auto r = c->Ping({}, 0);
  EXPECT_EQ(r.status().code(), EPROTO);
  EXPECT_NE(r.status().message().find("fails its MAC"), std::string::npos) << r.status().message();
  c->Close();
  fake.join();
}

// A server that cannot prove the key (not an OSD of this cluster): EACCES, counted.
TEST(AuthMessengerClientTest, AServerThatCannotProveTheKeyIsRefused) {
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  const auth::CryptoKey key = MakeKey();
  std::thread fake([&] { FakeAuthServer(io, acceptor, key, true); });
  auto c = FakeServerClient(acceptor.local_endpoint().port(), key);
  auto r = c->Ping({}, 0);
  EXPECT_EQ(r.status().code(), EACCES);
  EXPECT_NE(r.status().message().find("could not prove it holds client.app's key"),
            std::string::npos)
      << r.status().message();
  EXPECT_EQ(c->counters().auth_failures, 1u);
  c->Close();
  fake.join();
}

}  // namespace
}  // namespace ec::msg
