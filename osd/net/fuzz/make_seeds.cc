// Writes a seed corpus for frame_fuzzer: one valid frame of every message type (and a short
// stream of frames) into the directory given as argv[1]. Built and run by scripts/fuzz.sh.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "osd/net/frame.h"
#include "osd/net/messages.h"

namespace {

using namespace ec::net;

std::vector<std::byte> Frame(MsgType type, const std::vector<std::byte>& header,
                             std::size_t payload_len) {
  std::vector<std::byte> payload(payload_len, std::byte{0x42});
  FrameHeader h;
  h.type = static_cast<std::uint16_t>(type);
  h.tag = 7;
  h.header_len = static_cast<std::uint32_t>(header.size());
  h.payload_len = static_cast<std::uint32_t>(payload.size());
  h.header_crc = ec::Crc32c(header);
  h.payload_crc = ec::Crc32c(payload);
  std::vector<std::byte> out(kFrameHeaderSize);
  EncodeFrameHeader(h, std::span<std::byte, kFrameHeaderSize>(out.data(), kFrameHeaderSize));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

void Write(const std::string& dir, const std::string& name, const std::vector<std::byte>& b) {
  std::ofstream f(dir + "/" + name, std::ios::binary);
  f.put('\0');  // frame_fuzzer's mode byte: fix the crcs up
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 1;
  }
  const std::string dir = argv[1];
  std::vector<std::byte> h;
  EncodeHello(Hello{1, 1, 0, 65536, 1 << 20, "seed"}, h);
  Write(dir, "hello", Frame(MsgType::kHello, h, 0));
  h.clear();
  HelloReply hr;
  hr.version = 1;
  hr.max_inflight = 8;
  EncodeHelloReply(hr, h);
  Write(dir, "hello_reply", Frame(MsgType::kHelloReply, h, 0));
  const std::vector<std::pair<std::string, RequestBody>> requests = {
      {"ping", PingRequest{64}},
      {"write", WriteShardRequest{"pg.1", "obj", 2, 5, 4096, kWriteReplace, {{"k", "v"}}}},
      {"read", ReadShardRequest{"pg.1", "obj", 2, {{0, 4096}, {8192, 100}}}},
      {"stat", StatRequest{"pg.1", "obj", 2}},
      {"list", ListRequest{"pg.1", "cursor", 100}},
      {"remove", RemoveRequest{"pg.1", "obj", 2}}};
  std::vector<std::byte> stream;
  for (const auto& [name, body] : requests) {
    h.clear();
    EncodeRequest(body, h);
    auto f = Frame(TypeOf(body), h, name == "write" || name == "ping" ? 32 : 0);
    Write(dir, name, f);
    stream.insert(stream.end(), f.begin(), f.end());
  }
  Write(dir, "stream", stream);
  const std::vector<std::pair<std::string, ReplyBody>> replies = {
      {"ping_reply", PingReply{}},
      {"write_reply", WriteShardReply{ec::Status::DataLoss("crc")}},
      {"read_reply", ReadShardReply{ec::Status::OK(), 10, 1, {4, 6}}},
      {"stat_reply", StatReply{ec::Status::OK(), 10, 1, {{"a", "b"}}}},
      {"list_reply", ListReply{ec::Status::OK(), {{"o", 1}}, "next", false}},
      {"remove_reply", RemoveReply{ec::Status::NotFound("x")}}};
  for (const auto& [name, body] : replies) {
    h.clear();
    EncodeReply(body, h);
    Write(dir, name, Frame(TypeOf(body), h, name == "read_reply" ? 10 : 0));
  }
  return 0;
}
