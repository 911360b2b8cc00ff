// Starting real ec-osd processes for whole-system tests: mkfs, run on loopback with kernel-chosen
// ports, learn the ports from the "ready" line, stop with SIGTERM or SIGKILL. HTTP GET and raw
// sockets for the monitoring endpoint and for malformed traffic.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace ectest {

namespace fs = std::filesystem;

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128 + signal number
  std::string out;
  std::string err;
};

// Runs build/bin/ec-osd with `args` to completion (for --mkfs, --fsck, --help, bad input).
ProcessResult RunOsdTool(const std::vector<std::string>& args);
// Runs `program` (a path) with `args` to completion; stdout and stderr captured.
ProcessResult RunProgram(const std::string& program, const std::vector<std::string>& args);

// One ec-osd daemon whose data lives in `dir`: config file dir/ecstore.conf with a small device,
// ports 0 (kernel-chosen), log in dir/osd.<id>.log.
class OsdProcess {
 public:
  OsdProcess(fs::path dir, int id);
  ~OsdProcess();  // SIGKILL if still running
  OsdProcess(const OsdProcess&) = delete;
  OsdProcess& operator=(const OsdProcess&) = delete;

  // ec-osd --mkfs; returns the exit code (output in the failure message via gtest).
  ProcessResult Mkfs(const std::vector<std::string>& extra = {});
  // Starts the daemon and waits (up to 60 s) for its ready line. The daemon is killed when the
  // THREAD that started it ends (PR_SET_PDEATHSIG follows the forking thread, not the process):
  // start daemons from a thread that outlives them (the test's own), never from a short-lived
  // worker. False (with a gtest failure message) if it exits or does not get ready.
  bool Start(const std::vector<std::string>& extra = {});
  // SIGTERM and wait: the exit code (a stopped daemon is continued first). SIGKILL and wait:
  // 128 + 9.
  int Terminate();
  int Kill();
  // SIGSTOP: the daemon freezes (no heartbeats, no answers) until Continue (SIGCONT), as if its
  // host were cut off; a frozen daemon can still be killed. False if it is not running (or
  // already stopped / not stopped).
  bool Stop();
  bool Continue();
  bool running() const { return pid_ > 0; }
  bool stopped() const { return stopped_; }
  // Whether a running daemon has exited by itself (not reaped yet): then its exit code (128 +
  // signal) and it is no longer running; -1 while it runs (or when it was not running).
  int Exited();

  std::uint16_t port() const { return port_; }
  std::uint16_t metrics_port() const { return metrics_port_; }
  const fs::path& dir() const { return dir_; }
  fs::path conf() const { return dir_ / "ecstore.conf"; }
  fs::path block() const { return dir_ / ("osd-" + std::to_string(id_)) / "block"; }
  std::vector<std::string> BaseArgs() const;
  std::string Log() const;      // the log file, then stderr
  std::string LogFile() const;  // the log file (dir/osd.<id>.log) as it is now

 private:
  int Wait();
  fs::path dir_;
  int id_;
  pid_t pid_ = -1;
  bool stopped_ = false;
  int out_fd_ = -1;
  std::uint16_t port_ = 0;
  std::uint16_t metrics_port_ = 0;
};

// GET `path` from 127.0.0.1:port; returns the body (empty on failure) and the status code. A
// server that does not answer within 10 s (a SIGSTOPped OSD) gives what came so far (usually
// nothing) rather than a test that hangs.
std::string HttpGet(std::uint16_t port, const std::string& path, int* status = nullptr);

// A blocking TCP connection to 127.0.0.1:port for raw bytes.
class RawSocket {
 public:
  explicit RawSocket(std::uint16_t port);
  ~RawSocket();
  bool connected() const { return fd_ >= 0; }
  // Sends and reads give up after `ms` without progress (SO_SNDTIMEO, SO_RCVTIMEO).
  void SetTimeout(int ms);
  bool Send(const void* data, std::size_t n);
  // True when the peer closes the connection (EOF or reset) within `timeout_ms`, reading and
  // discarding whatever it sends first.
  bool ClosedByPeer(int timeout_ms);
  // Reads to EOF; returns the body of an HTTP response and its status code.
  std::string ReadResponse(int* status);

 private:
  int fd_ = -1;
};

// The value of an unlabelled (or exactly-labelled, e.g. `name{op="write"}`) sample in a
// Prometheus text page; -1 if absent.
double MetricValue(const std::string& page, const std::string& sample);

}  // namespace ectest
