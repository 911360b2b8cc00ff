// The etcd records of PG scrubs: what an admin asked for (Ceph's `ceph pg scrub|deep-scrub|repair
// PGID`) and what the PG's primary found last (Ceph's `rados list-inconsistent-obj PGID`). Not
// part of the map (no epoch bump), like pgstats/ (pg_stats.h).
//
//   <prefix>scrub_requests/<pgid>  {"v":1,"kind":"deep-scrub","requested_ms":1700000000123}
//     Written by ec-admin; read by the PG's primary OSD, which deletes it when that scrub is done.
//     One request per PG: a newer request overwrites an older one not yet started.
//
//   <prefix>scrub/<pgid>  {"v":1,"pgid":"1.3","osd":2,"epoch":12,"kind":"deep-scrub",
//                          "stamp_ms":..,"last_scrub_ms":..,"last_deep_scrub_ms":..,
//                          "objects":40,"errors":2,"repaired":0,
//                          "inconsistents":[{"object":{"name":"obj1","version":123},
//                                            "errors":["ec_hash_error"],
//                                            "union_shard_errors":["read_error"],
//                                            "shards":[{"osd":3,"primary":false,"shard":0,
//                                                       "errors":["read_error"],"size":4096,
//                                                       "version":123},...]},...],
//                          "truncated":false}
//     Written (overwritten) by the PG's primary after each scrub it completes; read by ec-admin.
//     The key outlives a change of primary: the next primary's scrub overwrites it.
//
// Error names (Ceph's, except version_mismatch). Per shard ("errors" of a shard; an object's
// "union_shard_errors" is the union of its shards'):
//   "missing"             the OSD that should hold the shard has no copy of it;
//   "read_error"          reading the shard failed: an I/O error or a checksum mismatch;
//   "stat_error"          the shard's metadata (size, version) could not be read;
//   "size_mismatch_info"  the shard's size is not what the object's size implies;
//   "ec_hash_error"       (deep scrub) the shard disagrees with the codeword the others form;
//   "ec_size_error"       the shard's size differs from the other shards' size.
// Per object ("errors" of an object):
//   "version_mismatch"    (not Ceph's) the shards are at different object versions;
//   "size_mismatch"       the shards disagree about the object's size;
//   and a shard error name when it decides the object (e.g. "ec_hash_error").
// The decoder accepts any non-empty name, so that a newer writer may add names without a new
// format version; the constants below are the names writers use.
//
// Decoding is strict: exactly the fields shown, "v" == 1, every integer a JSON integer (not 1.0,
// not "1", not true) in [0, INT64_MAX] (osd and shard in [0, INT32_MAX]), "primary" and
// "truncated" booleans, kind one of ScrubKindName's, pgid and object names non-empty strings,
// error names non-empty strings, at most kMaxInconsistentsRecorded inconsistents, no key twice
// in one JSON object. Anything else is EBADMSG "bad scrub request|result at <key>: <what>", where
// <what> names the field ("inconsistents[2] shards[0] osd"). A reader skips a record that does not
// decode rather than fail: one bad PG record does not hide the others.
//
// Thread safety: pure functions, and calls on a thread-safe etcd::Client.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

// Ceph's three: "scrub" compares shard metadata (presence, size, version); "deep-scrub" also reads
// every shard, verifies its checksums and that the shards form a codeword; "repair" is a deep
// scrub that then rewrites the bad shards.
enum class ScrubKind { kScrub, kDeepScrub, kRepair };

// "scrub", "deep-scrub", "repair" ("unknown" for a value outside the enum).
std::string_view ScrubKindName(ScrubKind kind);
// The inverse of ScrubKindName; EINVAL for any other text (case matters).
Result<ScrubKind> ParseScrubKind(std::string_view name);

namespace scrub_error {
inline constexpr char kMissing[] = "missing";
inline constexpr char kReadError[] = "read_error";
inline constexpr char kStatError[] = "stat_error";
inline constexpr char kSizeMismatchInfo[] = "size_mismatch_info";
inline constexpr char kEcHashError[] = "ec_hash_error";
inline constexpr char kEcSizeError[] = "ec_size_error";
inline constexpr char kVersionMismatch[] = "version_mismatch";
inline constexpr char kSizeMismatch[] = "size_mismatch";
}  // namespace scrub_error

struct ScrubRequest {
  ScrubKind kind = ScrubKind::kScrub;
  std::int64_t requested_ms = 0;  // wall clock (ms since 1970) when the admin asked
  bool operator==(const ScrubRequest&) const = default;
};

// One shard of an inconsistent object, as its OSD reported it (or could not).
struct ShardScrubError {
  int osd = -1;                     // the OSD that holds (or should hold) the shard
  bool primary = false;             // that OSD is the PG's primary
  int shard = 0;                    // the shard's position in the codeword, 0..k+m-1
  std::vector<std::string> errors;  // shard error names; empty: this shard is good
  std::int64_t size = 0;            // bytes of the shard as stored (0 when missing)
  std::int64_t version = 0;         // the object version the shard is at (0 when missing)
  bool operator==(const ShardScrubError&) const = default;
};

struct InconsistentObject {
  std::string name;
  std::int64_t version = 0;                     // the version the PG's log says is current
  std::vector<std::string> errors;              // object error names
  std::vector<std::string> union_shard_errors;  // union of its shards' errors
  std::vector<ShardScrubError> shards;          // every shard examined, in shard order
  bool operator==(const InconsistentObject&) const = default;
};

struct ScrubResult {
  std::string pgid;        // Ceph's "1.3"
  int osd = -1;            // the primary that scrubbed
  std::int64_t epoch = 0;  // the map epoch the scrub ran at
  ScrubKind kind = ScrubKind::kScrub;
  // Wall clock (ms since 1970): when this scrub finished; when the PG's last scrub of any kind
  // and last deep scrub (or repair) finished (0: never), Ceph's last_scrub_stamp and
  // last_deep_scrub_stamp.
  std::int64_t stamp_ms = 0, last_scrub_ms = 0, last_deep_scrub_ms = 0;
  // Objects examined; errors found (every one, also those of objects left out of
  // `inconsistents`); errors the repair fixed (0 but for kRepair).
  std::int64_t objects = 0, errors = 0, repaired = 0;
  std::vector<InconsistentObject> inconsistents;  // at most the cap below, by object name
  bool truncated = false;  // inconsistent objects beyond the cap were found and left out
  bool operator==(const ScrubResult&) const = default;
};

// The cap on recorded inconsistent objects, which bounds the value: 1000 objects with 6 shards
// each and 64-byte names take about 0.8 MB, under etcd's 1.5 MiB request default. A wide code (k+m
// of 16 or more) with long object names can exceed it; its writer then sees EINVAL from the Put.
inline constexpr std::size_t kMaxInconsistentsRecorded = 1000;

// "<prefix>scrub_requests/<pgid>" and "<prefix>scrub/<pgid>"; the prefix ends with '/' (as
// "/ecstore/"). Neither range contains the other's keys.
std::string ScrubRequestKey(std::string_view prefix, std::string_view pgid);
std::string ScrubResultKey(std::string_view prefix, std::string_view pgid);
std::string ScrubRequestPrefix(std::string_view prefix);  // "<prefix>scrub_requests/"
std::string ScrubResultPrefix(std::string_view prefix);   // "<prefix>scrub/"

std::string EncodeScrubRequest(const ScrubRequest& request);
// Errors: EBADMSG "bad scrub request at <key>: <what>". `key` only names the value.
Result<ScrubRequest> DecodeScrubRequest(std::string_view key, std::string_view json);

// Writes the first kMaxInconsistentsRecorded inconsistents and sets "truncated" when there were
// more (so a result with more does not round-trip; its `errors` is written unchanged).
std::string EncodeScrubResult(const ScrubResult& result);
// Errors: EBADMSG "bad scrub result at <key>: <what>". `key` only names the value: whether the
// pgid matches the key is the caller's check (LoadScrubResults makes it).
Result<ScrubResult> DecodeScrubResult(std::string_view key, std::string_view json);

// Ceph's `rados list-inconsistent-obj PGID` output for `result`:
//   {"epoch":E,"inconsistents":[{"object":{"name":..,"nspace":"","locator":"","snap":"head",
//    "version":..},"errors":[..],"union_shard_errors":[..],
//    "shards":[{"osd":..,"primary":..,"shard":..,"errors":[..],"size":..}]}]}
// ecstore has no namespaces, locators or snapshots: those are always "", "", "head".
nlohmann::json ListInconsistentObjJson(const ScrubResult& result);

// The pgid a key under `key_prefix` (a ScrubRequestPrefix or ScrubResultPrefix) names:
// ("/ecstore/scrub/", "/ecstore/scrub/1.3") -> "1.3". nullopt when the key is not under the
// prefix, is the prefix itself, or has a further '/' after it.
std::optional<std::string> PgidOfKey(std::string_view key_prefix, std::string_view key);

// Every scrub result under the prefix, by pgid (std::string order: "1.10" before "1.2"). Records
// that do not decode, and records whose pgid is not their key's, are left out. Errors: those of
// etcd::Client::Range (one Range over ScrubResultPrefix; EPROTO when the reply is above
// ClientOptions::max_reply_bytes).
Result<std::map<std::string, ScrubResult>> LoadScrubResults(const etcd::Client& client,
                                                            std::string_view prefix);
// Every pending scrub request under the prefix, by pgid; requests that do not decode are left
// out. Errors: those of etcd::Client::Range.
Result<std::map<std::string, ScrubRequest>> LoadScrubRequests(const etcd::Client& client,
                                                              std::string_view prefix);

}  // namespace ec::cluster
