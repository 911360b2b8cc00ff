// Entry points of libec_clay.so (see ec/plugin.h for the ABI).
#include "plugins/clay/clay_plugin.h"

#ifndef ECSTORE_PLUGIN_VERSION
#error "ECSTORE_PLUGIN_VERSION must be defined by the build (ecstore_add_plugin)"
#endif

extern "C" const char* __erasure_code_version() {
  return ECSTORE_PLUGIN_VERSION;
}

extern "C" int __erasure_code_init(const char* plugin_name, const char* /*directory*/) {
  if (plugin_name == nullptr || *plugin_name == '\0') return -EINVAL;
  ec::Status s =
      ec::PluginRegistry::instance().add(plugin_name, std::make_unique<ec::ClayPlugin>());
  return s.ceph_code();
}
