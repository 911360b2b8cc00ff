// EtcdServer (tests only): a real etcd (/usr/bin/etcd, Debian etcd-server) on free loopback
// ports with a temporary data dir: one member, or a cluster of several (three for a quorum that
// survives one member's loss).
//
// Start(n) picks two free ports (client and peer) per member, launches the n members of one
// cluster and waits until a read through them answers (a leader elected). The destructor kills
// them (SIGKILL + waitpid) and removes the data dir, also when a test fails. Kill() and Restart()
// simulate a crash and a restart of the whole etcd on the same ports and data; KillMember(i) and
// StartMember(i) do it to one member, Leader() says which member leads.
//
// EnableAuth turns etcd's users on (etcd_auth.h): a root user and users with a role each, as
// scripts/cluster.sh makes them; set_extra_args adds etcd flags (--auth-token-ttl=1) before Start.
// While auth is on, the server's own probes (Start, Restart, WaitQuorum) take etcd's refusal of a
// request without a user (EACCES) as an answer.
//
// Files: member 0's data in data_dir()/data and its log in data_dir()/etcd.log; member i > 0's in
// data_dir()/data.i and data_dir()/etcd.i.log.
//
// Thread safety: none; the test's thread owns it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::etcd::testing {

class EtcdServer {
 public:
  EtcdServer() = default;
  ~EtcdServer();
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  // Starts `members` (1..9) members of one new cluster. Errors: ENOENT when /usr/bin/etcd is
  // missing, EINVAL for a bad count, EIO when a member exits at start (its log named), ETIMEDOUT
  // when the cluster does not answer in 20 s.
  Status Start(int members = 1);
  // SIGKILL + waitpid of every member; the ports and data dirs stay.
  void Kill();
  // Starts every member that is not running again on its ports and data and waits until the
  // cluster answers (ETIMEDOUT after 20 s).
  Status Restart();

  // Every member runs (a member killed with KillMember makes this false).
  bool running() const;
  int members() const { return static_cast<int>(members_.size()); }
  bool member_running(int i) const { return members_.at(static_cast<std::size_t>(i)).pid > 0; }
  // Member 0's client address (the only one of a one-member etcd).
  Endpoint endpoint() const { return member_endpoint(0); }
  Endpoint member_endpoint(int i) const;
  // Every member's client URL, comma-separated: "http://127.0.0.1:P0,http://127.0.0.1:P1,..."
  // (etcd_endpoints in a config).
  std::string endpoints_text() const;
  // A client of every member (2 s per endpoint).
  ClientOptions client_options() const;
  const std::string& data_dir() const { return dir_; }
  // Member i's log file.
  std::string member_log(int i) const;

  // etcd flags added to every member's command line from the next Start or StartMember on
  // ("--auth-token-ttl=1").
  void set_extra_args(std::vector<std::string> args) { extra_args_ = std::move(args); }

  // One etcd user for EnableAuth: a role of its name granted readwrite (write) or read on the keys
  // starting with `prefix`.
  struct TestUser {
    std::string name;
    std::string password;
    std::string prefix;
    bool write = false;
  };
  // Adds user root (role root) with root_password and each of `users`, then enables etcd's auth,
  // through the JSON gateway (/v3/auth/...). Errors: etcd's (the client's, etcd_client.h).
  Status EnableAuth(const std::string& root_password, const std::vector<TestUser>& users);

  // SIGKILL + waitpid of member i (a no-op when it is not running).
  void KillMember(int i);
  // Launches member i again on its ports and data; returns once its client port accepts
  // connections (it serves requests once it has rejoined a quorum: WaitQuorum). Errors: EIO when
  // it exits (its log named), ETIMEDOUT when its port does not open in 20 s.
  Status StartMember(int i);
  // Waits until a read through the running members succeeds (a leader elected and reachable).
  // Errors: ETIMEDOUT after `limit`, with the last error.
  Status WaitQuorum(std::chrono::milliseconds limit) const;
  // The index of the member that leads now, as etcd's /v3/maintenance/status of the running
  // members says. Errors: EAGAIN when none answers or none names a running member as leader.
  Result<int> Leader() const;

  // A loopback port nothing listens on at the time of the call.
  static std::uint16_t FreePort();
  // A TCP socket bound to a free loopback port (and listening when `listen`): the fd, which the
  // caller closes, and *port; -1 (and *port 0) when none could be had.
  static int BindLoopback(bool listen, std::uint16_t* port);

 private:
  struct Member {
    std::uint16_t client_port = 0;
    std::uint16_t peer_port = 0;
    pid_t pid = -1;
  };
  // Forks and execs member i (no wait).
  Status Spawn(int i);
  // Member i's process exited: reaps it; EADDRINUSE when its log says its ports were taken, else
  // EIO naming the log.
  Status Exited(int i, int status);
  // Waits until the running members answer a read; EIO/EADDRINUSE when one exits meanwhile.
  Status WaitAnswer(std::chrono::milliseconds limit);
  std::string DataDir(int i) const;

  std::string dir_;
  std::vector<Member> members_;
  std::vector<std::string> extra_args_;
};

}  // namespace ec::etcd::testing
