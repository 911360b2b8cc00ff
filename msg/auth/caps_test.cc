// Caps in Ceph's syntax, parsed strictly, and what they allow.
#include "msg/auth/caps.h"

#include <gtest/gtest.h>

namespace ec::msg::auth {
namespace {

TEST(OsdCaps, AllowsWhatTheGrantsSay) {
  auto all = OsdCaps::Parse("allow *");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->Allows("any", kCapRead | kCapWrite));
  EXPECT_TRUE(all->AllowsEveryPool(kCapWrite));

  auto rw = OsdCaps::Parse("allow rw pool=data");
  ASSERT_TRUE(rw.ok());
  EXPECT_TRUE(rw->Allows("data", kCapRead));
  EXPECT_TRUE(rw->Allows("data", kCapWrite));
  EXPECT_FALSE(rw->Allows("other", kCapRead));
  EXPECT_FALSE(rw->AllowsEveryPool(kCapRead));

  auto r = OsdCaps::Parse("allow r pool=data");
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->Allows("data", kCapRead));
  EXPECT_FALSE(r->Allows("data", kCapWrite));

  // Grants add up; separators ',' and ';'; "pool NAME" and quotes as Ceph takes them.
  auto mixed = OsdCaps::Parse("allow r ,allow w pool data;  allow rwx pool=\"a b\"");
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();
  EXPECT_TRUE(mixed->Allows("data", kCapRead | kCapWrite));
  EXPECT_TRUE(mixed->Allows("x", kCapRead));
  EXPECT_FALSE(mixed->Allows("x", kCapWrite));
  EXPECT_TRUE(mixed->Allows("a b", kCapAll));
  ASSERT_EQ(mixed->grants().size(), 3u);
  EXPECT_EQ(*mixed->grants()[2].pool, "a b");

  auto star_pool = OsdCaps::Parse("allow * pool=p");
  ASSERT_TRUE(star_pool.ok());
  EXPECT_TRUE(star_pool->Allows("p", kCapAll));
  EXPECT_FALSE(star_pool->Allows("q", kCapRead));
  EXPECT_TRUE(OsdCaps::Parse("allow wr").ok());
}

TEST(OsdCaps, BadCapsSayWhereParsingStopped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "osd capability parse failed, stopped at '' of ''"},
      {"allow", "osd capability parse failed, stopped at '' of 'allow'"},
      {"allow rw pol=a", "osd capability parse failed, stopped at 'pol=a' of 'allow rw pol=a'"},
      {"allow rrw", "osd capability parse failed, stopped at 'rrw' of 'allow rrw'"},
      {"allow q", "osd capability parse failed, stopped at 'q' of 'allow q'"},
      {"alow r", "osd capability parse failed, stopped at 'alow r' of 'alow r'"},
      {"allow r pool=", "osd capability parse failed, stopped at 'pool=' of 'allow r pool='"},
      {"allow r pool=a b", "osd capability parse failed, stopped at 'b' of 'allow r pool=a b'"},
      {"allow r,", "osd capability parse failed, stopped at '' of 'allow r,'"},
      {"allowr", "osd capability parse failed, stopped at 'allowr' of 'allowr'"},
      {"allow *x", "osd capability parse failed, stopped at '*x' of 'allow *x'"},
  };
  for (const auto& [text, want] : cases) {
    auto c = OsdCaps::Parse(text);
    ASSERT_FALSE(c.ok()) << text;
    EXPECT_EQ(c.status().code(), EINVAL);
    EXPECT_EQ(c.status().message(), want);
  }
}

TEST(MonCaps, ValidatesCephsForms) {
  for (std::string_view good : {"allow *", "allow r", "allow rw", "allow rwx", "allow profile osd",
                                "allow r, allow profile rbd"}) {
    EXPECT_TRUE(ValidateMonCaps(good).ok()) << good;
  }
  EXPECT_EQ(ValidateMonCaps("allow all").message(),
            "mon capability parse failed, stopped at 'all' of 'allow all'");
  EXPECT_EQ(ValidateMonCaps("allow r pool=a").message(),
            "mon capability parse failed, stopped at 'pool=a' of 'allow r pool=a'");
}

TEST(Caps, CommandLineCapsAsCephReadsThem) {
  auto caps = ParseCapsArgs({"mon", "allow r", "osd", "allow rw pool=a"});
  ASSERT_TRUE(caps.ok()) << caps.status().message();
  EXPECT_EQ(caps->at("mon"), "allow r");
  EXPECT_EQ(caps->at("osd"), "allow rw pool=a");
  EXPECT_TRUE(ParseCapsArgs({}).ok());
  EXPECT_EQ(ParseCapsArgs({"mon"}).status().message(),
            "bad capabilities request; odd number of arguments");
  EXPECT_EQ(ParseCapsArgs({"mds", "allow"}).status().message(), "unknown cap type 'mds'");
  EXPECT_EQ(ParseCapsArgs({"osd", "allow rw pol=a"}).status().code(), EINVAL);
}

}  // namespace
}  // namespace ec::msg::auth
