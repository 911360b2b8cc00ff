// The shec erasure-code plugin: Ceph's `plugin=shec` (see shec_code.h for the code and profile).
//
// Two ways to use it:
//   - as a shared object libec_shec.so (entry points in plugins/plugin_entry.cc), loaded by
//     PluginRegistry::load("shec", dir);
//   - linked in (ec_shec_static): call ec::RegisterShecBuiltin() once, then
//     PluginRegistry::instance().factory("shec", ...) finds it without dlopen.
//
// Factory: `technique` absent means "multiple" (inserted into the profile, as Ceph does);
// anything but single / multiple gives ENOENT with
//   "technique=T is not a valid coding technique. Choose one of the following: single, multiple";
// otherwise the code's init() result.
//
// Thread safety: factory() may be called concurrently; the codes of one plugin share their
// codecs and decode programs (shec::ShecTableCache).
#pragma once

#include <memory>
#include <string>

#include "ec/plugin.h"
#include "plugins/shec/shec_table_cache.h"

namespace ec {

class ShecPlugin final : public ErasureCodePlugin {
 public:
  ShecPlugin();
  Status factory(const std::string& directory, Profile& profile,
                 ErasureCodeInterfaceRef* out) override;
  // Prepares gf-complete's fields (w = 8, 16, 32), as Ceph's shec plugin does at load.
  Status prepare() override;

 private:
  std::shared_ptr<shec::ShecTableCache> tables_;
};

// Registers the built-in "shec" plugin with PluginRegistry::instance() (idempotent).
void RegisterShecBuiltin();

}  // namespace ec
