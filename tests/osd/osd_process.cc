#include "tests/osd/osd_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ectest {
namespace {

int DecodeWaitStatus(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

std::string ReadAll(int fd) {
  std::string s;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      s.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  return s;
}

// fork + exec of `program` with stdout to a pipe (returned in *out_fd) and stderr to `err_path`.
pid_t Spawn(const std::string& program, const std::vector<std::string>& args, int* out_fd,
            const fs::path& err_path) {
  // Everything the child needs is made before the fork: between fork and exec the child of a
  // multi-threaded process (the test's etcd client, its workers) may only make async-signal-safe
  // calls. Allocating there deadlocked once, under ASan, on an allocator lock another thread held
  // at the fork: the child never reached exec and the test hung until ctest's timeout.
  std::string prog = program;
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  argv.push_back(prog.data());
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string err_file = err_path.string();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return -1;
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // A test that dies without its destructors (a crash, ctest's kill at the timeout) must not
    // leave daemons behind: the kernel kills the child with its parent. The signal follows the
    // forking thread, so daemons are started from threads that outlive them (osd_process.h).
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(fds[1], 1);
    int err = ::open(err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) ::dup2(err, 2);
    ::execv(prog.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return -1;
  }
  *out_fd = fds[0];
  return pid;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

ProcessResult RunOsdTool(const std::vector<std::string>& args) {
  return RunProgram(EC_OSD_PATH, args);
}

ProcessResult RunProgram(const std::string& program, const std::vector<std::string>& args) {
  char tmpl[] = "/tmp/ec-osd-err.XXXXXX";
  int tmp = ::mkstemp(tmpl);
  if (tmp >= 0) ::close(tmp);
  ProcessResult r;
  int out = -1;
  pid_t pid = Spawn(program, args, &out, tmpl);
  if (pid < 0) return r;
  r.out = ReadAll(out);
  ::close(out);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.exit_code = DecodeWaitStatus(status);
  r.err = Slurp(tmpl);
  ::unlink(tmpl);
  return r;
}

OsdProcess::OsdProcess(fs::path dir, int id) : dir_(std::move(dir)), id_(id) {
  if (!fs::exists(conf())) {
    std::ofstream c(conf());
    c << "# written by the ec-osd system tests\n"
      << "[global]\n"
      << "osd data = " << dir_.string() << "/osd-$id\n"
      << "bluestore block size = 64M\n"
      << "osd port = 0\n"
      << "osd metrics port = 0\n"
      << "log file = " << dir_.string() << "/osd.$id.log\n"
      << "log level = info\n";
  }
}

OsdProcess::~OsdProcess() {
  if (pid_ > 0) Kill();
}

std::vector<std::string> OsdProcess::BaseArgs() const {
  return {"-c", conf().string(), "-i", std::to_string(id_)};
}

std::string OsdProcess::Log() const {
  return LogFile() + Slurp(dir_ / ("osd." + std::to_string(id_) + ".stderr"));
}

std::string OsdProcess::LogFile() const {
  return Slurp(dir_ / ("osd." + std::to_string(id_) + ".log"));
}

ProcessResult OsdProcess::Mkfs(const std::vector<std::string>& extra) {
  std::vector<std::string> args = BaseArgs();
  args.push_back("--mkfs");
  args.insert(args.end(), extra.begin(), extra.end());
  return RunOsdTool(args);
}

bool OsdProcess::Start(const std::vector<std::string>& extra) {
  std::vector<std::string> args = BaseArgs();
  args.insert(args.end(), extra.begin(), extra.end());
  pid_ = Spawn(EC_OSD_PATH, args, &out_fd_, dir_ / ("osd." + std::to_string(id_) + ".stderr"));
  if (pid_ < 0) {
    ADD_FAILURE() << "cannot start ec-osd";
    return false;
  }
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (line.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out_fd_, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    char buf[512];
    ssize_t got = ::read(out_fd_, buf, sizeof buf);
    if (got <= 0) break;
    line.append(buf, static_cast<std::size_t>(got));
  }
  auto nl = line.find('\n');
  if (nl != std::string::npos) {
    auto j = nlohmann::json::parse(line.substr(0, nl), nullptr, false);
    if (!j.is_discarded() && j.value("event", "") == "ready") {
      port_ = j.value("port", 0);
      metrics_port_ = j.value("metrics_port", 0);
      return true;
    }
  }
  ADD_FAILURE() << "ec-osd did not get ready; stdout: " << line << "\nlog:\n" << Log();
  Kill();
  return false;
}

int OsdProcess::Wait() {
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  stopped_ = false;
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
  return DecodeWaitStatus(status);
}

int OsdProcess::Terminate() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  if (stopped_) ::kill(pid_, SIGCONT);
  return Wait();
}

int OsdProcess::Exited() {
  if (pid_ <= 0) return -1;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return -1;
  pid_ = -1;
  stopped_ = false;
  if (out_fd_ >= 0) ::close(out_fd_);
  out_fd_ = -1;
  return DecodeWaitStatus(status);
}

bool OsdProcess::Stop() {
  if (pid_ <= 0 || stopped_ || ::kill(pid_, SIGSTOP) != 0) return false;
  stopped_ = true;
  return true;
}

bool OsdProcess::Continue() {
  if (pid_ <= 0 || !stopped_ || ::kill(pid_, SIGCONT) != 0) return false;
  stopped_ = false;
  return true;
}

int OsdProcess::Kill() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGKILL);
  return Wait();
}

std::string HttpGet(std::uint16_t port, const std::string& path, int* status) {
  RawSocket s(port);
  s.SetTimeout(10000);
  if (status) *status = 0;
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  if (!s.connected() || !s.Send(req.data(), req.size())) return {};
  return s.ReadResponse(status);
}

RawSocket::RawSocket(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

void RawSocket::SetTimeout(int ms) {
  if (fd_ < 0) return;
  timeval tv{};
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

RawSocket::~RawSocket() {
  if (fd_ >= 0) ::close(fd_);
}

bool RawSocket::Send(const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::send(fd_, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool RawSocket::ClosedByPeer(int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    char buf[4096];
    ssize_t got = ::recv(fd_, buf, sizeof buf, 0);
    if (got == 0) return true;
    if (got < 0 && errno != EINTR && errno != EAGAIN) return true;
  }
}

std::string RawSocket::ReadResponse(int* status) {
  std::string all = ReadAll(fd_);
  auto sp = all.find(' ');
  if (status && sp != std::string::npos) *status = std::atoi(all.c_str() + sp + 1);
  auto body = all.find("\r\n\r\n");
  return body == std::string::npos ? std::string() : all.substr(body + 4);
}

double MetricValue(const std::string& page, const std::string& sample) {
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line)) {
    if (line.size() > sample.size() && line.compare(0, sample.size(), sample) == 0 &&
        line[sample.size()] == ' ') {
      return std::stod(line.substr(sample.size() + 1));
    }
  }
  return -1;
}

}  // namespace ectest
