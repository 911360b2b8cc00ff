// Writes a seed corpus for frame_fuzzer: one valid frame of every message type (and a short
// stream of frames) into the directory given as argv[1]. Built and run by scripts/fuzz.sh.
#include <cerrno>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "msg/frame.h"
#include "msg/messages.h"

namespace {

using namespace ec::msg;

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
  EncodeHello(Hello{kProtocolVersionMin, kProtocolVersionMax, 0, 65536, 1 << 20, "seed"}, h);
  Write(dir, "hello", Frame(MsgType::kHello, h, 0));
  h.clear();
  HelloReply hr;
  hr.version = kProtocolVersionMax;
  hr.max_inflight = 8;
  EncodeHelloReply(hr, h);
  Write(dir, "hello_reply", Frame(MsgType::kHelloReply, h, 0));
  // The handshake of an authenticated connection (version 6): a cephx Hello, the challenge, the
  // client's proof and the verdict, in one stream as a server reads them.
  Hello ch{kProtocolVersionMin, kProtocolVersionMax, 0, 65536, 1 << 20, "seed"};
  ch.auth = HelloAuth::kCephx;
  ch.entity = "client.app";
  ch.nonce.fill(std::byte{0x11});
  h.clear();
  EncodeHello(ch, h);
  auto handshake = Frame(MsgType::kHello, h, 0);
  Write(dir, "hello_cephx", handshake);
  hr.auth = HelloAuth::kCephx;
  hr.nonce.fill(std::byte{0x22});
  h.clear();
  EncodeHelloReply(hr, h);
  auto challenge = Frame(MsgType::kHelloReply, h, 0);
  Write(dir, "hello_reply_cephx", challenge);
  handshake.insert(handshake.end(), challenge.begin(), challenge.end());
  AuthRequest proof;
  proof.proof.fill(std::byte{0x33});
  h.clear();
  EncodeAuthRequest(proof, h);
  auto auth = Frame(MsgType::kAuth, h, 0);
  Write(dir, "auth", auth);
  handshake.insert(handshake.end(), auth.begin(), auth.end());
  AuthReply verdict;
  verdict.proof.fill(std::byte{0x44});
  h.clear();
  EncodeAuthReply(verdict, h);
  auto done = Frame(MsgType::kAuthReply, h, 0);
  Write(dir, "auth_reply", done);
  handshake.insert(handshake.end(), done.begin(), done.end());
  Write(dir, "handshake_cephx", handshake);
  h.clear();
  EncodeAuthReply(AuthReply{ec::Status::Error(EACCES, "authentication failed"), {}}, h);
  Write(dir, "auth_refused", Frame(MsgType::kAuthReply, h, 0));
  // Frames of an authenticated connection: mode byte 2 (fix the crcs, MAC trailers), each frame
  // followed by 16 MAC bytes.
  {
    h.clear();
    EncodeRequest(PingRequest{16}, h);
    auto signed_ping = Frame(MsgType::kPing, h, 16);
    signed_ping.insert(signed_ping.end(), 16, std::byte{0x5a});
    std::vector<std::byte> two = signed_ping;
    two.insert(two.end(), signed_ping.begin(), signed_ping.end());
    std::ofstream f(dir + "/signed_frames", std::ios::binary);
    f.put('\2');
    f.write(reinterpret_cast<const char*>(two.data()), static_cast<std::streamsize>(two.size()));
  }
  const std::vector<std::pair<std::string, RequestBody>> requests = {
      {"ping", PingRequest{64}},
      {"write", WriteShardRequest{"pg.1", "obj", 2, 5, 4096, kWriteReplace, {{"k", "v"}}}},
      {"read", ReadShardRequest{"pg.1", "obj", 2, {{0, 4096}, {8192, 100}}}},
      {"stat", StatRequest{"pg.1", "obj", 2}},
      {"list", ListRequest{"pg.1", "cursor", 100}},
      {"remove", RemoveRequest{"pg.1", "obj", 2}},
      {"sub_write", SubWriteRequest{"pg.1",
                                    "obj",
                                    2,
                                    6,
                                    5,
                                    SubWriteKind::kRange,
                                    100,
                                    32,
                                    {{0, 16}, {64, 16}},
                                    3,
                                    {4, 4, 6, 4, 6, 6}}},
      {"sub_resolve", SubResolveRequest{"pg.1", "obj", 2, 6, SubResolveAction::kRollback}},
      {"sub_state", SubStateRequest{"pg.1", "obj", 2}},
      {"obj_write", ObjWriteRequest{1, 3, "obj", ObjWriteMode::kWrite, 4096}},
      {"obj_read", ObjReadRequest{1, 3, "obj", 10, 100}},
      {"obj_stat", ObjStatRequest{1, 3, "obj"}},
      {"obj_remove", ObjRemoveRequest{1, 3, "obj"}},
      {"obj_list", ObjListRequest{1, 3, 7, "cursor", 100}},
      {"obj_direct_read", ObjDirectReadRequest{1, 3, "obj", 2, 8192, 4096}},
      {"read_lease", ReadLeaseRequest{4, 9, 2000, {{1, 0}, {1, 7}}}},
      {"sub_scan", SubScanRequest{"pg.1", 2, "cursor", 100}},
      {"sub_pull", SubPullRequest{1,
                                  3,
                                  "pg.1",
                                  2,
                                  SubPullMode::kRebuild,
                                  {{0, 4}, {1, 5}, {3, 6}},
                                  {{"obj", 6, 100, 5, {}}, {"obj2", 7, 4096, 0, {7, 2, 7}}}}},
      {"sub_read_batch", SubReadBatchRequest{{{"pg.1", "obj", 2, 6, {{0, 2048}, {4096, 2048}}},
                                              {"pg.1", "obj2", 2, 0, {{0, 4096}}}}}},
      {"sub_write_meta", SubWriteRequest{"pg.1",
                                         "obj",
                                         2,
                                         7,
                                         6,
                                         SubWriteKind::kRange,
                                         100,
                                         32,
                                         {},
                                         3,
                                         {},
                                         SubWriteMeta::kReplace,
                                         1700000000000000,
                                         {{"user.a", "1"}, {"b", "xyz"}}}},
      {"obj_truncate", ObjWriteRequest{1, 3, "obj", ObjWriteMode::kTruncate, 100}},
      {"obj_set_xattrs", ObjSetXattrsRequest{1,
                                             3,
                                             "obj",
                                             kXattrsCreate | kXattrsMtime,
                                             {{"a", "1"}, {"b", "22"}},
                                             {"c"},
                                             1700000000000000}},
      {"obj_get_xattrs", ObjGetXattrsRequest{1, 3, "obj"}},
      {"sub_repair_chain", SubRepairChainRequest{1,
                                                 3,
                                                 "pg.1",
                                                 "obj",
                                                 2,
                                                 6,
                                                 100,
                                                 {6, 6, 6, 4, 6, 6},
                                                 0,
                                                 2,
                                                 0,
                                                 4096,
                                                 {{0, 0, 11}, {1, 1, 22}, {3, 3, 33}, {4, 4, 44}},
                                                 3,
                                                 2000}}};
  std::vector<std::byte> stream;
  for (const auto& [name, body] : requests) {
    h.clear();
    EncodeRequest(body, h);
    const bool payload =
        name == "write" || name == "ping" || name == "sub_write" || name == "obj_write";
    auto f = Frame(TypeOf(body), h, payload ? 32 : 0);
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
      {"remove_reply", RemoveReply{ec::Status::NotFound("x")}},
      {"sub_write_reply", SubWriteReply{ec::Status::Retryable(ESTALE, "prev")}},
      {"sub_resolve_reply", SubResolveReply{ec::Status::OK(), 5}},
      {"sub_state_reply",
       SubStateReply{ec::Status::OK(), ShardState::kPresent, 6, 100, 32, 6, {6, 2, 6}}},
      {"obj_write_reply", ObjWriteReply{ec::Status::OK(), 4, 4128}},
      {"obj_read_reply", ObjReadReply{ec::Status::OK(), 4, 4128, true, 20, 8192}},
      {"obj_stat_reply", ObjStatReply{ec::Status::OK(), 4, 4128, 1700000000000000}},
      {"obj_set_xattrs_reply", ObjSetXattrsReply{ec::Status::OK(), 5}},
      {"obj_get_xattrs_reply",
       ObjGetXattrsReply{ec::Status::OK(), 5, 1700000000000000, {{"a", "1"}, {"b", "22"}}}},
      {"obj_remove_reply", ObjRemoveReply{ec::Status::OK(), 5}},
      {"obj_list_reply", ObjListReply{ec::Status::OK(), {"a", "b"}, "b", false}},
      {"obj_direct_read_reply", ObjDirectReadReply{ec::Status::Retryable(EAGAIN, "no lease")}},
      {"read_lease_reply",
       ReadLeaseReply{ec::Status::OK(),
                      2000,
                      {{1, 0, true, 9, (9ull << 32) | 5, {0, 1, 2}}, {1, 7, false, 9, 0, {}}}}},
      {"sub_scan_reply", SubScanReply{ec::Status::OK(),
                                      {{"a", ShardState::kPresent, 6, 100, 32, 0, {6, 6, 3}},
                                       {"b", ShardState::kRemoved, 7, 0, 0, 7}},
                                      "b",
                                      false}},
      {"sub_pull_reply",
       SubPullReply{ec::Status::OK(),
                    {{"obj", ec::Status::OK(), 8192, 8192, 4096},
                     {"obj2", ec::Status::Retryable(ESTALE, "client write"), 0, 0, 0}}}},
      {"sub_read_batch_reply",
       SubReadBatchReply{ec::Status::OK(),
                         {{ec::Status::OK(), 8192, 6, {4, 6}},
                          {ec::Status::Error(ESTALE, "at version 7, not 6"), 4096, 7, {}},
                          {ec::Status::DataLoss("crc32c mismatch"), 0, 0, {}}}}},
      {"sub_repair_chain_reply", SubRepairChainReply{ec::Status::OK(), -1, 6}}};
  for (const auto& [name, body] : replies) {
    h.clear();
    EncodeReply(body, h);
    Write(dir, name,
          Frame(TypeOf(body), h,
                name == "read_reply" || name == "obj_read_reply" ||
                        name == "sub_read_batch_reply" || name == "sub_repair_chain_reply"
                    ? 10
                    : 0));
  }
  return 0;
}
