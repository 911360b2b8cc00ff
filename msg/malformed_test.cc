// Malformed traffic over a raw socket: every kind of bad input closes that connection, is counted
// under its reason, never reaches the handler (nothing is stored), and a good client on another
// connection keeps working throughout.
#include <gtest/gtest.h>
#include <poll.h>

#include <boost/asio.hpp>
#include <cstring>

#include "common/codec.h"
#include "msg/client.h"
#include "msg/server.h"
#include "msg/test_store.h"

namespace ec::msg {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct FrameSpec {
  std::uint16_t version = kProtocolVersionMax;
  MsgType type = MsgType::kPing;
  std::uint64_t tag = 1;
  std::vector<std::byte> header;
  std::vector<std::byte> payload;
  // Corruptions applied after the crcs are computed.
  bool bad_frame_crc = false;
  bool bad_header_crc = false;
  bool bad_payload_crc = false;
  std::uint32_t claimed_payload_len = UINT32_MAX;  // UINT32_MAX: the real length
};

std::vector<std::byte> Build(const FrameSpec& s) {
  FrameHeader h;
  h.version = s.version;
  h.type = static_cast<std::uint16_t>(s.type);
  h.tag = s.tag;
  h.header_len = static_cast<std::uint32_t>(s.header.size());
  h.payload_len = s.claimed_payload_len != UINT32_MAX
                      ? s.claimed_payload_len
                      : static_cast<std::uint32_t>(s.payload.size());
  h.header_crc = Crc32c(s.header) ^ (s.bad_header_crc ? 1u : 0u);
  h.payload_crc = Crc32c(s.payload) ^ (s.bad_payload_crc ? 1u : 0u);
  std::vector<std::byte> out(kFrameHeaderSize);
  EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(out.data(), kFrameHeaderSize));
  if (s.bad_frame_crc) out[36] ^= std::byte{1};
  out.insert(out.end(), s.header.begin(), s.header.end());
  out.insert(out.end(), s.payload.begin(), s.payload.end());
  return out;
}

std::vector<std::byte> HelloBytes(std::uint16_t lo = kProtocolVersionMin,
                                  std::uint16_t hi = kProtocolVersionMax) {
  Hello hello{lo, hi, 0, 1 << 20, 1 << 20, "raw"};
  FrameSpec s;
  s.type = MsgType::kHello;
  s.tag = 0;
  EncodeHello(hello, s.header);
  return Build(s);
}

FrameSpec WriteSpec() {
  FrameSpec s;
  s.type = MsgType::kWriteShard;
  EncodeRequest(WriteShardRequest{"pg.bad", "obj", 0, 1, 0, 0, {}}, s.header);
  s.payload.assign(1000, std::byte{0x5a});
  return s;
}

class RawPeer {
 public:
  explicit RawPeer(std::uint16_t port) : socket_(io_) {
    socket_.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  }
  void Send(const std::vector<std::byte>& bytes) {
    boost::system::error_code ec;
    asio::write(socket_, asio::buffer(bytes.data(), bytes.size()), ec);
  }
  // Reads one whole frame (blocking).
  Result<std::pair<FrameHeader, std::vector<std::byte>>> ReadFrame() {
    std::array<std::byte, kFrameHeaderSize> fixed;
    boost::system::error_code ec;
    asio::read(socket_, asio::buffer(fixed.data(), fixed.size()), ec);
    if (ec) return Status::IOError(ec.message());
    auto h = DecodeFrameHeader(fixed, Limits{});
    if (!h.ok()) return h.status();
    std::vector<std::byte> rest(h->header_len + h->payload_len);
    asio::read(socket_, asio::buffer(rest.data(), rest.size()), ec);
    if (ec) return Status::IOError(ec.message());
    rest.resize(h->header_len);
    return std::pair{*h, std::move(rest)};
  }
  void Handshake() {
    Send(HelloBytes());
    auto f = ReadFrame();
    ASSERT_TRUE(f.ok()) << f.status().message();
    auto reply = DecodeHelloReply(f->second, Limits{});
    ASSERT_TRUE(reply.ok());
    ASSERT_TRUE(reply->status.ok()) << reply->status.message();
  }
  // True when the server closes the connection within `within` (EOF or reset on read).
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
      if (ec) return true;  // eof or reset; data before it (a reply) is skipped
    }
  }
  void ShutdownSend() {
    boost::system::error_code ec;
    socket_.shutdown(tcp::socket::shutdown_send, ec);
  }

 private:
  asio::io_context io_;
  tcp::socket socket_;
};

class MalformedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = std::make_shared<MemoryShardStore>();
    ServerOptions so;
    so.handshake_timeout = std::chrono::milliseconds(300);
    so.frame_timeout = std::chrono::milliseconds(300);
    so.limits.max_payload_len = 1 << 20;
    auto s = Server::Start(so, store_);
    ASSERT_TRUE(s.ok());
    server_ = std::move(s).value();
    ClientOptions co;
    co.port = server_->port();
    auto c = OsdClient::Create(co);
    ASSERT_TRUE(c.ok());
    good_ = std::move(c).value();
    ASSERT_TRUE(good_->WriteShard({"pg.good", "o", 0, 1, 0, 0, {}}, {}).ok());
  }

  // Sends `bytes` on a fresh connection (after the handshake if asked) and expects the server to
  // close it, count `reason`, not call the handler, while the good client still works.
  void ExpectRefused(const std::vector<std::byte>& bytes, FrameError reason, bool handshake = true,
                     bool then_shutdown = false) {
    const auto before = server_->counters();
    const auto seen = store_->requests_seen();
    RawPeer peer(server_->port());
    if (handshake) peer.Handshake();
    peer.Send(bytes);
    if (then_shutdown) peer.ShutdownSend();
    EXPECT_TRUE(peer.ClosedWithin(std::chrono::seconds(5))) << FrameErrorName(reason);
    const auto after = server_->counters();
    const auto i = static_cast<std::size_t>(reason);
    EXPECT_EQ(after.protocol_errors[i], before.protocol_errors[i] + 1) << FrameErrorName(reason);
    EXPECT_EQ(store_->requests_seen(), seen) << "the handler saw a bad frame";
    EXPECT_EQ(store_->shard_count(), 1u);
    auto pong = good_->Ping({}, 8);
    EXPECT_TRUE(pong.ok()) << pong.status().message();
  }

  std::shared_ptr<MemoryShardStore> store_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<OsdClient> good_;
};

TEST_F(MalformedTest, TruncatedFrame) {
  auto f = Build(WriteSpec());
  f.resize(f.size() / 2);
  ExpectRefused(f, FrameError::kTruncated, true, /*then_shutdown=*/true);
  auto g = Build(WriteSpec());
  g.resize(10);  // inside the fixed header
  ExpectRefused(g, FrameError::kTruncated, true, true);
}

TEST_F(MalformedTest, BadFrameCrc) {
  FrameSpec s = WriteSpec();
  s.bad_frame_crc = true;
  ExpectRefused(Build(s), FrameError::kBadFrameCrc);
}

TEST_F(MalformedTest, BadHeaderCrc) {
  FrameSpec s = WriteSpec();
  s.bad_header_crc = true;
  ExpectRefused(Build(s), FrameError::kBadHeaderCrc);
}

TEST_F(MalformedTest, BadPayloadCrc) {
  FrameSpec s = WriteSpec();
  s.bad_payload_crc = true;
  ExpectRefused(Build(s), FrameError::kBadPayloadCrc);
}

TEST_F(MalformedTest, OversizedLength) {
  FrameSpec s = WriteSpec();
  s.claimed_payload_len = (1 << 20) + 1;
  ExpectRefused(Build(s), FrameError::kOversized);
  s.claimed_payload_len = UINT32_MAX - 1;  // would be 4 GiB: refused before any allocation
  ExpectRefused(Build(s), FrameError::kOversized);
}

TEST_F(MalformedTest, UnknownType) {
  FrameSpec s = WriteSpec();
  s.type = static_cast<MsgType>(0x0042);
  ExpectRefused(Build(s), FrameError::kUnknownType);
}

TEST_F(MalformedTest, BadMagic) {
  auto f = Build(WriteSpec());
  f[0] = std::byte{'G'};  // e.g. an HTTP client: "GET /"
  ExpectRefused(f, FrameError::kBadMagic);
}

TEST_F(MalformedTest, WrongVersion) {
  FrameSpec s = WriteSpec();
  s.version = kProtocolVersionMax + 1;
  ExpectRefused(Build(s), FrameError::kBadVersion);
}

TEST_F(MalformedTest, HandshakeWithNoCommonVersionIsRefusedWithAReason) {
  const auto refused = server_->counters().connections_refused;
  RawPeer peer(server_->port());
  peer.Send(HelloBytes(kProtocolVersionMax + 1, kProtocolVersionMax + 5));
  auto f = peer.ReadFrame();
  ASSERT_TRUE(f.ok()) << f.status().message();
  auto reply = DecodeHelloReply(f->second, Limits{});
  ASSERT_TRUE(reply.ok());
  EXPECT_EQ(reply->status.code(), EPROTO);
  EXPECT_NE(reply->status.message().find("no common protocol version"), std::string::npos);
  EXPECT_TRUE(peer.ClosedWithin(std::chrono::seconds(5)));
  EXPECT_EQ(server_->counters().connections_refused, refused + 1);
  EXPECT_TRUE(good_->Ping({}, 0).ok());
}

TEST_F(MalformedTest, RequestWithoutHandshake) {
  ExpectRefused(Build(WriteSpec()), FrameError::kUnexpected, /*handshake=*/false);
}

TEST_F(MalformedTest, ReplySentToTheServer) {
  FrameSpec s;
  s.type = MsgType::kPingReply;
  EncodeReply(PingReply{}, s.header);
  ExpectRefused(Build(s), FrameError::kUnexpected);
}

TEST_F(MalformedTest, MalformedMessageHeader) {
  FrameSpec s = WriteSpec();
  s.header.push_back(std::byte{0});  // trailing byte, crcs valid
  ExpectRefused(Build(s), FrameError::kMalformed);
  FrameSpec t = WriteSpec();
  t.header.resize(5);  // cut inside the collection name
  ExpectRefused(Build(t), FrameError::kMalformed);
}

TEST_F(MalformedTest, NoHandshakeWithinTimeout) {
  ExpectRefused({}, FrameError::kTimeout, /*handshake=*/false);
}

TEST_F(MalformedTest, PeerStallsMidFrame) {
  auto f = Build(WriteSpec());
  f.resize(20);  // inside the fixed header
  ExpectRefused(f, FrameError::kTimeout);
  auto g = Build(WriteSpec());
  g.resize(g.size() - 100);  // inside the payload
  ExpectRefused(g, FrameError::kTimeout);
}

TEST_F(MalformedTest, ValidRawFrameIsServed) {
  // The raw framing itself is right: the same request with good crcs is stored.
  RawPeer peer(server_->port());
  peer.Handshake();
  peer.Send(Build(WriteSpec()));
  auto f = peer.ReadFrame();
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->first.type, static_cast<std::uint16_t>(MsgType::kWriteShardReply));
  EXPECT_EQ(f->first.tag, 1u);
  auto reply = DecodeReply(MsgType::kWriteShardReply, f->second, Limits{});
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(StatusOf(*reply).ok());
  EXPECT_EQ(store_->shard_count(), 2u);
  EXPECT_EQ(server_->counters().protocol_errors_total(), 0u);
}

// --- The new messages (PG sub-operations, object operations), at the decoder. ---

std::vector<std::byte> EncodedRequest(const RequestBody& m) {
  std::vector<std::byte> b;
  EncodeRequest(m, b);
  return b;
}
std::vector<std::byte> EncodedReply(const ReplyBody& m) {
  std::vector<std::byte> b;
  EncodeReply(m, b);
  return b;
}
Status Decode(MsgType type, std::span<const std::byte> b, const Limits& l = Limits{}) {
  if (IsReply(type)) return DecodeReply(type, b, l).status();
  return DecodeRequest(type, b, l).status();
}

// One valid message of every new type.
std::vector<std::pair<MsgType, std::vector<std::byte>>> NewMessages() {
  return {
      {MsgType::kSubWrite, EncodedRequest(SubWriteRequest{
                               "c", "o", 1, 2, 1, SubWriteKind::kRange, 10, 5, {{0, 3}, {4, 2}}})},
      {MsgType::kSubResolve,
       EncodedRequest(SubResolveRequest{"c", "o", 1, 2, SubResolveAction::kTrim})},
      {MsgType::kSubState, EncodedRequest(SubStateRequest{"c", "o", 1})},
      {MsgType::kObjWrite, EncodedRequest(ObjWriteRequest{1, 2, "o", ObjWriteMode::kWrite, 8})},
      {MsgType::kObjRead, EncodedRequest(ObjReadRequest{1, 2, "o", 8, 16})},
      {MsgType::kObjStat, EncodedRequest(ObjStatRequest{1, 2, "o"})},
      {MsgType::kObjRemove, EncodedRequest(ObjRemoveRequest{1, 2, "o"})},
      {MsgType::kObjList, EncodedRequest(ObjListRequest{1, 2, 3, "cur", 10})},
      {MsgType::kSubWriteReply, EncodedReply(SubWriteReply{Status::IOError("x")})},
      {MsgType::kSubResolveReply, EncodedReply(SubResolveReply{Status::OK(), 3})},
      {MsgType::kSubStateReply,
       EncodedReply(SubStateReply{Status::OK(), ShardState::kPresent, 1, 2, 3, 4})},
      {MsgType::kObjWriteReply, EncodedReply(ObjWriteReply{Status::OK(), 1, 2})},
      {MsgType::kObjReadReply, EncodedReply(ObjReadReply{Status::OK(), 1, 2, true, 3, 4})},
      {MsgType::kObjStatReply, EncodedReply(ObjStatReply{Status::OK(), 1, 2})},
      {MsgType::kObjRemoveReply, EncodedReply(ObjRemoveReply{Status::OK(), 1})},
      {MsgType::kObjListReply, EncodedReply(ObjListReply{Status::OK(), {"a", "b"}, "b", false})},
      {MsgType::kSubScan, EncodedRequest(SubScanRequest{"c", 1, "cur", 10})},
      {MsgType::kSubPull, EncodedRequest(SubPullRequest{1,
                                                        2,
                                                        "c",
                                                        1,
                                                        SubPullMode::kRebuild,
                                                        {{0, 3}, {2, 4}},
                                                        {{"o", 5, 10, 4}, {"p", 6, 0, 0}}})},
      {MsgType::kSubScanReply, EncodedReply(SubScanReply{Status::OK(),
                                                         {{"a", ShardState::kPresent, 1, 2, 3, 0},
                                                          {"b", ShardState::kRemoved, 4, 0, 0, 4}},
                                                         "b",
                                                         false})},
      {MsgType::kSubPullReply,
       EncodedReply(SubPullReply{
           Status::OK(), {{"o", Status::OK(), 1, 2, 3}, {"p", Status::IOError("x"), 0, 0, 0}}})},
      {MsgType::kSubReadBatch,
       EncodedRequest(
           SubReadBatchRequest{{{"c", "o", 1, 5, {{0, 3}, {8, 2}}}, {"c", "p", 2, 0, {{4, 4}}}}})},
      {MsgType::kSubReadBatchReply,
       EncodedReply(SubReadBatchReply{Status::OK(),
                                      {{Status::OK(), 10, 5, {3, 2}},
                                       {Status::Error(ESTALE, "at 6"), 10, 6, {}},
                                       {Status::DataLoss("crc"), 0, 0, {}}}})},
      {MsgType::kSubWrite, EncodedRequest(SubWriteRequest{"c",
                                                          "o",
                                                          1,
                                                          2,
                                                          1,
                                                          SubWriteKind::kRange,
                                                          10,
                                                          5,
                                                          {{0, 3}},
                                                          7,
                                                          {2, 2},
                                                          SubWriteMeta::kReplace,
                                                          99,
                                                          {{"a", "1"}, {"b", ""}}})},
      {MsgType::kObjWrite, EncodedRequest(ObjWriteRequest{1, 2, "o", ObjWriteMode::kTruncate, 8})},
      {MsgType::kObjSetXattrs,
       EncodedRequest(ObjSetXattrsRequest{
           1, 2, "o", kXattrsCreate | kXattrsMtime, {{"a", "1"}, {"b", "22"}}, {"c", "d"}, 5})},
      {MsgType::kObjSetXattrsReply, EncodedReply(ObjSetXattrsReply{Status::OK(), 7})},
      {MsgType::kObjGetXattrs, EncodedRequest(ObjGetXattrsRequest{1, 2, "o"})},
      {MsgType::kObjGetXattrsReply,
       EncodedReply(ObjGetXattrsReply{Status::OK(), 7, 8, {{"a", "1"}, {"b", "22"}}})},
      {MsgType::kObjStatReply, EncodedReply(ObjStatReply{Status::OK(), 1, 2, 3})},
      {MsgType::kSubRepairChain,
       EncodedRequest(SubRepairChainRequest{
           1, 2, "c", "o", 3, 7, 100, {7, 7, 6, 7}, 0, 1, 0, 64, {{0, 1, 5}, {1, 2, 6}}, 1, 500})},
      {MsgType::kSubRepairChainReply,
       EncodedReply(SubRepairChainReply{Status::Retryable(ESTALE, "at 6"), 1, 0})},
  };
}

TEST(MalformedMessageTest, EveryTruncationAndTrailingByteIsRefused) {
  for (const auto& [type, bytes] : NewMessages()) {
    ASSERT_TRUE(Decode(type, bytes).ok()) << TypeName(type);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      EXPECT_EQ(Decode(type, std::span(bytes).first(n)).code(), EBADMSG)
          << TypeName(type) << " cut at " << n;
    }
    auto longer = bytes;
    longer.push_back(std::byte{0});
    Status s = Decode(type, longer);
    EXPECT_EQ(s.code(), EBADMSG) << TypeName(type);
    EXPECT_NE(s.message().find("trailing"), std::string::npos) << s.message();
  }
}

TEST(MalformedMessageTest, BadEnumAndBoolValuesAreRefusedNamingTheField) {
  struct Case {
    MsgType type;
    std::vector<std::byte> bytes;
    std::size_t at;  // offset of the enum / bool byte
    std::uint8_t max;
    std::string field;
  };
  // Offsets: a string is 4 + its bytes; an OK status is 9 bytes.
  const std::vector<Case> cases = {
      {MsgType::kSubWrite,
       EncodedRequest(SubWriteRequest{"c", "o", 0, 2, 1, SubWriteKind::kFull, 0, 0, {}}), 30, 3,
       "kind"},
      {MsgType::kSubResolve,
       EncodedRequest(SubResolveRequest{"c", "o", 0, 2, SubResolveAction::kRollback}), 22, 1,
       "action"},
      {MsgType::kSubStateReply,
       EncodedReply(SubStateReply{Status::OK(), ShardState::kAbsent, 0, 0, 0, 0}), 9, 2, "state"},
      {MsgType::kObjWrite, EncodedRequest(ObjWriteRequest{1, 2, "o", ObjWriteMode::kWrite, 0}), 21,
       3, "mode"},
      {MsgType::kSubWrite,
       EncodedRequest(SubWriteRequest{"c", "o", 0, 2, 1, SubWriteKind::kFull, 0, 0, {}}), 63, 2,
       "meta"},
      {MsgType::kObjReadReply, EncodedReply(ObjReadReply{Status::OK(), 1, 2, false, 3, 4}), 25, 1,
       "degraded"},
      {MsgType::kObjListReply, EncodedReply(ObjListReply{Status::OK(), {}, "", true}), 17, 1,
       "end"},
      {MsgType::kSubPull,
       EncodedRequest(SubPullRequest{1, 2, "c", 0, SubPullMode::kRebuild, {{0, 1}}, {}}), 25, 2,
       "mode"},
      {MsgType::kSubScanReply,
       EncodedReply(SubScanReply{Status::OK(), {{"o", ShardState::kAbsent, 0, 0, 0, 1}}, "", true}),
       18, 2, "entry.state"},
      {MsgType::kSubScanReply,
       EncodedReply(SubScanReply{Status::OK(), {{"o", ShardState::kAbsent, 0, 0, 0, 1}}, "", true}),
       60, 1, "end"},
      {MsgType::kSubScanReply,
       EncodedReply(SubScanReply{Status::OK(), {{"o", ShardState::kAbsent, 0, 0, 0, 1}}, "", true}),
       55, 1, "entry.form"},
      {MsgType::kSubWrite,
       EncodedRequest(SubWriteRequest{"c", "o", 0, 2, 1, SubWriteKind::kFull, 0, 0, {}}), 76, 1,
       "form"},
      {MsgType::kSubStateReply,
       EncodedReply(SubStateReply{Status::OK(), ShardState::kAbsent, 0, 0, 0, 0}), 46, 1, "form"},
      {MsgType::kObjStatReply, EncodedReply(ObjStatReply{Status::OK(), 1, 2, 3}), 33, 1, "form"},
  };
  for (const Case& c : cases) {
    ASSERT_LT(c.at, c.bytes.size()) << c.field;
    // Every valid value decodes; the first invalid one and 0xff do not.
    for (unsigned v = 0; v <= c.max; ++v) {
      auto b = c.bytes;
      b[c.at] = static_cast<std::byte>(v);
      EXPECT_TRUE(Decode(c.type, b).ok()) << c.field << " = " << v;
    }
    for (unsigned v : {static_cast<unsigned>(c.max) + 1, 0xffu}) {
      auto b = c.bytes;
      b[c.at] = static_cast<std::byte>(v);
      Status s = Decode(c.type, b);
      EXPECT_EQ(s.code(), EBADMSG) << c.field << " = " << v;
      EXPECT_NE(s.message().find(c.field + ": bad value " + std::to_string(v)), std::string::npos)
          << s.message();
    }
  }
}

TEST(MalformedMessageTest, CountsAboveTheLimitsOrTheBytesLeftAreRefused) {
  // SubWrite extents against max_extents.
  Limits small;
  small.max_extents = 1;
  small.max_list_entries = 1;
  Status s = Decode(MsgType::kSubWrite,
                    EncodedRequest(SubWriteRequest{
                        "c", "o", 0, 2, 1, SubWriteKind::kRange, 0, 0, {{0, 1}, {1, 1}}}),
                    small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("extents: count 2 exceeds the limit 1"), std::string::npos)
      << s.message();
  // ObjList reply objects against max_list_entries.
  s = Decode(MsgType::kObjListReply, EncodedReply(ObjListReply{Status::OK(), {"a", "b"}, "", true}),
             small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("objects: count 2 exceeds the limit 1"), std::string::npos)
      << s.message();
  // Counts within the limits but above what the bytes left can hold: refused before allocating.
  Limits big;
  big.max_extents = 1 << 30;
  big.max_list_entries = 1 << 30;
  std::vector<std::byte> sub;
  Encoder w(sub);
  w.String("c");
  w.String("o");
  w.U32(0);
  w.U64(2);
  w.U64(1);
  w.U8(1);
  w.U64(0);
  w.U64(0);
  w.U32(1 << 28);  // extents
  w.U64(0);
  w.U64(1);
  EXPECT_EQ(Decode(MsgType::kSubWrite, sub, big).code(), EBADMSG);
  std::vector<std::byte> list;
  Encoder lw(list);
  lw.I32(0);
  lw.U8(0);
  lw.String("");
  lw.U32(1 << 28);  // objects
  lw.String("a");
  EXPECT_EQ(Decode(MsgType::kObjListReply, list, big).code(), EBADMSG);
  // An object name above max_name_len.
  Limits names;
  names.max_name_len = 3;
  EXPECT_EQ(
      Decode(MsgType::kObjRead, EncodedRequest(ObjReadRequest{1, 1, "long", 0, 0}), names).code(),
      EMSGSIZE);
  EXPECT_EQ(Decode(MsgType::kObjListReply,
                   EncodedReply(ObjListReply{Status::OK(), {"long"}, "", true}), names)
                .code(),
            EMSGSIZE);
}

TEST(MalformedMessageTest, RecoveryCountsAboveTheLimitsOrTheBytesLeftAreRefused) {
  // SubPull helpers: at most kMaxPullHelpers, whatever the limits.
  Limits big;
  big.max_list_entries = 1 << 30;
  const SubPullObject obj{"o", 2, 1, 1};
  auto pull = [&](std::size_t helpers, std::size_t objects) {
    return EncodedRequest(SubPullRequest{1, 2, "c", 0, SubPullMode::kRebuild,
                                         std::vector<SubPullHelper>(helpers, SubPullHelper{1, 1}),
                                         std::vector<SubPullObject>(objects, obj)});
  };
  EXPECT_TRUE(Decode(MsgType::kSubPull, pull(kMaxPullHelpers, 1), big).ok());
  Status s = Decode(MsgType::kSubPull, pull(kMaxPullHelpers + 1, 1), big);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("helpers: count 65 exceeds the limit 64"), std::string::npos)
      << s.message();
  // Objects, scan entries and pull results against max_list_entries.
  Limits small;
  small.max_list_entries = 2;
  EXPECT_TRUE(Decode(MsgType::kSubPull, pull(1, 2), small).ok());
  s = Decode(MsgType::kSubPull, pull(1, 3), small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("objects: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  const SubScanEntry entry{"o", ShardState::kPresent, 1, 1, 1, 0};
  s = Decode(MsgType::kSubScanReply,
             EncodedReply(SubScanReply{Status::OK(), {entry, entry, entry}, "", true}), small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("entries: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  const SubPullResult result{"o", Status::OK(), 1, 1, 1};
  s = Decode(MsgType::kSubPullReply,
             EncodedReply(SubPullReply{Status::OK(), {result, result, result}}), small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("results: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  // Counts within the limits but above what the bytes left can hold.
  std::vector<std::byte> p;
  Encoder pw(p);
  pw.U64(1);
  pw.U64(2);
  pw.String("c");
  pw.U32(0);
  pw.U8(0);
  pw.U32(0);        // helpers
  pw.U32(1 << 20);  // objects
  pw.String("o");
  EXPECT_EQ(Decode(MsgType::kSubPull, p, big).code(), EBADMSG);
  std::vector<std::byte> r;
  Encoder rw(r);
  rw.I32(0);
  rw.U8(0);
  rw.String("");
  rw.U32(1 << 20);  // results
  rw.String("o");
  EXPECT_EQ(Decode(MsgType::kSubPullReply, r, big).code(), EBADMSG);
  std::vector<std::byte> e;
  Encoder ew(e);
  ew.I32(0);
  ew.U8(0);
  ew.String("");
  ew.U32(1 << 20);  // entries
  ew.String("o");
  EXPECT_EQ(Decode(MsgType::kSubScanReply, e, big).code(), EBADMSG);
  // A per-object status with a code that does not match its class.
  auto bad_status = EncodedReply(SubPullReply{Status::OK(), {result}});
  bad_status[9 + 4 + 5] = std::byte{5};  // the result's status code, class still OK
  EXPECT_EQ(Decode(MsgType::kSubPullReply, bad_status).code(), EBADMSG);
  // Names above their limits.
  Limits names;
  names.max_name_len = 3;
  EXPECT_EQ(
      Decode(MsgType::kSubScan, EncodedRequest(SubScanRequest{"c", 0, "long", 1}), names).code(),
      EMSGSIZE);
  EXPECT_EQ(Decode(MsgType::kSubPull,
                   EncodedRequest(SubPullRequest{
                       1, 2, "c", 0, SubPullMode::kCopy, {{0, 1}}, {{"long", 1, 0, 0}}}),
                   names)
                .code(),
            EMSGSIZE);
  Limits colls;
  colls.max_collection_len = 2;
  EXPECT_EQ(
      Decode(MsgType::kSubScan, EncodedRequest(SubScanRequest{"pg.1", 0, "", 1}), colls).code(),
      EMSGSIZE);
}

TEST(MalformedMessageTest, BatchCountsAboveTheLimitsOrTheBytesLeftAreRefused) {
  const SubReadBatchItem item{"c", "o", 1, 5, {{0, 4096}}};
  Limits small;
  small.max_batch_items = 2;
  small.max_extents = 2;
  EXPECT_TRUE(
      Decode(MsgType::kSubReadBatch, EncodedRequest(SubReadBatchRequest{{item, item}}), small)
          .ok());
  Status s = Decode(MsgType::kSubReadBatch, EncodedRequest(SubReadBatchRequest{{item, item, item}}),
                    small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("items: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  // Extents of one item against max_extents.
  SubReadBatchItem wide = item;
  wide.extents = {{0, 1}, {2, 1}, {4, 1}};
  s = Decode(MsgType::kSubReadBatch, EncodedRequest(SubReadBatchRequest{{wide}}), small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("extents: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  // Reply results against max_batch_items, lengths against max_extents.
  const SubReadBatchResult ok{Status::OK(), 10, 5, {4096}};
  s = Decode(MsgType::kSubReadBatchReply,
             EncodedReply(SubReadBatchReply{Status::OK(), {ok, ok, ok}}), small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("results: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  s = Decode(MsgType::kSubReadBatchReply,
             EncodedReply(SubReadBatchReply{Status::OK(), {{Status::OK(), 10, 5, {1, 1, 1}}}}),
             small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("result.lengths: count 3 exceeds the limit 2"), std::string::npos)
      << s.message();
  // Counts within the limits but above what the bytes left can hold: refused before allocating.
  Limits big;
  big.max_batch_items = 1 << 30;
  big.max_extents = 1 << 30;
  std::vector<std::byte> q;
  Encoder qw(q);
  qw.U32(1 << 20);  // items
  qw.String("c");
  EXPECT_EQ(Decode(MsgType::kSubReadBatch, q, big).code(), EBADMSG);
  std::vector<std::byte> x;
  Encoder xw(x);
  xw.U32(1);  // one item
  xw.String("c");
  xw.String("o");
  xw.U32(0);
  xw.U64(0);
  xw.U32(1 << 20);  // extents
  xw.U64(0);
  EXPECT_EQ(Decode(MsgType::kSubReadBatch, x, big).code(), EBADMSG);
  std::vector<std::byte> r;
  Encoder rw(r);
  rw.I32(0);
  rw.U8(0);
  rw.String("");
  rw.U32(1 << 20);  // results
  rw.I32(0);
  EXPECT_EQ(Decode(MsgType::kSubReadBatchReply, r, big).code(), EBADMSG);
  // Names above their limits.
  Limits names;
  names.max_name_len = 3;
  SubReadBatchItem long_name = item;
  long_name.object = "long";
  EXPECT_EQ(Decode(MsgType::kSubReadBatch, EncodedRequest(SubReadBatchRequest{{long_name}}), names)
                .code(),
            EMSGSIZE);
}

TEST(MalformedMessageTest, UnassignedTypesAreNeitherRequestsNorReplies) {
  const auto b = EncodedRequest(ObjStatRequest{1, 2, "o"});
  // 23 (Auth) is a handshake message, never a request or reply body; 25 and up are unassigned.
  for (std::uint16_t t : {23, 25, 26, 0x7fff}) {
    EXPECT_EQ(DecodeRequest(static_cast<MsgType>(t), b, Limits{}).status().code(), EBADMSG) << t;
    EXPECT_EQ(DecodeReply(static_cast<MsgType>(t | kReplyBit), b, Limits{}).status().code(),
              EBADMSG)
        << t;
  }
}

// Over a socket: a new request with a bad enum closes the connection as malformed; an unassigned
// type number as unknown; neither reaches the handler.
TEST_F(MalformedTest, NewRequestWithBadEnumOrUnassignedType) {
  FrameSpec s;
  s.type = MsgType::kSubWrite;
  EncodeRequest(SubWriteRequest{"pg.bad", "obj", 0, 2, 1, SubWriteKind::kRange, 4, 4, {{0, 4}}},
                s.header);
  s.header[4 + 6 + 4 + 3 + 4 + 8 + 8] = std::byte{7};  // kind
  s.payload.assign(4, std::byte{1});
  ExpectRefused(Build(s), FrameError::kMalformed);
  FrameSpec t;
  t.type = static_cast<MsgType>(25);
  EncodeRequest(ObjStatRequest{1, 2, "o"}, t.header);
  ExpectRefused(Build(t), FrameError::kUnknownType);
}

}  // namespace
}  // namespace ec::msg
