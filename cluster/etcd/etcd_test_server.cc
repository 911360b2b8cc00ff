#include "cluster/etcd/etcd_test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace ec::etcd::testing {

namespace {
constexpr const char* kEtcd = "/usr/bin/etcd";
}

int EtcdServer::BindLoopback(bool listen, std::uint16_t* port) {
  *port = 0;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      (listen && ::listen(fd, 16) != 0) ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

std::uint16_t EtcdServer::FreePort() {
  std::uint16_t port = 0;
  const int fd = BindLoopback(false, &port);
  if (fd >= 0) ::close(fd);
  return port;
}

EtcdServer::~EtcdServer() {
  Kill();
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

ClientOptions EtcdServer::client_options() const {
  ClientOptions o;
  o.endpoints = {endpoint()};
  o.timeout = std::chrono::milliseconds(2000);
  return o;
}

Status EtcdServer::Start() {
  if (::access(kEtcd, X_OK) != 0) {
    return Status::NotFound(std::string(kEtcd) + " not found (apt-get install etcd-server)");
  }
  std::string tmpl = (std::filesystem::temp_directory_path() / "ec-etcd-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp failed");
  dir_ = tmpl;
  // A port found free can be taken by another process (another test's etcd) before etcd binds
  // it; etcd then exits at start, and new ports are tried.
  Status st;
  for (int attempt = 0; attempt < 5; ++attempt) {
    client_port_ = FreePort();
    peer_port_ = FreePort();
    while (peer_port_ == client_port_) peer_port_ = FreePort();
    if (client_port_ == 0 || peer_port_ == 0) return Status::IOError("no free loopback port");
    st = Launch();
    if (st.ok() || st.code() != EADDRINUSE) return st;
    std::filesystem::remove_all(dir_ + "/data");
  }
  return st;
}

Status EtcdServer::Restart() {
  Kill();
  return Launch();
}

void EtcdServer::Kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

Status EtcdServer::Launch() {
  const std::string client_url = "http://127.0.0.1:" + std::to_string(client_port_);
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(peer_port_);
  std::vector<std::string> args = {kEtcd,
                                   "--name=test",
                                   "--data-dir=" + dir_ + "/data",
                                   "--listen-client-urls=" + client_url,
                                   "--advertise-client-urls=" + client_url,
                                   "--listen-peer-urls=" + peer_url,
                                   "--initial-advertise-peer-urls=" + peer_url,
                                   "--initial-cluster=test=" + peer_url,
                                   "--log-level=warn",
                                   "--logger=zap"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = dir_ + "/etcd.log";
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return Status::IOError("fork failed");
  if (pid == 0) {
    // Dies with the test, even when the test is killed.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execv(kEtcd, argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  ClientOptions o = client_options();
  o.timeout = std::chrono::milliseconds(500);
  Client client(o);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      std::ifstream in(log);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("address already in use") != std::string::npos)
        return Status::Error(EADDRINUSE, "etcd's ports were taken; see " + log);
      return Status::IOError("etcd exited at start; see " + log);
    }
    if (client.Range(RangeRequest{"probe", {}, 0, 0}).ok()) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Kill();
  return Status::Error(ETIMEDOUT, "etcd did not answer within 20 s; see " + log);
}

}  // namespace ec::etcd::testing
