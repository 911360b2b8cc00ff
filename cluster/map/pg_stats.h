// PG statistics that PG primaries report through etcd, for `ec-admin -s` (issue 14 item 6: the
// PG states and degraded objects). Not part of the map (no epoch bump): each OSD overwrites its
// own key every osd_pg_stats_interval.
//
//   <prefix>pgstats/<osd id>  {"v":1,"osd":3,"epoch":12,"stamp_ms":...,
//                              "pgs":{"1.1f":{"objects":40},...}}
//
// `objects` is the number of objects of the PG the primary holds a shard of. Decoding is strict
// (nlohmann; EBADMSG naming the key for anything else); a reader skips a report that does not
// decode rather than fail the whole status.
//
// Thread safety: pure functions, and calls on a thread-safe etcd::Client.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::cluster {

struct PgStat {
  std::int64_t objects = 0;
  // From the primary's peered view (osd/pg/pg_table.h); empty state: not known (ec-admin then
  // derives the state from the map alone).
  std::string state;          // Ceph's name: "active+clean", "active+recovering+degraded", ...
  std::int64_t degraded = 0;  // objects with a shard missing or on no up OSD
  std::int64_t missing = 0;   // shards to rebuild on up OSDs
  std::int64_t unfound = 0;   // objects fewer than k shards can settle
  bool operator==(const PgStat&) const = default;
};

struct PgStatsReport {
  int osd = 0;
  std::int64_t epoch = 0;             // the map epoch the report was made at
  std::int64_t stamp_ms = 0;          // wall clock when it was made
  std::map<std::string, PgStat> pgs;  // by Ceph pg id ("1.1f"): the PGs it is primary of
  bool operator==(const PgStatsReport&) const = default;
};

std::string PgStatsKey(std::string_view prefix, int osd);
std::string EncodePgStats(const PgStatsReport& report);
Result<PgStatsReport> DecodePgStats(std::string_view key, std::string_view value);

// Writes `report` under its OSD's key.
Status PublishPgStats(const etcd::Client& client, std::string_view prefix,
                      const PgStatsReport& report);
// Every report under the prefix, by OSD id (reports that do not decode are left out).
Result<std::map<int, PgStatsReport>> LoadPgStats(const etcd::Client& client,
                                                 std::string_view prefix);

}  // namespace ec::cluster
