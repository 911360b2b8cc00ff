// EtcdServer (tests only): a real etcd (/usr/bin/etcd, Debian etcd-server) on free loopback
// ports with a temporary data dir.
//
// Start() picks two free ports (client and peer), launches etcd and waits until /v3/kv/range
// answers. The destructor kills it (SIGKILL + waitpid) and removes the data dir, also when a test
// fails. Kill() and Restart() simulate a crash and a restart on the same ports and data.
//
// Thread safety: none; the test's thread owns it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::etcd::testing {

class EtcdServer {
 public:
  EtcdServer() = default;
  ~EtcdServer();
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  // Errors: ENOENT when /usr/bin/etcd is missing, ETIMEDOUT when it does not answer in 20 s.
  Status Start();
  // SIGKILL + waitpid; the ports and data dir stay.
  void Kill();
  // Starts again on the same ports and data dir and waits until it answers.
  Status Restart();

  bool running() const { return pid_ > 0; }
  Endpoint endpoint() const { return Endpoint{"127.0.0.1", client_port_}; }
  ClientOptions client_options() const;
  const std::string& data_dir() const { return dir_; }

  // A loopback port nothing listens on at the time of the call.
  static std::uint16_t FreePort();
  // A TCP socket bound to a free loopback port (and listening when `listen`): the fd, which the
  // caller closes, and *port; -1 (and *port 0) when none could be had.
  static int BindLoopback(bool listen, std::uint16_t* port);

 private:
  Status Launch();

  std::string dir_;
  std::uint16_t client_port_ = 0;
  std::uint16_t peer_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace ec::etcd::testing
