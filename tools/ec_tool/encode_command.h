// `ec-tool encode PROFILE STRIPE_UNIT WANT_TO_ENCODE FNAME`, as Ceph's ceph-erasure-code-tool:
// reads FNAME, pads it with zeros to a whole number of stripes (stripe width = k * STRIPE_UNIT),
// encodes it with ec::StripeCodec (a batch of stripes at a time, parity computed straight from
// the read buffer) and writes FNAME.<chunk id> for all k+m chunks; shard file i is the
// concatenation of chunk i of every stripe.
//
// WANT_TO_ENCODE is checked (comma separated chunk ids in range) but, like the current Ceph tool,
// every shard is written. The file is streamed in batches of stripes, so memory use does not
// grow with the file. Each FNAME.N is replaced atomically and only once every shard is complete.
#pragma once

#include <string>

#include "common/status.h"

namespace ec::tools::ec_tool {

struct EncodeRequest {
  std::string profile;
  std::string stripe_unit;
  std::string want_to_encode;
  std::string fname;
  std::string plugin_dir;  // where libec_<plugin>.so are found
  bool sync = false;       // fsync the shard files before renaming them into place
};

// Errors: the messages of LoadCode / MakeStripeLayout / ParseShardList, "failed to read FNAME:
// ...", "failed to read FNAME: the file is empty", "failed to write FNAME.N: ...",
// "failed to encode: ...".
ec::Status RunEncode(const EncodeRequest& request);

}  // namespace ec::tools::ec_tool
