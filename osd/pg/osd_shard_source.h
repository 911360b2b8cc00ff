// OsdShardSource: the repair engine's ShardSource over ec-osd daemons. Shard i of an object is
// the OSD object (collection, object, shard i) on the OSD that holds shard i; each request of
// the engine becomes ONE ReadShard message to that OSD carrying all its extents (the OSD reads
// them in one store call), so a CLAY repair costs d requests per batch, one per helper.
//
// Completions run on the clients' io threads (the engine waits for them). Per request:
//   OK: the reply's bytes are copied into the request's destination (one copy, from the reply
//       buffer; the network dominates);
//   the client's error, prefixed with the holder's name ("osd.3: ..."): ECONNREFUSED /
//       ECONNRESET / ETIMEDOUT (Retryable) when the OSD is down or slow, ENOENT when it does not
//       have the shard, DataLoss when the OSD's checksums failed, ...;
//   ENOENT "no OSD holds shard i" when the source was given no client for it;
//   ENODATA "osd.3: shard i ends before byte N" when the OSD returned less than asked;
//   DataLoss (EIO) when the shard's length is not the one Options::shard_sizes gives.
// limits(): Limits::max_extents extents and Limits::max_payload_len bytes per request (the
// protocol's defaults unless given), so the engine never builds a request the OSD refuses.
//
// Ownership: the clients are borrowed (not owned) and must outlive the source and every read in
// flight. Thread safety: ReadAsync may be called from several threads at once (OsdClient is
// thread-safe); the source holds no mutable state.
#pragma once

#include <map>
#include <string>

#include "msg/client.h"
#include "msg/frame.h"
#include "recovery/shard_source.h"

namespace ec::msg {

// The error of a shard whose length is not the one its object's size gives (`holder` names where
// it is: "osd.3", "local shard 2"): DataLoss (EIO), so that reads go around it and it is repaired.
Status WrongShardLength(const std::string& holder, int shard, std::uint64_t holds,
                        std::uint64_t should);

class OsdShardSource final : public recovery::ShardSource {
 public:
  // Who holds a shard: its client and a name for messages (e.g. "osd.3").
  struct Holder {
    OsdClient* client = nullptr;
    std::string name;
  };
  struct Options {
    std::string collection;        // e.g. "pg.1.3"
    std::string object;            // the object name (the same on every OSD)
    std::map<int, Holder> shards;  // shard id -> holder
    CallOptions call;              // per-request timeout (0: the client's default)
    Limits limits;                 // max_extents / max_payload_len per request
    // When not 0, a reply from a shard at another object version is an error (ESTALE "osd.3:
    // shard i is at version X, not Y"): a degraded read never mixes versions.
    std::uint64_t expect_version = 0;
    // Shard id -> the version that shard must be at instead of expect_version (an object written
    // in part has its shards at several versions: msg/messages.h "Versions").
    std::map<int, std::uint64_t> expect_versions;
    // Shard id -> the bytes its shard must hold (StripeLayout::stored_size of the object's
    // size). A reply from a shard of another length is DataLoss (EIO) "osd.3: shard i holds N
    // bytes, not the M its object's size gives": a cut or extended shard is an I/O error of
    // that shard (read around, repaired), never bytes taken as they are.
    std::map<int, std::uint64_t> shard_sizes;
  };

  explicit OsdShardSource(Options options) : options_(std::move(options)) {}

  recovery::ShardSourceLimits limits() const override {
    return {options_.limits.max_extents, options_.limits.max_payload_len};
  }
  void ReadAsync(std::span<const recovery::ShardReadRequest> requests, Completion done) override;

 private:
  Options options_;
};

}  // namespace ec::msg
