// Command lines, the same in every program. CLI11 does the parsing; this adds the two rules it does
// not have: a usage error exits 1 (CLI11's own exit codes are 105-109), and --version prints
// "<program> <ecstore version>". Header-only; ECSTORE_VERSION comes from the build
// (CMakeLists.txt). Thread safety: call from main().
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#ifndef ECSTORE_VERSION
#error "ECSTORE_VERSION must be defined by the build (the top-level CMakeLists.txt)"
#endif

namespace ec::cli {

inline constexpr const char* kVersion = ECSTORE_VERSION;

// --version prints "<program> <version>" and exits 0 (through Parse).
inline void AddVersionFlag(CLI::App& app, const std::string& program) {
  app.set_version_flag("--version", program + " " + kVersion);
}

// Parses argv. Returns nothing when the program should go on; otherwise the status to exit with,
// after CLI11 has printed its text: 0 for --help and --version, 1 for a usage error.
inline std::optional<int> Parse(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 1;
  }
  return std::nullopt;
}

}  // namespace ec::cli
