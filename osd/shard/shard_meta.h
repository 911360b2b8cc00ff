// How ec-osd keeps a shard in the object store: its store object name and its metadata record.
//
//   shard S of object O in collection C  ->  store object "O#S" of collection C
//                                             attribute "_meta" = ShardMeta (below)
//
// ShardMeta's bytes (little-endian): u32 format (1 or 2) | u64 version | u32 attribute count |
// count x (u32 key length, key bytes, u32 value length, value bytes) | format 2 only: u32 count
// (<= msg::kMaxShardPositions) | count x u64 versions. Nothing may follow. Format 1 is written when
// `versions` is empty (every shard written before partial writes reads as it always did).
//
// Thread safety: pure functions and plain values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "msg/messages.h"

namespace ec::osd::shard {

// The store attribute holding a shard's ShardMeta.
inline constexpr const char* kShardMetaAttr = "_meta";

// The store object name of a shard ("O#S") and back. ParseShardObjectName fails (false) for a name
// that is not of that form, including a shard number not spelled canonically ("07"), so that every
// name it accepts maps back to itself (objects written by something else are skipped by List).
std::string ShardObjectName(const std::string& object, std::uint32_t shard);
bool ParseShardObjectName(const std::string& name, std::string* object, std::uint32_t* shard);

// A shard's version (the write that last changed its bytes, msg/messages.h "Versions"), user
// attributes, and the object's ShardVersions as of the write that wrote this record (empty:
// every position at `version`).
struct ShardMeta {
  std::uint64_t version = 0;
  std::vector<msg::Attr> attrs;
  msg::ShardVersions versions = {};
  bool operator==(const ShardMeta&) const = default;
};

// The object's metadata a shard records (issue 29), among ShardMeta::attrs beside
// "ec.object_size" (sub_ops.h): each user xattr NAME as the attribute "_NAME" (Ceph's prefix for
// user xattrs), the mtime as kMtimeAttr (decimal microseconds since the Unix epoch). Every shard a
// write reaches records the same (sub_ops.h: SubWriteRequest::meta). The record's byte format is
// unchanged (they are attributes like the object's size): a record written before them reads as
// an object with no xattrs and mtime 0.
inline constexpr const char* kMtimeAttr = "ec.mtime";
inline constexpr char kXattrPrefix = '_';

// The object's form (msg::ObjectForm, issue 30 item 2) a shard records among ShardMeta::attrs: the
// attribute kFormAttr = "replicas" for msg::ObjectForm::kReplicas, none for kErasure (so every
// shard written before object classes reads as erasure-coded, as it is). The byte format is
// unchanged.
inline constexpr const char* kFormAttr = "ec.form";
msg::ObjectForm FormOf(const ShardMeta& meta);
// Records `form` in `meta` (kErasure: the attribute removed).
void SetForm(ShardMeta& meta, msg::ObjectForm form);

// The user xattrs among `attrs` (a ShardMeta's, or a shard Stat reply's), names without the
// prefix, sorted by name.
std::vector<msg::Attr> XattrsOf(const std::vector<msg::Attr>& attrs);
// The value of attribute `key` among `attrs` as a decimal number: 0 without one or when it does
// not parse (the object's size, the mtime).
std::uint64_t DecimalAttr(const std::vector<msg::Attr>& attrs, std::string_view key);
// Sets attribute `key` of `meta` (added when missing).
void SetMetaAttr(ShardMeta& meta, std::string_view key, std::string value);
// Replaces every user xattr of `meta` with `xattrs` (names without the prefix).
void SetXattrs(ShardMeta& meta, const std::vector<msg::Attr>& xattrs);

std::string EncodeShardMeta(const ShardMeta& meta);
// Bounds-checked: every length is compared with the bytes left before it is used, and a count
// with what it could possibly occupy before anything is allocated. Errors: DataLoss "corrupt shard
// metadata (<what>)" for bytes that do not decode (short, unknown format, trailing bytes).
Result<ShardMeta> DecodeShardMeta(const std::string& bytes);

}  // namespace ec::osd::shard
