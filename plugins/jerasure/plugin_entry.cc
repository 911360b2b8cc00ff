// The entry points of libec_jerasure.so (see ec/plugin.h): the version symbol and an init that
// prepares the gf-complete fields (w = 4, 8, 16, 32, as Ceph's __erasure_code_init) and
// registers the plugin under the name it is loaded as.
#include "ec/plugin.h"
#include "plugins/jerasure/jerasure_plugin.h"

#ifndef ECSTORE_PLUGIN_VERSION
#error "ECSTORE_PLUGIN_VERSION must be defined by the build (ecstore_add_plugin)"
#endif

extern "C" const char* __erasure_code_version() {
  return ECSTORE_PLUGIN_VERSION;
}

extern "C" int __erasure_code_init(const char* plugin_name, const char* /*directory*/) {
  ec::Status fields = ec::jerasure::InitGaloisFields();
  if (!fields.ok()) return fields.ceph_code();
  return ec::PluginRegistry::instance()
      .add(plugin_name, std::make_unique<ec::jerasure::JerasurePlugin>())
      .ceph_code();
}
