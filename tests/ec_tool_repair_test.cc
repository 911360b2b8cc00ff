// `ec-tool repair`: rebuilds a lost shard byte-identically and reads exactly what the plan needs.
// CLAY reads d helpers x chunk_size / q per stripe; RS plugins read k whole chunks; SHEC reads the
// few chunks of one shingle.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>

#include "tests/system_test_support.h"

namespace ectest {
namespace {

struct RepairCase {
  std::string profile;
  std::size_t stripe_unit;
  unsigned k, m, d;  // d = 0 for codes without sub-chunk repair
};

std::ostream& operator<<(std::ostream& os, const RepairCase& c) {
  return os << c.profile;
}

class Repair : public ::testing::TestWithParam<RepairCase> {};

TEST_P(Repair, EveryLostShardIsRebuiltFromThePlannedBytes) {
  const RepairCase& c = GetParam();
  if (c.d != 0) {
    ASSERT_TRUE(PluginBuilt("clay")) << "libec_clay.so is not built";
  }
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed=" + std::to_string(seed));
  TempDir dir;
  const fs::path obj = dir / "obj";
  const std::size_t stripe = c.stripe_unit * c.k;
  WriteBytes(obj, RandomBytes(stripe * 7 + 1234, seed));  // 8 stripes, the last one padded
  const unsigned n = c.k + c.m;
  ToolRun enc = RunTool({"encode", c.profile, std::to_string(c.stripe_unit), "0", obj.string()});
  ASSERT_EQ(enc.exit_code, 0) << enc.err;
  std::vector<std::vector<std::byte>> shards;
  for (unsigned i = 0; i < n; ++i)
    shards.push_back(ReadBytes(obj.string() + "." + std::to_string(i)));
  const std::uint64_t stripes = shards[0].size() / c.stripe_unit;
  ASSERT_EQ(stripes, 8u);

  for (unsigned lost = 0; lost < n; ++lost) {
    const std::string lost_path = obj.string() + "." + std::to_string(lost);
    fs::remove(lost_path);
    ToolRun r = RunTool(
        {"repair", c.profile, std::to_string(c.stripe_unit), std::to_string(lost), obj.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(ReadBytes(lost_path), shards[lost]) << "shard " << lost << " rebuilt wrongly";
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["shard"], lost);
    EXPECT_EQ(j["stripes"], stripes);
    EXPECT_EQ(j["chunk_size"], c.stripe_unit);
    const auto helpers = j["helpers"].get<std::vector<int>>();
    if (c.d != 0) {
      const std::uint64_t q = c.d - c.k + 1;
      EXPECT_EQ(helpers.size(), c.d);
      EXPECT_EQ(j["bytes_read"], c.d * c.stripe_unit / q * stripes) << "lost " << lost;
    } else {
      EXPECT_EQ(helpers.size(), c.k);
      EXPECT_EQ(j["bytes_read"], c.k * c.stripe_unit * stripes);
      // Whole chunks of consecutive stripes merge into one extent per helper.
      EXPECT_EQ(j["read_ops"], c.k);
    }
    EXPECT_EQ(std::count(helpers.begin(), helpers.end(), static_cast<int>(lost)), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Profiles, Repair,
    ::testing::Values(RepairCase{"plugin=clay,k=4,m=2,d=5", 4096, 4, 2, 5},
                      RepairCase{"plugin=clay,k=4,m=3,d=5", 4096, 4, 3, 5},
                      RepairCase{"plugin=clay,k=6,m=3,d=7,scalar_mds=isa", 6144, 6, 3, 7},
                      RepairCase{"plugin=clay,k=10,m=4,d=13", 8192, 10, 4, 13},
                      RepairCase{"plugin=jerasure,technique=reed_sol_van,k=4,m=2", 4096, 4, 2, 0},
                      RepairCase{"plugin=isa,technique=cauchy,k=6,m=3", 4096, 6, 3, 0}),
    [](const ::testing::TestParamInfo<RepairCase>& info) {
      std::string name = std::to_string(info.index);
      for (char ch : info.param.profile)
        name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
      return name;
    });

// LRC: one lost shard is rebuilt from the l other shards of its local group, not from k; with a
// second shard of the group missing too, the global layer reads k.
TEST(RepairLrc, OneLossReadsItsLocalGroupOnly) {
  struct Lrc {
    const char* profile;
    unsigned k, m, l;
  };
  for (const Lrc& c :
       {Lrc{"plugin=lrc,k=4,m=2,l=3", 4, 2, 3}, Lrc{"plugin=lrc,k=8,m=4,l=3", 8, 4, 3},
        Lrc{"plugin=lrc,k=2,m=2,l=2", 2, 2, 2}}) {
    SCOPED_TRACE(c.profile);
    TempDir dir;
    const fs::path obj = dir / "obj";
    constexpr std::size_t su = 4096;
    WriteBytes(obj, RandomBytes(su * c.k * 7 + 1234, 5));  // 8 stripes
    ASSERT_EQ(RunTool({"encode", c.profile, "4096", "0", obj.string()}).exit_code, 0);
    const unsigned groups = (c.k + c.m) / c.l;
    const unsigned n = c.k + c.m + groups;
    ASSERT_TRUE(fs::exists(obj.string() + "." + std::to_string(n - 1)));
    ASSERT_FALSE(fs::exists(obj.string() + "." + std::to_string(n)));
    for (unsigned lost = 0; lost < n; ++lost) {
      const std::string lost_path = obj.string() + "." + std::to_string(lost);
      const auto before = ReadBytes(lost_path);
      fs::remove(lost_path);
      ToolRun r = RunTool({"repair", c.profile, "4096", std::to_string(lost), obj.string()});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      ASSERT_EQ(ReadBytes(lost_path), before) << "shard " << lost << " rebuilt wrongly";
      auto j = nlohmann::json::parse(r.out);
      const auto helpers = j["helpers"].get<std::vector<int>>();
      ASSERT_EQ(helpers.size(), c.l) << r.out;
      for (int h : helpers) EXPECT_EQ(h / (c.l + 1), static_cast<int>(lost / (c.l + 1))) << r.out;
      // l whole chunks of 8 stripes, one extent per helper: 3 x 4096 x 8 = 98304 for l=3.
      EXPECT_EQ(j["bytes_read"], std::uint64_t{c.l} * su * 8) << r.out;
      EXPECT_EQ(j["read_ops"], c.l);
    }
    // Shard 0 lost with shard 1 of its group: the global layer reads k chunks.
    const auto shard0 = ReadBytes(obj.string() + ".0");
    fs::remove(obj.string() + ".0");
    fs::remove(obj.string() + ".1");
    ToolRun r = RunTool({"repair", c.profile, "4096", "0", obj.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(ReadBytes(obj.string() + ".0"), shard0);
    EXPECT_EQ(nlohmann::json::parse(r.out)["bytes_read"], std::uint64_t{c.k} * su * 8) << r.out;
  }
}

// SHEC k=4 m=3 c=2 (parities 4 = 1111, 5 = 1100, 6 = 0011): a lost data chunk is rebuilt from
// one other data chunk and the narrow parity over both, 2 chunks instead of RS's k = 4.
TEST(ShecRepair, SingleLossReadsTheShingleNotK) {
  ASSERT_TRUE(PluginBuilt("shec")) << "libec_shec.so is not built";
  const std::string profile = "plugin=shec,k=4,m=3,c=2";
  const std::size_t su = 4096;
  TempDir dir;
  const fs::path obj = dir / "obj";
  WriteBytes(obj, RandomBytes(su * 4 * 5 + 77, std::random_device{}()));  // 6 stripes
  ASSERT_EQ(RunTool({"encode", profile, std::to_string(su), "0", obj.string()}).exit_code, 0);
  const std::map<int, std::vector<int>> expected = {{0, {1, 5}}, {1, {0, 5}},       {2, {3, 6}},
                                                    {3, {2, 6}}, {4, {0, 1, 2, 3}}, {5, {0, 1}},
                                                    {6, {2, 3}}};
  for (const auto& [lost, helpers] : expected) {
    const std::string lost_path = obj.string() + "." + std::to_string(lost);
    const std::vector<std::byte> original = ReadBytes(lost_path);
    fs::remove(lost_path);
    ToolRun r =
        RunTool({"repair", profile, std::to_string(su), std::to_string(lost), obj.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(ReadBytes(lost_path), original) << "shard " << lost << " rebuilt wrongly";
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["helpers"].get<std::vector<int>>(), helpers) << "lost " << lost;
    EXPECT_EQ(j["bytes_read"], helpers.size() * su * 6) << "lost " << lost;
  }
}

class RepairErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteBytes(dir_ / "obj", RandomBytes(100000, 7));
    ASSERT_EQ(RunTool({"encode", kProfile, "4096", "0", obj()}).exit_code, 0);
  }
  std::string obj() const { return (dir_ / "obj").string(); }
  static constexpr const char* kProfile = "plugin=jerasure,technique=reed_sol_van,k=4,m=2";
  TempDir dir_;
};

TEST_F(RepairErrors, TooFewHelperFiles) {
  for (int i : {0, 1, 2}) fs::remove(obj() + "." + std::to_string(i));
  ToolRun r = RunTool({"repair", kProfile, "4096", "0", obj()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot repair shard 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("obj.1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(obj() + ".0"));
}

TEST_F(RepairErrors, TruncatedHelperFile) {
  const std::string lost = obj() + ".5";
  const auto before = ReadBytes(lost);
  fs::resize_file(obj() + ".2", 5000);
  ToolRun r = RunTool({"repair", kProfile, "4096", "5", obj()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("obj.2"), std::string::npos) << r.err;
  // The existing target is left alone, and no temporary file stays behind.
  EXPECT_EQ(ReadBytes(lost), before);
  for (const auto& name : ListDir(dir_.path()))
    EXPECT_EQ(name.find("tmp"), std::string::npos) << name;
}

TEST_F(RepairErrors, BadArguments) {
  ToolRun r = RunTool({"repair", kProfile, "4096", "6", obj()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
  r = RunTool({"repair", kProfile, "4096", "1,2", obj()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exactly one shard"), std::string::npos) << r.err;
  r = RunTool({"repair", "plugin=clay,k=4,m=2", "4000", "1", obj()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("invalid stripe unit: the plugin rounds it up to"), std::string::npos)
      << r.err;
  r = RunTool({"repair", "plugin=clay,k=4,m=2,d=7", "4096", "1", obj()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("must be within"), std::string::npos) << r.err;
  r = RunTool({"repair", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("lost_shard"), std::string::npos);
}

}  // namespace
}  // namespace ectest
