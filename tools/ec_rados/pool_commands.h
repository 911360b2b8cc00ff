// `ec-rados lspools` and `ec-rados df` (rados's): the pools of the map and each pool's usage and
// client I/O, read from etcd (the map, the PG primaries' and the OSDs' reports; see
// cluster/admin/capacity.h for what each number is).
//
// lspools: one pool name per line, in pool id order.
// df, plain: rados's table
//   POOL_NAME  USED  OBJECTS  CLONES  COPIES  MISSING_ON_PRIMARY  UNFOUND  DEGRADED  RD_OPS  RD
//   WR_OPS  WR  USED COMPR  UNDER COMPR
// (USED the raw bytes of data and parity, COPIES objects x (k+m), DEGRADED the object copies
// without their shard, RD_OPS/RD/WR_OPS/WR the client operations the PG primaries served since
// each OSD started; CLONES, MISSING_ON_PRIMARY and compression 0: not kept), then a blank line
// and total_objects, total_used, total_avail, total_space. JSON: {"pools":[{"name","id",
// "size_bytes","size_kb","num_objects","num_object_clones","num_object_copies",
// "num_objects_missing_on_primary","num_objects_unfound","num_objects_degraded","read_ops",
// "read_bytes","write_ops","write_bytes","compress_bytes_used","compress_under_bytes",
// "stored_data","stored_omap"}],"total_objects","total_used","total_avail","total_space"} (the
// totals in KiB, as rados's). `pool` non-empty: that pool only.
//
// Errors: ENOENT "pool 'p' does not exist" (df -p of a missing pool); the map's and etcd's errors
// (an unreachable etcd: ECONNREFUSED, ...). Reports that do not decode are left out.
//
// Thread safety: calls on a thread-safe etcd::Client.
#pragma once

#include <string>
#include <string_view>

#include "cluster/etcd/etcd_client.h"
#include "common/status.h"

namespace ec::tools::rados {

Result<std::string> LsPools(const etcd::Client& client, std::string_view prefix);

// `format`: "plain", "json" or "json-pretty".
Result<std::string> RadosDf(const etcd::Client& client, std::string_view prefix,
                            const std::string& pool, const std::string& format);

}  // namespace ec::tools::rados
