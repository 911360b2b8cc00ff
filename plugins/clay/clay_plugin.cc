#include "plugins/clay/clay_plugin.h"

#include "plugins/clay/clay_code.h"

namespace ec {

Status ClayPlugin::factory(const std::string& directory, Profile& profile,
                           ErasureCodeInterfaceRef* out) {
  if (out == nullptr) return Status::Invalid("clay factory: no place to return the code");
  auto code = std::make_shared<ErasureCodeClay>(directory);
  EC_RETURN_IF_ERROR(code->init(profile));
  *out = std::move(code);
  return Status::OK();
}

void RegisterClayBuiltin() {
  PluginRegistry::instance().register_builtin("clay",
                                              [] { return std::make_unique<ClayPlugin>(); });
}

}  // namespace ec
