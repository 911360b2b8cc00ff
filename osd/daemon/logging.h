// Logging setup for ec-osd: one spdlog logger, shared by the daemon and the messenger.
//
// Lines look like
//   2024-05-01T12:00:00.123456 info  [12345] osd.0: listening on 127.0.0.1:6800
// (local time with microseconds, level, thread id, logger name, message). The logger writes to
// stderr or appends to a file. A file logger flushes every line of warn and above at once, and
// everything else at least every LogOptions::flush_interval (1 s) from a thread of its own: lines
// reach the file as they happen, at most that late, and a kill -9 loses at most that much.
//
// Thread safety: the returned logger is thread-safe (spdlog's _mt sinks). MakeLogger may be
// called from any thread; with make_default it replaces spdlog's process-wide default logger.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/common.h>

#include "common/status.h"

namespace spdlog {
class logger;
}

namespace ec {
struct OsdConfig;
}  // namespace ec

namespace ec::osd::daemon {

struct LogOptions {
  std::string name = "ec-osd";  // shown in every line
  std::string file;  // empty: stderr; otherwise appended to (created, with missing parent dirs)
  std::string level = "info";  // see ParseLogLevel
  bool make_default = false;   // also install as spdlog's default logger
  // A file logger flushes at least this often (at least 1 ms).
  std::chrono::milliseconds flush_interval{1000};
};

// "trace", "debug", "info", "warn" (or "warning"), "error" (or "err"), "critical", "off"; any
// case. Errors: EINVAL "unknown log level 'x' (trace|debug|info|warn|error|critical|off)".
Result<spdlog::level::level_enum> ParseLogLevel(std::string_view name);

// A new logger (not registered in spdlog's registry by name, so several may coexist in tests).
// Errors: EINVAL for a bad level; the open errno with "cannot open log file PATH: <reason>".
Result<std::shared_ptr<spdlog::logger>> MakeLogger(const LogOptions& options);

// MakeLogger with name "osd.<id>", the config's log_file and log_level, make_default = true.
Result<std::shared_ptr<spdlog::logger>> MakeOsdLogger(const OsdConfig& config);

}  // namespace ec::osd::daemon
