#include "msg/messages.h"

#include <gtest/gtest.h>

#include "common/codec.h"
#include "msg/test_hex.h"
#include "msg/test_round_trip.h"

namespace ec::msg {
namespace {

using testing::Hex;
using testing::RoundTripReply;
using testing::RoundTripRequest;

// Message headers byte for byte, as the protocol's first codec wrote them (PROTOCOL.md).
TEST(MessagesTest, KnownAnswerBytes) {
  std::vector<std::byte> v;
  EncodeRequest(WriteShardRequest{"pg.1", "obj", 3, 42, 8192, kWriteReplace, {{"k", "v"}}}, v);
  EXPECT_EQ(Hex(v),
            "0400000070672e31"      // collection
            "030000006f626a"        // object
            "03000000"              // shard
            "2a00000000000000"      // version
            "0020000000000000"      // offset
            "01000000"              // flags
            "01000000"              // 1 attribute
            "010000006b0100000076"  // "k" = "v"
  );
  v.clear();
  EncodeReply(ReadShardReply{Status::Retryable(EAGAIN, "busy"), 5000, 7, {4096, 904}}, v);
  EXPECT_EQ(Hex(v),
            "0b000000"
            "03"
            "0400000062757379"  // status: code, class, message
            "8813000000000000"  // object_size
            "0700000000000000"  // version
            "02000000"          // 2 lengths
            "0010000000000000"
            "8803000000000000");
  v.clear();
  EncodeHello(Hello{1, 1, 0, 65536, 1 << 20, "cli"}, v);
  EXPECT_EQ(Hex(v),
            "0100"
            "0100"
            "0000000000000000"
            "00000100"
            "00001000"
            "03000000636c69"
            "00"          // auth none
            "00000000");  // no entity
  auto hello = DecodeHello(v, Limits{});
  ASSERT_TRUE(hello.ok()) << hello.status().ToString();
  EXPECT_EQ(hello->max_payload_len, 1u << 20);
  EXPECT_EQ(hello->name, "cli");
}

TEST(MessagesTest, RequestsRoundTrip) {
  EXPECT_EQ(RoundTripRequest(PingRequest{4096}).response_len, 4096u);

  WriteShardRequest w{"pg.1.3", "obj", 5, 42, 8192, kWriteReplace, {{"k", "v"}, {"", "x"}}};
  auto w2 = RoundTripRequest(w);
  EXPECT_EQ(w2.collection, "pg.1.3");
  EXPECT_EQ(w2.object, "obj");
  EXPECT_EQ(w2.shard, 5u);
  EXPECT_EQ(w2.version, 42u);
  EXPECT_EQ(w2.offset, 8192u);
  EXPECT_EQ(w2.flags, kWriteReplace);
  EXPECT_EQ(w2.attrs, w.attrs);

  ReadShardRequest r{"c", "o", 2, {{0, 10}, {1ULL << 40, 4096}}};
  auto r2 = RoundTripRequest(r);
  EXPECT_EQ(r2.extents, r.extents);
  EXPECT_EQ(r2.shard, 2u);

  auto s2 = RoundTripRequest(StatRequest{"c", "o", 7});
  EXPECT_EQ(s2.shard, 7u);
  auto l2 = RoundTripRequest(ListRequest{"c", std::string("a\0b", 3), 100});
  EXPECT_EQ(l2.cursor, std::string("a\0b", 3));
  EXPECT_EQ(l2.max_entries, 100u);
  auto d2 = RoundTripRequest(RemoveRequest{"c", "o", 1});
  EXPECT_EQ(d2.object, "o");
}

TEST(MessagesTest, RepliesRoundTripWithStatusClasses) {
  auto p = RoundTripReply(PingReply{Status::OK()});
  EXPECT_TRUE(p.status.ok());
  auto w = RoundTripReply(WriteShardReply{Status::Retryable(EAGAIN, "busy")});
  EXPECT_TRUE(w.status.is_retryable());
  EXPECT_EQ(w.status.code(), EAGAIN);
  EXPECT_EQ(w.status.message(), "busy");
  auto r = RoundTripReply(ReadShardReply{Status::DataLoss("crc32c mismatch"), 10, 3, {1, 2}});
  EXPECT_TRUE(r.status.is_data_loss());
  EXPECT_EQ(r.status.message(), "crc32c mismatch");
  EXPECT_EQ(r.lengths, (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(r.object_size, 10u);
  auto s = RoundTripReply(StatReply{Status::OK(), 100, 9, {{"a", "b"}}});
  EXPECT_EQ(s.size, 100u);
  EXPECT_EQ(s.version, 9u);
  EXPECT_EQ(s.attrs, (std::vector<Attr>{{"a", "b"}}));
  auto l = RoundTripReply(ListReply{Status::OK(), {{"x", 1}, {"y", 2}}, "cur", false});
  EXPECT_EQ(l.entries, (std::vector<ListEntry>{{"x", 1}, {"y", 2}}));
  EXPECT_EQ(l.next_cursor, "cur");
  EXPECT_FALSE(l.end);
  auto d = RoundTripReply(RemoveReply{Status::NotFound("gone")});
  EXPECT_EQ(d.status.code(), ENOENT);
  EXPECT_EQ(d.status.error_class(), Status::Class::kError);
}

TEST(MessagesTest, HelloRoundTrip) {
  Hello h{1, 3, 0, 1 << 20, 1 << 26, "tester"};
  std::vector<std::byte> b;
  EncodeHello(h, b);
  auto h2 = DecodeHello(b, Limits{});
  ASSERT_TRUE(h2.ok());
  EXPECT_EQ(h2->max_version, 3);
  EXPECT_EQ(h2->name, "tester");
  HelloReply r;
  r.status = Status::Error(EPROTO, "no common version");
  r.max_inflight = 7;
  b.clear();
  EncodeHelloReply(r, b);
  auto r2 = DecodeHelloReply(b, Limits{});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->status.code(), EPROTO);
  EXPECT_EQ(r2->max_inflight, 7u);
  EXPECT_EQ(r2->auth, HelloAuth::kNone);
}

// Version 6's authentication fields (issue 32): the nonces and proofs travel raw, 32 bytes each,
// the server's proof last; the auth byte is an enum.
TEST(MessagesTest, AuthHandshakeMessagesRoundTrip) {
  Hello h{6, 6, 0, 1 << 20, 1 << 26, "tester"};
  h.auth = HelloAuth::kCephx;
  h.entity = "client.app";
  for (std::size_t i = 0; i < h.nonce.size(); ++i) h.nonce[i] = static_cast<std::byte>(i);
  std::vector<std::byte> b;
  EncodeHello(h, b);
  auto h2 = DecodeHello(b, Limits{});
  ASSERT_TRUE(h2.ok()) << h2.status().message();
  EXPECT_EQ(h2->auth, HelloAuth::kCephx);
  EXPECT_EQ(h2->entity, "client.app");
  EXPECT_EQ(h2->nonce, h.nonce);
  // One byte short, one too many, an auth value of 2.
  EXPECT_EQ(DecodeHello(std::span(b).first(b.size() - 1), Limits{}).status().code(), EBADMSG);
  auto longer = b;
  longer.push_back(std::byte{0});
  EXPECT_EQ(DecodeHello(longer, Limits{}).status().code(), EBADMSG);
  HelloReply r;
  r.version = 6;
  r.auth = HelloAuth::kCephx;
  r.nonce[31] = std::byte{7};
  b.clear();
  EncodeHelloReply(r, b);
  EXPECT_EQ(b.back(), std::byte{7});  // the nonce is last
  auto r2 = DecodeHelloReply(b, Limits{});
  ASSERT_TRUE(r2.ok());
  EXPECT_EQ(r2->nonce, r.nonce);
  b.clear();
  AuthRequest a;
  a.proof[3] = std::byte{3};
  EncodeAuthRequest(a, b);
  EXPECT_EQ(b.size(), kAuthProofLen);
  EXPECT_EQ(DecodeAuthRequest(b)->proof, a.proof);
  EXPECT_EQ(DecodeAuthRequest(std::span(b).first(31)).status().code(), EBADMSG);
  b.clear();
  EncodeAuthReply(AuthReply{Status::Error(EACCES, "no"), {}}, b);
  auto ar = DecodeAuthReply(b, Limits{});
  ASSERT_TRUE(ar.ok());
  EXPECT_EQ(ar->status.code(), EACCES);
  // An OK verdict carries the server's proof, an error none.
  b.clear();
  AuthReply yes;
  yes.proof[0] = std::byte{5};
  EncodeAuthReply(yes, b);
  EXPECT_EQ(b.size(), 9 + kAuthProofLen);
  EXPECT_EQ(DecodeAuthReply(b, Limits{})->proof, yes.proof);
  EXPECT_EQ(DecodeAuthReply(std::span(b).first(9), Limits{}).status().code(), EBADMSG);
  b.clear();
  h.auth = HelloAuth::kNone;
  EncodeHello(h, b);
  b[b.size() - 4 - h.entity.size() - 1] = std::byte{2};
  EXPECT_EQ(DecodeHello(b, Limits{}).status().code(), EBADMSG);
}

TEST(MessagesTest, LongStatusMessageIsCut) {
  std::vector<std::byte> b;
  EncodeReply(PingReply{Status::IOError(std::string(10000, 'x'))}, b);
  auto back = DecodeReply(MsgType::kPingReply, b, Limits{});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(StatusOf(*back).message().size(), Limits{}.max_message_len);
}

Status DecodeErr(MsgType type, const std::vector<std::byte>& b, const Limits& l = Limits{}) {
  if (IsReply(type)) return DecodeReply(type, b, l).status();
  return DecodeRequest(type, b, l).status();
}

TEST(MessagesTest, DecodeErrors) {
  std::vector<std::byte> b;
  EncodeRequest(ReadShardRequest{"c", "o", 0, {{0, 1}, {2, 3}}}, b);
  // Every truncation fails cleanly.
  for (std::size_t n = 0; n < b.size(); ++n) {
    std::vector<std::byte> cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
    Status s = DecodeErr(MsgType::kReadShard, cut);
    EXPECT_EQ(s.code(), EBADMSG) << n;
  }
  // Trailing bytes.
  auto longer = b;
  longer.push_back(std::byte{0});
  EXPECT_NE(DecodeErr(MsgType::kReadShard, longer).message().find("trailing"), std::string::npos);
  // Too many extents for the limits: EMSGSIZE before allocating.
  Limits small;
  small.max_extents = 1;
  Status s = DecodeErr(MsgType::kReadShard, b, small);
  EXPECT_EQ(s.code(), EMSGSIZE);
  EXPECT_NE(s.message().find("extents: count 2 exceeds the limit 1"), std::string::npos)
      << s.message();
  // A huge count with few bytes left: EBADMSG (no allocation of 2^32 entries).
  std::vector<std::byte> huge;
  Encoder w(huge);
  w.String("c");
  w.String("o");
  w.U32(0);
  w.U32(1000);
  Limits big;
  big.max_extents = 100000;
  EXPECT_EQ(DecodeErr(MsgType::kReadShard, huge, big).code(), EBADMSG);
  // A string longer than its limit.
  Limits names;
  names.max_name_len = 2;
  EXPECT_EQ(DecodeErr(
                MsgType::kStat,
                [] {
                  std::vector<std::byte> v;
                  EncodeRequest(StatRequest{"c", "long", 0}, v);
                  return v;
                }(),
                names)
                .code(),
            EMSGSIZE);
  // A request type given to the reply decoder and the reverse.
  EXPECT_EQ(DecodeErr(MsgType::kPingReply, b).code(), EBADMSG);
  EXPECT_EQ(DecodeRequest(MsgType::kHello, b, Limits{}).status().code(), EBADMSG);
  // Unknown write flags.
  std::vector<std::byte> wb;
  EncodeRequest(WriteShardRequest{"c", "o", 0, 0, 0, 0x80, {}}, wb);
  EXPECT_NE(DecodeErr(MsgType::kWriteShard, wb).message().find("unknown bits"), std::string::npos);
  // Bad status class, and a code that contradicts the class.
  for (auto [code, cls] : {std::pair{5, 9}, std::pair{0, 1}, std::pair{5, 0}, std::pair{-3, 1}}) {
    std::vector<std::byte> sb;
    Encoder sw(sb);
    sw.I32(code);
    sw.U8(static_cast<std::uint8_t>(cls));
    sw.String("m");
    EXPECT_EQ(DecodeErr(MsgType::kRemoveReply, sb).code(), EBADMSG) << code << "/" << cls;
  }
  // List reply `end` must be 0 or 1.
  std::vector<std::byte> lb;
  EncodeReply(ListReply{Status::OK(), {}, "", true}, lb);
  lb.back() = std::byte{2};
  EXPECT_EQ(DecodeErr(MsgType::kListReply, lb).code(), EBADMSG);
}

TEST(MessagesTest, ValidateRequest) {
  Limits l;
  EXPECT_TRUE(ValidateRequest(PingRequest{10}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(PingRequest{101}, 0, l, 100).code(), EMSGSIZE);
  EXPECT_EQ(ValidateRequest(StatRequest{"", "o", 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(StatRequest{"c", "", 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ReadShardRequest{"c", "o", 0, {}}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ReadShardRequest{"c", "o", 0, {{UINT64_MAX, 2}}}, 0, l, 100).code(),
            EINVAL);
  EXPECT_EQ(ValidateRequest(ReadShardRequest{"c", "o", 0, {{0, 60}, {0, 41}}}, 0, l, 100).code(),
            EMSGSIZE);
  EXPECT_TRUE(ValidateRequest(ReadShardRequest{"c", "o", 0, {{0, 60}, {0, 40}}}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ListRequest{"c", "", 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(WriteShardRequest{"c", "o", 0, 0, UINT64_MAX, 0, {}}, 1, l, 100).code(),
            EINVAL);
}

TEST(MessagesTest, ErrorReplyHasTheRightType) {
  for (MsgType t :
       {MsgType::kPing, MsgType::kWriteShard, MsgType::kReadShard, MsgType::kStat, MsgType::kList,
        MsgType::kRemove, MsgType::kSubWrite, MsgType::kSubResolve, MsgType::kSubState,
        MsgType::kObjWrite, MsgType::kObjRead, MsgType::kObjStat, MsgType::kObjRemove,
        MsgType::kObjList, MsgType::kSubScan, MsgType::kSubPull, MsgType::kSubReadBatch}) {
    ReplyBody r = ErrorReply(t, Status::IOError("x"));
    EXPECT_EQ(TypeOf(r), ReplyTypeOf(t));
    EXPECT_EQ(StatusOf(r).code(), EIO);
  }
}

// The new messages byte for byte, so that a change of field order shows (PROTOCOL.md).
TEST(MessagesTest, SubAndObjKnownAnswerBytes) {
  std::vector<std::byte> v;
  EncodeRequest(
      SubWriteRequest{
          "pg", "o", 2, 9, 8, SubWriteKind::kRange, 300, 100, {{16, 4}}, 0x21, {7, 7, 9}},
      v);
  EXPECT_EQ(Hex(v),
            "020000007067010000006f"  // collection, object
            "02000000"                // shard
            "0900000000000000"        // version
            "0800000000000000"        // prev_version
            "01"                      // kind kRange
            "2c01000000000000"        // object_size
            "6400000000000000"        // shard_size
            "01000000"                // 1 extent
            "1000000000000000"
            "0400000000000000"
            "2100000000000000"  // epoch
            "03000000"          // 3 versions
            "0700000000000000"
            "0700000000000000"
            "0900000000000000"
            "00"                // meta kKeep
            "0000000000000000"  // mtime
            "00000000"          // no xattrs
            "00");              // form kErasure
  v.clear();
  EncodeRequest(ObjWriteRequest{1, 7, "o", ObjWriteMode::kAppend, 0, 2500}, v);
  EXPECT_EQ(Hex(v),
            "0100000000000000"  // pool
            "0700000000000000"  // epoch
            "010000006f"        // object
            "02"                // mode kAppend
            "0000000000000000"  // offset
            "c4090000");        // start_within_ms
  v.clear();
  EncodeReply(ObjReadReply{Status::OK(), 3, 10, true, 20, 4096}, v);
  EXPECT_EQ(Hex(v),
            "000000000000000000"  // status OK
            "0300000000000000"    // version
            "0a00000000000000"    // object_size
            "01"                  // degraded
            "1400000000000000"    // network_bytes
            "0010000000000000");  // device_bytes
}

TEST(MessagesTest, SubOperationsRoundTrip) {
  SubWriteRequest w{
      "pg.1.3", "obj", 4, 12, 11, SubWriteKind::kFull, 9000, 4096, {{0, 4096}, {8192, 1}}};
  auto w2 = RoundTripRequest(w);
  EXPECT_EQ(w2.collection, "pg.1.3");
  EXPECT_EQ(w2.object, "obj");
  EXPECT_EQ(w2.shard, 4u);
  EXPECT_EQ(w2.version, 12u);
  EXPECT_EQ(w2.prev_version, 11u);
  EXPECT_EQ(w2.kind, SubWriteKind::kFull);
  EXPECT_EQ(w2.object_size, 9000u);
  EXPECT_EQ(w2.shard_size, 4096u);
  EXPECT_EQ(w2.extents, w.extents);
  EXPECT_EQ(w2.epoch, 0u);
  w.epoch = UINT64_MAX;
  EXPECT_EQ(RoundTripRequest(w).epoch, UINT64_MAX);
  EXPECT_EQ(
      RoundTripRequest(SubWriteRequest{"c", "o", 0, 1, 0, SubWriteKind::kRemove, 0, 0, {}}).kind,
      SubWriteKind::kRemove);

  auto r2 =
      RoundTripRequest(SubResolveRequest{"c", "o", 3, UINT64_MAX, SubResolveAction::kTrim, 44});
  EXPECT_EQ(r2.shard, 3u);
  EXPECT_EQ(r2.epoch, 44u);
  EXPECT_EQ(r2.version, UINT64_MAX);
  EXPECT_EQ(r2.action, SubResolveAction::kTrim);
  EXPECT_EQ(RoundTripRequest(SubResolveRequest{"c", "o", 3, 1, SubResolveAction::kRollback}).action,
            SubResolveAction::kRollback);
  auto s2 = RoundTripRequest(SubStateRequest{"c", "o", 5});
  EXPECT_EQ(s2.collection, "c");
  EXPECT_EQ(s2.object, "o");
  EXPECT_EQ(s2.shard, 5u);

  EXPECT_TRUE(RoundTripReply(SubWriteReply{Status::OK()}).status.ok());
  auto wr = RoundTripReply(SubWriteReply{Status::Retryable(ESTALE, "prev_version 3, shard at 2")});
  EXPECT_TRUE(wr.status.is_retryable());
  EXPECT_EQ(wr.status.code(), ESTALE);
  auto rr = RoundTripReply(SubResolveReply{Status::OK(), 11});
  EXPECT_EQ(rr.version, 11u);
  auto st = RoundTripReply(SubStateReply{Status::OK(), ShardState::kRemoved, 8, 100, 50, 7});
  EXPECT_EQ(st.state, ShardState::kRemoved);
  EXPECT_EQ(st.version, 8u);
  EXPECT_EQ(st.object_size, 100u);
  EXPECT_EQ(st.shard_size, 50u);
  EXPECT_EQ(st.undo_version, 7u);
  EXPECT_EQ(RoundTripReply(SubStateReply{Status::OK(), ShardState::kPresent, 1, 2, 3, 0}).state,
            ShardState::kPresent);
}

TEST(MessagesTest, RecoveryMessagesRoundTrip) {
  auto sc = RoundTripRequest(SubScanRequest{"pg.2.7", 5, "after", 100, 31});
  EXPECT_EQ(sc.collection, "pg.2.7");
  EXPECT_EQ(sc.epoch, 31u);
  EXPECT_EQ(sc.shard, 5u);
  EXPECT_EQ(sc.cursor, "after");
  EXPECT_EQ(sc.max_entries, 100u);
  EXPECT_EQ(RoundTripRequest(SubScanRequest{"c", 0, "", 1}).cursor, "");

  SubScanReply sr{Status::OK(),
                  {{"a", ShardState::kPresent, 7, 9000, 4096, 6},
                   {"b", ShardState::kRemoved, 8, 0, 0, 8},
                   {"c", ShardState::kAbsent, 0, 0, 0, UINT64_MAX}},
                  "c",
                  false};
  auto sr2 = RoundTripReply(sr);
  EXPECT_TRUE(sr2.status.ok());
  EXPECT_EQ(sr2.entries, sr.entries);
  EXPECT_EQ(sr2.next_cursor, "c");
  EXPECT_FALSE(sr2.end);
  auto empty_scan = RoundTripReply(SubScanReply{Status::OK(), {}, "", true});
  EXPECT_TRUE(empty_scan.entries.empty());
  EXPECT_TRUE(empty_scan.end);
  auto scan_err = RoundTripReply(SubScanReply{Status::DataLoss("corrupt _meta"), {}, "", true});
  EXPECT_TRUE(scan_err.status.is_data_loss());
  EXPECT_EQ(scan_err.status.message(), "corrupt _meta");

  SubPullRequest p{9,
                   44,
                   "pg.9.1",
                   3,
                   SubPullMode::kCopy,
                   {{3, 12}, {0, 0}, {255, INT32_MAX}},
                   {{"o1", 5, 8192, 4}, {"o2", UINT64_MAX, 0, 0}}};
  auto p2 = RoundTripRequest(p);
  EXPECT_EQ(p2.pool, 9u);
  EXPECT_EQ(p2.epoch, 44u);
  EXPECT_EQ(p2.collection, "pg.9.1");
  EXPECT_EQ(p2.shard, 3u);
  EXPECT_EQ(p2.mode, SubPullMode::kCopy);
  EXPECT_EQ(p2.helpers, p.helpers);
  EXPECT_EQ(p2.objects, p.objects);
  auto p3 = RoundTripRequest(SubPullRequest{1, 2, "c", 0, SubPullMode::kRebuild, {}, {}});
  EXPECT_EQ(p3.mode, SubPullMode::kRebuild);
  EXPECT_TRUE(p3.helpers.empty());
  EXPECT_TRUE(p3.objects.empty());
  // A negative OSD id survives (the validator refuses it, not the codec).
  EXPECT_EQ(RoundTripRequest(SubPullRequest{1, 2, "c", 0, SubPullMode::kRebuild, {{1, -1}}, {}})
                .helpers[0]
                .osd,
            -1);

  SubPullReply pr{Status::OK(),
                  {{"o1", Status::OK(), 1000, 8192, 4096},
                   {"o2", Status::Retryable(ESTALE, "shard at version 6, pull expects 4"), 0, 0, 0},
                   {"o3", Status::DataLoss("helper 2: bad crc"), 10, 4096, 0},
                   {"o4", Status::Error(ENOENT, "helper lacks it"), 0, 0, 0}}};
  auto pr2 = RoundTripReply(pr);
  EXPECT_TRUE(pr2.status.ok());
  ASSERT_EQ(pr2.results.size(), 4u);
  EXPECT_EQ(pr2.results[0].object, "o1");
  EXPECT_TRUE(pr2.results[0].status.ok());
  EXPECT_EQ(pr2.results[0].network_bytes, 1000u);
  EXPECT_EQ(pr2.results[0].device_bytes, 8192u);
  EXPECT_EQ(pr2.results[0].rebuilt_bytes, 4096u);
  EXPECT_TRUE(pr2.results[1].status.is_retryable());
  EXPECT_EQ(pr2.results[1].status.code(), ESTALE);
  EXPECT_EQ(pr2.results[1].status.message(), "shard at version 6, pull expects 4");
  EXPECT_TRUE(pr2.results[2].status.is_data_loss());
  EXPECT_EQ(pr2.results[2].network_bytes, 10u);
  EXPECT_EQ(pr2.results[3].status.code(), ENOENT);
  EXPECT_FALSE(pr2.results[3].status.is_retryable());
  auto pr3 = RoundTripReply(SubPullReply{Status::Retryable(ESTALE, "map epoch 3 < 44"), {}});
  EXPECT_EQ(pr3.status.code(), ESTALE);
  EXPECT_TRUE(pr3.results.empty());
}

// Recovery messages byte for byte (PROTOCOL.md).
TEST(MessagesTest, RecoveryKnownAnswerBytes) {
  std::vector<std::byte> v;
  EncodeRequest(SubScanRequest{"pg", 2, "a", 16, 3}, v);
  EXPECT_EQ(Hex(v),
            "020000007067"        // collection
            "02000000"            // shard
            "0100000061"          // cursor
            "10000000"            // max_entries
            "0300000000000000");  // epoch
  v.clear();
  EncodeRequest(SubPullRequest{1, 7, "pg", 2, SubPullMode::kCopy, {{2, 5}}, {{"o", 9, 100, 8}}}, v);
  EXPECT_EQ(Hex(v),
            "0100000000000000"  // pool
            "0700000000000000"  // epoch
            "020000007067"      // collection
            "02000000"          // shard
            "01"                // mode kCopy
            "01000000"          // 1 helper
            "0200000005000000"  // shard, osd
            "01000000"          // 1 object
            "010000006f"        // object
            "0900000000000000"  // version
            "6400000000000000"  // object_size
            "0800000000000000"  // prev_version
            "00000000"          // no versions
            "00");              // form kErasure
  v.clear();
  EncodeReply(SubPullReply{Status::OK(), {{"o", Status::OK(), 3, 4096, 2}}}, v);
  EXPECT_EQ(Hex(v),
            "000000000000000000"  // status OK
            "01000000"            // 1 result
            "010000006f"          // object
            "000000000000000000"  // its status OK
            "0300000000000000"    // network_bytes
            "0010000000000000"    // device_bytes
            "0200000000000000");  // rebuilt_bytes
  v.clear();
  EncodeReply(SubScanReply{Status::OK(), {{"o", ShardState::kRemoved, 4, 0, 0, 4}}, "", true}, v);
  EXPECT_EQ(Hex(v),
            "000000000000000000"  // status OK
            "01000000"            // 1 entry
            "010000006f"          // object
            "02"                  // state kRemoved
            "0400000000000000"    // version
            "0000000000000000"    // object_size
            "0000000000000000"    // shard_size
            "0400000000000000"    // undo_version
            "00000000"            // no versions
            "00"                  // form kErasure
            "00000000"            // next_cursor ""
            "01");                // end
}

// The object's form (protocol version 5, issue 30 item 2) travels with SubWrite, SubState,
// SubScan, SubPull and ObjStat; a value past kReplicas is refused.
TEST(MessagesTest, ObjectFormRoundTripsAndIsBounded) {
  SubWriteRequest w{"c", "o", 1, 9, 7, SubWriteKind::kFull, 10, 10, {}, 3};
  w.form = ObjectForm::kReplicas;
  EXPECT_EQ(RoundTripRequest(w).form, ObjectForm::kReplicas);
  SubStateReply st{Status::OK(), ShardState::kPresent, 9, 1, 1, 9, {}};
  st.form = ObjectForm::kReplicas;
  EXPECT_EQ(RoundTripReply(st).form, ObjectForm::kReplicas);
  SubScanEntry e{"o", ShardState::kPresent, 9, 1, 1, 0, {}};
  e.form = ObjectForm::kReplicas;
  SubScanReply sc{Status::OK(), {e}, "", true};
  EXPECT_EQ(RoundTripReply(sc).entries.at(0).form, ObjectForm::kReplicas);
  // EncodedSize counts the form byte: one entry more is exactly its size more.
  std::vector<std::byte> one, two;
  EncodeReply(sc, one);
  sc.entries.push_back(e);
  EncodeReply(sc, two);
  EXPECT_EQ(two.size() - one.size(), EncodedSize(e));
  SubPullRequest pull{1, 2, "c", 0, SubPullMode::kRebuild, {{1, 1}}, {{"o", 9, 10, 0, {}}}};
  pull.objects[0].form = ObjectForm::kReplicas;
  EXPECT_EQ(RoundTripRequest(pull).objects.at(0).form, ObjectForm::kReplicas);
  ObjStatReply stat{Status::OK(), 3, 4, 5, ObjectForm::kReplicas};
  EXPECT_EQ(RoundTripReply(stat).form, ObjectForm::kReplicas);
  // The form is the last byte of a SubWrite's header: 2 is no form.
  std::vector<std::byte> v;
  EncodeRequest(w, v);
  v.back() = std::byte{2};
  EXPECT_FALSE(DecodeRequest(MsgType::kSubWrite, v, Limits{}).ok());
}

// ShardVersions (PROTOCOL.md "Versions") travel with SubWrite, SubState, SubScan and SubPull, and
// a count above kMaxShardPositions is refused before anything is allocated.
TEST(MessagesTest, ShardVersionsRoundTripAndAreBounded) {
  SubWriteRequest w{"c", "o", 1, 9, 7, SubWriteKind::kRange, 10, 10, {}, 3, {7, 9, 9}};
  EXPECT_EQ(RoundTripRequest(w).versions, (ShardVersions{7, 9, 9}));
  SubStateReply st{Status::OK(), ShardState::kPresent, 9, 1, 1, 9, {9, 7}};
  EXPECT_EQ(RoundTripReply(st).versions, (ShardVersions{9, 7}));
  SubScanReply sc{Status::OK(), {{"o", ShardState::kPresent, 9, 1, 1, 0, {1, 9}}}, "", true};
  EXPECT_EQ(RoundTripReply(sc).entries.at(0).versions, (ShardVersions{1, 9}));
  SubPullRequest pull{1, 2, "c", 0, SubPullMode::kRebuild, {{1, 1}}, {{"o", 9, 10, 0, {9, 7}}}};
  EXPECT_EQ(RoundTripRequest(pull).objects.at(0).versions, (ShardVersions{9, 7}));
  // Too many: the count is checked first.
  std::vector<std::byte> v;
  w.versions.assign(kMaxShardPositions + 1, 1);
  EncodeRequest(w, v);
  auto decoded = DecodeRequest(MsgType::kSubWrite, v, Limits{});
  ASSERT_FALSE(decoded.ok());
  // The versions a SubWrite records must give its own shard the write's version.
  SubWriteRequest bad{"c", "o", 1, 9, 7, SubWriteKind::kRange, 10, 10, {}, 3, {9, 7}};
  EXPECT_EQ(ValidateRequest(bad, 0, Limits{}, 0).code(), EINVAL);
  bad.versions = {9};  // too short to name shard 1
  EXPECT_EQ(ValidateRequest(bad, 0, Limits{}, 0).code(), EINVAL);
  bad.versions = {7, 9};
  EXPECT_TRUE(ValidateRequest(bad, 0, Limits{}, 0).ok());
}

TEST(MessagesTest, ValidateRecoveryOperations) {
  Limits l;
  l.max_name_len = 8;
  l.max_list_entries = 10;
  // SubScan: a collection, a shard position, 1..max_list_entries.
  EXPECT_TRUE(ValidateRequest(SubScanRequest{"c", 255, "", 10}, 0, l, 0).ok());
  EXPECT_EQ(ValidateRequest(SubScanRequest{"", 0, "", 1}, 0, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(SubScanRequest{"c", 0, "", 0}, 0, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(SubScanRequest{"c", 0, "", 11}, 0, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(SubScanRequest{"c", 256, "", 1}, 0, l, 0).code(), EINVAL);

  auto pull = [](SubPullMode mode, std::vector<SubPullHelper> helpers,
                 std::vector<SubPullObject> objects) {
    return SubPullRequest{1, 1, "c", 2, mode, std::move(helpers), std::move(objects)};
  };
  const SubPullObject obj{"o", 3, 10, 2};
  EXPECT_TRUE(ValidateRequest(pull(SubPullMode::kRebuild, {{0, 1}, {1, 2}}, {obj}), 0, l, 0).ok());
  EXPECT_TRUE(ValidateRequest(pull(SubPullMode::kCopy, {{2, 7}}, {obj}), 0, l, 0).ok());
  EXPECT_TRUE(ValidateRequest(pull(SubPullMode::kRebuild, {{0, 1}}, {}), 0, l, 0).ok());
  // kRepair: every object's prev_version is its version (the target holds it at that version).
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kRepair, {{0, 1}}, {obj}), 0, l, 0).code(), EINVAL);
  EXPECT_TRUE(
      ValidateRequest(pull(SubPullMode::kRepair, {{0, 1}}, {SubPullObject{"o", 3, 10, 3}}), 0, l, 0)
          .ok());
  // kCopy copies the same position: helpers[0] must hold it.
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kCopy, {{1, 7}}, {obj}), 0, l, 0).code(), EINVAL);
  // Helpers: 1..64, positions < 256, OSD ids >= 0.
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kRebuild, {}, {obj}), 0, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(
                pull(SubPullMode::kRebuild, std::vector<SubPullHelper>(65, {0, 1}), {obj}), 0, l, 0)
                .code(),
            EINVAL);
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kRebuild, {{256, 1}}, {obj}), 0, l, 0).code(),
            EINVAL);
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kRebuild, {{0, -1}}, {obj}), 0, l, 0).code(), EINVAL);
  // The target position, the collection.
  auto bad_shard = pull(SubPullMode::kRebuild, {{0, 1}}, {obj});
  bad_shard.shard = 256;
  EXPECT_EQ(ValidateRequest(bad_shard, 0, l, 0).code(), EINVAL);
  auto no_coll = pull(SubPullMode::kRebuild, {{0, 1}}, {obj});
  no_coll.collection.clear();
  EXPECT_EQ(ValidateRequest(no_coll, 0, l, 0).code(), EINVAL);
  // Objects: at most max_list_entries, names 1..max_name_len, version >= 1.
  EXPECT_EQ(ValidateRequest(
                pull(SubPullMode::kRebuild, {{0, 1}}, std::vector<SubPullObject>(11, obj)), 0, l, 0)
                .code(),
            EINVAL);
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kRebuild, {{0, 1}}, {{"", 3, 0, 0}}), 0, l, 0).code(),
            EINVAL);
  EXPECT_EQ(ValidateRequest(pull(SubPullMode::kRebuild, {{0, 1}}, {{std::string(9, 'n'), 3, 0, 0}}),
                            0, l, 0)
                .code(),
            EINVAL);
  EXPECT_EQ(
      ValidateRequest(pull(SubPullMode::kRebuild, {{0, 1}}, {{"o", 0, 0, 0}}), 0, l, 0).code(),
      EINVAL);
}

TEST(MessagesTest, SubReadBatchEncodedSizeIsTheEncodersOutput) {
  auto encoded = [](const SubReadBatchRequest& r) {
    std::vector<std::byte> out;
    EncodeRequest(r, out);
    return out.size();
  };
  SubReadBatchRequest r;
  EXPECT_EQ(EncodedSize(r), encoded(r));
  const SubReadBatchItem items[] = {
      {"pg.1.3", "o1", 2, 7, {{0, 2048}, {4096, 2048}}},
      {"", "", 0, 0, {}},
      {std::string(255, 'c'), std::string(4096, 'o'), 11, ~0ull, std::vector<ByteExtent>(1024)},
  };
  for (const SubReadBatchItem& item : items) {
    const std::uint64_t before = encoded(r);
    r.items.push_back(item);
    EXPECT_EQ(EncodedSize(item), encoded(r) - before) << item.object.size();
    EXPECT_EQ(EncodedSize(r), encoded(r));
  }
}

TEST(MessagesTest, SubReadBatchRoundTrip) {
  SubReadBatchRequest b{{{"pg.1.3", "o1", 2, 7, {{0, 2048}, {4096, 2048}}},
                         {"pg.1.3", "o2", 2, 0, {{8192, 1}}},
                         {"pg.1.4", std::string(300, 'x'), 255, UINT64_MAX, {{UINT64_MAX, 0}}}}};
  const auto b2 = RoundTripRequest(b);
  EXPECT_EQ(b2.items, b.items);
  EXPECT_TRUE(RoundTripRequest(SubReadBatchRequest{}).items.empty());

  // Item messages are cut to kMaxBatchItemMessageLen, so that a reply's header stays within the
  // request's header limit; the whole-request status keeps the usual limit.
  SubReadBatchReply r{Status::OK(),
                      {{Status::OK(), 9000, 7, {2048, 100}},
                       {Status::Error(ESTALE, std::string(1000, 'v')), 9000, 8, {}},
                       {Status::DataLoss("crc32c mismatch"), 0, 0, {}},
                       {Status::Retryable(EAGAIN, "busy"), 0, 0, {}}}};
  const auto r2 = RoundTripReply(r);
  EXPECT_TRUE(r2.status.ok());
  ASSERT_EQ(r2.results.size(), 4u);
  EXPECT_TRUE(r2.results[0].status.ok());
  EXPECT_EQ(r2.results[0].object_size, 9000u);
  EXPECT_EQ(r2.results[0].version, 7u);
  EXPECT_EQ(r2.results[0].lengths, (std::vector<std::uint64_t>{2048, 100}));
  EXPECT_EQ(r2.results[1].status.code(), ESTALE);
  EXPECT_EQ(r2.results[1].status.message(), std::string(kMaxBatchItemMessageLen, 'v'));
  EXPECT_EQ(r2.results[1].version, 8u);
  EXPECT_TRUE(r2.results[2].status.is_data_loss());
  EXPECT_TRUE(r2.results[3].status.is_retryable());
  const auto r3 =
      RoundTripReply(SubReadBatchReply{Status::Error(EMSGSIZE, std::string(2000, 'm')), {}});
  EXPECT_EQ(r3.status.message().size(), 2000u);
  EXPECT_TRUE(r3.results.empty());
  EXPECT_EQ(TypeOf(RequestBody(b)), MsgType::kSubReadBatch);
  EXPECT_EQ(TypeOf(ReplyBody(r)), MsgType::kSubReadBatchReply);
  EXPECT_EQ(TypeName(MsgType::kSubReadBatch), "SubReadBatch");
  EXPECT_EQ(TypeName(MsgType::kSubReadBatchReply), "SubReadBatchReply");
  EXPECT_TRUE(IsKnownType(13));
  EXPECT_TRUE(IsKnownType(0x800d));
  EXPECT_TRUE(IsKnownType(14));
  EXPECT_TRUE(IsKnownType(21));
  EXPECT_TRUE(IsKnownType(0x8016));
  EXPECT_TRUE(IsKnownType(23));  // Auth (version 6)
  EXPECT_TRUE(IsKnownType(24));  // SubRepairChain
  EXPECT_FALSE(IsKnownType(25));
}

// SubReadBatch byte for byte (PROTOCOL.md).
TEST(MessagesTest, SubReadBatchKnownAnswerBytes) {
  std::vector<std::byte> v;
  EncodeRequest(SubReadBatchRequest{{{"pg", "o", 2, 9, {{16, 4}}}}}, v);
  EXPECT_EQ(Hex(v),
            "01000000"            // 1 item
            "020000007067"        // collection
            "010000006f"          // object
            "02000000"            // shard
            "0900000000000000"    // expect_version
            "01000000"            // 1 extent
            "1000000000000000"    // offset
            "0400000000000000");  // length
  v.clear();
  EncodeReply(
      SubReadBatchReply{Status::OK(),
                        {{Status::OK(), 100, 9, {4}}, {Status::Error(ENOENT, "x"), 0, 0, {}}}},
      v);
  EXPECT_EQ(Hex(v),
            "000000000000000000"  // status OK
            "02000000"            // 2 results
            "000000000000000000"  // item 0: status OK
            "6400000000000000"    // object_size
            "0900000000000000"    // version
            "01000000"            // 1 length
            "0400000000000000"    // length
            "02000000"            // item 1: code ENOENT
            "01"                  // class error
            "0100000078"          // message "x"
            "0000000000000000"    // object_size
            "0000000000000000"    // version
            "00000000");          // no lengths
}

TEST(MessagesTest, ValidateSubReadBatch) {
  Limits l;
  l.max_batch_items = 3;
  l.max_extents = 2;
  const SubReadBatchItem item{"c", "o", 0, 1, {{0, 100}, {200, 50}}};
  const auto batch = [](std::vector<SubReadBatchItem> items) {
    return SubReadBatchRequest{std::move(items)};
  };
  EXPECT_TRUE(ValidateRequest(batch({item, item, item}), 0, l, 450).ok());
  // The items' bytes together against the reply limit.
  EXPECT_EQ(ValidateRequest(batch({item, item, item}), 0, l, 449).code(), EMSGSIZE);
  // Items: 1..max_batch_items.
  EXPECT_EQ(ValidateRequest(batch({}), 0, l, 1000).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(batch({item, item, item, item}), 0, l, 1000).code(), EINVAL);
  // Each item: names, 1..max_extents extents, no overflow.
  SubReadBatchItem bad = item;
  bad.collection.clear();
  EXPECT_EQ(ValidateRequest(batch({item, bad}), 0, l, 1000).code(), EINVAL);
  bad = item;
  bad.object.clear();
  EXPECT_EQ(ValidateRequest(batch({bad}), 0, l, 1000).code(), EINVAL);
  bad = item;
  bad.extents.clear();
  EXPECT_EQ(ValidateRequest(batch({bad}), 0, l, 1000).code(), EINVAL);
  bad.extents = {{0, 1}, {1, 1}, {2, 1}};
  EXPECT_EQ(ValidateRequest(batch({bad}), 0, l, 1000).code(), EINVAL);
  bad.extents = {{UINT64_MAX, 2}};
  EXPECT_EQ(ValidateRequest(batch({bad}), 0, l, 1000).code(), EINVAL);
  // Lengths whose sum would wrap are refused, not added.
  bad.extents = {{0, UINT64_MAX}, {0, 2}};
  EXPECT_EQ(ValidateRequest(batch({bad}), 0, l, UINT64_MAX).code(), EMSGSIZE);
}

TEST(MessagesTest, ObjectOperationsRoundTrip) {
  auto w =
      RoundTripRequest(ObjWriteRequest{3, 44, "my/object", ObjWriteMode::kWrite, 1 << 20, 7000});
  EXPECT_EQ(w.pool, 3u);
  EXPECT_EQ(w.epoch, 44u);
  EXPECT_EQ(w.object, "my/object");
  EXPECT_EQ(w.mode, ObjWriteMode::kWrite);
  EXPECT_EQ(w.offset, 1u << 20);
  EXPECT_EQ(w.start_within_ms, 7000u);
  EXPECT_EQ(RoundTripRequest(ObjWriteRequest{3, 44, "o", ObjWriteMode::kWriteFull, 0}).mode,
            ObjWriteMode::kWriteFull);
  auto r = RoundTripRequest(ObjReadRequest{2, 5, "o", 100, 200});
  EXPECT_EQ(r.pool, 2u);
  EXPECT_EQ(r.epoch, 5u);
  EXPECT_EQ(r.offset, 100u);
  EXPECT_EQ(r.length, 200u);
  auto s = RoundTripRequest(ObjStatRequest{2, 5, "st"});
  EXPECT_EQ(s.object, "st");
  EXPECT_EQ(s.epoch, 5u);
  auto d = RoundTripRequest(ObjRemoveRequest{9, 6, "rm", 40});
  EXPECT_EQ(d.pool, 9u);
  EXPECT_EQ(d.object, "rm");
  EXPECT_EQ(d.start_within_ms, 40u);
  auto l = RoundTripRequest(ObjListRequest{1, 2, 31, std::string("x\0y", 3), 50});
  EXPECT_EQ(l.pool, 1u);
  EXPECT_EQ(l.epoch, 2u);
  EXPECT_EQ(l.pg, 31u);
  EXPECT_EQ(l.cursor, std::string("x\0y", 3));
  EXPECT_EQ(l.max_entries, 50u);

  auto wr = RoundTripReply(ObjWriteReply{Status::OK(), 17, 5000});
  EXPECT_EQ(wr.version, 17u);
  EXPECT_EQ(wr.object_size, 5000u);
  auto rr = RoundTripReply(ObjReadReply{Status::OK(), 4, 4096, true, 12288, 16384});
  EXPECT_EQ(rr.version, 4u);
  EXPECT_EQ(rr.object_size, 4096u);
  EXPECT_TRUE(rr.degraded);
  EXPECT_EQ(rr.network_bytes, 12288u);
  EXPECT_EQ(rr.device_bytes, 16384u);
  EXPECT_FALSE(RoundTripReply(ObjReadReply{Status::OK(), 4, 4096, false, 0, 0}).degraded);
  auto lost = RoundTripReply(ObjReadReply{Status::DataLoss("too few shards"), 0, 0, false, 0, 0});
  EXPECT_TRUE(lost.status.is_data_loss());
  auto sr = RoundTripReply(ObjStatReply{Status::OK(), 8, 123});
  EXPECT_EQ(sr.version, 8u);
  EXPECT_EQ(sr.size, 123u);
  auto dr = RoundTripReply(ObjRemoveReply{Status::NotFound("o"), 0});
  EXPECT_EQ(dr.status.code(), ENOENT);
  EXPECT_EQ(RoundTripReply(ObjRemoveReply{Status::OK(), 9}).version, 9u);
  auto lr = RoundTripReply(ObjListReply{Status::OK(), {"a", "", "c"}, "c", false});
  EXPECT_EQ(lr.objects, (std::vector<std::string>{"a", "", "c"}));
  EXPECT_EQ(lr.next_cursor, "c");
  EXPECT_FALSE(lr.end);
  EXPECT_TRUE(RoundTripReply(ObjListReply{Status::OK(), {}, "", true}).end);
}

TEST(MessagesTest, ValidateSubOperations) {
  Limits l;
  l.max_extents = 2;
  auto sub = [](std::vector<ByteExtent> extents, SubWriteKind kind = SubWriteKind::kRange) {
    return SubWriteRequest{"c", "o", 0, 2, 1, kind, 0, 0, std::move(extents)};
  };
  EXPECT_TRUE(ValidateRequest(sub({{0, 10}, {100, 5}}), 15, l, 0).ok());
  EXPECT_TRUE(ValidateRequest(sub({}), 0, l, 0).ok());
  // The extents' lengths must sum to the payload exactly.
  EXPECT_EQ(ValidateRequest(sub({{0, 10}, {100, 5}}), 14, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(sub({{0, 10}, {100, 5}}), 16, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(sub({}), 1, l, 0).code(), EINVAL);
  // Lengths whose sum wraps around 2^64 do not match a small payload.
  EXPECT_EQ(ValidateRequest(sub({{0, UINT64_MAX}, {0, 2}}), 1, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(sub({{UINT64_MAX, 2}}), 2, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(sub({{0, 1}, {1, 1}, {2, 1}}), 3, l, 0).code(), EINVAL);
  // kRemove carries nothing.
  EXPECT_TRUE(ValidateRequest(sub({}, SubWriteKind::kRemove), 0, l, 0).ok());
  EXPECT_EQ(ValidateRequest(sub({{0, 1}}, SubWriteKind::kRemove), 1, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(sub({}, SubWriteKind::kRemove), 1, l, 0).code(), EINVAL);
  // kRepair rewrites the version the shard is at: version == prev_version, not 0.
  EXPECT_EQ(ValidateRequest(sub({{0, 1}}, SubWriteKind::kRepair), 1, l, 0).code(), EINVAL);
  EXPECT_TRUE(
      ValidateRequest(SubWriteRequest{"c", "o", 0, 7, 7, SubWriteKind::kRepair, 1, 1, {{0, 1}}}, 1,
                      l, 0)
          .ok());
  EXPECT_EQ(ValidateRequest(
                SubWriteRequest{"c", "o", 0, 0, 0, SubWriteKind::kRepair, 1, 1, {{0, 1}}}, 1, l, 0)
                .code(),
            EINVAL);
  // Names.
  EXPECT_EQ(
      ValidateRequest(SubWriteRequest{"", "o", 0, 1, 0, SubWriteKind::kFull, 0, 0, {}}, 0, l, 0)
          .code(),
      EINVAL);
  EXPECT_EQ(
      ValidateRequest(SubResolveRequest{"c", "", 0, 1, SubResolveAction::kTrim}, 0, l, 0).code(),
      EINVAL);
  EXPECT_EQ(
      ValidateRequest(SubResolveRequest{"", "o", 0, 1, SubResolveAction::kTrim}, 0, l, 0).code(),
      EINVAL);
  EXPECT_TRUE(
      ValidateRequest(SubResolveRequest{"c", "o", 0, 1, SubResolveAction::kTrim}, 0, l, 0).ok());
  EXPECT_EQ(ValidateRequest(SubStateRequest{"c", "", 0}, 0, l, 0).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(SubStateRequest{"", "o", 0}, 0, l, 0).code(), EINVAL);
  EXPECT_TRUE(ValidateRequest(SubStateRequest{"c", "o", 0}, 0, l, 0).ok());
}

TEST(MessagesTest, ValidateObjectOperations) {
  Limits l;
  l.max_name_len = 8;
  l.max_list_entries = 10;
  const std::string long_name(9, 'n');
  // Object names: 1..max_name_len bytes.
  EXPECT_EQ(ValidateRequest(ObjStatRequest{1, 1, ""}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjStatRequest{1, 1, long_name}, 0, l, 100).code(), EINVAL);
  EXPECT_TRUE(ValidateRequest(ObjStatRequest{1, 1, "o"}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ObjRemoveRequest{1, 1, ""}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjRemoveRequest{1, 1, long_name}, 0, l, 100).code(), EINVAL);
  EXPECT_TRUE(ValidateRequest(ObjRemoveRequest{1, 1, "o"}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ObjReadRequest{1, 1, "", 0, 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(
      ValidateRequest(ObjWriteRequest{1, 1, long_name, ObjWriteMode::kWrite, 0}, 1, l, 100).code(),
      EINVAL);
  // ObjWrite: offset + payload must not overflow; an offset only with kWrite.
  EXPECT_TRUE(
      ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kWrite, 4096}, 10, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kWrite, UINT64_MAX}, 1, l, 100)
                .code(),
            EINVAL);
  EXPECT_EQ(ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kAppend, 1}, 1, l, 100).code(),
            EINVAL);
  EXPECT_EQ(
      ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kWriteFull, 1}, 1, l, 100).code(),
      EINVAL);
  EXPECT_TRUE(
      ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kAppend, 0}, 1, l, 100).ok());
  // ObjRead: no overflow, length within what the client accepts (0: to the end).
  EXPECT_TRUE(ValidateRequest(ObjReadRequest{1, 1, "o", 5, 100}, 0, l, 100).ok());
  EXPECT_TRUE(ValidateRequest(ObjReadRequest{1, 1, "o", 5, 0}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ObjReadRequest{1, 1, "o", 5, 101}, 0, l, 100).code(), EMSGSIZE);
  EXPECT_EQ(ValidateRequest(ObjReadRequest{1, 1, "o", UINT64_MAX, 2}, 0, l, 100).code(), EINVAL);
  // ObjList: 1..max_list_entries.
  EXPECT_EQ(ValidateRequest(ObjListRequest{1, 1, 0, "", 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjListRequest{1, 1, 0, "", 11}, 0, l, 100).code(), EINVAL);
  EXPECT_TRUE(ValidateRequest(ObjListRequest{1, 1, 0, "", 10}, 0, l, 100).ok());
}

// Direct reads and their leases (issue 28 item 3): round trips, bytes of the request, bounds.
TEST(MessagesTest, DirectReadAndReadLeaseRoundTrip) {
  auto d = RoundTripRequest(ObjDirectReadRequest{2, 5, "o", 3, 8192, 4096});
  EXPECT_EQ(d.pool, 2u);
  EXPECT_EQ(d.epoch, 5u);
  EXPECT_EQ(d.object, "o");
  EXPECT_EQ(d.shard, 3u);
  EXPECT_EQ(d.offset, 8192u);
  EXPECT_EQ(d.length, 4096u);
  std::vector<std::byte> bytes;
  EncodeRequest(ObjDirectReadRequest{1, 2, "ab", 3, 4, 5}, bytes);
  EXPECT_EQ(Hex(bytes),
            "0100000000000000"
            "0200000000000000"
            "02000000"
            "6162"
            "03000000"
            "0400000000000000"
            "0500000000000000");
  EXPECT_EQ(RoundTripReply(ObjDirectReadReply{Status::Retryable(EAGAIN, "no lease")}).status.code(),
            EAGAIN);

  auto l = RoundTripRequest(ReadLeaseRequest{4, 9, 2000, {{1, 0}, {3, 0x1f}}});
  EXPECT_EQ(l.osd, 4);
  EXPECT_EQ(l.epoch, 9u);
  EXPECT_EQ(l.duration_ms, 2000u);
  ASSERT_EQ(l.pgs.size(), 2u);
  EXPECT_EQ(l.pgs[1].pool, 3u);
  EXPECT_EQ(l.pgs[1].pg, 0x1fu);
  ReadLeaseReply reply{Status::OK(), 1500, {}};
  reply.grants.push_back(ReadLeaseGrant{1, 0, true, 9, (9ull << 32) | 5, {0, -1, 2}});
  reply.grants.push_back(ReadLeaseGrant{3, 0x1f, false, 9, 0, {}});
  auto r = RoundTripReply(reply);
  EXPECT_EQ(r.duration_ms, 1500u);
  ASSERT_EQ(r.grants.size(), 2u);
  EXPECT_TRUE(r.grants[0].granted);
  EXPECT_EQ(r.grants[0].settled_below, (9ull << 32) | 5);
  EXPECT_EQ(r.grants[0].acting, (std::vector<std::int32_t>{0, -1, 2}));
  EXPECT_FALSE(r.grants[1].granted);
  EXPECT_EQ(TypeOf(RequestBody(l)), MsgType::kReadLease);
  EXPECT_EQ(TypeOf(ReplyBody(r)), MsgType::kReadLeaseReply);

  // More PGs than the limit allows are refused by the decoder before anything is allocated.
  Limits small;
  small.max_list_entries = 1;
  std::vector<std::byte> two;
  EncodeRequest(ReadLeaseRequest{4, 9, 2000, {{1, 0}, {1, 1}}}, two);
  EXPECT_EQ(DecodeRequest(MsgType::kReadLease, two, small).status().code(), EMSGSIZE);
  // A bad `granted` byte is malformed.
  std::vector<std::byte> g;
  EncodeReply(ReadLeaseReply{Status::OK(), 1, {{1, 0, true, 1, 1, {}}}}, g);
  g[9 + 4 + 4 + 8 + 4] = std::byte{2};
  EXPECT_EQ(DecodeReply(MsgType::kReadLeaseReply, g, Limits{}).status().code(), EBADMSG);
}

TEST(MessagesTest, ValidateDirectReadsAndLeases) {
  const Limits l;
  EXPECT_TRUE(ValidateRequest(ObjDirectReadRequest{1, 1, "o", 0, 0, 100}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ObjDirectReadRequest{1, 1, "", 0, 0, 1}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjDirectReadRequest{1, 1, "o", 0, 0, 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjDirectReadRequest{1, 1, "o", 256, 0, 1}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjDirectReadRequest{1, 1, "o", 0, 0, 101}, 0, l, 100).code(),
            EMSGSIZE);
  EXPECT_EQ(ValidateRequest(ObjDirectReadRequest{1, 1, "o", 0, UINT64_MAX, 2}, 0, l, 100).code(),
            EINVAL);
  EXPECT_TRUE(ValidateRequest(ReadLeaseRequest{0, 1, 1, {{1, 0}}}, 0, l, 100).ok());
  EXPECT_EQ(ValidateRequest(ReadLeaseRequest{-1, 1, 1, {{1, 0}}}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ReadLeaseRequest{0, 1, 0, {{1, 0}}}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(
      ValidateRequest(ReadLeaseRequest{0, 1, kMaxReadLeaseMs + 1, {{1, 0}}}, 0, l, 100).code(),
      EINVAL);
  EXPECT_EQ(ValidateRequest(ReadLeaseRequest{0, 1, 1, {}}, 0, l, 100).code(), EINVAL);
}

}  // namespace
}  // namespace ec::msg
