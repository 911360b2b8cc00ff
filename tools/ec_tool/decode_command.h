// `ec-tool decode PROFILE STRIPE_UNIT AVAILABLE_SHARDS FNAME`, as Ceph's ceph-erasure-code-tool:
// given the shard files FNAME.<id> of the chunk ids listed in AVAILABLE_SHARDS (comma separated),
// rebuilds the data of every stripe and writes it to FNAME, still padded to whole stripes.
//
// It runs the repair engine (recovery/repair_engine.h) for every data chunk over the shard files
// (recovery/file_shard_source.h): only the shards minimum_to_decode_with_cost chooses are read
// (the data shards that are listed, then the lowest other ids up to k), in batches of stripes,
// and a shard that cannot be read is replaced by another listed one when there is one. Every
// listed shard file must exist and all must have one size, a non-zero multiple of STRIPE_UNIT
// (see CheckShardSizes for what sizes cannot tell). FNAME is replaced atomically once complete.
#pragma once

#include <string>

#include "common/status.h"

namespace ec::tools::ec_tool {

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
// (EINVAL, naming both files), the engine's "cannot rebuild shard(s) ...: helper(s) failed:
// ...", "failed to decode: ...", "failed to write FNAME: ...".
ec::Status RunDecode(const DecodeRequest& request);

}  // namespace ec::tools::ec_tool
