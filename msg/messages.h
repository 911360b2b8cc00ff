// Typed messages of the OSD protocol and their message-header (de)serialisation
// (msg/PROTOCOL.md lists every field). A message travels as a frame: fixed header (frame.h),
// then the message header encoded here, then the payload (bulk bytes: shard data, ping bytes),
// which is never part of these structs: it travels beside them as ec::Buffer(s).
//
// Decoding is bounds-checked: every count and string length is compared with Limits and with the
// bytes left before anything is allocated; trailing bytes are an error. Decode errors are
// Status EBADMSG (EMSGSIZE when a count or length exceeds Limits) naming the message and field.
//
// Thread safety: plain values and pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "msg/frame.h"

namespace ec::msg {

// Feature bits announced in the handshake (Hello.features; the reply echoes those the server
// knows). kFeatureBackground: the connection carries background traffic (recovery); the server
// marks its side of the socket as TrafficClass::kBackground (msg/traffic_class.h).
inline constexpr std::uint64_t kFeatureBackground = 1;
inline constexpr std::uint64_t kKnownFeatures = kFeatureBackground;

struct Attr {
  std::string key;
  std::string value;
  bool operator==(const Attr&) const = default;
};

struct ByteExtent {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  bool operator==(const ByteExtent&) const = default;
};

// Handshake. The client's first frame must be a Hello (tag 0); the server answers HelloReply,
// with an error status (then closes) when no version is common, a limit is unacceptable or the
// authentication the server requires is not offered (EACCES). With auth cephx (version 6, issue
// 32; msg/auth/handshake.h) the client then sends an AuthRequest with its proof and the server
// answers an AuthReply; from then on every frame both ways carries a MAC.
inline constexpr std::size_t kAuthNonceLen = 32;  // msg/auth/handshake.h kNonceLen
inline constexpr std::size_t kAuthProofLen = 32;  // msg/auth/handshake.h kProofLen
inline constexpr std::uint32_t kMaxEntityNameLen = 128;
enum class HelloAuth : std::uint8_t { kNone = 0, kCephx = 1 };
using AuthNonce = std::array<std::byte, kAuthNonceLen>;
using AuthProof = std::array<std::byte, kAuthProofLen>;

struct Hello {
  std::uint16_t min_version = kProtocolVersionMin;
  std::uint16_t max_version = kProtocolVersionMax;
  std::uint64_t features = 0;
  std::uint32_t max_header_len = 0;  // what the client accepts in replies
  std::uint32_t max_payload_len = 0;
  std::string name;  // for logs; at most Limits::max_name_len
  HelloAuth auth = HelloAuth::kNone;
  // The entity the client is ("client.admin", "osd.3"; at most kMaxEntityNameLen): proven with
  // auth cephx, a claim without.
  std::string entity = {};
  AuthNonce nonce{};  // with auth cephx only: the client's fresh nonce
};
struct HelloReply {
  Status status;                     // error: refused, the server closes after sending this
  std::uint16_t version = 0;         // chosen version (0 when refused)
  std::uint64_t features = 0;        // common features
  std::uint32_t max_header_len = 0;  // the server's receive limits
  std::uint32_t max_payload_len = 0;
  std::uint32_t max_inflight = 0;  // requests the server reads per connection before waiting
  std::uint32_t max_extents = 0;
  std::uint32_t max_attrs = 0;
  std::uint32_t max_list_entries = 0;
  std::string name;
  HelloAuth auth = HelloAuth::kNone;  // cephx: the nonce below follows
  AuthNonce nonce{};                  // the server's fresh nonce
};
// The client's proof (msg/auth/handshake.h ClientProof), type kAuth, tag 0.
struct AuthRequest {
  AuthProof proof{};
};
// The server's verdict, type kAuthReply, tag 0: an error (EACCES) closes the connection; OK
// carries the server's proof (msg/auth/handshake.h ServerProof), and only then.
struct AuthReply {
  Status status;
  AuthProof proof{};
};

// Ping: the request payload carries N bytes (any content); the reply carries response_len bytes.
struct PingRequest {
  std::uint32_t response_len = 0;
};
struct PingReply {
  Status status;
};

// WriteShard flags.
inline constexpr std::uint32_t kWriteReplace = 1;  // truncate the shard to 0, then write
inline constexpr std::uint32_t kKnownWriteFlags = kWriteReplace;

// Writes the payload at `offset` of one shard and sets `attrs`, all as one store transaction,
// and records `version` as the shard's object version.
struct WriteShardRequest {
  std::string collection;  // placement group, e.g. "pg.1.3"
  std::string object;
  std::uint32_t shard = 0;
  std::uint64_t version = 0;
  std::uint64_t offset = 0;
  std::uint32_t flags = 0;  // kWrite* bits; unknown bits are a decode error
  std::vector<Attr> attrs;
};
struct WriteShardReply {
  Status status;
};

// Reads extents of one shard. The reply's lengths[i] is what extent i returned (shorter than
// asked at the end of the shard); the payload is the extents' bytes concatenated in order.
struct ReadShardRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
  std::vector<ByteExtent> extents;  // at most Limits::max_extents (ValidateRequest: >= 1)
};
struct ReadShardReply {
  Status status;
  std::uint64_t object_size = 0;  // the shard's size (0 if the server does not report it)
  std::uint64_t version = 0;      // the shard's object version (0 if unknown)
  std::vector<std::uint64_t> lengths;
};

struct StatRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
};
struct StatReply {
  Status status;
  std::uint64_t size = 0;
  std::uint64_t version = 0;
  std::vector<Attr> attrs;
};

// Lists the shards of a collection in pages. `cursor` is opaque to the client: empty for the
// first page, then the previous reply's next_cursor (exclusive start).
struct ListRequest {
  std::string collection;
  std::string cursor;
  std::uint32_t max_entries = 0;  // 1..Limits::max_list_entries (ValidateRequest)
};
struct ListEntry {
  std::string object;
  std::uint32_t shard = 0;
  bool operator==(const ListEntry&) const = default;
};
struct ListReply {
  Status status;
  std::vector<ListEntry> entries;
  std::string next_cursor;  // pass back to continue; meaningful when !end
  bool end = true;          // no entries after these
};

struct RemoveRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
};
struct RemoveReply {
  Status status;
};

// --- PG sub-operations: a PG primary -> the OSD holding one shard (osd/pg/). ---
// Versions. A shard's `version` is the version of the write that last changed its bytes (or, for
// a shard rebuilt by recovery, of the write whose bytes it was rebuilt to): every read and every
// prev_version is checked against it. A write that changes only some shards (an overwrite inside
// one data chunk goes to that chunk and the parity) leaves the others at older versions, so each
// written shard also records the object's ShardVersions: position -> the version that position's
// shard must be at for the object as of the newest of them (the object's version, max of the
// vector). Empty means every position at the shard's own version (a whole-object write).
// At most kMaxShardPositions entries (the decoders refuse more: EMSGSIZE).
using ShardVersions = std::vector<std::uint64_t>;
// How an object version is stored (protocol version 5, issue 30 item 2): kErasure as k+m shards of
// its pool's code; kReplicas (an erasure pool's small object, below its ec_min_object_size) as
// m+1 whole copies on positions 0..m, positions m+1..k+m-1 holding an empty shard at the same
// version. Every shard written for a version records its form (the form of every position of
// that version is the same); a replicated pool's objects are kErasure of its repetition code.
enum class ObjectForm : std::uint8_t { kErasure = 0, kReplicas = 1 };
// kRepair rewrites the whole shard at the version it is at (version == prev_version), keeping its
// undo record: the repair of a shard whose bytes failed a checksum or disagree with the others.
enum class SubWriteKind : std::uint8_t { kFull = 0, kRange = 1, kRemove = 2, kRepair = 3 };
// What a SubWrite does to the object's metadata (user xattrs and mtime, msg/xattrs.h) recorded with
// the shard: kKeep leaves the shard's as they are (a remove); kMtime sets the mtime and keeps the
// shard's xattrs (a write to a shard that holds the object's current ones); kReplace sets the
// mtime and replaces the xattrs with the request's (a new object, a shard that may hold older
// ones, an xattr change, a shard rebuilt by a pull).
enum class SubWriteMeta : std::uint8_t { kKeep = 0, kMtime = 1, kReplace = 2 };
// One shard's part of an object write, applied as ONE store transaction that also keeps an undo
// record (the shard's previous state) so that the write can be rolled back (SubResolve).
struct SubWriteRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
  std::uint64_t version = 0;       // the write's version (> prev_version; kRepair: ==)
  std::uint64_t prev_version = 0;  // the version the shard must be at (0: absent/never written)
  SubWriteKind kind = SubWriteKind::kRange;
  std::uint64_t object_size = 0;    // the object's logical size after the write
  std::uint64_t shard_size = 0;     // the shard's size after the write (kRemove: 0)
  std::vector<ByteExtent> extents;  // shard ranges written; payload = their bytes back to back
  // The map epoch the sending primary acts at (interval fencing, osd/shard/interval_fence.h):
  // the shard refuses the write (Retryable ESTALE) when a primary peered the PG at a newer epoch.
  std::uint64_t epoch = 0;
  // Partial writes (issue 28): the version each position's shard holds once the write is applied
  // (ShardVersions below), recorded with the shard; empty: every position at `version`.
  ShardVersions versions = {};
  // The object's metadata after the write (issue 29): `meta` says what changes; `mtime` in
  // microseconds since the Unix epoch (kMtime, kReplace); `xattrs` the object's whole set
  // (kReplace only; ValidateRequest: msg/xattrs.h's limits).
  SubWriteMeta meta = SubWriteMeta::kKeep;
  std::uint64_t mtime = 0;
  std::vector<Attr> xattrs = {};
  // The object's form at `version`, recorded with the shard (not for kRemove).
  ObjectForm form = ObjectForm::kErasure;
};
struct SubWriteReply {
  Status status;
};
enum class SubResolveAction : std::uint8_t { kRollback = 0, kTrim = 1 };
// Settles a SubWrite: kRollback restores the shard's state from before write `version` (from its
// undo record); kTrim drops the undo record of `version` (the write is kept).
struct SubResolveRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
  std::uint64_t version = 0;  // the write to roll back, or to trim the undo record of
  SubResolveAction action = SubResolveAction::kRollback;
  std::uint64_t epoch = 0;  // the sending primary's map epoch (fenced as SubWrite's)
};
struct SubResolveReply {
  Status status;
  std::uint64_t version = 0;  // the shard's version after
};
enum class ShardState : std::uint8_t { kAbsent = 0, kPresent = 1, kRemoved = 2 };
// What one shard holds: its state, version, sizes and pending undo record (peering, recovery).
struct SubStateRequest {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
};
struct SubStateReply {
  Status status;
  ShardState state = ShardState::kAbsent;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  std::uint64_t shard_size = 0;
  std::uint64_t undo_version = 0;          // 0: no undo record
  ShardVersions versions = {};             // the object's, as this shard recorded them (see above)
  ObjectForm form = ObjectForm::kErasure;  // as this shard recorded it (kPresent only)
};

// --- Recovery: a PG primary -> the OSDs of its shards (osd/pg/). ---
// Shard positions a recovery message may name (SubScan, SubPull and its helpers): 0..255, which
// covers every k + m a plugin accepts. ValidateRequest refuses others (EINVAL).
inline constexpr std::uint32_t kMaxShardPositions = 256;
// Helpers of one SubPull; the decoder refuses more (EMSGSIZE).
inline constexpr std::uint32_t kMaxPullHelpers = 64;

// One page of what an OSD holds of one shard position of one PG: every object of that shard whose
// state is not "absent with no undo record", with exactly what SubState would say of it. Used by
// peering to learn each shard's objects and versions.
struct SubScanRequest {
  std::string collection;
  std::uint32_t shard = 0;
  std::string cursor;             // "" from the start; else the previous page's next_cursor
  std::uint32_t max_entries = 0;  // 1..Limits::max_list_entries (ValidateRequest)
  // The map epoch the peering primary acts at: from the first page on, the OSD refuses SubWrite,
  // SubResolve and SubPull of this collection from older epochs (0: no fence raised).
  std::uint64_t epoch = 0;
};
struct SubScanEntry {
  std::string object;
  ShardState state = ShardState::kAbsent;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  std::uint64_t shard_size = 0;
  std::uint64_t undo_version = 0;          // 0: no undo record
  ShardVersions versions = {};             // as SubStateReply
  ObjectForm form = ObjectForm::kErasure;  // as SubStateReply
  bool operator==(const SubScanEntry&) const = default;
};
// What the entries of one SubScan page encode to at most (an OSD ends a page early rather than
// pass it): well under the default header limit (Limits::max_header_len, 64 KiB), whatever the
// object names and versions.
inline constexpr std::uint64_t kMaxScanReplyBytes = 48 * 1024;
struct SubScanReply {
  Status status;
  std::vector<SubScanEntry> entries;  // in object-name order; at most Limits::max_list_entries
  std::string next_cursor;            // meaningful when !end
  bool end = true;
};
// Asks the OSD that is to hold shard `shard` of some objects of a PG to get them itself (recovery
// and backfill pull): kRebuild decodes each object's shard from the helpers through the repair
// engine (the least-cost plan: CLAY reads d*C/q for one lost chunk); kCopy copies the same shard
// position from helpers[0], an OSD that still holds it (backfill after a remap). Each object is
// written locally at `version` in one store transaction, only if the local shard is still at
// `prev_version` (else that object fails ESTALE: a client write got there first). kRepair rebuilds
// as kRebuild does a shard the target holds at `version` already but whose bytes are bad (scrub
// repair, self-healing reads): prev_version == version, written with SubWriteKind::kRepair.
enum class SubPullMode : std::uint8_t { kRebuild = 0, kCopy = 1, kRepair = 2 };
struct SubPullHelper {
  std::uint32_t shard = 0;  // the position it holds
  std::int32_t osd = -1;    // its OSD id (the target finds the address in its map)
  bool operator==(const SubPullHelper&) const = default;
};
struct SubPullObject {
  std::string object;
  std::uint64_t version = 0;       // the object's version to rebuild (helpers must be at it)
  std::uint64_t object_size = 0;   // its logical size at that version
  std::uint64_t prev_version = 0;  // what the target holds now (0: nothing)
  // The object's ShardVersions at `version` (empty: every position at `version`): helper h must
  // be at versions[h], and the rebuilt shard is written at versions[shard] recording them.
  ShardVersions versions = {};
  // Its form at `version`: kReplicas pulls a copy (positions 0..m) from one other copy, or writes
  // the empty shard of a position past m; the rebuilt shard records it.
  ObjectForm form = ObjectForm::kErasure;
  bool operator==(const SubPullObject&) const = default;
};
struct SubPullRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch =
      0;  // the primary's map epoch; the target refuses ESTALE if its map is older
  std::string collection;
  std::uint32_t shard = 0;  // the position the target is to hold
  SubPullMode mode = SubPullMode::kRebuild;
  std::vector<SubPullHelper> helpers;  // at most kMaxPullHelpers
  std::vector<SubPullObject> objects;  // at most Limits::max_list_entries
};
struct SubPullResult {
  std::string object;
  Status status;                    // per object; OK = written
  std::uint64_t network_bytes = 0;  // bytes received from helpers for it
  std::uint64_t device_bytes = 0;   // device bytes the helpers read for it (4 KiB-rounded, as
                                    // the repair engine counts)
  std::uint64_t rebuilt_bytes = 0;  // shard bytes written locally
};
struct SubPullReply {
  Status status;                       // whole-request errors (ESTALE map, unknown pool, ...)
  std::vector<SubPullResult> results;  // one per request object, in request order
};

// --- Batched shard reads: a pulling OSD -> one helper (recovery, osd/pg/pull_service.h). ---
// Reads extents of many shards in one request (typically one helper's share of every object of a
// recovery batch), so that a batch of N small objects costs one round trip per helper instead of
// N. Each item is read and answered on its own, exactly as a ReadShard of it would be (lengths
// shorter than asked at the end of a shard), except that a shard at another version than a
// non-zero expect_version fails that item ESTALE and sends no bytes. A failed item (ENOENT: no
// such shard; DataLoss: checksum failure; ESTALE; ...) fails alone; the other items are answered.
// An item's status message is cut to kMaxBatchItemMessageLen bytes so that the reply's header stays
// within the same header limit as the request's (PROTOCOL.md).
inline constexpr std::uint32_t kMaxBatchItemMessageLen = 128;
struct SubReadBatchItem {
  std::string collection;
  std::string object;
  std::uint32_t shard = 0;
  std::uint64_t expect_version = 0;  // 0: any version
  std::vector<ByteExtent> extents;   // 1..Limits::max_extents (ValidateRequest)
  bool operator==(const SubReadBatchItem&) const = default;
};
struct SubReadBatchRequest {
  std::vector<SubReadBatchItem> items;  // 1..Limits::max_batch_items (ValidateRequest)
};
struct SubReadBatchResult {
  Status status;                       // this item's; an error item carries no lengths and no bytes
  std::uint64_t object_size = 0;       // the shard's size (as ReadShardReply)
  std::uint64_t version = 0;           // the shard's object version (also on ESTALE)
  std::vector<std::uint64_t> lengths;  // OK items: what each extent returned
};
struct SubReadBatchReply {
  Status status;  // whole-request errors only (nothing was read)
  // One per request item, in order. Payload: the bytes of every OK item, item after item, each
  // item's extents back to back.
  std::vector<SubReadBatchResult> results;
};

// --- Pipelined repair (issue 33): a rebuilding OSD -> a chain of helpers (osd/pg/repair_chain.h).
// --- One slice of the repair of shard `lost` of one object, by a chain of helpers in the order of
// `hops` (recovery/pipeline_plan.h: stage i is hops[i], each adding coefficients x its own bytes to
// a partial). The rebuilding OSD (the requester) sends the request to the LAST hop; each hop `h`
// reads its shard's extents for the slice and, when h > 0, asks hop h-1 for the partial of stages
// 0..h-1 with the same request (hop = h-1, a smaller timeout_ms); hop 0 starts from zeros. Each
// hop answers with its partial applied to what it got, so the bytes flow back down the chain of
// replies: every link carries one partial (the slice's share of one chunk) and the requester gets
// the lost chunk's bytes for the slice from the last hop alone.
// Every hop checks its shard is at the object's version (versions[shard], else `version`):
// another version fails the chain ESTALE. The plan (which sub-chunks each hop reads, its
// coefficients) is made by each hop from the pool's code and the hops' positions
// (PipelinePlan::Make with those available); `fingerprint` is the requester's digest of each hop's
// stage, so that a hop whose code disagrees refuses (EPROTO) instead of sending wrong bytes.
inline constexpr std::uint32_t kMaxChainHops = kMaxPullHelpers;
struct SubRepairChainHop {
  std::uint32_t shard = 0;        // the position this hop holds and reads
  std::int32_t osd = -1;          // its OSD id (found in the sender's map)
  std::uint32_t fingerprint = 0;  // ChainStageFingerprint of its stage (repair_chain.h)
  bool operator==(const SubRepairChainHop&) const = default;
};
struct SubRepairChainRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;  // the requester's map epoch (a hop's map must reach it; fenced)
  std::string collection;
  std::string object;
  std::uint32_t lost = 0;               // the position rebuilt (not a hop's)
  std::uint64_t version = 0;            // the object's version the shard is rebuilt at (>= 1)
  std::uint64_t object_size = 0;        // its logical size at that version
  ShardVersions versions = {};          // as SubPullObject::versions
  std::uint64_t first_stripe = 0;       // the slice (recovery::PipelineSlice)
  std::uint64_t stripes = 0;            // >= 1
  std::uint64_t offset = 0;             // within each sub-chunk
  std::uint64_t length = 0;             // >= 1
  std::vector<SubRepairChainHop> hops;  // 1..kMaxChainHops, distinct positions, chain order
  std::uint32_t hop = 0;                // the receiver's index in `hops`
  std::uint32_t timeout_ms = 0;         // the receiver must answer within this (>= 1)
};
struct SubRepairChainReply {
  Status status;
  // The hop whose failure this is (its own read, plan or check; or it did not answer its
  // successor in time), -1 when none is known (OK, or a request refused as a whole).
  std::int32_t failed_hop = -1;
  std::uint64_t version = 0;  // OK: the request's version, echoed
};  // payload (OK) = the partial of stages 0..hop for the slice (PipelinePlan::PartialBytes)

// --- Object operations: a client -> the primary of the object's PG. ---
enum class ObjWriteMode : std::uint8_t { kWrite = 0, kWriteFull = 1, kAppend = 2, kTruncate = 3 };
// kWrite: the payload at `offset` (the object grows if needed); kWriteFull: the payload becomes
// the whole object; kAppend: the payload goes at the object's end; kTruncate (no payload): the
// object's size becomes `offset`, cut or grown with zeros (an absent object: nothing happens, as
// Ceph's truncate). Every write sets the object's mtime; its xattrs stay.
struct ObjWriteRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;  // the client's map epoch
  std::string object;
  ObjWriteMode mode = ObjWriteMode::kWrite;
  std::uint64_t offset = 0;  // kWrite: where; kTruncate: the new size; 0 otherwise
  // How long after it arrives the primary may still begin it, in ms (0: no limit). A try that
  // its client gave up on must not be applied later (held behind peering or a resolve that waits
  // on a stopped OSD): past it the primary answers ECANCELED, having sent nothing to any shard.
  std::uint32_t start_within_ms = 0;
};
struct ObjWriteReply {
  Status status;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
};
struct ObjReadRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;
  std::string object;
  std::uint64_t offset = 0;
  std::uint64_t length = 0;  // 0: to the end of the object
};
struct ObjReadReply {
  Status status;
  std::uint64_t version = 0;
  std::uint64_t object_size = 0;
  bool degraded = false;            // a shard was missing or failed: the bytes were decoded
  std::uint64_t network_bytes = 0;  // what the primary read over the network for it
  std::uint64_t device_bytes = 0;   // 4 KiB-rounded device bytes read by the OSDs for it
};                                  // payload = the bytes read
struct ObjStatRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;
  std::string object;
};
struct ObjStatReply {
  Status status;
  std::uint64_t version = 0;
  std::uint64_t size = 0;
  std::uint64_t mtime = 0;                 // microseconds since the Unix epoch (0: none recorded)
  ObjectForm form = ObjectForm::kErasure;  // how the object is stored (ec-rados stat)
};
struct ObjRemoveRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;
  std::string object;
  std::uint32_t start_within_ms = 0;  // as ObjWriteRequest's
};
struct ObjRemoveReply {
  Status status;
  std::uint64_t version = 0;
};
// Lists the objects of one PG in pages; `cursor` as in ListRequest.
struct ObjListRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;
  std::uint32_t pg = 0;
  std::string cursor;
  std::uint32_t max_entries = 0;  // 1..Limits::max_list_entries (ValidateRequest)
};
struct ObjListReply {
  Status status;
  std::vector<std::string> objects;
  std::string next_cursor;
  bool end = true;
};

// --- Object metadata (issue 29): a client -> the primary of the object's PG. ---
// ObjSetXattrsRequest::flags. kXattrsCreate: an absent object is created (empty) by the request;
// kXattrsMtime: `mtime` is the object's new mtime (else the primary's clock gives it).
inline constexpr std::uint8_t kXattrsCreate = 1;
inline constexpr std::uint8_t kXattrsMtime = 2;
inline constexpr std::uint8_t kKnownXattrsFlags = kXattrsCreate | kXattrsMtime;
// Changes an object's user xattrs as one write (a new version on every shard, as atomic as any
// write): each of `set` added or replaced, then each of `remove` taken out (an absent name is no
// error, as Ceph's rmxattr); the object's mtime becomes the primary's clock, or `mtime` with
// kXattrsMtime (rados touch OBJ TIMESTAMP). An absent object is created empty
// with kXattrsCreate (setxattr, touch), else ENOENT (rmxattr). With nothing to set or remove it
// sets the mtime only (touch). Errors also: msg/xattrs.h's (ENAMETOOLONG, EFBIG, E2BIG for the
// object's set after the change).
struct ObjSetXattrsRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;  // the client's map epoch
  std::string object;
  std::uint8_t flags = 0;  // kXattrs*; unknown bits are a decode error
  std::vector<Attr> set;
  std::vector<std::string> remove;
  std::uint64_t mtime = 0;            // microseconds since the Unix epoch (with kXattrsMtime)
  std::uint32_t start_within_ms = 0;  // as ObjWriteRequest's
};
struct ObjSetXattrsReply {
  Status status;
  std::uint64_t version = 0;  // the write's
};
// The object's user xattrs (sorted by name) and mtime. ENOENT for an absent object.
struct ObjGetXattrsRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;
  std::string object;
};
struct ObjGetXattrsReply {
  Status status;
  std::uint64_t version = 0;
  std::uint64_t mtime = 0;  // as ObjStatReply's
  std::vector<Attr> xattrs;
};

// --- Direct reads (issue 28 item 3): a client -> the OSD holding the data chunk it reads. ---
// Object bytes [offset, offset + length) that lie inside one chunk of one stripe, read from the
// shard `shard` of the object's PG on the OSD the client's map places it at. The OSD serves it
// only when it can vouch for its shard (osd/pg/read_lease.h: a live read lease from the PG's
// primary for the PG's current interval, the shard's version settled, the bytes present with good
// checksums); otherwise it refuses (Retryable EAGAIN, "cannot vouch ...") and the client reads
// through the primary. The reply carries no version or object size: the shard does not know the
// object's (a partial write may have left it at an older version).
struct ObjDirectReadRequest {
  std::uint64_t pool = 0;
  std::uint64_t epoch = 0;  // the client's map epoch
  std::string object;
  std::uint32_t shard = 0;   // the chunk id (position) the client located the bytes in
  std::uint64_t offset = 0;  // object offset
  std::uint64_t length = 0;  // >= 1
};
struct ObjDirectReadReply {
  Status status;
};  // payload = exactly `length` bytes

// --- Read leases (issue 28 item 3): an OSD -> the primary of PGs it holds a shard of. ---
// "May I serve direct reads of my shard of these PGs for duration_ms from when I asked?"
struct ReadLeasePg {
  std::uint64_t pool = 0;
  std::uint32_t pg = 0;
};
struct ReadLeaseRequest {
  std::int32_t osd = 0;           // the asking OSD (>= 0)
  std::uint64_t epoch = 0;        // its map epoch
  std::uint32_t duration_ms = 0;  // 1..kMaxReadLeaseMs
  std::vector<ReadLeasePg> pgs;   // 1..Limits::max_list_entries
};
inline constexpr std::uint32_t kMaxReadLeaseMs = 60000;
struct ReadLeaseGrant {
  std::uint64_t pool = 0;
  std::uint32_t pg = 0;
  bool granted = false;
  std::uint64_t epoch = 0;  // the primary's map epoch when it granted
  // Every write of the PG with a version below this one is settled (acknowledged, or rolled
  // forward or back everywhere); no later write of this primary gets a version below it.
  std::uint64_t settled_below = 0;
  std::vector<std::int32_t> acting;  // the PG's acting set the lease is for (-1: none there)
};
struct ReadLeaseReply {
  Status status;
  std::uint32_t duration_ms = 0;       // what was granted (at most what was asked)
  std::vector<ReadLeaseGrant> grants;  // one per asked PG, in the request's order
};

using RequestBody =
    std::variant<PingRequest, WriteShardRequest, ReadShardRequest, StatRequest, ListRequest,
                 RemoveRequest, SubWriteRequest, SubResolveRequest, SubStateRequest,
                 ObjWriteRequest, ObjReadRequest, ObjStatRequest, ObjRemoveRequest, ObjListRequest,
                 SubScanRequest, SubPullRequest, SubReadBatchRequest, ObjDirectReadRequest,
                 ReadLeaseRequest, ObjSetXattrsRequest, ObjGetXattrsRequest, SubRepairChainRequest>;
using ReplyBody =
    std::variant<PingReply, WriteShardReply, ReadShardReply, StatReply, ListReply, RemoveReply,
                 SubWriteReply, SubResolveReply, SubStateReply, ObjWriteReply, ObjReadReply,
                 ObjStatReply, ObjRemoveReply, ObjListReply, SubScanReply, SubPullReply,
                 SubReadBatchReply, ObjDirectReadReply, ReadLeaseReply, ObjSetXattrsReply,
                 ObjGetXattrsReply, SubRepairChainReply>;

// The message type of a body.
MsgType TypeOf(const RequestBody& body);
MsgType TypeOf(const ReplyBody& body);
// The status carried by a reply body.
const Status& StatusOf(const ReplyBody& body);
// A reply body of the type answering `request` that carries only `status` (an error reply).
ReplyBody ErrorReply(MsgType request, Status status);

// Semantic checks of a decoded request that the Server makes before calling the handler (a
// failure is answered with an EINVAL error reply; the connection stays open): non-empty
// collection and object names; ReadShard: 1..max_extents extents, no offset + length overflow,
// total length <= reply_payload_limit (the client's announced max_payload_len); List:
// max_entries in 1..limits.max_list_entries; WriteShard: offset + payload_len no overflow.
// SubWrite: at most max_extents extents, no offset + length overflow, the extents' lengths sum to
// payload_len exactly, kRemove carries neither extents nor payload, non-empty `versions` (but for
// kRemove) give `shard` the write's `version`, xattrs only with kReplace and within
// msg/xattrs.h's limits (CheckXattrSet's errors). ObjWrite / ObjRead / ObjStat / ObjRemove /
// ObjSetXattrs / ObjGetXattrs: object name 1..max_name_len bytes; ObjWrite: offset + payload_len no
// overflow, offset 0 unless kWrite or kTruncate, no payload with kTruncate; ObjSetXattrs: each of
// `set` and `remove` as CheckXattr, at most kMaxXattrs of each, `set` within kMaxXattrsBytes
// (E2BIG), no payload; ObjRead: offset + length no overflow, length <= reply_payload_limit
// (EMSGSIZE); ObjList: max_entries in 1..max_list_entries. SubScan: non-empty collection, shard <
// kMaxShardPositions, max_entries in 1..max_list_entries. SubPull: non-empty collection, shard and
// every helper's shard < kMaxShardPositions, every helper's osd >= 0, at least one helper (kCopy:
// helpers[0] holds `shard`), at most kMaxPullHelpers helpers and max_list_entries objects (an empty
// object list is valid: an empty reply), each object name 1..max_name_len bytes and version >= 1.
// SubReadBatch: 1..max_batch_items items, each with a non-empty collection and object and
// 1..max_extents extents without offset + length overflow; the extents of every item together at
// most reply_payload_limit bytes (EMSGSIZE). ObjDirectRead: object name 1..max_name_len bytes,
// shard < kMaxShardPositions, length >= 1, no offset + length overflow, length <=
// reply_payload_limit (EMSGSIZE). ReadLease: osd >= 0, duration_ms in 1..kMaxReadLeaseMs,
// 1..max_list_entries PGs. SubRepairChain: non-empty collection, object name 1..max_name_len bytes,
// version >= 1, lost < kMaxShardPositions, 1..kMaxChainHops hops of distinct positions below
// kMaxShardPositions other than `lost` with osd >= 0, hop < hops.size(), stripes >= 1, length >= 1,
// first_stripe + stripes and offset + length without overflow, stripes x length (the smallest
// partial) <= reply_payload_limit (EMSGSIZE), timeout_ms >= 1, no payload.
Status ValidateRequest(const RequestBody& body, std::uint64_t payload_len, const Limits& limits,
                       std::uint64_t reply_payload_limit);

// Encoders append the message header to `out`. A status message longer than
// Limits{}.max_message_len is cut so that the peer accepts it. Cannot fail.
void EncodeHello(const Hello& m, std::vector<std::byte>& out);
void EncodeHelloReply(const HelloReply& m, std::vector<std::byte>& out);
void EncodeAuthRequest(const AuthRequest& m, std::vector<std::byte>& out);
void EncodeAuthReply(const AuthReply& m, std::vector<std::byte>& out);
void EncodeRequest(const RequestBody& m, std::vector<std::byte>& out);
void EncodeReply(const ReplyBody& m, std::vector<std::byte>& out);

// Encoded sizes, for senders that fill a request up to Limits::max_header_len (a recovery pull's
// batched reads): exactly the bytes EncodeRequest writes for the request, and for one item of it
// (the request is its item count, 4 bytes, then its items). Pure; cannot fail.
std::uint64_t EncodedSize(const SubReadBatchItem& item);
// The bytes one SubScanReply entry takes in the reply's header.
std::uint64_t EncodedSize(const SubScanEntry& entry);
std::uint64_t EncodedSize(const SubReadBatchRequest& request);

// Decoders read exactly `bytes` (the frame's message header) as a message of type `type`.
// Errors: EBADMSG for a short or over-long header, a bad enum, bool or flag value (the message
// names the field), a wrong type for this decoder; EMSGSIZE for a count or length above `limits`.
Result<Hello> DecodeHello(std::span<const std::byte> bytes, const Limits& limits);
Result<HelloReply> DecodeHelloReply(std::span<const std::byte> bytes, const Limits& limits);
Result<AuthRequest> DecodeAuthRequest(std::span<const std::byte> bytes);
Result<AuthReply> DecodeAuthReply(std::span<const std::byte> bytes, const Limits& limits);
Result<RequestBody> DecodeRequest(MsgType type, std::span<const std::byte> bytes,
                                  const Limits& limits);
Result<ReplyBody> DecodeReply(MsgType type, std::span<const std::byte> bytes, const Limits& limits);

}  // namespace ec::msg
