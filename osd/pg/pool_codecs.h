// PoolCodecs: each pool's erasure code, stripe layout and repair engine, made once from the pool's
// profile (loading its plugin) and kept while the pool exists (a profile in use cannot change).
// The layout stores shards without padding when the pool has allow_ec_optimizations (fixed at
// the pool's creation, cluster_map.h).
//
// A replicated pool (issue 30) gets the repetition code of its size (ec/repetition_code.h: k=1,
// every position a whole copy; no plugin is loaded) and a layout without padding, so each shard
// is exactly the object's bytes; its type is fixed at creation, as a profile is, and when its
// size changes the next Get makes the code of the new size (a caller holding the old one keeps it:
// the codecs are shared and immutable).
//
// An erasure pool's codec also carries `replicas`: the code of its small objects (issue 30 item 2,
// msg::ObjectForm::kReplicas): the repetition code of m+1 copies with the pool's stripe unit and
// no padding, so positions 0..m each hold the object's bytes; positions m+1..k+m-1 of such an
// object hold an empty shard (stored_size gives 0 for a position past the code's chunks).
//
// Errors of Get: the plugin's (a profile the plugin refuses, a missing plugin), the layout's
// ("invalid stripe unit ..."), ENOENT for a missing profile, EINVAL for a replicated pool's size
// outside the code's range.
// Thread safety: Get may be called from any thread; the codecs are immutable.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "cluster/map/cluster_map.h"
#include "common/status.h"
#include "ec/erasure_code_interface.h"
#include "ec/stripe_layout.h"
#include "msg/messages.h"
#include "recovery/repair_engine.h"

namespace ec::osd::pg {

struct PoolCodec {
  ErasureCodeInterfaceRef code;
  StripeLayout layout;
  std::shared_ptr<const recovery::RepairEngine> engine;
  // A replicated pool's repetition code: every position stores the data chunk's bytes, so a
  // write sends the same bytes to every copy without encoding them.
  bool replicated = false;
  // The form of the objects this code stores (kReplicas: an erasure pool's small objects).
  msg::ObjectForm form = msg::ObjectForm::kErasure;
  // An erasure pool's: how many copies its small objects keep (m+1), on this codec and on its
  // `replicas`; 0 for a replicated pool (its objects have one form).
  int small_copies = 0;
  // An erasure pool's small-object code (above); null for a replicated pool and on itself.
  std::shared_ptr<const PoolCodec> replicas;
  // The codec of objects of form `form`: this one, or `replicas`.
  const PoolCodec& ForForm(msg::ObjectForm f) const {
    return f == msg::ObjectForm::kReplicas && replicas ? *replicas : *this;
  }
};

class PoolCodecs {
 public:
  explicit PoolCodecs(std::string plugin_dir) : plugin_dir_(std::move(plugin_dir)) {}
  Result<std::shared_ptr<const PoolCodec>> Get(const cluster::ClusterMap& map,
                                               const cluster::Pool& pool);

 private:
  std::string plugin_dir_;
  std::mutex mu_;
  std::map<std::int64_t, std::shared_ptr<const PoolCodec>> codecs_;
};

}  // namespace ec::osd::pg
