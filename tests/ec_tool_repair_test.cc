// `ec-tool repair`: rebuilds a lost shard byte-identically and reads exactly what the plan needs.
// CLAY reads d helpers x chunk_size / q per stripe; RS plugins read k whole chunks.
#include <gtest/gtest.h>

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
