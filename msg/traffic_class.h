// Traffic classes: how a connection's packets are marked so that the network (and the hosts' own
// queueing disciplines) can send client traffic before background traffic (recovery, backfill).
//
//   kClient      the system's defaults (DSCP 0, socket priority 0)
//   kBackground  DSCP CS1 (the "lower effort" class of RFC 8622's predecessor, RFC 3662: IP TOS
//                byte 0x20; IPv6 traffic class 0x20) and socket priority 1, which Linux's default
//                priomap sends to the lowest band of a prio or pfifo_fast qdisc
//
// A link that honours DSCP (a switch with QoS, or tc: see bench/netns_cluster.sh) then queues a
// client's 4 KiB read behind at most one background packet rather than behind megabytes of
// recovery data. Both ends mark: the client side when it connects, the server side when the
// Hello announces msg::kFeatureBackground (msg/PROTOCOL.md).
//
// Thread safety: MarkSocket touches only the socket it is given (call it from the socket's
// executor, as every socket operation).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <cstdint>

#include "common/status.h"

namespace ec::msg {

enum class TrafficClass : std::uint8_t { kClient = 0, kBackground = 1 };

// The IP TOS byte / IPv6 traffic class of a class (0 for kClient).
int TosByte(TrafficClass c);

// Marks an open socket's outgoing packets with the class's DSCP and socket priority. kClient
// leaves the socket as it is. Errors: the kernel's errno when it refuses an option (the socket is
// still usable, only unmarked).
Status MarkSocket(boost::asio::ip::tcp::socket& socket, TrafficClass c);

}  // namespace ec::msg
