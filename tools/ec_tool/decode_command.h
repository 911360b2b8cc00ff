// `ec-tool decode PROFILE STRIPE_UNIT AVAILABLE_SHARDS FNAME`, as Ceph's ceph-erasure-code-tool:
// given the shard files FNAME.<id> of the chunk ids listed in AVAILABLE_SHARDS (comma separated),
// rebuilds the data of every stripe and writes it to FNAME, still padded to whole stripes.
//
// Only the shards minimum_to_decode() chooses are read (all data shards when they are listed,
// else the first k listed). Every listed shard file must exist and all must have one size, a
// non-zero multiple of STRIPE_UNIT. The shards are streamed in batches of stripes and FNAME is
// replaced atomically once it is complete.
#pragma once

#include <string>

#include "common/status.h"

namespace ectool {

struct DecodeRequest {
  std::string profile;
  std::string stripe_unit;
  std::string available_shards;
  std::string fname;
  std::string plugin_dir;  // where libec_<plugin>.so are found
  bool sync = false;       // fsync FNAME before renaming it into place
};

// Errors: the messages of LoadCode / MakeStripeLayout / ParseShardList, "cannot decode from
// shards ...: ..." (too few shards, EIO), "failed to read FNAME.N: ...", shard size mismatches
// (EINVAL, naming both files), "failed to decode: ...", "failed to write FNAME: ...".
ec::Status RunDecode(const DecodeRequest& request);

}  // namespace ectool
