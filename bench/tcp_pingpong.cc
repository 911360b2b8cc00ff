// tcp-pingpong: the reference for the messenger's latency target. A plain TCP ping-pong of N
// bytes each way with one message in flight, over blocking loopback sockets with TCP_NODELAY,
// against an echo server in a thread of this process. Prints p50/p99/p99.9 round-trip latency in
// microseconds, as text or --json. An empty ec-osd-bench RPC is 44 bytes out and 49 back on the
// wire (frame headers), so --size 48 is the like-for-like reference.
//   tcp-pingpong [--size N] [--iterations N] [--warmup N] [--json] [--version]
// Usage errors exit 1; --help and --version exit 0.
// Compare with `ec-osd-bench --message-sizes "(0 0)" --max-inflight-rpcs 1` in the same run.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/cli.h"

namespace {

bool FullIo(int fd, char* p, std::size_t n, bool write_side) {
  while (n > 0) {
    const ssize_t r = write_side ? ::send(fd, p, n, MSG_NOSIGNAL) : ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

void NoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

// Echoes fixed-size messages until the peer closes.
void Echo(int fd, std::size_t size) {
  std::vector<char> buf(size);
  while (FullIo(fd, buf.data(), size, false) && FullIo(fd, buf.data(), size, true)) {
  }
  ::close(fd);
}

int Fail(const char* what) {
  std::fprintf(stderr, "tcp-pingpong: %s: %s\n", what, std::strerror(errno));
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"tcp-pingpong: plain TCP round trips over loopback, the messenger's reference"};
  std::uint64_t size = 64;
  long iterations = 20000, warmup = 1000;
  bool json = false;
  app.add_option("--size", size, "bytes each way (4k, 1M, ...: binary units)")
      ->capture_default_str()
      ->transform(CLI::AsSizeValue(false))
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 30));
  app.add_option("--iterations", iterations, "round trips measured")
      ->capture_default_str()
      ->check(CLI::Range(1L, 1000000000L));
  app.add_option("--warmup", warmup, "round trips before measuring")
      ->capture_default_str()
      ->check(CLI::Range(0L, 1000000000L));
  app.add_flag("--json", json, "print one JSON line");
  ec::cli::AddVersionFlag(app, "tcp-pingpong");
  if (std::optional<int> status = ec::cli::Parse(app, argc, argv)) return *status;

  const int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  if (listener < 0) return Fail("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return Fail("bind");
  if (::listen(listener, 1) != 0) return Fail("listen");
  if (::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Fail("getsockname");
  }
  std::thread server([&] {
    const int fd = ::accept(listener, nullptr, nullptr);
    if (fd < 0) return;
    NoDelay(fd);
    Echo(fd, size);
  });
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return Fail("connect");
  }
  NoDelay(fd);

  std::vector<char> out(size, 'x'), in(size);
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(iterations));
  for (long i = 0; i < warmup + iterations; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (!FullIo(fd, out.data(), size, true) || !FullIo(fd, in.data(), size, false)) {
      return Fail("ping-pong");
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (i >= warmup) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  ::close(fd);
  server.join();
  ::close(listener);

  std::sort(us.begin(), us.end());
  auto pct = [&](double p) {
    return us[std::min(us.size() - 1, static_cast<std::size_t>(p / 100.0 * us.size()))];
  };
  if (json) {
    std::printf(
        "{\"program\":\"tcp-pingpong\",\"size\":%llu,\"iterations\":%ld,\"latency_us\":"
        "{\"p50\":%.2f,\"p99\":%.2f,\"p999\":%.2f}}\n",
        static_cast<unsigned long long>(size), iterations, pct(50), pct(99), pct(99.9));
  } else {
    std::printf("tcp ping-pong, %llu bytes each way, one in flight, %ld round trips\n",
                static_cast<unsigned long long>(size), iterations);
    std::printf("latency us: p50 %.2f  p99 %.2f  p99.9 %.2f\n", pct(50), pct(99), pct(99.9));
  }
  return 0;
}
