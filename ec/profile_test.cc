#include "ec/profile.h"

#include <gtest/gtest.h>

namespace ec {
namespace {

TEST(Profile, ParsesCommasAndSpaces) {
  auto p = ParseProfile("plugin=jerasure,technique=reed_sol_van k=3  m=2,");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->size(), 4u);
  EXPECT_EQ(p->at("k"), "3");
  EXPECT_EQ(p->at("technique"), "reed_sol_van");
  EXPECT_EQ(ProfileToString(*p), "{k=3,m=2,plugin=jerasure,technique=reed_sol_van}");
}

TEST(Profile, JsonBracketsKeepTheirCommasAndSpaces) {
  auto p =
      ParseProfile(R"(plugin=lrc,mapping=DD__,layers=[[ "DDc_", "plugin=isa technique=cauchy" ],)"
                   R"(["DD_c",{"k":"2"}]] crush-steps=[["choose","rack",2]])");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->at("layers"), R"([[ "DDc_", "plugin=isa technique=cauchy" ],["DD_c",{"k":"2"}]])");
  EXPECT_EQ(p->at("crush-steps"), R"([["choose","rack",2]])");
  EXPECT_EQ(p->at("mapping"), "DD__");
  // Quotes outside brackets are plain characters: the comma still separates ('b"' is no pair).
  EXPECT_FALSE(ParseProfile(R"(x="a,b")").ok());
  // A quoted bracket does not count, an escaped quote does not end the string.
  p = ParseProfile(R"(a=["]\"", "b"],b=2)");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->at("a"), R"(["]\"", "b"])");
  EXPECT_EQ(p->at("b"), "2");
}

TEST(Profile, EmptyValueAndErrors) {
  auto p = ParseProfile("k= m=2");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->at("k"), "");
  EXPECT_FALSE(ParseProfile("k=2 bogus").ok());
  EXPECT_FALSE(ParseProfile("=3").ok());
  EXPECT_TRUE(ParseProfile("").ok());
}

TEST(Profile, ToIntFillsDefaultsAndReportsLikeCeph) {
  Profile p = {{"k", "4"}, {"m", ""}, {"w", "eight"}};
  int v = 0;
  EXPECT_TRUE(ProfileToInt("k", p, &v, "2").ok());
  EXPECT_EQ(v, 4);
  EXPECT_TRUE(ProfileToInt("m", p, &v, "3").ok());
  EXPECT_EQ(v, 3);
  EXPECT_EQ(p["m"], "3");
  EXPECT_TRUE(ProfileToInt("c", p, &v, "7").ok());
  EXPECT_EQ(p["c"], "7");
  Status s = ProfileToInt("w", p, &v, "8");
  EXPECT_EQ(s.code(), EINVAL);
  EXPECT_EQ(v, 8);
  EXPECT_EQ(s.message(),
            "could not convert w=eight to int because strict_strtol: expected integer, got: "
            "'eight', set to default 8");
  p["big"] = "99999999999";
  EXPECT_FALSE(ProfileToInt("big", p, &v, "1").ok());
}

TEST(Profile, ToBool) {
  Profile p = {{"a", "yes"}, {"b", "true"}, {"c", "1"}};
  bool v = false;
  EXPECT_TRUE(ProfileToBool("a", p, &v, "false").ok());
  EXPECT_TRUE(v);
  EXPECT_TRUE(ProfileToBool("b", p, &v, "false").ok());
  EXPECT_TRUE(v);
  EXPECT_TRUE(ProfileToBool("c", p, &v, "false").ok());
  EXPECT_FALSE(v);
  EXPECT_TRUE(ProfileToBool("d", p, &v, "false").ok());
  EXPECT_FALSE(v);
  EXPECT_EQ(p["d"], "false");
}

}  // namespace
}  // namespace ec
