// The entry points of every libec_<name>.so (see ec/plugin.h for the ABI), written once: the build
// (ecstore_add_plugin in cmake/ecstore.cmake) compiles this file into each plugin with the plugin's
// header and class.
#include <memory>

#include "ec/plugin.h"

#if !defined(ECSTORE_PLUGIN_VERSION) || !defined(ECSTORE_PLUGIN_HEADER) || \
    !defined(ECSTORE_PLUGIN_CLASS)
#error \
    "ECSTORE_PLUGIN_VERSION, _HEADER and _CLASS must be defined by the build (ecstore_add_plugin)"
#endif

#include ECSTORE_PLUGIN_HEADER

extern "C" const char* __erasure_code_version() {
  return ECSTORE_PLUGIN_VERSION;
}

// Registers the plugin under the name it was loaded as; returns 0 or a negative errno.
extern "C" int __erasure_code_init(const char* plugin_name, const char* /*directory*/) {
  if (plugin_name == nullptr || *plugin_name == '\0') return -EINVAL;
  auto plugin = std::make_unique<ECSTORE_PLUGIN_CLASS>();
  ec::Status ready = plugin->prepare();
  if (!ready.ok()) return ready.ceph_code();
  return ec::PluginRegistry::instance().add(plugin_name, std::move(plugin)).ceph_code();
}
