#include "plugins/lrc/lrc_plugin.h"

#include "plugins/lrc/lrc_code.h"

namespace ec {

Status LrcPlugin::factory(const std::string& directory, Profile& profile,
                          ErasureCodeInterfaceRef* out) {
  if (out == nullptr) return Status::Invalid("lrc factory: no place to return the code");
  auto code = std::make_shared<ErasureCodeLrc>(directory);
  EC_RETURN_IF_ERROR(code->init(profile));
  *out = std::move(code);
  return Status::OK();
}

void RegisterLrcBuiltin() {
  PluginRegistry::instance().register_builtin("lrc", [] { return std::make_unique<LrcPlugin>(); });
}

}  // namespace ec
