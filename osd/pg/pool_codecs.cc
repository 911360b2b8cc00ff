#include "osd/pg/pool_codecs.h"

#include "ec/plugin.h"

namespace ec::osd::pg {

Result<std::shared_ptr<const PoolCodec>> PoolCodecs::Get(const cluster::ClusterMap& map,
                                                         const cluster::Pool& pool) {
  {
    std::lock_guard lock(mu_);
    auto it = codecs_.find(pool.id);
    if (it != codecs_.end()) return it->second;
  }
  auto p = map.profiles.find(pool.profile);
  if (p == map.profiles.end()) {
    return Status::NotFound("erasure-code-profile " + pool.profile + " does not exist");
  }
  Profile profile = p->second.profile;
  auto it = profile.find("plugin");
  const std::string plugin = it == profile.end() ? "jerasure" : it->second;
  const std::string dir = plugin_dir_.empty() ? PluginRegistry::default_directory() : plugin_dir_;
  auto codec = std::make_shared<PoolCodec>();
  Status s = PluginRegistry::instance().factory(plugin, dir, profile, &codec->code);
  if (!s.ok()) return s.WithPrefix("pool " + pool.name + " (profile " + pool.profile + ")");
  // A pool created with allow_ec_optimizations stores its objects without padding (Fast EC).
  auto layout = StripeLayout::Make(*codec->code, pool.stripe_unit,
                                   pool.ec_optimizations ? Padding::kNone : Padding::kWholeStripes);
  if (!layout.ok()) return layout.status().WithPrefix("pool " + pool.name);
  codec->layout = *layout;
  codec->engine = std::make_shared<const recovery::RepairEngine>(codec->code, *layout);
  std::lock_guard lock(mu_);
  return codecs_.emplace(pool.id, std::move(codec)).first->second;
}

}  // namespace ec::osd::pg
