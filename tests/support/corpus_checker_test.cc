// The corpus checker itself: a folder made by `ec-tool non-regression --create` passes, and each
// way a corpus copy can go wrong is a failure with a message that names it.
#include "tests/support/corpus_checker.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ec/plugin.h"
#include "plugins/jerasure/jerasure_plugin.h"
#include "tests/system_test_support.h"
#include "tools/ec_tool/non_regression.h"

namespace ectest {
namespace {

namespace tool = ec::tools::ec_tool;

class CorpusCheckerTest : public ::testing::Test {
 protected:
  void SetUp() override { ec::RegisterJerasureBuiltin(); }

  // A fresh corpus folder of jerasure reed_sol_van k=3 m=2 (5 chunks) under dir_.
  fs::path MakeFolder(std::vector<std::string> parameters = {"technique=reed_sol_van", "k=3",
                                                             "m=2"}) {
    tool::NonRegressionOptions options;
    options.base = dir_.path().string();
    options.plugin = "jerasure";
    options.stripe_width = 4651;
    options.parameters = std::move(parameters);
    options.create = true;
    std::ostringstream warnings;
    ec::Status s = tool::CreateNonRegressionFolder(options, &warnings);
    EXPECT_TRUE(s.ok()) << s.ToString();
    return tool::NonRegressionDirectory(options);
  }

  static ec::Status Check(const fs::path& folder, bool rebuild_from_plans = false) {
    return CheckCorpusFolder(folder, "", rebuild_from_plans);
  }

  TempDir dir_;
};

TEST_F(CorpusCheckerTest, AFolderTheToolMadePasses) {
  const fs::path folder = MakeFolder();
  EXPECT_TRUE(Check(folder).ok()) << Check(folder).ToString();
  EXPECT_TRUE(Check(folder, true).ok()) << Check(folder, true).ToString();
}

TEST_F(CorpusCheckerTest, AChangedChunkEncodesDifferently) {
  const fs::path folder = MakeFolder();
  std::vector<std::byte> chunk = ReadBytes(folder / "1");
  chunk[7] ^= std::byte{1};
  WriteBytes(folder / "1", chunk);
  const ec::Status s = Check(folder);
  EXPECT_EQ(s.code(), EIO) << s.ToString();
  EXPECT_NE(s.message().find("chunk 1 encodes differently"), std::string::npos) << s.ToString();
}

TEST_F(CorpusCheckerTest, ShortContentFails) {
  const fs::path folder = MakeFolder();
  std::vector<std::byte> content = ReadBytes(folder / "content");
  content.pop_back();
  WriteBytes(folder / "content", content);
  const ec::Status s = Check(folder);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("content has 4650 bytes"), std::string::npos) << s.ToString();
}

TEST_F(CorpusCheckerTest, AMissingChunkFileFails) {
  const fs::path folder = MakeFolder();
  fs::remove(folder / "4");
  const ec::Status s = Check(folder);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("chunk file 4 is missing"), std::string::npos) << s.ToString();
}

TEST_F(CorpusCheckerTest, AnExtraChunkFileFails) {
  const fs::path folder = MakeFolder();
  fs::copy_file(folder / "0", folder / "5");
  const ec::Status s = Check(folder);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("more chunk files"), std::string::npos) << s.ToString();
}

TEST_F(CorpusCheckerTest, AParameterTheToolWouldIgnoreFails) {
  const fs::path folder = MakeFolder({"technique=reed_sol_van", "k=3", "m=2", "bogus"});
  const ec::Status s = Check(folder);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("bogus ignored"), std::string::npos) << s.ToString();
}

TEST(CorpusChecker, AMissingSetIsAFailureNotASkip) {
  const CorpusPart part{"no-such-set", "jerasure", 1, {}};
  ::testing::TestPartResultArray failures;
  {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    ExpectCorpusPasses(part, "");
  }
  ASSERT_EQ(failures.size(), 1);
  EXPECT_TRUE(failures.GetTestPartResult(0).failed());
  EXPECT_NE(std::string(failures.GetTestPartResult(0).message()).find("corpus is missing"),
            std::string::npos);
}

}  // namespace
}  // namespace ectest
