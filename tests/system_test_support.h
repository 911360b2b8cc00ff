// Helpers shared by the whole-system tests: running build/bin/ec-tool, temporary folders, the
// shared data sets and which plugins are built.
//
// Data and plugin locations come from the environment, with build-time defaults:
//   ECSTORE_SHARED  the shared data folder (ceph-erasure-code-corpus, ceph-vectors): SharedDir()
//                   of tests/support/test_env.h, the one place every test finds it;
//   EC_PLUGIN_DIR   the folder of libec_<plugin>.so; default this build's lib/.
// A missing data set is a test failure, never a skip.
#pragma once

#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/test_env.h"

namespace ectest {

namespace fs = std::filesystem;

struct ToolRun {
  int exit_code = -1;  // the exit status, or 128 + signal number if the tool was killed
  std::string out;
  std::string err;
};

// Runs build/bin/ec-tool with `args` (not including the program name). `env` entries are set
// (or, with an empty value, removed) in the child's environment only.
ToolRun RunTool(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env = {});
// Starts build/bin/ec-tool with `args` in the background (output discarded); WaitTool() reaps it
// and returns its exit status like RunTool (128 + signal number when killed).
int SpawnTool(const std::vector<std::string>& args);
int WaitTool(int pid);
// The ec-tool command line as one printable string, for failure messages.
std::string Describe(const std::vector<std::string>& args);

// A fresh folder under /tmp, removed with everything in it when the object goes away (kept, and
// its path printed, when ECSTORE_KEEP_TEST_DIRS is set and not "0": the daemons' logs of a failed
// cluster test).
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  // Keeps the folder (its path printed) when the object goes away: a failed test's logs.
  void Keep() { keep_ = true; }

 private:
  fs::path path_;
  bool keep_ = false;
};

// $EC_PLUGIN_DIR, else this build's lib/ folder.
fs::path PluginDir();
// True when PluginDir() holds libec_<name>.so.
bool PluginBuilt(const std::string& name);
// Plugins every build must provide: their cases always run and must pass. The other plugins'
// cases run once their shared object exists and are reported as "plugin not available yet"
// before that.
bool PluginRequired(const std::string& name);

// Sorted names of the sub-folders of `dir` (empty if it does not exist).
std::vector<std::string> SubFolders(const fs::path& dir);
// Names of every entry of `dir`.
std::set<std::string> ListDir(const fs::path& dir);

std::vector<std::byte> ReadBytes(const fs::path& path);
std::string ReadText(const fs::path& path);  // whole file, trailing whitespace removed
void WriteBytes(const fs::path& path, const std::vector<std::byte>& bytes);
void WriteText(const fs::path& path, const std::string& text);
// `count` pseudo-random bytes from `seed`.
std::vector<std::byte> RandomBytes(std::size_t count, unsigned seed);

}  // namespace ectest
