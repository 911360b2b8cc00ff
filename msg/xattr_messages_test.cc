// The object-metadata messages of protocol version 4 (issue 29): ObjSetXattrs, ObjGetXattrs,
// ObjStat's mtime, ObjWrite's truncate mode and SubWrite's metadata, byte for byte, round trips,
// bounds and the checks of msg/xattrs.h.
#include <gtest/gtest.h>

#include "msg/messages.h"
#include "msg/test_hex.h"
#include "msg/test_round_trip.h"
#include "msg/xattrs.h"

namespace ec::msg {
namespace {

using testing::Hex;
using testing::RoundTripReply;
using testing::RoundTripRequest;

TEST(XattrMessagesTest, KnownAnswerBytes) {
  std::vector<std::byte> v;
  EncodeRequest(
      ObjSetXattrsRequest{1, 7, "o", kXattrsCreate | kXattrsMtime, {{"k", "v"}}, {"r"}, 5, 16}, v);
  EXPECT_EQ(Hex(v),
            "0100000000000000"      // pool
            "0700000000000000"      // epoch
            "010000006f"            // object
            "03"                    // flags: create, mtime
            "01000000"              // 1 to set
            "010000006b0100000076"  // "k" = "v"
            "01000000"              // 1 to remove
            "0100000072"            // "r"
            "0500000000000000"      // mtime
            "10000000");            // start_within_ms
  v.clear();
  EncodeReply(ObjGetXattrsReply{Status::OK(), 9, 0x10, {{"a", "xy"}}}, v);
  EXPECT_EQ(Hex(v),
            "000000000000000000"        // status OK
            "0900000000000000"          // version
            "1000000000000000"          // mtime
            "01000000"                  // 1 xattr
            "0100000061020000007879");  // "a" = "xy"
  v.clear();
  EncodeReply(ObjStatReply{Status::OK(), 3, 10, 0x20}, v);
  EXPECT_EQ(Hex(v),
            "000000000000000000"  // status OK
            "0300000000000000"    // version
            "0a00000000000000"    // size
            "2000000000000000"    // mtime
            "00");                // form kErasure (protocol version 5)
  v.clear();
  EncodeRequest(ObjWriteRequest{1, 7, "o", ObjWriteMode::kTruncate, 4096}, v);
  EXPECT_EQ(Hex(v),
            "0100000000000000"
            "0700000000000000"
            "010000006f"
            "03"                // mode kTruncate
            "0010000000000000"  // the new size
            "00000000");        // start_within_ms: no limit
  v.clear();
  SubWriteRequest w{"p", "o", 0, 2, 1, SubWriteKind::kRange, 0, 0, {}};
  w.meta = SubWriteMeta::kReplace;
  w.mtime = 0x40;
  w.xattrs = {{"n", "v"}};
  EncodeRequest(w, v);
  EXPECT_EQ(Hex(v).substr(Hex(v).size() - 2 * (1 + 8 + 4 + 10 + 1)),
            "02"                    // meta kReplace
            "4000000000000000"      // mtime
            "01000000"              // 1 xattr
            "010000006e0100000076"  // "n" = "v"
            "00"                    // form kErasure (protocol version 5)
  );
}

TEST(XattrMessagesTest, RoundTrips) {
  auto s = RoundTripRequest(
      ObjSetXattrsRequest{4, 9, "obj", kXattrsCreate, {{"a", std::string("\0b", 2)}}, {"c"}, 0, 9});
  EXPECT_EQ(s.pool, 4u);
  EXPECT_EQ(s.start_within_ms, 9u);
  EXPECT_EQ(s.epoch, 9u);
  EXPECT_EQ(s.object, "obj");
  EXPECT_EQ(s.flags, kXattrsCreate);
  EXPECT_EQ(s.set, (std::vector<Attr>{{"a", std::string("\0b", 2)}}));
  EXPECT_EQ(s.remove, (std::vector<std::string>{"c"}));
  EXPECT_EQ(RoundTripReply(ObjSetXattrsReply{Status::OK(), 12}).version, 12u);
  EXPECT_EQ(RoundTripReply(ObjSetXattrsReply{Status::Error(ENOENT, "gone"), 0}).status.code(),
            ENOENT);
  EXPECT_EQ(RoundTripRequest(ObjGetXattrsRequest{2, 3, "g"}).object, "g");
  auto g = RoundTripReply(ObjGetXattrsReply{Status::OK(), 5, 1700000000000000, {{"x", "1"}}});
  EXPECT_EQ(g.version, 5u);
  EXPECT_EQ(g.mtime, 1700000000000000u);
  EXPECT_EQ(g.xattrs, (std::vector<Attr>{{"x", "1"}}));
  EXPECT_EQ(RoundTripReply(ObjStatReply{Status::OK(), 1, 2, 3}).mtime, 3u);
  EXPECT_EQ(RoundTripRequest(ObjWriteRequest{1, 2, "t", ObjWriteMode::kTruncate, 77}).mode,
            ObjWriteMode::kTruncate);
  SubWriteRequest w{"c", "o", 1, 2, 1, SubWriteKind::kFull, 10, 5, {{0, 5}}};
  w.meta = SubWriteMeta::kReplace;
  w.mtime = 123;
  w.xattrs = {{"a", "1"}, {"b", ""}};
  auto w2 = RoundTripRequest(w);
  EXPECT_EQ(w2.meta, SubWriteMeta::kReplace);
  EXPECT_EQ(w2.mtime, 123u);
  EXPECT_EQ(w2.xattrs, w.xattrs);
  EXPECT_EQ(
      RoundTripRequest(SubWriteRequest{"c", "o", 1, 2, 1, SubWriteKind::kRemove, 0, 0, {}}).meta,
      SubWriteMeta::kKeep);
}

TEST(XattrMessagesTest, DecodeRefusesUnknownFlagsAndOverLimitLists) {
  std::vector<std::byte> v;
  EncodeRequest(ObjSetXattrsRequest{1, 2, "o", 0, {}, {}, 0}, v);
  v[8 + 8 + 5] = std::byte{4};  // flags: an unknown bit
  Status s = DecodeRequest(MsgType::kObjSetXattrs, v, Limits{}).status();
  EXPECT_EQ(s.code(), EBADMSG);
  EXPECT_NE(s.message().find("flags: unknown bits 0x4"), std::string::npos) << s.message();
  Limits small;
  small.max_attrs = 1;
  v.clear();
  EncodeRequest(ObjSetXattrsRequest{1, 2, "o", 0, {}, {"a", "b"}, 0}, v);
  EXPECT_EQ(DecodeRequest(MsgType::kObjSetXattrs, v, small).status().code(), EMSGSIZE);
  v.clear();
  EncodeReply(ObjGetXattrsReply{Status::OK(), 1, 1, {{"a", ""}, {"b", ""}}}, v);
  EXPECT_EQ(DecodeReply(MsgType::kObjGetXattrsReply, v, small).status().code(), EMSGSIZE);
  small = Limits{};
  small.max_attr_len = 2;
  v.clear();
  EncodeRequest(ObjSetXattrsRequest{1, 2, "o", 0, {}, {"abc"}, 0}, v);
  EXPECT_EQ(DecodeRequest(MsgType::kObjSetXattrs, v, small).status().code(), EMSGSIZE);
  // A count larger than the bytes left is refused before anything is allocated.
  v.clear();
  EncodeRequest(ObjSetXattrsRequest{1, 2, "o", 0, {}, {}, 0}, v);
  v[8 + 8 + 5 + 1 + 4] = std::byte{40};  // remove: 40 names in the 8 bytes left
  EXPECT_EQ(DecodeRequest(MsgType::kObjSetXattrs, v, Limits{}).status().code(), EBADMSG);
}

TEST(XattrMessagesTest, ValidateObjectMetadataRequests) {
  const Limits l;
  auto set = [](std::vector<Attr> s, std::vector<std::string> r = {}) {
    return ObjSetXattrsRequest{1, 1, "o", kXattrsCreate, std::move(s), std::move(r), 0};
  };
  EXPECT_TRUE(ValidateRequest(set({{"a", "1"}}), 0, l, 100).ok());
  EXPECT_TRUE(ValidateRequest(set({}), 0, l, 100).ok());                    // touch
  EXPECT_EQ(ValidateRequest(set({{"a", "1"}}), 1, l, 100).code(), EINVAL);  // a payload
  EXPECT_EQ(ValidateRequest(set({{"", "1"}}), 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(set({{std::string(256, 'n'), ""}}), 0, l, 100).code(), ENAMETOOLONG);
  EXPECT_TRUE(ValidateRequest(set({{std::string(255, 'n'), ""}}), 0, l, 100).ok());
  EXPECT_EQ(
      ValidateRequest(set({{"v", std::string(kMaxXattrValueLen + 1, 'v')}}), 0, l, 100).code(),
      EFBIG);
  EXPECT_EQ(ValidateRequest(set({}, {std::string(256, 'n')}), 0, l, 100).code(), ENAMETOOLONG);
  std::vector<Attr> many;
  for (std::uint32_t i = 0; i <= kMaxXattrs; ++i) many.push_back({"n" + std::to_string(i), ""});
  EXPECT_EQ(ValidateRequest(set(many), 0, l, 100).code(), E2BIG);
  EXPECT_EQ(ValidateRequest(ObjSetXattrsRequest{1, 1, "", 0, {}, {}, 0}, 0, l, 100).code(), EINVAL);
  EXPECT_EQ(ValidateRequest(ObjGetXattrsRequest{1, 1, ""}, 0, l, 100).code(), EINVAL);
  EXPECT_TRUE(ValidateRequest(ObjGetXattrsRequest{1, 1, "o"}, 0, l, 100).ok());
  // Truncate: the new size in `offset`, no payload.
  EXPECT_TRUE(
      ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kTruncate, 9}, 0, l, 100).ok());
  EXPECT_EQ(
      ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kTruncate, 9}, 3, l, 100).code(),
      EINVAL);
  EXPECT_EQ(ValidateRequest(ObjWriteRequest{1, 1, "o", ObjWriteMode::kAppend, 9}, 3, l, 100).code(),
            EINVAL);
  // SubWrite: xattrs only with kReplace, within the limits.
  SubWriteRequest w{"c", "o", 1, 2, 1, SubWriteKind::kRange, 10, 5, {}};
  w.xattrs = {{"a", "1"}};
  w.meta = SubWriteMeta::kMtime;
  EXPECT_EQ(ValidateRequest(w, 0, l, 100).code(), EINVAL);
  w.meta = SubWriteMeta::kReplace;
  EXPECT_TRUE(ValidateRequest(w, 0, l, 100).ok());
  w.xattrs = many;
  EXPECT_EQ(ValidateRequest(w, 0, l, 100).code(), E2BIG);
}

TEST(XattrMessagesTest, LimitsAndChanges) {
  EXPECT_TRUE(CheckXattr("a", kMaxXattrValueLen).ok());
  EXPECT_EQ(CheckXattr("a", kMaxXattrValueLen + 1).code(), EFBIG);
  EXPECT_EQ(CheckXattr("", 0).code(), EINVAL);
  EXPECT_EQ(CheckXattr(std::string(kMaxXattrNameLen + 1, 'a'), 0).code(), ENAMETOOLONG);
  // The set's bytes: names and values together.
  std::vector<Attr> big = {{"a", std::string(kMaxXattrValueLen, 'x')},
                           {"b", std::string(kMaxXattrsBytes - kMaxXattrValueLen - 2, 'y')}};
  EXPECT_TRUE(CheckXattrSet(big).ok());
  big[1].value.push_back('y');
  Status s = CheckXattrSet(big);
  EXPECT_EQ(s.code(), E2BIG);
  EXPECT_NE(s.message().find("above the limit of 49152"), std::string::npos) << s.message();
  std::vector<Attr> many;
  for (std::uint32_t i = 0; i < kMaxXattrs; ++i) many.push_back({"n" + std::to_string(i), ""});
  EXPECT_TRUE(CheckXattrSet(many).ok());
  many.push_back({"z", ""});
  EXPECT_EQ(CheckXattrSet(many).code(), E2BIG);

  // Set, replace, remove; sorted by name, a later entry wins, an absent removal is no error.
  EXPECT_EQ(XattrsAfter({{"b", "1"}, {"d", "2"}}, {{"c", "3"}, {"b", "4"}, {"a", "5"}, {"c", "6"}},
                        {"d", "zz"}),
            (std::vector<Attr>{{"a", "5"}, {"b", "4"}, {"c", "6"}}));
  EXPECT_EQ(XattrsAfter({}, {}, {"x"}), std::vector<Attr>{});
}

}  // namespace
}  // namespace ec::msg
