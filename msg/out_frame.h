// OutFrame: one frame queued for sending (fixed header, message header, payload buffers), shared
// by the server's and the client's write paths (connection.h), how to build one, and the gather
// list that sends a batch of them with one write and no copy of the payload.
//
// Ownership: the frame owns its header bytes and holds references to the payload Buffers, which
// stay alive as long as the frame. The buffer views returned by AppendGather point into the
// frames and are valid while the frames are neither destroyed nor moved.
// Thread safety: plain value.
#pragma once

#include <array>
#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "ec/buffer.h"
#include "msg/frame.h"

namespace ec::msg {

struct OutFrame {
  std::array<std::byte, kFrameHeaderSize> fixed{};
  std::vector<std::byte> header;
  std::vector<Buffer> payload;
  bool is_reply = false;  // server side: answers a request counted in flight
  // On an authenticated connection: the frame's MAC, sent after the payload (set by the
  // connection when it queues the frame, in sending order).
  bool has_mac = false;
  std::array<std::byte, kFrameMacLen> mac{};
};

// A frame whose crcs the caller computed already (the client does that on the calling thread, off
// the io threads): `payload_len` is the sum of the payload's sizes (at most UINT32_MAX).
inline OutFrame MakeOutFrame(MsgType type, std::uint64_t tag, std::vector<std::byte> header,
                             std::vector<Buffer> payload, std::uint32_t header_crc,
                             std::uint32_t payload_crc, std::uint64_t payload_len) {
  OutFrame f;
  FrameHeader h;
  h.type = static_cast<std::uint16_t>(type);
  h.tag = tag;
  h.header_len = static_cast<std::uint32_t>(header.size());
  h.header_crc = header_crc;
  h.payload_len = static_cast<std::uint32_t>(payload_len);
  h.payload_crc = payload_crc;
  EncodeFrameHeader(h, f.fixed);
  f.header = std::move(header);
  f.payload = std::move(payload);
  return f;
}

// The same, computing both crcs.
inline OutFrame MakeOutFrame(MsgType type, std::uint64_t tag, std::vector<std::byte> header,
                             std::vector<Buffer> payload) {
  std::uint64_t total = 0;
  std::uint32_t crc = 0;
  for (const Buffer& b : payload) {
    crc = Crc32cExtend(crc, b.span());
    total += b.size();
  }
  const std::uint32_t header_crc = Crc32c(header);
  return MakeOutFrame(type, tag, std::move(header), std::move(payload), header_crc, crc, total);
}

// Appends the views of every non-empty part of `frames`, in wire order, to `out`.
inline void AppendGather(const std::vector<OutFrame>& frames,
                         std::vector<boost::asio::const_buffer>& out) {
  for (const OutFrame& f : frames) {
    out.emplace_back(f.fixed.data(), f.fixed.size());
    if (!f.header.empty()) out.emplace_back(f.header.data(), f.header.size());
    for (const Buffer& b : f.payload) {
      if (!b.empty()) out.emplace_back(b.data(), b.size());
    }
    if (f.has_mac) out.emplace_back(f.mac.data(), f.mac.size());
  }
}

}  // namespace ec::msg
