#include "msg/traffic_class.h"

#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ec::msg {

namespace {

constexpr int kCs1 = 0x20;              // DSCP 8 (CS1) in the TOS byte's upper six bits
constexpr int kBackgroundPriority = 1;  // Linux's priomap: band 2 of pfifo_fast / prio

Status SetInt(int fd, int level, int name, int value, const char* what) {
  if (::setsockopt(fd, level, name, &value, sizeof(value)) == 0) return Status::OK();
  const int err = errno;
  return Status::Error(err, std::string("setsockopt ") + what + ": " + std::strerror(err));
}

}  // namespace

int TosByte(TrafficClass c) {
  return c == TrafficClass::kBackground ? kCs1 : 0;
}

Status MarkSocket(boost::asio::ip::tcp::socket& socket, TrafficClass c) {
  if (c == TrafficClass::kClient) return Status::OK();
  if (!socket.is_open()) return Status::Error(EBADF, "mark socket: not open");
  const int fd = socket.native_handle();
  boost::system::error_code ec;
  const auto local = socket.local_endpoint(ec);
  if (ec) return Status::Error(ec.value() > 0 ? ec.value() : EIO, "mark socket: " + ec.message());
  const auto addr = local.address();
  // An IPv4 peer on a dual-stack socket (a v4-mapped address) sends IPv4 packets: IP_TOS marks
  // them.
  if (addr.is_v6()) {
    Status s = SetInt(fd, IPPROTO_IPV6, IPV6_TCLASS, TosByte(c), "IPV6_TCLASS");
    if (!s.ok()) return s;
  }
  if (addr.is_v4() || addr.to_v6().is_v4_mapped()) {
    Status s = SetInt(fd, IPPROTO_IP, IP_TOS, TosByte(c), "IP_TOS");
    if (!s.ok()) return s;
  }
  return SetInt(fd, SOL_SOCKET, SO_PRIORITY, kBackgroundPriority, "SO_PRIORITY");
}

}  // namespace ec::msg
