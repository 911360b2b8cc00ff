// Internal to object_io (object_io_resolve.cc, object_io_read.cc, object_io_chain_read.cc,
// object_io_write.cc, object_io_heal.cc): what resolving, writing and healing share. object_io.h is
// the contract; these follow its rules (blocking, one operation per object at a time).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "msg/client.h"
#include "osd/pg/object_io.h"
#include "recovery/object_read.h"
#include "recovery/shard_source.h"

namespace ec::osd::pg::object_io_detail {

// "osd.N (shard i)": how every message names a position's shard.
inline std::string OsdName(const ObjectIo& io, int position) {
  return fmt::format("osd.{} (shard {})", io.loc->acting[position], position);
}

// The call options of every sub-operation of `io`.
inline msg::CallOptions Call(const ObjectIo& io) {
  msg::CallOptions c;
  c.timeout = io.timeout;
  return c;
}

// Position -> the bytes its shard stores for an object of `object_size` bytes
// (StripeLayout::stored_size: without padding, only what the object's data reaches).
inline std::map<int, std::uint64_t> StoredSizes(const StripeLayout& layout,
                                                std::uint64_t object_size) {
  std::map<int, std::uint64_t> sizes;
  for (unsigned p = 0; p < layout.chunk_count(); ++p) {
    sizes[static_cast<int>(p)] = layout.stored_size(object_size, static_cast<int>(p));
  }
  return sizes;
}

// Position -> the version its shard must be at, for the positions not at the object's version
// (empty for an object written whole): OsdShardSource::Options::expect_versions.
inline std::map<int, std::uint64_t> ExpectedVersions(const ObjectState& state) {
  std::map<int, std::uint64_t> out;
  for (std::size_t p = 0; p < state.versions.size(); ++p) {
    if (state.versions[p] != state.version) out[static_cast<int>(p)] = state.versions[p];
  }
  return out;
}

// The SubWrite of `version` for position `p` (at the version `versions` gives p, which records
// them), starting from the version that shard is at (its stale version, or the one the object's
// versions give it), with the object's metadata as `meta` says (MetaUpdate: a current shard keeps
// its xattrs unless they change; a remove keeps the shard's record as it is).
msg::SubWriteRequest SubWriteFor(const ObjectIo& io, const ObjectState& state, int p,
                                 std::uint64_t version, msg::SubWriteKind kind,
                                 std::uint64_t object_size, std::uint64_t shard_size,
                                 const msg::ShardVersions& versions, const MetaUpdate& meta);

// Whether a SubWrite to position `p` needs the object's set of xattrs (SubWriteFor: the shard is
// not current, or the set changes).
bool NeedsXattrs(const ObjectState& state, int p, const MetaUpdate& meta);

// The positions a write of part of an object (`plan`, `length` new bytes, the object `old_size`
// bytes before) changes: every parity position, the data pieces the new bytes cover, and every
// position whose stored length changes (StripeLayout::stored_size). Every parity, not only the
// parity whose inputs change (LRC's other local groups): a write must leave at most k-1
// positions alone, else the positions it left alone could settle the object at its old version
// while every changed shard is unreachable (resolve.h).
std::set<int> ChangedPositions(const StripeLayout& layout, std::uint64_t old_size,
                               const WritePlan& plan, std::uint64_t length);

// The object's versions after a write of `version` that changed `changed`: `version` there, what
// `state` gives elsewhere; empty when that is `version` everywhere. `positions`: k + m.
msg::ShardVersions VersionsAfter(const ObjectState& state, const std::set<int>& changed,
                                 std::uint64_t version, std::size_t positions);

// Rolls back on `positions[i]` the write of `versions[i]` (SubResolve, all at once); the first
// failure (naming its OSD), or OK. `undone` (if given) gets how many positions it did roll back,
// `failed` (if given) the positions whose rollback failed.
Status RollBack(const ObjectIo& io, const std::vector<int>& positions,
                const std::vector<std::uint64_t>& versions, std::size_t* undone = nullptr,
                std::vector<int>* failed = nullptr);

// Sends `requests[i]` with `payloads[i]` to position positions[i], all at once; acknowledges
// with at least `min_acks` or rolls back (object_io.h, "Writes"). `untouched`: positions that
// hold the write without being sent it (current ones a partial write leaves alone), counted
// with the shards that may still hold it when deciding whether its outcome is unknown
// (EINPROGRESS). Returns the positions that took the write.
Result<std::vector<int>> SendSubWrites(const ObjectIo& io, const std::vector<int>& positions,
                                       std::vector<msg::SubWriteRequest> requests,
                                       std::vector<std::vector<Buffer>> payloads, int min_acks,
                                       int untouched);

// What a write of part of the object goes to: `changed` (ChangedPositions; every position for a
// write of the metadata alone), `targets` (those of them that are current and up), `versions`
// after it, and the acknowledgement rule's counts.
struct PartialTargets {
  std::set<int> changed;
  std::vector<int> targets;
  msg::ShardVersions versions;
  int min_acks = 1;   // targets that must take it
  int untouched = 0;  // current positions left alone (they hold the write too)
};

// The targets of a write of an existing object that changes the positions `changed` and leaves
// the others alone. Retryable EAGAIN when the positions that would hold it cannot reach min_size.
Result<PartialTargets> PlanPartial(const ObjectIo& io, const ObjectState& state,
                                   std::set<int> changed, std::uint64_t version, int min_size);

// Every position of the PG (k+m; for a small object's copies too: its empty shards past m).
std::set<int> AllPositions(const ObjectIo& io);

// The object after a write of `version` that changed `changed` (every position for a whole
// rewrite or a remove) and that `took` took: the current positions it left alone stay current;
// those it changed but did not reach, and the stale ones it did not reach, are stale at the
// version they are at (recovery asks their OSDs to pull from there: a pull names it).
ObjectState After(const ObjectState& before, std::uint64_t version, const std::set<int>& changed,
                  const std::vector<int>& took);

// The state's meta after a write that recorded `meta` (null when the set of xattrs is unknown).
std::shared_ptr<const ObjectMeta> MetaAfter(const MetaUpdate& meta);

// Encodes `plan` with `data` (reading the plan's old bytes first) and sends each of `targets` its
// part as version `version`, recording `versions` (VersionsAfter; empty for a whole rewrite) and
// `meta` (SubWriteFor); SendSubWrites' rules with `min_acks` and `untouched`. A replicated pool's
// (PoolCodec::replicated) stripes are sent as they are to every copy: no encode, one buffer.
Result<std::vector<int>> EncodeAndSend(const ObjectIo& io, const ObjectState& state,
                                       const WritePlan& plan, const Buffer& data,
                                       std::uint64_t version, std::vector<int> targets,
                                       int min_acks, const msg::ShardVersions& versions,
                                       int untouched, const MetaUpdate& meta);

// ReadObject's repair chain (object_io.h "Reads"; object_io_chain_read.cc), given the read's
// `request` (its available positions and cost model filled in), `primary` (the primary's shard
// source, at the object's version, not cut at stored lengths) and the stored `sizes`.
struct ChainAttempt {
  bool tried = false;                  // a chain was chosen and run for the read
  Status failure;                      // tried and failed (chain or read after it): why
  std::optional<ReadOutcome> outcome;  // tried and served
};
// Not tried (the read goes direct) when io.chain is null or off, the object is not erasure-coded,
// the range needs no lost data shard or more than one, the mode does not choose a chain for the
// bytes (repair_chain.h ChainLongEnough / ChainPaysOff), or the code is not pipelinable.
ChainAttempt ReadThroughChain(const ObjectIo& io, const ObjectState& state,
                              const recovery::ObjectReadRequest& request,
                              recovery::ShardSource& primary,
                              const std::map<int, std::uint64_t>& sizes);

}  // namespace ec::osd::pg::object_io_detail
