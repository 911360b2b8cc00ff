// `ec-tool repair PROFILE STRIPE_UNIT LOST_SHARD FNAME`: rebuilds the shard file FNAME.<LOST_SHARD>
// from the other shard files FNAME.<i> through the repair engine (recovery/repair_engine.h) and
// the shard-file source (recovery/file_shard_source.h): it reads only the byte ranges the code's
// plan needs (for CLAY, d helpers x 1/q of each chunk; for jerasure/isa, k whole shards), one
// io_uring batch per helper and batch of stripes, and prints one JSON line:
//   {"shard":N,"helpers":[...],"stripes":S,"chunk_size":C,"sub_chunk_count":Z,
//    "bytes_read":B,"read_ops":R}
// bytes_read counts every byte read from helper files, read_ops the merged extents read. A helper
// file that cannot be read is dropped and the engine plans again with the others.
//
// The shard files present (other than the lost one) are the available shards. All of them must
// fit the profile and stripe unit: one size, a non-zero multiple of the stripe unit (see
// CheckShardSizes), and no FNAME.<k+m> (a shard of a code with more chunks). What cannot be
// detected: shards written with another profile of the same chunk count and chunk size (isa
// k=4 m=2 and clay k=4 m=2 d=5 at 4096); the files carry no profile, so those rebuild wrong
// bytes. FNAME.<LOST_SHARD> is replaced atomically when done.
#pragma once

#include <ostream>
#include <string>

#include "common/status.h"

namespace ec::tools::ec_tool {

struct RepairRequest {
  std::string profile;
  std::string stripe_unit;
  std::string lost_shard;
  std::string fname;
  std::string plugin_dir;
  bool sync = false;
};

// Errors: the messages of LoadCode / MakeStripeLayout, "invalid lost shard ...", "cannot repair
// shard N (missing helper files: ...): ..." (not enough shard files), "shard file FNAME.<k+m>
// exists but this profile has ...", shard size mismatches (CheckShardSizes), the engine's
// "cannot rebuild shard(s) N: helper(s) failed: i (failed to read FNAME.i: ...)...", "failed to
// decode: ...", "failed to write FNAME.N: ...".
ec::Status RunRepair(const RepairRequest& request, std::ostream& out);

}  // namespace ec::tools::ec_tool
