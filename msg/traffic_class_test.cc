// MarkSocket sets the DSCP and socket priority the kernel then puts on every packet.
#include "msg/traffic_class.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <sys/socket.h>

#include <boost/asio.hpp>

namespace ec::msg {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

int GetInt(tcp::socket& s, int level, int name) {
  int v = -1;
  socklen_t len = sizeof(v);
  EXPECT_EQ(::getsockopt(s.native_handle(), level, name, &v, &len), 0);
  return v;
}

// A connected pair on `address`; false when the host has no such address (no IPv6).
bool Connect(asio::io_context& io, const char* address, tcp::socket& client, tcp::socket& server) {
  boost::system::error_code ec;
  tcp::acceptor acceptor(io);
  const tcp::endpoint ep(asio::ip::make_address(address), 0);
  acceptor.open(ep.protocol(), ec);
  if (!ec) acceptor.bind(ep, ec);
  if (!ec) acceptor.listen(4, ec);
  if (ec) return false;
  client.connect(acceptor.local_endpoint(), ec);
  if (ec) return false;
  acceptor.accept(server, ec);
  return !ec;
}

TEST(TrafficClassTest, BackgroundMarksIpv4SocketsCs1AndLowPriority) {
  asio::io_context io;
  tcp::socket client(io), server(io);
  ASSERT_TRUE(Connect(io, "127.0.0.1", client, server));
  ASSERT_TRUE(MarkSocket(client, TrafficClass::kClient).ok());
  EXPECT_EQ(GetInt(client, IPPROTO_IP, IP_TOS), 0);
  EXPECT_EQ(GetInt(client, SOL_SOCKET, SO_PRIORITY), 0);
  ASSERT_TRUE(MarkSocket(client, TrafficClass::kBackground).ok());
  ASSERT_TRUE(MarkSocket(server, TrafficClass::kBackground).ok());
  EXPECT_EQ(GetInt(client, IPPROTO_IP, IP_TOS), 0x20);
  EXPECT_EQ(GetInt(server, IPPROTO_IP, IP_TOS), 0x20);
  EXPECT_EQ(GetInt(client, SOL_SOCKET, SO_PRIORITY), 1);
  EXPECT_EQ(TosByte(TrafficClass::kBackground), 0x20);
  EXPECT_EQ(TosByte(TrafficClass::kClient), 0);
}

TEST(TrafficClassTest, BackgroundMarksIpv6SocketsTrafficClass) {
  asio::io_context io;
  tcp::socket client(io), server(io);
  if (!Connect(io, "::1", client, server)) GTEST_SKIP() << "no IPv6 loopback on this host";
  ASSERT_TRUE(MarkSocket(client, TrafficClass::kBackground).ok());
  EXPECT_EQ(GetInt(client, IPPROTO_IPV6, IPV6_TCLASS), 0x20);
  EXPECT_EQ(GetInt(client, SOL_SOCKET, SO_PRIORITY), 1);
}

TEST(TrafficClassTest, ClosedSocketIsAnError) {
  asio::io_context io;
  tcp::socket s(io);
  EXPECT_EQ(MarkSocket(s, TrafficClass::kBackground).code(), EBADF);
}

}  // namespace
}  // namespace ec::msg
