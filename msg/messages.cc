#include "msg/messages.h"

#include <fmt/format.h>

#include <array>
#include <type_traits>

#include "common/codec.h"

namespace ec::msg {

namespace {

// Smallest encoded sizes, so that a count can be checked against the bytes left.
constexpr std::size_t kMinAttrSize = 8;     // two empty strings
constexpr std::size_t kMinExtentSize = 16;  // offset, length
constexpr std::size_t kMinLengthSize = 8;   // u64
constexpr std::size_t kMinEntrySize = 8;    // empty name, shard
constexpr std::size_t kMinNameSize = 4;     // empty string
constexpr std::size_t kMinStatusSize = 9;   // code, class, empty message
// name, state, 4 u64, versions count
constexpr std::size_t kMinScanEntrySize = kMinNameSize + 1 + 4 * 8 + 4 + 1;
constexpr std::size_t kMinPullHelperSize = 8;  // shard, osd
constexpr std::size_t kMinPullObjectSize =
    kMinNameSize + 3 * 8 + 4 + 1;  // name, 3 u64, versions, form
constexpr std::size_t kMinPullResultSize = kMinNameSize + kMinStatusSize + 3 * 8;  // + 3 u64
constexpr std::size_t kReadLeasePgSize = 12;                                       // pool, pg
// pool, pg, granted, epoch, settled_below, acting count
constexpr std::size_t kReadLeaseGrantMinSize = 8 + 4 + 1 + 8 + 8 + 4;
// collection, object, shard, expect_version, extent count
constexpr std::size_t kMinBatchItemSize = 2 * kMinNameSize + 4 + 8 + 4;
constexpr std::size_t kMinBatchResultSize = kMinStatusSize + 2 * 8 + 4;  // + sizes, lengths
constexpr std::size_t kChainHopSize = 12;                                // shard, osd, fingerprint

void PutStatus(Encoder& w, const Status& s, std::size_t max = Limits{}.max_message_len) {
  w.I32(s.code());
  w.U8(static_cast<std::uint8_t>(s.error_class()));
  const std::string& m = s.message();
  w.String(m.size() > max ? std::string_view(m).substr(0, max) : std::string_view(m));
}

bool GetStatus(Decoder& r, const Limits& limits, Status* out) {
  std::int32_t code;
  std::uint8_t cls;
  std::string message;
  if (!r.I32(&code, "status.code") || !r.U8(&cls, "status.class") ||
      !r.String(&message, limits.max_message_len, "status.message")) {
    return false;
  }
  const auto c = static_cast<Status::Class>(cls);
  if (cls > static_cast<std::uint8_t>(Status::Class::kRetryable)) {
    return r.Fail(Status::Error(EBADMSG, fmt::format("status.class: bad value {}", cls)));
  }
  if ((c == Status::Class::kOk) != (code == 0) || code < 0) {
    return r.Fail(
        Status::Error(EBADMSG, fmt::format("status: code {} does not match class {}", code, cls)));
  }
  switch (c) {
    case Status::Class::kOk:
      *out = Status::OK();
      break;
    case Status::Class::kError:
      *out = Status::Error(code, std::move(message));
      break;
    case Status::Class::kDataLoss:
      *out = Status::DataLoss(std::move(message));
      break;
    case Status::Class::kRetryable:
      *out = Status::Retryable(code, std::move(message));
      break;
  }
  return true;
}

void PutAttrs(Encoder& w, const std::vector<Attr>& attrs) {
  w.U32(static_cast<std::uint32_t>(attrs.size()));
  for (const Attr& a : attrs) {
    w.String(a.key);
    w.String(a.value);
  }
}

bool GetAttrs(Decoder& r, const Limits& limits, std::string_view what, std::vector<Attr>* attrs) {
  std::uint32_t n;
  if (!r.Count(&n, limits.max_attrs, kMinAttrSize, what)) return false;
  attrs->resize(n);
  for (Attr& a : *attrs) {
    if (!r.String(&a.key, limits.max_attr_len, what) ||
        !r.String(&a.value, limits.max_attr_len, what)) {
      return false;
    }
  }
  return true;
}

// collection, object, shard: the address of one shard.
void PutShardId(Encoder& w, const std::string& coll, const std::string& object,
                std::uint32_t shard) {
  w.String(coll);
  w.String(object);
  w.U32(shard);
}

bool GetShardId(Decoder& r, const Limits& limits, std::string* coll, std::string* object,
                std::uint32_t* shard) {
  return r.String(coll, limits.max_collection_len, "collection") &&
         r.String(object, limits.max_name_len, "object") && r.U32(shard, "shard");
}

// A u8 enum whose values are 0..max (the enum's last value).
template <typename E>
bool GetEnum(Decoder& r, E max, std::string_view what, E* out) {
  std::uint8_t v;
  if (!r.U8(&v, what)) return false;
  if (v > static_cast<std::uint8_t>(max)) {
    return r.Fail(Status::Error(EBADMSG, fmt::format("{}: bad value {}", what, v)));
  }
  *out = static_cast<E>(v);
  return true;
}

// A u8 0 or 1; anything else is refused so that the encoding stays canonical.
bool GetBool(Decoder& r, std::string_view what, bool* out) {
  std::uint8_t v;
  if (!r.U8(&v, what)) return false;
  if (v > 1) return r.Fail(Status::Error(EBADMSG, fmt::format("{}: bad value {}", what, v)));
  *out = v == 1;
  return true;
}

void PutExtents(Encoder& w, const std::vector<ByteExtent>& extents) {
  w.U32(static_cast<std::uint32_t>(extents.size()));
  for (const ByteExtent& e : extents) {
    w.U64(e.offset);
    w.U64(e.length);
  }
}

bool GetExtents(Decoder& r, const Limits& limits, std::vector<ByteExtent>* extents) {
  std::uint32_t n;
  if (!r.Count(&n, limits.max_extents, kMinExtentSize, "extents")) return false;
  extents->resize(n);
  for (ByteExtent& e : *extents) {
    if (!r.U64(&e.offset, "extent.offset") || !r.U64(&e.length, "extent.length")) return false;
  }
  return true;
}

// ShardVersions: u32 count (<= kMaxShardPositions) | count x u64.
void PutVersions(Encoder& w, const ShardVersions& versions) {
  w.U32(static_cast<std::uint32_t>(versions.size()));
  for (std::uint64_t v : versions) w.U64(v);
}

bool GetVersions(Decoder& r, ShardVersions* versions) {
  std::uint32_t n;
  if (!r.Count(&n, kMaxShardPositions, 8, "versions")) return false;
  versions->resize(n);
  for (std::uint64_t& v : *versions) {
    if (!r.U64(&v, "version")) return false;
  }
  return true;
}

// pool, epoch, object: the address of one object, as a client names it.
void PutObjectId(Encoder& w, std::uint64_t pool, std::uint64_t epoch, const std::string& object) {
  w.U64(pool);
  w.U64(epoch);
  w.String(object);
}

bool GetObjectId(Decoder& r, const Limits& limits, std::uint64_t* pool, std::uint64_t* epoch,
                 std::string* object) {
  return r.U64(pool, "pool") && r.U64(epoch, "epoch") &&
         r.String(object, limits.max_name_len, "object");
}

void Put(Encoder& w, const PingRequest& m) {
  w.U32(m.response_len);
}
void Put(Encoder& w, const WriteShardRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
  w.U64(m.version);
  w.U64(m.offset);
  w.U32(m.flags);
  PutAttrs(w, m.attrs);
}
void Put(Encoder& w, const ReadShardRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
  PutExtents(w, m.extents);
}
void Put(Encoder& w, const StatRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
}
void Put(Encoder& w, const ListRequest& m) {
  w.String(m.collection);
  w.String(m.cursor);
  w.U32(m.max_entries);
}
void Put(Encoder& w, const RemoveRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
}

void Put(Encoder& w, const PingReply& m) {
  PutStatus(w, m.status);
}
void Put(Encoder& w, const WriteShardReply& m) {
  PutStatus(w, m.status);
}
void Put(Encoder& w, const ReadShardReply& m) {
  PutStatus(w, m.status);
  w.U64(m.object_size);
  w.U64(m.version);
  w.U32(static_cast<std::uint32_t>(m.lengths.size()));
  for (std::uint64_t l : m.lengths) w.U64(l);
}
void Put(Encoder& w, const StatReply& m) {
  PutStatus(w, m.status);
  w.U64(m.size);
  w.U64(m.version);
  PutAttrs(w, m.attrs);
}
void Put(Encoder& w, const ListReply& m) {
  PutStatus(w, m.status);
  w.U32(static_cast<std::uint32_t>(m.entries.size()));
  for (const ListEntry& e : m.entries) {
    w.String(e.object);
    w.U32(e.shard);
  }
  w.String(m.next_cursor);
  w.U8(m.end ? 1 : 0);
}
void Put(Encoder& w, const RemoveReply& m) {
  PutStatus(w, m.status);
}

void Put(Encoder& w, const SubWriteRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
  w.U64(m.version);
  w.U64(m.prev_version);
  w.U8(static_cast<std::uint8_t>(m.kind));
  w.U64(m.object_size);
  w.U64(m.shard_size);
  PutExtents(w, m.extents);
  w.U64(m.epoch);
  PutVersions(w, m.versions);
  w.U8(static_cast<std::uint8_t>(m.meta));
  w.U64(m.mtime);
  PutAttrs(w, m.xattrs);
  w.U8(static_cast<std::uint8_t>(m.form));
}
void Put(Encoder& w, const SubResolveRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
  w.U64(m.version);
  w.U8(static_cast<std::uint8_t>(m.action));
  w.U64(m.epoch);
}
void Put(Encoder& w, const SubStateRequest& m) {
  PutShardId(w, m.collection, m.object, m.shard);
}
void Put(Encoder& w, const ObjWriteRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
  w.U8(static_cast<std::uint8_t>(m.mode));
  w.U64(m.offset);
  w.U32(m.start_within_ms);
}
void Put(Encoder& w, const ObjReadRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
  w.U64(m.offset);
  w.U64(m.length);
}
void Put(Encoder& w, const ObjStatRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
}
void Put(Encoder& w, const ObjRemoveRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
  w.U32(m.start_within_ms);
}
void Put(Encoder& w, const ObjListRequest& m) {
  w.U64(m.pool);
  w.U64(m.epoch);
  w.U32(m.pg);
  w.String(m.cursor);
  w.U32(m.max_entries);
}

void Put(Encoder& w, const ObjDirectReadRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
  w.U32(m.shard);
  w.U64(m.offset);
  w.U64(m.length);
}
void Put(Encoder& w, const ObjDirectReadReply& m) {
  PutStatus(w, m.status);
}
void Put(Encoder& w, const ReadLeaseRequest& m) {
  w.I32(m.osd);
  w.U64(m.epoch);
  w.U32(m.duration_ms);
  w.U32(static_cast<std::uint32_t>(m.pgs.size()));
  for (const ReadLeasePg& pg : m.pgs) {
    w.U64(pg.pool);
    w.U32(pg.pg);
  }
}
void Put(Encoder& w, const ReadLeaseReply& m) {
  PutStatus(w, m.status);
  w.U32(m.duration_ms);
  w.U32(static_cast<std::uint32_t>(m.grants.size()));
  for (const ReadLeaseGrant& g : m.grants) {
    w.U64(g.pool);
    w.U32(g.pg);
    w.U8(g.granted ? 1 : 0);
    w.U64(g.epoch);
    w.U64(g.settled_below);
    w.U32(static_cast<std::uint32_t>(g.acting.size()));
    for (std::int32_t osd : g.acting) w.I32(osd);
  }
}

void Put(Encoder& w, const SubWriteReply& m) {
  PutStatus(w, m.status);
}
void Put(Encoder& w, const SubResolveReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
}
void Put(Encoder& w, const SubStateReply& m) {
  PutStatus(w, m.status);
  w.U8(static_cast<std::uint8_t>(m.state));
  w.U64(m.version);
  w.U64(m.object_size);
  w.U64(m.shard_size);
  w.U64(m.undo_version);
  PutVersions(w, m.versions);
  w.U8(static_cast<std::uint8_t>(m.form));
}
void Put(Encoder& w, const ObjWriteReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
  w.U64(m.object_size);
}
void Put(Encoder& w, const ObjReadReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
  w.U64(m.object_size);
  w.U8(m.degraded ? 1 : 0);
  w.U64(m.network_bytes);
  w.U64(m.device_bytes);
}
void Put(Encoder& w, const ObjStatReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
  w.U64(m.size);
  w.U64(m.mtime);
  w.U8(static_cast<std::uint8_t>(m.form));
}
void Put(Encoder& w, const ObjSetXattrsRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
  w.U8(m.flags);
  PutAttrs(w, m.set);
  w.U32(static_cast<std::uint32_t>(m.remove.size()));
  for (const std::string& name : m.remove) w.String(name);
  w.U64(m.mtime);
  w.U32(m.start_within_ms);
}
void Put(Encoder& w, const ObjSetXattrsReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
}
void Put(Encoder& w, const ObjGetXattrsRequest& m) {
  PutObjectId(w, m.pool, m.epoch, m.object);
}
void Put(Encoder& w, const ObjGetXattrsReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
  w.U64(m.mtime);
  PutAttrs(w, m.xattrs);
}
void Put(Encoder& w, const ObjRemoveReply& m) {
  PutStatus(w, m.status);
  w.U64(m.version);
}
void Put(Encoder& w, const ObjListReply& m) {
  PutStatus(w, m.status);
  w.U32(static_cast<std::uint32_t>(m.objects.size()));
  for (const std::string& o : m.objects) w.String(o);
  w.String(m.next_cursor);
  w.U8(m.end ? 1 : 0);
}

void Put(Encoder& w, const SubScanRequest& m) {
  w.String(m.collection);
  w.U32(m.shard);
  w.String(m.cursor);
  w.U32(m.max_entries);
  w.U64(m.epoch);
}
void Put(Encoder& w, const SubPullRequest& m) {
  w.U64(m.pool);
  w.U64(m.epoch);
  w.String(m.collection);
  w.U32(m.shard);
  w.U8(static_cast<std::uint8_t>(m.mode));
  w.U32(static_cast<std::uint32_t>(m.helpers.size()));
  for (const SubPullHelper& h : m.helpers) {
    w.U32(h.shard);
    w.I32(h.osd);
  }
  w.U32(static_cast<std::uint32_t>(m.objects.size()));
  for (const SubPullObject& o : m.objects) {
    w.String(o.object);
    w.U64(o.version);
    w.U64(o.object_size);
    w.U64(o.prev_version);
    PutVersions(w, o.versions);
    w.U8(static_cast<std::uint8_t>(o.form));
  }
}
void Put(Encoder& w, const SubScanReply& m) {
  PutStatus(w, m.status);
  w.U32(static_cast<std::uint32_t>(m.entries.size()));
  for (const SubScanEntry& e : m.entries) {
    w.String(e.object);
    w.U8(static_cast<std::uint8_t>(e.state));
    w.U64(e.version);
    w.U64(e.object_size);
    w.U64(e.shard_size);
    w.U64(e.undo_version);
    PutVersions(w, e.versions);
    w.U8(static_cast<std::uint8_t>(e.form));
  }
  w.String(m.next_cursor);
  w.U8(m.end ? 1 : 0);
}
void Put(Encoder& w, const SubPullReply& m) {
  PutStatus(w, m.status);
  w.U32(static_cast<std::uint32_t>(m.results.size()));
  for (const SubPullResult& res : m.results) {
    w.String(res.object);
    PutStatus(w, res.status);
    w.U64(res.network_bytes);
    w.U64(res.device_bytes);
    w.U64(res.rebuilt_bytes);
  }
}

void Put(Encoder& w, const SubReadBatchRequest& m) {
  w.U32(static_cast<std::uint32_t>(m.items.size()));
  for (const SubReadBatchItem& item : m.items) {
    PutShardId(w, item.collection, item.object, item.shard);
    w.U64(item.expect_version);
    PutExtents(w, item.extents);
  }
}
void Put(Encoder& w, const SubRepairChainRequest& m) {
  w.U64(m.pool);
  w.U64(m.epoch);
  PutShardId(w, m.collection, m.object, m.lost);
  w.U64(m.version);
  w.U64(m.object_size);
  PutVersions(w, m.versions);
  w.U64(m.first_stripe);
  w.U64(m.stripes);
  w.U64(m.offset);
  w.U64(m.length);
  w.U32(static_cast<std::uint32_t>(m.hops.size()));
  for (const SubRepairChainHop& h : m.hops) {
    w.U32(h.shard);
    w.I32(h.osd);
    w.U32(h.fingerprint);
  }
  w.U32(m.hop);
  w.U32(m.timeout_ms);
}
void Put(Encoder& w, const SubRepairChainReply& m) {
  PutStatus(w, m.status);
  w.I32(m.failed_hop);
  w.U64(m.version);
}
// Put(SubReadBatchRequest) above, byte for byte: its count, then per item the shard id (two
// u32-length strings and a u32), expect_version and the extents (a u32 count, two u64 each).
constexpr std::uint64_t kBatchCountSize = 4;
std::uint64_t BatchItemSize(const SubReadBatchItem& item) {
  return kMinNameSize + item.collection.size() + kMinNameSize + item.object.size() + 4 + 8 + 4 +
         kMinExtentSize * item.extents.size();
}
void Put(Encoder& w, const SubReadBatchReply& m) {
  PutStatus(w, m.status);
  w.U32(static_cast<std::uint32_t>(m.results.size()));
  for (const SubReadBatchResult& res : m.results) {
    PutStatus(w, res.status, kMaxBatchItemMessageLen);
    w.U64(res.object_size);
    w.U64(res.version);
    w.U32(static_cast<std::uint32_t>(res.lengths.size()));
    for (std::uint64_t l : res.lengths) w.U64(l);
  }
}

bool Get(Decoder& r, const Limits&, PingRequest* m) {
  return r.U32(&m->response_len, "response_len");
}
bool Get(Decoder& r, const Limits& limits, WriteShardRequest* m) {
  if (!GetShardId(r, limits, &m->collection, &m->object, &m->shard) ||
      !r.U64(&m->version, "version") || !r.U64(&m->offset, "offset") ||
      !r.U32(&m->flags, "flags")) {
    return false;
  }
  if ((m->flags & ~kKnownWriteFlags) != 0) {
    return r.Fail(Status::Error(EBADMSG, fmt::format("flags: unknown bits {:#x}", m->flags)));
  }
  return GetAttrs(r, limits, "attrs", &m->attrs);
}
bool Get(Decoder& r, const Limits& limits, ReadShardRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard) &&
         GetExtents(r, limits, &m->extents);
}
bool Get(Decoder& r, const Limits& limits, StatRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard);
}
bool Get(Decoder& r, const Limits& limits, ListRequest* m) {
  return r.String(&m->collection, limits.max_collection_len, "collection") &&
         r.String(&m->cursor, limits.max_name_len, "cursor") &&
         r.U32(&m->max_entries, "max_entries");
}
bool Get(Decoder& r, const Limits& limits, RemoveRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard);
}

bool Get(Decoder& r, const Limits& limits, PingReply* m) {
  return GetStatus(r, limits, &m->status);
}
bool Get(Decoder& r, const Limits& limits, WriteShardReply* m) {
  return GetStatus(r, limits, &m->status);
}
bool Get(Decoder& r, const Limits& limits, ReadShardReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) || !r.U64(&m->object_size, "object_size") ||
      !r.U64(&m->version, "version") ||
      !r.Count(&n, limits.max_extents, kMinLengthSize, "lengths")) {
    return false;
  }
  m->lengths.resize(n);
  for (std::uint64_t& l : m->lengths) {
    if (!r.U64(&l, "length")) return false;
  }
  return true;
}
bool Get(Decoder& r, const Limits& limits, StatReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->size, "size") &&
         r.U64(&m->version, "version") && GetAttrs(r, limits, "attrs", &m->attrs);
}
bool Get(Decoder& r, const Limits& limits, ListReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) ||
      !r.Count(&n, limits.max_list_entries, kMinEntrySize, "entries")) {
    return false;
  }
  m->entries.resize(n);
  for (ListEntry& e : m->entries) {
    if (!r.String(&e.object, limits.max_name_len, "entry.object") ||
        !r.U32(&e.shard, "entry.shard")) {
      return false;
    }
  }
  return r.String(&m->next_cursor, limits.max_name_len, "next_cursor") &&
         GetBool(r, "end", &m->end);
}
bool Get(Decoder& r, const Limits& limits, RemoveReply* m) {
  return GetStatus(r, limits, &m->status);
}

bool Get(Decoder& r, const Limits& limits, SubWriteRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard) &&
         r.U64(&m->version, "version") && r.U64(&m->prev_version, "prev_version") &&
         GetEnum(r, SubWriteKind::kRepair, "kind", &m->kind) &&
         r.U64(&m->object_size, "object_size") && r.U64(&m->shard_size, "shard_size") &&
         GetExtents(r, limits, &m->extents) && r.U64(&m->epoch, "epoch") &&
         GetVersions(r, &m->versions) && GetEnum(r, SubWriteMeta::kReplace, "meta", &m->meta) &&
         r.U64(&m->mtime, "mtime") && GetAttrs(r, limits, "xattrs", &m->xattrs) &&
         GetEnum(r, ObjectForm::kReplicas, "form", &m->form);
}
bool Get(Decoder& r, const Limits& limits, SubResolveRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard) &&
         r.U64(&m->version, "version") &&
         GetEnum(r, SubResolveAction::kTrim, "action", &m->action) && r.U64(&m->epoch, "epoch");
}
bool Get(Decoder& r, const Limits& limits, SubStateRequest* m) {
  return GetShardId(r, limits, &m->collection, &m->object, &m->shard);
}
bool Get(Decoder& r, const Limits& limits, ObjWriteRequest* m) {
  return GetObjectId(r, limits, &m->pool, &m->epoch, &m->object) &&
         GetEnum(r, ObjWriteMode::kTruncate, "mode", &m->mode) && r.U64(&m->offset, "offset") &&
         r.U32(&m->start_within_ms, "start_within_ms");
}
bool Get(Decoder& r, const Limits& limits, ObjReadRequest* m) {
  return GetObjectId(r, limits, &m->pool, &m->epoch, &m->object) && r.U64(&m->offset, "offset") &&
         r.U64(&m->length, "length");
}
bool Get(Decoder& r, const Limits& limits, ObjStatRequest* m) {
  return GetObjectId(r, limits, &m->pool, &m->epoch, &m->object);
}
bool Get(Decoder& r, const Limits& limits, ObjRemoveRequest* m) {
  return GetObjectId(r, limits, &m->pool, &m->epoch, &m->object) &&
         r.U32(&m->start_within_ms, "start_within_ms");
}
bool Get(Decoder& r, const Limits& limits, ObjListRequest* m) {
  return r.U64(&m->pool, "pool") && r.U64(&m->epoch, "epoch") && r.U32(&m->pg, "pg") &&
         r.String(&m->cursor, limits.max_name_len, "cursor") &&
         r.U32(&m->max_entries, "max_entries");
}

bool Get(Decoder& r, const Limits& limits, ObjDirectReadRequest* m) {
  return GetObjectId(r, limits, &m->pool, &m->epoch, &m->object) && r.U32(&m->shard, "shard") &&
         r.U64(&m->offset, "offset") && r.U64(&m->length, "length");
}
bool Get(Decoder& r, const Limits& limits, ObjDirectReadReply* m) {
  return GetStatus(r, limits, &m->status);
}
bool Get(Decoder& r, const Limits& limits, ReadLeaseRequest* m) {
  std::uint32_t n = 0;
  if (!r.I32(&m->osd, "osd") || !r.U64(&m->epoch, "epoch") ||
      !r.U32(&m->duration_ms, "duration_ms") ||
      !r.Count(&n, limits.max_list_entries, kReadLeasePgSize, "pgs")) {
    return false;
  }
  m->pgs.resize(n);
  for (ReadLeasePg& pg : m->pgs) {
    if (!r.U64(&pg.pool, "pg.pool") || !r.U32(&pg.pg, "pg.pg")) return false;
  }
  return true;
}
bool Get(Decoder& r, const Limits& limits, ReadLeaseReply* m) {
  std::uint32_t n = 0;
  if (!GetStatus(r, limits, &m->status) || !r.U32(&m->duration_ms, "duration_ms") ||
      !r.Count(&n, limits.max_list_entries, kReadLeaseGrantMinSize, "grants")) {
    return false;
  }
  m->grants.resize(n);
  for (ReadLeaseGrant& g : m->grants) {
    std::uint32_t acting = 0;
    if (!r.U64(&g.pool, "grant.pool") || !r.U32(&g.pg, "grant.pg") ||
        !GetBool(r, "grant.granted", &g.granted) || !r.U64(&g.epoch, "grant.epoch") ||
        !r.U64(&g.settled_below, "grant.settled_below") ||
        !r.Count(&acting, kMaxShardPositions, 4, "grant.acting")) {
      return false;
    }
    g.acting.resize(acting);
    for (std::int32_t& osd : g.acting) {
      if (!r.I32(&osd, "grant.osd")) return false;
    }
  }
  return true;
}

bool Get(Decoder& r, const Limits& limits, SubWriteReply* m) {
  return GetStatus(r, limits, &m->status);
}
bool Get(Decoder& r, const Limits& limits, SubResolveReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version");
}
bool Get(Decoder& r, const Limits& limits, SubStateReply* m) {
  return GetStatus(r, limits, &m->status) && GetEnum(r, ShardState::kRemoved, "state", &m->state) &&
         r.U64(&m->version, "version") && r.U64(&m->object_size, "object_size") &&
         r.U64(&m->shard_size, "shard_size") && r.U64(&m->undo_version, "undo_version") &&
         GetVersions(r, &m->versions) && GetEnum(r, ObjectForm::kReplicas, "form", &m->form);
}
bool Get(Decoder& r, const Limits& limits, ObjWriteReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version") &&
         r.U64(&m->object_size, "object_size");
}
bool Get(Decoder& r, const Limits& limits, ObjReadReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version") &&
         r.U64(&m->object_size, "object_size") && GetBool(r, "degraded", &m->degraded) &&
         r.U64(&m->network_bytes, "network_bytes") && r.U64(&m->device_bytes, "device_bytes");
}
bool Get(Decoder& r, const Limits& limits, ObjStatReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version") &&
         r.U64(&m->size, "size") && r.U64(&m->mtime, "mtime") &&
         GetEnum(r, ObjectForm::kReplicas, "form", &m->form);
}
bool Get(Decoder& r, const Limits& limits, ObjSetXattrsRequest* m) {
  std::uint32_t n = 0;
  if (!GetObjectId(r, limits, &m->pool, &m->epoch, &m->object) || !r.U8(&m->flags, "flags")) {
    return false;
  }
  if ((m->flags & ~kKnownXattrsFlags) != 0) {
    return r.Fail(Status::Error(EBADMSG, fmt::format("flags: unknown bits {:#x}", m->flags)));
  }
  if (!GetAttrs(r, limits, "set", &m->set) ||
      !r.Count(&n, limits.max_attrs, kMinNameSize, "remove")) {
    return false;
  }
  m->remove.resize(n);
  for (std::string& name : m->remove) {
    if (!r.String(&name, limits.max_attr_len, "remove")) return false;
  }
  return r.U64(&m->mtime, "mtime") && r.U32(&m->start_within_ms, "start_within_ms");
}
bool Get(Decoder& r, const Limits& limits, ObjSetXattrsReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version");
}
bool Get(Decoder& r, const Limits& limits, ObjGetXattrsRequest* m) {
  return GetObjectId(r, limits, &m->pool, &m->epoch, &m->object);
}
bool Get(Decoder& r, const Limits& limits, ObjGetXattrsReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version") &&
         r.U64(&m->mtime, "mtime") && GetAttrs(r, limits, "xattrs", &m->xattrs);
}
bool Get(Decoder& r, const Limits& limits, ObjRemoveReply* m) {
  return GetStatus(r, limits, &m->status) && r.U64(&m->version, "version");
}
bool Get(Decoder& r, const Limits& limits, ObjListReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) ||
      !r.Count(&n, limits.max_list_entries, kMinNameSize, "objects")) {
    return false;
  }
  m->objects.resize(n);
  for (std::string& o : m->objects) {
    if (!r.String(&o, limits.max_name_len, "object")) return false;
  }
  return r.String(&m->next_cursor, limits.max_name_len, "next_cursor") &&
         GetBool(r, "end", &m->end);
}

bool Get(Decoder& r, const Limits& limits, SubScanRequest* m) {
  return r.String(&m->collection, limits.max_collection_len, "collection") &&
         r.U32(&m->shard, "shard") && r.String(&m->cursor, limits.max_name_len, "cursor") &&
         r.U32(&m->max_entries, "max_entries") && r.U64(&m->epoch, "epoch");
}
bool Get(Decoder& r, const Limits& limits, SubPullRequest* m) {
  std::uint32_t n;
  if (!r.U64(&m->pool, "pool") || !r.U64(&m->epoch, "epoch") ||
      !r.String(&m->collection, limits.max_collection_len, "collection") ||
      !r.U32(&m->shard, "shard") || !GetEnum(r, SubPullMode::kRepair, "mode", &m->mode) ||
      !r.Count(&n, kMaxPullHelpers, kMinPullHelperSize, "helpers")) {
    return false;
  }
  m->helpers.resize(n);
  for (SubPullHelper& h : m->helpers) {
    if (!r.U32(&h.shard, "helper.shard") || !r.I32(&h.osd, "helper.osd")) return false;
  }
  if (!r.Count(&n, limits.max_list_entries, kMinPullObjectSize, "objects")) return false;
  m->objects.resize(n);
  for (SubPullObject& o : m->objects) {
    if (!r.String(&o.object, limits.max_name_len, "object.object") ||
        !r.U64(&o.version, "object.version") || !r.U64(&o.object_size, "object.object_size") ||
        !r.U64(&o.prev_version, "object.prev_version") || !GetVersions(r, &o.versions) ||
        !GetEnum(r, ObjectForm::kReplicas, "object.form", &o.form)) {
      return false;
    }
  }
  return true;
}
bool Get(Decoder& r, const Limits& limits, SubScanReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) ||
      !r.Count(&n, limits.max_list_entries, kMinScanEntrySize, "entries")) {
    return false;
  }
  m->entries.resize(n);
  for (SubScanEntry& e : m->entries) {
    if (!r.String(&e.object, limits.max_name_len, "entry.object") ||
        !GetEnum(r, ShardState::kRemoved, "entry.state", &e.state) ||
        !r.U64(&e.version, "entry.version") || !r.U64(&e.object_size, "entry.object_size") ||
        !r.U64(&e.shard_size, "entry.shard_size") ||
        !r.U64(&e.undo_version, "entry.undo_version") || !GetVersions(r, &e.versions) ||
        !GetEnum(r, ObjectForm::kReplicas, "entry.form", &e.form)) {
      return false;
    }
  }
  return r.String(&m->next_cursor, limits.max_name_len, "next_cursor") &&
         GetBool(r, "end", &m->end);
}
bool Get(Decoder& r, const Limits& limits, SubPullReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) ||
      !r.Count(&n, limits.max_list_entries, kMinPullResultSize, "results")) {
    return false;
  }
  m->results.resize(n);
  for (SubPullResult& res : m->results) {
    if (!r.String(&res.object, limits.max_name_len, "result.object") ||
        !GetStatus(r, limits, &res.status) || !r.U64(&res.network_bytes, "result.network_bytes") ||
        !r.U64(&res.device_bytes, "result.device_bytes") ||
        !r.U64(&res.rebuilt_bytes, "result.rebuilt_bytes")) {
      return false;
    }
  }
  return true;
}

bool Get(Decoder& r, const Limits& limits, SubReadBatchRequest* m) {
  std::uint32_t n;
  if (!r.Count(&n, limits.max_batch_items, kMinBatchItemSize, "items")) return false;
  m->items.resize(n);
  for (SubReadBatchItem& item : m->items) {
    if (!GetShardId(r, limits, &item.collection, &item.object, &item.shard) ||
        !r.U64(&item.expect_version, "item.expect_version") ||
        !GetExtents(r, limits, &item.extents)) {
      return false;
    }
  }
  return true;
}
bool Get(Decoder& r, const Limits& limits, SubReadBatchReply* m) {
  std::uint32_t n;
  if (!GetStatus(r, limits, &m->status) ||
      !r.Count(&n, limits.max_batch_items, kMinBatchResultSize, "results")) {
    return false;
  }
  m->results.resize(n);
  for (SubReadBatchResult& res : m->results) {
    std::uint32_t lengths;
    if (!GetStatus(r, limits, &res.status) || !r.U64(&res.object_size, "result.object_size") ||
        !r.U64(&res.version, "result.version") ||
        !r.Count(&lengths, limits.max_extents, kMinLengthSize, "result.lengths")) {
      return false;
    }
    res.lengths.resize(lengths);
    for (std::uint64_t& l : res.lengths) {
      if (!r.U64(&l, "result.length")) return false;
    }
  }
  return true;
}

bool Get(Decoder& r, const Limits& limits, SubRepairChainRequest* m) {
  std::uint32_t n = 0;
  if (!r.U64(&m->pool, "pool") || !r.U64(&m->epoch, "epoch") ||
      !GetShardId(r, limits, &m->collection, &m->object, &m->lost) ||
      !r.U64(&m->version, "version") || !r.U64(&m->object_size, "object_size") ||
      !GetVersions(r, &m->versions) || !r.U64(&m->first_stripe, "first_stripe") ||
      !r.U64(&m->stripes, "stripes") || !r.U64(&m->offset, "offset") ||
      !r.U64(&m->length, "length") || !r.Count(&n, kMaxChainHops, kChainHopSize, "hops")) {
    return false;
  }
  m->hops.resize(n);
  for (SubRepairChainHop& h : m->hops) {
    if (!r.U32(&h.shard, "hop.shard") || !r.I32(&h.osd, "hop.osd") ||
        !r.U32(&h.fingerprint, "hop.fingerprint")) {
      return false;
    }
  }
  return r.U32(&m->hop, "hop") && r.U32(&m->timeout_ms, "timeout_ms");
}
bool Get(Decoder& r, const Limits& limits, SubRepairChainReply* m) {
  return GetStatus(r, limits, &m->status) && r.I32(&m->failed_hop, "failed_hop") &&
         r.U64(&m->version, "version");
}

// The request type of each alternative of RequestBody / ReplyBody, in variant order.
constexpr std::array<MsgType, std::variant_size_v<RequestBody>> kBodyTypes = {
    MsgType::kPing,         MsgType::kWriteShard,    MsgType::kReadShard, MsgType::kStat,
    MsgType::kList,         MsgType::kRemove,        MsgType::kSubWrite,  MsgType::kSubResolve,
    MsgType::kSubState,     MsgType::kObjWrite,      MsgType::kObjRead,   MsgType::kObjStat,
    MsgType::kObjRemove,    MsgType::kObjList,       MsgType::kSubScan,   MsgType::kSubPull,
    MsgType::kSubReadBatch, MsgType::kObjDirectRead, MsgType::kReadLease, MsgType::kObjSetXattrs,
    MsgType::kObjGetXattrs, MsgType::kSubRepairChain};
static_assert(std::variant_size_v<RequestBody> == std::variant_size_v<ReplyBody>);

// The variant index of request type `base` (reply bit cleared), or kBodyTypes.size() if none.
constexpr std::size_t BodyIndex(std::uint16_t base) {
  for (std::size_t i = 0; i < kBodyTypes.size(); ++i) {
    if (static_cast<std::uint16_t>(kBodyTypes[i]) == base) return i;
  }
  return kBodyTypes.size();
}

template <typename Variant, std::size_t I = 0>
bool DecodeAlternative(std::size_t index, Decoder& r, const Limits& limits, Variant* out) {
  if constexpr (I < std::variant_size_v<Variant>) {
    if (index == I) {
      std::variant_alternative_t<I, Variant> m;
      if (!Get(r, limits, &m)) return false;
      *out = std::move(m);
      return true;
    }
    return DecodeAlternative<Variant, I + 1>(index, r, limits, out);
  }
  return false;
}

// A default-constructed alternative `index` (< the variant's size) of Variant.
template <typename Variant, std::size_t I = 0>
Variant DefaultAlternative(std::size_t index) {
  if constexpr (I + 1 < std::variant_size_v<Variant>) {
    if (index != I) return DefaultAlternative<Variant, I + 1>(index);
  }
  return Variant(std::in_place_index<I>);
}

template <typename Variant>
Result<Variant> DecodeBody(MsgType type, bool reply, std::span<const std::byte> bytes,
                           const Limits& limits) {
  const auto raw = static_cast<std::uint16_t>(type);
  const std::size_t index = BodyIndex(raw & ~kReplyBit);
  if (IsReply(type) != reply || index == kBodyTypes.size()) {
    return Status::Error(
        EBADMSG, fmt::format("message type {:#06x} is not a {}", raw, reply ? "reply" : "request"));
  }
  Decoder r(bytes);
  Variant out;
  DecodeAlternative<Variant>(index, r, limits, &out);
  EC_RETURN_IF_ERROR(r.Finish(TypeName(type)));
  return out;
}

}  // namespace

MsgType TypeOf(const RequestBody& body) {
  return kBodyTypes[body.index()];
}

MsgType TypeOf(const ReplyBody& body) {
  return ReplyTypeOf(kBodyTypes[body.index()]);
}

const Status& StatusOf(const ReplyBody& body) {
  return std::visit([](const auto& m) -> const Status& { return m.status; }, body);
}

ReplyBody ErrorReply(MsgType request, Status status) {
  std::size_t index = BodyIndex(static_cast<std::uint16_t>(request) & ~kReplyBit);
  if (index == kBodyTypes.size()) index = 0;  // not an operation (Hello): a PingReply
  ReplyBody body = DefaultAlternative<ReplyBody>(index);
  std::visit([&](auto& m) { m.status = std::move(status); }, body);
  return body;
}

void EncodeHello(const Hello& m, std::vector<std::byte>& out) {
  Encoder w(out);
  w.U16(m.min_version);
  w.U16(m.max_version);
  w.U64(m.features);
  w.U32(m.max_header_len);
  w.U32(m.max_payload_len);
  w.String(m.name);
  w.U8(static_cast<std::uint8_t>(m.auth));
  w.String(m.entity);
  if (m.auth == HelloAuth::kCephx) w.Raw(m.nonce);
}

void EncodeHelloReply(const HelloReply& m, std::vector<std::byte>& out) {
  Encoder w(out);
  PutStatus(w, m.status);
  w.U16(m.version);
  w.U64(m.features);
  w.U32(m.max_header_len);
  w.U32(m.max_payload_len);
  w.U32(m.max_inflight);
  w.U32(m.max_extents);
  w.U32(m.max_attrs);
  w.U32(m.max_list_entries);
  w.String(m.name);
  w.U8(static_cast<std::uint8_t>(m.auth));
  if (m.auth == HelloAuth::kCephx) w.Raw(m.nonce);
}

void EncodeAuthRequest(const AuthRequest& m, std::vector<std::byte>& out) {
  Encoder w(out);
  w.Raw(m.proof);
}

void EncodeAuthReply(const AuthReply& m, std::vector<std::byte>& out) {
  Encoder w(out);
  PutStatus(w, m.status);
  if (m.status.ok()) w.Raw(m.proof);
}

void EncodeRequest(const RequestBody& m, std::vector<std::byte>& out) {
  Encoder w(out);
  std::visit([&](const auto& body) { Put(w, body); }, m);
}

void EncodeReply(const ReplyBody& m, std::vector<std::byte>& out) {
  Encoder w(out);
  std::visit([&](const auto& body) { Put(w, body); }, m);
}

Result<Hello> DecodeHello(std::span<const std::byte> bytes, const Limits& limits) {
  Decoder r(bytes);
  Hello m;
  r.U16(&m.min_version, "min_version") && r.U16(&m.max_version, "max_version") &&
      r.U64(&m.features, "features") && r.U32(&m.max_header_len, "max_header_len") &&
      r.U32(&m.max_payload_len, "max_payload_len") &&
      r.String(&m.name, limits.max_name_len, "name") &&
      GetEnum(r, HelloAuth::kCephx, "auth", &m.auth) &&
      r.String(&m.entity, kMaxEntityNameLen, "entity") &&
      (m.auth != HelloAuth::kCephx || r.Raw(m.nonce, "nonce"));
  EC_RETURN_IF_ERROR(r.Finish("Hello"));
  return m;
}

Result<HelloReply> DecodeHelloReply(std::span<const std::byte> bytes, const Limits& limits) {
  Decoder r(bytes);
  HelloReply m;
  GetStatus(r, limits, &m.status) && r.U16(&m.version, "version") &&
      r.U64(&m.features, "features") && r.U32(&m.max_header_len, "max_header_len") &&
      r.U32(&m.max_payload_len, "max_payload_len") && r.U32(&m.max_inflight, "max_inflight") &&
      r.U32(&m.max_extents, "max_extents") && r.U32(&m.max_attrs, "max_attrs") &&
      r.U32(&m.max_list_entries, "max_list_entries") &&
      r.String(&m.name, limits.max_name_len, "name") &&
      GetEnum(r, HelloAuth::kCephx, "auth", &m.auth) &&
      (m.auth != HelloAuth::kCephx || r.Raw(m.nonce, "nonce"));
  EC_RETURN_IF_ERROR(r.Finish("HelloReply"));
  return m;
}

Result<AuthRequest> DecodeAuthRequest(std::span<const std::byte> bytes) {
  Decoder r(bytes);
  AuthRequest m;
  r.Raw(m.proof, "proof");
  EC_RETURN_IF_ERROR(r.Finish("Auth"));
  return m;
}

Result<AuthReply> DecodeAuthReply(std::span<const std::byte> bytes, const Limits& limits) {
  Decoder r(bytes);
  AuthReply m;
  GetStatus(r, limits, &m.status) && (!m.status.ok() || r.Raw(m.proof, "proof"));
  EC_RETURN_IF_ERROR(r.Finish("AuthReply"));
  return m;
}

Result<RequestBody> DecodeRequest(MsgType type, std::span<const std::byte> bytes,
                                  const Limits& limits) {
  return DecodeBody<RequestBody>(type, false, bytes, limits);
}

Result<ReplyBody> DecodeReply(MsgType type, std::span<const std::byte> bytes,
                              const Limits& limits) {
  return DecodeBody<ReplyBody>(type, true, bytes, limits);
}

std::uint64_t EncodedSize(const SubReadBatchItem& item) {
  return BatchItemSize(item);
}

std::uint64_t EncodedSize(const SubScanEntry& entry) {
  // name, state, version, object_size, shard_size, undo_version, versions, form (as Put encodes
  // it).
  return 4 + entry.object.size() + 1 + 4 * 8 + 4 + 8 * entry.versions.size() + 1;
}

std::uint64_t EncodedSize(const SubReadBatchRequest& request) {
  std::uint64_t n = kBatchCountSize;
  for (const SubReadBatchItem& item : request.items) n += BatchItemSize(item);
  return n;
}

}  // namespace ec::msg
