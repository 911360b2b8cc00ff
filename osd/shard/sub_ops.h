// The shard side of a PG write (issue 14 item 2): SubWrite, SubResolve and SubState on one store;
// and of peering's scan (issue 15): SubScan.
//
// Every SubWrite is ONE store transaction that applies the shard's part of an object write AND
// keeps an undo record of the shard's previous state, so that a write the PG primary could not
// finish on enough shards can be rolled back, leaving every shard at the old version:
//
//   shard S of object O      store object "O#S"        data, "_meta" (version, object size,
//                                                      the object's per-position versions)
//   its undo record          store object "O#S~undo"   "_undo" (UndoRecord below), plus
//                                                      - for a full rewrite or a remove: the old
//                                                        shard itself, moved there by a Rename
//                                                        (no data copied), with its "_meta";
//                                                      - for a range write: the old bytes of the
//                                                        ranges written, at the same offsets
//                                                        (the store blocks the write overwrites
//                                                        whole are moved there, not copied:
//                                                        store::Transaction::MoveBlocks).
//
// A shard keeps at most one undo record: the primary serialises the writes of an object and sends
// version v+1 only once v is settled (acknowledged, or rolled forward from k shards), so the record
// of v is dropped in v+1's transaction. A remove leaves its undo record as a tombstone ("removed at
// v"), which SubResolve kTrim drops once the remove is settled. Undo names never parse as shard
// names (ParseShardObjectName), so List skips them.
//
// A SubWrite records its `versions` with the shard (msg/messages.h "Versions"): a range write
// replaces the ones the shard had, a repair keeps them unless it brings its own. It records the
// object's metadata (user xattrs and mtime, shard_meta.h) as its `meta` says: kKeep keeps the
// shard's, kMtime sets the mtime and keeps the shard's xattrs, kReplace sets both; in the same
// "_meta" as the version, so a rollback restores them with the bytes (a range write's undo record
// keeps the old "_meta"; a full rewrite's is the old shard itself). A change of the metadata
// alone is a range write without extents.
//
// The shard's state, as SubState reports it: present at meta.version when "O#S" exists; removed at
// v when it does not and an undo record of a remove at v does; absent (version 0) otherwise.
//
// Errors (as Status, sent back in the reply): ESTALE "shard at version X, the write expects Y"
// when the shard is not at the write's prev_version (a SubWrite of the version the shard is
// already at succeeds without change: a retried write; a kFull write with prev_version 0 of a
// version above a tombstone's is taken over it: both sides mean "no object"); the store's errors
// (ENOSPC, DataLoss, ...); DataLoss for a corrupt undo record or "_meta". A rollback of the shard's
// current version without its undo record (written by a recovery pull, or the record used up by a
// later write's rollback) removes the shard: the primary rolls back only versions never
// acknowledged, so its bytes are worthless, and recovery rebuilds the position at the version the
// object settles on.
//
// Thread safety: callers serialise operations on one shard (ShardService's per-shard strands).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/status.h"
#include "ec/buffer.h"
#include "msg/messages.h"
#include "osd/shard/shard_meta.h"
#include "osd/store/object_store.h"

namespace ec::osd::shard {

// The store attribute on a shard's "_meta" record holding the object's logical size (decimal).
inline constexpr const char* kObjectSizeAttr = "ec.object_size";

// Applies `request` (its payload: `data`). `create_collection`: the transaction also creates the
// collection (EEXIST from the store when another write created it meanwhile: call again without).
Status ApplySubWrite(store::ObjectStore& store, const msg::SubWriteRequest& request,
                     const Buffer& data, bool create_collection);

// ApplySubWrite in two steps, for a caller that applies the transaction itself (asynchronously):
// the checks against the shard's current state and the transaction that applies `request`, or
// nullopt when the shard already is at the write's version (a retried write: nothing to apply).
// Not for kRepair (EINVAL). The shard must not change between this and the transaction's commit
// (the caller holds the shard's strand until then).
Result<std::optional<store::Transaction>> BuildSubWrite(store::ObjectStore& store,
                                                        const msg::SubWriteRequest& request,
                                                        const Buffer& data, bool create_collection);

// kRollback of version v: when the shard is at v and holds the undo record of v, restores the
// previous state (one transaction); at v without it, removes the shard (returns 0); when the shard
// is not at v, nothing to do. kTrim: drops the
// undo record if it is of a version <= v. Returns the shard's version afterwards.
Result<std::uint64_t> ApplySubResolve(store::ObjectStore& store,
                                      const msg::SubResolveRequest& request);

// The shard's state (status OK in the reply; a missing collection is an absent shard).
Result<msg::SubStateReply> ReadSubState(store::ObjectStore& store,
                                        const msg::SubStateRequest& request);

// One page of the objects of shard position `request.shard` in `request.collection`, in object-name
// order after `request.cursor` (exclusive), each with exactly what ReadSubState reports of it;
// objects that are absent with no undo record are left out (a removed shard whose undo record is
// still there is listed: kRemoved). At most request.max_entries entries, and entries of at most
// msg::kMaxScanReplyBytes together (at least one entry per page); end is true when no
// object follows them, else next_cursor is the last object name the page covered (a page may hold
// fewer than max_entries entries and still not be the end). A missing collection is an empty page
// with end = true. Store names that are neither "O#S" nor "O#S~undo" for this S are skipped.
// Cost: the store's listing is read from the cursor on until no later name can belong to an
// object before the page's last (names whose bytes are all above '#' stop right after it; others
// may read to the end of the collection), plus one ReadSubState per listed object.
// Not atomic with writes: unlike SubState, the scan does not run on each object's strand, so an
// object written meanwhile may be reported before or after the write (or, between the shard and
// its undo record, a mix): scan while the PG takes no writes (peering), or re-read with SubState.
// Errors: EINVAL for max_entries 0; the store's errors (EIO, DataLoss for a corrupt "_meta" or
// undo record).
Result<msg::SubScanReply> ScanShards(store::ObjectStore& store, const msg::SubScanRequest& request);

// The object's size a shard's "_meta" records (kObjectSizeAttr; 0 without one or when it does
// not parse).
std::uint64_t ObjectSizeOf(const ShardMeta& meta);

// The undo record's store name for a shard's store name.
std::string UndoObjectName(const std::string& shard_object_name);

}  // namespace ec::osd::shard
