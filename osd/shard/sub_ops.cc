#include "osd/shard/sub_ops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <optional>
#include <set>
#include <vector>

#include "common/codec.h"
#include "osd/shard/shard_meta.h"
#include "osd/store/transaction.h"

namespace ec::osd::shard {
namespace {

constexpr const char* kUndoAttr = "_undo";
constexpr std::uint32_t kUndoFormat = 1;

// How the undo record brings the shard back.
enum class UndoKind : std::uint8_t {
  kDelete = 0,      // the shard did not exist: remove it
  kRenameBack = 1,  // the undo object IS the old shard: move it back
  kRanges = 2,      // the undo object holds the old bytes of `ranges`; then truncate, old _meta
};

// Encoding (little endian): u32 format | u64 version | u64 prev_version | u8 kind | u8 removed |
// u64 prev_size | u32 len + prev_meta | u32 count | count x (u64 offset, u64 length).
struct UndoRecord {
  std::uint64_t version = 0;       // the write this record undoes
  std::uint64_t prev_version = 0;  // the shard's version before it
  UndoKind kind = UndoKind::kDelete;
  bool removed = false;  // the write removed the shard (a tombstone while the record lives)
  std::uint64_t prev_size = 0;
  std::string prev_meta;
  std::vector<msg::ByteExtent> ranges;
};

std::string EncodeUndo(const UndoRecord& u) {
  std::string out;
  Encoder e(out);
  e.U32(kUndoFormat);
  e.U64(u.version);
  e.U64(u.prev_version);
  e.U8(static_cast<std::uint8_t>(u.kind));
  e.U8(u.removed ? 1 : 0);
  e.U64(u.prev_size);
  e.String(u.prev_meta);
  e.U32(static_cast<std::uint32_t>(u.ranges.size()));
  for (const msg::ByteExtent& r : u.ranges) {
    e.U64(r.offset);
    e.U64(r.length);
  }
  return out;
}

Result<UndoRecord> DecodeUndo(const std::string& bytes, const std::string& label) {
  Decoder d(std::string_view{bytes});
  UndoRecord u;
  std::uint32_t format = 0, count = 0;
  std::uint8_t kind = 0, removed = 0;
  const bool ok = d.U32(&format, "format") && format == kUndoFormat &&
                  d.U64(&u.version, "version") && d.U64(&u.prev_version, "prev_version") &&
                  d.U8(&kind, "kind") && kind <= 2 && d.U8(&removed, "removed") && removed <= 1 &&
                  d.U64(&u.prev_size, "prev_size") &&
                  d.String(&u.prev_meta, static_cast<std::uint32_t>(bytes.size()), "prev_meta") &&
                  d.Count(&count, static_cast<std::uint32_t>(bytes.size()), 16, "ranges");
  if (!ok) return Status::DataLoss("corrupt undo record of " + label);
  u.kind = static_cast<UndoKind>(kind);
  u.removed = removed == 1;
  u.ranges.resize(count);
  for (msg::ByteExtent& r : u.ranges) {
    if (!d.U64(&r.offset, "offset") || !d.U64(&r.length, "length")) {
      return Status::DataLoss("corrupt undo record of " + label);
    }
  }
  if (!d.AtEnd()) return Status::DataLoss("corrupt undo record of " + label + " (trailing bytes)");
  return u;
}

// What one shard holds now.
struct ShardNow {
  bool exists = false;
  std::string raw_meta;  // "_meta" as stored ("" when absent or without one)
  ShardMeta meta;
  std::uint64_t size = 0;  // the shard's bytes
  std::optional<UndoRecord> undo;

  std::uint64_t version() const {
    if (exists) return meta.version;
    if (undo && undo->removed) return undo->version;
    return 0;
  }
};

void SetObjectSize(ShardMeta& meta, std::uint64_t size) {
  SetMetaAttr(meta, kObjectSizeAttr, std::to_string(size));
}

// The object's metadata of the new record `meta` from the write (SubWriteRequest::meta) and the
// shard's record before it (`old`, null when the shard did not exist).
void ApplyObjectMeta(const ShardMeta* old, const msg::SubWriteRequest& w, ShardMeta& meta) {
  if (w.meta == msg::SubWriteMeta::kReplace) {
    SetXattrs(meta, w.xattrs);
  } else {
    SetXattrs(meta, old != nullptr ? XattrsOf(old->attrs) : std::vector<msg::Attr>{});
  }
  const std::uint64_t mtime = w.meta == msg::SubWriteMeta::kKeep
                                  ? (old != nullptr ? DecimalAttr(old->attrs, kMtimeAttr) : 0)
                                  : w.mtime;
  if (mtime != 0) SetMetaAttr(meta, kMtimeAttr, std::to_string(mtime));
}

bool Missing(const Status& s) {
  return s.code() == ENOENT && !s.is_data_loss();
}

Result<ShardNow> Load(store::ObjectStore& store, const std::string& coll, const std::string& name) {
  ShardNow now;
  auto got = store.ReadWithAttr(coll, name, {}, kShardMetaAttr);
  if (got.ok()) {
    now.exists = true;
    now.size = got->size;
    if (got->attr) {
      now.raw_meta = *got->attr;
      auto meta = DecodeShardMeta(*got->attr);
      if (!meta.ok()) return meta.status();
      now.meta = std::move(meta).value();
    }
  } else if (!Missing(got.status())) {
    return got.status();
  }
  const std::string undo_name = UndoObjectName(name);
  auto undo = store.GetAttr(coll, undo_name, kUndoAttr);
  if (undo.ok()) {
    auto decoded = DecodeUndo(*undo, coll + "/" + name);
    if (!decoded.ok()) return decoded.status();
    now.undo = std::move(decoded).value();
  } else if (!Missing(undo.status()) && undo.status().code() != ENODATA) {
    return undo.status();
  }
  return now;
}

constexpr std::string_view kUndoSuffix = "~undo";

// The object whose shard `shard` store name `name` is, as a shard ("O#S") or as its undo record
// ("O#S~undo").
bool ScannedObject(const std::string& name, std::uint32_t shard, std::string* object) {
  std::uint32_t s = 0;
  if (ParseShardObjectName(name, object, &s)) return s == shard;
  if (!name.ends_with(kUndoSuffix)) return false;
  return ParseShardObjectName(name.substr(0, name.size() - kUndoSuffix.size()), object, &s) &&
         s == shard;
}

// True when no store name after `name` (in byte order) can be "O#..." with O <= `last`. A later
// name "O#..." has O > last unless O is a proper prefix of `last` whose next byte in `name` sorts
// at or below '#' (then "O#..." may sort after `name` though O < last): the bytes of `name` up to
// where it passes `last` are checked for that.
bool PastObject(const std::string& name, const std::string& last) {
  const auto [n, l] = std::mismatch(name.begin(), name.end(), last.begin(), last.end());
  if (l == last.end() || n == name.end()) return false;  // one is a prefix of the other
  if (static_cast<unsigned char>(*n) < static_cast<unsigned char>(*l)) return false;
  return std::all_of(name.begin() + 1, n + 1,
                     [](char c) { return static_cast<unsigned char>(c) > '#'; });
}

// The write's bytes (its payload, `data`) to the shard's extents, then its size, in `t`.
Status AddShardBytes(store::Transaction& t, const msg::SubWriteRequest& w, const std::string& name,
                     const Buffer& data) {
  std::uint64_t pos = 0;
  for (const msg::ByteExtent& e : w.extents) {
    if (e.length > data.size() - pos) return Status::Invalid("sub-write payload too short");
    t.Write(w.collection, name, e.offset, data.Slice(pos, e.length));
    pos += e.length;
  }
  t.Truncate(w.collection, name, w.shard_size);
  return Status::OK();
}

// SubWriteKind::kRepair: the shard's bytes are replaced at the version it is at. The undo record
// stays (it belongs to that version's write and is still what a rollback of it needs); the old
// bytes go first (truncated to 0), so that no block of them, the bad one included, survives.
Status ApplyRepair(store::ObjectStore& store, const msg::SubWriteRequest& w, const Buffer& data,
                   const ShardNow& now) {
  const std::string name = ShardObjectName(w.object, w.shard);
  if (!now.exists || now.version() != w.version) {
    return Status::Error(
        ESTALE, fmt::format("shard {}/{} is at version {}{}, the repair is of {}", w.collection,
                            name, now.version(), now.exists ? "" : " (absent)", w.version));
  }
  ShardMeta meta = now.meta;
  SetObjectSize(meta, w.object_size);
  SetForm(meta, w.form);
  ApplyObjectMeta(&now.meta, w, meta);
  if (!w.versions.empty()) meta.versions = w.versions;
  store::Transaction t;
  t.Truncate(w.collection, name, 0);
  EC_RETURN_IF_ERROR(AddShardBytes(t, w, name, data));
  t.SetAttr(w.collection, name, kShardMetaAttr, EncodeShardMeta(meta));
  return store.Apply(t);
}

}  // namespace

std::string UndoObjectName(const std::string& shard_object_name) {
  return shard_object_name + "~undo";
}

Status ApplySubWrite(store::ObjectStore& store, const msg::SubWriteRequest& w, const Buffer& data,
                     bool create_collection) {
  if (w.kind == msg::SubWriteKind::kRepair) {
    auto loaded = Load(store, w.collection, ShardObjectName(w.object, w.shard));
    if (!loaded.ok()) return loaded.status();
    return ApplyRepair(store, w, data, *loaded);
  }
  auto built = BuildSubWrite(store, w, data, create_collection);
  if (!built.ok()) return built.status();
  if (!built->has_value()) return Status::OK();  // a retried write
  return store.Apply(**built);
}

Result<std::optional<store::Transaction>> BuildSubWrite(store::ObjectStore& store,
                                                        const msg::SubWriteRequest& w,
                                                        const Buffer& data,
                                                        bool create_collection) {
  if (w.kind == msg::SubWriteKind::kRepair) {
    return Status::Invalid("a repair SubWrite is applied, not built (ApplySubWrite)");
  }
  const std::string name = ShardObjectName(w.object, w.shard);
  const std::string undo_name = UndoObjectName(name);
  auto loaded = Load(store, w.collection, name);
  if (!loaded.ok()) return loaded.status();
  const ShardNow& now = *loaded;
  const std::uint64_t current = now.version();
  if (w.version != 0 && current == w.version) {
    return std::optional<store::Transaction>();  // a retried write
  }
  // A create over a remove's tombstone: a primary knows an object that every shard removed as
  // absent ("at version 0": its table keeps no entry for it, osd/pg/pg_table.h), the shard as
  // "removed at v". Both mean no object, so a whole write of a version above v takes it as it
  // would take an absent shard (refusing it cost every create after a remove a failed round, the
  // client's retry and a resolve). A late create of a version below v stays refused.
  const bool over_tombstone = !now.exists && now.undo && now.undo->removed && w.prev_version == 0 &&
                              w.kind == msg::SubWriteKind::kFull && w.version > current;
  if (current != w.prev_version && !over_tombstone) {
    return Status::Error(ESTALE,
                         fmt::format("shard {}/{} is at version {}, the write of version "
                                     "{} expects {}",
                                     w.collection, name, current, w.version, w.prev_version));
  }
  if (w.version <= w.prev_version) {
    return Status::Invalid(
        fmt::format("write version {} is not above {}", w.version, w.prev_version));
  }
  if (w.kind == msg::SubWriteKind::kRange && now.exists && w.shard_size < now.size) {
    return Status::Invalid(fmt::format("a range write may not shrink shard {} ({} -> {} bytes)",
                                       name, now.size, w.shard_size));
  }

  store::Transaction t;
  if (create_collection) t.CreateCollection(w.collection);
  // The previous record belongs to a settled write (see the header): it goes.
  if (now.undo) t.Remove(w.collection, undo_name);
  UndoRecord u;
  u.version = w.version;
  u.prev_version = current;
  u.removed = w.kind == msg::SubWriteKind::kRemove;
  if (!now.exists) {
    u.kind = UndoKind::kDelete;
    t.Touch(w.collection, undo_name);
  } else if (w.kind != msg::SubWriteKind::kRange) {
    u.kind = UndoKind::kRenameBack;
    t.Rename(w.collection, name, undo_name);
  } else {
    // The old bytes of what the write covers (cut at the shard's end), kept at their offsets:
    // the store blocks the write overwrites whole move to the undo object as they are (no read,
    // no copy: store::Transaction::MoveBlocks); the bytes of blocks it overwrites in part are
    // read and copied.
    u.kind = UndoKind::kRanges;
    u.prev_size = now.size;
    u.prev_meta = now.raw_meta;
    t.Touch(w.collection, undo_name);
    constexpr std::uint64_t kBlock = store::kBlockSize;
    std::vector<store::Extent> old;
    for (const msg::ByteExtent& e : w.extents) {
      if (e.offset >= now.size || e.length == 0) continue;
      const std::uint64_t hi = e.offset + std::min(e.length, now.size - e.offset);  // old bytes
      // Whole blocks of the write: [first, last), clipped to the blocks the old bytes reach.
      const std::uint64_t first = (e.offset + kBlock - 1) / kBlock * kBlock;
      const std::uint64_t last =
          std::min((e.offset + e.length) / kBlock * kBlock, (hi + kBlock - 1) / kBlock * kBlock);
      if (first >= last) {
        old.push_back({e.offset, hi - e.offset});
        continue;
      }
      if (e.offset < first) old.push_back({e.offset, first - e.offset});
      t.MoveBlocks(w.collection, name, undo_name, first, last - first);
      u.ranges.push_back({first, std::min(last, hi) - first});
      if (last < hi) old.push_back({last, hi - last});
    }
    if (!old.empty()) {
      auto bytes = store.Read(w.collection, name, old);
      if (!bytes.ok()) return bytes.status();
      for (std::size_t i = 0; i < old.size(); ++i) {
        u.ranges.push_back({old[i].offset, (*bytes)[i].size()});
        t.Write(w.collection, undo_name, old[i].offset, (*bytes)[i]);
      }
    }
  }
  t.SetAttr(w.collection, undo_name, kUndoAttr, EncodeUndo(u));

  if (w.kind != msg::SubWriteKind::kRemove) {
    ShardMeta meta = (w.kind == msg::SubWriteKind::kRange && now.exists) ? now.meta : ShardMeta{};
    meta.version = w.version;
    meta.versions = w.versions;
    SetObjectSize(meta, w.object_size);
    SetForm(meta, w.form);
    ApplyObjectMeta(now.exists ? &now.meta : nullptr, w, meta);
    t.Touch(w.collection, name);
    EC_RETURN_IF_ERROR(AddShardBytes(t, w, name, data));
    t.SetAttr(w.collection, name, kShardMetaAttr, EncodeShardMeta(meta));
  }
  return std::optional<store::Transaction>(std::move(t));
}

Result<std::uint64_t> ApplySubResolve(store::ObjectStore& store, const msg::SubResolveRequest& r) {
  const std::string name = ShardObjectName(r.object, r.shard);
  const std::string undo_name = UndoObjectName(name);
  auto loaded = Load(store, r.collection, name);
  if (!loaded.ok()) {
    // Nothing was ever written to this PG here: nothing to undo or trim.
    if (Missing(loaded.status())) return std::uint64_t{0};
    return loaded.status();
  }
  const ShardNow& now = *loaded;
  const std::uint64_t current = now.version();
  store::Transaction t;
  if (r.action == msg::SubResolveAction::kTrim) {
    if (!now.undo || now.undo->version > r.version) return current;
    t.Remove(r.collection, undo_name);
    EC_RETURN_IF_ERROR(store.Apply(t));
    return current;
  }
  if (current != r.version) return current;
  if (!now.undo || now.undo->version != r.version) {
    // The primary rolls back only a version that was never acknowledged; this shard holds it
    // without a record of what came before (a recovery pull wrote it, or a later write's rollback
    // used the record up). Its bytes are worth nothing: the shard goes, absent, and recovery
    // rebuilds it at the version the object settles on. (Refusing left the object unreadable and
    // unwritable for good: thrasher bug 2.)
    if (now.exists) t.Remove(r.collection, name);
    if (now.undo) t.Remove(r.collection, undo_name);
    EC_RETURN_IF_ERROR(store.Apply(t));
    return std::uint64_t{0};
  }
  const UndoRecord& u = *now.undo;
  switch (u.kind) {
    case UndoKind::kDelete:
      if (now.exists) t.Remove(r.collection, name);
      t.Remove(r.collection, undo_name);
      break;
    case UndoKind::kRenameBack:
      if (now.exists) t.Remove(r.collection, name);
      t.Rename(r.collection, undo_name, name);
      t.RemoveAttr(r.collection, name, kUndoAttr);
      break;
    case UndoKind::kRanges: {
      std::vector<store::Extent> ranges;
      for (const msg::ByteExtent& e : u.ranges) ranges.push_back({e.offset, e.length});
      if (!ranges.empty()) {
        auto bytes = store.Read(r.collection, undo_name, ranges);
        if (!bytes.ok()) return bytes.status();
        for (std::size_t i = 0; i < ranges.size(); ++i) {
          if ((*bytes)[i].size() != ranges[i].length) {
            return Status::DataLoss("undo record of " + r.collection + "/" + name +
                                    " is shorter than its ranges");
          }
          t.Write(r.collection, name, ranges[i].offset, (*bytes)[i]);
        }
      }
      t.Truncate(r.collection, name, u.prev_size);
      if (u.prev_meta.empty()) {
        t.RemoveAttr(r.collection, name, kShardMetaAttr);
      } else {
        t.SetAttr(r.collection, name, kShardMetaAttr, u.prev_meta);
      }
      t.Remove(r.collection, undo_name);
      break;
    }
  }
  EC_RETURN_IF_ERROR(store.Apply(t));
  return u.prev_version;
}

Result<msg::SubStateReply> ReadSubState(store::ObjectStore& store, const msg::SubStateRequest& r) {
  msg::SubStateReply reply;
  auto loaded = Load(store, r.collection, ShardObjectName(r.object, r.shard));
  if (!loaded.ok()) {
    if (Missing(loaded.status())) return reply;  // no such collection: absent
    return loaded.status();
  }
  const ShardNow& now = *loaded;
  reply.version = now.version();
  reply.undo_version = now.undo ? now.undo->version : 0;
  if (now.exists) {
    reply.state = msg::ShardState::kPresent;
    reply.shard_size = now.size;
    reply.object_size = ObjectSizeOf(now.meta);
    reply.versions = now.meta.versions;
    reply.form = FormOf(now.meta);
  } else if (now.undo && now.undo->removed) {
    reply.state = msg::ShardState::kRemoved;
  }
  return reply;
}

Result<msg::SubScanReply> ScanShards(store::ObjectStore& store, const msg::SubScanRequest& r) {
  if (r.max_entries == 0) return Status::Invalid("SubScan with max_entries 0");
  // Store names are "O#S", so their order is not quite that of the objects (a shorter name's "#"
  // may sort after a longer name's next byte): keep the smallest max_entries + 1 objects seen (one
  // more tells whether another page follows). Every name of an object after the cursor sorts after
  // the cursor itself, so the listing starts there.
  const std::size_t keep = std::size_t{r.max_entries} + 1;
  constexpr std::size_t kListPage = 1024;
  std::set<std::string> objects;
  std::string after = r.cursor;
  for (bool done = false; !done;) {
    auto names = store.List(r.collection, after, kListPage);
    if (!names.ok()) {
      if (Missing(names.status())) break;  // no collection (or removed meanwhile): nothing more
      return names.status();
    }
    for (const std::string& name : *names) {
      if (objects.size() == keep && PastObject(name, *objects.rbegin())) {
        done = true;
        break;
      }
      std::string object;
      if (!ScannedObject(name, r.shard, &object) || object <= r.cursor) continue;
      objects.insert(std::move(object));
      if (objects.size() > keep) objects.erase(std::prev(objects.end()));
    }
    if (names->size() < kListPage) break;
    after = names->back();
  }
  msg::SubScanReply reply;
  reply.end = objects.size() < keep;
  if (!reply.end) objects.erase(std::prev(objects.end()));
  // The page also ends before its entries would pass msg::kMaxScanReplyBytes (long names, or
  // objects written in part, whose entries carry their versions), so that its reply always fits
  // the header limit.
  std::uint64_t bytes = 0;
  const std::string* covered = nullptr;  // the last object the page accounts for
  for (const std::string& object : objects) {
    auto st = ReadSubState(store, msg::SubStateRequest{r.collection, object, r.shard});
    if (!st.ok()) return st.status();
    if (st->state == msg::ShardState::kAbsent && st->undo_version == 0) {
      covered = &object;
      continue;
    }
    msg::SubScanEntry e{object,
                        st->state,
                        st->version,
                        st->object_size,
                        st->shard_size,
                        st->undo_version,
                        std::move(st->versions),
                        st->form};
    const std::uint64_t size = msg::EncodedSize(e);
    if (!reply.entries.empty() && bytes + size > msg::kMaxScanReplyBytes) {
      reply.end = false;
      break;
    }
    bytes += size;
    reply.entries.push_back(std::move(e));
    covered = &object;
  }
  if (!reply.end) reply.next_cursor = covered != nullptr ? *covered : r.cursor;
  return reply;
}

std::uint64_t ObjectSizeOf(const ShardMeta& meta) {
  return DecimalAttr(meta.attrs, kObjectSizeAttr);
}

}  // namespace ec::osd::shard
