#include "cluster/etcd/etcd_test_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "cluster/etcd/etcd_json.h"

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

bool EtcdServer::running() const {
  if (members_.empty()) return false;
  for (const Member& m : members_) {
    if (m.pid <= 0) return false;
  }
  return true;
}

Endpoint EtcdServer::member_endpoint(int i) const {
  return Endpoint{"127.0.0.1", members_.empty()
                                   ? std::uint16_t{0}
                                   : members_.at(static_cast<std::size_t>(i)).client_port};
}

std::string EtcdServer::endpoints_text() const {
  std::string out;
  for (int i = 0; i < members(); ++i) {
    out += (i == 0 ? "http://" : ",http://") + member_endpoint(i).ToString();
  }
  return out;
}

ClientOptions EtcdServer::client_options() const {
  ClientOptions o;
  for (int i = 0; i < members(); ++i) o.endpoints.push_back(member_endpoint(i));
  if (o.endpoints.empty()) o.endpoints.push_back(member_endpoint(0));
  o.timeout = std::chrono::milliseconds(2000);
  return o;
}

std::string EtcdServer::DataDir(int i) const {
  return dir_ + (i == 0 ? std::string("/data") : "/data." + std::to_string(i));
}

std::string EtcdServer::member_log(int i) const {
  return dir_ + (i == 0 ? std::string("/etcd.log") : "/etcd." + std::to_string(i) + ".log");
}

Status EtcdServer::Start(int members) {
  if (::access(kEtcd, X_OK) != 0) {
    return Status::NotFound(std::string(kEtcd) + " not found (apt-get install etcd-server)");
  }
  if (members < 1 || members > 9) return Status::Invalid("etcd members must be 1..9");
  std::string tmpl = (std::filesystem::temp_directory_path() / "ec-etcd-XXXXXX").string();
  if (::mkdtemp(tmpl.data()) == nullptr) return Status::IOError("mkdtemp failed");
  dir_ = tmpl;
  // A port found free can be taken by another process (another test's etcd) before etcd binds
  // it; etcd then exits at start, and new ports are tried.
  Status st;
  for (int attempt = 0; attempt < 5; ++attempt) {
    members_.assign(static_cast<std::size_t>(members), Member{});
    std::vector<std::uint16_t> taken;
    auto pick = [&taken]() {
      std::uint16_t p = FreePort();
      while (p != 0 && std::find(taken.begin(), taken.end(), p) != taken.end()) p = FreePort();
      taken.push_back(p);
      return p;
    };
    for (Member& m : members_) {
      m.client_port = pick();
      m.peer_port = pick();
      if (m.client_port == 0 || m.peer_port == 0) return Status::IOError("no free loopback port");
    }
    st = Status::OK();
    for (int i = 0; i < members && st.ok(); ++i) st = Spawn(i);
    if (st.ok()) st = WaitAnswer(std::chrono::seconds(20));
    if (st.ok() || st.code() != EADDRINUSE) return st;
    Kill();
    for (int i = 0; i < members; ++i) std::filesystem::remove_all(DataDir(i));
  }
  return st;
}

Status EtcdServer::Restart() {
  for (int i = 0; i < members(); ++i) {
    if (member_running(i)) continue;
    EC_RETURN_IF_ERROR(Spawn(i));
  }
  return WaitAnswer(std::chrono::seconds(20));
}

void EtcdServer::Kill() {
  for (int i = 0; i < members(); ++i) KillMember(i);
}

void EtcdServer::KillMember(int i) {
  Member& m = members_.at(static_cast<std::size_t>(i));
  if (m.pid <= 0) return;
  ::kill(m.pid, SIGKILL);
  int status = 0;
  while (::waitpid(m.pid, &status, 0) < 0 && errno == EINTR) {
  }
  m.pid = -1;
}

Status EtcdServer::Spawn(int i) {
  Member& m = members_.at(static_cast<std::size_t>(i));
  std::string cluster;
  for (int j = 0; j < members(); ++j) {
    cluster += (j == 0 ? "m" : ",m") + std::to_string(j) + "=http://127.0.0.1:" +
               std::to_string(members_[static_cast<std::size_t>(j)].peer_port);
  }
  const std::string client_url = "http://127.0.0.1:" + std::to_string(m.client_port);
  const std::string peer_url = "http://127.0.0.1:" + std::to_string(m.peer_port);
  std::vector<std::string> args = {
      kEtcd, "--name=m" + std::to_string(i), "--data-dir=" + DataDir(i),
      "--listen-client-urls=" + client_url, "--advertise-client-urls=" + client_url,
      "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
      "--initial-cluster=" + cluster,
      // Tests' clusters on this machine never take each other's
      // members for their own.
      "--initial-cluster-token=" + dir_, "--log-level=warn", "--logger=zap"};
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = member_log(i);
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
  m.pid = pid;
  return Status::OK();
}

Status EtcdServer::Exited(int i, int /*status*/) {
  members_.at(static_cast<std::size_t>(i)).pid = -1;
  const std::string log = member_log(i);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  if (text.str().find("address already in use") != std::string::npos)
    return Status::Error(EADDRINUSE, "etcd's ports were taken; see " + log);
  return Status::IOError("etcd exited at start; see " + log);
}

Status EtcdServer::WaitAnswer(std::chrono::milliseconds limit) {
  ClientOptions o = client_options();
  o.timeout = std::chrono::milliseconds(500);
  Client client(o);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  Status last;
  while (std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < members(); ++i) {
      const pid_t pid = members_[static_cast<std::size_t>(i)].pid;
      int status = 0;
      if (pid > 0 && ::waitpid(pid, &status, WNOHANG) == pid) {
        Status exited = Exited(i, status);
        Kill();
        return exited;
      }
    }
    auto r = client.Range(RangeRequest{"probe", {}, 0, 0});
    // EACCES: etcd's auth is on (EnableAuth) and the probe names no user; etcd answered.
    if (r.ok() || r.status().code() == EACCES) return Status::OK();
    last = r.status();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  Kill();
  return Status::Error(ETIMEDOUT, "etcd did not answer within " + std::to_string(limit.count()) +
                                      " ms (" + last.message() + "); see " + member_log(0));
}

Status EtcdServer::StartMember(int i) {
  if (member_running(i)) return Status::OK();
  EC_RETURN_IF_ERROR(Spawn(i));
  const Member& m = members_.at(static_cast<std::size_t>(i));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    int status = 0;
    if (::waitpid(m.pid, &status, WNOHANG) == m.pid) return Exited(i, status);
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return Status::IOError("socket failed");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(m.client_port);
    const bool open = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
    ::close(fd);
    if (open) return Status::OK();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return Status::Error(ETIMEDOUT, "etcd member " + std::to_string(i) +
                                      " did not open its client port in 20 s; see " +
                                      member_log(i));
}

Status EtcdServer::WaitQuorum(std::chrono::milliseconds limit) const {
  ClientOptions o = client_options();
  o.timeout = std::chrono::milliseconds(500);
  Client client(o);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  Status last = Status::Error(ETIMEDOUT, "not tried");
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = client.Range(RangeRequest{"probe", {}, 0, 0});
    if (r.ok() || r.status().code() == EACCES) return Status::OK();
    last = r.status();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Status::Error(ETIMEDOUT, "etcd has no quorum after " + std::to_string(limit.count()) +
                                      " ms: " + last.message());
}

Status EtcdServer::EnableAuth(const std::string& root_password,
                              const std::vector<TestUser>& users) {
  const Client client(client_options());
  using nlohmann::json;
  auto call = [&client](std::string_view path, const json& body) -> Status {
    Result<json> r = client.Call(path, body, false);
    return r.ok() ? Status::OK() : r.status().WithPrefix(std::string(path));
  };
  EC_RETURN_IF_ERROR(call("/v3/auth/user/add", {{"name", "root"}, {"password", root_password}}));
  EC_RETURN_IF_ERROR(call("/v3/auth/role/add", {{"name", "root"}}));
  EC_RETURN_IF_ERROR(call("/v3/auth/user/grant", {{"user", "root"}, {"role", "root"}}));
  for (const TestUser& u : users) {
    EC_RETURN_IF_ERROR(call("/v3/auth/user/add", {{"name", u.name}, {"password", u.password}}));
    EC_RETURN_IF_ERROR(call("/v3/auth/role/add", {{"name", u.name}}));
    const json perm{{"permType", u.write ? "READWRITE" : "READ"},
                    {"key", gw::Base64Encode(u.prefix)},
                    {"range_end", gw::Base64Encode(PrefixEnd(u.prefix))}};
    EC_RETURN_IF_ERROR(call("/v3/auth/role/grant", {{"name", u.name}, {"perm", perm}}));
    EC_RETURN_IF_ERROR(call("/v3/auth/user/grant", {{"user", u.name}, {"role", u.name}}));
  }
  return call("/v3/auth/enable", json::object());
}

Result<int> EtcdServer::Leader() const {
  // What each member says: its own id, and its leader's.
  std::vector<std::string> ids(members_.size()), leaders(members_.size());
  Status last = Status::Error(EAGAIN, "no etcd member runs");
  for (int i = 0; i < members(); ++i) {
    if (!member_running(i)) continue;
    ClientOptions o;
    o.endpoints = {member_endpoint(i)};
    o.timeout = std::chrono::milliseconds(1000);
    auto reply = Client(o).Call("/v3/maintenance/status", nlohmann::json::object(), true);
    if (!reply.ok()) {
      last = reply.status();
      continue;
    }
    const nlohmann::json& j = *reply;
    auto header = j.find("header");
    if (header == j.end() || !header->is_object() || !header->contains("member_id") ||
        !(*header)["member_id"].is_string()) {
      last = Status::Error(
          EPROTO, "status of etcd member " + std::to_string(i) + " without header.member_id");
      continue;
    }
    ids[static_cast<std::size_t>(i)] = (*header)["member_id"].get<std::string>();
    if (auto l = j.find("leader"); l != j.end() && l->is_string()) {
      leaders[static_cast<std::size_t>(i)] = l->get<std::string>();
    }
  }
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (!ids[i].empty() && ids[i] == leaders[i]) return static_cast<int>(i);
  }
  return Status::Retryable(EAGAIN, "no running etcd member leads (" + last.message() + ")");
}

}  // namespace ec::etcd::testing
