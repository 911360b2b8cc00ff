#include "osd/daemon/logging.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/logger.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "common/config.h"

namespace ec::osd::daemon {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ec_osd_log_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    spdlog::set_default_logger(nullptr);
    std::filesystem::remove_all(dir_);
  }
  std::string ReadFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string dir_;
};

TEST(LogLevel, Names) {
  EXPECT_EQ(*ParseLogLevel("trace"), spdlog::level::trace);
  EXPECT_EQ(*ParseLogLevel("DEBUG"), spdlog::level::debug);
  EXPECT_EQ(*ParseLogLevel("info"), spdlog::level::info);
  EXPECT_EQ(*ParseLogLevel("warn"), spdlog::level::warn);
  EXPECT_EQ(*ParseLogLevel("warning"), spdlog::level::warn);
  EXPECT_EQ(*ParseLogLevel("error"), spdlog::level::err);
  EXPECT_EQ(*ParseLogLevel("critical"), spdlog::level::critical);
  EXPECT_EQ(*ParseLogLevel("off"), spdlog::level::off);
  Result<spdlog::level::level_enum> bad = ParseLogLevel("loud");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "unknown log level 'loud' (trace|debug|info|warn|error|critical|off)");
}

TEST_F(LoggingTest, FileLevelAndPattern) {
  const std::string path = dir_ + "/osd.log";
  { std::ofstream(path) << "earlier line\n"; }
  LogOptions options;
  options.name = "osd.4";
  options.file = path;
  options.level = "info";
  Result<std::shared_ptr<spdlog::logger>> logger = MakeLogger(options);
  ASSERT_TRUE(logger.ok()) << logger.status().message();
  (*logger)->debug("hidden {}", 1);
  (*logger)->info("listening on {}", "127.0.0.1:6800");
  (*logger)->warn("careful");  // flushes
  const std::string text = ReadFile(path);
  EXPECT_THAT(text, HasSubstr("earlier line\n"));  // appended, not truncated
  EXPECT_THAT(text, Not(HasSubstr("hidden")));
  EXPECT_THAT(text,
              ContainsRegex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6} "
                            "info  \\[[0-9]+\\] osd\\.4: listening on 127\\.0\\.0\\.1:6800\n"));
  EXPECT_THAT(text, ContainsRegex("warning \\[[0-9]+\\] osd\\.4: careful\n"));
  EXPECT_NE(spdlog::default_logger_raw(), logger->get());  // make_default was false
}

// Lines below warn reach the file within the flush interval, with no flush call and no exit.
TEST_F(LoggingTest, InfoLinesReachTheFileWithinTheFlushInterval) {
  const std::string path = dir_ + "/osd.log";
  LogOptions options;
  options.file = path;
  options.flush_interval = std::chrono::milliseconds(200);
  Result<std::shared_ptr<spdlog::logger>> logger = MakeLogger(options);
  ASSERT_TRUE(logger.ok()) << logger.status().message();
  (*logger)->info("as it happens");
  const auto t0 = std::chrono::steady_clock::now();
  while (ReadFile(path).find("as it happens") == std::string::npos &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_THAT(ReadFile(path), HasSubstr("as it happens"));
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
}

TEST_F(LoggingTest, FromConfig) {
  Result<OsdConfig> config =
      ParseOsdConfig("[osd]\nlog_file = " + dir_ + "/$name.log\nlog_level = debug\n", "t", 3);
  ASSERT_TRUE(config.ok()) << config.status().message();
  Result<std::shared_ptr<spdlog::logger>> logger = MakeOsdLogger(*config);
  ASSERT_TRUE(logger.ok()) << logger.status().message();
  EXPECT_EQ((*logger)->name(), "osd.3");
  EXPECT_EQ((*logger)->level(), spdlog::level::debug);
  EXPECT_EQ(spdlog::default_logger_raw(), logger->get());
  spdlog::debug("through the default");
  (*logger)->flush();
  EXPECT_THAT(ReadFile(dir_ + "/osd.3.log"), HasSubstr("debug ["));
  EXPECT_THAT(ReadFile(dir_ + "/osd.3.log"), HasSubstr("osd.3: through the default\n"));
}

TEST_F(LoggingTest, Errors) {
  LogOptions options;
  options.file = dir_;  // a directory cannot be opened for appending
  Result<std::shared_ptr<spdlog::logger>> r = MakeLogger(options);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("cannot open log file " + options.file));
  // Missing parent directories are created (spdlog does it).
  options.file = dir_ + "/new/dir/osd.log";
  EXPECT_TRUE(MakeLogger(options).ok());
  EXPECT_TRUE(std::filesystem::exists(options.file));
  options.file = "";
  options.level = "chatty";
  r = MakeLogger(options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), EINVAL);
  // stderr works without a file.
  options.level = "off";
  EXPECT_TRUE(MakeLogger(options).ok());
}

}  // namespace
}  // namespace ec::osd::daemon
