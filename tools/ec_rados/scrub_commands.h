// `ec-rados list-inconsistent-obj PGID` (rados's): what the PG's last scrub found, from the PG's
// scrub record in etcd (cluster/map/scrub_record.h, written by the PG's primary), printed as
// rados prints it: ListInconsistentObjJson, compact (rados's default) or indented by 4.
//
// Thread safety: calls on a thread-safe etcd::Client.
#pragma once

#include <string>
#include <string_view>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::tools::rados {

// Ceph's pgid "POOL.PGHEX" in its canonical form ("1.1F" and "1.01f" -> "1.1f"). Errors: EINVAL
// "invalid pgid 'x'" (anything cluster::ParsePgId refuses).
Result<std::string> CanonicalPgid(std::string_view text);

// The JSON text (ending in "\n") of PG `pgid`'s scrub record under `prefix` (the etcd prefix, as
// "/ecstore/"). Errors: EINVAL for a bad pgid (CanonicalPgid); ENOENT "No scrub information
// available for pg 1.3" (rados's words) when the PG has no record (never scrubbed, or no such
// PG); EBADMSG "bad scrub result at <key>: <what>" for a record that does not decode or names
// another PG; etcd::Client::Get's other errors (an unreachable etcd: ECONNREFUSED, ETIMEDOUT...).
Result<std::string> ListInconsistentObj(const etcd::Client& client, std::string_view prefix,
                                        std::string_view pgid_text, bool pretty);

}  // namespace ec::tools::rados
