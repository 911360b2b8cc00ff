// One object of one PG, as its primary sees it: learning its version from the shards (resolve.h),
// reading any byte range (degraded when shards are missing), writing and removing it across the
// shards (issue 14 items 1-4). One file per job: object_io_resolve.cc, object_io_read.cc,
// object_io_write.cc (writes and removals), object_io_heal.cc.
//
// Writes. A write of part of the object (a range or an append) goes to the shards whose bytes or
// length it changes and to every parity shard, where current (the others keep their version: the
// written shards record which version each position is at, msg/messages.h "Versions"); a
// write_full or remove goes to every shard, stale ones included (the whole rewrite brings them up
// to date); one SubWrite each, in parallel. It is acknowledged when the positions holding it (the
// shards that took it and the current ones it left alone) are at least min_size and every other
// failed only by not answering (a transport error or timeout: its OSD is dying, and is left behind
// as a stale shard). Otherwise the shards that took it are rolled back (SubResolve) and the write
// fails with the first real error, or EAGAIN naming the shards that did not answer: no partial
// object stays visible. When k or more shards may still hold the write (their rollback failed,
// e.g. a newer primary fenced them off, or they never answered), a later resolve may settle it:
// Retryable EINPROGRESS, "may still be applied" (a client must not blindly repeat an append).
// A replicated pool's (PoolCodec::replicated, issue 30) every position is a copy: a write of part
// of the object sends every copy exactly the new bytes (from the old end when it starts past it,
// the gap as zeros), reading nothing first; a write_full sends every copy the object; nothing is
// encoded.
// Small objects of an erasure pool (issue 30 item 2, resolve.h "Object forms"): with io.codec of
// form kReplicas a write sends positions 0..m the object's bytes as a replicated pool's does and
// every position past m an empty shard (kFull; a write of part of the object leaves those alone,
// as it leaves an erasure object's untouched shards), each recording the form; the positions
// count towards min_size as any. A write whose io.codec's form differs from the state's converts
// the object: it must be a whole rewrite (plan.full, the caller gives the whole new content).
//
// Metadata (issue 29). An object's user xattrs and mtime are part of its state, recorded in every
// shard's "_meta" (osd/shard/shard_meta.h) and versioned with it: every write carries them to the
// shards it reaches (SubWriteRequest::meta), and a change of xattrs alone, or of the mtime alone
// (touch), is a write of every current shard's metadata without data (WriteMeta), with its own
// version, undo records and rollback as any write. So every shard at its position's version holds
// the object's xattrs (a change of them moves every position to its version), and every shard at
// the object's version its mtime: any k shards give them, and a read never mixes versions.
//
// Reads. recovery::ReadObjectRange over the shards at the object's version: only the chunk ranges
// covering the byte range, one request per shard; a missing or failing shard makes the read
// degraded, with the least-cost plan (network + 4 KiB-rounded device bytes, this OSD's own shard
// free of network). Shards at another version are never read (the shard source checks every
// reply's version).
// Degraded reads through a repair chain (issue 33; io.chain, osd_repair_pipeline): when the range
// needs bytes of exactly one lost data shard and the mode chooses a chain for them (repair_chain.h
// RepairPipeline: `on` from one slice of that shard's bytes on, `auto` where ChainPaysOff says so,
// the links' cost model over the bandwidths of ChainReads::map), the lost shard's chunks of the
// stripes the range touches are rebuilt by RepairByChain from the current shards (this OSD's own
// first, served by its own ChainService: no message to itself), so this OSD receives one chunk's
// bytes for them instead of k (RS) or d/q (CLAY); the read is then served from those bytes and the
// other data shards' extents (ReadObjectRange with the rebuilt shard as a local one). Every hop
// checks its shard's version and stored length and the requester each partial's length
// (repair_chain.h); a chain that fails, or a read after it that fails, is followed by the direct
// degraded read above, so a chain never changes what a read returns, only how the bytes travel.
// ReadOutcome says which (chained, chain_failure).
//
// Blocking: every function waits for its sub-operations (on the OsdClients' io threads, or this
// OSD's ShardService workers for its own shard) and must
// run on a thread that may block (the primary's workers). Thread safety: callers serialise
// operations on one object.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cluster/map/object_locator.h"
#include "common/metrics.h"
#include "common/status.h"
#include "ec/buffer.h"
#include "msg/client.h"
#include "osd/pg/pool_codecs.h"
#include "osd/pg/repair_chain.h"
#include "osd/pg/resolve.h"
#include "osd/pg/shard_link.h"
#include "osd/pg/write_plan.h"
#include "osd/shard/shard_service.h"
#include "recovery/read_cost.h"

namespace ec::osd::pg {

// The object's metadata: its user xattrs and mtime.
struct ObjectMeta {
  std::uint64_t mtime = 0;        // microseconds since the Unix epoch (0: none recorded)
  std::vector<msg::Attr> xattrs;  // sorted by name
};

// What a write does to the object's metadata. It sets the mtime; `xattrs` is the object's set
// after it when the caller knows it (a new object's is empty). A write that changes the set
// (`changed`) must give it; the other shards it reaches keep theirs when they are current (they
// hold the object's set) and are given it otherwise (WriteObject reads it from a current shard,
// ReadObjectMeta, when a whole rewrite reaches a stale shard and the caller did not give it).
struct MetaUpdate {
  std::uint64_t mtime = 0;
  std::optional<std::vector<msg::Attr>> xattrs;
  bool changed = false;
};

// What the primary knows of one object.
struct ObjectState {
  bool exists = false;
  std::uint64_t version = 0;  // 0: never written (or its shards were all rolled back)
  std::uint64_t size = 0;
  // How `version` is stored (issue 30 item 2): kReplicas, copies on positions 0..m of an erasure
  // pool (read, written and rebuilt with PoolCodec::replicas); kErasure otherwise.
  msg::ObjectForm form = msg::ObjectForm::kErasure;
  // The version each position's shard must be at (msg/messages.h "Versions"); empty: every
  // position at `version`. VersionOf reads it.
  msg::ShardVersions versions;
  std::vector<int> current;            // positions (shards) holding `version`
  std::map<int, std::uint64_t> stale;  // reachable positions behind: position -> its version
  std::uint64_t VersionOf(int position) const { return VersionAt(versions, version, position); }
  bool delta = false;  // the write that made this state updated parity by delta
  // Positions not current whose shard an OSD outside the acting set holds at `version` -> that
  // OSD (found by ResolveObject's search): recovery copies them from there.
  std::map<int, int> copy_from;
  // The object's metadata when this primary knows it (it wrote it, or read it: ReadObjectMeta);
  // null otherwise. Shared: a state is copied on every operation.
  std::shared_ptr<const ObjectMeta> meta;
  // Positions that may still receive a sub-operation of a write that failed: a SubWrite that did
  // not answer in time (it may be applied later), or a rollback that did not. Such a position may
  // leave the version it shows at any time, so a write of part of the object never counts it as
  // holding the write by being left alone (a late SubWrite landing there afterwards undid an
  // acknowledged write: the thrasher's seed-3 mismatch); it rewrites it instead (its version
  // moves on, so the late SubWrite no longer applies), and a write that reaches it clears it.
  std::set<int> suspect;
};

// How ReadObject uses repair chains for degraded reads (object_io.h "Reads"; the primary's, from
// osd_repair_pipeline).
struct ChainReads {
  RepairPipeline mode = RepairPipeline::kOff;
  ChainRepairOptions options;          // a timeout of 0: ObjectIo::timeout
  ChainPlans* plans = nullptr;         // borrowed, thread safe; null: no chains
  MetricsRegistry* metrics = nullptr;  // borrowed, may be null: the chains' counters
  // For auto's cost model (repair_chain.h ChainPaysOff): the map whose OsdEntry::network_bandwidth
  // gives each OSD's link (borrowed; null: every bandwidth unknown) and this OSD's id.
  const cluster::MapHolder* map = nullptr;
  int osd_id = -1;
};

// Everything an operation on one object needs.
struct ObjectIo {
  const cluster::PgLocation* loc = nullptr;
  // The code of the object's form (PoolCodec::ForForm of the state's form): reads use it, a write
  // stores the object in its form (a write in another form than the state's is a conversion: a
  // whole rewrite), and ResolveObject uses its small_copies.
  const PoolCodec* codec = nullptr;
  std::string object;
  // Up position -> the way to its shard (shard_link.h: this OSD's own in process, the others
  // through their OSDs' clients).
  std::map<int, std::shared_ptr<ShardLink>> clients;
  // Up OSDs but this one (OSD id -> client): where ResolveObject looks for shards of the object
  // before it would roll a version back or give up (positions move between OSDs), asking each
  // for every position but the one it is acting for: an OSD of the acting set may hold the shard
  // of a position it held before the positions were permuted among the same OSDs. This OSD's
  // own shards of the other positions are asked in process (SelfLink).
  std::map<int, std::shared_ptr<msg::OsdClient>> others;
  // OSDs outside the acting set that are down but in: they may hold shards of a write that the
  // shards we can ask do not show (resolve.h `unknown`).
  int down_others = 0;
  int self_position = -1;  // the position this OSD holds, if any (read locally: no network)
  // This OSD's shards, for reads of that position (ShardService::ReadNow); null: none here.
  shard::ShardService* shards = nullptr;
  // The map epoch this operation acts at: sent with every SubWrite, SubResolve and SubScan, so
  // that shards refuse this primary's sub-operations once a newer one has peered the PG
  // (osd/shard/interval_fence.h).
  std::uint64_t epoch = 0;
  std::chrono::milliseconds timeout{10000};  // per sub-operation
  // Out (may be null): a write that fails adds the positions it leaves suspect (ObjectState::
  // suspect) here, for the caller to remember with the object (PgTable::Forget).
  std::set<int>* suspect_out = nullptr;
  recovery::ReadCostModel cost;  // weights; `local` is filled from self_position
  // Degraded reads through repair chains (borrowed; null: never). This OSD's own position's hop
  // is served by its own ChainService, reached by the next hop over the network.
  const ChainReads* chain = nullptr;
};

// The link to this OSD's own shards (io.clients' entry of io.self_position), through which any
// position's shards here can be asked about in process; null when this OSD holds no up position
// of the PG.
std::shared_ptr<ShardLink> SelfLink(const ObjectIo& io);

// The state of a settled resolution (r.action == kSettled) of `views`.
ObjectState SettledState(const Resolution& r, const std::vector<ShardView>& views);

// Asks every up shard for its state and decides (rolling back an unfinished write first, see
// resolve.h). When the acting set alone would roll a version back or cannot decide, the OSDs of
// io.others are asked what they hold of each position first (an acknowledged write may sit on
// the OSDs of an earlier acting set). Errors: EIO "pg P object O cannot be read or written: ...;
// shards missing: osd.N (shard i), ..." when fewer than k shards can settle it.
Result<ObjectState> ResolveObject(const ObjectIo& io);

struct ReadOutcome {
  Buffer bytes;
  bool degraded = false;
  std::vector<int> corrupt;         // positions whose reads failed a checksum (self-healing)
  std::uint64_t network_bytes = 0;  // bytes from other OSDs (a chain's partials included)
  std::uint64_t device_bytes = 0;   // 4 KiB-rounded device bytes of every shard read
  // The lost shard's bytes came through a repair chain (io.chain), which brought chain_bytes.
  bool chained = false;
  std::uint64_t chain_bytes = 0;
  // Not OK when a chain was tried and failed: why (the read was then served directly).
  Status chain_failure;
};

// Object bytes [offset, offset + length), length cut at the object's end. Errors: ENOENT for a
// missing object; EINVAL for an offset past the end; EIO "pg P object O: cannot read ...: shards
// missing: ..." when fewer than k shards are readable.
Result<ReadOutcome> ReadObject(const ObjectIo& io, const ObjectState& state, std::uint64_t offset,
                               std::uint64_t length);

// The object's metadata (state.meta when known), else read from one shard at the object's version
// (this OSD's own first; a shard Stat, checked against that version). Errors: ENOENT for a missing
// object; Retryable EAGAIN "pg P object O: no shard at version V gave its metadata: ..." naming
// each failure (the state is older than the shards, or they are unreachable: settle it again).
Result<ObjectMeta> ReadObjectMeta(const ObjectIo& io, const ObjectState& state);

// Applies `plan` with the new bytes `data` as version `version`, and `meta` (MetaUpdate) to the
// object's metadata. Returns the new state (its meta known when the set of xattrs is). Errors
// also: ReadObjectMeta's, when it must read the set first.
Result<ObjectState> WriteObject(const ObjectIo& io, const ObjectState& state, const WritePlan& plan,
                                const Buffer& data, std::uint64_t version, int min_size,
                                MetaUpdate meta);

// WriteObject in form `form` (issue 30 item 2; PoolCodec::ForForm of `pool`, the object's pool
// codec; io.codec is the code of the state's form): when that is io.codec, WriteObject itself;
// otherwise a conversion (or a new object stored as copies): the object's content after the
// write (its old bytes read through io, the write's bytes placed as `plan` says: a plan of
// io.codec's layout) written whole in the new form as version `version`, every position
// rewritten with the new form recorded, acknowledged or rolled back as any write (resolve.h
// "Object forms": a reader sees the old or the new content, each in its form). Keeps the xattrs
// (read first when the state does not know them). Errors: WriteObject's, ReadObject's,
// ReadObjectMeta's.
Result<ObjectState> WriteObjectInForm(const ObjectIo& io, const PoolCodec& pool,
                                      msg::ObjectForm form, const ObjectState& state,
                                      const WritePlan& plan, const Buffer& data,
                                      std::uint64_t version, int min_size, MetaUpdate meta);

// A write of the existing object's metadata alone as version `version` (xattrs changed, or only
// the mtime: touch): every current shard whose OSD is up gets a SubWrite without data that records
// `meta` (`meta.xattrs` required when `meta.changed`), acknowledged at min_size or rolled back as
// any write (object_io.h "Writes"); the positions it does not reach are left stale. Errors: ENOENT
// for a missing object; EINVAL for a change without its set; the write's (EAGAIN, EINPROGRESS,
// ...); ReadObjectMeta's.
Result<ObjectState> WriteMeta(const ObjectIo& io, const ObjectState& state, std::uint64_t version,
                              int min_size, MetaUpdate meta);

// Brings the reachable stale shards up to the object's version by a push from the primary (its
// background recovery uses it only for removed objects; shards of live objects are pulled): the
// object is read (decoded from the current shards) and each stale shard rewritten whole at the
// object's version with its metadata (ReadObjectMeta), or removed when the object is. Objects above
// `max_size` bytes are left alone. Best effort: a shard that fails stays stale. Returns the state
// with the healed shards current.
ObjectState HealStale(const ObjectIo& io, const ObjectState& state, std::uint64_t max_size);

// What every up shard of the object says of itself (SubState), by position: the reply, or the
// error of a shard that did not answer. Positions without a client are left out.
std::map<int, Result<msg::SubStateReply>> AskStates(const ObjectIo& io);

// The whole shard (`sizes`: position -> the bytes it stores) of each listed position at the
// version `state` gives it (ObjectState::VersionOf),
// read at once: this OSD's own from its store; the others with one SubReadBatch each (their OSDs
// serve it on their background threads, behind client operations; a shard above half the
// protocol's payload limit is read with ReadShards instead). The bytes, or that position's error
// (DataLoss for a checksum failure or a shard of another length, ESTALE at another version,
// ENOENT, a transport error). Positions without a client fail ENOENT.
std::map<int, Result<Buffer>> ReadWholeShards(const ObjectIo& io, const ObjectState& state,
                                              const std::map<int, std::uint64_t>& sizes);

// Removes the object (ENOENT when it does not exist) as version `version`.
Result<ObjectState> RemoveObject(const ObjectIo& io, const ObjectState& state,
                                 std::uint64_t version, int min_size);

}  // namespace ec::osd::pg
