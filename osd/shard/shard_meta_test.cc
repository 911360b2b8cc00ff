// Shard naming and the ShardMeta record: round trips, the exact byte format, and every corrupt
// input (each truncation, trailing bytes, forged counts) failing as DataLoss without a crash.
#include "osd/shard/shard_meta.h"

#include <gtest/gtest.h>

#include <limits>

namespace ec::osd::shard {
namespace {

TEST(ShardMetaTest, NamesRoundTripAndOnlyCanonicalNamesParse) {
  for (const auto& [object, shard] : std::vector<std::pair<std::string, std::uint32_t>>{
           {"obj", 0}, {"a#b", 3}, {"x", 4294967295u}, {std::string("n\0l", 3), 12}}) {
    const std::string name = ShardObjectName(object, shard);
    std::string o;
    std::uint32_t s = 99;
    ASSERT_TRUE(ParseShardObjectName(name, &o, &s)) << name;
    EXPECT_EQ(o, object);
    EXPECT_EQ(s, shard);
  }
  EXPECT_EQ(ShardObjectName("obj", 7), "obj#7");
  for (const std::string bad : {"obj", "#1", "obj#", "obj#07", "obj#x", "obj#1x", "obj#-1",
                                "obj#+1", "obj#4294967296", "obj# 1", ""}) {
    std::string o = "untouched";
    std::uint32_t s = 99;
    EXPECT_FALSE(ParseShardObjectName(bad, &o, &s)) << bad;
    EXPECT_EQ(o, "untouched");
    EXPECT_EQ(s, 99u);
  }
}

TEST(ShardMetaTest, RoundTripAndByteFormat) {
  ShardMeta empty;
  auto e = DecodeShardMeta(EncodeShardMeta(empty));
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(*e, empty);

  ShardMeta m;
  m.version = 0x0102030405060708ull;
  m.attrs = {{"k", "v"}, {"", ""}, {std::string("\0\xff", 2), std::string(70000, 'z')}};
  auto d = DecodeShardMeta(EncodeShardMeta(m));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(*d, m);

  // The format on disk (stores written before this split must still decode).
  ShardMeta small;
  small.version = 0x0102030405060708ull;
  small.attrs = {{"k", "vv"}};
  const std::string want(
      "\x01\x00\x00\x00"                  // format 1
      "\x08\x07\x06\x05\x04\x03\x02\x01"  // version
      "\x01\x00\x00\x00"                  // one attribute
      "\x01\x00\x00\x00k"                 // key
      "\x02\x00\x00\x00vv",               // value
      4 + 8 + 4 + 5 + 6);
  EXPECT_EQ(EncodeShardMeta(small), want);

  // With the object's versions (a partial write): format 2, the versions after the attributes.
  small.versions = {5, 0x0102030405060708ull};
  const std::string want2 = std::string("\x02", 1) + want.substr(1) +
                            std::string(
                                "\x02\x00\x00\x00"
                                "\x05\x00\x00\x00\x00\x00\x00\x00"
                                "\x08\x07\x06\x05\x04\x03\x02\x01",
                                4 + 16);
  EXPECT_EQ(EncodeShardMeta(small), want2);
  auto d2 = DecodeShardMeta(want2);
  ASSERT_TRUE(d2.ok()) << d2.status().message();
  EXPECT_EQ(*d2, small);
}

void ExpectCorrupt(const std::string& bytes, const std::string& what) {
  auto r = DecodeShardMeta(bytes);
  ASSERT_FALSE(r.ok()) << what;
  EXPECT_TRUE(r.status().is_data_loss()) << what << ": " << r.status().ToString();
  EXPECT_NE(r.status().message().find("corrupt shard metadata"), std::string::npos)
      << r.status().message();
}

TEST(ShardMetaTest, EveryTruncationAndCorruptionIsDataLoss) {
  ShardMeta m;
  m.version = 9;
  m.attrs = {{"key", "value"}, {"k2", std::string(300, 'x')}};
  const std::string full = EncodeShardMeta(m);
  for (std::size_t n = 0; n < full.size(); ++n) {
    ExpectCorrupt(full.substr(0, n), "truncated to " + std::to_string(n));
  }
  ExpectCorrupt(full + '\0', "trailing byte");

  std::string format3 = full;
  format3[0] = 3;
  ExpectCorrupt(format3, "unknown format");
  // Format 2 without its versions (a format 1 record relabelled).
  std::string format2 = full;
  format2[0] = 2;
  ExpectCorrupt(format2, "format 2 without versions");

  // Format 2: every truncation, an empty or forged count.
  ShardMeta v = m;
  v.versions = {9, 4, 9};
  const std::string with = EncodeShardMeta(v);
  for (std::size_t n = full.size(); n < with.size(); ++n) {
    ExpectCorrupt(with.substr(0, n), "format 2 truncated to " + std::to_string(n));
  }
  std::string zero = with.substr(0, full.size()) + std::string(4, '\0');
  zero[0] = 2;
  ExpectCorrupt(zero, "format 2 with no versions");
  std::string many = with;
  many.replace(full.size(), 4, std::string("\x01\x01\x00\x00", 4));  // 257 > 256 positions
  ExpectCorrupt(many, "257 versions");

  // A forged attribute count: refused from the bytes left, before anything is allocated.
  std::string forged = EncodeShardMeta(ShardMeta{1, {}});
  forged.replace(12, 4, std::string("\xff\xff\xff\xff", 4));
  ExpectCorrupt(forged, "attribute count 2^32-1");

  // A forged string length inside an attribute.
  std::string long_key = full;
  long_key.replace(16, 4, std::string("\xff\xff\xff\x7f", 4));
  ExpectCorrupt(long_key, "key length 2^31-1");
}

// The object's metadata among the record's attributes (issue 29): user xattrs under "_", the
// mtime and the object's size in decimal, read back whatever else the record holds.
TEST(ShardMetaTest, ObjectMetadataAttributes) {
  ShardMeta m;
  m.attrs = {
      {"ec.object_size", "4096"}, {"_z", "last"}, {"other", "x"}, {"_a", std::string("\0", 1)}};
  EXPECT_EQ(XattrsOf(m.attrs),
            (std::vector<msg::Attr>{{"a", std::string("\0", 1)}, {"z", "last"}}));
  EXPECT_EQ(DecimalAttr(m.attrs, "ec.object_size"), 4096u);
  EXPECT_EQ(DecimalAttr(m.attrs, kMtimeAttr), 0u);  // none
  SetMetaAttr(m, kMtimeAttr, "1700000000123456");
  SetMetaAttr(m, "ec.object_size", "5");
  EXPECT_EQ(DecimalAttr(m.attrs, kMtimeAttr), 1700000000123456u);
  EXPECT_EQ(DecimalAttr(m.attrs, "ec.object_size"), 5u);
  SetMetaAttr(m, kMtimeAttr, "12x");
  EXPECT_EQ(DecimalAttr(m.attrs, kMtimeAttr), 0u);  // does not parse
  SetXattrs(m, {{"b", "2"}});
  EXPECT_EQ(XattrsOf(m.attrs), (std::vector<msg::Attr>{{"b", "2"}}));
  EXPECT_EQ(m.attrs.size(), 4u);  // size, other, mtime, _b
  auto back = DecodeShardMeta(EncodeShardMeta(m));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(XattrsOf(back->attrs), (std::vector<msg::Attr>{{"b", "2"}}));
  SetXattrs(m, {});
  EXPECT_TRUE(XattrsOf(m.attrs).empty());
  // "_" alone is no xattr (an empty name).
  EXPECT_TRUE(XattrsOf({{"_", "v"}}).empty());
}

// The object's form (issue 30 item 2): an attribute only for copies, so a record without it (every
// record written before) is erasure-coded; user xattrs never see it.
TEST(ShardMetaTest, FormAttribute) {
  ShardMeta m;
  m.attrs = {{"_user", "1"}};
  EXPECT_EQ(FormOf(m), msg::ObjectForm::kErasure);
  SetForm(m, msg::ObjectForm::kReplicas);
  EXPECT_EQ(FormOf(m), msg::ObjectForm::kReplicas);
  SetForm(m, msg::ObjectForm::kReplicas);
  EXPECT_EQ(m.attrs.size(), 2u);
  auto back = DecodeShardMeta(EncodeShardMeta(m));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(FormOf(*back), msg::ObjectForm::kReplicas);
  EXPECT_EQ(XattrsOf(back->attrs), (std::vector<msg::Attr>{{"user", "1"}}));
  SetForm(m, msg::ObjectForm::kErasure);
  EXPECT_EQ(FormOf(m), msg::ObjectForm::kErasure);
  EXPECT_EQ(m.attrs.size(), 1u);
  EXPECT_EQ(FormOf(ShardMeta{1, {{kFormAttr, "bogus"}}, {}}), msg::ObjectForm::kErasure);
}

}  // namespace
}  // namespace ec::osd::shard
