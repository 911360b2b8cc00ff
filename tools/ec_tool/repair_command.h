// `ec-tool repair PROFILE STRIPE_UNIT LOST_SHARD FNAME`: rebuilds the shard file FNAME.<LOST_SHARD>
// from the other shard files FNAME.<i>, reading only the byte ranges the code's plan needs
// (minimum_to_decode for the one lost chunk): for CLAY, d helpers x 1/q of each chunk; for
// jerasure/isa, k whole shards. Adjacent ranges are merged and all ranges of a batch of stripes
// are in flight together (io_uring), not read one after another. Prints one JSON line:
//   {"shard":N,"helpers":[...],"stripes":S,"chunk_size":C,"sub_chunk_count":Z,
//    "bytes_read":B,"read_ops":R}
// bytes_read counts every byte read from helper files, read_ops the merged extents read.
//
// The shard files present (other than the lost one) are the available shards. All must have one
// size, a non-zero multiple of STRIPE_UNIT. FNAME.<LOST_SHARD> is replaced atomically when done.
#pragma once

#include <ostream>
#include <string>

#include "common/status.h"

namespace ectool {

struct RepairRequest {
  std::string profile;
  std::string stripe_unit;
  std::string lost_shard;
  std::string fname;
  std::string plugin_dir;
  bool sync = false;
};

// Errors: the messages of LoadCode / MakeStripeLayout, "invalid lost shard ...", "cannot repair
// shard N: ..." (not enough shard files), shard size mismatches, "failed to read FNAME.i: ..."
// (missing or truncated helper), "failed to decode: ...", "failed to write FNAME.N: ...".
ec::Status RunRepair(const RepairRequest& request, std::ostream& out);

}  // namespace ectool
