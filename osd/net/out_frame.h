// OutFrame: one frame queued for sending (fixed header, message header, payload buffers), shared
// by the server's and the client's write paths, and the gather list that sends a batch of them
// with one write and no copy of the payload.
//
// Ownership: the frame owns its header bytes and holds references to the payload Buffers, which
// stay alive as long as the frame. The buffer views returned by AppendGather point into the
// frames and are valid while the frames are neither destroyed nor moved.
// Thread safety: plain value.
#pragma once

#include <array>
#include <boost/asio/buffer.hpp>
#include <cstddef>
#include <vector>

#include "ec/buffer.h"
#include "osd/net/frame.h"

namespace ec::net {

struct OutFrame {
  std::array<std::byte, kFrameHeaderSize> fixed{};
  std::vector<std::byte> header;
  std::vector<Buffer> payload;
  bool is_reply = false;  // server side: answers a request counted in flight
};

// Appends the views of every non-empty part of `frames`, in wire order, to `out`.
inline void AppendGather(const std::vector<OutFrame>& frames,
                         std::vector<boost::asio::const_buffer>& out) {
  for (const OutFrame& f : frames) {
    out.emplace_back(f.fixed.data(), f.fixed.size());
    if (!f.header.empty()) out.emplace_back(f.header.data(), f.header.size());
    for (const Buffer& b : f.payload) {
      if (!b.empty()) out.emplace_back(b.data(), b.size());
    }
  }
}

}  // namespace ec::net
