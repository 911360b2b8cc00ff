// SubRepairChain (issue 33 item 2): the codec and the server-side bounds of a pipelined repair's
// hop request and its reply.
#include <gtest/gtest.h>

#include <cerrno>

#include "msg/messages.h"
#include "msg/test_round_trip.h"

namespace ec::msg {
namespace {

using testing::RoundTripReply;
using testing::RoundTripRequest;

SubRepairChainRequest ValidChain() {
  SubRepairChainRequest r;
  r.pool = 3;
  r.epoch = 17;
  r.collection = "pg.3.1";
  r.object = "obj";
  r.lost = 2;
  r.version = 9;
  r.object_size = 100000;
  r.versions = {9, 9, 9, 8, 9, 9};
  r.first_stripe = 4;
  r.stripes = 2;
  r.offset = 0;
  r.length = 4096;
  r.hops = {{0, 10, 0xdeadbeef}, {1, 11, 1}, {3, 13, 2}, {4, 14, 0}};
  r.hop = 3;
  r.timeout_ms = 5000;
  return r;
}

TEST(RepairChainMessages, RequestAndReplyRoundTrip) {
  const SubRepairChainRequest r = ValidChain();
  const SubRepairChainRequest back = RoundTripRequest(r);
  EXPECT_EQ(back.pool, 3u);
  EXPECT_EQ(back.epoch, 17u);
  EXPECT_EQ(back.collection, "pg.3.1");
  EXPECT_EQ(back.object, "obj");
  EXPECT_EQ(back.lost, 2u);
  EXPECT_EQ(back.version, 9u);
  EXPECT_EQ(back.object_size, 100000u);
  EXPECT_EQ(back.versions, r.versions);
  EXPECT_EQ(back.first_stripe, 4u);
  EXPECT_EQ(back.stripes, 2u);
  EXPECT_EQ(back.length, 4096u);
  EXPECT_EQ(back.hops, r.hops);
  EXPECT_EQ(back.hop, 3u);
  EXPECT_EQ(back.timeout_ms, 5000u);
  EXPECT_EQ(TypeOf(RequestBody(r)), MsgType::kSubRepairChain);
  EXPECT_EQ(TypeName(MsgType::kSubRepairChain), "SubRepairChain");

  const auto ok = RoundTripReply(SubRepairChainReply{Status::OK(), -1, 9});
  EXPECT_TRUE(ok.status.ok());
  EXPECT_EQ(ok.failed_hop, -1);
  EXPECT_EQ(ok.version, 9u);
  const auto bad = RoundTripReply(SubRepairChainReply{Status::Retryable(ESTALE, "at 8"), 2, 0});
  EXPECT_EQ(bad.status.code(), ESTALE);
  EXPECT_TRUE(bad.status.is_retryable());
  EXPECT_EQ(bad.failed_hop, 2);
  EXPECT_EQ(TypeOf(ReplyBody(bad)), MsgType::kSubRepairChainReply);
}

TEST(RepairChainMessages, DecoderRefusesTooManyHopsAndVersions) {
  SubRepairChainRequest r = ValidChain();
  r.hops.assign(kMaxChainHops + 1, SubRepairChainHop{0, 1, 0});
  std::vector<std::byte> bytes;
  EncodeRequest(r, bytes);
  EXPECT_EQ(DecodeRequest(MsgType::kSubRepairChain, bytes, Limits{}).status().code(), EMSGSIZE);

  r = ValidChain();
  r.versions.assign(kMaxShardPositions + 1, 1);
  bytes.clear();
  EncodeRequest(r, bytes);
  EXPECT_EQ(DecodeRequest(MsgType::kSubRepairChain, bytes, Limits{}).status().code(), EMSGSIZE);

  // A hop count that claims more hops than the bytes left hold is refused before allocating.
  r = ValidChain();
  bytes.clear();
  EncodeRequest(r, bytes);
  bytes.resize(bytes.size() - 8 - 4 * 12);  // cut the hops, the hop and the timeout
  EXPECT_EQ(DecodeRequest(MsgType::kSubRepairChain, bytes, Limits{}).status().code(), EBADMSG);
}

TEST(RepairChainMessages, ValidateChecksEveryBound) {
  const Limits l;
  const std::uint64_t reply_limit = 1 << 20;
  EXPECT_TRUE(ValidateRequest(ValidChain(), 0, l, reply_limit).ok());

  auto check = [&](auto change, int code, const char* what) {
    SubRepairChainRequest r = ValidChain();
    change(r);
    Status s = ValidateRequest(r, 0, l, reply_limit);
    EXPECT_EQ(s.code(), code) << what << ": " << s.ToString();
  };
  check([](auto& r) { r.collection.clear(); }, EINVAL, "no collection");
  check([](auto& r) { r.object.clear(); }, EINVAL, "no object");
  check([](auto& r) { r.version = 0; }, EINVAL, "version 0");
  check([](auto& r) { r.lost = kMaxShardPositions; }, EINVAL, "lost out of range");
  check([](auto& r) { r.hops.clear(); }, EINVAL, "no hops");
  check([](auto& r) { r.hops[1].shard = kMaxShardPositions; }, EINVAL, "hop shard out of range");
  check([](auto& r) { r.hops[1].osd = -1; }, EINVAL, "hop osd negative");
  check([](auto& r) { r.hops[1].shard = r.lost; }, EINVAL, "hop at the lost shard");
  check([](auto& r) { r.hops[1].shard = r.hops[0].shard; }, EINVAL, "two hops at one shard");
  check([](auto& r) { r.hop = 4; }, EINVAL, "hop index past the hops");
  check([](auto& r) { r.stripes = 0; }, EINVAL, "no stripes");
  check([](auto& r) { r.length = 0; }, EINVAL, "no bytes");
  check([](auto& r) { r.first_stripe = UINT64_MAX; }, EINVAL, "stripes overflow");
  check([](auto& r) { r.offset = UINT64_MAX - 10; }, EINVAL, "offset overflow");
  check([](auto& r) { r.timeout_ms = 0; }, EINVAL, "no time");
  check(
      [&](auto& r) {
        r.stripes = 3;
        r.length = reply_limit / 2;
      },
      EMSGSIZE, "partial above the reply limit");
  check(
      [&](auto& r) {
        r.stripes = UINT64_MAX / 2;
        r.first_stripe = 0;
      },
      EMSGSIZE, "huge stripe count");
  EXPECT_EQ(ValidateRequest(ValidChain(), 1, l, reply_limit).code(), EINVAL) << "a payload";
}

}  // namespace
}  // namespace ec::msg
