// PG statistics that PG primaries report through etcd, for `ec-admin -s` and `ec-admin progress`
// (issue 14 item 6: the PG states and degraded objects; issue 15 item 6: recovery progress and
// bytes). Not part of the map (no epoch bump): each OSD overwrites its own key every
// osd_mon_report_interval.
//
//   <prefix>pgstats/<osd id>  {"v":4,"osd":3,"epoch":12,"stamp_ms":...,
//                              "pgs":{"1.1f":{"objects":40,"bytes":163840,"state":"active+clean",
//                                             "degraded":0,"misplaced":0,"missing":0,
//                                             "unfound":0,"missing_bytes":0,"recovered":0,
//                                             "recovered_bytes":0,"up":[2,-1,1],
//                                             "acting":[2,0,1]},...},
//                              "recovery":{"network_bytes":..,"helper_device_bytes":..,
//                                          "rebuilt_bytes":..,"objects":..,
//                                          "rebuilt_bytes_per_sec":..,"objects_per_sec":..,
//                                          "since_ms":..,"last_since_ms":..,
//                                          "last_done_ms":..}}
//
// Versions: v1 has per PG "objects" only and no "recovery"; v2 adds state, degraded, missing and
// unfound; v3 adds misplaced, missing_bytes, recovered, recovered_bytes and "recovery"; v4 adds per
// PG the interval its state is for: "up" and "acting" as the primary located the PG (position ->
// OSD id, -1 = kItemNone), so that a reader tells a state of the PG's current interval (the same
// sets in its map: still true after epochs that did not touch the PG) from one of an earlier
// interval (the PG must peer again). v5 adds per PG "bytes" (its objects' logical bytes, Ceph's
// num_bytes) and to "recovery" the last run that ended (last_since_ms, last_done_ms), from which
// `progress` keeps completed events. The decoder reads all five (fields a version lacks are 0 /
// empty). Decoding is strict: exactly the version's fields, every count a non-negative integer
// that fits int64, the state a string, "up" and "acting" arrays of equal length (at most 256) of
// OSD ids >= -1; anything else is EBADMSG naming the key. A reader skips a report that does not
// decode rather than fail the whole status.
//
// Thread safety: pure functions, and calls on a thread-safe etcd::Client.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

struct PgStat {
  std::int64_t objects = 0;
  // From the primary's peered view (osd/pg/pg_table.h PgHealth); empty state: not known (ec-admin
  // then derives the state from the map alone).
  std::string state;           // Ceph's name: "active+clean", "active+recovering+degraded", ...
  std::int64_t degraded = 0;   // objects with a shard missing that no other OSD holds (v2)
  std::int64_t misplaced = 0;  // objects whose missing shards a previous OSD holds (copy) (v3)
  std::int64_t missing = 0;    // (object, position) pairs to rebuild or copy on up OSDs (v2)
  std::int64_t unfound = 0;    // objects fewer than k shards can settle (v2)
  // v3: estimated shard bytes still to rebuild or copy; pairs and shard bytes recovered since the
  // PG last peered.
  std::int64_t missing_bytes = 0;
  std::int64_t recovered = 0;
  std::int64_t recovered_bytes = 0;
  // v4: the PG's interval the state is for (cluster/map/object_locator.h PgLocation::up, acting);
  // empty: not known (v1-v3), the state is then for the report's epoch.
  std::vector<int> up;
  std::vector<int> acting;
  std::int64_t bytes = 0;  // v5: the sum of its objects' sizes (Ceph's num_bytes)
  bool operator==(const PgStat&) const = default;
};

// The reporting OSD's recovery work as the OSD that pulls shards (osd/pg/pull_service.h), summed
// over pools, cumulative since that OSD process started (v3; all 0 in v1 and v2).
struct RecoveryTotals {
  std::int64_t network_bytes = 0;        // bytes received from helpers
  std::int64_t helper_device_bytes = 0;  // device bytes the helpers read for it
  std::int64_t rebuilt_bytes = 0;        // shard bytes rebuilt or copied and written
  std::int64_t objects = 0;              // objects pulled with success
  // The publisher's rates from the totals' change since its previous report (0 on the first).
  std::int64_t rebuilt_bytes_per_sec = 0;
  std::int64_t objects_per_sec = 0;
  // Wall clock (ms since 1970) since which the OSD's reports have, without a break, named a PG of
  // it with shards missing (missing > 0); 0 when the last one named none.
  std::int64_t since_ms = 0;
  // v5: the last run that ended (a report naming no PG with missing > 0 after one that did): its
  // since_ms and the stamp of the first report naming none; 0 when no run ended since the OSD
  // started.
  std::int64_t last_since_ms = 0;
  std::int64_t last_done_ms = 0;
  bool operator==(const RecoveryTotals&) const = default;
};

struct PgStatsReport {
  int osd = 0;
  std::int64_t epoch = 0;             // the map epoch the report was made at
  std::int64_t stamp_ms = 0;          // wall clock when it was made
  std::map<std::string, PgStat> pgs;  // by Ceph pg id ("1.1f"): the PGs it is primary of
  RecoveryTotals recovery;
  bool operator==(const PgStatsReport&) const = default;
};

inline constexpr std::int64_t kPgStatsVersion = 5;  // what EncodePgStats writes

std::string PgStatsKey(std::string_view prefix, int osd);
// Format v5.
std::string EncodePgStats(const PgStatsReport& report);
// v1 to v5; errors: EBADMSG "bad pg stats at <key>: <what>". `key` only names the value.
Result<PgStatsReport> DecodePgStats(std::string_view key, std::string_view value);

// Writes `report` under its OSD's key.
Status PublishPgStats(const etcd::Client& client, std::string_view prefix,
                      const PgStatsReport& report);
// Every report under the prefix, by OSD id (reports that do not decode are left out).
Result<std::map<int, PgStatsReport>> LoadPgStats(const etcd::Client& client,
                                                 std::string_view prefix);

}  // namespace ec::cluster
