// Peering one PG (issue 15 item 1): the primary learns what every up shard holds (SubScan, paged)
// and settles every object's version from those states with the same rule as a single object
// (resolve.h): held by at least k shards at one version stands, and the positions behind it are
// stale; a write that cannot have been acknowledged is rolled back (through ResolveObject, which
// asks those shards again); an object fewer than k shards can settle is unfound.
//
// A shard whose scan fails counts as unreachable, as if its OSD were down (so nothing it may hold
// is rolled back on its account).
//
// Other OSDs ("priors"; the primary passes, for each position, every other up OSD but itself,
// the acting set's included): they are scanned for that position too, since a position that
// moved (an OSD marked out or in, added or removed) may have left its shards there; when the
// positions are permuted among the OSDs that keep the PG, each holds its former position's
// shards. This OSD's own shards of the positions it does not act for are scanned too, in process
// (io.clients' link of its own position). What they hold takes part in settling (resolve.h: a
// version they hold is never rolled back, and counts towards k, so an acknowledged write whose
// shards sit outside the acting set is not lost), and a shard they hold at the object's settled
// version is a copy source (PeeringOutcome::copies) for a position whose acting OSD lacks it. A
// scan that fails is just not a source.
//
// Blocking: starts every scan at once and waits for them (common/fan_out.h); each scan asks for
// its next page from the completion of the one before (on the client's io thread, or a
// ShardService worker for this OSD's own shard), so no thread is started per shard or prior.
// Run it on a thread that may block (not an io thread or a ShardService worker).
#pragma once

#include <map>
#include <set>
#include <string>

#include "common/status.h"
#include "osd/pg/object_io.h"
#include "osd/pg/pg_table.h"

namespace ec::osd::pg {

struct PeeringOutcome {
  std::map<std::string, ObjectState> objects;  // every object some shard knows, settled
  std::set<std::string> unfound;               // fewer than k shards could settle them
  std::uint64_t scanned_entries = 0;           // shard entries the scans returned
  CopySources copies;     // missing positions a prior OSD holds at the settled version
  std::set<int> scanned;  // the acting positions whose scan succeeded
};

// position -> prior OSD id -> its client (never this OSD's: PeerPg scans its own in process).
using PriorClients = std::map<int, std::map<int, std::shared_ptr<msg::OsdClient>>>;

// `io`: the PG's location, codec and clients (io.object is not used).
// Errors: EIO when fewer than k shards could be scanned (the PG is down).
Result<PeeringOutcome> PeerPg(const ObjectIo& io, const PriorClients& priors = {});

// A catch-up's first step (pg_table.h): raises the interval fence of every up shard of `io` (a
// SubScan of one entry at io.epoch each, at once: the scan's first step, without the rest), so
// no sub-operation of an earlier interval lands after it. Blocking, as PeerPg. Errors: the
// first shard that failed, naming its OSD (the caller peers in full instead).
Status FenceShards(const ObjectIo& io);

}  // namespace ec::osd::pg
