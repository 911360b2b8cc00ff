#include "tests/system_test_support.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>

#ifndef EC_TOOL_PATH
#error "EC_TOOL_PATH must name the ec-tool binary"
#endif
#ifndef ECSTORE_BUILD_PLUGIN_DIR
#error "ECSTORE_BUILD_PLUGIN_DIR must name the build's lib folder"
#endif

namespace ectest {

namespace {

std::string Slurp(std::FILE* file) {
  std::string text;
  std::rewind(file);
  char buffer[65536];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) text.append(buffer, n);
  return text;
}

}  // namespace

ToolRun RunTool(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env) {
  ToolRun run;
  std::FILE* out = std::tmpfile();
  std::FILE* err = std::tmpfile();
  if (out == nullptr || err == nullptr) throw std::runtime_error("tmpfile() failed");
  std::vector<std::string> argv_strings = {EC_TOOL_PATH};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  // The child's environment is built here, before the fork: between fork and exec a child of a
  // process with other threads may only make async-signal-safe calls (setenv allocates, and an
  // allocator lock another thread held at the fork would never be released in the child).
  std::map<std::string, std::string> merged;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::size_t eq = entry.find('=');
    if (eq != std::string::npos) merged[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  for (const auto& [name, value] : env) {
    if (value.empty()) {
      merged.erase(name);
    } else {
      merged[name] = value;
    }
  }
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : merged) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  const int out_fd = ::fileno(out);
  const int err_fd = ::fileno(err);

  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(out_fd, 1);
    ::dup2(err_fd, 2);
    ::execve(argv[0], argv.data(), envp.data());
    static constexpr char kFailed[] = "execve of ec-tool failed\n";
    [[maybe_unused]] const ssize_t n = ::write(2, kFailed, sizeof kFailed - 1);
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = Slurp(out);
  run.err = Slurp(err);
  std::fclose(out);
  std::fclose(err);
  return run;
}

int SpawnTool(const std::vector<std::string>& args) {
  std::vector<std::string> argv_strings = {EC_TOOL_PATH};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

int WaitTool(int pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Describe(const std::vector<std::string>& args) {
  std::string text = "ec-tool";
  for (const std::string& a : args) {
    text += a.find(' ') == std::string::npos ? " " + a : " '" + a + "'";
  }
  return text;
}

TempDir::TempDir() {
  std::string pattern = (fs::temp_directory_path() / "ecstore-test.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  const char* keep = std::getenv("ECSTORE_KEEP_TEST_DIRS");
  if (keep_ || (keep != nullptr && *keep != '\0' && std::string(keep) != "0")) {
    std::cerr << (keep_ ? "kept for the failure: " : "ECSTORE_KEEP_TEST_DIRS: kept ")
              << path_.string() << "\n";
    return;
  }
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

fs::path PluginDir() {
  const char* env = std::getenv("EC_PLUGIN_DIR");
  return env != nullptr && *env != '\0' ? fs::path(env) : fs::path(ECSTORE_BUILD_PLUGIN_DIR);
}

bool PluginBuilt(const std::string& name) {
  return fs::exists(PluginDir() / ("libec_" + name + ".so"));
}

bool PluginRequired(const std::string& name) {
  return name == "jerasure" || name == "isa" || name == "lrc" || name == "shec";
}

std::vector<std::string> SubFolders(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::set<std::string> ListDir(const fs::path& dir) {
  std::set<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

std::vector<std::byte> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::vector<std::byte> bytes(fs::file_size(path));
  if (!bytes.empty()) in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!in || in.peek() != std::char_traits<char>::eof()) {
    throw std::runtime_error("cannot read " + path.string() + " whole");
  }
  return bytes;
}

std::string ReadText(const fs::path& path) {
  std::vector<std::byte> bytes = ReadBytes(path);
  std::string text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

void WriteBytes(const fs::path& path, const std::vector<std::byte>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void WriteText(const fs::path& path, const std::string& text) {
  WriteBytes(path,
             std::vector<std::byte>(reinterpret_cast<const std::byte*>(text.data()),
                                    reinterpret_cast<const std::byte*>(text.data()) + text.size()));
}

std::vector<std::byte> RandomBytes(std::size_t count, unsigned seed) {
  std::mt19937 random(seed);
  std::vector<std::byte> bytes(count);
  for (auto& b : bytes) b = static_cast<std::byte>(random() & 0xff);
  return bytes;
}

}  // namespace ectest
