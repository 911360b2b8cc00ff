#include "osd/daemon/logging.h"

#include <fmt/format.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "common/config.h"
#include "common/thread_name.h"

namespace ec::osd::daemon {
namespace {

constexpr const char* kPattern = "%Y-%m-%dT%H:%M:%S.%f %-5l [%t] %n: %v";

// A logger that flushes itself every `every` from its own thread, so that lines below flush_on's
// level reach the file within that time instead of when the stdio buffer fills (or at exit).
// spdlog's flush_every serves only loggers in its registry, which these are not (see MakeLogger).
class PeriodicFlushLogger final : public spdlog::logger {
 public:
  PeriodicFlushLogger(std::string name, spdlog::sink_ptr sink, std::chrono::milliseconds every)
      : spdlog::logger(std::move(name), std::move(sink)) {
    flusher_ = std::thread([this, every] {
      NameCurrentThread("log-flush");
      std::unique_lock lock(mu_);
      while (!cv_.wait_for(lock, every, [this] { return stop_; })) {
        lock.unlock();
        flush();
        lock.lock();
      }
    });
  }
  ~PeriodicFlushLogger() override {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    flusher_.join();
    flush();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread flusher_;
};

}  // namespace

Result<spdlog::level::level_enum> ParseLogLevel(std::string_view name) {
  std::string n(name);
  std::transform(n.begin(), n.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  using spdlog::level::level_enum;
  if (n == "trace") return level_enum::trace;
  if (n == "debug") return level_enum::debug;
  if (n == "info") return level_enum::info;
  if (n == "warn" || n == "warning") return level_enum::warn;
  if (n == "error" || n == "err") return level_enum::err;
  if (n == "critical") return level_enum::critical;
  if (n == "off") return level_enum::off;
  return Status::Invalid(
      fmt::format("unknown log level '{}' (trace|debug|info|warn|error|critical|off)", name));
}

Result<std::shared_ptr<spdlog::logger>> MakeLogger(const LogOptions& options) {
  Result<spdlog::level::level_enum> level = ParseLogLevel(options.level);
  if (!level.ok()) return level.status();
  std::shared_ptr<spdlog::logger> logger;
  errno = 0;
  try {
    if (options.file.empty()) {
      logger = std::make_shared<spdlog::logger>(options.name,
                                                std::make_shared<spdlog::sinks::stderr_sink_mt>());
    } else {
      auto sink =
          std::make_shared<spdlog::sinks::basic_file_sink_mt>(options.file, /*truncate=*/false);
      logger = std::make_shared<PeriodicFlushLogger>(
          options.name, std::move(sink),
          std::max(options.flush_interval, std::chrono::milliseconds(1)));
    }
  } catch (const spdlog::spdlog_ex& e) {
    // spdlog's message carries the reason but its errno field is not public in every version.
    const int err = errno != 0 ? errno : EIO;
    return Status::Error(err, fmt::format("cannot open log file {}: {}", options.file, e.what()));
  } catch (const std::exception& e) {
    return Status::IOError(fmt::format("cannot set up logging: {}", e.what()));
  }
  logger->set_pattern(kPattern);
  logger->set_level(*level);
  logger->flush_on(spdlog::level::warn);
  if (options.make_default) spdlog::set_default_logger(logger);
  return logger;
}

Result<std::shared_ptr<spdlog::logger>> MakeOsdLogger(const OsdConfig& config) {
  LogOptions options;
  options.name = fmt::format("osd.{}", config.osd_id);
  options.file = config.log_file;
  options.level = config.log_level;
  options.make_default = true;
  return MakeLogger(options);
}

}  // namespace ec::osd::daemon
