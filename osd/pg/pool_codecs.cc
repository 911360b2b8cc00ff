#include "osd/pg/pool_codecs.h"

#include <algorithm>

#include "ec/plugin.h"
#include "ec/repetition_code.h"

namespace ec::osd::pg {

Result<std::shared_ptr<const PoolCodec>> PoolCodecs::Get(const cluster::ClusterMap& map,
                                                         const cluster::Pool& pool) {
  {
    std::lock_guard lock(mu_);
    auto it = codecs_.find(pool.id);
    // A replicated pool's size may change (cluster_map.h): its code is made again for it.
    const bool same =
        pool.type != cluster::PoolType::kReplicated ||
        (it != codecs_.end() && static_cast<int>(it->second->layout.chunk_count()) == pool.size);
    if (it != codecs_.end() && same) return it->second;
  }
  auto codec = std::make_shared<PoolCodec>();
  if (pool.type == cluster::PoolType::kReplicated) {
    auto code = MakeRepetitionCode(static_cast<unsigned>(std::max(pool.size, 0)));
    if (!code.ok()) return code.status().WithPrefix("pool " + pool.name);
    codec->code = *code;
    codec->replicated = true;
  } else {
    auto p = map.profiles.find(pool.profile);
    if (p == map.profiles.end()) {
      return Status::NotFound("erasure-code-profile " + pool.profile + " does not exist");
    }
    Profile profile = p->second.profile;
    auto it = profile.find("plugin");
    const std::string plugin = it == profile.end() ? "jerasure" : it->second;
    const std::string dir = plugin_dir_.empty() ? PluginRegistry::default_directory() : plugin_dir_;
    Status s = PluginRegistry::instance().factory(plugin, dir, profile, &codec->code);
    if (!s.ok()) return s.WithPrefix("pool " + pool.name + " (profile " + pool.profile + ")");
  }
  // A pool created with allow_ec_optimizations stores its objects without padding (Fast EC); a
  // replicated pool's copies are the object's bytes, never padded.
  const bool unpadded = pool.ec_optimizations || pool.type == cluster::PoolType::kReplicated;
  auto layout = StripeLayout::Make(*codec->code, pool.stripe_unit,
                                   unpadded ? Padding::kNone : Padding::kWholeStripes);
  if (!layout.ok()) return layout.status().WithPrefix("pool " + pool.name);
  codec->layout = *layout;
  codec->engine = std::make_shared<const recovery::RepairEngine>(codec->code, *layout);
  if (pool.type == cluster::PoolType::kErasure) {
    const unsigned copies = layout->m() + 1;
    auto code = MakeRepetitionCode(copies);
    if (!code.ok()) return code.status().WithPrefix("pool " + pool.name + " small objects");
    auto small = StripeLayout::Make(**code, pool.stripe_unit, Padding::kNone);
    if (!small.ok()) return small.status().WithPrefix("pool " + pool.name + " small objects");
    auto replicas = std::make_shared<PoolCodec>();
    replicas->code = *code;
    replicas->layout = *small;
    replicas->engine = std::make_shared<const recovery::RepairEngine>(replicas->code, *small);
    replicas->replicated = true;
    replicas->form = msg::ObjectForm::kReplicas;
    replicas->small_copies = static_cast<int>(copies);
    codec->small_copies = static_cast<int>(copies);
    codec->replicas = std::move(replicas);
  }
  std::lock_guard lock(mu_);
  return codecs_.insert_or_assign(pool.id, std::move(codec)).first->second;
}

}  // namespace ec::osd::pg
