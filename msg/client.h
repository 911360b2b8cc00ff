// OsdClient: the client library of the OSD protocol, for one OSD endpoint. It keeps one or a few
// TCP connections open (connecting lazily, reconnecting after a failure), sends many requests at
// once on them and matches replies to requests by tag.
//
// Two forms of every operation:
//   - asynchronous: XxxAsync(request, callback, options); the callback runs exactly once, on one
//     of the client's io threads (it must not block: hand heavy work to another thread), or on
//     the calling thread when the client is already closed. A request issued from a callback is
//     sent at once, without a trip through the io queue;
//   - blocking: Xxx(request, options) -> Status / Result<T>; waits for the callback.
//
// Errors of an operation: the server's reply status, code and class unchanged (ENOENT, DataLoss
// for a checksum failure on the OSD, ...); Retryable ETIMEDOUT when no reply came within the
// timeout (checked every 10 ms, so it fires up to 10 ms late; the request may still have been
// executed); Retryable ECONNRESET / ECONNREFUSED / EPIPE
// when the connection failed before the reply (may have been executed too); EMSGSIZE when the
// request exceeds the server's announced limits (not sent); EPROTO when the server refused the
// handshake or sent a malformed reply (the connection is then closed and reopened on the next
// request); ESHUTDOWN after Close().
//
// Authentication (ClientOptions::auth cephx; msg/PROTOCOL.md "Authentication"): every connection
// proves ClientOptions::key for ClientOptions::entity and requires the server to prove it too,
// then signs every frame and checks every frame's MAC. Errors: EACCES when the server refused the
// handshake (no key for the entity, a wrong key: its message says which), when the server could
// not prove the key (a wrong key on one side, or not an OSD of this cluster) or does not
// authenticate at all (auth none there: never talked to, as a downgrade could be an attacker's);
// each counted in ClientCounters::auth_failures. A request refused by the server's Authorize
// (msg/authorize.h: caps, sub-operations) is that request's EACCES error reply. A frame from the
// server whose MAC fails closes the connection (EPROTO), as any malformed frame.
//
// Ownership: payload Buffers passed in are kept alive until written; received data is returned
// in Buffers owned by the caller (slices of one buffer per reply).
// Thread safety: every method may be called from any thread concurrently, except that the
// blocking forms must not be called from a callback (an io thread).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ec/buffer.h"
#include "msg/auth/handshake.h"
#include "msg/auth/keyring.h"
#include "msg/frame.h"
#include "msg/messages.h"
#include "msg/traffic_class.h"

namespace spdlog {
class logger;
}

namespace ec::msg {

class IoThreads;  // msg/io_threads.h

// Who a client is and how it proves it: ClientOptions's auth fields, grouped for the layers that
// hand them on (PeerOptions, the PG primary's and the pull service's options).
struct ClientAuth {
  auth::AuthMode mode = auth::AuthMode::kNone;
  std::string entity;  // "osd.3", "client.admin"
  auth::CryptoKey key;
};

struct ClientOptions {
  std::string host = "127.0.0.1";  // IP literal or host name
  std::uint16_t port = 0;
  int connections = 1;  // connections to the endpoint, used round-robin (1..64)
  int io_threads = 1;   // threads running the client's io_context (1..64)
  // Run on these threads (shared with other clients) instead of starting io_threads of its own;
  // io_threads and io_nice are then ignored. A completion then runs on a thread every client on
  // it shares: it must never block.
  std::shared_ptr<IoThreads> shared_io;
  std::chrono::milliseconds connect_timeout{5000};   // TCP connect + handshake
  std::chrono::milliseconds request_timeout{30000};  // default per-request timeout
  // Requests in flight per connection; more wait in the client (a bounded wait: see
  // max_queued). 0: the server's announced max_inflight.
  std::uint32_t max_inflight = 0;
  std::uint32_t max_queued = 65536;  // requests waiting for a slot; beyond: Retryable EAGAIN
  Limits limits;                     // what the client accepts in replies
  std::string name = "ec-client";    // sent in Hello (server logs)
  // kBackground: both ends mark the packets as background traffic (msg/traffic_class.h) and
  // the io threads run at `io_nice` (0..20, common/thread_nice.h; 0: as the process; a refused
  // value is logged).
  TrafficClass traffic_class = TrafficClass::kClient;
  int io_nice = 0;
  std::shared_ptr<spdlog::logger> logger;  // null: spdlog's default logger
  // Ceph's auth_cluster_required: kCephx authenticates as `entity` with `key` (both required)
  // and only talks to servers that prove the same key; kNone sends `entity` as a mere claim.
  auth::AuthMode auth = auth::AuthMode::kNone;
  std::string entity;  // "client.admin", "osd.3"
  auth::CryptoKey key;
};

struct CallOptions {
  std::chrono::milliseconds timeout{0};  // 0: ClientOptions::request_timeout
};

struct ReadShardResult {
  std::vector<Buffer> extents;  // one per requested extent, in order (shorter at end of shard)
  std::uint64_t object_size = 0;
  std::uint64_t version = 0;
};
// One item of a ReadBatch, in request order.
struct ReadBatchItem {
  Status status;                // the item's own: ENOENT, DataLoss, ESTALE, ... (OK: bytes below)
  std::vector<Buffer> extents;  // OK: one per requested extent, in order (shorter at end of shard)
  std::uint64_t object_size = 0;
  std::uint64_t version = 0;
};
// A SubRepairChain's answer (the reply's status travels here, not as the Result's error, so that
// the caller learns which hop failed).
struct ChainResult {
  Status status;                 // the chain's (OK: `partial` holds the slice's partial)
  std::int32_t failed_hop = -1;  // SubRepairChainReply::failed_hop
  Buffer partial;                // OK: the reply's payload; empty on an error
};
struct StatResult {
  std::uint64_t size = 0;
  std::uint64_t version = 0;
  std::vector<Attr> attrs;
};
struct ListResult {
  std::vector<ListEntry> entries;
  std::string next_cursor;
  bool end = true;
};

struct ObjWriteResult {
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
};
struct ObjReadResult {
  Buffer data;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  bool degraded = false;
  std::uint64_t network_bytes = 0;
  std::uint64_t device_bytes = 0;
};
struct ObjStatResult {
  std::uint64_t version = 0;
  std::uint64_t size = 0;
  std::uint64_t mtime = 0;                 // microseconds since the Unix epoch (0: none recorded)
  ObjectForm form = ObjectForm::kErasure;  // how the object is stored (protocol version 5)
};
struct ObjXattrsResult {
  std::uint64_t version = 0;
  std::uint64_t mtime = 0;
  std::vector<Attr> xattrs;  // sorted by name
};
struct ObjListResult {
  std::vector<std::string> objects;
  std::string next_cursor;
  bool end = true;
};

// A snapshot of client counters.
struct ClientCounters {
  std::uint64_t requests_sent = 0;
  std::uint64_t replies_received = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t connects = 0;  // successful connections (incl. reconnects)
  std::uint64_t connection_failures = 0;
  std::uint64_t bytes_out = 0;
  std::uint64_t bytes_in = 0;
  // Handshakes that failed authentication, either way (EACCES; see the header).
  std::uint64_t auth_failures = 0;
};

template <typename T>
using Callback = std::function<void(Result<T>)>;
using StatusCallback = std::function<void(Status)>;

class OsdClient {
 public:
  // Creates the client and starts its io threads; connects lazily on the first request.
  // Errors: EINVAL for bad options (port 0, connections or io_threads out of range, auth cephx
  // without a valid entity name).
  static Result<std::unique_ptr<OsdClient>> Create(ClientOptions options);
  // Close(), then joins the io threads.
  ~OsdClient();
  OsdClient(const OsdClient&) = delete;
  OsdClient& operator=(const OsdClient&) = delete;

  // Opens every connection now and performs the handshake (blocking). Returns the first error
  // (ECONNREFUSED, ETIMEDOUT, EPROTO with the server's refusal reason, ...).
  Status Connect();

  // Fails every pending request with ESHUTDOWN and closes the connections; later calls fail
  // with ESHUTDOWN. Idempotent.
  void Close();

  // Ping: sends `request_payload` and asks for `response_len` bytes back (the bench's RPC).
  void PingAsync(std::vector<Buffer> request_payload, std::uint32_t response_len,
                 Callback<Buffer> done, CallOptions options = {});
  Result<Buffer> Ping(std::vector<Buffer> request_payload, std::uint32_t response_len,
                      CallOptions options = {});

  // WriteShard: `data` (one or more buffers, sent without copying) is the shard data written at
  // request.offset.
  void WriteShardAsync(WriteShardRequest request, std::vector<Buffer> data, StatusCallback done,
                       CallOptions options = {});
  Status WriteShard(WriteShardRequest request, std::vector<Buffer> data, CallOptions options = {});

  // ReadShard: every extent in one request. Errors also: EBADMSG when the reply's lengths do not
  // match the request (more extents, a length above the asked one, sum != payload size).
  void ReadShardAsync(ReadShardRequest request, Callback<ReadShardResult> done,
                      CallOptions options = {});
  Result<ReadShardResult> ReadShard(ReadShardRequest request, CallOptions options = {});

  void StatAsync(StatRequest request, Callback<StatResult> done, CallOptions options = {});
  Result<StatResult> Stat(StatRequest request, CallOptions options = {});

  void ListAsync(ListRequest request, Callback<ListResult> done, CallOptions options = {});
  Result<ListResult> List(ListRequest request, CallOptions options = {});

  void RemoveAsync(RemoveRequest request, StatusCallback done, CallOptions options = {});
  Status Remove(RemoveRequest request, CallOptions options = {});

  // --- PG sub-operations (a PG primary -> the OSD holding one shard; messages.h). ---

  // SubWrite: `data` is the bytes of request.extents back to back (their lengths must sum to its
  // size; none for kRemove).
  void SubWriteAsync(SubWriteRequest request, std::vector<Buffer> data, StatusCallback done,
                     CallOptions options = {});
  Status SubWrite(SubWriteRequest request, std::vector<Buffer> data, CallOptions options = {});

  // SubResolve: the value is the shard's version after the rollback or trim.
  void SubResolveAsync(SubResolveRequest request, Callback<std::uint64_t> done,
                       CallOptions options = {});
  Result<std::uint64_t> SubResolve(SubResolveRequest request, CallOptions options = {});

  // SubState: an error reply is the Result's error, so a value's status field is always OK.
  void SubStateAsync(SubStateRequest request, Callback<SubStateReply> done,
                     CallOptions options = {});
  Result<SubStateReply> SubState(SubStateRequest request, CallOptions options = {});

  // --- Recovery (a PG primary -> the OSDs of its shards; messages.h). ---

  // SubScan: one page of a shard position's objects. An error reply is the Result's error, so a
  // value's status field is always OK. Errors also: EBADMSG when the reply has more entries than
  // request.max_entries.
  void SubScanAsync(SubScanRequest request, Callback<SubScanReply> done, CallOptions options = {});
  Result<SubScanReply> SubScan(SubScanRequest request, CallOptions options = {});

  // SubPull: a whole-request error reply is the Result's error; per-object failures are in the
  // value's results (status OK in the value itself). Errors also: EBADMSG when the reply's results
  // do not match the request's objects (count or names). A pull can take long: pass a timeout.
  void SubPullAsync(SubPullRequest request, Callback<SubPullReply> done, CallOptions options = {});
  Result<SubPullReply> SubPull(SubPullRequest request, CallOptions options = {});

  // SubRepairChain: one slice of a pipelined repair (messages.h). Transport errors (timeout,
  // connection lost) are the Result's error; a reply, OK or not, is the value. Errors also:
  // EBADMSG for an OK reply whose version is not the request's, or an error reply with a payload.
  // The caller checks the partial's size (it knows the plan).
  void SubRepairChainAsync(SubRepairChainRequest request, Callback<ChainResult> done,
                           CallOptions options = {});

  // SubReadBatch: the extents of many shards in one request, each item answered on its own.
  // The value holds one ReadBatchItem per request item, in order; a whole-request error reply
  // (e.g. EMSGSIZE, EINVAL from the server's checks) is the Result's error. An OK item whose
  // version is not its non-zero expect_version is turned into ESTALE here too (the server does
  // so first). Errors also: EBADMSG when the reply does not match the request (number of
  // results, an OK item's lengths count or a length above the asked one, lengths on a failed
  // item, payload size != the sum of the lengths).
  void ReadBatchAsync(SubReadBatchRequest request, Callback<std::vector<ReadBatchItem>> done,
                      CallOptions options = {});
  Result<std::vector<ReadBatchItem>> ReadBatch(SubReadBatchRequest request,
                                               CallOptions options = {});

  // --- Object operations (a client -> the primary of the object's PG; messages.h). ---

  // ObjWrite: `data` (sent without copying) is the object data.
  void ObjWriteAsync(ObjWriteRequest request, std::vector<Buffer> data,
                     Callback<ObjWriteResult> done, CallOptions options = {});
  Result<ObjWriteResult> ObjWrite(ObjWriteRequest request, std::vector<Buffer> data,
                                  CallOptions options = {});

  // ObjRead. Errors also: EBADMSG when the reply carries more bytes than request.length (if not
  // 0).
  void ObjReadAsync(ObjReadRequest request, Callback<ObjReadResult> done, CallOptions options = {});
  Result<ObjReadResult> ObjRead(ObjReadRequest request, CallOptions options = {});

  void ObjStatAsync(ObjStatRequest request, Callback<ObjStatResult> done, CallOptions options = {});
  Result<ObjStatResult> ObjStat(ObjStatRequest request, CallOptions options = {});

  // ObjRemove: the value is the version of the removal.
  void ObjRemoveAsync(ObjRemoveRequest request, Callback<std::uint64_t> done,
                      CallOptions options = {});
  Result<std::uint64_t> ObjRemove(ObjRemoveRequest request, CallOptions options = {});

  // ObjList. Errors also: EBADMSG when the reply has more objects than request.max_entries.
  void ObjListAsync(ObjListRequest request, Callback<ObjListResult> done, CallOptions options = {});
  Result<ObjListResult> ObjList(ObjListRequest request, CallOptions options = {});

  // ObjSetXattrs: the value is the version of the write (messages.h has the semantics).
  void ObjSetXattrsAsync(ObjSetXattrsRequest request, Callback<std::uint64_t> done,
                         CallOptions options = {});
  Result<std::uint64_t> ObjSetXattrs(ObjSetXattrsRequest request, CallOptions options = {});
  // ObjGetXattrs: the object's xattrs and mtime.
  void ObjGetXattrsAsync(ObjGetXattrsRequest request, Callback<ObjXattrsResult> done,
                         CallOptions options = {});
  Result<ObjXattrsResult> ObjGetXattrs(ObjGetXattrsRequest request, CallOptions options = {});

  // ObjDirectRead (a client -> the OSD of one data shard): exactly request.length bytes. Errors
  // also: EBADMSG when the reply carries another number of bytes.
  void ObjDirectReadAsync(ObjDirectReadRequest request, Callback<Buffer> done,
                          CallOptions options = {});

  // ReadLease (an OSD -> a PG primary). Errors also: EBADMSG when the reply has another number
  // of grants than PGs asked.
  void ReadLeaseAsync(ReadLeaseRequest request, Callback<ReadLeaseReply> done,
                      CallOptions options = {});

  ClientCounters counters() const;

  class Impl;

 private:
  explicit OsdClient(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace ec::msg
